package fdyno

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
)

// indexProblems checks index.go's invariants against the base items of
// the table (packed key values → item), recomputing every index from
// them independently of index.go: an item has an entry in an index when
// it holds every index key attribute with a valid value of the declared
// type; the entry's key is x/<index>/<index key values>/<base key values>
// and its value the projection's encoding, or the one byte 0x82 when that
// is longer than 10 KB. Every entry must be present and equal byte for
// byte (for a CREATING index: every entry up to its backfill cursor, and
// any entry present must be right), and no other entry may exist.
func indexProblems(rt fdb.ReadTransaction, st *tableState, items map[string]Item, errorf func(string, ...any)) error {
	entries, err := rt.GetRange(st.keys.index, fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		return err
	}
	got := map[string][]byte{}
	for _, e := range entries {
		got[string(e.Key)] = e.Value
	}
	cursors, err := rt.GetRange(st.keys.backfill, fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		return err
	}
	cursorOf := map[string][]byte{}
	for _, c := range cursors {
		cursorOf[string(c.Key)] = c.Value
	}
	types := map[string]ScalarAttributeType{}
	for _, d := range st.schema.AttributeDefinitions {
		types[d.AttributeName] = d.AttributeType
	}
	check := func(name string, ks []KeySchemaElement, p Projection, building bool) {
		bkey := string(st.keys.backfillKey(name))
		raw, hasCursor := cursorOf[bkey]
		delete(cursorOf, bkey)
		if hasCursor != building {
			errorf("index %s: building %v but backfill cursor present %v", name, building, hasCursor)
		}
		var walked []byte // base items up to here have been backfilled
		if building && hasCursor {
			c, err := decodeBackfillCursor(raw)
			if err != nil {
				errorf("index %s: backfill cursor: %v", name, err)
			}
			walked = c.kv
		}
		for k, it := range items {
			key, value, ok := expectedEntry(st, types, name, ks, p, []byte(k), it)
			if !ok {
				continue
			}
			g, found := got[string(key)]
			delete(got, string(key))
			switch {
			case !found && (!building || len(walked) > 0 && k <= string(walked)):
				errorf("index %s: missing entry %s of item %s", name, fdb.Printable(key), trim(it))
			case found && !bytes.Equal(g, value):
				errorf("index %s: stale entry %s of item %s: %x, want %x", name, fdb.Printable(key), trim(it), trimBytes(g), trimBytes(value))
			}
		}
	}
	for _, ix := range st.schema.LocalSecondaryIndexes {
		check(ix.IndexName, ix.KeySchema, ix.Projection, false)
	}
	for _, ix := range st.schema.GlobalSecondaryIndexes {
		check(ix.IndexName, ix.KeySchema, ix.Projection, st.index(ix.IndexName).building)
	}
	for k := range got {
		errorf("orphan index entry %s", fdb.Printable([]byte(k)))
	}
	for k := range cursorOf {
		errorf("backfill cursor %s of no building index", fdb.Printable([]byte(k)))
	}
	return nil
}

func trimBytes(b []byte) []byte { return b[:min(len(b), 40)] }

// expectedEntry returns the index entry of item it (packed key values kv)
// in the index with key schema ks and projection p, by DynamoDB's rules.
func expectedEntry(st *tableState, types map[string]ScalarAttributeType, name string, ks []KeySchemaElement, p Projection, kv []byte, it Item) (key, value []byte, ok bool) {
	var vals []Value
	for i, k := range ks {
		v, found := it[k.AttributeName]
		if !found || checkKeyValue(k.AttributeName, v, scalarType(types[k.AttributeName]), i == 0) != nil {
			return nil, nil, false
		}
		vals = append(vals, v)
	}
	ikv, err := packKeyValues(vals...)
	if err != nil {
		return nil, nil, false
	}
	key = slices.Concat([]byte(st.keys.indexPrefix(name)), ikv, kv)
	if len(key) > 10_000 {
		return nil, nil, false
	}
	enc, err := EncodeItem(expectedProjection(st.schema, ks, p, it))
	if err != nil {
		return nil, nil, false
	}
	if len(enc) > 10*1024 {
		enc = []byte{0x82}
	}
	return key, enc, true
}

