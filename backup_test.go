package fdyno

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testseed"
	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// backupSchema has a sort key, a GSI and an LSI, so restores rebuild
// both kinds of index.
var backupSchema = TableSchema{
	KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN},
		{"g", ScalarAttributeTypeS}, {"l", ScalarAttributeTypeN}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "byG",
		KeySchema: []KeySchemaElement{{"g", KeyTypeHash}, {"sk", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}},
	LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "byL",
		KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"l", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}},
	StreamViewType: StreamViewTypeNewImage,
}

// tableItems returns every item of tbl by its key.
func tableItems(t fataler, db fdb.Database, tbl *Table) map[string]Item {
	t.Helper()
	out := map[string]Item{}
	for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		out[itemKeyString(it)] = it
	}
	return out
}

func itemKeyString(it Item) string { return it["pk"].S() + "/" + it["sk"].N() }

// indexKeys returns the base keys an index scan returns, in index order.
func indexKeys(t testing.TB, db fdb.Database, tbl *Table, index string) []string {
	t.Helper()
	var out []string
	for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{IndexName: index}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, itemKeyString(it))
	}
	return out
}

func backupItem(pk string, sk int, v int, pad int) Item {
	it := Item{"pk": S(pk), "sk": NInt(int64(sk)), "v": NInt(int64(v))}
	if v%3 != 0 {
		it["g"] = S("g" + strconv.Itoa(v%4))
	}
	if v%2 == 0 {
		it["l"] = NInt(int64(v % 5))
	}
	if pad > 0 {
		it["pad"] = S(strings.Repeat("x", pad))
	}
	return it
}

