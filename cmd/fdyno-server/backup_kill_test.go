package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killItems is the size of the table the kill test backs up and
// restores: at the library's 200 items a transaction, and with a pause
// between two, a backup and a restore each take many transactions.
const killItems = 3000

// describeBackup returns a backup's status and item count.
func describeBackup(t *testing.T, addr, arn string) (string, int) {
	t.Helper()
	status, body := call(t, addr, "DescribeBackup", `{"BackupArn":"`+arn+`"}`)
	if status != 200 {
		t.Fatalf("DescribeBackup: %d %s", status, body)
	}
	var out struct {
		BackupDescription struct {
			BackupDetails      struct{ BackupStatus string }
			SourceTableDetails struct{ ItemCount int }
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	return out.BackupDescription.BackupDetails.BackupStatus, out.BackupDescription.SourceTableDetails.ItemCount
}

// describeRestored returns a table's status, whether its RestoreSummary
// says the restore is in progress, and its ItemCount; "" if there is no
// such table.
func describeRestored(t *testing.T, addr, table string) (string, bool, int) {
	t.Helper()
	status, body := call(t, addr, "DescribeTable", `{"TableName":"`+table+`"}`)
	if status == 400 && strings.Contains(body, "ResourceNotFoundException") {
		return "", false, 0
	}
	if status != 200 {
		t.Fatalf("DescribeTable: %d %s", status, body)
	}
	var out struct {
		Table struct {
			TableStatus    string
			ItemCount      int
			RestoreSummary *struct{ RestoreInProgress bool }
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	if out.Table.RestoreSummary == nil {
		t.Fatalf("DescribeTable of a restored table without RestoreSummary: %s", body)
	}
	return out.Table.TableStatus, out.Table.RestoreSummary.RestoreInProgress, out.Table.ItemCount
}

// scanAll returns every item's pk and n of table.
func scanAll(t *testing.T, addr, table string) map[string]string {
	t.Helper()
	got := map[string]string{}
	start := ""
	for {
		req := `{"TableName":"` + table + `","ConsistentRead":true` + start + `}`
		status, body := call(t, addr, "Scan", req)
		if status != 200 {
			t.Fatalf("Scan %s: %d %s", table, status, body)
		}
		var out struct {
			Items            []map[string]map[string]string
			LastEvaluatedKey json.RawMessage
		}
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got[it["pk"]["S"]] = it["n"]["N"]
		}
		if len(out.LastEvaluatedKey) == 0 {
			return got
		}
		start = `,"ExclusiveStartKey":` + string(out.LastEvaluatedKey)
	}
}

// createBig creates the table Big with killItems items and returns each
// item's pk and n.
func createBig(t *testing.T, addr string) map[string]string {
	t.Helper()
	if status, body := call(t, addr, "CreateTable", `{"TableName":"Big","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`); status != 200 {
		t.Fatalf("CreateTable: %d %s", status, body)
	}
	want := map[string]string{}
	for i := 0; i < killItems; i += 25 {
		var reqs []string
		for j := i; j < i+25; j++ {
			pk, n := fmt.Sprintf("item%05d", j), strconv.Itoa(j*7)
			want[pk] = n
			reqs = append(reqs, `{"PutRequest":{"Item":{"pk":{"S":"`+pk+`"},"n":{"N":"`+n+`"},"pad":{"S":"`+strings.Repeat("x", 100)+`"}}}}`)
		}
		if status, body := call(t, addr, "BatchWriteItem", `{"RequestItems":{"Big":[`+strings.Join(reqs, ",")+`]}}`); status != 200 || strings.Contains(body, `"pk"`) {
			t.Fatalf("BatchWriteItem: %d %s", status, body)
		}
	}
	return want
}

// kill stops a server with SIGKILL.
func kill(cmd interface{ Wait() error }, signal func() error, logs <-chan string) {
	_ = signal()
	_ = cmd.Wait()
	<-logs
}

// A backup and a restore of a table that takes many transactions, each
// interrupted by kill -9 of fdyno-server on a durable data directory:
// restarted, the server resumes them from their committed progress. The
// backup ends AVAILABLE holding every item; the restored table is
// CREATING (RestoreInProgress) until it holds every item, then ACTIVE:
// never ACTIVE with fewer. /metrics counts the jobs the restarted server
// finished and the items it wrote.
func TestBackupAndRestoreSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 of a server during a backup and a restore")
	}
	dir := filepath.Join(t.TempDir(), "data")
	args := []string{"--data-dir", dir, "--job-pause", "40ms", "--job-lease", "1s", "--ttl-sweep=false", "--count-build=false"}
	cmd, addr, logs := startServer(t, args...)
	want := createBig(t, addr)

	// The backup: CREATING at once, killed while it is made.
	status, body := call(t, addr, "CreateBackup", `{"TableName":"Big","BackupName":"big"}`)
	var cb struct {
		BackupDetails struct{ BackupArn, BackupStatus string }
	}
	if err := json.Unmarshal([]byte(body), &cb); status != 200 || err != nil || cb.BackupDetails.BackupStatus != "CREATING" {
		t.Fatalf("CreateBackup: %d %s, want CREATING", status, body)
	}
	arn := cb.BackupDetails.BackupArn
	time.Sleep(150 * time.Millisecond)
	if st, _ := describeBackup(t, addr, arn); st != "CREATING" {
		t.Fatalf("backup %s before the kill, want CREATING (the test needs it slower)", st)
	}
	kill(cmd, func() error { return cmd.Process.Signal(syscall.SIGKILL) }, logs)

	cmd, addr, logs = startServer(t, args...)
	if st, _ := describeBackup(t, addr, arn); st != "CREATING" {
		t.Fatalf("backup %s after the restart, want CREATING", st)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, items := describeBackup(t, addr, arn)
		if st == "AVAILABLE" {
			if items != killItems {
				t.Fatalf("AVAILABLE backup holds %d items, want %d", items, killItems)
			}
			break
		}
		if st != "CREATING" || time.Now().After(deadline) {
			t.Fatalf("backup %s after the restart, want CREATING then AVAILABLE", st)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// The restore: its table CREATING, killed once some items are in.
	status, body = call(t, addr, "RestoreTableFromBackup", `{"BackupArn":"`+arn+`","TargetTableName":"Copy"}`)
	if status != 200 || !strings.Contains(body, `"TableStatus":"CREATING"`) || !strings.Contains(body, `"RestoreInProgress":true`) {
		t.Fatalf("RestoreTableFromBackup: %d %s", status, body)
	}
	for {
		st, inProgress, items := describeRestored(t, addr, "Copy")
		if st != "CREATING" || !inProgress {
			t.Fatalf("restored table %s (in progress %v) before the kill, want CREATING (the test needs it slower)", st, inProgress)
		}
		if items > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if status, body := call(t, addr, "ListTables", `{}`); status != 200 || !strings.Contains(body, `"Copy"`) {
		t.Errorf("ListTables while Copy is restored: %d %s", status, body)
	}
	if status, body := call(t, addr, "GetItem", `{"TableName":"Copy","Key":{"pk":{"S":"item00000"}}}`); status != 400 || !strings.Contains(body, "ResourceNotFoundException") {
		t.Errorf("GetItem of a table being restored: %d %s, want ResourceNotFoundException", status, body)
	}
	kill(cmd, func() error { return cmd.Process.Signal(syscall.SIGKILL) }, logs)

	_, addr, _ = startServer(t, args...)
	deadline = time.Now().Add(60 * time.Second)
	for {
		st, inProgress, items := describeRestored(t, addr, "Copy")
		if st == "ACTIVE" {
			if inProgress || items != killItems {
				t.Fatalf("restored table ACTIVE with %d items (in progress %v), want %d", items, inProgress, killItems)
			}
			break
		}
		if st != "CREATING" || !inProgress || time.Now().After(deadline) {
			t.Fatalf("restored table %q (in progress %v) after the restart, want CREATING then ACTIVE", st, inProgress)
		}
		time.Sleep(5 * time.Millisecond)
	}
	got := scanAll(t, addr, "Copy")
	if len(got) != len(want) {
		t.Fatalf("restored table holds %d items, want %d", len(got), len(want))
	}
	for pk, n := range want {
		if got[pk] != n {
			t.Fatalf("restored item %s: n = %q, want %q", pk, got[pk], n)
		}
	}
	status, body = call(t, addr, "ListBackups", `{}`)
	if status != 200 || strings.Count(body, `"BackupStatus":"AVAILABLE"`) != 1 {
		t.Errorf("ListBackups: %d %s", status, body)
	}
	// The job ends just after its table appears.
	done := `fdyno_background_jobs_total{kind="restore",result="done"} 1` + "\n"
	metrics := getMetrics(t, addr)
	for end := time.Now().Add(5 * time.Second); !strings.Contains(metrics, done) && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		metrics = getMetrics(t, addr)
	}
	if !strings.Contains(metrics, done) {
		t.Errorf("/metrics lacks %q", done)
	}
	if !strings.Contains(metrics, `fdyno_background_job_items_total{kind="restore"} `) || strings.Contains(metrics, `fdyno_background_job_items_total{kind="restore"} 0`+"\n") {
		t.Errorf("/metrics: no restored items counted")
	}
}

// getMetrics returns the server's /metrics text.
func getMetrics(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
