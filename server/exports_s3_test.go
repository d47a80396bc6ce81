package server

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/fdyno/fdyno/internal/s3fake"
	"github.com/fdyno/fdyno/s3bucket"
)

// With Config.S3 the buckets are S3's: an export (ION) lands in the S3
// bucket under the account's id and its S3Prefix, an import reads it back, a
// missing bucket and a refused key end the export FAILED with
// S3NoSuchBucket and S3AccessDenied.
func TestExportImportS3(t *testing.T) {
	url := s3fake.Start(t, "exports")
	client := func(akid string) *s3.Client {
		c, err := s3bucket.NewClient(s3bucket.Config{Endpoint: url, AccessKeyID: akid, SecretAccessKey: "secret", PathStyle: true})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	store := client("AKIDOK")
	_, c := newTestClient(t, Config{S3: store, Namespaces: PerAccountNamespaces})
	createTable(t, c, "Music", "", "")
	putPK(t, c, "Music", "a", "1")
	putPK(t, c, "Music", "b", "2")
	if _, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Music"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	desc, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Music")})
	if err != nil {
		t.Fatal(err)
	}
	tableArn := aws.ToString(desc.Table.TableArn)
	account := strings.Split(tableArn, ":")[4]
	export := func(c *dynamodb.Client, bucket string) *types.ExportDescription {
		ex, err := c.ExportTableToPointInTime(ctx(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn),
			S3Bucket: aws.String(bucket), S3Prefix: aws.String("daily"), ExportFormat: types.ExportFormatIon})
		if err != nil {
			t.Fatal(err)
		}
		return waitExport(t, c, aws.ToString(ex.ExportDescription.ExportArn))
	}
	d := export(c, "exports")
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != 2 {
		t.Fatalf("DescribeExport: %+v", d)
	}
	manifest := aws.ToString(d.ExportManifest)
	if !strings.HasPrefix(manifest, "daily/AWSDynamoDB/") {
		t.Errorf("ExportManifest = %q", manifest)
	}
	// The object is at the account's id, then the export's key.
	out, err := store.GetObject(ctx(t), &s3.GetObjectInput{Bucket: aws.String("exports"), Key: aws.String(account + "/" + manifest)})
	if err != nil {
		t.Fatalf("the manifest is not in the S3 bucket under the account: %v", err)
	}
	out.Body.Close()

	prefix := strings.TrimSuffix(manifest, "manifest-summary.json")
	im, err := c.ImportTable(ctx(t), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("exports"), S3KeyPrefix: aws.String(prefix)},
		InputFormat: types.InputFormatIon, InputCompressionType: types.InputCompressionTypeGzip,
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String("Music2"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}})
	if err != nil {
		t.Fatal(err)
	}
	if id := waitImport(t, c, aws.ToString(im.ImportTableDescription.ImportArn)); id.ImportStatus != types.ImportStatusCompleted || id.ImportedItemCount != 2 {
		t.Fatalf("DescribeImport: %+v", id)
	}
	if got := scanPKs(t, c, "Music2"); !cmp.Equal(got, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("imported items: %v", got)
	}

	if d := export(c, "missing"); d.ExportStatus != types.ExportStatusFailed || aws.ToString(d.FailureCode) != "S3NoSuchBucket" {
		t.Errorf("export into a missing bucket: %+v", d)
	}
	_, denied := newTestClient(t, Config{S3: client(s3fake.DeniedKey), Namespaces: PerAccountNamespaces})
	createTable(t, denied, "Music", "", "")
	if _, err := denied.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Music"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if d := export(denied, "exports"); d.ExportStatus != types.ExportStatusFailed || aws.ToString(d.FailureCode) != "S3AccessDenied" {
		t.Errorf("export with a refused key: %+v", d)
	}
}
