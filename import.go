package fdyno

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/klauspost/compress/zstd"
)

// import.go is ImportTable, DescribeImport and ListImports: a new table
// made from files in DynamoDB's formats (DYNAMODB_JSON, CSV, ION), compressed
// with GZIP, ZSTD or not at all, read from an [ImportSource].
//
// Nothing half-imported is ever visible, as a restore (restore.go):
//
//  1. StartImport checks the request and, in one transaction, records
//     the import (IN_PROGRESS) and creates the new table in a hidden
//     directory of the root, "!import-<id>", which no table name can
//     reach (ListTables, Open and DescribeTable never see it).
//  2. RunImport reads the objects, in key order, and writes their items
//     in batches of a bounded size, one transaction each, through the
//     table's write path (Put), so indexes and counters are built with
//     the items. Each batch records the import's progress (object, line,
//     counts) in the same transaction: a run resumed after a crash goes
//     on from the last committed batch, writing nothing twice.
//  3. A line that is not an item, or an item the table refuses (a
//     missing or mistyped key, a bad number, too large), is counted in
//     ErrorCount, logged, and skipped; items with the same key overwrite
//     one another, as DynamoDB's. An object that cannot be read (bad
//     compression, a checksum that does not match its export's manifest)
//     counts one error and the rest of it is skipped, as DynamoDB "may
//     skip processing the remaining portion of the object".
//  4. One transaction moves the hidden table to its name, bumps the
//     metadata version and marks the import COMPLETED, or FAILED with
//     DynamoDB's ItemValidationError when some items failed (the table
//     still holds the others, as DynamoDB's does). An import that fails
//     as a whole (no such bucket, the name taken meanwhile) removes the
//     hidden table: no table appears.

// InputFormat is DynamoDB's InputFormat.
type InputFormat string

const (
	InputFormatDynamoDBJSON InputFormat = "DYNAMODB_JSON"
	InputFormatIon          InputFormat = "ION"
	InputFormatCSV          InputFormat = "CSV"
)

// InputCompressionType is DynamoDB's InputCompressionType.
type InputCompressionType string

const (
	InputCompressionGzip InputCompressionType = "GZIP"
	InputCompressionZstd InputCompressionType = "ZSTD"
	InputCompressionNone InputCompressionType = "NONE"
)

// ImportStatus is DynamoDB's ImportStatus.
type ImportStatus string

const (
	ImportStatusInProgress ImportStatus = "IN_PROGRESS"
	ImportStatusCompleted  ImportStatus = "COMPLETED"
	ImportStatusFailed     ImportStatus = "FAILED"
)

// Errors of imports, named after DynamoDB's exceptions.
var (
	// ErrImportNotFound is DynamoDB's ImportNotFoundException.
	ErrImportNotFound = errors.New("fdyno: ImportNotFoundException")
	// ErrImportConflict is DynamoDB's ImportConflictException: a
	// ClientToken reused for another request.
	ErrImportConflict = errors.New("fdyno: ImportConflictException")
)

// Import batches: items and encoded bytes per transaction.
const (
	importBatchItems = 100
	importBatchBytes = 2 << 20
)

// ImportTableInput is DynamoDB's ImportTable request: the source, its
// format, and the table to create (TableCreationParameters: TableName and
// Schema; Settings are fdyno-server's, as [WithSettings]).
type ImportTableInput struct {
	ClientToken                          string
	S3Bucket, S3BucketOwner, S3KeyPrefix string
	InputFormat                          InputFormat
	// InputCompressionType defaults to NONE.
	InputCompressionType InputCompressionType
	// CsvOptions are the InputFormatOptions of a CSV import.
	CsvOptions *CsvOptions
	TableName  string
	Schema     TableSchema
	Settings   []byte
	// TableArn, if set, names the import's ARN, TableArn + "/import/" + id.
	TableArn string
}

