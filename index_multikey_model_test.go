package fdyno

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// The model test of multi-attribute GSI keys: random items holding random
// subsets of the key attributes (some with the wrong type, which a write
// must refuse), random puts, updates and deletes, and random queries of
// every shape the guide allows (all partition attributes, a prefix of
// the sort attributes, a range condition on the last one given), in both
// directions and page by page, compared with a plain list filtered and
// sorted. Parallel Scans of the indexes must read exactly the indexed
// items. The table's invariants (index.go: every entry exactly its item's,
// and none other; segment.go: every partition in the directory) are
// checked after every test (newTestTable). The faults variant runs under
// fdblite's injected faults with idempotent retries, so it shows that no
// write, committed or not, leaves an entry without its item or the
// reverse.

// multiModelSchema has two GSIs over the same attributes in different
// orders and types: byM (h1 S, h2 N | r1 S, r2 N, r3 B) and byM2 (h2 N | r3 B,
// r1 S), the second KEYS_ONLY.
var multiModelSchema = TableSchema{
	KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"h1", ScalarAttributeTypeS}, {"h2", ScalarAttributeTypeN},
		{"r1", ScalarAttributeTypeS}, {"r2", ScalarAttributeTypeN}, {"r3", ScalarAttributeTypeB}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{
		{IndexName: "byM", KeySchema: cat(hashes("h1", "h2"), ranges("r1", "r2", "r3")), Projection: Projection{ProjectionType: ProjectionTypeAll}},
		{IndexName: "byM2", KeySchema: cat(hashes("h2"), ranges("r3", "r1")), Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
	},
}

var multiModelTypes = map[string]Type{"h1": TypeS, "h2": TypeN, "r1": TypeS, "r2": TypeN, "r3": TypeB}

// drawKeyValue draws a value of attribute name from a small domain (two
// values for a partition attribute), so that queries hit and sort values
// tie; one in sixteen has another type.
func drawKeyValue(t *rapid.T, name string) Value {
	typ := multiModelTypes[name]
	if rapid.IntRange(0, 15).Draw(t, name+"WrongType") == 0 {
		typ = rapid.SampledFrom([]Type{TypeS, TypeN, TypeB}).Draw(t, name+"Type")
	}
	part := name[0] == 'h'
	switch typ {
	case TypeN:
		if part {
			return NInt(rapid.SampledFrom([]int64{0, 2}).Draw(t, name+"N"))
		}
		return NInt(rapid.SampledFrom([]int64{-1, 0, 2, 10}).Draw(t, name+"N"))
	case TypeB:
		if part {
			return B(rapid.SampledFrom([][]byte{{0}, {0, 0xff}}).Draw(t, name+"B"))
		}
		return B(rapid.SampledFrom([][]byte{{0}, {1}, {0, 0xff}, {0xff}}).Draw(t, name+"B"))
	}
	if part {
		return S(rapid.SampledFrom([]string{"a", "a\x00"}).Draw(t, name+"S"))
	}
	return S(rapid.SampledFrom([]string{"a", "ab", "b", "b\x00"}).Draw(t, name+"S"))
}

type multiModel struct {
	tx    fdb.Transactor
	tbl   *Table
	items map[string]Item // pk → item
}

// wellTyped reports whether every key attribute it holds has its type.
func wellTyped(it Item) bool {
	for name, typ := range multiModelTypes {
		if v, ok := it[name]; ok && v.typ != typ {
			return false
		}
	}
	return true
}

