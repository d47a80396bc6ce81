package fdyno

import (
	"errors"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"pgregory.net/rapid"
)

// TestItemModel runs random Put, Update and Delete sequences against an
// in-memory model of DynamoDB's semantics, checking item contents,
// condition outcomes and return values after every step, and the chunk
// invariants (no orphan chunks, no manifest without its chunks) too.
func TestItemModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	var n int
	rapid.Check(t, func(rt *rapid.T) {
		n++
		tbl, err := Open(db, "Model"+strconv.Itoa(n), root, WithSchema(hashRange), WithChunkThreshold(300))
		if err != nil {
			rt.Fatal(err)
		}
		m := &itemModel{db: db, tbl: tbl, items: map[string]Item{}}
		rt.Repeat(map[string]func(*rapid.T){
			"put":    m.put,
			"update": m.update,
			"delete": m.delete,
			"":       m.check,
		})
	})
}

type itemModel struct {
	db    fdb.Database
	tbl   *Table
	items map[string]Item // by modelKey
}

func (m *itemModel) drawKey(t *rapid.T) Item {
	return Item{
		"pk": S(rapid.SampledFrom([]string{"a", "b"}).Draw(t, "pk")),
		"sk": NInt(rapid.Int64Range(-1, 1).Draw(t, "sk")),
	}
}

func modelKey(key Item) string { return key["pk"].S() + "/" + key["sk"].N() }

// drawBig returns a string attribute value from empty to several chunks.
func drawBig(t *rapid.T) Value {
	size := rapid.SampledFrom([]int{0, 10, 299, 301, 65_000, 140_000}).Draw(t, "bigSize")
	return S(strings.Repeat("b", size))
}

// drawCondition returns a condition, its values and the model's verdict
// for the item old (nil if absent).
func drawCondition(t *rapid.T) (string, map[string]Value, func(old Item) bool) {
	switch rapid.IntRange(0, 3).Draw(t, "condition") {
	case 1:
		return "attribute_not_exists(pk)", nil, func(old Item) bool { return old == nil }
	case 2:
		return "attribute_exists(pk)", nil, func(old Item) bool { return old != nil }
	case 3:
		v := NInt(rapid.Int64Range(0, 2).Draw(t, "condV"))
		return "n = :c", map[string]Value{":c": v}, func(old Item) bool { return old != nil && old["n"].Equal(v) }
	}
	return "", nil, func(Item) bool { return true }
}

func (m *itemModel) put(t *rapid.T) {
	key := m.drawKey(t)
	it := maps.Clone(key)
	if rapid.Bool().Draw(t, "hasN") {
		it["n"] = NInt(rapid.Int64Range(0, 2).Draw(t, "n"))
	}
	if rapid.Bool().Draw(t, "hasBig") {
		it["big"] = drawBig(t)
	}
	cond, vals, holds := drawCondition(t)
	rv := rapid.SampledFrom([]ReturnValue{"", ReturnValueNone, ReturnValueAllOld}).Draw(t, "rv")
	old := m.items[modelKey(key)]
	out, err := m.tbl.Put(m.db, PutInput{Item: it, ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValues: rv,
		ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailureAllOld})
	if !m.outcome(t, err, holds(old), old) {
		return
	}
	m.items[modelKey(key)] = it
	wantAttrs := Item(nil)
	if rv == ReturnValueAllOld {
		wantAttrs = old
	}
	expectItem(t, "Put Attributes", wantAttrs, out.Attributes)
}