// ImportTableDescription is DynamoDB's ImportTableDescription, with the
// import's id and its table's name.
type ImportTableDescription struct {
	ImportID     string
	ImportArn    string
	ImportStatus ImportStatus
	TableName    string
	TableArn     string
	// TableID is the new table's, known from the start.
	TableID                              string
	ClientToken                          string
	S3Bucket, S3BucketOwner, S3KeyPrefix string
	InputFormat                          InputFormat
	InputCompressionType                 InputCompressionType
	CsvOptions                           *CsvOptions
	Schema                               TableSchema
	Settings                             []byte
	StartTime, EndTime                   time.Time
	// ProcessedSizeBytes counts the bytes read (decompressed);
	// ProcessedItemCount the lines (records) read; ImportedItemCount the
	// items written; ErrorCount the lines that were not.
	ProcessedSizeBytes, ProcessedItemCount, ImportedItemCount, ErrorCount int64
	FailureCode, FailureMessage                                           string
}

// storedImport is an import's record, JSON at ("k", "i", id).
type storedImport struct {
	ImportTableDescription
	TablePath []string // the hidden table's directory
	Request   string
	// Progress: the next object and line to read.
	Object int   `json:",omitempty"`
	Line   int64 `json:",omitempty"`
	// ObjectBytes counts the bytes of object Object already counted.
	ObjectBytes int64 `json:",omitempty"`
}

// importRecords are the imports' records (transfer_record.go).
var importRecords = transferRecords[storedImport]{
	what: "import", tokenKind: "i",
	key:      backupKeys.importRecord,
	all:      func(k backupKeys) (fdb.KeyConvertible, fdb.KeyConvertible) { return k.imports.FDBRangeKeys() },
	notFound: importNotFound, errNotFound: ErrImportNotFound,
	id:    func(im *storedImport) string { return im.ImportID },
	table: func(im *storedImport) string { return im.TableName },
}

func (in ImportTableInput) requestText() string {
	in.ClientToken = ""
	b, _ := json.Marshal(in)
	return string(b)
}

func checkImportInput(in *ImportTableInput) error {
	invalid := func(reason string) error { return &ValidationError{Op: "ImportTable", Reason: reason} }
	if err := checkTableName("TableName", in.TableName); err != nil {
		return err
	}
	if err := in.Schema.validate(); err != nil {
		return err
	}
	if len(in.Schema.LocalSecondaryIndexes) > 0 {
		return invalid("One or more parameter values were invalid: an import cannot create local secondary indexes")
	}
	if in.S3Bucket == "" {
		return invalid("S3Bucket must be given")
	}
	if len(in.ClientToken) > 64 {
		return invalid("ClientToken must be at most 64 characters")
	}
	switch in.InputFormat {
	case InputFormatDynamoDBJSON:
	case InputFormatCSV:
		if in.CsvOptions != nil {
			if err := in.CsvOptions.check(); err != nil {
				return err
			}
		}
	case InputFormatIon:
	default:
		return invalid("InputFormat must be DYNAMODB_JSON, ION or CSV")
	}
	if in.CsvOptions != nil && in.InputFormat != InputFormatCSV {
		return invalid("InputFormatOptions are only for CSV")
	}
	switch in.InputCompressionType {
	case "":
		in.InputCompressionType = InputCompressionNone
	case InputCompressionGzip, InputCompressionZstd, InputCompressionNone:
	default:
		return invalid("InputCompressionType must be GZIP, ZSTD or NONE")
	}
	return nil
}

// ImportTable creates table in.TableName from the objects of src under
// in.S3KeyPrefix and returns the import's description once it is done:
// COMPLETED, or FAILED with FailureCode ItemValidationError when some
// lines were not items (ErrorCount; the table holds the others). Lines
// that fail are written to errLog (nil: nowhere), one JSON object per
// line. It runs many transactions through tx (pass an fdb.Database).
//
// Errors: [ErrValidation]; [ErrResourceInUse] if the table exists;
// [ErrImportConflict]; an error reading the source, after which the
// import is FAILED and no table appears. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html.
func ImportTable(tx fdb.Transactor, in ImportTableInput, src ImportSource, errLog io.Writer, opts ...Option) (*ImportTableDescription, error) {
	d, err := StartImport(tx, in, opts...)
	if err != nil {
		return nil, err
	}
	return RunImport(tx, d.ImportID, src, errLog, opts...)
}