// expectedProjection returns the attributes of it an index with key
// schema ks and projection p holds: all of them (ALL), or the table and
// index keys (KEYS_ONLY) plus the NonKeyAttributes (INCLUDE).
func expectedProjection(s TableSchema, ks []KeySchemaElement, p Projection, it Item) Item {
	if p.ProjectionType == ProjectionTypeAll {
		return it
	}
	out := Item{}
	for _, k := range slices.Concat(s.KeySchema, ks) {
		if v, ok := it[k.AttributeName]; ok {
			out[k.AttributeName] = v
		}
	}
	for _, a := range p.NonKeyAttributes {
		if v, ok := it[a]; ok {
			out[a] = v
		}
	}
	return out
}

// indexed is the schema of the index tests: a table (pk S, sk N) with
//
//	byL  LSI (pk, l S)     INCLUDE [a]
//	byG  GSI (g S, h N)    ALL
//	byK  GSI (k B)         KEYS_ONLY
//	byH  GSI (h N, sk N)   INCLUDE [z]   (a table key as the index sort key)
var indexed = TableSchema{
	KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN},
		{"l", ScalarAttributeTypeS}, {"g", ScalarAttributeTypeS}, {"h", ScalarAttributeTypeN}, {"k", ScalarAttributeTypeB}},
	LocalSecondaryIndexes: []LocalSecondaryIndex{
		{IndexName: "byL", KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"l", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"a"}}},
	},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{
		{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}, {"h", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeAll}},
		{IndexName: "byK", KeySchema: []KeySchemaElement{{"k", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
		{IndexName: "byH", KeySchema: []KeySchemaElement{{"h", KeyTypeHash}, {"sk", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"z"}}},
	},
}

// Writes move, add and remove entries as DynamoDB's indexes do, and a
// Query on each index sees every write at once.
func TestIndexMaintenance(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, indexed)
	q := func(index, cond string, vals map[string]Value) []Item {
		t.Helper()
		out, err := tbl.Query(db, QueryInput{IndexName: index, KeyConditionExpression: cond, ExpressionAttributeValues: vals})
		if err != nil {
			t.Fatalf("Query(%s, %s): %v", index, cond, err)
		}
		return out.Items
	}
	diff := func(what string, want, got []Item) {
		t.Helper()
		if d := gocmp.Diff(want, got, itemCmp); d != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", what, d)
		}
	}
	x := map[string]Value{":g": S("x")}
	a1 := Item{"pk": S("a"), "sk": NInt(1), "g": S("x"), "h": NInt(5), "l": S("m"), "a": S("A"), "z": S("Z"), "k": B([]byte{0})}
	mustPut(t, db, tbl, a1)
	a2 := Item{"pk": S("a"), "sk": NInt(2), "g": S("x"), "h": NInt(-5)} // no l, k: sparse in byL, byK
	mustPut(t, db, tbl, a2)
	diff("byG g=x", []Item{a2, a1}, q("byG", "g = :g", x)) // h -5 before 5
	diff("byL pk=a", []Item{{"pk": S("a"), "sk": NInt(1), "l": S("m"), "a": S("A")}}, q("byL", "pk = :p", map[string]Value{":p": S("a")}))
	diff("byK", []Item{{"pk": S("a"), "sk": NInt(1), "k": B([]byte{0})}}, q("byK", "k = :k", map[string]Value{":k": B([]byte{0})}))
	diff("byH h=5", []Item{{"pk": S("a"), "sk": NInt(1), "h": NInt(5), "z": S("Z")}}, q("byH", "h = :h", map[string]Value{":h": NInt(5)}))

	// Changing an indexed attribute moves the entry.
	if _, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("a"), "sk": NInt(1)}, UpdateExpression: "SET g = :y REMOVE l",
		ExpressionAttributeValues: map[string]Value{":y": S("y")}}); err != nil {
		t.Fatal(err)
	}
	diff("byG g=x after move", []Item{a2}, q("byG", "g = :g", x))
	a1["g"] = S("y")
	delete(a1, "l")
	diff("byG g=y after move", []Item{a1}, q("byG", "g = :g", map[string]Value{":g": S("y")}))
	diff("byL after REMOVE l", []Item{}, q("byL", "pk = :p", map[string]Value{":p": S("a")}))
	// Many items share an index key, ordered by base primary key.
	for _, pk := range []string{"c", "b"} {
		for sk := 3; sk >= 0; sk-- {
			mustPut(t, db, tbl, Item{"pk": S(pk), "sk": NInt(int64(sk)), "k": B([]byte{7})})
		}
	}
	var want []Item
	for _, pk := range []string{"b", "c"} {
		for sk := range 4 {
			want = append(want, Item{"pk": S(pk), "sk": NInt(int64(sk)), "k": B([]byte{7})})
		}
	}
	diff("byK k=7", want, q("byK", "k = :k", map[string]Value{":k": B([]byte{7})}))
	// Deleting removes every entry.
	if _, err := tbl.Delete(db, DeleteInput{Key: Item{"pk": S("a"), "sk": NInt(1)}}); err != nil {
		t.Fatal(err)
	}
	diff("byG g=y after delete", []Item{}, q("byG", "g = :g", map[string]Value{":g": S("y")}))
	// A large item's projection is read from the base item (marker entry).
	big := Item{"pk": S("big"), "sk": NInt(0), "g": S("big"), "h": NInt(1), "z": S(strings.Repeat("z", 50_000)), "pad": S(strings.Repeat("p", 200_000))}
	mustPut(t, db, tbl, big)
	diff("byG big", []Item{big}, q("byG", "g = :g", map[string]Value{":g": S("big")}))
	diff("byH big", []Item{{"pk": S("big"), "sk": NInt(0), "h": NInt(1), "z": big["z"]}}, q("byH", "h = :h", map[string]Value{":h": NInt(1)}))
}