// A backup restores to a table equal to the source at the backup's
// version, with its indexes, without the stream; the operations around
// it answer with DynamoDB's errors.
func TestBackupRestore(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Src", root, WithSchema(backupSchema), WithChunkThreshold(400))
	for i := range 30 {
		mustPut(t, db, src, backupItem("p"+strconv.Itoa(i%4), i, i, (i%3)*300))
	}
	want := tableItems(t, db, src)
	b, err := src.createBackup(db, "first", 7)
	if err != nil {
		t.Fatal(err)
	}
	if b.BackupStatus != BackupStatusAvailable || b.ItemCount != 30 || b.TableName != "Src" || b.BackupType != BackupTypeUser || b.Version == 0 {
		t.Errorf("backup = %+v", b)
	}
	// Writes after the backup are not in it.
	mustPut(t, db, src, backupItem("p9", 99, 99, 0))
	if _, err := src.Delete(db, DeleteInput{Key: Item{"pk": S("p0"), "sk": NInt(0)}}); err != nil {
		t.Fatal(err)
	}

	got, err := DescribeBackup(db, b.BackupID, root)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(b, got); diff != "" {
		t.Errorf("DescribeBackup (-create +describe):\n%s", diff)
	}
	dst, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "Dst"}, root)
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, db, dst)
	if diff := gocmp.Diff(want, tableItems(t, db, dst), itemCmp); diff != "" {
		t.Errorf("restored items (-want +got):\n%s", diff)
	}
	for _, ix := range []string{"byG", "byL"} {
		if diff := gocmp.Diff(indexKeys(t, db, src.withItems(t, db, want, "Ref"+ix, root), ix), indexKeys(t, db, dst, ix)); diff != "" {
			t.Errorf("index %s (-want +got):\n%s", ix, diff)
		}
	}
	d, err := dst.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if d.TableSchema.StreamViewType != "" || len(d.TableSchema.GlobalSecondaryIndexes) != 1 || len(d.TableSchema.LocalSecondaryIndexes) != 1 {
		t.Errorf("restored schema = %+v, want the indexes and no stream", d.TableSchema)
	}
	names, err := ListTables(db, root)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff([]string{"Dst", "RefbyG", "RefbyL", "Src"}, names); diff != "" {
		t.Errorf("ListTables (-want +got):\n%s", diff)
	}

	// Errors.
	_, err = RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "Dst"}, root)
	if !errors.Is(err, ErrTableAlreadyExists) {
		t.Errorf("restore onto an existing table: %v, want TableAlreadyExistsException", err)
	}
	if _, err := DescribeBackup(db, "1-nope", root); !errors.Is(err, ErrBackupNotFound) {
		t.Errorf("DescribeBackup of no backup: %v", err)
	}
	if _, err := src.CreateBackup(db, "x"); !errors.Is(err, ErrValidation) {
		t.Errorf("CreateBackup with a 1-character name: %v", err)
	}
	_, err = RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "Dst2",
		GlobalSecondaryIndexOverride: []GlobalSecondaryIndex{{IndexName: "other", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}}}, root)
	if !errors.Is(err, ErrValidation) {
		t.Errorf("override with an index the backup lacks: %v", err)
	}
	// Overrides drop indexes.
	noIx, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "NoIndexes",
		GlobalSecondaryIndexOverride: []GlobalSecondaryIndex{}, LocalSecondaryIndexOverride: []LocalSecondaryIndex{}}, root)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := noIx.Describe(db); err != nil || len(d.TableSchema.GlobalSecondaryIndexes)+len(d.TableSchema.LocalSecondaryIndexes) != 0 || len(d.TableSchema.AttributeDefinitions) != 2 {
		t.Errorf("restore without indexes: %+v, %v", d, err)
	}
	checkTable(t, db, noIx)

	// ListBackups filters and pages.
	b2, err := src.CreateBackup(db, "second")
	if err != nil {
		t.Fatal(err)
	}
	list, err := ListBackups(db, ListBackupsInput{TableName: "Src", Limit: 1}, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.BackupSummaries) != 1 || list.BackupSummaries[0].BackupID != b.BackupID || list.LastEvaluatedBackupID != b.BackupID {
		t.Errorf("ListBackups page 1 = %+v", list)
	}
	list, err = ListBackups(db, ListBackupsInput{TableName: "Src", ExclusiveStartBackupID: list.LastEvaluatedBackupID}, root)
	if err != nil || len(list.BackupSummaries) != 1 || list.BackupSummaries[0].BackupID != b2.BackupID || list.LastEvaluatedBackupID != "" {
		t.Errorf("ListBackups page 2 = %+v, %v", list, err)
	}
	if list, err := ListBackups(db, ListBackupsInput{TableName: "Dst"}, root); err != nil || len(list.BackupSummaries) != 0 {
		t.Errorf("ListBackups of a table without backups = %+v, %v", list, err)
	}
	if list, err := ListBackups(db, ListBackupsInput{BackupType: "SYSTEM"}, root); err != nil || len(list.BackupSummaries) != 0 {
		t.Errorf("ListBackups SYSTEM = %+v, %v", list, err)
	}
	del, err := DeleteBackup(db, b.BackupID, root)
	if err != nil || del.BackupStatus != BackupStatusDeleted {
		t.Fatalf("DeleteBackup = %+v, %v", del, err)
	}
	if _, err := DeleteBackup(db, b.BackupID, root); !errors.Is(err, ErrBackupNotFound) {
		t.Errorf("second DeleteBackup: %v", err)
	}
	if _, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "Gone"}, root); !errors.Is(err, ErrBackupNotFound) {
		t.Errorf("restore of a deleted backup: %v", err)
	}
	checkTable(t, db, src)
	if n := backupLogLen(t, db, src); n != 0 {
		t.Errorf("%d log records left after the backups, want 0", n)
	}
}

// withItems creates table name holding exactly items, written by plain
// Puts: the reference a restored table's indexes are compared with.
func (t *Table) withItems(tb testing.TB, db fdb.Database, items map[string]Item, name string, root Option) *Table {
	tb.Helper()
	st := t.state.Load()
	ref, err := Open(db, name, root, WithSchema(st.schema))
	if err != nil {
		tb.Fatal(err)
	}
	for _, it := range items {
		if _, err := ref.Put(db, PutInput{Item: it}); err != nil {
			tb.Fatal(err)
		}
	}
	return ref
}

func backupLogLen(t fataler, db fdb.Database, tbl *Table) int {
	t.Helper()
	n, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		st, err := tbl.load(rt, nil)
		if err != nil {
			return 0, err
		}
		kvs, err := rt.GetRange(st.keys.backupLog, fdb.RangeOptions{}).GetSliceWithError()
		return len(kvs), err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n.(int)
}

