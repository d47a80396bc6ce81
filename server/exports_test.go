package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// exports_test.go: the export and import operations through
// aws-sdk-go-v2, their errors and their authorization.

// waitExport polls DescribeExport until the export is no longer
// IN_PROGRESS.
func waitExport(t *testing.T, c *dynamodb.Client, arn string) *types.ExportDescription {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, err := c.DescribeExport(ctx(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		if d := out.ExportDescription; d.ExportStatus != types.ExportStatusInProgress || time.Now().After(deadline) {
			return d
		}
	}
}

// waitImport polls DescribeImport until the import is no longer
// IN_PROGRESS.
func waitImport(t *testing.T, c *dynamodb.Client, arn string) *types.ImportTableDescription {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, err := c.DescribeImport(ctx(t), &dynamodb.DescribeImportInput{ImportArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		if d := out.ImportTableDescription; d.ImportStatus != types.ImportStatusInProgress || time.Now().After(deadline) {
			return d
		}
	}
}

// exportServer returns a client of a server whose buckets are under a
// fresh directory, with bucket "exports" made.
func exportServer(t *testing.T, cfg Config) (*testServer, *dynamodb.Client, string) {
	t.Helper()
	cfg.ExportDir = t.TempDir()
	bucket := filepath.Join(cfg.ExportDir, "exports")
	if cfg.Namespaces == PerAccountNamespaces {
		bucket = filepath.Join(cfg.ExportDir, accountID, "exports")
	}
	if err := os.MkdirAll(bucket, 0o755); err != nil {
		t.Fatal(err)
	}
	ts, c := newTestClient(t, cfg)
	return ts, c, bucket
}

// Export a table with point-in-time recovery, then import the export into
// a new table: the same items, through the SDK; and the operations'
// errors.
func TestExportImportSDK(t *testing.T) {
	_, c, bucket := exportServer(t, Config{})
	createTable(t, c, "Music", "", "")
	putPK(t, c, "Music", "a", "1")
	putPK(t, c, "Music", "b", "2")
	tableArn := "arn:aws:dynamodb:us-east-1:" + accountID + ":table/Music"

	// DynamoDB exports only tables with point-in-time recovery.
	_, err := c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn), S3Bucket: aws.String("exports")})
	wantAPIError(t, err, "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled")
	if _, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Music"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	ex, err := c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn), S3Bucket: aws.String("exports"),
		S3Prefix: aws.String("daily"), ClientToken: aws.String("token-1")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(ex.ExportDescription.ExportArn)
	if !strings.HasPrefix(arn, tableArn+"/export/") || ex.ExportDescription.ExportFormat != types.ExportFormatDynamodbJson ||
		ex.ExportDescription.ExportType != types.ExportTypeFullExport {
		t.Fatalf("ExportTableToPointInTime: %+v", ex.ExportDescription)
	}
	d := waitExport(t, c, arn)
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != 2 || aws.ToString(d.S3Prefix) != "daily" ||
		!strings.HasPrefix(aws.ToString(d.ExportManifest), "daily/AWSDynamoDB/") || d.EndTime == nil || d.ExportTime == nil {
		t.Fatalf("DescribeExport: %+v", d)
	}
	if _, err := os.Stat(filepath.Join(bucket, filepath.FromSlash(aws.ToString(d.ExportManifest)))); err != nil {
		t.Errorf("the manifest is not in the bucket's directory: %v", err)
	}
	// The same ClientToken and request: the same export; another request:
	// ExportConflictException.
	again, err := c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn), S3Bucket: aws.String("exports"),
		S3Prefix: aws.String("daily"), ClientToken: aws.String("token-1")})
	if err != nil || aws.ToString(again.ExportDescription.ExportArn) != arn {
		t.Errorf("the same token again: %+v, %v", again, err)
	}
	_, err = c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn), S3Bucket: aws.String("exports"),
		S3Prefix: aws.String("weekly"), ClientToken: aws.String("token-1")})
	wantAPIError(t, err, "ExportConflictException", "")
	le, err := c.ListExports(ctx(t), &dynamodb.ListExportsInput{TableArn: aws.String(tableArn)})
	if err != nil || len(le.ExportSummaries) != 1 || aws.ToString(le.ExportSummaries[0].ExportArn) != arn ||
		le.ExportSummaries[0].ExportStatus != types.ExportStatusCompleted {
		t.Errorf("ListExports: %+v, %v", le, err)
	}

	// Import the export's files into a new table.
	prefix := strings.TrimSuffix(aws.ToString(d.ExportManifest), "manifest-summary.json")
	im, err := c.ImportTable(ctx(t), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("exports"), S3KeyPrefix: aws.String(prefix)},
		InputFormat: types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String("Music2"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}})
	if err != nil {
		t.Fatal(err)
	}
	iarn := aws.ToString(im.ImportTableDescription.ImportArn)
	if !strings.HasPrefix(iarn, "arn:aws:dynamodb:us-east-1:"+accountID+":table/Music2/import/") {
		t.Fatalf("ImportTable: %+v", im.ImportTableDescription)
	}
	id := waitImport(t, c, iarn)
	if id.ImportStatus != types.ImportStatusCompleted || id.ImportedItemCount != 2 || id.ProcessedItemCount != 2 || id.ErrorCount != 0 ||
		aws.ToString(id.TableCreationParameters.TableName) != "Music2" {
		t.Fatalf("DescribeImport: %+v", id)
	}
	if got := scanPKs(t, c, "Music2"); !cmp.Equal(got, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("imported items: %v", got)
	}
	li, err := c.ListImports(ctx(t), &dynamodb.ListImportsInput{})
	if err != nil || len(li.ImportSummaryList) != 1 || aws.ToString(li.ImportSummaryList[0].ImportArn) != iarn {
		t.Errorf("ListImports: %+v, %v", li, err)
	}
	// An import into an existing table is ResourceInUseException.
	_, err = c.ImportTable(ctx(t), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("exports")},
		InputFormat: types.InputFormatCsv, TableCreationParameters: &types.TableCreationParameters{TableName: aws.String("Music"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}})
	wantAPIError(t, err, "ResourceInUseException", "Table already exists: Music")

	// Not found, and malformed ARNs.
	_, err = c.DescribeExport(ctx(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(tableArn + "/export/01700000000000-abcdef12")})
	wantAPIError(t, err, "ExportNotFoundException", "")
	_, err = c.DescribeExport(ctx(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(strings.Replace(arn, "table/Music/", "table/Music2/", 1))})
	wantAPIError(t, err, "ExportNotFoundException", "")
	_, err = c.DescribeImport(ctx(t), &dynamodb.DescribeImportInput{ImportArn: aws.String(tableArn + "/import/01700000000000-abcdef12")})
	wantAPIError(t, err, "ImportNotFoundException", "")
	_, err = c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn), S3Bucket: aws.String("../etc")})
	wantAPIError(t, err, "ValidationException", "s3Bucket")
	_, err = c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn), S3Bucket: aws.String("exports"), S3Prefix: aws.String("a/../../b")})
	wantAPIError(t, err, "ValidationException", "path elements")
	_, err = c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn + "x"), S3Bucket: aws.String("exports")})
	wantAPIError(t, err, "TableNotFoundException", "")
	// An export into a bucket that does not exist fails.
	ex, err = c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn), S3Bucket: aws.String("missing")})
	if err != nil {
		t.Fatal(err)
	}
	if d := waitExport(t, c, aws.ToString(ex.ExportDescription.ExportArn)); d.ExportStatus != types.ExportStatusFailed || aws.ToString(d.FailureCode) != "S3NoSuchBucket" {
		t.Errorf("export into a missing bucket: %+v", d)
	}
}

