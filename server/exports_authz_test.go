package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// exports_authz_test.go: the export and import operations tried as an
// outsider would, through the raw protocol (as authz_attack_test.go):
// another account's table, export and import ARNs, an explicit deny, and
// a policy that allows exporting or importing only some partitions. Each
// refused request must leave no export, import, table or file behind.

// newExportAttackServer is newAttackServer with buckets, and the key
// "partial", which may export and import only its own partition (the
// LeadingKeys condition of DynamoDB's fine-grained access control).
func newExportAttackServer(t *testing.T) (*attackServer, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, attackAccount, "exports"), 0o755); err != nil {
		t.Fatal(err)
	}
	partial, err := LoadPolicies(strings.NewReader(`{"partial":{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["dynamodb:ExportTableToPointInTime","dynamodb:ImportTable"],"Resource":"*",
		 "Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:userid}"]}}},
		{"Effect":"Allow","Action":["dynamodb:Describe*","dynamodb:List*"],"Resource":"*"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	as := newAttackServer(t, func(cfg *Config) {
		cfg.ExportDir = dir
		cfg.Keys["partial"], cfg.Accounts["partial"] = "secret-of-partial", attackAccount
		cfg.Policies["partial"] = partial["partial"]
	})
	if _, err := as.admin.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("GameScores"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	as.accesses()
	return as, dir
}

// noTransfers fails t if any export or import exists, or any file was
// written under dir.
func noTransfers(t *testing.T, as *attackServer, dir string) {
	t.Helper()
	le, err := as.admin.ListExports(ctx(t), &dynamodb.ListExportsInput{})
	if err != nil || len(le.ExportSummaries) != 0 {
		t.Errorf("ListExports after refused requests: %+v, %v", le, err)
	}
	li, err := as.admin.ListImports(ctx(t), &dynamodb.ListImportsInput{})
	if err != nil || len(li.ImportSummaryList) != 0 {
		t.Errorf("ListImports after refused requests: %+v, %v", li, err)
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("a refused request left the file %s", p)
		}
		return nil
	})
	if seen := as.accesses(); len(seen) != 0 {
		t.Errorf("refused requests touched %v", seen)
	}
	lt, err := as.admin.ListTables(ctx(t), &dynamodb.ListTablesInput{})
	if err != nil || len(lt.TableNames) != 2 {
		t.Errorf("ListTables: %v, %v; want GameScores and Locked only", lt.TableNames, err)
	}
	as.checkBob(t)
}

func TestAttackExportImport(t *testing.T) {
	as, dir := newExportAttackServer(t)
	foreign := "arn:aws:dynamodb:" + attackRegion + ":999999999999:table/GameScores"
	own := gamesARN
	locked := "arn:aws:dynamodb:" + attackRegion + ":" + attackAccount + ":table/Locked"
	importBody := func(table string) string {
		return `{"S3BucketSource":{"S3Bucket":"exports"},"InputFormat":"DYNAMODB_JSON","TableCreationParameters":{"TableName":"` + table +
			`","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}}`
	}
	for _, tc := range []struct{ key, op, body, want string }{
		// Another account's ARNs, whatever the policies allow.
		{"admin", "ExportTableToPointInTime", `{"TableArn":"` + foreign + `","S3Bucket":"exports"}`,
			"is not authorized to perform: dynamodb:ExportTableToPointInTime on resource: " + foreign + " because no resource-based policy allows"},
		{"admin", "DescribeExport", `{"ExportArn":"` + foreign + `/export/01700000000000-abcdef12"}`, "dynamodb:DescribeExport on resource: " + foreign + "/export/"},
		{"admin", "DescribeImport", `{"ImportArn":"` + foreign + `/import/01700000000000-abcdef12"}`, "dynamodb:DescribeImport on resource: " + foreign + "/import/"},
		{"admin", "ListExports", `{"TableArn":"` + foreign + `"}`, "dynamodb:ListExports on resource: " + foreign},
		{"admin", "ListImports", `{"TableArn":"` + foreign + `"}`, "dynamodb:ListImports on resource: " + foreign},
		{"admin", "ImportTable", importBody("arn:aws:dynamodb:eu-west-1:" + attackAccount + ":table/Copy"), "because no resource-based policy allows"},
		// Another region of the same account is another namespace too.
		{"admin", "ExportTableToPointInTime", `{"TableArn":"arn:aws:dynamodb:eu-west-1:` + attackAccount + `:table/GameScores","S3Bucket":"exports"}`,
			"because no resource-based policy allows"},
		// An explicit deny on the table.
		{"locked", "ExportTableToPointInTime", `{"TableArn":"` + locked + `","S3Bucket":"exports"}`,
			"dynamodb:ExportTableToPointInTime on resource: " + locked + " with an explicit deny"},
		// A policy that allows exporting or importing one partition allows
		// neither: they read and write every item.
		{"partial", "ExportTableToPointInTime", `{"TableArn":"` + own + `","S3Bucket":"exports"}`,
			"is not authorized to perform: dynamodb:ExportTableToPointInTime on resource: " + own},
		{"partial", "ImportTable", importBody("Copy"), "is not authorized to perform: dynamodb:ImportTable on resource: arn:aws:dynamodb:" + attackRegion + ":" + attackAccount + ":table/Copy"},
		// A key allowed only GetItem.
		{"reader", "ExportTableToPointInTime", `{"TableArn":"` + own + `","S3Bucket":"exports"}`, "dynamodb:ExportTableToPointInTime on resource: " + own},
		{"reader", "ListExports", `{}`, "dynamodb:ListExports on resource: *"},
	} {
		status, typ, msg := as.raw(t, tc.key, tc.op, tc.body, nil)
		if status != 400 || typ != "AccessDeniedException" || !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s %s: %d %s %q, want AccessDeniedException containing %q", tc.key, tc.op, tc.body, status, typ, msg, tc.want)
		}
	}
	noTransfers(t, as, dir)

	// The admin may: the same requests on its own table export and
	// import.
	status, _, msg := as.raw(t, "admin", "ExportTableToPointInTime", `{"TableArn":"`+own+`","S3Bucket":"exports"}`, nil)
	if status != 200 {
		t.Fatalf("the admin's export: %d %s", status, msg)
	}
}
