package fdyno

import (
	"errors"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
)

// itemsCounts returns the count and DynamoDB size of items.
func itemsCounts(items map[string]Item) Counts {
	var c Counts
	for _, it := range items {
		c.ItemCount++
		c.SizeBytes += int64(it.Size())
	}
	return c
}

// A restored table keeps exact counts, whatever its source kept: a
// backup's restore counts the items of the backup, a restore to a point
// in time those of that point, including a source created before
// counters (which a restore counts from the start); a source created
// WithoutCounts restores without. checkTable recomputes every counter of
// the restored tables (index and item collection counters included).
func TestRestoreCounts(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Src", root, WithSchema(backupSchema), WithChunkThreshold(400))
	legacy := mustOpen(t, db, "Legacy", root, WithSchema(backupSchema))
	makeLegacy(t, db, legacy)
	blindSchema := backupSchema
	blindSchema.WithoutCounts = true
	blind := mustOpen(t, db, "Blind", root, WithSchema(blindSchema))
	for i := range 20 {
		for _, tbl := range []*Table{src, legacy, blind} {
			mustPut(t, db, tbl, backupItem("p"+strconv.Itoa(i%3), i, i, (i%3)*300))
		}
	}
	if _, err := src.UpdateContinuousBackups(db, true, 0); err != nil {
		t.Fatal(err)
	}
	atBackup := tableItems(t, db, src)
	backups := map[string]string{}
	for _, tbl := range []*Table{src, legacy, blind} {
		b, err := tbl.createBackup(db, "backup", 7)
		if err != nil {
			t.Fatal(err)
		}
		backups[tbl.name] = b.BackupID
	}
	// Writes after the backups: in the point-in-time restore only.
	mustPut(t, db, src, backupItem("p9", 99, 99, 0))
	if _, err := src.Delete(db, DeleteInput{Key: Item{"pk": S("p0"), "sk": NInt(0)}}); err != nil {
		t.Fatal(err)
	}
	now := tableItems(t, db, src)
	check := func(name string, tbl *Table, want map[string]Item) {
		t.Helper()
		checkTable(t, db, tbl)
		got, err := tbl.Count(db)
		if err != nil {
			t.Fatalf("%s: Count: %v", name, err)
		}
		if d := gocmp.Diff(itemsCounts(want), got); d != "" {
			t.Errorf("%s: Count (-items +got):\n%s", name, d)
		}
	}
	for _, name := range []string{"Src", "Legacy"} {
		dst, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: backups[name], TargetTableName: name + "Copy"}, root)
		if err != nil {
			t.Fatal(err)
		}
		check(name+"Copy", dst, atBackup)
	}
	pit, err := RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Src", TargetTableName: "Now", UseLatestRestorableTime: true}, root)
	if err != nil {
		t.Fatal(err)
	}
	check("Now", pit, now)
	if want, err := src.IndexCount(db, "byG"); err != nil {
		t.Fatal(err)
	} else if got, err := pit.IndexCount(db, "byG"); err != nil || got != want {
		t.Errorf("IndexCount(byG) of the point-in-time restore = %+v, %v; the source's %+v", got, err, want)
	}
	dst, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: backups["Blind"], TargetTableName: "BlindCopy"}, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Count(db); !errors.Is(err, ErrCountsDisabled) {
		t.Errorf("Count of a restore of a table WithoutCounts = %v, want ErrCountsDisabled", err)
	}
}

// restoreUniqueSchema has a unique GSI on e.
var restoreUniqueSchema = TableSchema{
	KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"e", ScalarAttributeTypeS}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "byE", Unique: true, KeySchema: []KeySchemaElement{{"e", KeyTypeHash}},
		Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}},
}

// hiddenTables returns the restores' hidden directories under root.
func hiddenTables(t *testing.T, db fdb.Database, root Option) []string {
	t.Helper()
	var o options
	root(&o)
	names, err := directory.Root().List(db, o.root)
	if err != nil {
		t.Fatal(err)
	}
	var hidden []string
	for _, n := range names {
		if len(n) > 0 && n[0] == '!' {
			hidden = append(hidden, n)
		}
	}
	return hidden
}

