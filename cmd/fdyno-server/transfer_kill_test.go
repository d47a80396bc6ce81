package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// describeTransfer returns the status of an export (op DescribeExport,
// member ExportArn) or an import (DescribeImport, ImportArn).
func describeTransfer(t *testing.T, addr, op, member, arn string) string {
	t.Helper()
	status, body := call(t, addr, op, `{"`+member+`":"`+arn+`"}`)
	if status != 200 {
		t.Fatalf("%s: %d %s", op, status, body)
	}
	var out struct {
		ExportDescription      struct{ ExportStatus string }
		ImportTableDescription struct{ ImportStatus string }
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	return out.ExportDescription.ExportStatus + out.ImportTableDescription.ImportStatus
}

// waitTransfer waits for an export or import to be COMPLETED, failing t if
// it ends otherwise or takes more than a minute.
func waitTransfer(t *testing.T, addr, op, member, arn string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		switch st := describeTransfer(t, addr, op, member, arn); {
		case st == "COMPLETED":
			return
		case st != "IN_PROGRESS" || time.Now().After(deadline):
			t.Fatalf("%s after the restart: %s, want IN_PROGRESS then COMPLETED", arn, st)
		}
	}
}

// An export and an import, each interrupted by kill -9 of fdyno-server on
// a durable data directory just after it was accepted (paced by
// --job-pause, neither can end in the moment before the kill): the restarted
// server takes each over once the dead server's lease lapses and runs it
// to COMPLETED (its /metrics count it done), the import's table appears
// only then, and it holds exactly the exported items.
func TestExportAndImportSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 of a server during an export and an import")
	}
	dir, exports := filepath.Join(t.TempDir(), "data"), t.TempDir()
	if err := os.Mkdir(filepath.Join(exports, "bucket"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"--data-dir", dir, "--export-dir", exports, "--shared-db", "--job-pause", "50ms", "--job-lease", "1s", "--ttl-sweep=false", "--count-build=false"}
	cmd, addr, logs := startServer(t, args...)
	want := createBig(t, addr)
	if status, body := call(t, addr, "UpdateContinuousBackups", `{"TableName":"Big","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`); status != 200 {
		t.Fatalf("UpdateContinuousBackups: %d %s", status, body)
	}
	tableARN := "arn:aws:dynamodb:us-east-1:000000000000:table/Big"
	if status, body := call(t, addr, "DescribeTable", `{"TableName":"Big"}`); status == 200 {
		var d struct{ Table struct{ TableArn string } }
		if err := json.Unmarshal([]byte(body), &d); err == nil && d.Table.TableArn != "" {
			tableARN = d.Table.TableArn
		}
	}
	// ran reports whether this server's /metrics count one kind job done
	// (it ends just after its status is COMPLETED).
	ran := func(addr, kind string) bool {
		done := `fdyno_background_jobs_total{kind="` + kind + `",result="done"} 1` + "\n"
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if strings.Contains(getMetrics(t, addr), done) {
				return true
			}
		}
		return false
	}

	status, body := call(t, addr, "ExportTableToPointInTime", `{"TableArn":"`+tableARN+`","S3Bucket":"bucket","S3Prefix":"big"}`)
	var ex struct {
		ExportDescription struct{ ExportArn, ExportStatus string }
	}
	if err := json.Unmarshal([]byte(body), &ex); status != 200 || err != nil || ex.ExportDescription.ExportStatus != "IN_PROGRESS" {
		t.Fatalf("ExportTableToPointInTime: %d %s", status, body)
	}
	kill(cmd, func() error { return cmd.Process.Signal(syscall.SIGKILL) }, logs)

	cmd, addr, logs = startServer(t, args...)
	waitTransfer(t, addr, "DescribeExport", "ExportArn", ex.ExportDescription.ExportArn)
	if !ran(addr, "export") {
		t.Fatalf("the restarted server's /metrics count no export done: it did not run it")
	}

	status, body = call(t, addr, "ImportTable", `{"S3BucketSource":{"S3Bucket":"bucket","S3KeyPrefix":"big"},"InputFormat":"DYNAMODB_JSON","InputCompressionType":"GZIP",
		"TableCreationParameters":{"TableName":"Imported","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}}`)
	var im struct {
		ImportTableDescription struct{ ImportArn, ImportStatus string }
	}
	if err := json.Unmarshal([]byte(body), &im); status != 200 || err != nil || im.ImportTableDescription.ImportStatus != "IN_PROGRESS" {
		t.Fatalf("ImportTable: %d %s", status, body)
	}
	kill(cmd, func() error { return cmd.Process.Signal(syscall.SIGKILL) }, logs)

	_, addr, _ = startServer(t, args...)
	if st := describeTransfer(t, addr, "DescribeImport", "ImportArn", im.ImportTableDescription.ImportArn); st == "IN_PROGRESS" {
		if status, body := call(t, addr, "DescribeTable", `{"TableName":"Imported"}`); status != 400 || !strings.Contains(body, "ResourceNotFoundException") {
			t.Errorf("DescribeTable of a table being imported: %d %s, want ResourceNotFoundException", status, body)
		}
	}
	waitTransfer(t, addr, "DescribeImport", "ImportArn", im.ImportTableDescription.ImportArn)
	if !ran(addr, "import") {
		t.Fatalf("the restarted server's /metrics count no import done: it did not run it")
	}
	got := scanAll(t, addr, "Imported")
	if len(got) != len(want) {
		t.Fatalf("imported table holds %d items, want %d", len(got), len(want))
	}
	for pk, n := range want {
		if got[pk] != n {
			t.Fatalf("imported item %s: n = %q, want %q", pk, got[pk], n)
		}
	}
}