// Select and projection rules of Query on an index, with DynamoDB's
// errors.
func TestIndexQuerySelect(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, indexed)
	it := Item{"pk": S("a"), "sk": NInt(1), "g": S("x"), "h": NInt(5), "l": S("m"), "a": S("A"), "z": S("Z"), "k": B([]byte{1}), "extra": N("3")}
	mustPut(t, db, tbl, it)
	lsi := map[string]Value{":p": S("a")}
	gsiH := map[string]Value{":h": NInt(5)}
	for _, tc := range []struct {
		name string
		in   QueryInput
		want []Item
		err  string
	}{
		{"LSI default is ALL_PROJECTED", QueryInput{IndexName: "byL", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: lsi},
			[]Item{{"pk": S("a"), "sk": NInt(1), "l": S("m"), "a": S("A")}}, ""},
		{"LSI ALL_ATTRIBUTES fetches the item", QueryInput{IndexName: "byL", KeyConditionExpression: "pk = :p", Select: SelectAllAttributes, ExpressionAttributeValues: lsi},
			[]Item{it}, ""},
		{"LSI projection of an unprojected attribute fetches", QueryInput{IndexName: "byL", KeyConditionExpression: "pk = :p", ProjectionExpression: "extra, a", ExpressionAttributeValues: lsi},
			[]Item{{"extra": N("3"), "a": S("A")}}, ""},
		{"LSI filter on an unprojected attribute fetches", QueryInput{IndexName: "byL", KeyConditionExpression: "pk = :p", FilterExpression: "extra = :o",
			ExpressionAttributeValues: map[string]Value{":p": S("a"), ":o": N("3")}}, []Item{{"pk": S("a"), "sk": NInt(1), "l": S("m"), "a": S("A")}}, ""},
		{"LSI key condition on the sort key", QueryInput{IndexName: "byL", KeyConditionExpression: "pk = :p AND begins_with(l, :m)", ExpressionAttributeValues: map[string]Value{":p": S("a"), ":m": S("m")}},
			[]Item{{"pk": S("a"), "sk": NInt(1), "l": S("m"), "a": S("A")}}, ""},
		{"GSI projection of an unprojected attribute is absent", QueryInput{IndexName: "byH", KeyConditionExpression: "h = :h", ProjectionExpression: "extra, z", ExpressionAttributeValues: gsiH},
			[]Item{{"z": S("Z")}}, ""},
		{"GSI ALL_PROJECTED", QueryInput{IndexName: "byH", KeyConditionExpression: "h = :h", Select: SelectAllProjectedAttributes, ExpressionAttributeValues: gsiH},
			[]Item{{"pk": S("a"), "sk": NInt(1), "h": NInt(5), "z": S("Z")}}, ""},
		{"GSI ALL_ATTRIBUTES with ALL projection", QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", Select: SelectAllAttributes, ExpressionAttributeValues: map[string]Value{":g": S("x")}},
			[]Item{it}, ""},
		{"GSI COUNT", QueryInput{IndexName: "byH", KeyConditionExpression: "h = :h", Select: SelectCount, ExpressionAttributeValues: gsiH}, nil, ""},
		{"GSI ALL_ATTRIBUTES without ALL projection", QueryInput{IndexName: "byH", KeyConditionExpression: "h = :h", Select: SelectAllAttributes, ExpressionAttributeValues: gsiH},
			nil, "Select type ALL_ATTRIBUTES is not supported for global secondary index byH because its projection type is not ALL"},
		{"GSI consistent read", QueryInput{IndexName: "byH", KeyConditionExpression: "h = :h", ConsistentRead: true, ExpressionAttributeValues: gsiH},
			nil, "Consistent reads are not supported on global secondary indexes"},
		{"unknown index", QueryInput{IndexName: "nope", KeyConditionExpression: "h = :h", ExpressionAttributeValues: gsiH}, nil, "The table does not have the specified index: nope"},
		{"key condition on the table key", QueryInput{IndexName: "byG", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: lsi}, nil, "Query condition missed key schema element: g"},
		{"filter on an index key", QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", FilterExpression: "h = :h",
			ExpressionAttributeValues: map[string]Value{":g": S("x"), ":h": NInt(5)}}, nil, "Filter Expression can only contain non-primary key attributes: Primary key attribute: h"},
		{"ALL_PROJECTED without index", QueryInput{KeyConditionExpression: "pk = :p", Select: SelectAllProjectedAttributes, ExpressionAttributeValues: lsi}, nil, "IndexName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tbl.Query(db, tc.in)
			if tc.err != "" {
				if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Query = %v, want ValidationError containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Count != 1 {
				t.Errorf("Count = %d, want 1", out.Count)
			}
			if d := gocmp.Diff(tc.want, out.Items, itemCmp); d != "" {
				t.Errorf("Items mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// randomWrite performs one random write of the index tests' schema.
func randomWrite(tx fdb.Transactor, tbl *Table, r *rand.Rand) error {
	key := Item{"pk": S([]string{"a", "b"}[r.IntN(2)]), "sk": NInt(int64(r.IntN(4)))}
	attr := func(name string) (Value, bool) {
		if r.IntN(3) == 0 {
			return Value{}, false
		}
		switch name {
		case "g", "l":
			return S([]string{"x", "y"}[r.IntN(2)]), true
		case "h":
			return NInt(int64(r.IntN(3))), true
		case "k":
			return B([]byte{byte(r.IntN(2))}), true
		case "a": // a key of the model's online index byA
			return S([]string{"1", "2"}[r.IntN(2)]), true
		}
		return S(strings.Repeat("v", []int{1, 11_000}[r.IntN(2)])), true
	}
	switch r.IntN(3) {
	case 0:
		it := maps.Clone(key)
		for _, a := range modelAttrs {
			if v, ok := attr(a); ok {
				it[a] = v
			}
		}
		_, err := tbl.Put(tx, PutInput{Item: it})
		return err
	case 1:
		a := modelAttrs[r.IntN(len(modelAttrs))]
		if v, ok := attr(a); ok {
			_, err := tbl.Update(tx, UpdateInput{Key: key, UpdateExpression: "SET #a = :v", ExpressionAttributeNames: map[string]string{"#a": a}, ExpressionAttributeValues: map[string]Value{":v": v}})
			return err
		}
		_, err := tbl.Update(tx, UpdateInput{Key: key, UpdateExpression: "REMOVE #a", ExpressionAttributeNames: map[string]string{"#a": a}})
		return err
	}
	_, err := tbl.Delete(tx, DeleteInput{Key: key})
	return err
}

// runWriters runs workers goroutines of n random writes each on keys that
// overlap, so their transactions conflict and retry.
func runWriters(t *testing.T, tx fdb.Transactor, tbl *Table, workers, n int, seed uint64) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			for range n {
				if err := randomWrite(tx, tbl, r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Concurrent writers on overlapping keys leave every index exactly equal
// to its recomputation (checked at cleanup by checkTable).
func TestIndexConcurrentWriters(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, indexed)
	runWriters(t, db, tbl, 4, 40, 1)
	if p := tableProblems(db, tbl); len(p) > 0 {
		t.Fatalf("table invariants: %q", p)
	}
}

// Under injected faults (transaction_too_old, not_committed,
// commit_unknown_result), retried writes keep every index exact.
func TestIndexWritesUnderFaults(t *testing.T) {
	db := faultyDB(t, 23)
	tbl, err := Open(idempotent{db}, "Faulty", WithSchema(indexed))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { checkTable(t, db, tbl) })
	runWriters(t, db, tbl, 3, 30, 2)
	// Whatever the faults, a Query on an index sees exactly what a Scan
	// of the table does.
	var want []Item
	for it, err := range tbl.ScanAll(t.Context(), db, ScanInput{FilterExpression: "k = :k", ExpressionAttributeValues: map[string]Value{":k": B([]byte{1})}}) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, Item{"pk": it["pk"], "sk": it["sk"], "k": it["k"]})
	}
	var got []Item
	for it, err := range tbl.QueryAll(t.Context(), db, QueryInput{IndexName: "byK", KeyConditionExpression: "k = :k", ExpressionAttributeValues: map[string]Value{":k": B([]byte{1})}, Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it)
	}
	if d := gocmp.Diff(want, got, itemCmp); d != "" {
		t.Errorf("byK query vs table scan (-want +got):\n%s", d)
	}
}

// A write through a handle whose cached schema predates an index still
// maintains the index: the schema is reloaded in the transaction, and
// the old item is read for it.
func TestIndexStaleHandle(t *testing.T) {
	db := fdblitetest.Open(t)
	h1 := newTestTable(t, db, hashRange)
	h2, err := Open(db, "Test", WithRoot(h1.path[:len(h1.path)-1]...))
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, h2, Item{"pk": S("a"), "sk": NInt(1)})
	if _, err := h1.UpdateTable(db, UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"g", ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "byG",
			KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	// h2 still caches the schema without byG: blind put and delete.
	mustPut(t, db, h2, Item{"pk": S("a"), "sk": NInt(2), "g": S("x")})
	mustPut(t, db, h2, Item{"pk": S("a"), "sk": NInt(2), "g": S("y")}) // moves the entry
	if _, err := h2.Delete(db, DeleteInput{Key: Item{"pk": S("a"), "sk": NInt(2)}}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, h2, Item{"pk": S("a"), "sk": NInt(3), "g": S("z")})
	if _, err := h1.Backfill(t.Context(), db, BackfillInput{IndexName: "byG"}); err != nil {
		t.Fatal(err)
	}
	if p := tableProblems(db, h1); len(p) > 0 {
		t.Fatalf("table invariants: %q", p)
	}
}

// An index key value longer than a key may be (2048 bytes for a partition
// key, 1024 for a sort key) is an index key violation: the write is
// refused, as DynamoDB refuses it, and nothing is written.
func TestIndexKeyViolations(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, indexed)
	base := Item{"pk": S("a"), "sk": NInt(1)}
	for _, tc := range []struct {
		name string
		attr string
		v    Value
		ok   bool
	}{
		{"GSI partition key of 2048 bytes", "g", S(strings.Repeat("g", 2048)), true},
		{"GSI partition key of 2049 bytes", "g", S(strings.Repeat("g", 2049)), false},
		{"LSI sort key of 1024 bytes", "l", S(strings.Repeat("l", 1024)), true},
		{"LSI sort key of 1025 bytes", "l", S(strings.Repeat("l", 1025)), false},
		{"GSI partition key B of 2049 bytes", "k", B(make([]byte, 2049)), false},
		{"GSI key of the wrong type", "g", N("1"), false},
		{"empty GSI key", "k", B(nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it := maps.Clone(base)
			it[tc.attr] = tc.v
			_, err := tbl.Put(db, PutInput{Item: it})
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrValidation) {
				t.Fatalf("Put = %v, want ok %v or ErrValidation", err, tc.ok)
			}
			_, err = tbl.Update(db, UpdateInput{Key: base, UpdateExpression: "SET #a = :v", ExpressionAttributeNames: map[string]string{"#a": tc.attr},
				ExpressionAttributeValues: map[string]Value{":v": tc.v}})
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrValidation) {
				t.Fatalf("Update = %v, want ok %v or ErrValidation", err, tc.ok)
			}
			if _, err := tbl.Delete(db, DeleteInput{Key: base}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
