package server

import (
	"bytes"
	"context"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// imports.go: ImportTable, DescribeImport and ListImports, on the
// library's imports (import.go in the root package), reading from the
// caller's buckets (exports.go). ImportTable creates the table's hidden
// directory and records the import in the request, then imports in the
// background; the table appears, whole, when the import ends (COMPLETED,
// or FAILED with ItemValidationError and the valid items). The lines
// that were no items are logged, as DynamoDB logs them to CloudWatch, to
// the server's log (level warn, message "import error", with the
// import's ARN and DynamoDB's error record).

// importLog writes an import's error records to the server's log.
type importLog struct {
	log *slog.Logger
	arn string
	mu  sync.Mutex
}

func (l *importLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range bytes.Split(bytes.TrimSpace(p), []byte("\n")) {
		l.log.Warn("import error", slog.String("import", l.arn), slog.String("record", string(line)))
	}
	return len(p), nil
}

func (s *Server) importARN(table, id string) string { return s.tableARN(table) + "/import/" + id }

// runImportInBackground runs import id in the background.
func (s *Server) runImportInBackground(id, bucket, arn string) {
	opts := s.tableOptions()
	s.runTransfer(transferJob{kind: jobImport, id: id, name: arn,
		lease:   func(h string) (bool, error) { return fdyno.TryImportLease(s.db, id, h, s.jobLease(), opts...) },
		release: func(h string) error { return fdyno.ReleaseImportLease(s.db, id, h, opts...) },
		run: func(ctx context.Context, tx fdb.Transactor) (int64, bool, error) {
			src, err := s.bucket(ctx, bucket)
			if err != nil {
				return 0, false, err
			}
			d, err := fdyno.RunImport(tx, id, src, &importLog{log: s.log, arn: arn}, opts...)
			if err != nil {
				return 0, false, err
			}
			return d.ImportedItemCount, d.ImportStatus == fdyno.ImportStatusFailed, nil
		}})
}

// ImportTable.

type s3BucketSource struct {
	S3BucketOwner *string `json:",omitempty"`
	S3Bucket      *string
	S3KeyPrefix   *string `json:",omitempty"`
}

type csvOptions struct {
	Delimiter  *string  `json:",omitempty"`
	HeaderList []string `json:",omitempty"`
}

type inputFormatOptions struct {
	Csv *csvOptions `json:",omitempty"`
}

type tableCreationParameters struct {
	TableName              *string
	AttributeDefinitions   []fdyno.AttributeDefinition
	KeySchema              []fdyno.KeySchemaElement
	BillingMode            string                      `json:",omitempty"`
	ProvisionedThroughput  *provisionedThroughput      `json:",omitempty"`
	GlobalSecondaryIndexes []globalSecondaryIndexInput `json:",omitempty"`
	// SSESpecification and OnDemandThroughput are accepted and ignored,
	// as CreateTable's.
}

type importTableInput struct {
	ClientToken             *string
	S3BucketSource          *s3BucketSource
	InputFormat             string
	InputFormatOptions      *inputFormatOptions
	InputCompressionType    string
	TableCreationParameters *tableCreationParameters
}

// create returns the TableCreationParameters as CreateTable's input.
func (p *tableCreationParameters) create() *createTableInput {
	return &createTableInput{TableName: p.TableName, KeySchema: p.KeySchema, AttributeDefinitions: p.AttributeDefinitions,
		GlobalSecondaryIndexes: p.GlobalSecondaryIndexes, BillingMode: p.BillingMode, ProvisionedThroughput: p.ProvisionedThroughput}
}

func (in *importTableInput) prepare(c *call) (string, error) {
	var v constraints
	if in.S3BucketSource == nil {
		v.add("s3BucketSource", nil, "Member must not be null")
	} else if in.S3BucketSource.S3Bucket == nil {
		v.add("s3BucketSource.s3Bucket", nil, "Member must not be null")
	}
	if in.InputFormat == "" {
		v.add("inputFormat", nil, "Member must not be null")
	}
	if in.TableCreationParameters == nil {
		v.add("tableCreationParameters", nil, "Member must not be null")
	}
	v.enum("inputFormat", in.InputFormat, "DYNAMODB_JSON", "ION", "CSV")
	v.enum("inputCompressionType", in.InputCompressionType, "GZIP", "ZSTD", "NONE")
	if t := in.ClientToken; t != nil && (*t == "" || len(*t) > 64) {
		v.add("clientToken", t, "Member must satisfy regular expression pattern: ^[^\\$]+$")
	}
	if err := v.err(); err != nil {
		return "", err
	}
	src := in.S3BucketSource
	if err := checkBucket(c, &v, "s3BucketSource.s3Bucket", *src.S3Bucket, src.S3BucketOwner, "s3BucketSource.s3KeyPrefix", src.S3KeyPrefix); err != nil {
		return "", err
	}
	ct := in.TableCreationParameters.create()
	if err := checkCreateTableMembers(ct); err != nil {
		return "", err
	}
	if _, err := tableName(c, ct.TableName); err != nil {
		return "", err
	}
	switch {
	case ct.AttributeDefinitions == nil:
		return "", missing("tableCreationParameters.attributeDefinitions")
	case ct.KeySchema == nil:
		return "", missing("tableCreationParameters.keySchema")
	}
	if err := checkBilling(*ct); err != nil {
		return "", err
	}
	if in.InputFormatOptions != nil && in.InputFormatOptions.Csv != nil && in.InputFormat != "CSV" {
		return "", validation("InputFormatOptions.Csv is only for the CSV input format")
	}
	return "", nil
}

type importSummary struct {
	ImportArn      string
	ImportStatus   string
	TableArn       string
	S3BucketSource s3BucketSource
	InputFormat    string
	StartTime      *float64
	EndTime        *float64 `json:",omitempty"`
}

type importTableDescription struct {
	ImportArn               string
	ImportStatus            string
	TableArn                string
	TableId                 string
	ClientToken             string `json:",omitempty"`
	S3BucketSource          s3BucketSource
	ErrorCount              int64
	InputFormat             string
	InputFormatOptions      *inputFormatOptions `json:",omitempty"`
	InputCompressionType    string
	TableCreationParameters tableCreationParameters
	StartTime               *float64
	EndTime                 *float64 `json:",omitempty"`
	ProcessedSizeBytes      int64
	ProcessedItemCount      int64
	ImportedItemCount       int64
	FailureCode             string `json:",omitempty"`
	FailureMessage          string `json:",omitempty"`
}

type importOutput struct {
	ImportTableDescription importTableDescription
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// imported is the wire form of d.
func (s *Server) imported(d *fdyno.ImportTableDescription) importTableDescription {
	name := d.TableName
	out := importTableDescription{ImportArn: s.importARN(d.TableName, d.ImportID), ImportStatus: string(d.ImportStatus),
		TableArn: s.tableARN(d.TableName), TableId: d.TableID, ClientToken: d.ClientToken,
		S3BucketSource: s3BucketSource{S3BucketOwner: optString(d.S3BucketOwner), S3Bucket: &d.S3Bucket, S3KeyPrefix: optString(d.S3KeyPrefix)},
		ErrorCount:     d.ErrorCount, InputFormat: string(d.InputFormat), InputCompressionType: string(d.InputCompressionType),
		TableCreationParameters: tableCreationParameters{TableName: &name, AttributeDefinitions: d.Schema.AttributeDefinitions, KeySchema: d.Schema.KeySchema,
			BillingMode: billingPayPerRequest},
		StartTime: epochSeconds(d.StartTime), EndTime: optTime(d.EndTime), ProcessedSizeBytes: d.ProcessedSizeBytes,
		ProcessedItemCount: d.ProcessedItemCount, ImportedItemCount: d.ImportedItemCount, FailureCode: d.FailureCode, FailureMessage: d.FailureMessage}
	for _, g := range d.Schema.GlobalSecondaryIndexes {
		out.TableCreationParameters.GlobalSecondaryIndexes = append(out.TableCreationParameters.GlobalSecondaryIndexes, globalSecondaryIndexInput{GlobalSecondaryIndex: g})
	}
	if o := d.CsvOptions; o != nil {
		out.InputFormatOptions = &inputFormatOptions{Csv: &csvOptions{Delimiter: optString(o.Delimiter), HeaderList: o.HeaderList}}
	}
	return out
}

func (s *Server) importTable(c *call, in *importTableInput, _ *fdyno.Table) (any, error) {
	src := in.S3BucketSource
	if !s.hasBuckets() {
		return nil, validation(errExportsUnavailable)
	}
	ct := in.TableCreationParameters.create()
	name := c.table
	schema := fdyno.TableSchema{KeySchema: ct.KeySchema, AttributeDefinitions: ct.AttributeDefinitions}
	for _, g := range ct.GlobalSecondaryIndexes {
		schema.GlobalSecondaryIndexes = append(schema.GlobalSecondaryIndexes, g.GlobalSecondaryIndex)
	}
	settings, err := createSettings(ct)
	if err != nil {
		return nil, err
	}
	q := fdyno.ImportTableInput{S3Bucket: *src.S3Bucket, InputFormat: fdyno.InputFormat(in.InputFormat),
		InputCompressionType: fdyno.InputCompressionType(in.InputCompressionType), TableName: name, Schema: schema, Settings: settings,
		TableArn: s.tableARN(name)}
	if src.S3BucketOwner != nil {
		q.S3BucketOwner = *src.S3BucketOwner
	}
	if src.S3KeyPrefix != nil {
		q.S3KeyPrefix = *src.S3KeyPrefix
	}
	if in.ClientToken != nil {
		q.ClientToken = *in.ClientToken
	}
	if o := in.InputFormatOptions; o != nil && o.Csv != nil {
		q.CsvOptions = &fdyno.CsvOptions{HeaderList: o.Csv.HeaderList}
		if o.Csv.Delimiter != nil {
			q.CsvOptions.Delimiter = *o.Csv.Delimiter
		}
	}
	d, err := fdyno.StartImport(s.db, q, s.tableOptions()...)
	if err != nil {
		return nil, transferError(err)
	}
	if d.ImportStatus == fdyno.ImportStatusInProgress {
		s.runImportInBackground(d.ImportID, d.S3Bucket, s.importARN(name, d.ImportID))
	}
	return importOutput{ImportTableDescription: s.imported(d)}, nil
}

// DescribeImport.

type describeImportInput struct {
	ImportArn *string
}

func (in *describeImportInput) prepare(c *call) (string, error) {
	_, _, err := childOf(c, "import", "importArn", in.ImportArn, errImportNotFound)
	return "", err
}

func (s *Server) describeImport(c *call, in *describeImportInput, _ *fdyno.Table) (any, error) {
	table, id, err := childOf(c, "import", "importArn", in.ImportArn, errImportNotFound)
	if err != nil {
		return nil, err
	}
	c.table = table
	d, err := fdyno.DescribeImport(s.db, id, s.tableOptions()...)
	if err == nil && d.TableName != table {
		err = &fdyno.ExportError{ID: id, Err: fdyno.ErrImportNotFound, Reason: "Import not found: " + *in.ImportArn}
	}
	if err != nil {
		return nil, transferError(err)
	}
	return importOutput{ImportTableDescription: s.imported(d)}, nil
}

// ListImports.

type listImportsInput struct {
	TableArn  *string
	PageSize  *int
	NextToken *string
}

func (in *listImportsInput) prepare(c *call) (string, error) {
	var v constraints
	checkPage(&v, "pageSize", in.PageSize)
	if in.NextToken != nil {
		if _, ok := importIDOfToken(*in.NextToken); !ok {
			v.add("nextToken", in.NextToken, "Member must satisfy regular expression pattern: ([0-9a-f]{16})+")
		}
	}
	if err := v.err(); err != nil {
		return "", err
	}
	_, err := listTable(c, in.TableArn)
	return "", err
}

// importNextToken is ListImports' NextToken of the import id: DynamoDB's
// ImportNextToken is 112 to 1024 characters of ([0-9a-f]{16})+, which
// SDKs check, so it is the id in hex, padded with zero bytes to a
// multiple of 8 bytes and at least 56.
func importNextToken(id string) string {
	if id == "" {
		return ""
	}
	b := []byte(id)
	for len(b) < 56 || len(b)%8 != 0 {
		b = append(b, 0)
	}
	return hex.EncodeToString(b)
}

// importIDOfToken is the import id of an importNextToken.
func importIDOfToken(tok string) (string, bool) {
	if len(tok) < 112 || len(tok) > 1024 || len(tok)%16 != 0 || strings.ToLower(tok) != tok {
		return "", false
	}
	b, err := hex.DecodeString(tok)
	if err != nil {
		return "", false
	}
	return strings.TrimRight(string(b), "\x00"), true
}

type listImportsOutput struct {
	ImportSummaryList []importSummary
	NextToken         string `json:",omitempty"`
}

func (s *Server) listImports(c *call, in *listImportsInput, _ *fdyno.Table) (any, error) {
	table, err := listTable(c, in.TableArn)
	if err != nil {
		return nil, err
	}
	q := fdyno.ListImportsInput{TableName: table, PageSize: maxListExports}
	if in.PageSize != nil {
		q.PageSize = *in.PageSize
	}
	if in.NextToken != nil {
		q.ExclusiveStartImportID, _ = importIDOfToken(*in.NextToken)
	}
	l, err := fdyno.ListImports(s.db, q, s.tableOptions()...)
	if err != nil {
		return nil, transferError(err)
	}
	out := listImportsOutput{ImportSummaryList: make([]importSummary, 0, len(l.ImportSummaries)), NextToken: importNextToken(l.LastEvaluatedImportID)}
	for i := range l.ImportSummaries {
		d := s.imported(&l.ImportSummaries[i])
		out.ImportSummaryList = append(out.ImportSummaryList, importSummary{ImportArn: d.ImportArn, ImportStatus: d.ImportStatus, TableArn: d.TableArn,
			S3BucketSource: d.S3BucketSource, InputFormat: d.InputFormat, StartTime: d.StartTime, EndTime: d.EndTime})
	}
	return out, nil
}
