package fdyno

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// countProblems checks the counters of counts.go against the items the
// table holds (items: packed key values → item) and the index entries it
// holds: the table's, each index's and each item collection's counts and
// sizes, computed here from their definitions (DynamoDB's item size,
// the entries' projections, an item collection's items and LSI entries),
// and that no emptied item collection leaves counters behind. It reads
// every counter in one range read (then the index entries), so that it
// also finishes under fdblite's injected read faults, which a read of
// each counter would meet a hundred times per check.
//
// While the counting pass runs (counts_build.go), it checks the pass's
// invariant: the counters are those of the items the pass has passed.
func countProblems(rt fdb.ReadTransaction, st *tableState, items map[string]Item, errorf func(string, ...any)) error {
	switch {
	case st.counting:
		raw, err := rt.Get(st.keys.countProgressKey()).Get()
		if err != nil {
			return err
		}
		cur, err := decodeBackfillCursor(raw)
		if err != nil {
			errorf("counting pass cursor: %v", err)
			return nil
		}
		passed := map[string]Item{}
		for kv, it := range items {
			if len(cur.kv) > 0 && kv <= string(cur.kv) {
				passed[kv] = it
			}
		}
		items = passed
	case !st.counted:
		return nil
	}
	var want Counts
	colls := map[string]*Counts{}
	for kv, it := range items {
		size := int64(it.Size())
		want.ItemCount++
		want.SizeBytes += size
		h, err := hashValue([]byte(kv))
		if err != nil {
			return err
		}
		c := colls[string(h)]
		if c == nil {
			c = &Counts{}
			colls[string(h)] = c
		}
		c.ItemCount++
		c.SizeBytes += size
		for _, ix := range st.indexes {
			if ix.local {
				_, n := ix.entryCount(st, it, []byte(kv), size)
				c.SizeBytes += n
			}
		}
	}
	counters, err := rt.GetRange(st.keys.counts, fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		return err
	}
	// sum adds the counters under prefix, whose field is the tuple element
	// at of the counters' subspace; at < 0: the one tuple element after
	// prefix (an item collection's: a key whose rest is not one element
	// is another collection's, whose packed value extends this one's).
	sum := func(prefix []byte, at int) (Counts, int, error) {
		var c Counts
		n := 0
		for _, kv := range counters {
			if !bytes.HasPrefix(kv.Key, prefix) {
				continue
			}
			n++
			f := 0
			if at >= 0 {
				var err error
				if f, err = st.keys.countField(kv.Key, at); err != nil {
					return Counts{}, 0, err
				}
			} else {
				tup, err := tuple.Unpack(kv.Key[len(prefix):])
				if err != nil || len(tup) != 1 {
					n--
					continue
				}
				field, ok := tup[0].(int64)
				if !ok {
					return Counts{}, 0, &CorruptError{What: "counter", Reason: "bad key"}
				}
				f = int(field)
			}
			v, err := counterValue(kv.Value)
			if err != nil {
				return Counts{}, 0, err
			}
			if f == countItems {
				c.ItemCount += v
			} else {
				c.SizeBytes += v
			}
		}
		return c, n, nil
	}
	got, _, err := sum(st.keys.counts.Sub("t").Bytes(), 1)
	if err != nil {
		return err
	}
	if d := cmp.Diff(want, got); d != "" {
		errorf("table counts (-want +got):\n%s", d)
	}
	for _, ix := range st.indexes {
		// Count the entries that exist (a CREATING index has a subset).
		entries, err := rt.GetRange(indexRange(ix.prefix), fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return err
		}
		var want Counts
		for _, e := range entries {
			_, kv, err := splitIndexKey(ix.prefix, e.Key, len(ix.attrs))
			if err != nil {
				errorf("index %s entry %s: %v", ix.name, fdb.Printable(e.Key), err)
				continue
			}
			it := items[string(kv)]
			n, size := ix.entryCount(st, it, kv, int64(it.Size()))
			want.ItemCount += n
			want.SizeBytes += size
		}
		got, _, err := sum(st.keys.counts.Sub("x", ix.name).Bytes(), 2)
		if err != nil {
			return err
		}
		if d := cmp.Diff(want, got); d != "" {
			errorf("index %s counts (-want +got):\n%s", ix.name, d)
		}
	}
	all := 0
	for _, kv := range counters {
		if bytes.HasPrefix(kv.Key, st.keys.counts.Sub("p").Bytes()) {
			all++
		}
	}
	if all > 2*len(colls) {
		errorf("%d item collection counters for %d item collections", all, len(colls))
	}
	for h, want := range colls {
		got, _, err := sum(concatKey(st.keys.counts.Sub("p").Bytes(), []byte(h)), -1)
		if err != nil {
			return err
		}
		if d := cmp.Diff(*want, got); d != "" {
			errorf("item collection %s counts (-want +got):\n%s", fdb.Printable([]byte(h)), d)
		}
	}
	return nil
}

