package fdyno

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testseed"
)

// A backup started with StartBackup is CREATING (DynamoDB's status while
// it is made) in DescribeBackup and ListBackups, cannot be deleted or
// restored (BackupInUseException), and, stopped after any number of its
// transactions and resumed, ends AVAILABLE holding the table at its
// version: nothing lost, nothing doubled.
func TestBackupStartedThenResumed(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Src", root, WithSchema(backupSchema))
	for i := range 30 {
		mustPut(t, db, src, backupItem("p"+strconv.Itoa(i%4), i, i, 0))
	}
	want := tableItems(t, db, src)
	for stopAfter := 0; ; stopAfter += 3 {
		d, err := src.StartBackup(db, "bak"+strconv.Itoa(stopAfter))
		if err != nil {
			t.Fatal(err)
		}
		if d.BackupStatus != BackupStatusCreating {
			t.Fatalf("StartBackup: status %s, want CREATING", d.BackupStatus)
		}
		n := stopAfter
		_, err = resumeBackup(stoppingTransactor{db, &n}, d.BackupID, 4, root)
		if err == nil {
			if stopAfter == 0 {
				t.Fatal("a backup resumed with no transaction finished")
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped after %d: %v", stopAfter, err)
		}
		if got, err := DescribeBackup(db, d.BackupID, root); err != nil || got.BackupStatus != BackupStatusCreating {
			t.Fatalf("a stopped backup: %+v, %v; want CREATING", got, err)
		}
		l, err := ListBackups(db, ListBackupsInput{TableName: "Src"}, root)
		if err != nil || len(l.BackupSummaries) == 0 || l.BackupSummaries[len(l.BackupSummaries)-1].BackupStatus != BackupStatusCreating {
			t.Fatalf("ListBackups with a stopped backup: %+v, %v; want it CREATING, last", l, err)
		}
		if _, err := DeleteBackup(db, d.BackupID, root); !errors.Is(err, ErrBackupInUse) {
			t.Fatalf("DeleteBackup of a CREATING backup: %v, want ErrBackupInUse", err)
		}
		if _, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: d.BackupID, TargetTableName: "Early"}, root); !errors.Is(err, ErrBackupInUse) {
			t.Fatalf("restore of a CREATING backup: %v, want ErrBackupInUse", err)
		}
		// A write while it is stopped is after its start: not in it.
		mustPut(t, db, src, backupItem("late", stopAfter, 0, 0))
		got, err := ResumeBackup(db, d.BackupID, root)
		if err != nil || got.BackupStatus != BackupStatusAvailable || got.ItemCount != int64(len(want))+1 {
			t.Fatalf("resumed after %d transactions: %+v, %v", stopAfter, got, err)
		}
		if _, err := src.Delete(db, DeleteInput{Key: Item{"pk": S("late"), "sk": NInt(int64(stopAfter))}}); err != nil {
			t.Fatal(err)
		}
		dst, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: d.BackupID, TargetTableName: "Copy" + strconv.Itoa(stopAfter)}, root)
		if err != nil {
			t.Fatal(err)
		}
		w := cloneModel(want)
		late := backupItem("late", stopAfter, 0, 0)
		w[itemKeyString(late)] = late
		sameTable(t, db, w, dst)
	}
}