// StartImport checks an import request, records the import IN_PROGRESS
// and creates its hidden table, importing nothing: [RunImport] does
// (fdyno-server runs it in the background). A ClientToken already used
// for the same request returns that import's description.
func StartImport(tx fdb.Transactor, in ImportTableInput, opts ...Option) (*ImportTableDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkImportInput(&in); err != nil {
		return nil, err
	}
	if err := checkSettings("ImportTable", in.Settings); err != nil {
		return nil, err
	}
	clock := newTable(in.TableName, nil)
	clock.clock = o.clock
	now := clock.now().UTC()
	id, err := newExportID(now)
	if err != nil {
		return nil, err
	}
	request := in.requestText()
	hidden := newTable(in.TableName, tablePath(o.root, importPrefix+id))
	target := tablePath(o.root, in.TableName)
	want := &tableMeta{format: metaFormatVersion, name: in.TableName, schema: in.Schema.canonical(), settings: in.Settings,
		counted: !in.Schema.WithoutCounts, created: now}
	return Transact(tx, func(tr fdb.Transaction) (*ImportTableDescription, error) {
		root, err := directory.CreateOrOpen(tr, o.root, nil)
		if err != nil {
			return nil, allocationError(err)
		}
		keys := newBackupKeys(root)
		if in.ClientToken != "" {
			prev, err := importRecords.byToken(tr, keys, in.ClientToken, now)
			if err != nil {
				return nil, err
			}
			if prev != nil {
				if prev.Request != request {
					return nil, &ExportError{ID: prev.ImportID, Err: ErrImportConflict, Reason: "Import with the same client token " + in.ClientToken + " already exists with different parameters"}
				}
				return &prev.ImportTableDescription, nil
			}
		}
		if ok, err := directory.Exists(tr, target); err != nil || ok {
			if err == nil {
				err = &TableError{Table: in.TableName, Err: ErrResourceInUse, Reason: "Table already exists: " + in.TableName}
			}
			return nil, err
		}
		st, err := hidden.openTx(tr, want)
		if err != nil {
			return nil, err
		}
		meta, err := readMeta(tr, st.keys, in.TableName)
		if err != nil {
			return nil, err
		}
		im := &storedImport{TablePath: hidden.path, Request: request, ImportTableDescription: ImportTableDescription{
			ImportID: id, ImportStatus: ImportStatusInProgress, TableName: in.TableName, TableArn: in.TableArn, TableID: meta.tableID,
			ClientToken: in.ClientToken, S3Bucket: in.S3Bucket, S3BucketOwner: in.S3BucketOwner, S3KeyPrefix: in.S3KeyPrefix,
			InputFormat: in.InputFormat, InputCompressionType: in.InputCompressionType, CsvOptions: in.CsvOptions,
			Schema: in.Schema, Settings: in.Settings, StartTime: now}}
		if in.TableArn != "" {
			im.ImportArn = in.TableArn + "/import/" + id
		}
		if err := importRecords.put(tr, keys, im); err != nil {
			return nil, err
		}
		if in.ClientToken != "" {
			if err := importRecords.setToken(tr, keys, in.ClientToken, id, now); err != nil {
				return nil, err
			}
		}
		return &im.ImportTableDescription, nil
	})
}

func importNotFound(id string) error {
	return &ExportError{ID: id, Err: ErrImportNotFound, Reason: "Import not found: " + id}
}

// DescribeImport returns import id's description. Errors:
// [ErrImportNotFound]. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeImport.html.
func DescribeImport(rt fdb.ReadTransactor, id string, opts ...Option) (*ImportTableDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	im, _, err := importRecords.read(rt, o.root, id)
	if err != nil {
		return nil, err
	}
	return &im.ImportTableDescription, nil
}

// ListImportsInput is DynamoDB's ListImports request.
type ListImportsInput struct {
	// TableName, if not empty, lists only the imports into that table.
	TableName string
	// PageSize is the most imports to return (0: no limit).
	PageSize int
	// ExclusiveStartImportID continues a listing after that import.
	ExclusiveStartImportID string
}

