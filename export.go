package fdyno

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// export.go is ExportTableToPointInTime, DescribeExport and ListExports:
// a table's items at one version, written as DynamoDB writes an export to
// S3 (export_files.go), through an [ExportDestination].
//
// An export is a backup that nobody sees, read out in DynamoDB's format:
//
//  1. StartExport checks the request and stores the export's record,
//     IN_PROGRESS, with its ClientToken (same token, same request: the
//     same export; another request: ExportConflictException).
//  2. RunExport takes the snapshot (export_snapshot.go): a full export
//     "now" is a backup (backup.go) taken with writers running; a full
//     export at a time or version, and an incremental one, read the
//     point-in-time recovery base and log (pitr.go).
//  3. It reads the snapshot in key order, a batch per read transaction,
//     and writes the data files, then manifest-files.json and
//     manifest-summary.json last, so a reader that finds the summary
//     finds every file it names.
//  4. One transaction marks the export COMPLETED (or FAILED, with
//     DynamoDB's FailureCode and FailureMessage) and the snapshot goes.
//
// ExportTableToPointInTime is StartExport then RunExport. RunExport of an
// export interrupted at any point starts its files again (their names
// derive from the export's id, so they are replaced) from a snapshot that
// resumes where it stopped.

// ExportFormat is DynamoDB's ExportFormat.
type ExportFormat string

const (
	ExportFormatDynamoDBJSON ExportFormat = "DYNAMODB_JSON"
	ExportFormatIon          ExportFormat = "ION"
)

// ExportType is DynamoDB's ExportType.
type ExportType string

const (
	ExportTypeFull        ExportType = "FULL_EXPORT"
	ExportTypeIncremental ExportType = "INCREMENTAL_EXPORT"
)

// ExportViewType is DynamoDB's ExportViewType: what an incremental export
// writes of each changed item.
type ExportViewType string

const (
	ExportViewNewImage        ExportViewType = "NEW_IMAGE"
	ExportViewNewAndOldImages ExportViewType = "NEW_AND_OLD_IMAGES"
)

// ExportStatus is DynamoDB's ExportStatus.
type ExportStatus string

const (
	ExportStatusInProgress ExportStatus = "IN_PROGRESS"
	ExportStatusCompleted  ExportStatus = "COMPLETED"
	ExportStatusFailed     ExportStatus = "FAILED"
)

// Errors of exports, named after DynamoDB's exceptions.
var (
	// ErrExportNotFound is DynamoDB's ExportNotFoundException.
	ErrExportNotFound = errors.New("fdyno: ExportNotFoundException")
	// ErrExportConflict is DynamoDB's ExportConflictException: a
	// ClientToken reused for another request.
	ErrExportConflict = errors.New("fdyno: ExportConflictException")
	// ErrInvalidExportTime is DynamoDB's InvalidExportTimeException: an
	// export time outside the point-in-time recovery window.
	ErrInvalidExportTime = errors.New("fdyno: InvalidExportTimeException")
)

// ExportError reports an error about one export or import; it unwraps to
// one of the errors above or to [ErrImportNotFound], [ErrImportConflict].
type ExportError struct {
	ID     string
	Reason string
	Err    error
}

func (e *ExportError) Error() string { return e.Err.Error() + ": " + e.Reason }

// Unwrap returns the error's category.
func (e *ExportError) Unwrap() error { return e.Err }

// IncrementalExportSpecification is DynamoDB's: the window [from, to) of
// an incremental export and what it writes of each item.
type IncrementalExportSpecification struct {
	// ExportFromTime (inclusive) and ExportToTime (exclusive) bound the
	// commits exported by their writers' clocks. ExportToTime zero is now.
	ExportFromTime, ExportToTime time.Time
	// ExportFromVersion and ExportToVersion (beyond DynamoDB), when not
	// zero, bound the window by commit version instead: the commits with
	// versions in [from, to).
	ExportFromVersion, ExportToVersion int64
	// ExportViewType defaults to NEW_AND_OLD_IMAGES.
	ExportViewType ExportViewType
}