// The rapid model: random puts, updates, deletes and transactions run
// between the steps of a backup (each step is one of its transactions,
// a batch of 1-3 items or log records); the table restored from it
// equals the model as it was when the backup's stop step committed (V),
// items and every index (checkTable checks each index against the items;
// the item sets are compared with the model).
func TestBackupModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		src, err := Open(db, "Model"+strconv.Itoa(n), root, WithSchema(backupSchema), WithChunkThreshold(300))
		if err != nil {
			rt.Fatal(err)
		}
		model := map[string]Item{}
		write := func(rt *rapid.T) {
			pk := "p" + strconv.Itoa(rapid.IntRange(0, 2).Draw(rt, "pk"))
			sk := rapid.IntRange(0, 5).Draw(rt, "sk")
			key := Item{"pk": S(pk), "sk": NInt(int64(sk))}
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0, 1:
				it := backupItem(pk, sk, rapid.IntRange(0, 20).Draw(rt, "v"), rapid.SampledFrom([]int{0, 0, 500}).Draw(rt, "pad"))
				if _, err := src.Put(db, PutInput{Item: it}); err != nil {
					rt.Fatal(err)
				}
				model[itemKeyString(it)] = it
			case 2:
				if _, err := src.Delete(db, DeleteInput{Key: key}); err != nil {
					rt.Fatal(err)
				}
				delete(model, itemKeyString(key))
			case 3:
				// Two items in one transaction, one of them written twice:
				// the log keeps the item's state after the transaction.
				a := backupItem(pk, sk, 1, 0)
				b := backupItem(pk, (sk+1)%6, 2, 0)
				_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					for _, it := range []Item{a, b, backupItem(pk, sk, 4, 0)} {
						if _, err := src.Put(tr, PutInput{Item: it}); err != nil {
							return nil, err
						}
					}
					return nil, nil
				})
				if err != nil {
					rt.Fatal(err)
				}
				model[itemKeyString(a)] = backupItem(pk, sk, 4, 0)
				model[itemKeyString(b)] = b
			}
		}
		for range rapid.IntRange(0, 15).Draw(rt, "before") {
			write(rt)
		}
		r, err := src.startBackup(db, "model", BackupTypeUser, rapid.IntRange(1, 3).Draw(rt, "batch"))
		if err != nil {
			rt.Fatal(err)
		}
		var atV map[string]Item
		for {
			for range rapid.IntRange(0, 3).Draw(rt, "writes") {
				write(rt)
			}
			b, err := Transact(db, r.step)
			if err != nil {
				rt.Fatal(err)
			}
			if b.Phase == phaseFold && atV == nil {
				atV = cloneModel(model) // the stop step just committed
			}
			if b.Phase == phaseDone {
				break
			}
		}
		name := "Restored" + strconv.Itoa(n)
		dst, err := restoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: r.id, TargetTableName: name}, rapid.IntRange(1, 4).Draw(rt, "restoreBatch"), root)
		if err != nil {
			rt.Fatal(err)
		}
		for _, p := range tableProblems(db, dst) {
			rt.Error(p)
		}
		if diff := gocmp.Diff(atV, tableItems(rt, db, dst), itemCmp); diff != "" {
			rt.Fatalf("restored table (-model at V +got):\n%s", diff)
		}
		d, err := DescribeBackup(db, r.id, root)
		if err != nil || d.ItemCount != int64(len(atV)) {
			rt.Fatalf("DescribeBackup = %+v, %v; want ItemCount %d", d, err, len(atV))
		}
		if n := backupLogLen(rt, db, src); n != 0 {
			rt.Fatalf("%d log records left", n)
		}
		if err := DeleteTable(db, name, root); err != nil {
			rt.Fatal(err)
		}
		if err := DeleteTable(db, src.name, root); err != nil {
			rt.Fatal(err)
		}
	})
}

