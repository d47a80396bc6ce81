package fdyno

import (
	"errors"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
)

// Deleting a table with point-in-time recovery enabled leaves a SYSTEM
// backup named <table>$DeletedTableBackup holding its state just before
// deletion (DynamoDB's developer guide, "Deleting a table with
// point-in-time recovery enabled"), and clears the recovery base; a table
// without recovery leaves nothing. Writers race the deletion: whatever
// they committed before it is in the backup, and a write after the
// deletion finds no table.
func TestDeletionBackup(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	plain := mustOpen(t, db, "Plain", root, WithSchema(backupSchema))
	mustPut(t, db, plain, backupItem("a", 1, 1, 0))
	if err := DeleteTable(db, "Plain", root); err != nil {
		t.Fatal(err)
	}
	// Given a transaction, the many transactions of the backup cannot
	// run: a clear error, nothing deleted.
	inTx := mustOpen(t, db, "InTx", root, WithSchema(backupSchema))
	if _, err := inTx.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Transact(db, func(tr fdb.Transaction) (struct{}, error) { return struct{}{}, DeleteTable(tr, "InTx", root) }); !errors.Is(err, ErrValidation) {
		t.Errorf("DeleteTable in a transaction of a table with recovery: %v, want ErrValidation", err)
	}
	if err := DeleteTable(db, "InTx", root); err != nil {
		t.Fatal(err)
	}
	if err := deleteBackupsOf(t, db, root, "InTx"); err != nil {
		t.Fatal(err)
	}
	src := mustOpen(t, db, "Gone", root, WithSchema(backupSchema), WithChunkThreshold(400))
	if _, err := src.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		mustPut(t, db, src, backupItem("p"+strconv.Itoa(i%3), i, i, (i%3)*300))
	}
	d, err := src.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	// A writer keeps writing until the table is gone; every write that
	// succeeded committed before the deletion.
	var written atomic.Int64
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for i := 100; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			_, err := src.Put(db, PutInput{Item: backupItem("w", i, i, 0)})
			if errors.Is(err, ErrResourceNotFound) {
				done <- nil
				return
			}
			if err != nil {
				done <- err
				return
			}
			written.Store(int64(i))
		}
	}()
	err = DeleteTable(db, "Gone", root)
	close(stop)
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil && !errors.Is(err, errChangedSinceBackup) {
		t.Fatal(err)
	}
	if err != nil {
		t.Skipf("the writer raced all %d deletion backups", maxDeletionBackups)
	}
	l, err := ListBackups(db, ListBackupsInput{BackupType: "ALL"}, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.BackupSummaries) != 1 {
		t.Fatalf("backups after the deletion: %+v, want the one system backup", l.BackupSummaries)
	}
	b := l.BackupSummaries[0]
	if b.BackupName != "Gone$DeletedTableBackup" || b.BackupType != BackupTypeSystem || b.BackupStatus != BackupStatusAvailable || b.TableName != "Gone" {
		t.Errorf("system backup = %+v", b)
	}
	// The backup holds every write that committed: the 20 items and the
	// writer's items up to its last success.
	want := map[string]bool{}
	for i := range 20 {
		want["p"+strconv.Itoa(i%3)+"/"+strconv.Itoa(i)] = true
	}
	for i := 100; i <= int(written.Load()); i++ {
		want["w/"+strconv.Itoa(i)] = true
	}
	restored, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "Back"}, root)
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, db, restored)
	got := map[string]bool{}
	for _, it := range tableItems(t, db, restored) {
		got[it["pk"].S()+"/"+it["sk"].N()] = true
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("restored deleted table (-committed +restored):\n%s", diff)
	}
	// No recovery base or log is left behind: only Back's directory.
	if _, err := DescribeBackup(db, pitrID(d.TableID), root); !errors.Is(err, ErrBackupNotFound) {
		t.Errorf("the recovery base after the deletion: %v, want it gone", err)
	}
	if diff := gocmp.Diff([]string{"Back"}, rootEntries(t, db, root)); diff != "" {
		t.Errorf("directories after the deletion (-want +got):\n%s", diff)
	}
}

// A write committed after the deletion backup was taken makes the
// deletion's check fail (and DeleteTable take the backup again).
func TestDeletionBackupMissedWrite(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Racy", root, WithSchema(backupSchema))
	if _, err := src.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, src, backupItem("a", 1, 1, 0))
	sys, err := src.deletionBackup(db)
	if err != nil {
		t.Fatal(err)
	}
	drop := func() error {
		_, err := Transact(db, func(tr fdb.Transaction) (struct{}, error) {
			st, meta, err := src.loadMeta(tr)
			if err != nil {
				return struct{}{}, err
			}
			return struct{}{}, src.dropRecovery(tr, st, meta, sys)
		})
		return err
	}
	mustPut(t, db, src, backupItem("a", 2, 2, 0))
	if err := drop(); !errors.Is(err, errChangedSinceBackup) {
		t.Errorf("a write after the backup: %v, want errChangedSinceBackup", err)
	}
	if sys, err = src.deletionBackup(db); err != nil {
		t.Fatal(err)
	}
	if err := drop(); err != nil {
		t.Errorf("nothing written after the backup: %v", err)
	}
}

// deleteBackupsOf deletes the backups of table name under root.
func deleteBackupsOf(t *testing.T, db fdb.Database, root Option, name string) error {
	l, err := ListBackups(db, ListBackupsInput{BackupType: "ALL", TableName: name}, root)
	if err != nil {
		return err
	}
	for _, b := range l.BackupSummaries {
		if _, err := DeleteBackup(db, b.BackupID, root); err != nil {
			return err
		}
	}
	return nil
}