// ExportTableToPointInTimeInput is DynamoDB's ExportTableToPointInTime
// request, with the table named by name (the library has no ARNs of its
// own: TableArn, if set, is written in the manifest and names the
// export's ARN, TableArn + "/export/" + id).
type ExportTableToPointInTimeInput struct {
	TableName string
	TableArn  string
	// ExportTime, if not zero, exports the state after the last commit
	// whose writes were made at or before it; Version (beyond DynamoDB),
	// if not zero, the state after every commit below it. Both need
	// point-in-time recovery. With neither, the export holds one version
	// from the time it runs, with or without point-in-time recovery.
	ExportTime time.Time
	Version    int64
	// ExportFormat defaults to DYNAMODB_JSON; ExportType to FULL_EXPORT.
	ExportFormat                   ExportFormat
	ExportType                     ExportType
	IncrementalExportSpecification IncrementalExportSpecification
	// The destination, as the request names it: recorded and written in
	// the manifest. The files go to the [ExportDestination] given, under
	// S3Prefix.
	S3Bucket, S3BucketOwner, S3Prefix, S3SseAlgorithm, S3SseKmsKeyId string
	// ClientToken makes the request idempotent for 8 hours.
	ClientToken string
}

// ExportDescription is DynamoDB's ExportDescription, with the export's
// id, its table's name and the version it holds.
type ExportDescription struct {
	ExportID     string
	ExportArn    string
	ExportStatus ExportStatus
	// StartTime is when the export was requested; EndTime when it
	// finished (zero while IN_PROGRESS).
	StartTime, EndTime time.Time
	// ExportManifest is the key of manifest-summary.json.
	ExportManifest string
	TableName      string
	TableArn       string
	TableID        string
	// ExportTime is the time of the state a full export holds; Version
	// its commit version (the export holds every commit below it). For
	// an incremental export, both are the window's end.
	ExportTime time.Time
	Version    int64
	// FromVersion is an incremental export's first version.
	FromVersion                                                      int64
	ClientToken                                                      string
	S3Bucket, S3BucketOwner, S3Prefix, S3SseAlgorithm, S3SseKmsKeyId string
	FailureCode, FailureMessage                                      string
	ExportFormat                                                     ExportFormat
	ExportType                                                       ExportType
	IncrementalExportSpecification                                   *IncrementalExportSpecification
	// BilledSizeBytes is the exported items' size; ItemCount their
	// number (for an incremental export, the changed items').
	BilledSizeBytes, ItemCount int64
}

// storedExport is an export's record, JSON at ("k", "x", id).
type storedExport struct {
	ExportDescription
	TablePath []string
	// Request is the request as a ClientToken compares it.
	Request string
}

// exportRecords are the exports' records (transfer_record.go).
var exportRecords = transferRecords[storedExport]{
	what: "export", tokenKind: "x",
	key:      backupKeys.exportRecord,
	all:      func(k backupKeys) (fdb.KeyConvertible, fdb.KeyConvertible) { return k.exports.FDBRangeKeys() },
	notFound: exportNotFound, errNotFound: ErrExportNotFound,
	id:    func(e *storedExport) string { return e.ExportID },
	table: func(e *storedExport) string { return e.TableName },
}