func cloneModel(m map[string]Item) map[string]Item {
	out := make(map[string]Item, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// A backup of a table read over many transactions, with writers running
// during it, holds exactly the writes committed before its version: each
// writer records the commit version of each of its writes, and the model
// at V is the initial items plus the writes with versions below V.
func TestBackupManyTransactionsWithWriters(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Big", root, WithSchema(backupSchema))
	const initial, batch = 1200, 40
	pad := strings.Repeat("y", 1000)
	want := map[string]Item{}
	for i := 0; i < initial; i += 100 {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			for j := i; j < i+100; j++ {
				if _, err := src.Put(tr, PutInput{Item: Item{"pk": S("b" + strconv.Itoa(j%50)), "sk": NInt(int64(j)), "pad": S(pad), "g": S("x")}}); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want = tableItems(t, db, src)

	type write struct {
		version int64
		key     string
		item    Item // nil: deleted
	}
	var mu sync.Mutex
	var writes []write
	stop := make(chan struct{})
	done := make(chan error, 3)
	for w := range 3 {
		go func() {
			done <- func() error {
				tr, err := db.CreateTransaction()
				if err != nil {
					return err
				}
				for n := 0; ; n++ {
					select {
					case <-stop:
						return nil
					default:
					}
					// Writers touch their own keys and the initial ones.
					it := backupItem("w"+strconv.Itoa(w), n%25, n, 0)
					if n%4 == 3 {
						it = Item{"pk": S("b" + strconv.Itoa(n%50)), "sk": NInt(int64((n*7 + w) % initial)), "v": NInt(int64(n))}
					}
					del := n%5 == 4
					for {
						var err error
						if del {
							_, err = src.Delete(tr, DeleteInput{Key: Item{"pk": it["pk"], "sk": it["sk"]}})
						} else {
							_, err = src.Put(tr, PutInput{Item: it})
						}
						if err == nil {
							err = tr.Commit().Get()
						}
						if err == nil {
							break
						}
						var fe fdb.Error
						if !errors.As(err, &fe) {
							return err
						}
						if err := tr.OnError(fe).Get(); err != nil {
							return err
						}
					}
					v, err := tr.GetCommittedVersion()
					if err != nil {
						return err
					}
					rec := write{version: v, key: itemKeyString(it), item: it}
					if del {
						rec.item = nil
					}
					mu.Lock()
					writes = append(writes, rec)
					mu.Unlock()
					tr.Reset()
				}
			}()
		}()
	}
	r, err := src.startBackup(db, "big", BackupTypeUser, batch)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for {
		b, err := Transact(db, r.step)
		if err != nil {
			t.Fatal(err)
		}
		steps++
		if b.Phase == phaseDone {
			break
		}
	}
	close(stop)
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if steps < initial/batch {
		t.Errorf("the backup took %d transactions, want at least %d", steps, initial/batch)
	}
	d, err := DescribeBackup(db, r.id, root)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(writes, func(a, b write) int { return cmp.Compare(a.version, b.version) })
	during := 0
	for _, w := range writes {
		if w.version >= d.Version {
			break
		}
		during++
		if w.item == nil {
			delete(want, w.key)
		} else {
			want[w.key] = w.item
		}
	}
	if during == 0 || during == len(writes) {
		t.Logf("%d of %d writes before V: the writers did not overlap the backup well", during, len(writes))
	}
	dst, err := restoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: r.id, TargetTableName: "BigCopy"}, 50, root)
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, db, dst)
	if diff := gocmp.Diff(want, tableItems(t, db, dst), itemCmp); diff != "" {
		t.Errorf("restored (-want at V +got):\n%s", diff)
	}
	t.Logf("%d items, %d backup transactions, %d concurrent writes, %d before V", len(want), steps, len(writes), during)
}

// Under injected faults (retryable errors, commits that fail or report an
// unknown result), a backup and a restore neither lose nor double an
// item: every step records its progress in its own transaction.
func TestBackupUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(testseed.Seed(t, "FDYNO_BACKUP_FAULT_SEED")))
	// The database is the test's own: the default root.
	src := mustOpen(t, db, "Faulty", WithSchema(backupSchema), WithChunkThreshold(400))
	for i := range 60 {
		mustPut(t, db, src, backupItem("p"+strconv.Itoa(i%5), i, i, (i%3)*300))
	}
	want := tableItems(t, db, src)
	b, err := src.createBackup(db, "faulty", 7)
	if err != nil {
		t.Fatal(err)
	}
	if b.ItemCount != int64(len(want)) {
		t.Errorf("ItemCount = %d, want %d", b.ItemCount, len(want))
	}
	dst, err := restoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: b.BackupID, TargetTableName: "FaultyCopy"}, 9)
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, db, dst)
	if diff := gocmp.Diff(want, tableItems(t, db, dst), itemCmp); diff != "" {
		t.Errorf("restored (-want +got):\n%s", diff)
	}
	checkTable(t, db, src)
}

// A table deleted while its backup runs ends the backup with
// ResourceNotFoundException and leaves no backup behind.
func TestBackupOfDeletedTable(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Doomed", root, WithSchema(backupSchema))
	for i := range 10 {
		mustPut(t, db, src, backupItem("p", i, i, 0))
	}
	r, err := src.startBackup(db, "doomed", BackupTypeUser, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Transact(db, r.step); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTable(db, "Doomed", root); err != nil {
		t.Fatal(err)
	}
	if _, err := r.run(db); !errors.Is(err, ErrResourceNotFound) {
		t.Fatalf("backup of a deleted table: %v, want ResourceNotFoundException", err)
	}
	if _, err := DescribeBackup(db, r.id, root); !errors.Is(err, ErrBackupNotFound) {
		t.Errorf("the backup of a deleted table: %v, want BackupNotFoundException", err)
	}
}
