package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
)

// Of two servers on one database, an export and an import whose lease
// another (dead) server holds are left to it until the lease lapses; then
// the next resume walk runs them, and /metrics counts them.
func TestTransfersTakenOver(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	exportDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(exportDir, "exports"), 0o755); err != nil {
		t.Fatal(err)
	}
	// a has no buckets and runs nothing; it records the jobs as a server
	// would, and a dead server ("dead") holds their leases.
	a, c := newTestClient(t, Config{DB: db, Now: now})
	createTable(t, c, "Music", "", "")
	putPK(t, c, "Music", "a", "1")
	opts := []fdyno.Option{fdyno.WithRoot(a.root...), fdyno.WithClock(now)}
	tableArn := "arn:aws:dynamodb:us-east-1:" + accountID + ":table/Music"
	ex, err := fdyno.StartExport(db, fdyno.ExportTableToPointInTimeInput{TableName: "Music", TableArn: tableArn, S3Bucket: "exports"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(exportDir, "exports", "items.json"), []byte(`{"Item":{"pk":{"S":"x"}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	im, err := fdyno.StartImport(db, fdyno.ImportTableInput{S3Bucket: "exports", S3KeyPrefix: "items", InputFormat: fdyno.InputFormatDynamoDBJSON,
		TableName: "Imported", Schema: fdyno.TableSchema{KeySchema: []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
			AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS}}}}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := fdyno.TryExportLease(db, ex.ExportID, "dead", DefaultJobLease, opts...); !ok || err != nil {
		t.Fatalf("the dead server's export lease: %v, %v", ok, err)
	}
	if ok, err := fdyno.TryImportLease(db, im.ImportID, "dead", DefaultJobLease, opts...); !ok || err != nil {
		t.Fatalf("the dead server's import lease: %v, %v", ok, err)
	}
	b := newTestServer(t, Config{DB: db, Now: now, ExportDir: exportDir})
	cb := b.client(testCredentials)
	idle := func() bool {
		b.bg.mu.Lock()
		defer b.bg.mu.Unlock()
		return len(b.bg.transfers) == 0
	}
	status := func() (types.ExportStatus, types.ImportStatus) {
		e, err := cb.DescribeExport(ctx(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(tableArn + "/export/" + ex.ExportID)})
		if err != nil {
			t.Fatal(err)
		}
		i, err := cb.DescribeImport(ctx(t), &dynamodb.DescribeImportInput{ImportArn: aws.String("arn:aws:dynamodb:us-east-1:" + accountID + ":table/Imported/import/" + im.ImportID)})
		if err != nil {
			t.Fatal(err)
		}
		return e.ExportDescription.ExportStatus, i.ImportTableDescription.ImportStatus
	}
	b.resumeTransfers(t.Context())
	testtime.WaitUntil(t, "b's transfers to end", idle)
	if e, i := status(); e != types.ExportStatusInProgress || i != types.ImportStatusInProgress {
		t.Fatalf("while the dead server's leases last: export %s, import %s; want both IN_PROGRESS", e, i)
	}
	clock.Advance(DefaultJobLease + time.Second)
	b.resumeTransfers(t.Context())
	testtime.WaitUntil(t, "b's transfers to end", idle)
	if e, i := status(); e != types.ExportStatusCompleted || i != types.ImportStatusCompleted {
		t.Fatalf("after the leases lapsed: export %s, import %s; want both COMPLETED", e, i)
	}
	fams := b.scrape(t)
	for _, kind := range []string{"export", "import"} {
		if got := value(fams, "fdyno_background_jobs_total", "kind", kind, "result", "done"); got != 1 {
			t.Errorf("fdyno_background_jobs_total{kind=%q,result=done} = %v, want 1", kind, got)
		}
		if got := value(fams, "fdyno_background_job_items_total", "kind", kind); got != 1 {
			t.Errorf("fdyno_background_job_items_total{kind=%q} = %v, want 1", kind, got)
		}
		if got := value(fams, "fdyno_background_jobs_running", "kind", kind); got != 0 {
			t.Errorf("fdyno_background_jobs_running{kind=%q} = %v, want 0", kind, got)
		}
	}
}
