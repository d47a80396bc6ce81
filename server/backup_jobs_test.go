package server

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// backup_jobs_test.go: backups and restores run in the background, with
// DynamoDB's statuses.

// waitBackup polls DescribeBackup until backup arn is AVAILABLE, and
// fails if it shows any status but CREATING meanwhile.
func waitBackup(t *testing.T, c *dynamodb.Client, arn string) *types.BackupDescription {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		out, err := c.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
		if err != nil {
			t.Fatalf("DescribeBackup while waiting: %v", err)
		}
		switch st := out.BackupDescription.BackupDetails.BackupStatus; st {
		case types.BackupStatusAvailable:
			return out.BackupDescription
		case types.BackupStatusCreating:
		default:
			t.Fatalf("backup %s: status %s while it is made", arn, st)
		}
	}
	t.Fatalf("backup %s not AVAILABLE after 30 s", arn)
	return nil
}

// waitRestored polls DescribeTable until table is ACTIVE and returns its
// description; meanwhile it must be CREATING with a RestoreSummary whose
// RestoreInProgress is true. gone is true if the table disappeared
// instead (a restore that failed).
func waitRestored(t *testing.T, c *dynamodb.Client, table string) (d *types.TableDescription, gone bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		out, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return nil, true
		}
		if err != nil {
			t.Fatalf("DescribeTable while waiting: %v", err)
		}
		td := out.Table
		switch td.TableStatus {
		case types.TableStatusActive:
			return td, false
		case types.TableStatusCreating:
			if td.RestoreSummary == nil || !aws.ToBool(td.RestoreSummary.RestoreInProgress) {
				t.Fatalf("table %s CREATING without RestoreInProgress: %+v", table, td.RestoreSummary)
			}
		default:
			t.Fatalf("table %s: status %s while it is restored", table, td.TableStatus)
		}
	}
	t.Fatalf("table %s not ACTIVE after 30 s", table)
	return nil, false
}

// mustRestored is waitRestored for a restore that must succeed.
func mustRestored(t *testing.T, c *dynamodb.Client, table string) *types.TableDescription {
	t.Helper()
	d, gone := waitRestored(t, c, table)
	if gone {
		t.Fatalf("restore of %s failed: the table is gone", table)
	}
	return d
}

// While a restore runs, its table is CREATING: DeleteTable and CreateTable
// of its name are ResourceInUseException, as DynamoDB answers them for a
// table being created, and item operations ResourceNotFoundException.
func TestRestoringTableInUse(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	// An hour's pause after the restore's first transaction: it stays
	// CREATING for the whole test.
	srv := newTestServer(t, Config{DB: db, TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1, JobPause: time.Hour})
	c := srv.client(testCredentials)
	createTable(t, c, "Src", "", "")
	putPK(t, c, "Src", "a", "1")
	src, err := srv.openTable("Src")
	if err != nil {
		t.Fatal(err)
	}
	bk, err := src.CreateBackup(db, "src")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(srv.backupARN("Src", bk.BackupID)),
		TargetTableName: aws.String("Copy")}); err != nil {
		t.Fatal(err)
	}
	var inUse *types.ResourceInUseException
	_, err = c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Copy")})
	if !errors.As(err, &inUse) || aws.ToString(inUse.Message) != "Attempt to change a resource which is still in use: Table is being created: Copy" {
		t.Errorf("DeleteTable of a table being restored: %v, want ResourceInUseException (Table is being created)", err)
	}
	if _, err := c.CreateTable(ctx(t), pkTableInput("Copy")); !errors.As(err, &inUse) {
		t.Errorf("CreateTable of a table being restored: %v, want ResourceInUseException", err)
	}
	var notFound *types.ResourceNotFoundException
	if _, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Copy"), Key: map[string]types.AttributeValue{"pk": s("a")}}); !errors.As(err, &notFound) {
		t.Errorf("GetItem of a table being restored: %v, want ResourceNotFoundException", err)
	}
	out, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Copy")})
	if err != nil || out.Table.TableStatus != types.TableStatusCreating {
		t.Fatalf("DescribeTable after the refused DeleteTable: %v, %v; want CREATING", out, err)
	}
	if _, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Gone")}); !errors.As(err, &notFound) {
		t.Errorf("DeleteTable of no table: %v, want ResourceNotFoundException", err)
	}
}

// Of two servers on one database, the one that started a restore runs
// it, under its lease; the other finds the lease held and leaves it
// (elsewhere). When the first stops (Close, as a crash would, between two
// transactions), the second takes the restore over once the lease lapses
// and finishes it from its progress: the table ACTIVE and whole.
func TestRestoreTakenOver(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	// a crawls (2 s between two of its transactions), so it stops
	// half-way whatever the machine's load; b runs at full speed.
	cfg := Config{DB: db, TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1, JobLease: time.Second, JobPause: 2 * time.Second}
	a := newTestServer(t, cfg)
	ca := a.client(testCredentials)
	createTable(t, ca, "Src", "", "")
	const items = 2000
	for i := 0; i < items; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < i+25; j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("k" + strconv.Itoa(j))}}})
		}
		if _, err := ca.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Src": reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	// The backup is the library's, made at once (a would crawl).
	src, err := a.openTable("Src")
	if err != nil {
		t.Fatal(err)
	}
	bk, err := src.CreateBackup(db, "src")
	if err != nil {
		t.Fatal(err)
	}
	arn := a.backupARN("Src", bk.BackupID)
	if _, err := ca.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String("Copy")}); err != nil {
		t.Fatal(err)
	}
	// a holds the lease once it wrote a batch; b starts then.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r, err := fdyno.DescribeRestore(db, "Copy", a.tableOptions()...)
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("a's restore before b starts: %+v, %v", r, err)
		}
		if r.ItemsRestored > 0 {
			break
		}
	}
	cfg.JobPause = 0
	b := newTestServer(t, cfg)
	cbClient := b.client(testCredentials)
	// b walks its jobs every lease period: it finds a's lease held.
	for deadline := time.Now().Add(10 * time.Second); value(b.scrape(t), "fdyno_background_jobs_total", "kind", "restore", "result", "elsewhere") == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("b never found the restore held by a")
		}
	}
	if out, err := cbClient.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Copy")}); err != nil || out.Table.TableStatus != types.TableStatusCreating {
		t.Fatalf("Copy seen by b while a restores it: %v", err)
	}
	a.Close() // a stops between two transactions, its lease held
	td := mustRestored(t, cbClient, "Copy")
	if aws.ToInt64(td.ItemCount) != items {
		t.Errorf("restored by b: %d items, want %d", aws.ToInt64(td.ItemCount), items)
	}
	// b's job ends just after the table appears.
	done := func() float64 {
		return value(b.scrape(t), "fdyno_background_jobs_total", "kind", "restore", "result", "done")
	}
	for end := time.Now().Add(5 * time.Second); done() != 1 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
	}
	if got := done(); got != 1 {
		t.Errorf("b's restores done: %v, want 1", got)
	}
	if got := value(a.scrape(t), "fdyno_background_jobs_total", "kind", "restore", "result", "stopped"); got != 1 {
		t.Errorf("a's restores stopped: %v, want 1", got)
	}
}