// checkExportInput validates in and fills in its defaults.
func checkExportInput(in *ExportTableToPointInTimeInput) error {
	invalid := func(reason string) error {
		return &ValidationError{Op: "ExportTableToPointInTime", Reason: reason}
	}
	if err := checkTableName("TableName", in.TableName); err != nil {
		return err
	}
	if in.S3Bucket == "" {
		return invalid("S3Bucket must be given")
	}
	if len(in.ClientToken) > 64 {
		return invalid("ClientToken must be at most 64 characters")
	}
	switch in.ExportFormat {
	case "":
		in.ExportFormat = ExportFormatDynamoDBJSON
	case ExportFormatDynamoDBJSON, ExportFormatIon:
	default:
		return invalid("ExportFormat must be DYNAMODB_JSON or ION")
	}
	inc := &in.IncrementalExportSpecification
	switch in.ExportType {
	case "":
		in.ExportType = ExportTypeFull
		fallthrough
	case ExportTypeFull:
		if *inc != (IncrementalExportSpecification{}) {
			return invalid("IncrementalExportSpecification is only for an INCREMENTAL_EXPORT")
		}
		if !in.ExportTime.IsZero() && in.Version != 0 {
			return invalid("give at most one of ExportTime and Version")
		}
	case ExportTypeIncremental:
		if !in.ExportTime.IsZero() || in.Version != 0 {
			return invalid("ExportTime is not allowed for an INCREMENTAL_EXPORT; use IncrementalExportSpecification")
		}
		switch inc.ExportViewType {
		case "":
			inc.ExportViewType = ExportViewNewAndOldImages
		case ExportViewNewImage, ExportViewNewAndOldImages:
		default:
			return invalid("ExportViewType must be NEW_IMAGE or NEW_AND_OLD_IMAGES")
		}
		byTime := !inc.ExportFromTime.IsZero() || !inc.ExportToTime.IsZero()
		byVersion := inc.ExportFromVersion != 0 || inc.ExportToVersion != 0
		switch {
		case byTime && byVersion:
			return invalid("bound the window by times or by versions, not both")
		case byVersion && (inc.ExportFromVersion <= 0 || inc.ExportToVersion != 0 && inc.ExportToVersion <= inc.ExportFromVersion):
			return invalid("ExportFromVersion must be positive and below ExportToVersion")
		case !byVersion && inc.ExportFromTime.IsZero():
			return invalid("ExportFromTime must be given for an INCREMENTAL_EXPORT")
		case !byVersion && !inc.ExportToTime.IsZero() && !inc.ExportToTime.After(inc.ExportFromTime):
			return invalid("ExportToTime must be after ExportFromTime")
		case !byVersion && !inc.ExportToTime.IsZero() && inc.ExportToTime.After(inc.ExportFromTime.Add(maxIncrementalWindow)):
			return invalid("the incremental export period must be at most 24 hours")
		}
	default:
		return invalid("ExportType must be FULL_EXPORT or INCREMENTAL_EXPORT")
	}
	return nil
}

// maxIncrementalWindow is DynamoDB's longest incremental export period.
// Its shortest, 15 minutes, is not applied: an exact change log makes any
// window cheap (docs/differences.md).
const maxIncrementalWindow = 24 * time.Hour

// requestText is the request as a ClientToken compares it: every member
// but the token.
func (in ExportTableToPointInTimeInput) requestText() string {
	in.ClientToken = ""
	b, _ := json.Marshal(in)
	return string(b)
}

// StartExport checks an export request and records the export,
// IN_PROGRESS, without exporting anything: [RunExport] does (fdyno-server
// runs it in the background). A ClientToken already used for the same
// request returns that export's description. Errors: those of
// [ExportTableToPointInTime] found before the export starts.
func StartExport(tx fdb.Transactor, in ExportTableToPointInTimeInput, opts ...Option) (*ExportDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkExportInput(&in); err != nil {
		return nil, err
	}
	src := newTable(in.TableName, tablePath(o.root, in.TableName))
	src.clock = o.clock
	now := src.now().UTC()
	id, err := newExportID(now)
	if err != nil {
		return nil, err
	}
	request := in.requestText()
	return Transact(tx, func(tr fdb.Transaction) (*ExportDescription, error) {
		keys, err := rootKeys(tr, src)
		if err != nil {
			return nil, err
		}
		if in.ClientToken != "" {
			prev, err := exportRecords.byToken(tr, keys, in.ClientToken, now)
			if err != nil {
				return nil, err
			}
			if prev != nil {
				if prev.Request != request {
					return nil, &ExportError{ID: prev.ExportID, Err: ErrExportConflict, Reason: "Export with the same client token " + in.ClientToken + " already exists with different parameters"}
				}
				return &prev.ExportDescription, nil
			}
		}
		_, meta, err := src.loadMeta(tr)
		if err != nil {
			return nil, err
		}
		e := &storedExport{TablePath: src.path, Request: request, ExportDescription: ExportDescription{
			ExportID: id, ExportStatus: ExportStatusInProgress, StartTime: now, TableName: in.TableName, TableArn: in.TableArn,
			TableID: meta.tableID, ExportTime: in.ExportTime, Version: in.Version, ClientToken: in.ClientToken,
			S3Bucket: in.S3Bucket, S3BucketOwner: in.S3BucketOwner, S3Prefix: in.S3Prefix, S3SseAlgorithm: in.S3SseAlgorithm,
			S3SseKmsKeyId: in.S3SseKmsKeyId, ExportFormat: in.ExportFormat, ExportType: in.ExportType}}
		if in.TableArn != "" {
			e.ExportArn = in.TableArn + "/export/" + id
		}
		if in.ExportType == ExportTypeIncremental {
			spec := in.IncrementalExportSpecification
			e.IncrementalExportSpecification = &spec
		}
		if err := e.checkPoint(tr, src, now); err != nil {
			return nil, err
		}
		e.ExportManifest = exportBase(e.S3Prefix, id) + "manifest-summary.json"
		if err := exportRecords.put(tr, keys, e); err != nil {
			return nil, err
		}
		if in.ClientToken != "" {
			if err := exportRecords.setToken(tr, keys, in.ClientToken, id, now); err != nil {
				return nil, err
			}
		}
		return &e.ExportDescription, nil
	})
}