// A restore, from a backup or to a point in time, stopped after any number
// of its transactions, shows no table of its name, is listed by
// ListRestores with its progress, holds its name and its backup, and,
// run again, makes the table exactly as one never stopped.
func TestRestoreStartedThenRun(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Src", root, WithSchema(backupSchema))
	if _, err := src.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		mustPut(t, db, src, backupItem("p"+strconv.Itoa(i%4), i, i, 0))
	}
	want := tableItems(t, db, src)
	b, err := src.CreateBackup(db, "bak")
	if err != nil {
		t.Fatal(err)
	}
	// The version just after the backup: every write above, none below.
	version := b.Version
	for i := range 10 {
		mustPut(t, db, src, backupItem("after", i, i, 0))
	}
	for _, kind := range []string{"backup", "pitr"} {
		for stopAfter := 0; ; stopAfter += 4 {
			target := kind + strconv.Itoa(stopAfter)
			var d *RestoreDescription
			if kind == "backup" {
				d, err = StartRestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: target}, root)
			} else {
				d, err = StartRestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Src", TargetTableName: target, Version: version}, root)
			}
			if err != nil {
				t.Fatal(err)
			}
			n := stopAfter
			_, err = runRestore(stoppingTransactor{db, &n}, d.RestoreID, 4, root)
			if err == nil {
				if stopAfter == 0 {
					t.Fatal("a restore ran with no transaction")
				}
				break
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s stopped after %d: %v", kind, stopAfter, err)
			}
			if _, err := Open(db, target, root); !errors.Is(err, ErrResourceNotFound) {
				t.Fatalf("%s stopped after %d: its table is visible: %v", kind, stopAfter, err)
			}
			got, err := DescribeRestore(db, target, root)
			if err != nil || got.RestoreID != d.RestoreID || got.ItemsRestored > int64(len(want)) {
				t.Fatalf("DescribeRestore of a stopped restore: %+v, %v", got, err)
			}
			if kind == "backup" && got.SourceBackupID != b.BackupID || kind == "pitr" && (got.SourceBackupID != "" || got.SourceTableName != "Src") {
				t.Errorf("DescribeRestore's source: %+v", got)
			}
			if _, err := StartRestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: target}, root); !errors.Is(err, ErrTableAlreadyExists) {
				t.Errorf("a second restore to a name being restored: %v, want ErrTableAlreadyExists", err)
			}
			if kind == "pitr" {
				// The stopped restore keeps its source's recovery lease: no
				// trim folds the base before it runs again.
				if ok, err := src.TryLease(db, recoveryLease, "a-trim", time.Minute); ok || err != nil {
					t.Fatalf("recovery lease of a stopped restore taken by another: %v, %v", ok, err)
				}
			}
			if kind == "backup" {
				if _, err := DeleteBackup(db, b.BackupID, root); !errors.Is(err, ErrBackupInUse) {
					t.Fatalf("DeleteBackup of a backup being restored: %v, want ErrBackupInUse", err)
				}
			}
			dst, err := RunRestore(db, d.RestoreID, root)
			if err != nil {
				t.Fatalf("%s run again after %d transactions: %v", kind, stopAfter, err)
			}
			sameTable(t, db, want, dst)
			if _, err := DescribeRestore(db, target, root); !errors.Is(err, ErrResourceNotFound) {
				t.Errorf("DescribeRestore after the restore: %v, want ErrResourceNotFound", err)
			}
		}
	}
	if h := hiddenTables(t, db, root); len(h) != 0 {
		t.Errorf("hidden tables left: %v", h)
	}
	// Finished, the restores gave the lease back.
	if ok, err := src.TryLease(db, recoveryLease, "a-trim", time.Minute); !ok || err != nil {
		t.Errorf("recovery lease after the restores: %v, %v", ok, err)
	}
}

// A restore that cannot finish (here, a table of its name created while
// it ran) is removed whole: no record, no hidden table; the other table
// is left as it is.
func TestRestoreFailsCleanly(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Src", root, WithSchema(backupSchema))
	for i := range 12 {
		mustPut(t, db, src, backupItem("p", i, i, 0))
	}
	b, err := src.CreateBackup(db, "bak")
	if err != nil {
		t.Fatal(err)
	}
	d, err := StartRestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "Dst"}, root)
	if err != nil {
		t.Fatal(err)
	}
	n := 2
	if _, err := runRestore(stoppingTransactor{db, &n}, d.RestoreID, 4, root); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped: %v", err)
	}
	other := mustOpen(t, db, "Dst", root, WithSchema(backupSchema))
	mustPut(t, db, other, backupItem("mine", 1, 1, 0))
	if _, err := RunRestore(db, d.RestoreID, root); !errors.Is(err, ErrTableAlreadyExists) {
		t.Fatalf("restore over a table created meanwhile: %v, want ErrTableAlreadyExists", err)
	}
	if l, err := ListRestores(db, root); err != nil || len(l) != 0 {
		t.Errorf("restores after the failure: %+v, %v", l, err)
	}
	if h := hiddenTables(t, db, root); len(h) != 0 {
		t.Errorf("hidden tables after the failure: %v", h)
	}
	if got := tableItems(t, db, other); len(got) != 1 {
		t.Errorf("the other table: %v", got)
	}
	if _, err := RunRestore(db, d.RestoreID, root); !errors.Is(err, ErrResourceNotFound) {
		t.Errorf("RunRestore of a removed restore: %v, want ErrResourceNotFound", err)
	}
	// The backup, no longer being restored, may be deleted.
	if _, err := DeleteBackup(db, b.BackupID, root); err != nil {
		t.Errorf("DeleteBackup after the failed restore: %v", err)
	}
}