// byV is a GSI on v (KEYS_ONLY) and byW an LSI on w (ALL), for the count
// tests: sparse, as items lack v or w.
var countSchema = TableSchema{
	KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeS}, {"v", ScalarAttributeTypeS}, {"w", ScalarAttributeTypeS}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "byV", KeySchema: []KeySchemaElement{{"v", KeyTypeHash}},
		Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}},
	LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "byW", KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"w", KeyTypeRange}},
		Projection: Projection{ProjectionType: ProjectionTypeAll}}},
}

// Counts follow DynamoDB's item sizes: an attribute's name's UTF-8 bytes
// plus its string value's; a KEYS_ONLY entry holds the table's and the
// index's key attributes; an item collection holds its items and their
// LSI entries.
func TestCounts(t *testing.T) {
	db, tbl := openTestTable(t, countSchema)
	// pk=a (3) + sk=1 (3) + v=xy (3) = 9 bytes; byV entry: the same 9.
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": S("1"), "v": S("xy")})
	// pk=a (3) + sk=2 (3) + w=q (2) + pad=12345 (8) = 16 bytes, in byW too.
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": S("2"), "w": S("q"), "pad": S("12345")})
	// pk=b (3) + sk=1 (3) = 6 bytes, in no index.
	mustPut(t, db, tbl, Item{"pk": S("b"), "sk": S("1")})
	check := func(what string, got Counts, err error, want Counts) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", what, d)
		}
	}
	c, err := tbl.Count(db)
	check("Count", c, err, Counts{ItemCount: 3, SizeBytes: 9 + 16 + 6})
	c, err = tbl.IndexCount(db, "byV")
	check("IndexCount(byV)", c, err, Counts{ItemCount: 1, SizeBytes: 9})
	c, err = tbl.IndexCount(db, "byW")
	check("IndexCount(byW)", c, err, Counts{ItemCount: 1, SizeBytes: 16})
	c, err = tbl.CollectionCount(db, Item{"pk": S("a")})
	check("CollectionCount(a)", c, err, Counts{ItemCount: 2, SizeBytes: 9 + 16 + 16})
	// Overwrite, update and delete: the differences only.
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": S("1"), "v": S("xyz")}) // 10 bytes
	if _, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("a"), "sk": S("2")}, UpdateExpression: "REMOVE w"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Delete(db, DeleteInput{Key: Item{"pk": S("b"), "sk": S("1")}}); err != nil {
		t.Fatal(err)
	}
	c, err = tbl.Count(db)
	check("Count after writes", c, err, Counts{ItemCount: 2, SizeBytes: 10 + 14})
	c, err = tbl.IndexCount(db, "byW")
	check("IndexCount(byW) after writes", c, err, Counts{})
	c, err = tbl.CollectionCount(db, Item{"pk": S("b")})
	check("CollectionCount(b) after its delete", c, err, Counts{})
	d, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if d.Counts == nil || *d.Counts != (Counts{ItemCount: 2, SizeBytes: 24}) || d.IndexCounts["byV"] != (Counts{ItemCount: 1, SizeBytes: 10}) {
		t.Errorf("Describe counts = %+v %+v", d.Counts, d.IndexCounts)
	}
	if _, err := tbl.IndexCount(db, "nope"); !errors.Is(err, ErrValidation) {
		t.Errorf("IndexCount(nope) = %v, want ErrValidation", err)
	}
	// Removing an index removes its counters.
	if _, err := tbl.UpdateTable(db, UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byV"}}}}); err != nil {
		t.Fatal(err)
	}
	st := tbl.state.Load()
	if kvs, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.GetRange(st.keys.indexCountRange("byV"), fdb.RangeOptions{}).GetSliceWithError()
	}); err != nil || len(kvs.([]fdb.KeyValue)) != 0 {
		t.Errorf("counters of a removed index: %v, %v", kvs, err)
	}
}

