package fdyno

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// makeLegacy turns tbl into a table as a version before counters left
// it: metadata neither counted nor counting, stored as that version
// stored it, and no counters. Writes to it count nothing until its
// counting pass starts.
func makeLegacy(t testing.TB, db fdb.Database, tbl *Table) {
	t.Helper()
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		st, meta, err := tbl.loadMeta(tr)
		if err != nil {
			return nil, err
		}
		meta.counted, meta.counting = false, false
		if err := putMeta(tr, st.keys, meta); err != nil {
			return nil, err
		}
		tr.ClearRange(st.keys.counts)
		bumpMetadataVersion(tr)
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// storedFormatVersion returns the FormatVersion tbl's metadata is stored
// under.
func storedFormatVersionOf(t testing.TB, db fdb.Database, tbl *Table) int {
	t.Helper()
	raw, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		st, err := tbl.current(rt, rt.Get(metadataVersionKey))
		if err != nil {
			return nil, err
		}
		return rt.Get(st.keys.meta).Get()
	})
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ FormatVersion int }
	if err := json.Unmarshal(raw.([]byte), &s); err != nil {
		t.Fatal(err)
	}
	return s.FormatVersion
}

// countsStep runs one transaction of tbl's counting pass.
func countsStep(db fdb.Database, tbl *Table, batch int) (BuildCountsProgress, error) {
	return Transact(db, func(tr fdb.Transaction) (BuildCountsProgress, error) { return tbl.buildCountsBatch(tr, batch) })
}

// The counting pass counts what DynamoDB's item sizes say (the items of
// TestCounts, and one stored in chunks): the table's, each index's and
// each item collection's counts, one batch per item; until it is done the
// count calls answer ErrCountsNotReady, and its start stores the
// metadata as FormatVersion 4.
func TestBuildCounts(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, countSchema, WithChunkThreshold(100))
	makeLegacy(t, db, tbl)
	// As in TestCounts: 9 bytes (in byV: 9), 16 bytes (in byW: 16), 6.
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": S("1"), "v": S("xy")})
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": S("2"), "w": S("q"), "pad": S("12345")})
	mustPut(t, db, tbl, Item{"pk": S("b"), "sk": S("1")})
	// pk=c (3) + sk=1 (3) + big (3) + 300 bytes = 309 bytes, in chunks.
	mustPut(t, db, tbl, Item{"pk": S("c"), "sk": S("1"), "big": S(strings.Repeat("z", 300))})
	if fv := storedFormatVersionOf(t, db, tbl); fv != metaFormatVersion {
		t.Fatalf("legacy table stored as FormatVersion %d, want %d", fv, metaFormatVersion)
	}
	if _, err := tbl.Count(db); !errors.Is(err, ErrCountsNotReady) {
		t.Fatalf("Count before the pass = %v, want ErrCountsNotReady", err)
	}
	var got []BuildCountsProgress
	in := BuildCountsInput{BatchSize: 1, Progress: func(p BuildCountsProgress) {
		got = append(got, p)
		if !p.Done {
			if _, err := tbl.Count(db); !errors.Is(err, ErrCountsNotReady) {
				t.Errorf("Count during the pass = %v, want ErrCountsNotReady", err)
			}
			if fv := storedFormatVersionOf(t, db, tbl); fv != uniqueFormatVersion {
				t.Errorf("during the pass stored as FormatVersion %d, want %d", fv, uniqueFormatVersion)
			}
			checkTable(t, db, tbl) // the pass's invariant
		}
	}}
	p, err := tbl.BuildCounts(t.Context(), db, in)
	if err != nil {
		t.Fatal(err)
	}
	want := []BuildCountsProgress{{}, {ItemsCounted: 1}, {ItemsCounted: 2}, {ItemsCounted: 3}, {ItemsCounted: 4}, {ItemsCounted: 4, Done: true}}
	if d := cmp.Diff(want, got); d != "" || p != want[len(want)-1] {
		t.Errorf("progress (-want +got):\n%s\nreturned %+v", d, p)
	}
	for _, c := range []struct {
		what string
		get  func() (Counts, error)
		want Counts
	}{
		{"Count", func() (Counts, error) { return tbl.Count(db) }, Counts{ItemCount: 4, SizeBytes: 9 + 16 + 6 + 309}},
		{"IndexCount(byV)", func() (Counts, error) { return tbl.IndexCount(db, "byV") }, Counts{ItemCount: 1, SizeBytes: 9}},
		{"IndexCount(byW)", func() (Counts, error) { return tbl.IndexCount(db, "byW") }, Counts{ItemCount: 1, SizeBytes: 16}},
		{"CollectionCount(a)", func() (Counts, error) { return tbl.CollectionCount(db, Item{"pk": S("a")}) }, Counts{ItemCount: 2, SizeBytes: 9 + 16 + 16}},
		{"CollectionCount(c)", func() (Counts, error) { return tbl.CollectionCount(db, Item{"pk": S("c")}) }, Counts{ItemCount: 1, SizeBytes: 309}},
	} {
		got, err := c.get()
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, d)
		}
	}
	if fv := storedFormatVersionOf(t, db, tbl); fv != uniqueFormatVersion {
		t.Errorf("counted table stored as FormatVersion %d, want %d", fv, uniqueFormatVersion)
	}
	// Once counted, every write counts, and another pass does nothing.
	mustPut(t, db, tbl, Item{"pk": S("b"), "sk": S("2")}) // 6 bytes
	if p, err := tbl.BuildCounts(t.Context(), db, BuildCountsInput{}); err != nil || p != (BuildCountsProgress{Done: true}) {
		t.Errorf("BuildCounts of a counted table = %+v, %v; want Done at once", p, err)
	}
	if c, err := tbl.Count(db); err != nil || c != (Counts{ItemCount: 5, SizeBytes: 346}) {
		t.Errorf("Count after a write = %+v, %v; want 5 items, 346 bytes", c, err)
	}
}

