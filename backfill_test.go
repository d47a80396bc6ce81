package fdyno

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
)

// createByG is the UpdateTable request of the backfill tests: a GSI on
// g (S) and h (N), projecting ALL.
func createByG(name string, p Projection) UpdateTableInput {
	return UpdateTableInput{
		AttributeDefinitions: []AttributeDefinition{{"g", ScalarAttributeTypeS}, {"h", ScalarAttributeTypeN}},
		GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{
			IndexName: name, KeySchema: []KeySchemaElement{{"g", KeyTypeHash}, {"h", KeyTypeRange}}, Projection: p}}},
	}
}

var projectAll = Projection{ProjectionType: ProjectionTypeAll}

// preload writes n items p<i> of hashRange, most with g S and h N, some
// with g of another type (not indexed once the GSI declares S), some
// without g, some large.
func preload(t *testing.T, db fdb.Database, tbl *Table, n int) {
	t.Helper()
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		for i := range n {
			it := Item{"pk": S("p" + strconv.Itoa(i)), "sk": NInt(int64(i % 3)), "h": NInt(int64(i % 5))}
			switch i % 7 {
			case 0:
				it["g"] = NInt(1) // the wrong type for the index: not indexed
			case 1: // no g: not indexed
			case 2:
				it["g"], it["pad"] = S("big"), S(strings.Repeat("x", 20_000))
			default:
				it["g"] = S("g" + strconv.Itoa(i%4))
			}
			if _, err := tbl.Put(tr, PutInput{Item: it}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func describeGSI(t *testing.T, db fdb.Database, tbl *Table, name string) GlobalSecondaryIndexDescription {
	t.Helper()
	d, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range d.GlobalSecondaryIndexDescriptions {
		if g.IndexName == name {
			return g
		}
	}
	t.Fatalf("Describe has no GSI %s: %+v", name, d.GlobalSecondaryIndexDescriptions)
	return GlobalSecondaryIndexDescription{}
}

// A GSI added to a table holding data is CREATING and refused by Query
// until its backfill completes; a crashed (here: cancelled) backfill
// resumes from its cursor in another handle, and the index then equals
// its recomputation.
func TestBackfillResume(t *testing.T) {
	db, tbl := openTestTable(t, hashRange)
	preload(t, db, tbl, 50)
	d, err := tbl.UpdateTable(db, createByG("byG", projectAll))
	if err != nil {
		t.Fatal(err)
	}
	wantCreating := []GlobalSecondaryIndexDescription{{IndexName: "byG", IndexStatus: IndexStatusCreating, Backfilling: true}}
	if diff := gocmp.Diff(wantCreating, d.GlobalSecondaryIndexDescriptions); diff != "" {
		t.Errorf("UpdateTable description mismatch (-want +got):\n%s", diff)
	}
	q := QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]Value{":g": S("g3")}}
	if _, err := tbl.Query(db, q); !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "Cannot read from backfilling global secondary index: byG") {
		t.Fatalf("Query on a CREATING index = %v, want ValidationError", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var seen []BackfillProgress
	_, err = tbl.Backfill(ctx, db, BackfillInput{IndexName: "byG", BatchSize: 10, Progress: func(p BackfillProgress) {
		seen = append(seen, p)
		if p.ItemsScanned == 20 {
			cancel() // the process "crashes" after two batches
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Backfill after cancel = %v, want context.Canceled", err)
	}
	if g := describeGSI(t, db, tbl, "byG"); g.IndexStatus != IndexStatusCreating || !g.Backfilling || g.BackfillItems != 20 {
		t.Errorf("after two batches: %+v, want CREATING, backfilling, 20 items", g)
	}
	if p := tableProblems(db, tbl); len(p) > 0 {
		t.Fatalf("partial index: %q", p)
	}
	// Another process resumes.
	other := reopen(t, db, tbl)
	p, err := other.Backfill(t.Context(), db, BackfillInput{IndexName: "byG", BatchSize: 10, Progress: func(p BackfillProgress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if want := (BackfillProgress{IndexName: "byG", ItemsScanned: 50, Done: true}); p != want {
		t.Errorf("Backfill = %+v, want %+v", p, want)
	}
	for i, s := range seen {
		if want := int64(min(10*(i+1), 50)); s.ItemsScanned != want {
			t.Errorf("progress %d: %d items, want %d (resumed, not restarted)", i, s.ItemsScanned, want)
		}
	}
	if g := describeGSI(t, db, tbl, "byG"); g != (GlobalSecondaryIndexDescription{IndexName: "byG", IndexStatus: IndexStatusActive}) {
		t.Errorf("after the backfill: %+v, want ACTIVE", g)
	}
	out, err := tbl.Query(db, q)
	if err != nil {
		t.Fatal(err)
	}
	// Items p<i> with i%7 ≥ 3 and i%4 == 3, ordered by h then base key.
	var want []Item
	for i := range 50 {
		if i%7 >= 3 && i%4 == 3 {
			want = append(want, Item{"pk": S("p" + strconv.Itoa(i)), "sk": NInt(int64(i % 3)), "h": NInt(int64(i % 5)), "g": S("g3")})
		}
	}
	sortByHThenKey(want)
	if diff := gocmp.Diff(want, out.Items, itemCmp); diff != "" {
		t.Errorf("Query after backfill mismatch (-want +got):\n%s", diff)
	}
	// A second Backfill of an ACTIVE index is done at once.
	if p, err := tbl.Backfill(t.Context(), db, BackfillInput{IndexName: "byG"}); err != nil || !p.Done {
		t.Errorf("Backfill of an ACTIVE index = %+v, %v", p, err)
	}
}

func sortByHThenKey(items []Item) {
	less := func(a, b Item) bool {
		if c := compareKeyValues(a["h"], b["h"]); c != 0 {
			return c < 0
		}
		return a["pk"].S() < b["pk"].S()
	}
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			if less(items[j], items[i]) {
				items[i], items[j] = items[j], items[i]
			}
		}
	}
}

// backfillWriters runs writers on the preloaded keys until stop is
// closed: puts that add, change and remove g (always S: the index's type
// is enforced from its creation on) and deletes.
func backfillWriters(t *testing.T, tx fdb.Transactor, tbl *Table, n, workers int, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			for {
				select {
				case <-stop:
					return
				default:
				}
				i := r.IntN(n)
				key := Item{"pk": S("p" + strconv.Itoa(i)), "sk": NInt(int64(i % 3))}
				var err error
				switch r.IntN(4) {
				case 0:
					_, err = tbl.Delete(tx, DeleteInput{Key: key})
				case 1:
					_, err = tbl.Update(tx, UpdateInput{Key: key, UpdateExpression: "REMOVE g"})
				default:
					_, err = tbl.Update(tx, UpdateInput{Key: key, UpdateExpression: "SET g = :g, h = :h",
						ExpressionAttributeValues: map[string]Value{":g": S("g" + strconv.Itoa(r.IntN(4))), ":h": NInt(int64(r.IntN(3)))}})
				}
				if err != nil {
					t.Errorf("writer: %v", err)
					return
				}
			}
		}()
	}
	return &wg
}

// An online backfill with writers running: after every batch the index
// holds only right entries and every entry up to the cursor; at the end
// it equals its recomputation (checkTable at cleanup) and Query on it
// equals a filtered Scan of the table.
func TestBackfillOnline(t *testing.T) {
	for _, faults := range []bool{false, true} {
		t.Run("faults="+strconv.FormatBool(faults), func(t *testing.T) {
			db := fdblitetest.OpenIsolated(t)
			tbl := newTestTable(t, db, hashRange)
			const n = 120
			preload(t, db, tbl, n)
			var tx fdb.Transactor = db
			if faults {
				// From here on, writers, UpdateTable and every batch
				// meet injected faults.
				if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 31, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.1}); err != nil {
					t.Fatal(err)
				}
				tx = fdblitetest.Idempotent{DB: db}
			}
			stop := make(chan struct{})
			wg := backfillWriters(t, tx, tbl, n, 2, stop)
			if _, err := tbl.UpdateTable(tx, createByG("byG", Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"pad"}})); err != nil {
				t.Fatal(err)
			}
			var batches atomic.Int64
			_, err := tbl.Backfill(t.Context(), tx, BackfillInput{IndexName: "byG", BatchSize: 8, Progress: func(p BackfillProgress) {
				batches.Add(1)
				if p := tableProblems(db, tbl); len(p) > 0 {
					t.Errorf("after a batch (%+v): %q", p, p)
				}
			}})
			close(stop)
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if batches.Load() < 2 {
				t.Errorf("%d batches, want several", batches.Load())
			}
			if g := describeGSI(t, db, tbl, "byG"); g.IndexStatus != IndexStatusActive {
				t.Errorf("after the backfill: %+v", g)
			}
			var want []Item
			for it, err := range tbl.ScanAll(t.Context(), db, ScanInput{FilterExpression: "g = :g", ExpressionAttributeValues: map[string]Value{":g": S("g1")}}) {
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := it["h"]; ok {
					want = append(want, expectedProjection(tbl.state.Load().schema, []KeySchemaElement{{"g", KeyTypeHash}, {"h", KeyTypeRange}}, Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"pad"}}, it))
				}
			}
			sortByHThenKey(want)
			var got []Item
			for it, err := range tbl.QueryAll(t.Context(), db, QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]Value{":g": S("g1")}, Limit: 3}) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, it)
			}
			if diff := gocmp.Diff(want, got, itemCmp); diff != "" {
				t.Errorf("Query vs Scan (-want +got):\n%s", diff)
			}
		})
	}
}