// ListImportsOutput is DynamoDB's ListImports response.
type ListImportsOutput struct {
	ImportSummaries []ImportTableDescription
	// LastEvaluatedImportID is set when more imports may follow.
	LastEvaluatedImportID string
}

// ListImports lists imports in id order (their start times). See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListImports.html.
func ListImports(rt fdb.ReadTransactor, in ListImportsInput, opts ...Option) (*ListImportsOutput, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if in.PageSize < 0 {
		return nil, &ValidationError{Op: "ListImports", Reason: "PageSize must be positive"}
	}
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*ListImportsOutput, error) {
		out := &ListImportsOutput{ImportSummaries: []ImportTableDescription{}}
		keys, ok, err := openBackupKeys(tr, o.root)
		if err != nil || !ok {
			return out, err
		}
		recs, last, err := importRecords.list(tr, keys, in.TableName, in.ExclusiveStartImportID, in.PageSize)
		if err != nil {
			return nil, err
		}
		for _, im := range recs {
			out.ImportSummaries = append(out.ImportSummaries, im.ImportTableDescription)
		}
		out.LastEvaluatedImportID = last
		return out, nil
	})
}

// TryImportLease is [TryExportLease] for import id. Errors:
// [ErrImportNotFound].
func TryImportLease(tx fdb.Transactor, id, holder string, d time.Duration, opts ...Option) (bool, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return false, err
	}
	return importRecords.tryLease(tx, o.root, id, holder, o.clockNow(), d)
}

// ReleaseImportLease gives up holder's lease on import id, if it holds
// it.
func ReleaseImportLease(tx fdb.Transactor, id, holder string, opts ...Option) error {
	o, err := buildOptions(opts)
	if err != nil {
		return err
	}
	return importRecords.releaseLease(tx, o.root, id, holder)
}

// RunImport runs import id, recorded IN_PROGRESS by [StartImport],
// reading its objects from src, and returns its description once it is
// done (see [ImportTable]). An import no longer IN_PROGRESS is returned
// as it is; one interrupted at any point may be run again and goes on
// from its last committed batch. An error that is (or wraps)
// context.Canceled, from a transactor that stops between transactions,
// leaves the import IN_PROGRESS.
func RunImport(tx fdb.Transactor, id string, src ImportSource, errLog io.Writer, opts ...Option) (*ImportTableDescription, error) {
	return runImport(tx, id, src, errLog, importBatchItems, opts...)
}

// importObject is one object to read, with its manifest's checksum if
// an export's manifest lists it.
type importObject struct {
	key string
	md5 string
}

func runImport(tx fdb.Transactor, id string, src ImportSource, errLog io.Writer, batch int, opts ...Option) (*ImportTableDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	im, keys, err := importRecords.read(tx, o.root, id)
	if err != nil {
		return nil, err
	}
	if im.ImportStatus != ImportStatusInProgress {
		return &im.ImportTableDescription, nil
	}
	tbl := newTable(im.TableName, im.TablePath)
	tbl.maxItemSize, tbl.chunkThreshold, tbl.clock = o.maxItemSize, o.chunkThreshold, o.clock
	// The handle's schema, which Put validates items with before its
	// transaction.
	st, err := Transact(tx, func(tr fdb.Transaction) (*tableState, error) { return tbl.openTx(tr, nil) })
	if err != nil {
		return nil, err
	}
	tbl.state.Store(st)
	r := &importRun{tx: tx, keys: keys, im: im, tbl: tbl, batch: batch, errLog: errLog, target: tablePath(o.root, im.TableName)}
	if err := r.run(src); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err // stopped, not failed: run it again
		}
		return r.fail(err)
	}
	return r.finish()
}

// importRun is one run of an import.
type importRun struct {
	tx     fdb.Transactor
	keys   backupKeys
	im     *storedImport // the record as last committed
	tbl    *Table        // the hidden table
	target []string
	batch  int
	errLog io.Writer
	types  map[string]ScalarAttributeType
}