// BuildCounts' refusals: a table created WithoutCounts, a negative batch
// size, a deleted table.
func TestBuildCountsErrors(t *testing.T) {
	s := countSchema
	s.WithoutCounts = true
	db, blind := openTestTable(t, s)
	if _, err := blind.BuildCounts(t.Context(), db, BuildCountsInput{}); !errors.Is(err, ErrCountsDisabled) {
		t.Errorf("BuildCounts WithoutCounts = %v, want ErrCountsDisabled", err)
	}
	tbl := newTestTable(t, db, countSchema)
	makeLegacy(t, db, tbl)
	if _, err := tbl.BuildCounts(t.Context(), db, BuildCountsInput{BatchSize: -1}); !errors.Is(err, ErrValidation) {
		t.Errorf("BuildCounts BatchSize -1 = %v, want ErrValidation", err)
	}
	if err := DeleteTable(db, tbl.name, testRootOf(tbl)); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.BuildCounts(t.Context(), db, BuildCountsInput{}); !errors.Is(err, ErrResourceNotFound) {
		t.Errorf("BuildCounts of a deleted table = %v, want ErrResourceNotFound", err)
	}
}

// A pass stopped between batches (a crash, a Close) resumes from its
// cursor, in another process, and counts every item once; a pass whose
// table was counted before invariant 6 stores its metadata as
// FormatVersion 4.
func TestBuildCountsResume(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, countSchema)
	makeLegacy(t, db, tbl)
	const n = 23
	for i := range n {
		mustPut(t, db, tbl, Item{"pk": S("p" + strconv.Itoa(i%4)), "sk": S(strconv.Itoa(i)), "v": S("x")})
	}
	ctx, cancel := context.WithCancel(t.Context())
	batches := 0
	_, err := tbl.BuildCounts(ctx, db, BuildCountsInput{BatchSize: 5, Progress: func(BuildCountsProgress) {
		if batches++; batches == 3 {
			cancel() // after the start and two batches
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("BuildCounts stopped = %v, want context.Canceled", err)
	}
	checkTable(t, db, tbl) // 10 items passed, and counted
	other := reopen(t, db, tbl)
	p, err := other.BuildCounts(t.Context(), db, BuildCountsInput{BatchSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	if p != (BuildCountsProgress{ItemsCounted: n, Done: true}) {
		t.Errorf("resumed pass = %+v, want %d items counted, done", p, n)
	}
	c, err := tbl.IndexCount(db, "byV")
	if err != nil || c.ItemCount != n {
		t.Errorf("IndexCount(byV) = %+v, %v; want %d entries", c, err, n)
	}
	// Counted metadata of the versions before invariant 6 (FormatVersion
	// 2 with Counted) is stored as 4 by BuildCounts.
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		st, err := tbl.load(tr, nil)
		if err != nil {
			return nil, err
		}
		raw, err := tr.Get(st.keys.meta).Get()
		if err != nil {
			return nil, err
		}
		tr.Set(st.keys.meta, []byte(strings.Replace(string(raw), `"FormatVersion":4,"Layout":2`, `"FormatVersion":2`, 1)))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if fv := storedFormatVersionOf(t, db, tbl); fv != metaFormatVersion {
		t.Fatalf("rewritten as FormatVersion %d", fv)
	}
	if _, err := tbl.BuildCounts(t.Context(), db, BuildCountsInput{}); err != nil {
		t.Fatal(err)
	}
	if fv := storedFormatVersionOf(t, db, tbl); fv != uniqueFormatVersion {
		t.Errorf("after BuildCounts stored as FormatVersion %d, want %d", fv, uniqueFormatVersion)
	}
}

// The race the pass's conflicts settle: a write of a key the cursor has
// not passed counts nothing; if a batch passes the key before the write
// commits, the write conflicts (and, retried, counts). A write of a key
// already passed takes no conflict with later batches.
func TestBuildCountsWriteRace(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashOnly)
	makeLegacy(t, db, tbl)
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		mustPut(t, db, tbl, Item{"pk": S(k)})
	}
	if _, err := countsStep(db, tbl, 2); err != nil { // start
		t.Fatal(err)
	}
	if _, err := countsStep(db, tbl, 2); err != nil { // a, b
		t.Fatal(err)
	}
	// c is not passed; a is.
	notPassed, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	passed, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Put(notPassed, PutInput{Item: Item{"pk": S("c"), "x": S("1")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Put(passed, PutInput{Item: Item{"pk": S("a"), "x": S("1")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := countsStep(db, tbl, 2); err != nil { // c, d
		t.Fatal(err)
	}
	var fe fdb.Error
	if err := notPassed.Commit().Get(); !errors.As(err, &fe) || fe.Code != 1020 {
		t.Errorf("commit of a write of c after a batch passed it = %v, want not_committed (1020)", err)
	}
	if err := passed.Commit().Get(); err != nil {
		t.Errorf("commit of a write of a, passed before = %v, want success", err)
	}
	// The write of c again (as its retry loop would), then the rest.
	mustPut(t, db, tbl, Item{"pk": S("c"), "x": S("1")})
	if _, err := tbl.BuildCounts(t.Context(), db, BuildCountsInput{}); err != nil {
		t.Fatal(err)
	}
	// pk=a (3) + x=1 (2) = 5, twice; 3 for b, d, e.
	if c, err := tbl.Count(db); err != nil || c != (Counts{ItemCount: 5, SizeBytes: 5 + 3 + 5 + 3 + 3}) {
		t.Errorf("Count = %+v, %v; want 5 items, 19 bytes", c, err)
	}
}

// TestBuildCountsModel interleaves the counting pass's transactions with
// writes of every kind, a GSI added, backfilled and deleted meanwhile:
// after every step the pass's invariant holds (the counters are those of
// the items passed: checked by tableProblems), and at the end the counts
// equal the model's.
func TestBuildCountsModel(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	rapid.Check(t, func(rt *rapid.T) {
		tbl := newTestTable(t, db, countSchema)
		makeLegacy(t, db, tbl)
		model := countModel{}
		key := func() Item {
			return Item{"pk": S(rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "pk")), "sk": S(rapid.SampledFrom([]string{"1", "2", "3"}).Draw(rt, "sk"))}
		}
		mk := func() Item {
			it := key()
			if rapid.Bool().Draw(rt, "hasV") {
				it["v"] = S(rapid.StringMatching(`[a-c]{1,3}`).Draw(rt, "v"))
			}
			if rapid.Bool().Draw(rt, "hasW") {
				it["w"] = S(rapid.StringMatching(`[a-c]{1,3}`).Draw(rt, "w"))
			}
			it["filler"] = S(rapid.StringMatching(`x{0,40}`).Draw(rt, "filler"))
			return it
		}
		id := func(k Item) string { return k["pk"].S() + "/" + k["sk"].S() }
		for range rapid.IntRange(0, 8).Draw(rt, "seed items") {
			it := mk()
			if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
				rt.Fatal(err)
			}
			model[id(it)] = it
		}
		indexed := false // byX, a GSI on w, exists
		for range rapid.IntRange(1, 30).Draw(rt, "steps") {
			var err error
			switch rapid.IntRange(0, 8).Draw(rt, "op") {
			case 0:
				it := mk()
				_, err = tbl.Put(db, PutInput{Item: it})
				model[id(it)] = it
			case 1:
				k := key()
				_, err = tbl.Delete(db, DeleteInput{Key: k})
				delete(model, id(k))
			case 2:
				k := key()
				_, err = tbl.Update(db, UpdateInput{Key: k, UpdateExpression: "SET filler = :p, w = :w REMOVE v", ExpressionAttributeValues: map[string]Value{":p": S("yy"), ":w": S("u")}})
				it := Item{}
				maps.Copy(it, model[id(k)])
				maps.Copy(it, k)
				it["filler"], it["w"] = S("yy"), S("u")
				delete(it, "v")
				model[id(k)] = it
			case 3:
				a, b := mk(), key()
				if id(a) == id(b) {
					continue
				}
				_, err = BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {{PutRequest: &PutRequest{Item: a}}, {DeleteRequest: &DeleteRequest{Key: b}}}}})
				model[id(a)] = a
				delete(model, id(b))
			case 4:
				a, b := mk(), key()
				if id(a) == id(b) {
					continue
				}
				_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: tbl, Item: a}}, {Delete: &TransactDelete{Table: tbl, Key: b}}}})
				model[id(a)] = a
				delete(model, id(b))
			case 5, 6:
				_, err = countsStep(db, tbl, rapid.IntRange(1, 3).Draw(rt, "batch"))
			case 7:
				if indexed {
					_, err = tbl.UpdateTable(db, UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byX"}}}})
				} else {
					_, err = tbl.UpdateTable(db, UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"w", ScalarAttributeTypeS}},
						GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "byX",
							KeySchema: []KeySchemaElement{{"w", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}}}})
				}
				indexed = !indexed
			case 8:
				if indexed {
					batch := rapid.IntRange(1, 3).Draw(rt, "backfill batch")
					_, err = Transact(db, func(tr fdb.Transaction) (BackfillProgress, error) {
						p, _, err := tbl.backfillBatch(tr, "byX", batch)
						return p, err
					})
				}
			}
			if err != nil {
				rt.Fatal(err)
			}
			if p := tableProblems(db, tbl); len(p) > 0 {
				rt.Fatalf("table invariants: %q", p)
			}
		}
		if _, err := tbl.BuildCounts(context.Background(), db, BuildCountsInput{BatchSize: 2}); err != nil {
			rt.Fatal(err)
		}
		model.check(rt, db, tbl, "")
	})
}