func (m *itemModel) update(t *rapid.T) {
	key := m.drawKey(t)
	old := m.items[modelKey(key)]
	base := maps.Clone(key)
	if old != nil {
		base = maps.Clone(old)
	}
	var expr string
	vals := map[string]Value{}
	attr := "n"
	switch rapid.IntRange(0, 3).Draw(t, "action") {
	case 0:
		v := NInt(rapid.Int64Range(0, 2).Draw(t, "set"))
		expr, vals[":v"] = "SET n = :v", v
		base["n"] = v
	case 1:
		expr, vals[":v"] = "ADD n :v", N("1")
		cur := int64(0)
		if v, ok := base["n"]; ok {
			cur, _ = v.Int64()
		}
		base["n"] = NInt(cur + 1)
	case 2:
		attr, expr = "big", "REMOVE big"
		delete(base, "big")
		if old == nil {
			// REMOVE alone creates no item (API_UpdateItem: only SET
			// and ADD create one).
			base = nil
		}
	case 3:
		v := drawBig(t)
		attr, expr, vals[":v"] = "big", "SET big = :v", v
		base["big"] = v
	}
	cond, cvals, holds := drawCondition(t)
	maps.Copy(vals, cvals)
	if len(vals) == 0 {
		vals = nil
	}
	rv := rapid.SampledFrom([]ReturnValue{"", ReturnValueAllOld, ReturnValueUpdatedOld, ReturnValueAllNew, ReturnValueUpdatedNew}).Draw(t, "rv")
	out, err := m.tbl.Update(m.db, UpdateInput{Key: key, UpdateExpression: expr, ConditionExpression: cond, ExpressionAttributeValues: vals,
		ReturnValues: rv, ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailureAllOld})
	if !m.outcome(t, err, holds(old), old) {
		return
	}
	if base != nil {
		m.items[modelKey(key)] = base
	}
	var want Item
	pick := func(it Item) Item {
		if v, ok := it[attr]; ok {
			return Item{attr: v}
		}
		return nil
	}
	switch rv {
	case ReturnValueAllOld:
		want = old
	case ReturnValueAllNew:
		want = base
	case ReturnValueUpdatedOld:
		want = pick(old)
	case ReturnValueUpdatedNew:
		want = pick(base)
	}
	expectItem(t, "Update Attributes", want, out.Attributes)
}

func (m *itemModel) delete(t *rapid.T) {
	key := m.drawKey(t)
	old := m.items[modelKey(key)]
	cond, vals, holds := drawCondition(t)
	rv := rapid.SampledFrom([]ReturnValue{"", ReturnValueAllOld}).Draw(t, "rv")
	out, err := m.tbl.Delete(m.db, DeleteInput{Key: key, ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValues: rv})
	if !m.outcome(t, err, holds(old), nil) {
		return
	}
	delete(m.items, modelKey(key))
	want := Item(nil)
	if rv == ReturnValueAllOld {
		want = old
	}
	expectItem(t, "Delete Attributes", want, out.Attributes)
}

// outcome checks err against the model's verdict on the condition and
// reports whether the write happened. failItem is the item a
// ConditionalCheckFailedError must carry.
func (m *itemModel) outcome(t *rapid.T, err error, holds bool, failItem Item) bool {
	if holds {
		if err != nil {
			t.Fatalf("write failed although its condition holds: %v", err)
		}
		return true
	}
	var ccf *ConditionalCheckFailedError
	if !errors.As(err, &ccf) {
		t.Fatalf("write = %v, want ConditionalCheckFailedError", err)
	}
	if failItem != nil {
		expectItem(t, "ConditionalCheckFailedError.Item", failItem, ccf.Item)
	}
	return false
}

func expectItem(t *rapid.T, what string, want, got Item) {
	if !want.Equal(got) || (want == nil) != (got == nil) {
		t.Fatalf("%s = %v, want %v", what, trim(got), trim(want))
	}
}

// trim shortens big values for failure messages.
func trim(it Item) string {
	s := it.String()
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// check compares every key with the model and runs checkTable.
func (m *itemModel) check(t *rapid.T) {
	for _, pk := range []string{"a", "b"} {
		for sk := int64(-1); sk <= 1; sk++ {
			key := Item{"pk": S(pk), "sk": NInt(sk)}
			out, err := m.tbl.Get(m.db, GetInput{Key: key})
			if err != nil {
				t.Fatal(err)
			}
			expectItem(t, "Get("+modelKey(key)+")", m.items[modelKey(key)], out.Item)
		}
	}
	if p := tableProblems(m.db, m.tbl); len(p) > 0 {
		t.Fatalf("table invariants: %q", p)
	}
}