// A restore never makes a table that breaks a unique index. A backup of
// a table whose unique index held restores with it, and the restored
// index refuses a duplicate. A backup taken while a unique index was
// CREATING over duplicates (its backfill would fail) holds items the
// index cannot take: the restore fails with a *DuplicateKeysError
// listing the items of the shared key, and leaves no table, hidden or
// not; without the index (GlobalSecondaryIndexOverride) it succeeds.
func TestRestoreUnique(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	good := mustOpen(t, db, "Good", root, WithSchema(restoreUniqueSchema))
	for i, e := range []string{"x", "y", "z"} {
		mustPut(t, db, good, Item{"pk": S("k" + strconv.Itoa(i)), "e": S(e)})
	}
	b, err := good.CreateBackup(db, "good")
	if err != nil {
		t.Fatal(err)
	}
	copied, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "GoodCopy"}, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := copied.Put(db, PutInput{Item: Item{"pk": S("k9"), "e": S("y")}}); !errors.Is(err, ErrUniqueViolation) {
		t.Errorf("Put of a duplicate into the restored table = %v, want ErrUniqueViolation", err)
	}
	// An override keeps or drops an index; it does not change its
	// uniqueness (DynamoDB's override names indexes of the backup, and
	// its model has no Unique).
	kept := restoreUniqueSchema.GlobalSecondaryIndexes[0]
	kept.Unique = false
	copied, err = RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "GoodKept",
		GlobalSecondaryIndexOverride: []GlobalSecondaryIndex{kept}}, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := copied.Put(db, PutInput{Item: Item{"pk": S("k9"), "e": S("y")}}); !errors.Is(err, ErrUniqueViolation) {
		t.Errorf("Put of a duplicate into the table restored with the index kept = %v, want ErrUniqueViolation", err)
	}

	plain := restoreUniqueSchema.clone()
	plain.GlobalSecondaryIndexes = nil
	plain.AttributeDefinitions = plain.AttributeDefinitions[:1]
	bad := mustOpen(t, db, "Bad", root, WithSchema(plain))
	for i, e := range []string{"x", "dup", "y", "dup"} {
		mustPut(t, db, bad, Item{"pk": S("k" + strconv.Itoa(i)), "e": S(e)})
	}
	if _, err := bad.UpdateTable(db, UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"e", ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "byE", Unique: true,
			KeySchema: []KeySchemaElement{{"e", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	b, err = bad.CreateBackup(db, "creating") // byE is CREATING: not backfilled
	if err != nil {
		t.Fatal(err)
	}
	_, err = RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "BadCopy"}, root)
	var dk *DuplicateKeysError
	if !errors.Is(err, ErrUniqueViolation) || !errors.As(err, &dk) || dk.Index != "byE" {
		t.Fatalf("restore over duplicates = %v, want a DuplicateKeysError of byE", err)
	}
	if d := gocmp.Diff([]Item{{"pk": S("k1")}, {"pk": S("k3")}}, dk.Keys, itemCmp); d != "" {
		t.Errorf("duplicates (-want +got):\n%s", d)
	}
	if _, err := Open(db, "BadCopy", root); !errors.Is(err, ErrResourceNotFound) {
		t.Errorf("Open of the failed restore's table = %v, want ErrResourceNotFound", err)
	}
	if h := hiddenTables(t, db, root); h != nil {
		t.Errorf("hidden tables left: %q", h)
	}
	without, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "BadCopy",
		GlobalSecondaryIndexOverride: []GlobalSecondaryIndex{}}, root)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tableItems(t, db, without)); n != 4 {
		t.Errorf("restore without the index: %d items, want 4", n)
	}
}

// hookDB runs after once, after the first transaction for which ready
// reports true.
type hookDB struct {
	fdb.Database
	ready func() bool
	after func()
	fired *bool
}

func (h hookDB) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	r, err := h.Database.Transact(f)
	if err == nil && !*h.fired && h.ready() {
		*h.fired = true
		h.after()
	}
	return r, err
}

// Point-in-time recovery scans its base over many versions: an item
// scanned before a write moved its unique key to another item scanned
// after shows both with the key in the base, a duplicate that no version
// of the table held and that the log replay removes. A restore judges
// the table it built, not its steps: it succeeds, with the state after
// the write; and a restore to a point where the source held a duplicate
// (after the unique index was deleted) fails.
func TestRestoreUniquePointInTime(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Src", root, WithSchema(restoreUniqueSchema))
	mustPut(t, db, src, Item{"pk": S("a"), "e": S("x")})
	mustPut(t, db, src, Item{"pk": S("b"), "e": S("y")})
	// keys returns the root's backup keys and the recovery base's id.
	keys := func(tr fdb.Transaction) (backupKeys, string, error) {
		_, meta, err := src.loadMeta(tr)
		if err != nil {
			return backupKeys{}, "", err
		}
		k, err := rootKeys(tr, src)
		return k, pitrID(meta.tableID), err
	}
	fired := false
	hook := hookDB{Database: db, fired: &fired,
		// The scan has copied a (batches of 1 item), and not b.
		ready: func() bool {
			b, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				k, id, err := keys(tr)
				if err != nil {
					return nil, err
				}
				return getBackup(tr, k, id)
			})
			return err == nil && b.(*storedBackup).Phase == phaseScan && b.(*storedBackup).Cursor != nil
		},
		// a gives x up for z, and b takes x, in one transaction.
		after: func() {
			if _, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
				{Put: &TransactPut{Table: src, Item: Item{"pk": S("a"), "e": S("z")}}},
				{Put: &TransactPut{Table: src, Item: Item{"pk": S("b"), "e": S("x")}}},
			}}); err != nil {
				t.Error(err)
			}
		}}
	if _, err := src.updateContinuousBackups(hook, true, 0, 1); err != nil {
		t.Fatal(err)
	}
	if !fired {
		t.Fatal("the writes between the scan's batches did not run")
	}
	cp, err := RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Src", TargetTableName: "Copy", UseLatestRestorableTime: true}, root)
	if err != nil {
		t.Fatalf("restore of a unique state through a base holding a passing duplicate: %v", err)
	}
	want := map[string]Item{"a/": {"pk": S("a"), "e": S("z")}, "b/": {"pk": S("b"), "e": S("x")}}
	if d := gocmp.Diff(want, tableItems(t, db, cp), itemCmp); d != "" {
		t.Errorf("restored items (-want +got):\n%s", d)
	}
	checkTable(t, db, cp)

	// The index deleted, a duplicate written: the recovery base's schema
	// still has the index, and the state now breaks it.
	if _, err := src.UpdateTable(db, UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byE"}}}}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, src, Item{"pk": S("c"), "e": S("x")})
	_, err = RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Src", TargetTableName: "Copy2", UseLatestRestorableTime: true}, root)
	var dk *DuplicateKeysError
	if !errors.As(err, &dk) || dk.Index != "byE" || len(dk.Keys) != 2 {
		t.Fatalf("restore of a state with a duplicate = %v, want a DuplicateKeysError of byE and 2 items", err)
	}
	if h := hiddenTables(t, db, root); h != nil {
		t.Errorf("hidden tables left: %q", h)
	}
}