var _ fdb.Transactor = stoppingTransactor{}

// Of two holders, one holds a restore's lease; the settings given at the
// start are the table's when it appears, and the lease does not go with it.
func TestRestoreLeaseAndSettings(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Src", root, WithSchema(backupSchema))
	mustPut(t, db, src, backupItem("p", 1, 1, 0))
	b, err := src.CreateBackup(db, "bak")
	if err != nil {
		t.Fatal(err)
	}
	settings := []byte(`{"BillingMode":"PROVISIONED"}`)
	d, err := StartRestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "Dst", Settings: settings}, root)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := TryRestoreLease(db, d.RestoreID, "one", time.Minute, root); !ok || err != nil {
		t.Fatalf("first holder: %v, %v", ok, err)
	}
	if ok, err := TryRestoreLease(db, d.RestoreID, "two", time.Minute, root); ok || err != nil {
		t.Fatalf("second holder while the first's lease runs: %v, %v; want false", ok, err)
	}
	dst, err := RunRestore(db, d.RestoreID, root)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := dst.Describe(db)
	if err != nil || string(desc.Settings) != string(settings) {
		t.Errorf("restored table's settings: %q, %v; want %q", desc.Settings, err, settings)
	}
	if ok, err := dst.TryLease(db, restoreLeaseJob, "two", time.Minute); !ok || err != nil {
		t.Errorf("the restore's lease went with its table: %v, %v", ok, err)
	}
	if _, err := TryRestoreLease(db, d.RestoreID, "one", time.Minute, root); !errors.Is(err, ErrResourceNotFound) {
		t.Errorf("TryRestoreLease of a finished restore: %v, want ErrResourceNotFound", err)
	}
}

// Under fdblite's retryable faults, a backup started, stopped and resumed
// and a restore started, stopped and run again end exact: the faults'
// retries and the interruptions neither lose nor double an item.
func TestJobsUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(testseed.Seed(t, "FDYNO_JOBS_FAULT_SEED")))
	src := mustOpen(t, db, "Faulty", WithSchema(backupSchema), WithChunkThreshold(400))
	for i := range 60 {
		mustPut(t, db, src, backupItem("p"+strconv.Itoa(i%5), i, i, (i%3)*300))
	}
	want := tableItems(t, db, src)
	d, err := src.StartBackup(db, "faulty")
	if err != nil {
		t.Fatal(err)
	}
	n := 5
	if _, err := resumeBackup(stoppingTransactor{db, &n}, d.BackupID, 7); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped backup: %v", err)
	}
	b, err := resumeBackup(db, d.BackupID, 7)
	if err != nil || b.ItemCount != int64(len(want)) {
		t.Fatalf("resumed backup: %+v, %v", b, err)
	}
	r, err := StartRestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "FaultyCopy"})
	if err != nil {
		t.Fatal(err)
	}
	n = 4
	if _, err := runRestore(stoppingTransactor{db, &n}, r.RestoreID, 9); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped restore: %v", err)
	}
	dst, err := runRestore(db, r.RestoreID, 9)
	if err != nil {
		t.Fatal(err)
	}
	sameTable(t, db, want, dst)
	checkTable(t, db, src)
}