// countModel is the model of TestCountsModel: the items by key.
type countModel map[string]Item

// check fails rt (what prefixing its message) unless tbl's Count equals
// what the model's items add up to and every counter agrees with the
// stored items and entries (tableProblems).
func (model countModel) check(rt *rapid.T, db fdb.Database, tbl *Table, what string) {
	var want Counts
	for _, it := range model {
		want.ItemCount++
		want.SizeBytes += int64(it.Size())
	}
	got, err := tbl.Count(db)
	if err != nil {
		rt.Fatalf("%s%v", what, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		rt.Fatalf("%sCount (-model +got):\n%s", what, d)
	}
	if p := tableProblems(db, tbl); len(p) > 0 {
		rt.Fatalf("%stable invariants: %q", what, p)
	}
}

// Every way of writing keeps the counts equal to the model's, checked
// after every step (checkTable also recomputes every counter from the
// stored items and entries at cleanup).
func TestCountsModel(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	rapid.Check(t, func(rt *rapid.T) {
		tbl := newTestTable(t, db, countSchema)
		model := countModel{}
		key := func() Item {
			return Item{"pk": S(rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "pk")), "sk": S(rapid.SampledFrom([]string{"1", "2"}).Draw(rt, "sk"))}
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
		for range rapid.IntRange(1, 25).Draw(rt, "steps") {
			var err error
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
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
				_, err = tbl.Update(db, UpdateInput{Key: k, UpdateExpression: "SET filler = :p REMOVE v", ExpressionAttributeValues: map[string]Value{":p": S("yy")}})
				it := Item{}
				maps.Copy(it, model[id(k)])
				maps.Copy(it, k)
				it["filler"] = S("yy")
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
			}
			if err != nil {
				rt.Fatal(err)
			}
			model.check(rt, db, tbl, "")
		}
	})
}