// A server without --export-dir refuses the operations.
func TestExportsUnconfigured(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Tab", "", "")
	_, err := c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String("arn:aws:dynamodb:us-east-1:" + accountID + ":table/Tab"),
		S3Bucket: aws.String("bucket")})
	wantAPIError(t, err, "ValidationException", "--export-dir")
}

// An export and an import left IN_PROGRESS (a server stopped, or
// crashed, after answering) are run by the next server that starts on
// the database; the import's table appears only then.
func TestTransfersResumeAtStart(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	// The first server has no buckets, so it resumes nothing itself.
	ts, c := newTestClient(t, Config{DB: db})
	exportDir := t.TempDir()
	bucket := filepath.Join(exportDir, "exports")
	if err := os.MkdirAll(bucket, 0o755); err != nil {
		t.Fatal(err)
	}
	createTable(t, c, "Music", "", "")
	putPK(t, c, "Music", "a", "1")
	opts := []fdyno.Option{fdyno.WithRoot(ts.root...)}
	tableArn := "arn:aws:dynamodb:us-east-1:" + accountID + ":table/Music"
	// Recorded as the server records them, and not run.
	ex, err := fdyno.StartExport(db, fdyno.ExportTableToPointInTimeInput{TableName: "Music", TableArn: tableArn, S3Bucket: "exports"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bucket, "items.json"), []byte(`{"Item":{"pk":{"S":"x"}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	im, err := fdyno.StartImport(db, fdyno.ImportTableInput{S3Bucket: "exports", S3KeyPrefix: "items", InputFormat: fdyno.InputFormatDynamoDBJSON,
		TableName: "Imported", Schema: fdyno.TableSchema{KeySchema: []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
			AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS}}}}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Imported")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	ts2 := newTestServer(t, Config{DB: db, ExportDir: exportDir})
	c2 := ts2.client(testCredentials)
	if d := waitExport(t, c2, tableArn+"/export/"+ex.ExportID); d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != 1 {
		t.Errorf("the resumed export: %+v", d)
	}
	if d := waitImport(t, c2, "arn:aws:dynamodb:us-east-1:"+accountID+":table/Imported/import/"+im.ImportID); d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != 1 {
		t.Errorf("the resumed import: %+v", d)
	}
	if got := scanPKs(t, c2, "Imported"); !cmp.Equal(got, map[string]string{"x": ""}) {
		t.Errorf("imported items: %v", got)
	}
}
