package fdyno

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
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
	for _, k := range ks {
		v, found := it[k.AttributeName]
		if !found || checkKeyValue(k.AttributeName, v, scalarType(types[k.AttributeName]), k.KeyType == KeyTypeHash) != nil {
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
	db, tbl := openTestTable(t, indexed)
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
	db, tbl := openTestTable(t, indexed)
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

// indexModel is the rapid model of the index tests: items of the
// indexed schema over a small key space, whose index attributes appear,
// change and disappear.
type indexModel struct {
	db    fdb.Database
	tx    fdb.Transactor // for writes: db, or db with automatic idempotency
	tbl   *Table
	items map[string]Item // by modelKey
}

func (m *indexModel) drawKey(t *rapid.T) Item {
	return Item{"pk": S(rapid.SampledFrom([]string{"a", "b"}).Draw(t, "pk")), "sk": NInt(rapid.Int64Range(-1, 2).Draw(t, "sk"))}
}

// drawAttr returns a value for index-relevant attribute name, or false for
// none.
func drawAttr(t *rapid.T, name string) (Value, bool) {
	if !rapid.Bool().Draw(t, name+"?") {
		return Value{}, false
	}
	switch name {
	case "g", "l":
		return S(rapid.SampledFrom([]string{"x", "y", "x\x00"}).Draw(t, name)), true
	case "h":
		return NInt(rapid.Int64Range(-1, 1).Draw(t, name)), true
	case "k":
		return B([]byte{rapid.ByteRange(0, 1).Draw(t, name)}), true
	case "big":
		return S(strings.Repeat("b", rapid.SampledFrom([]int{1, 12_000, 120_000}).Draw(t, "bigSize"))), true
	}
	return S(rapid.SampledFrom([]string{"1", "2"}).Draw(t, name)), true
}

var modelAttrs = []string{"g", "h", "l", "k", "a", "z", "big"}

func (m *indexModel) put(t *rapid.T) {
	it := m.drawKey(t)
	for _, a := range modelAttrs {
		if v, ok := drawAttr(t, a); ok {
			it[a] = v
		}
	}
	if _, err := m.tbl.Put(m.tx, PutInput{Item: it}); err != nil {
		t.Fatal(err)
	}
	m.items[modelKey(it)] = it
}

func (m *indexModel) update(t *rapid.T) {
	key := m.drawKey(t)
	base := maps.Clone(key)
	if old := m.items[modelKey(key)]; old != nil {
		base = maps.Clone(old)
	}
	var set, remove []string
	vals := map[string]Value{}
	for _, a := range rapid.SliceOfNDistinct(rapid.SampledFrom(modelAttrs), 1, 3, rapid.ID[string]).Draw(t, "attrs") {
		if v, ok := drawAttr(t, a); ok {
			set = append(set, a+" = :"+a)
			vals[":"+a] = v
			base[a] = v
		} else {
			remove = append(remove, a)
			delete(base, a)
		}
	}
	expr := ""
	if len(set) > 0 {
		expr = "SET " + strings.Join(set, ", ")
	}
	if len(remove) > 0 {
		expr += " REMOVE " + strings.Join(remove, ", ")
	}
	if len(vals) == 0 {
		vals = nil
	}
	if _, err := m.tbl.Update(m.tx, UpdateInput{Key: key, UpdateExpression: expr, ExpressionAttributeValues: vals}); err != nil {
		t.Fatal(err)
	}
	m.items[modelKey(key)] = base
}

func (m *indexModel) delete(t *rapid.T) {
	key := m.drawKey(t)
	if _, err := m.tbl.Delete(m.tx, DeleteInput{Key: key}); err != nil {
		t.Fatal(err)
	}
	delete(m.items, modelKey(key))
}

// query runs a random Query on a random index, walking every page with a
// random Limit and page size, resuming by cursor or by
// LastEvaluatedKey, and compares with a brute-force filter and sort of
// the model.
func (m *indexModel) query(t *rapid.T) {
	st := m.tbl.state.Load()
	ix := st.indexes[rapid.IntRange(0, len(st.indexes)-1).Draw(t, "index")]
	if m.refused(t, ix) {
		return
	}
	hv, _ := drawAttr(t, ixHash(ix).Name)
	if ixHash(ix).Name == "pk" {
		hv = m.drawKey(t)["pk"]
	}
	for hv.typ == 0 {
		hv, _ = drawAttr(t, ixHash(ix).Name)
	}
	cond := "#h = :h"
	names := map[string]string{"#h": ixHash(ix).Name}
	vals := map[string]Value{":h": hv}
	var sortOK func(Value) bool = func(Value) bool { return true }
	if ixRng(ix).Name != "" && rapid.Bool().Draw(t, "sortCond") {
		var sv Value
		if ixRng(ix).Name == "sk" {
			sv = NInt(rapid.Int64Range(-1, 2).Draw(t, "sv"))
		} else {
			for sv.typ == 0 {
				sv, _ = drawAttr(t, ixRng(ix).Name)
			}
		}
		ops := []string{"=", "<", "<=", ">", ">=", "BETWEEN"}
		if sv.typ == TypeS {
			ops = append(ops, "begins_with")
		}
		op := rapid.SampledFrom(ops).Draw(t, "op")
		names["#r"], vals[":r"] = ixRng(ix).Name, sv
		switch op {
		case "BETWEEN":
			hi := sv
			if sv.typ == TypeN {
				n, _ := sv.Int64()
				hi = NInt(n + rapid.Int64Range(0, 2).Draw(t, "width"))
			} else {
				hi = S(sv.s + rapid.SampledFrom([]string{"", "\x00", "z"}).Draw(t, "hiSuffix"))
			}
			cond += " AND #r BETWEEN :r AND :r2"
			vals[":r2"] = hi
			sortOK = func(v Value) bool { return compareKeyValues(v, sv) >= 0 && compareKeyValues(v, hi) <= 0 }
		case "begins_with":
			sv = S(sv.s[:rapid.IntRange(1, len(sv.s)).Draw(t, "prefixLen")])
			vals[":r"] = sv
			cond += " AND begins_with(#r, :r)"
			sortOK = func(v Value) bool { return strings.HasPrefix(v.s, sv.s) }
		default:
			cond += " AND #r " + op + " :r"
			sortOK = func(v Value) bool {
				c := compareKeyValues(v, sv)
				return map[string]bool{"=": c == 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
			}
		}
	}
	forward := rapid.Bool().Draw(t, "forward")
	// Brute force.
	var want []Item
	for _, it := range m.items {
		v, ok := it[ixHash(ix).Name]
		if !ok || !v.Equal(hv) {
			continue
		}
		if ixRng(ix).Name != "" {
			r, ok := it[ixRng(ix).Name]
			if !ok || !sortOK(r) {
				continue
			}
		}
		want = append(want, it)
	}
	slices.SortFunc(want, func(a, b Item) int {
		c := 0
		if ixRng(ix).Name != "" {
			c = compareKeyValues(a[ixRng(ix).Name], b[ixRng(ix).Name])
		}
		if c == 0 {
			c = cmp.Or(strings.Compare(a["pk"].S(), b["pk"].S()), compareKeyValues(a["sk"], b["sk"]))
		}
		if !forward {
			c = -c
		}
		return c
	})
	for i, it := range want {
		want[i] = expectedProjection(st.schema, append([]KeySchemaElement{{ixHash(ix).Name, KeyTypeHash}}, rangeKS(ix)...), ix.proj, it)
	}
	// Pages.
	limit := rapid.IntRange(0, 4).Draw(t, "limit")
	pageSize := rapid.SampledFrom([]int{0, 1, 200}).Draw(t, "pageSize")
	in := QueryInput{IndexName: ix.name, KeyConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: vals,
		ScanIndexForward: Forward(forward), Limit: limit, PageSize: pageSize}
	var got []Item
	for pages := 0; ; pages++ {
		if pages > len(want)+2 {
			t.Fatalf("Query %+v: more pages than items", in)
		}
		out, err := m.tbl.Query(m.db, in)
		if err != nil {
			t.Fatalf("Query %+v: %v", in, err)
		}
		if limit > 0 && out.Cursor != nil && out.ScannedCount != limit && pageSize == 0 {
			t.Fatalf("page of %d items with Limit %d and more to come", out.ScannedCount, limit)
		}
		got = append(got, out.Items...)
		if out.Cursor == nil {
			if out.LastEvaluatedKey != nil {
				t.Fatalf("LastEvaluatedKey %v without Cursor", out.LastEvaluatedKey)
			}
			break
		}
		// LastEvaluatedKey: the index and table keys of the last item.
		last := got[len(got)-1]
		wantLEK := Item{}
		for _, a := range []string{"pk", "sk", ixHash(ix).Name, ixRng(ix).Name} {
			if a != "" {
				wantLEK[a] = last[a]
			}
		}
		expectItem(t, "LastEvaluatedKey", wantLEK, out.LastEvaluatedKey)
		in.Cursor, in.ExclusiveStartKey = nil, nil
		if rapid.Bool().Draw(t, "byCursor") {
			in.Cursor = out.Cursor
		} else {
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	if !slices.EqualFunc(want, got, func(a, b Item) bool { return a.Equal(b) }) {
		t.Fatalf("Query %s %s forward=%v limit=%d pageSize=%d:\n got %d items %v\nwant %d items %v", ix.name, cond, forward, limit, pageSize,
			len(got), trimItems(got), len(want), trimItems(want))
	}
}

// ixHash and ixRng return the partition and sort key attribute of a
// one-attribute-key index (index_multikey_test.go tests multi-attribute
// keys).
func ixHash(ix *indexDef) keyAttr { return ix.hash[0] }

func ixRng(ix *indexDef) keyAttr {
	if len(ix.rng) == 0 {
		return keyAttr{}
	}
	return ix.rng[0]
}

func rangeKS(ix *indexDef) []KeySchemaElement {
	if ixRng(ix).Name == "" {
		return nil
	}
	return []KeySchemaElement{{ixRng(ix).Name, KeyTypeRange}}
}

func trimItems(items []Item) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(trim(it)[:min(len(trim(it)), 80)])
		b.WriteString("; ")
	}
	return b.String()
}

// compareKeyValues orders two key values of one type as DynamoDB does:
// S and B by bytes, N by numeric value (the model's numbers are integers).
func compareKeyValues(a, b Value) int {
	if a.typ == TypeN {
		x, _ := a.Int64()
		y, _ := b.Int64()
		return cmp.Compare(x, y)
	}
	return strings.Compare(a.s, b.s)
}

// concurrent runs a burst of random writes from three goroutines, then
// takes the table's items as the model: the order of concurrent writes
// is the database's to choose, the index invariant is not.
func (m *indexModel) concurrent(t *rapid.T) {
	seed := rapid.Uint64().Draw(t, "seed")
	if err := runWorkers(3, func(w int) error {
		r := rand.New(rand.NewPCG(seed, uint64(w)))
		for range 4 {
			if err := randomWrite(m.tx, m.tbl, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	m.items = map[string]Item{}
	for it, err := range m.tbl.ScanAll(context.Background(), m.db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		m.items[modelKey(it)] = it
	}
}

// scan scans a random index, whole or in parallel segments, with a
// random Limit, and compares the entries read with the model's.
func (m *indexModel) scan(t *rapid.T) {
	st := m.tbl.state.Load()
	ix := st.indexes[rapid.IntRange(0, len(st.indexes)-1).Draw(t, "index")]
	if m.refused(t, ix) {
		return
	}
	total := rapid.IntRange(0, 3).Draw(t, "totalSegments")
	limit := rapid.IntRange(0, 3).Draw(t, "limit")
	ks := append([]KeySchemaElement{{ixHash(ix).Name, KeyTypeHash}}, rangeKS(ix)...)
	var want []string
	valid := func(it Item, a keyAttr, hash bool) bool {
		v, ok := it[a.Name]
		return ok && checkKeyValue(a.Name, v, a.Type, hash) == nil // e.g. at most 2048 bytes
	}
	for _, it := range m.items {
		if !valid(it, ixHash(ix), true) || ixRng(ix).Name != "" && !valid(it, ixRng(ix), false) {
			continue
		}
		want = append(want, expectedProjection(st.schema, ks, ix.proj, it).String())
	}
	var got []string
	for seg := range max(total, 1) {
		in := ScanInput{IndexName: ix.name, Limit: limit, Segment: seg, TotalSegments: total}
		var prev []byte
		for it, err := range m.tbl.ScanAll(context.Background(), m.db, in) {
			if err != nil {
				t.Fatalf("Scan %+v: %v", in, err)
			}
			got = append(got, it.String())
			// Index key order within a segment, after the partition
			// key's hash bucket when the scan is split (segment.go).
			ikv, _ := ix.keyValues(it)
			kv, _ := keyOf("test", it, st.hash, st.rng, false)
			k := append(ikv, kv...)
			if total > 1 {
				h, _ := hashValue(ikv)
				k = append(binary.BigEndian.AppendUint32(nil, partitionBucket(h)), k...)
			}
			if prev != nil && bytes.Compare(prev, k) >= 0 {
				t.Fatalf("Scan %s: %v out of index key order", ix.name, it)
			}
			prev = k
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Fatalf("Scan %s segments=%d limit=%d: got %d items, want %d", ix.name, total, limit, len(got), len(want))
	}
}

// refused reports whether ix is being built, checking that Query and
// Scan refuse it.
func (m *indexModel) refused(t *rapid.T, ix *indexDef) bool {
	if !ix.building {
		return false
	}
	_, err := m.tbl.Scan(m.db, ScanInput{IndexName: ix.name})
	if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "backfilling") {
		t.Fatalf("Scan of CREATING index %s = %v, want ValidationError", ix.name, err)
	}
	return true
}

// build drives an online index build between the other steps: it creates
// GSI byA (on a, which items may already hold), runs one backfill batch
// of 1 to 3 items, or deletes byA, so writes, queries and the invariant
// checks interleave with every stage of a backfill.
func (m *indexModel) build(t *rapid.T) {
	ix := m.tbl.state.Load().index("byA")
	switch {
	case ix == nil:
		_, err := m.tbl.UpdateTable(m.tx, UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"a", ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "byA",
				KeySchema: []KeySchemaElement{{"a", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}}}})
		if err != nil {
			t.Fatal(err)
		}
	case rapid.IntRange(0, 5).Draw(t, "drop") == 0:
		if _, err := m.tbl.UpdateTable(m.tx, UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byA"}}}}); err != nil {
			t.Fatal(err)
		}
	default:
		batch := rapid.IntRange(1, 3).Draw(t, "batch")
		if _, err := Transact(m.tx, func(tr fdb.Transaction) (BackfillProgress, error) {
			p, _, err := m.tbl.backfillBatch(tr, "byA", batch) // byA is not unique: no duplicates
			return p, err
		}); err != nil {
			t.Fatal(err)
		}
	}
	// Refresh the handle's cached state, as the next operation would.
	if _, err := m.tbl.Describe(m.db); err != nil {
		t.Fatal(err)
	}
}

func (m *indexModel) check(t *rapid.T) {
	if p := tableProblems(m.db, m.tbl); len(p) > 0 {
		t.Fatalf("table invariants after a step: %q", p)
	}
}

// TestIndexModel runs random Puts, Updates and Deletes whose index
// attributes appear, change type-valid values and disappear, checking
// after every step that every index equals the index recomputed from the
// base items (indexProblems), and that Queries on every index, in both
// directions, with every Limit and page size across cursors and
// ExclusiveStartKeys, equal a brute-force filter and sort of the model,
// as do Scans of every index, whole and in parallel segments. Bursts of
// concurrent writers run between steps. The faults variant runs it all
// under fdblite's injected faults (the writes are idempotent, so the
// model stays exact).
func TestIndexModel(t *testing.T) {
	for _, faults := range []bool{false, true} {
		t.Run("faults="+strconv.FormatBool(faults), func(t *testing.T) {
			db := fdblitetest.OpenIsolated(t)
			root := testRoot(t, db)
			setFaults := func(on bool) {
				f := fdblitetest.Faults{}
				if on {
					f = fdblitetest.Faults{Seed: 5, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.1}
				}
				if err := fdblitetest.SetFaults(db, f); err != nil {
					t.Fatal(err)
				}
			}
			var tx fdb.Transactor = db
			if faults {
				tx = fdblitetest.Idempotent{DB: db}
			}
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				// The directory layer's prefix allocator reports an
				// injected error unwrapped (so Transact does not retry
				// it): tables are created without faults.
				setFaults(false)
				tbl, err := Open(db, "Model"+strconv.Itoa(n), root, WithSchema(indexed))
				if err != nil {
					rt.Fatal(err)
				}
				setFaults(faults)
				m := &indexModel{db: db, tx: tx, tbl: tbl, items: map[string]Item{}}
				rt.Repeat(map[string]func(*rapid.T){
					"put":        m.put,
					"update":     m.update,
					"delete":     m.delete,
					"query":      m.query,
					"scan":       m.scan,
					"concurrent": m.concurrent,
					"build":      m.build,
					"":           m.check,
				})
			})
			setFaults(false)
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
	if err := runWorkers(workers, func(w int) error {
		r := rand.New(rand.NewPCG(seed, uint64(w)))
		for range n {
			if err := randomWrite(tx, tbl, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// Concurrent writers on overlapping keys leave every index exactly equal
// to its recomputation (checked at cleanup by checkTable).
func TestIndexConcurrentWriters(t *testing.T) {
	db, tbl := openTestTable(t, indexed)
	runWriters(t, db, tbl, 4, 40, 1)
	if p := tableProblems(db, tbl); len(p) > 0 {
		t.Fatalf("table invariants: %q", p)
	}
}

// Under injected faults (transaction_too_old, not_committed,
// commit_unknown_result), retried writes keep every index exact.
func TestIndexWritesUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(23))
	tbl, err := Open(fdblitetest.Idempotent{DB: db}, "Faulty", WithSchema(indexed))
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
	h2 := reopen(t, db, h1)
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
	db, tbl := openTestTable(t, indexed)
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