// checkPoint checks, when the export names a point or a window, that the
// table has point-in-time recovery and that the point lies in its
// window; an export "now" needs nothing.
func (e *storedExport) checkPoint(tr fdb.ReadTransaction, src *Table, now time.Time) error {
	inc := e.IncrementalExportSpecification
	if e.ExportTime.IsZero() && e.Version == 0 && inc == nil {
		return nil
	}
	b, keys, _, err := src.pitrBase(tr)
	if err != nil {
		return err
	}
	if b == nil {
		return &TableError{Table: src.name, Err: ErrPointInTimeRecoveryUnavailable, Reason: "Point in time recovery is not enabled for table '" + src.name + "'"}
	}
	_, to, err := logWindow(tr, keys, b.ID)
	if err != nil {
		return err
	}
	early := int64(binary.BigEndian.Uint64(to[:8]))
	rv, err := tr.GetReadVersion().Get()
	if err != nil {
		return err
	}
	badTime := func(t time.Time) bool { return t.Before(b.Created) || t.After(now) }
	badVersion := func(v int64) bool { return v <= early || v > rv+1 }
	invalid := func(what string) error {
		return &ExportError{ID: e.ExportID, Err: ErrInvalidExportTime, Reason: what + " is outside the point in time recovery window of table " + src.name}
	}
	switch {
	case !e.ExportTime.IsZero() && badTime(e.ExportTime):
		return invalid("Export time " + e.ExportTime.UTC().Format(time.RFC3339Nano))
	case e.Version != 0 && badVersion(e.Version):
		return invalid(fmt.Sprintf("Version %d", e.Version))
	case inc == nil:
		return nil
	case inc.ExportFromVersion != 0 && (badVersion(inc.ExportFromVersion) || inc.ExportToVersion != 0 && badVersion(inc.ExportToVersion)):
		return invalid(fmt.Sprintf("Window [%d, %d)", inc.ExportFromVersion, inc.ExportToVersion))
	case inc.ExportFromVersion == 0 && (badTime(inc.ExportFromTime) || !inc.ExportToTime.IsZero() && badTime(inc.ExportToTime)):
		return invalid("Export period")
	}
	return nil
}

// newExportID returns an id in the form of DynamoDB's export and import
// ids: the time in Unix milliseconds on 14 digits, a dash and 8 random
// hexadecimal digits.
func newExportID(now time.Time) (string, error) {
	id, err := newBackupID(now)
	if err != nil {
		return "", err
	}
	ms, rest, _ := cutDash(id)
	for len(ms) < 14 {
		ms = "0" + ms
	}
	return ms + "-" + rest, nil
}