// objects lists the objects to read: those the manifest-files.json of
// the exports under the prefix name (with their checksums), or, if there
// is none, every object under the prefix but an export's manifests,
// checksum files and _started marker.
func (r *importRun) objects(src ImportSource) ([]importObject, error) {
	keys, err := src.List(r.im.S3KeyPrefix)
	if err != nil {
		return nil, err
	}
	var out []importObject
	for _, k := range keys {
		if path.Base(k) != "manifest-files.json" {
			continue
		}
		rc, err := src.Open(k)
		if err != nil {
			return nil, err
		}
		files, err := decodeManifestFiles(rc)
		_ = rc.Close()
		if err != nil {
			return nil, err
		}
		if len(out)+len(files) > MaxImportObjects {
			return nil, errors.New("fdyno: the import source holds more than " + strconv.Itoa(MaxImportObjects) + " objects")
		}
		for _, f := range files {
			out = append(out, importObject{key: f.DataFileS3Key, md5: f.MD5Checksum})
		}
	}
	if out != nil {
		return out, nil // the files of every export under the prefix
	}
	for _, k := range keys {
		switch b := path.Base(k); {
		case b == "_started" || strings.HasSuffix(b, ".checksum") || b == "manifest-summary.json":
			continue
		}
		out = append(out, importObject{key: k})
	}
	if len(out) > MaxImportObjects {
		return nil, errors.New("fdyno: the import source holds more than " + strconv.Itoa(MaxImportObjects) + " objects")
	}
	return out, nil
}

func (r *importRun) run(src ImportSource) error {
	objs, err := r.objects(src)
	if err != nil {
		return err
	}
	r.types = map[string]ScalarAttributeType{}
	for _, d := range r.im.Schema.AttributeDefinitions {
		r.types[d.AttributeName] = d.AttributeType
	}
	for i := r.im.Object; i < len(objs); i++ {
		if err := r.object(src, i, objs[i]); err != nil {
			return err
		}
	}
	return nil
}

// pending is a batch of lines read and not yet committed.
type pending struct {
	items   []Item
	lines   []int64 // each item's line number in its object
	errs    []importLineFailure
	bytes   int64 // decompressed bytes read
	records int64 // lines (records) read
	size    int   // the items' sizes
}

type importLineFailure struct {
	line int64
	msg  string
}

// object imports object number n, from line r.im.Line on if it is the
// object the import was interrupted in.
func (r *importRun) object(src ImportSource, n int, obj importObject) error {
	skip := int64(0)
	if n == r.im.Object {
		skip = r.im.Line
	}
	if obj.md5 != "" {
		if err := checkObjectMD5(src, obj); err != nil {
			return r.commit(n, 0, &pending{errs: []importLineFailure{{msg: err.Error()}}}, true)
		}
	}
	rc, err := src.Open(obj.key)
	if err != nil {
		return err
	}
	defer rc.Close()
	counter := &countingReader{r: rc}
	var dec io.Reader = counter
	switch r.im.InputCompressionType {
	case InputCompressionGzip:
		gz, err := gzip.NewReader(counter)
		if err != nil {
			return r.commit(n, 0, &pending{errs: []importLineFailure{{msg: "the object is not gzip data: " + err.Error()}}}, true)
		}
		defer gz.Close()
		dec = gz
	case InputCompressionZstd:
		zr, err := zstd.NewReader(counter, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxImportLine*4))
		if err != nil {
			return r.commit(n, 0, &pending{errs: []importLineFailure{{msg: "the object is not zstd data: " + err.Error()}}}, true)
		}
		defer zr.Close()
		dec = zr
	}
	raw := &countingReader{r: dec}
	next := r.lineSource(raw)
	p := &pending{}
	line := int64(0)
	for {
		it, err := next()
		if err == io.EOF {
			break
		}
		var le *ImportLineError
		switch {
		case err == nil || errors.As(err, &le):
			line++
			if line <= skip {
				continue
			}
			p.records++
			if err != nil {
				p.errs = append(p.errs, importLineFailure{line: line, msg: le.Reason})
			} else {
				p.items, p.lines = append(p.items, it), append(p.lines, line)
				p.size += it.Size()
			}
		default:
			// The rest of the object cannot be read.
			p.records++
			p.errs = append(p.errs, importLineFailure{line: line + 1, msg: "the rest of the object cannot be read: " + err.Error()})
			p.bytes = raw.n - r.im.ObjectBytes
			return r.commit(n, line, p, true)
		}
		if len(p.items) >= r.batch || p.size >= importBatchBytes || len(p.errs) >= r.batch {
			p.bytes = raw.n - r.im.ObjectBytes
			if err := r.commit(n, line, p, false); err != nil {
				return err
			}
			p = &pending{}
		}
	}
	p.bytes = raw.n - r.im.ObjectBytes
	return r.commit(n, line, p, true)
}