// A Select=COUNT of a whole table, index or table partition with nothing
// to filter, limit or start from is answered from the exact counters, in
// one page whatever the size; any other reads the items in 1 MB pages, as
// DynamoDB does, and so does every count on a table without counters.
// The expected counts come from the items written; the counters' answer
// shows as one page where the items (30 of 100 KB) fill several.
func TestSelectCountFromCounters(t *testing.T) {
	type row struct {
		pk, sk string
		v, w   bool
	}
	var rows []row
	for i := range 30 {
		rows = append(rows, row{pk: "p" + strconv.Itoa(i%2), sk: fmt.Sprintf("%02d", i), v: i%3 == 0, w: i%2 == 0})
	}
	count := func(keep func(row) bool) int {
		n := 0
		for _, r := range rows {
			if keep(r) {
				n++
			}
		}
		return n
	}
	all := func(row) bool { return true }
	p0 := func(r row) bool { return r.pk == "p0" }
	hasV := func(r row) bool { return r.v }
	pv := func(p string) map[string]Value { return map[string]Value{":p": S(p)} }
	cases := []struct {
		name         string
		scan         *ScanInput
		query        *QueryInput
		want         int
		counters     bool // answered from the counters (on a counted table)
		severalPages bool // the items span more than one page
	}{
		{name: "scan table", scan: &ScanInput{}, want: count(all), counters: true, severalPages: true},
		{name: "scan GSI", scan: &ScanInput{IndexName: "byV"}, want: count(hasV), counters: true},
		{name: "scan LSI", scan: &ScanInput{IndexName: "byW"}, want: count(func(r row) bool { return r.w }), counters: true, severalPages: true},
		{name: "scan filtered", scan: &ScanInput{FilterExpression: "attribute_exists(v)"}, want: count(hasV), severalPages: true},
		{name: "scan limit", scan: &ScanInput{Limit: 7}, want: count(all), severalPages: true},
		{name: "scan page size", scan: &ScanInput{PageSize: 2 << 20}, want: count(all), severalPages: true},
		{name: "scan segments", scan: &ScanInput{TotalSegments: 1}, want: count(all), counters: true, severalPages: true},
		{name: "query partition", query: &QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: pv("p0")}, want: count(p0), counters: true, severalPages: true},
		{name: "query empty partition", query: &QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: pv("none")}, want: 0, counters: true},
		{name: "query sort range", query: &QueryInput{KeyConditionExpression: "pk = :p AND sk > :s",
			ExpressionAttributeValues: map[string]Value{":p": S("p0"), ":s": S("10")}}, want: count(func(r row) bool { return p0(r) && r.sk > "10" })},
		{name: "query LSI partition", query: &QueryInput{IndexName: "byW", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: pv("p0")},
			want: count(func(r row) bool { return p0(r) && r.w }), severalPages: true},
		{name: "query GSI", query: &QueryInput{IndexName: "byV", KeyConditionExpression: "v = :p", ExpressionAttributeValues: pv("v")}, want: count(hasV)},
	}
	blob := S(strings.Repeat("x", 100<<10))
	for _, counted := range []bool{true, false} {
		s := countSchema
		s.WithoutCounts = !counted
		db, tbl := openTestTable(t, s)
		for _, r := range rows {
			it := Item{"pk": S(r.pk), "sk": S(r.sk), "blob": blob}
			if r.v {
				it["v"] = S("v")
			}
			if r.w {
				it["w"] = S("w" + r.sk)
			}
			mustPut(t, db, tbl, it)
		}
		for _, tc := range cases {
			t.Run(fmt.Sprintf("counted=%v/%s", counted, tc.name), func(t *testing.T) {
				n, scanned, pages := 0, 0, 0
				if tc.scan != nil {
					in := *tc.scan
					in.Select = SelectCount
					for out, err := range tbl.ScanPages(t.Context(), db, in) {
						if err != nil {
							t.Fatal(err)
						}
						if out.Items != nil {
							t.Fatalf("a COUNT page returned %d items", len(out.Items))
						}
						n, scanned, pages = n+out.Count, scanned+out.ScannedCount, pages+1
					}
				} else {
					in := *tc.query
					in.Select = SelectCount
					for out, err := range tbl.QueryPages(t.Context(), db, in) {
						if err != nil {
							t.Fatal(err)
						}
						n, scanned, pages = n+out.Count, scanned+out.ScannedCount, pages+1
					}
				}
				if n != tc.want {
					t.Errorf("Count = %d, want %d", n, tc.want)
				}
				if tc.scan == nil || tc.scan.FilterExpression == "" {
					if scanned != n {
						t.Errorf("ScannedCount = %d, want Count %d (nothing filtered)", scanned, n)
					}
				}
				switch {
				case counted && tc.counters && pages != 1:
					t.Errorf("%d pages, want 1: the counters answer", pages)
				case !(counted && tc.counters) && tc.severalPages && pages < 2:
					t.Errorf("%d page, want several: the items are read", pages)
				}
			})
		}
	}
}

