package fdyno

import (
	"errors"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
)

// A guarded handle's backups and restores ask the guard about what they
// touch (access.go): a backup or the start of point-in-time recovery is a
// read of the whole table; a restore reads the whole source (from its
// recovery log), is asked at its start for the writes of the whole target,
// and writes each item of the target. A refusal leaves
// nothing behind: no backup, no recovery, no table, visible or hidden.
func TestGuardedBackupsAndRestores(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Src", root, WithSchema(backupSchema))
	for i := range 12 {
		mustPut(t, db, src, backupItem([]string{"a", "b"}[i%2], i, i, 0))
	}
	b, err := src.CreateBackup(db, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	partitionsOnly := setGuard{read: map[string]bool{"a": true, "b": true}, write: map[string]bool{"a": true, "b": true}}
	everything := setGuard{read: partitionsOnly.read, write: partitionsOnly.write, whole: true}
	onlyA := setGuard{read: map[string]bool{"a": true}, write: map[string]bool{"a": true}, whole: true}

	// Reads of the whole table refused.
	plain, err := Open(db, "Plain", root, WithSchema(backupSchema))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Guarded(partitionsOnly).CreateBackup(db, "refused"); !errors.Is(err, errDenied) {
		t.Errorf("CreateBackup without the whole table: %v, want the guard's refusal", err)
	}
	if _, err := plain.Guarded(partitionsOnly).UpdateContinuousBackups(db, true, 1); !errors.Is(err, errDenied) {
		t.Errorf("enabling recovery without the whole table: %v, want the guard's refusal", err)
	}
	if d, err := plain.DescribeContinuousBackups(db); err != nil || d.PointInTimeRecoveryStatus != "DISABLED" {
		t.Errorf("after a refused enable: %+v, %v", d, err)
	}
	pitr := func(target string, g AccessGuard) (*Table, error) {
		return RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Src", TargetTableName: target, UseLatestRestorableTime: true},
			root, WithGuard(g))
	}
	if _, err := pitr("FromPITR", partitionsOnly); !errors.Is(err, errDenied) {
		t.Errorf("point-in-time restore without the whole source: %v, want the guard's refusal", err)
	}
	// Writes of one partition of the target refused: the restore fails
	// at that item and removes what it wrote.
	if _, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "FromBackup"}, root, WithGuard(onlyA)); !errors.Is(err, errDenied) {
		t.Errorf("restore writing b's items without b: %v, want the guard's refusal", err)
	}
	if _, err := pitr("FromPITR", onlyA); !errors.Is(err, errDenied) {
		t.Errorf("point-in-time restore writing b's items without b: %v, want the guard's refusal", err)
	}
	l, err := ListBackups(db, ListBackupsInput{}, root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range l.BackupSummaries {
		names = append(names, s.BackupName)
	}
	if diff := gocmp.Diff([]string{"plain"}, names); diff != "" {
		t.Errorf("backups after the refusals (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{"Plain", "Src"}, rootEntries(t, db, root)); diff != "" {
		t.Errorf("directories under the root after refused restores (-want +got):\n%s", diff)
	}
	// Everything allowed: both restores run, every item asked for.
	for _, restore := range []func(g AccessGuard) (*Table, error){
		func(g AccessGuard) (*Table, error) {
			return RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "FromBackup"}, root, WithGuard(g))
		},
		func(g AccessGuard) (*Table, error) { return pitr("FromPITR", g) },
	} {
		c := &countingGuard{AccessGuard: everything}
		dst, err := restore(c)
		if err != nil {
			t.Fatal(err)
		}
		// The whole target's writes, asked at the start (a run may go on
		// in the background, unguarded), then each item's.
		if c.writes != 1+12 {
			t.Errorf("%s: the guard saw %d writes, want the whole table's and the 12 items'", dst.Name(), c.writes)
		}
		if dst.guard == nil {
			t.Errorf("%s: the restored table's handle is not guarded", dst.Name())
		}
	}
}

// countingGuard counts the writes its guard allows.
type countingGuard struct {
	AccessGuard
	writes int
}

func (g *countingGuard) Allow(a Access) error {
	err := g.AccessGuard.Allow(a)
	if err == nil && a.Write {
		g.writes++
	}
	return err
}

// rootEntries lists the directories under the test root option root.
func rootEntries(t *testing.T, db fdb.Database, root Option) []string {
	t.Helper()
	o, err := buildOptions([]Option{root})
	if err != nil {
		t.Fatal(err)
	}
	names, err := directory.Root().List(db, o.root)
	if err != nil {
		t.Fatal(err)
	}
	return names
}