func cutDash(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '-' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// exportBase is the key prefix of an export's objects, DynamoDB's
// export-prefix/AWSDynamoDB/ExportId/.
func exportBase(prefix, id string) string {
	if prefix != "" && prefix[len(prefix)-1] != '/' {
		prefix += "/"
	}
	return prefix + "AWSDynamoDB/" + id + "/"
}

func exportNotFound(id string) error {
	return &ExportError{ID: id, Err: ErrExportNotFound, Reason: "Export not found: " + id}
}

// DescribeExport returns export id's description. Errors:
// [ErrExportNotFound]. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeExport.html.
func DescribeExport(rt fdb.ReadTransactor, id string, opts ...Option) (*ExportDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	e, _, err := exportRecords.read(rt, o.root, id)
	if err != nil {
		return nil, err
	}
	return &e.ExportDescription, nil
}

// ListExportsInput is DynamoDB's ListExports request.
type ListExportsInput struct {
	// TableName, if not empty, lists only that table's exports.
	TableName string
	// MaxResults is the most exports to return (0: no limit).
	MaxResults int
	// ExclusiveStartExportID continues a listing after that export (the
	// NextToken of the wire).
	ExclusiveStartExportID string
}

// ListExportsOutput is DynamoDB's ListExports response.
type ListExportsOutput struct {
	ExportSummaries []ExportDescription
	// LastEvaluatedExportID is set when more exports may follow.
	LastEvaluatedExportID string
}

// ListExports lists exports in id order (their start times). See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListExports.html.
func ListExports(rt fdb.ReadTransactor, in ListExportsInput, opts ...Option) (*ListExportsOutput, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if in.MaxResults < 0 {
		return nil, &ValidationError{Op: "ListExports", Reason: "MaxResults must be positive"}
	}
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*ListExportsOutput, error) {
		out := &ListExportsOutput{ExportSummaries: []ExportDescription{}}
		keys, ok, err := openBackupKeys(tr, o.root)
		if err != nil || !ok {
			return out, err
		}
		recs, last, err := exportRecords.list(tr, keys, in.TableName, in.ExclusiveStartExportID, in.MaxResults)
		if err != nil {
			return nil, err
		}
		for _, e := range recs {
			out.ExportSummaries = append(out.ExportSummaries, e.ExportDescription)
		}
		out.LastEvaluatedExportID = last
		return out, nil
	})
}

// TryExportLease takes or renews holder's lease on running export id for
// d from now (WithClock's clock), unless another holder's lease has not
// expired, and reports whether holder holds it: of several programs on
// one database, the one holding the lease runs the export ([RunExport]),
// and the others take it over once a holder that died lets it lapse. A
// holder renews well within d, and stops running the export when a
// renewal fails. Errors: [ErrExportNotFound].
func TryExportLease(tx fdb.Transactor, id, holder string, d time.Duration, opts ...Option) (bool, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return false, err
	}
	return exportRecords.tryLease(tx, o.root, id, holder, o.clockNow(), d)
}

// ReleaseExportLease gives up holder's lease on export id, if it holds
// it, so another may take it at once.
func ReleaseExportLease(tx fdb.Transactor, id, holder string, opts ...Option) error {
	o, err := buildOptions(opts)
	if err != nil {
		return err
	}
	return exportRecords.releaseLease(tx, o.root, id, holder)
}

// finishExport records the export's end: COMPLETED with its counts, or
// FAILED with code and message (cause != nil).
func finishExport(tx fdb.Transactor, keys backupKeys, id string, now time.Time, done func(e *storedExport)) (*ExportDescription, error) {
	return Transact(tx, func(tr fdb.Transaction) (*ExportDescription, error) {
		e, err := exportRecords.get(tr, keys, id)
		if err != nil {
			return nil, err
		}
		if e.ExportStatus != ExportStatusInProgress {
			return &e.ExportDescription, nil
		}
		done(e)
		e.EndTime = now
		return &e.ExportDescription, exportRecords.put(tr, keys, e)
	})
}

// exportFailureCode is the FailureCode of an export that failed with err.
func exportFailureCode(err error) string {
	switch {
	case errors.Is(err, ErrNoSuchBucket):
		return "S3NoSuchBucket"
	case errors.Is(err, ErrAccessDenied):
		return "S3AccessDenied"
	case errors.Is(err, ErrResourceNotFound):
		return "TableNotFound"
	case errors.Is(err, ErrPointInTimeRecoveryUnavailable):
		return "PointInTimeRecoveryUnavailable"
	case errors.Is(err, ErrInvalidExportTime):
		return "InvalidExportTime"
	}
	return "UnknownError"
}