// Concurrent writers of every kind under commit_unknown_result and
// retries, without automatic idempotency: a retried transaction reads the
// item its hidden commit wrote and adds nothing, so the counts equal the
// items (and entries, and collections) the table holds: Count against a
// Scan here, and every counter recomputed by checkTable at cleanup.
func TestCountsUnderFaults(t *testing.T) {
	const seed = 11
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(seed))
	tbl := newTestTable(t, db, countSchema)
	if err := runWorkers(3, func(w int) error {
		for i := range 40 {
			k := Item{"pk": S("p" + strconv.Itoa(i%5)), "sk": S(strconv.Itoa((i + w) % 4))}
			var err error
			switch (i + w) % 4 {
			case 0:
				_, err = tbl.Put(db, PutInput{Item: Item{"pk": k["pk"], "sk": k["sk"], "v": S("x"), "w": S(strconv.Itoa(w))}})
			case 1:
				_, err = tbl.Delete(db, DeleteInput{Key: k})
			case 2:
				_, err = tbl.Update(db, UpdateInput{Key: k, UpdateExpression: "SET w = :w", ExpressionAttributeValues: map[string]Value{":w": S("u")}})
			case 3:
				_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: tbl, Item: Item{"pk": S("t" + strconv.Itoa(w)), "sk": S(strconv.Itoa(i))}}}}})
			}
			if err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	c, err := tbl.Count(db)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range tbl.ScanAll(t.Context(), db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if c.ItemCount != int64(n) {
		t.Errorf("seed %d: Count = %d, Scan found %d items", seed, c.ItemCount, n)
	}
}

// recordGuard refuses every access that allow does not accept, and
// records what it was asked.
type recordGuard struct {
	allow func(Access) bool
	asked *[]Access
}

func (g recordGuard) Allow(a Access) error {
	*g.asked = append(*g.asked, a)
	if g.allow(a) {
		return nil
	}
	return errDenied
}

// The counter reads ask a guarded handle's guard first: Count is a read
// of the whole table, IndexCount of the whole index and CollectionCount
// of the partition; without the grant each is refused with the guard's
// error, and with it each answers.
func TestCountsGuarded(t *testing.T) {
	db, tbl := openTestTable(t, countSchema)
	// pk=a (3) + sk=1 (3) + v=x (2) = 8 bytes, in byV (KEYS_ONLY: the
	// same 8); pk=b (3) + sk=1 (3) = 6 bytes.
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": S("1"), "v": S("x")})
	mustPut(t, db, tbl, Item{"pk": S("b"), "sk": S("1")})
	partA, err := PackPartition(S("a"))
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		name string
		run  func(*Table) (Counts, error)
		want Counts
		// grants says whether an access is the one this call needs.
		grants func(Access) bool
	}
	calls := []call{
		{"Count", func(g *Table) (Counts, error) { return g.Count(db) }, Counts{ItemCount: 2, SizeBytes: 8 + 6},
			func(a Access) bool { return a.Whole() && a.Index == "" && !a.Write && !a.Stream }},
		{"IndexCount", func(g *Table) (Counts, error) { return g.IndexCount(db, "byV") }, Counts{ItemCount: 1, SizeBytes: 8},
			func(a Access) bool { return a.Index == "byV" && !a.Write }},
		{"CollectionCount", func(g *Table) (Counts, error) { return g.CollectionCount(db, Item{"pk": S("a")}) }, Counts{ItemCount: 1, SizeBytes: 8},
			func(a Access) bool { return a.Index == "" && !a.Whole() && !a.Write && a.InPartition(partA) }},
	}
	for _, c := range calls {
		var asked []Access
		if _, err := c.run(tbl.Guarded(recordGuard{allow: func(Access) bool { return false }, asked: &asked})); !errors.Is(err, errDenied) {
			t.Errorf("%s without the grant = %v, want the guard's refusal", c.name, err)
		}
		if len(asked) != 1 || !c.grants(asked[0]) || asked[0].Table != tbl.Name() {
			t.Errorf("%s asked %+v, want one access of its kind", c.name, asked)
		}
		asked = nil
		got, err := c.run(tbl.Guarded(recordGuard{allow: c.grants, asked: &asked}))
		if err != nil {
			t.Errorf("%s with the grant: %v", c.name, err)
		} else if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s with the grant (-want +got):\n%s", c.name, d)
		}
	}
	// A partition grant is not a grant of another partition.
	var asked []Access
	other := tbl.Guarded(recordGuard{allow: calls[2].grants, asked: &asked})
	if _, err := other.CollectionCount(db, Item{"pk": S("b")}); !errors.Is(err, errDenied) {
		t.Errorf("CollectionCount(b) with a grant of a = %v, want the guard's refusal", err)
	}
}