// write applies a drawn write: refused when it would give a key attribute
// another type (rule 2), applied to the model otherwise.
func (m *multiModel) write(t *rapid.T, want Item, do func() error) {
	err := do()
	if !wellTyped(want) {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("write of %v: error %v, want a type mismatch", want, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if want == nil {
		return
	}
	m.items[want["pk"].S()] = want
}

func (m *multiModel) put(t *rapid.T) {
	it := Item{"pk": S("p" + strconv.Itoa(rapid.IntRange(0, 7).Draw(t, "pk"))), "v": NInt(rapid.Int64().Draw(t, "v"))}
	for _, name := range []string{"h1", "h2", "r1", "r2", "r3"} {
		if rapid.IntRange(0, 7).Draw(t, name+"Absent") > 0 {
			it[name] = drawKeyValue(t, name)
		}
	}
	m.write(t, it, func() error { _, err := m.tbl.Put(m.tx, PutInput{Item: it}); return err })
}

func (m *multiModel) update(t *rapid.T) {
	pk := "p" + strconv.Itoa(rapid.IntRange(0, 7).Draw(t, "pk"))
	name := rapid.SampledFrom([]string{"h1", "h2", "r1", "r2", "r3"}).Draw(t, "attr")
	want := Item{"pk": S(pk)}
	if old, ok := m.items[pk]; ok {
		want = old.with("pk", S(pk))
	}
	in := UpdateInput{Key: Item{"pk": S(pk)}, ExpressionAttributeNames: map[string]string{"#a": name}}
	if rapid.Bool().Draw(t, "remove") {
		in.UpdateExpression = "REMOVE #a"
		delete(want, name)
		if _, ok := m.items[pk]; !ok {
			want = nil // REMOVE on an absent item creates nothing
		}
	} else {
		v := drawKeyValue(t, name)
		in.UpdateExpression, in.ExpressionAttributeValues = "SET #a = :v", map[string]Value{":v": v}
		want[name] = v
	}
	m.write(t, want, func() error { _, err := m.tbl.Update(m.tx, in); return err })
}

func (m *multiModel) delete(t *rapid.T) {
	pk := "p" + strconv.Itoa(rapid.IntRange(0, 7).Draw(t, "pk"))
	if _, err := m.tbl.Delete(m.tx, DeleteInput{Key: Item{"pk": S(pk)}}); err != nil {
		t.Fatal(err)
	}
	delete(m.items, pk)
}

// indexed returns the model's items in index ix, in index order (sort
// attributes left to right, then the table key).
func (m *multiModel) indexed(ix GlobalSecondaryIndex) []Item {
	var out []Item
	for _, it := range m.items {
		in := true
		for _, k := range ix.KeySchema {
			if _, ok := it[k.AttributeName]; !ok {
				in = false
			}
		}
		if in {
			out = append(out, it)
		}
	}
	slices.SortFunc(out, func(a, b Item) int {
		for _, k := range ix.KeySchema {
			if c := compareModelValues(a[k.AttributeName], b[k.AttributeName]); c != 0 {
				return c
			}
		}
		return cmp.Compare(a["pk"].S(), b["pk"].S())
	})
	return out
}

// compareModelValues orders two key values of one type: S and B by
// bytes, N by value.
func compareModelValues(a, b Value) int {
	if a.typ == TypeN {
		x, _ := a.Int64()
		y, _ := b.Int64()
		return cmp.Compare(x, y)
	}
	return bytes.Compare([]byte(a.s), []byte(b.s))
}

// query draws a valid key condition on a random index, runs it page by
// page, and compares with the model's list filtered and sorted.
func (m *multiModel) query(t *rapid.T) {
	ix := multiModelSchema.GlobalSecondaryIndexes[rapid.IntRange(0, 1).Draw(t, "index")]
	var hash, rng []string
	for _, k := range ix.KeySchema {
		if k.KeyType == KeyTypeHash {
			hash = append(hash, k.AttributeName)
		} else {
			rng = append(rng, k.AttributeName)
		}
	}
	names, vals := map[string]string{}, map[string]Value{}
	var terms []string
	draw := func(name string) Value {
		v := drawKeyValue(t, name)
		for v.typ != multiModelTypes[name] {
			v = drawKeyValue(t, name)
		}
		return v
	}
	conds := map[string]func(Value) bool{}
	for i, name := range hash {
		v := draw(name)
		p, n := ":h"+strconv.Itoa(i), "#h"+strconv.Itoa(i)
		names[n], vals[p] = name, v
		terms = append(terms, n+" = "+p)
		conds[name] = func(x Value) bool { return compareModelValues(x, v) == 0 }
	}
	given := rapid.IntRange(0, len(rng)).Draw(t, "sortAttrs")
	for i, name := range rng[:given] {
		v := draw(name)
		p, n := ":r"+strconv.Itoa(i), "#r"+strconv.Itoa(i)
		names[n], vals[p] = name, v
		op := "="
		if i == given-1 {
			ops := []string{"=", "<", "<=", ">", ">=", "BETWEEN"}
			if multiModelTypes[name] != TypeN {
				ops = append(ops, "begins_with")
			}
			op = rapid.SampledFrom(ops).Draw(t, "op")
		}
		switch op {
		case "BETWEEN":
			hi := draw(name)
			if compareModelValues(v, hi) > 0 {
				v, hi = hi, v
				vals[p] = v
			}
			vals[p+"hi"] = hi
			terms = append(terms, n+" BETWEEN "+p+" AND "+p+"hi")
			conds[name] = func(x Value) bool { return compareModelValues(x, v) >= 0 && compareModelValues(x, hi) <= 0 }
		case "begins_with":
			terms = append(terms, "begins_with("+n+", "+p+")")
			conds[name] = func(x Value) bool { return bytes.HasPrefix([]byte(x.s), []byte(v.s)) }
		default:
			terms = append(terms, n+" "+op+" "+p)
			conds[name] = func(x Value) bool {
				c := compareModelValues(x, v)
				return map[string]bool{"=": c == 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
			}
		}
	}
	// The terms in any order (the guide does not tie them to the key's).
	perm := rapid.Permutation(terms).Draw(t, "terms")
	cond := perm[0]
	for _, term := range perm[1:] {
		cond += " AND " + term
	}
	forward := rapid.Bool().Draw(t, "forward")
	var want []string
	for _, it := range m.indexed(ix) {
		ok := true
		for name, c := range conds {
			ok = ok && c(it[name])
		}
		if ok {
			want = append(want, it["pk"].S())
		}
	}
	if !forward {
		slices.Reverse(want)
	}
	in := QueryInput{IndexName: ix.IndexName, KeyConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: vals,
		ScanIndexForward: Forward(forward), Limit: rapid.IntRange(0, 3).Draw(t, "limit")}
	got := []string{}
	for range 100 {
		out, err := m.tbl.Query(m.tx, in)
		if err != nil {
			t.Fatalf("Query(%s): %v", cond, err)
		}
		for _, it := range out.Items {
			got = append(got, it["pk"].S())
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		if len(out.LastEvaluatedKey) != len(ix.KeySchema)+1 {
			t.Fatalf("LastEvaluatedKey %v, want the table key and %d index key attributes", out.LastEvaluatedKey, len(ix.KeySchema))
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if want == nil {
		want = []string{}
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Fatalf("Query %s %s forward=%v limit=%d (-want +got):\n%s", ix.IndexName, cond, forward, in.Limit, diff)
	}
}

// scan reads every index in parallel segments and compares the items
// read with the model's indexed items.
func (m *multiModel) scan(t *rapid.T) {
	ix := multiModelSchema.GlobalSecondaryIndexes[rapid.IntRange(0, 1).Draw(t, "index")]
	total := rapid.IntRange(1, 4).Draw(t, "totalSegments")
	var got []string
	for seg := range total {
		in := ScanInput{IndexName: ix.IndexName, Segment: seg, TotalSegments: total, Limit: rapid.IntRange(0, 2).Draw(t, "limit")}
		for range 100 {
			out, err := m.tbl.Scan(m.tx, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				got = append(got, it["pk"].S())
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	var want []string
	for _, it := range m.indexed(ix) {
		want = append(want, it["pk"].S())
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Fatalf("Scan %s in %d segments (-want +got):\n%s", ix.IndexName, total, diff)
	}
}

func TestMultiKeyModel(t *testing.T) {
	for _, faults := range []bool{false, true} {
		t.Run("faults="+strconv.FormatBool(faults), func(t *testing.T) {
			db := fdblitetest.OpenIsolated(t)
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				if faults && n > 20 {
					return // retries back off: 20 runs keep the variant within the test-time budget
				}
				setModelFaults(t, db, false) // the directory layer does not retry its own errors
				tbl := newTestTable(t, db, multiModelSchema)
				setModelFaults(t, db, faults)
				defer setModelFaults(t, db, false)
				var tx fdb.Transactor = db
				if faults {
					tx = fdblitetest.Idempotent{DB: db}
				}
				m := &multiModel{tx: tx, tbl: tbl, items: map[string]Item{}}
				rt.Repeat(map[string]func(*rapid.T){
					"put":    m.put,
					"update": m.update,
					"delete": m.delete,
					"query":  m.query,
					"scan":   m.scan,
				})
				setModelFaults(t, db, false)
				if problems := tableProblems(db, tbl); len(problems) > 0 {
					rt.Fatalf("table invariants: %v", problems)
				}
			})
		})
	}
}

func setModelFaults(t *testing.T, db fdb.Database, on bool) {
	f := fdblitetest.Faults{}
	if on {
		f = fdblitetest.Faults{Seed: 11, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.1}
	}
	if err := fdblitetest.SetFaults(db, f); err != nil {
		t.Fatal(err)
	}
}
