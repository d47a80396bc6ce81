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
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"pgregory.net/rapid"
)

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
	hv, _ := drawAttr(t, ix.hash.Name)
	if ix.hash.Name == "pk" {
		hv = m.drawKey(t)["pk"]
	}
	for hv.typ == 0 {
		hv, _ = drawAttr(t, ix.hash.Name)
	}
	cond := "#h = :h"
	names := map[string]string{"#h": ix.hash.Name}
	vals := map[string]Value{":h": hv}
	var sortOK func(Value) bool = func(Value) bool { return true }
	if ix.rng.Name != "" && rapid.Bool().Draw(t, "sortCond") {
		var sv Value
		if ix.rng.Name == "sk" {
			sv = NInt(rapid.Int64Range(-1, 2).Draw(t, "sv"))
		} else {
			for sv.typ == 0 {
				sv, _ = drawAttr(t, ix.rng.Name)
			}
		}
		ops := []string{"=", "<", "<=", ">", ">=", "BETWEEN"}
		if sv.typ == TypeS {
			ops = append(ops, "begins_with")
		}
		op := rapid.SampledFrom(ops).Draw(t, "op")
		names["#r"], vals[":r"] = ix.rng.Name, sv
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
		v, ok := it[ix.hash.Name]
		if !ok || !v.Equal(hv) {
			continue
		}
		if ix.rng.Name != "" {
			r, ok := it[ix.rng.Name]
			if !ok || !sortOK(r) {
				continue
			}
		}
		want = append(want, it)
	}
	slices.SortFunc(want, func(a, b Item) int {
		c := 0
		if ix.rng.Name != "" {
			c = compareKeyValues(a[ix.rng.Name], b[ix.rng.Name])
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
		want[i] = expectedProjection(st.schema, append([]KeySchemaElement{{ix.hash.Name, KeyTypeHash}}, rangeKS(ix)...), ix.proj, it)
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
		for _, a := range []string{"pk", "sk", ix.hash.Name, ix.rng.Name} {
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

func rangeKS(ix *indexDef) []KeySchemaElement {
	if ix.rng.Name == "" {
		return nil
	}
	return []KeySchemaElement{{ix.rng.Name, KeyTypeRange}}
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
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			for range 4 {
				if err := randomWrite(m.tx, m.tbl, r); err != nil {
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
	ks := append([]KeySchemaElement{{ix.hash.Name, KeyTypeHash}}, rangeKS(ix)...)
	var want []string
	valid := func(it Item, a keyAttr, hash bool) bool {
		v, ok := it[a.Name]
		return ok && checkKeyValue(a.Name, v, a.Type, hash) == nil // e.g. at most 2048 bytes
	}
	for _, it := range m.items {
		if !valid(it, ix.hash, true) || ix.rng.Name != "" && !valid(it, ix.rng, false) {
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
		if _, err := transact(m.tx, func(tr fdb.Transaction) (BackfillProgress, error) { return m.tbl.backfillBatch(tr, "byA", batch) }); err != nil {
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
				tx = idempotent{db}
			}
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				if faults && n > 25 {
					return // retries back off: 25 runs keep the variant within the test-time budget
				}
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