// TestBuildCountsConcurrent runs the counting pass while three writers
// write, each its own items (so the model is known whatever the
// interleaving), under injected faults (commit_unknown_result among
// them: every write is idempotent, and a batch that committed unseen is
// not counted again): at the end the counts equal the model's, and every
// counter equals what the items and entries say (tableProblems).
func TestBuildCountsConcurrent(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	rapid.Check(t, func(rt *rapid.T) {
		tbl := newTestTable(t, db, countSchema)
		makeLegacy(t, db, tbl)
		const writers = 3
		type op struct {
			kind int
			it   Item
		}
		model := countModel{}
		plans := make([][]op, writers)
		id := func(k Item) string { return k["pk"].S() + "/" + k["sk"].S() }
		for w := range writers {
			// Writer w owns the sort keys w0…w3 in every partition.
			key := func() Item {
				return Item{"pk": S(rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "pk")), "sk": S(strconv.Itoa(w) + strconv.Itoa(rapid.IntRange(0, 3).Draw(rt, "sk")))}
			}
			for range rapid.IntRange(0, 4).Draw(rt, "seeded") {
				it := key()
				it["v"] = S("s")
				if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
					rt.Fatal(err)
				}
				model[id(it)] = it
			}
			for range rapid.IntRange(1, 8).Draw(rt, "ops") {
				k := key()
				switch kind := rapid.IntRange(0, 3).Draw(rt, "kind"); kind {
				case 0, 3: // Put; TransactWrite of a Put
					it := maps.Clone(k)
					if rapid.Bool().Draw(rt, "hasV") {
						it["v"] = S(strconv.Itoa(w))
					}
					if rapid.Bool().Draw(rt, "hasW") {
						it["w"] = S("w")
					}
					plans[w] = append(plans[w], op{kind, it})
				case 1, 2: // Delete; Update
					plans[w] = append(plans[w], op{kind, k})
				}
			}
		}
		// The model: each writer's plan in order.
		for w := range writers {
			for _, o := range plans[w] {
				switch o.kind {
				case 0, 3:
					model[id(o.it)] = o.it
				case 1:
					delete(model, id(o.it))
				case 2:
					it := Item{}
					maps.Copy(it, model[id(o.it)])
					maps.Copy(it, o.it)
					it["filler"] = S("u")
					delete(it, "v")
					model[id(o.it)] = it
				}
			}
		}
		seed := rapid.Uint64().Draw(rt, "fault seed")
		batch := rapid.IntRange(1, 4).Draw(rt, "batch")
		if err := fdblitetest.SetFaults(db, fdblitetest.RetryableFaults(seed)); err != nil {
			rt.Fatal(err)
		}
		err := runWorkers(writers+1, func(w int) error {
			if w == writers {
				_, err := tbl.BuildCounts(context.Background(), db, BuildCountsInput{BatchSize: batch})
				return err
			}
			for _, o := range plans[w] {
				var err error
				switch o.kind {
				case 0:
					_, err = tbl.Put(db, PutInput{Item: o.it})
				case 1:
					_, err = tbl.Delete(db, DeleteInput{Key: o.it})
				case 2:
					_, err = tbl.Update(db, UpdateInput{Key: o.it, UpdateExpression: "SET filler = :u REMOVE v", ExpressionAttributeValues: map[string]Value{":u": S("u")}})
				case 3:
					_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: tbl, Item: o.it}}}})
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if cerr := fdblitetest.ClearFaults(db); cerr != nil {
			rt.Fatal(cerr)
		}
		if err != nil {
			rt.Fatalf("fault seed %d: %v", seed, err)
		}
		model.check(rt, db, tbl, fmt.Sprintf("fault seed %d: ", seed))
	})
}