// lineSource returns the reader of the object's items in the import's
// format.
func (r *importRun) lineSource(rd io.Reader) func() (Item, error) {
	if r.im.InputFormat == InputFormatCSV {
		var o CsvOptions
		if r.im.CsvOptions != nil {
			o = *r.im.CsvOptions
		}
		types := map[string]ScalarAttributeType{}
		for _, k := range r.im.Schema.KeySchema {
			types[k.AttributeName] = r.types[k.AttributeName]
		}
		for _, g := range r.im.Schema.GlobalSecondaryIndexes {
			for _, k := range g.KeySchema {
				types[k.AttributeName] = r.types[k.AttributeName]
			}
		}
		c := newCSVReader(rd, o, types)
		return c.next
	}
	br := bufio.NewReaderSize(rd, 64<<10)
	return func() (Item, error) {
		for {
			line, err := readLine(br, maxImportLine)
			if errors.Is(err, errLineTooLong) {
				return nil, lineError("the line is longer than " + strconv.Itoa(maxImportLine) + " bytes")
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			if len(bytes.TrimSpace(line)) == 0 {
				if err == io.EOF {
					return nil, io.EOF
				}
				continue // blank lines are no items
			}
			if r.im.InputFormat != InputFormatIon {
				return decodeImportJSONLine(line)
			}
			it, derr := decodeImportIonLine(line)
			if derr != nil || it != nil {
				return it, derr
			}
			if err == io.EOF {
				return nil, io.EOF
			}
			// A line of only the version marker, $ion_1_0, is no item.
		}
	}
}

// commit writes a batch's items, in one transaction with the import's
// progress: object n read up to line (or whole, if done).
func (r *importRun) commit(n int, line int64, p *pending, done bool) error {
	type result struct {
		im    *storedImport
		fails []importLineFailure
	}
	res, err := Transact(r.tx, func(tr fdb.Transaction) (result, error) {
		im, err := importRecords.get(tr, r.keys, r.im.ImportID)
		if err != nil {
			return result{}, err
		}
		postObject, postLine := n, line
		if done {
			postObject, postLine = n+1, 0
		}
		if im.ImportStatus == ImportStatusInProgress && im.Object == postObject && im.Line == postLine {
			return result{im, nil}, nil // an attempt whose commit was unknown committed
		}
		if im.Object != r.im.Object || im.Line != r.im.Line || im.ImportStatus != ImportStatusInProgress {
			return result{}, errors.New("fdyno: import " + im.ImportID + " is being run elsewhere")
		}
		fails := append([]importLineFailure(nil), p.errs...)
		written := int64(0)
		for i, it := range p.items {
			if _, err := r.tbl.Put(tr, PutInput{Item: it}); err != nil {
				var ve *ValidationError
				switch {
				case errors.As(err, &ve):
					fails = append(fails, importLineFailure{line: p.lines[i], msg: ve.Reason})
				case errors.Is(err, ErrUniqueViolation):
					fails = append(fails, importLineFailure{line: p.lines[i], msg: err.Error()})
				default:
					return result{}, err
				}
				continue
			}
			written++
		}
		im.ProcessedItemCount += p.records
		im.ImportedItemCount += written
		im.ErrorCount += int64(len(fails))
		im.ProcessedSizeBytes += p.bytes
		im.ObjectBytes += p.bytes
		im.Object, im.Line = postObject, postLine
		if done {
			im.ObjectBytes = 0
		}
		return result{im, fails}, importRecords.put(tr, r.keys, im)
	})
	if err != nil {
		return err
	}
	r.im = res.im
	r.logFailures(n, res.fails)
	return nil
}

// logFailures writes one JSON line per failed line, in the shape of
// DynamoDB's CloudWatch import error log.
func (r *importRun) logFailures(n int, fails []importLineFailure) {
	if r.errLog == nil {
		return
	}
	for _, f := range fails {
		rec := map[string]any{"itemS3Pointer": map[string]any{"bucket": r.im.S3Bucket, "objectIndex": n, "itemIndex": f.line - 1},
			"importArn": r.im.ImportArn, "importId": r.im.ImportID, "errorMessages": []string{f.msg}}
		b, err := json.Marshal(rec)
		if err == nil {
			_, _ = r.errLog.Write(append(b, '\n'))
		}
	}
}

// finish moves the hidden table to its name and ends the import, in one
// transaction.
func (r *importRun) finish() (*ImportTableDescription, error) {
	now := r.tbl.now().UTC()
	d, err := Transact(r.tx, func(tr fdb.Transaction) (*ImportTableDescription, error) {
		im, err := importRecords.get(tr, r.keys, r.im.ImportID)
		if err != nil || im.ImportStatus != ImportStatusInProgress {
			if err == nil {
				return &im.ImportTableDescription, nil
			}
			return nil, err
		}
		if ok, err := directory.Exists(tr, r.target); err != nil || ok {
			if err == nil {
				err = &TableError{Table: im.TableName, Err: ErrResourceInUse, Reason: "Table already exists: " + im.TableName}
			}
			return nil, err
		}
		if _, err := directory.Root().Move(tr, r.tbl.path, r.target); err != nil {
			return nil, err
		}
		bumpMetadataVersion(tr)
		im.ImportStatus, im.EndTime = ImportStatusCompleted, now
		if im.ErrorCount > 0 {
			im.ImportStatus, im.FailureCode = ImportStatusFailed, "ItemValidationError"
			im.FailureMessage = "Some of the items failed validation checks and were not imported. Please check the error log for more details."
		}
		return &im.ImportTableDescription, importRecords.put(tr, r.keys, im)
	})
	if err != nil {
		return r.fail(err)
	}
	return d, nil
}

// fail ends the import FAILED, removing the hidden table, and returns
// err.
func (r *importRun) fail(cause error) (*ImportTableDescription, error) {
	now := r.tbl.now().UTC()
	_, err := Transact(r.tx, func(tr fdb.Transaction) (struct{}, error) {
		im, err := importRecords.get(tr, r.keys, r.im.ImportID)
		if err != nil || im.ImportStatus != ImportStatusInProgress {
			return struct{}{}, err
		}
		if _, err := directory.Root().Remove(tr, r.tbl.path); err != nil {
			return struct{}{}, err
		}
		im.ImportStatus, im.EndTime = ImportStatusFailed, now
		im.FailureCode, im.FailureMessage = importFailureCode(cause), cause.Error()
		return struct{}{}, importRecords.put(tr, r.keys, im)
	})
	return nil, errors.Join(cause, err)
}

func importFailureCode(err error) string {
	switch {
	case errors.Is(err, ErrNoSuchBucket):
		return "S3NoSuchBucket"
	case errors.Is(err, ErrAccessDenied):
		return "S3AccessDenied"
	case errors.Is(err, ErrResourceInUse):
		return "ResourceInUse"
	case errors.Is(err, errManifest):
		return "InvalidManifest"
	}
	return "UnknownError"
}

// checkObjectMD5 compares an object's MD5 with its manifest's checksum.
func checkObjectMD5(src ImportSource, obj importObject) error {
	rc, err := src.Open(obj.key)
	if err != nil {
		return err
	}
	defer rc.Close()
	h := md5.New()
	if _, err := io.Copy(h, rc); err != nil {
		return err
	}
	if got := base64.StdEncoding.EncodeToString(h.Sum(nil)); got != obj.md5 {
		return errors.New("the object's MD5 " + got + " is not its manifest's md5Checksum " + obj.md5 + " (hex " + hex.EncodeToString(h.Sum(nil)) + ")")
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