// A table created WithoutCounts keeps no counters: its count calls answer
// ErrCountsDisabled, Describe reports none, and the flag is part of the
// schema Open checks.
func TestCountsWithoutCounts(t *testing.T) {
	s := countSchema
	s.WithoutCounts = true
	db, tbl := openTestTable(t, s)
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": S("1"), "v": S("x")})
	if _, err := tbl.Count(db); !errors.Is(err, ErrCountsDisabled) {
		t.Errorf("Count = %v, want ErrCountsDisabled", err)
	}
	if _, err := tbl.IndexCount(db, "byV"); !errors.Is(err, ErrCountsDisabled) {
		t.Errorf("IndexCount = %v, want ErrCountsDisabled", err)
	}
	if _, err := tbl.CollectionCount(db, Item{"pk": S("a")}); !errors.Is(err, ErrCountsDisabled) {
		t.Errorf("CollectionCount = %v, want ErrCountsDisabled", err)
	}
	d, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if d.Counts != nil || d.IndexCounts != nil || !d.WithoutCounts {
		t.Errorf("Describe: Counts %v, IndexCounts %v, WithoutCounts %v; want nil, nil, true", d.Counts, d.IndexCounts, d.WithoutCounts)
	}
	st := tbl.state.Load()
	if kvs, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.GetRange(st.keys.counts, fdb.RangeOptions{}).GetSliceWithError()
	}); err != nil || len(kvs.([]fdb.KeyValue)) != 0 {
		t.Errorf("counters of a table WithoutCounts: %v, %v", kvs, err)
	}
	// Opening it with the counted schema is opening another table.
	if _, err := Open(db, tbl.Name(), WithRoot(tbl.path[:len(tbl.path)-1]...), WithSchema(countSchema)); !errors.Is(err, ErrResourceInUse) {
		t.Errorf("Open with counts of a table WithoutCounts = %v, want ErrResourceInUse", err)
	}
}

// Two transactions that Put the same key blind, both with read versions
// taken before either commits: on a table WithoutCounts neither reads
// and both commit; on a counted table each reads the old item to count
// it, and the second conflicts, which is what keeps the count exact (both
// saw no item; only one may add it).
func TestCountsBlindWriteConflicts(t *testing.T) {
	for _, counted := range []bool{false, true} {
		s := hashOnly
		s.WithoutCounts = !counted
		db := fdblitetest.OpenIsolated(t)
		tbl := newTestTable(t, db, s)
		var txs [2]fdb.Transaction
		for i := range txs {
			tx, err := db.CreateTransaction()
			if err != nil {
				t.Fatal(err)
			}
			tx.GetReadVersion().MustGet()
			if _, err := tbl.Put(tx, PutInput{Item: Item{"pk": S("k"), "n": N(strconv.Itoa(i))}}); err != nil {
				t.Fatal(err)
			}
			txs[i] = tx
		}
		if err := txs[0].Commit().Get(); err != nil {
			t.Fatal(err)
		}
		err := txs[1].Commit().Get()
		var fe fdb.Error
		conflicted := errors.As(err, &fe) && fe.Code == 1020
		if err != nil && !conflicted {
			t.Fatal(err)
		}
		if conflicted != counted {
			t.Errorf("counted %v: second blind Put conflicted = %v, want %v", counted, conflicted, counted)
		}
		if counted {
			c, err := tbl.Count(db)
			if err != nil || c.ItemCount != 1 {
				t.Errorf("Count = %+v, %v; want 1 item", c, err)
			}
		}
	}
}