// Deleting a GSI, ACTIVE or in the middle of its backfill, removes it and
// every entry at once (checkTable finds no orphans); the backfill then
// stops with a validation error, and the index is refused as unknown.
func TestDeleteIndex(t *testing.T) {
	db, tbl := openTestTable(t, hashRange)
	preload(t, db, tbl, 40)
	for _, name := range []string{"byG", "byG2"} {
		if _, err := tbl.UpdateTable(db, createByG(name, projectAll)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tbl.UpdateTable(db, UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"h", ScalarAttributeTypeN}}, GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{
		IndexName: "byH", KeySchema: []KeySchemaElement{{"h", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Backfill(t.Context(), db, BackfillInput{IndexName: "byH"}); err != nil {
		t.Fatal(err)
	}
	// byG is deleted while its backfill runs.
	deleted := false
	_, err := tbl.Backfill(t.Context(), db, BackfillInput{IndexName: "byG", BatchSize: 5, Progress: func(p BackfillProgress) {
		if p.ItemsScanned == 10 && !deleted {
			deleted = true
			if _, err := tbl.UpdateTable(db, UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byG"}}}}); err != nil {
				t.Error(err)
			}
		}
	}})
	if !errors.Is(err, ErrValidation) {
		t.Errorf("Backfill of an index deleted meanwhile = %v, want ErrValidation", err)
	}
	// byH is deleted when ACTIVE.
	d, err := tbl.UpdateTable(db, UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byH"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.GlobalSecondaryIndexes) != 1 || d.GlobalSecondaryIndexes[0].IndexName != "byG2" || len(d.AttributeDefinitions) != 4 {
		t.Errorf("after deletes: %+v", d.TableSchema)
	}
	for _, name := range []string{"byG", "byH"} {
		_, err := tbl.Query(db, QueryInput{IndexName: name, KeyConditionExpression: "h = :h", ExpressionAttributeValues: map[string]Value{":h": NInt(1)}})
		if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "The table does not have the specified index: "+name) {
			t.Errorf("Query on deleted %s = %v", name, err)
		}
	}
	// The entries are gone: recreating byH starts empty and fills again.
	if _, err := tbl.UpdateTable(db, UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"h", ScalarAttributeTypeN}}, GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{
		IndexName: "byH", KeySchema: []KeySchemaElement{{"h", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	if p := tableProblems(db, tbl); len(p) > 0 {
		t.Fatalf("after recreate: %q", p)
	}
}

// UpdateTable's validation, with DynamoDB's exception categories.
func TestUpdateTableErrors(t *testing.T) {
	db, tbl := openTestTable(t, indexed)
	create := func(name string, ks []KeySchemaElement, p Projection, defs ...AttributeDefinition) UpdateTableInput {
		return UpdateTableInput{AttributeDefinitions: defs, GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: name, KeySchema: ks, Projection: p}}}}
	}
	del := func(name string) GlobalSecondaryIndexUpdate {
		return GlobalSecondaryIndexUpdate{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: name}}
	}
	hashN := []KeySchemaElement{{"n", KeyTypeHash}}
	for _, tc := range []struct {
		name string
		in   UpdateTableInput
		want error
		msg  string
	}{
		{"no update", UpdateTableInput{}, ErrValidation, "exactly one"},
		{"two updates", UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{del("byG"), del("byK")}}, ErrValidation, "exactly one"},
		{"create and delete in one", UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "x12"}, Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byG"}}}}, ErrValidation, "exactly one of Create and Delete"},
		{"bad name", create("a", hashN, projectAll, AttributeDefinition{"n", ScalarAttributeTypeN}), ErrValidation, "at least 3 characters"},
		{"name in use by a GSI", create("byG", hashN, projectAll, AttributeDefinition{"n", ScalarAttributeTypeN}), ErrValidation, "Index with name: byG already exists"},
		{"name in use by an LSI", create("byL", hashN, projectAll, AttributeDefinition{"n", ScalarAttributeTypeN}), ErrValidation, "Index with name: byL already exists"},
		{"undefined key", create("byN", hashN, projectAll), ErrValidation, "not defined in AttributeDefinitions"},
		{"unused definition", create("byN", hashN, projectAll, AttributeDefinition{"n", ScalarAttributeTypeN}, AttributeDefinition{"m", ScalarAttributeTypeN}), ErrValidation, "Some AttributeDefinitions are not used"},
		{"type change", create("byN", []KeySchemaElement{{"g", KeyTypeHash}}, projectAll, AttributeDefinition{"g", ScalarAttributeTypeN}), ErrValidation,
			"One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. " +
				"Existing schema: Schema:[SchemaElement: key{g:S:HASH}, SchemaElement: key{h:N:RANGE}] New schema: Schema:[SchemaElement: key{g:N:HASH}]"},
		// A key attribute the table already defines (here for an LSI, or
		// the table's own sort key) must still be defined in the request.
		{"LSI key not redefined", create("byLG", []KeySchemaElement{{"l", KeyTypeHash}}, projectAll), ErrValidation,
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [l], AttributeDefinitions: []"},
		{"table key not redefined", create("bySK", []KeySchemaElement{{"l", KeyTypeHash}, {"sk", KeyTypeRange}}, projectAll, AttributeDefinition{"l", ScalarAttributeTypeS}), ErrValidation,
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [l, sk], AttributeDefinitions: [l]"},
		// DynamoDB checks the request's attribute names before it looks
		// for undefined index keys (issue 37: an over-long name is
		// reported first).
		{"long name before undefined key", create("byN", []KeySchemaElement{{"x", KeyTypeHash}}, projectAll, AttributeDefinition{strings.Repeat("a", MaxKeyAttributeNameLength+1), ScalarAttributeTypeS}), ErrValidation,
			"key attribute names must be 1 to 255 bytes"},
		{"duplicate definition", create("byN", hashN, projectAll, AttributeDefinition{"n", ScalarAttributeTypeN}, AttributeDefinition{"n", ScalarAttributeTypeN}), ErrValidation,
			"Attribute Name is duplicated: n"},
		{"duplicate NonKeyAttributes", create("byN", hashN, Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"x", "y", "x"}}, AttributeDefinition{"n", ScalarAttributeTypeN}), ErrValidation,
			"Cannot have two attributes with the same name"},
		{"bad projection", create("byN", hashN, Projection{ProjectionType: ProjectionTypeKeysOnly, NonKeyAttributes: []string{"x"}}, AttributeDefinition{"n", ScalarAttributeTypeN}), ErrValidation, "NonKeyAttributes is specified"},
		{"definitions with a delete", UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"n", ScalarAttributeTypeN}}, GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{del("byG")}}, ErrValidation, "only be given with a Create"},
		{"delete unknown", UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{del("nope")}}, ErrResourceNotFound, "Index: nope not found"},
		{"delete an LSI", UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{del("byL")}}, ErrResourceNotFound, "Index: byL not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tbl.UpdateTable(db, tc.in)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("UpdateTable = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
	// Nothing changed.
	d, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if !sameSchema(d.TableSchema, indexed) {
		t.Errorf("schema changed by failed UpdateTables: %+v", d.TableSchema)
	}
	if _, err := tbl.Backfill(t.Context(), db, BackfillInput{IndexName: "byL"}); !errors.Is(err, ErrValidation) {
		t.Errorf("Backfill of an LSI = %v, want ErrValidation", err)
	}
	if _, err := tbl.Backfill(t.Context(), db, BackfillInput{IndexName: "byG", BatchSize: -1}); !errors.Is(err, ErrValidation) {
		t.Errorf("Backfill with BatchSize -1 = %v, want ErrValidation", err)
	}
}

// FuzzBackfillCursor: decoding any bytes never panics, and whatever
// decodes re-encodes to the same bytes.
func FuzzBackfillCursor(f *testing.F) {
	f.Add(backfillCursor{}.encode())
	f.Add(backfillCursor{items: 1234, kv: []byte("\x02p1\x00\x01\x03\x81\x00")}.encode())
	f.Add([]byte{0x01, 0x80})
	f.Add([]byte{0x01, 0x00, 0x02, 'a'})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeBackfillCursor(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if got := c.encode(); string(got) != string(b) {
			t.Fatalf("decode(%x) re-encodes to %x", b, got)
		}
	})
}
