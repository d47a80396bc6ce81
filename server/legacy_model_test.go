package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/internal/avjson"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestLegacyConditionModel checks random legacy conditions on random
// items three ways: as a ScanFilter, as the FilterExpression a user would
// write by hand for it, and as Expected on a PutItem. All three must agree
// with refMatch, a small evaluator written from the API reference's
// Condition page, independently of the server's translation.
func TestLegacyConditionModel(t *testing.T) {
	ts := newTestServer(t, Config{})
	ts.mustCall(t, "CreateTable", `{"TableName":"Model","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`)
	var stored []string
	rapid.Check(t, func(rt *rapid.T) {
		for _, pk := range stored {
			ts.mustCall(t, "DeleteItem", `{"TableName":"Model","Key":{"pk":{"S":"`+pk+`"}}}`)
		}
		stored = stored[:0]
		items := map[string]fdyno.Item{}
		for i := range rapid.IntRange(1, 8).Draw(rt, "items") {
			pk := fmt.Sprint("k", i)
			it := fdyno.Item{"pk": fdyno.S(pk)}
			for _, a := range []string{"a", "b", "c"} {
				if rapid.Bool().Draw(rt, "has "+a) {
					it[a] = modelValue().Draw(rt, a)
				}
			}
			items[pk] = it
			stored = append(stored, pk)
			ts.mustCall(t, "PutItem", `{"TableName":"Model","Item":`+string(appendItem(nil, it))+`}`)
		}
		var conds []refCond
		for _, a := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "c"}), 1, 3, rapid.ID[string]).Draw(rt, "attrs") {
			conds = append(conds, modelCond(a).Draw(rt, "cond "+a))
		}
		op := "AND"
		if len(conds) > 1 {
			op = rapid.SampledFrom([]string{"AND", "OR"}).Draw(rt, "op")
		}
		var want []string
		for pk, it := range items {
			if refMatch(it, conds, op) {
				want = append(want, pk)
			}
		}
		sort.Strings(want)
		if want == nil {
			want = []string{}
		}

		filter := `{"TableName":"Model","ScanFilter":{`
		for i, c := range conds {
			if i > 0 {
				filter += ","
			}
			filter += `"` + c.attr + `":` + c.json()
		}
		filter += `}`
		if len(conds) > 1 {
			filter += `,"ConditionalOperator":"` + op + `"`
		}
		filter += `}`
		if diff := cmp.Diff(want, keysOf(ts.mustCall(t, "Scan", filter))); diff != "" {
			rt.Fatalf("ScanFilter %s (-model +server):\n%s", filter, diff)
		}

		expr, names, values := twinExpression(conds, op)
		twin := `{"TableName":"Model","FilterExpression":` + string(avjson.AppendString(nil, expr)) + `,"ExpressionAttributeNames":` + mapJSON(names)
		if values != nil {
			twin += `,"ExpressionAttributeValues":` + string(appendItem(nil, values))
		}
		twin += `}`
		if diff := cmp.Diff(want, keysOf(ts.mustCall(t, "Scan", twin))); diff != "" {
			rt.Fatalf("FilterExpression %s (-model +server):\n%s", twin, diff)
		}

		pk := rapid.SampledFrom(stored).Draw(rt, "put on")
		put := strings.Replace(strings.Replace(filter, `"ScanFilter"`, `"Expected"`, 1), `"TableName":"Model"`,
			`"TableName":"Model","Item":`+string(appendItem(nil, items[pk])), 1)
		code, _, name, msg := ts.call(t, "PutItem", put)
		passed := code == http.StatusOK
		if !passed && name != "ConditionalCheckFailedException" {
			rt.Fatalf("PutItem %s: %s: %s", put, name, msg)
		}
		if passed != slices.Contains(want, pk) {
			rt.Fatalf("PutItem with Expected on %s passed=%v, model says %v", pk, passed, !passed)
		}
	})
}

// modelValue draws an attribute value from a small domain, so that
// random conditions often match.
func modelValue() *rapid.Generator[fdyno.Value] {
	strs := []string{"", "a", "ab", "b", "ba"}
	nums := []string{"-1", "0", "1", "1.5", "10"}
	return rapid.Custom(func(t *rapid.T) fdyno.Value {
		switch rapid.IntRange(0, 9).Draw(t, "type") {
		case 0:
			return fdyno.S(rapid.SampledFrom(strs).Draw(t, "s"))
		case 1:
			return fdyno.N(rapid.SampledFrom(nums).Draw(t, "n"))
		case 2:
			return fdyno.B([]byte(rapid.SampledFrom(strs[1:]).Draw(t, "b")))
		case 3:
			return fdyno.SS(rapid.SliceOfNDistinct(rapid.SampledFrom(strs), 1, 3, rapid.ID[string]).Draw(t, "ss")...)
		case 4:
			return fdyno.NS(rapid.SliceOfNDistinct(rapid.SampledFrom(nums), 1, 3, rapid.ID[string]).Draw(t, "ns")...)
		case 5:
			var bs [][]byte
			for _, s := range rapid.SliceOfNDistinct(rapid.SampledFrom(strs[1:]), 1, 3, rapid.ID[string]).Draw(t, "bs") {
				bs = append(bs, []byte(s))
			}
			return fdyno.BS(bs...)
		case 6:
			var l []fdyno.Value
			for range rapid.IntRange(0, 3).Draw(t, "len") {
				if rapid.Bool().Draw(t, "num") {
					l = append(l, fdyno.N(rapid.SampledFrom(nums).Draw(t, "n")))
				} else {
					l = append(l, fdyno.S(rapid.SampledFrom(strs).Draw(t, "s")))
				}
			}
			return fdyno.L(l...)
		case 7:
			return fdyno.Bool(rapid.Bool().Draw(t, "bool"))
		case 8:
			return fdyno.Null()
		}
		return fdyno.M(fdyno.Item{"a": fdyno.S(rapid.SampledFrom(strs[:3]).Draw(t, "m"))})
	})
}

// refCond is a legacy Condition of the model.
type refCond struct {
	attr string
	op   string
	args []fdyno.Value
}

func (c refCond) json() string {
	s := `{"ComparisonOperator":"` + c.op + `"`
	if len(c.args) > 0 {
		s += `,"AttributeValueList":[`
		for i, a := range c.args {
			if i > 0 {
				s += ","
			}
			s += string(appendValue(nil, a))
		}
		s += `]`
	}
	return s + `}`
}

// modelCond draws a valid Condition on attr: the argument count and
// types each operator takes, BETWEEN's bounds in order.
func modelCond(attr string) *rapid.Generator[refCond] {
	return rapid.Custom(func(t *rapid.T) refCond {
		op := rapid.SampledFrom([]string{"EQ", "NE", "LE", "LT", "GE", "GT", "NOT_NULL", "NULL", "CONTAINS", "NOT_CONTAINS", "BEGINS_WITH", "IN", "BETWEEN"}).Draw(t, "op")
		scalar := rapid.Custom(func(t *rapid.T) fdyno.Value {
			for {
				v := modelValue().Draw(t, "arg")
				if v.Type() == fdyno.TypeS || v.Type() == fdyno.TypeN || v.Type() == fdyno.TypeB {
					return v
				}
			}
		})
		c := refCond{attr: attr, op: op}
		switch op {
		case "NULL", "NOT_NULL":
		case "EQ", "NE":
			// EQ and NE take every type, lists and maps included.
			c.args = []fdyno.Value{modelValue().Draw(t, "arg")}
		case "BEGINS_WITH":
			for {
				v := scalar.Draw(t, "prefix")
				if v.Type() != fdyno.TypeN {
					c.args = []fdyno.Value{v}
					break
				}
			}
		case "IN":
			first := scalar.Draw(t, "first")
			c.args = []fdyno.Value{first}
			for range rapid.IntRange(0, 3).Draw(t, "more") {
				if v := scalar.Draw(t, "in"); v.Type() == first.Type() {
					c.args = append(c.args, v)
				}
			}
		case "BETWEEN":
			lo := scalar.Draw(t, "lo")
			for {
				hi := scalar.Draw(t, "hi")
				if hi.Type() == lo.Type() {
					if refCompare(lo, hi) > 0 {
						lo, hi = hi, lo
					}
					c.args = []fdyno.Value{lo, hi}
					break
				}
			}
		default:
			c.args = []fdyno.Value{scalar.Draw(t, "arg")}
		}
		return c
	})
}

// refCompare orders two S, N or B values of one type.
func refCompare(a, b fdyno.Value) int {
	switch a.Type() {
	case fdyno.TypeN:
		x, _ := new(big.Rat).SetString(a.N())
		y, _ := new(big.Rat).SetString(b.N())
		return x.Cmp(y)
	case fdyno.TypeB:
		return bytes.Compare(a.B(), b.B())
	}
	return strings.Compare(a.S(), b.S())
}

// refEqual is the API reference's equality: same type, same value (sets
// in any order, numbers by value).
func refEqual(a, b fdyno.Value) bool {
	if a.IsZero() || b.IsZero() || a.Type() != b.Type() {
		return false
	}
	switch a.Type() {
	case fdyno.TypeS, fdyno.TypeN, fdyno.TypeB:
		return refCompare(a, b) == 0
	case fdyno.TypeSS, fdyno.TypeNS, fdyno.TypeBS:
		am, bm := refMembers(a), refMembers(b)
		if len(am) != len(bm) {
			return false
		}
		for _, x := range am {
			if !slices.ContainsFunc(bm, func(y fdyno.Value) bool { return refEqual(x, y) }) {
				return false
			}
		}
		return true
	case fdyno.TypeL:
		al, bl := a.L(), b.L()
		return len(al) == len(bl) && refListEqual(al, bl)
	case fdyno.TypeM:
		am, bm := a.M(), b.M()
		if len(am) != len(bm) {
			return false
		}
		for k, x := range am {
			if !refEqual(x, bm[k]) {
				return false
			}
		}
		return true
	case fdyno.TypeBOOL:
		return a.Bool() == b.Bool()
	}
	return true // NULL equals NULL
}

// refListEqual compares two lists element by element, in order.
func refListEqual(a, b []fdyno.Value) bool {
	for i := range a {
		if !refEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// refMembers returns a set's members as scalar values.
func refMembers(v fdyno.Value) []fdyno.Value {
	var out []fdyno.Value
	switch v.Type() {
	case fdyno.TypeSS:
		for _, s := range v.SS() {
			out = append(out, fdyno.S(s))
		}
	case fdyno.TypeNS:
		for _, s := range v.NS() {
			out = append(out, fdyno.N(s))
		}
	case fdyno.TypeBS:
		for _, b := range v.BS() {
			out = append(out, fdyno.B(b))
		}
	case fdyno.TypeL:
		out = v.L()
	}
	return out
}

func refContains(v, x fdyno.Value) bool {
	switch {
	case v.Type() == fdyno.TypeS && x.Type() == fdyno.TypeS:
		return strings.Contains(v.S(), x.S())
	case v.Type() == fdyno.TypeB && x.Type() == fdyno.TypeB:
		return bytes.Contains(v.B(), x.B())
	case v.Type() == fdyno.TypeSS, v.Type() == fdyno.TypeNS, v.Type() == fdyno.TypeBS, v.Type() == fdyno.TypeL:
		return slices.ContainsFunc(refMembers(v), func(m fdyno.Value) bool { return refEqual(m, x) })
	}
	return false
}

// refMatch evaluates legacy conditions joined by op on an item.
func refMatch(it fdyno.Item, conds []refCond, op string) bool {
	for _, c := range conds {
		ok := refTest(it[c.attr], c)
		if op == "OR" && ok {
			return true
		}
		if op == "AND" && !ok {
			return false
		}
	}
	return op == "AND"
}

func refTest(v fdyno.Value, c refCond) bool {
	ordered := func(ok func(int) bool) bool {
		a := c.args[0]
		return !v.IsZero() && v.Type() == a.Type() && ok(refCompare(v, a))
	}
	switch c.op {
	case "EQ":
		return refEqual(v, c.args[0])
	case "NE":
		return !refEqual(v, c.args[0])
	case "LT":
		return ordered(func(r int) bool { return r < 0 })
	case "LE":
		return ordered(func(r int) bool { return r <= 0 })
	case "GT":
		return ordered(func(r int) bool { return r > 0 })
	case "GE":
		return ordered(func(r int) bool { return r >= 0 })
	case "NULL":
		return v.IsZero()
	case "NOT_NULL":
		return !v.IsZero()
	case "CONTAINS":
		return refContains(v, c.args[0])
	case "NOT_CONTAINS":
		// False on a missing attribute, unlike NE.
		return !v.IsZero() && !refContains(v, c.args[0])
	case "BEGINS_WITH":
		a := c.args[0]
		return v.Type() == a.Type() && (a.Type() == fdyno.TypeS && strings.HasPrefix(v.S(), a.S()) || a.Type() == fdyno.TypeB && bytes.HasPrefix(v.B(), a.B()))
	case "IN":
		return slices.ContainsFunc(c.args, func(a fdyno.Value) bool { return refEqual(v, a) })
	case "BETWEEN":
		lo, hi := c.args[0], c.args[1]
		return !v.IsZero() && v.Type() == lo.Type() && refCompare(v, lo) >= 0 && refCompare(v, hi) <= 0
	}
	panic(c.op)
}

// twinExpression writes conds as the FilterExpression a user would, with
// its own placeholders.
func twinExpression(conds []refCond, op string) (string, map[string]string, fdyno.Item) {
	names, values := map[string]string{}, fdyno.Item{}
	var parts []string
	for i, c := range conds {
		n := fmt.Sprintf("#n%d", i)
		names[n] = c.attr
		var vs []string
		for j, a := range c.args {
			k := fmt.Sprintf(":v%d_%d", i, j)
			values[k] = a
			vs = append(vs, k)
		}
		parts = append(parts, map[string]func() string{
			"EQ":           func() string { return n + " = " + vs[0] },
			"NE":           func() string { return n + " <> " + vs[0] },
			"LT":           func() string { return n + " < " + vs[0] },
			"LE":           func() string { return n + " <= " + vs[0] },
			"GT":           func() string { return n + " > " + vs[0] },
			"GE":           func() string { return n + " >= " + vs[0] },
			"NULL":         func() string { return "attribute_not_exists(" + n + ")" },
			"NOT_NULL":     func() string { return "attribute_exists(" + n + ")" },
			"CONTAINS":     func() string { return "contains(" + n + ", " + vs[0] + ")" },
			"NOT_CONTAINS": func() string { return "(attribute_exists(" + n + ") AND NOT contains(" + n + ", " + vs[0] + "))" },
			"BEGINS_WITH":  func() string { return "begins_with(" + n + ", " + vs[0] + ")" },
			"IN":           func() string { return n + " IN (" + strings.Join(vs, ", ") + ")" },
			"BETWEEN":      func() string { return n + " BETWEEN " + vs[0] + " AND " + vs[1] },
		}[c.op]())
	}
	if len(values) == 0 {
		values = nil
	}
	return strings.Join(parts, " "+op+" "), names, values
}

func mapJSON(m map[string]string) string {
	var b []byte
	b = append(b, '{')
	first := true
	for k, v := range m {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = avjson.AppendString(b, k)
		b = append(b, ':')
		b = avjson.AppendString(b, v)
	}
	return string(append(b, '}'))
}

// TestLegacyAttributeUpdatesModel applies random AttributeUpdates to an
// item and compares the stored item with a model of the
// AttributeValueUpdate page's rules: PUT sets; DELETE without a value
// removes; DELETE with a set subtracts from a set of its type (an emptied
// set is removed, a missing attribute stays missing); ADD adds a number,
// unions a set, appends a list, or creates the attribute; an ADD or
// DELETE that meets another type fails the whole request, which then
// writes nothing.
func TestLegacyAttributeUpdatesModel(t *testing.T) {
	ts := newTestServer(t, Config{})
	ts.mustCall(t, "CreateTable", `{"TableName":"UpdModel","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`)
	rapid.Check(t, func(rt *rapid.T) {
		ts.mustCall(t, "DeleteItem", `{"TableName":"UpdModel","Key":{"pk":{"S":"k"}}}`)
		model := fdyno.Item{"pk": fdyno.S("k")}
		ts.mustCall(t, "PutItem", `{"TableName":"UpdModel","Item":`+string(appendItem(nil, model))+`}`)
		for step := range rapid.IntRange(1, 6).Draw(rt, "steps") {
			updates := map[string]string{}
			next := fdyno.Item{}
			for k, v := range model {
				next[k] = v
			}
			failed := false
			for _, a := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "c"}), 1, 3, rapid.ID[string]).Draw(rt, "attrs") {
				action := rapid.SampledFrom([]string{"PUT", "DELETE", "DELETE-set", "ADD"}).Draw(rt, "action")
				var v fdyno.Value
				switch action {
				case "PUT":
					v = modelValue().Draw(rt, "value")
				case "DELETE-set":
					v = rapid.SampledFrom([]fdyno.Value{fdyno.SS("a", "b"), fdyno.SS("ab"), fdyno.NS("1", "10"), fdyno.BS([]byte("a"))}).Draw(rt, "set")
					action = "DELETE"
				case "ADD":
					v = rapid.SampledFrom([]fdyno.Value{fdyno.N("1"), fdyno.N("-1.5"), fdyno.SS("a", "c"), fdyno.NS("10", "2"), fdyno.BS([]byte("b")),
						fdyno.L(fdyno.S("x")), fdyno.L()}).Draw(rt, "add")
				}
				u := `{"Action":"` + action + `"`
				if !v.IsZero() {
					u += `,"Value":` + string(appendValue(nil, v))
				}
				updates[a] = u + `}`
				if !modelUpdate(next, a, action, v) {
					failed = true
				}
			}
			body := `{"TableName":"UpdModel","Key":{"pk":{"S":"k"}},"AttributeUpdates":` + mapRawJSON(updates) + `}`
			code, _, name, msg := ts.call(t, "UpdateItem", body)
			switch {
			case failed && (code != http.StatusBadRequest || msg != "Type mismatch for attribute to update"):
				rt.Fatalf("step %d: UpdateItem %s: %d %s: %s, want Type mismatch for attribute to update", step, body, code, name, msg)
			case !failed && code != http.StatusOK:
				rt.Fatalf("step %d: UpdateItem %s: %d %s: %s", step, body, code, name, msg)
			case !failed:
				model = next
			}
			got := getModelItem(t, ts)
			if !itemsAgree(model, got) {
				rt.Fatalf("step %d after %s:\nmodel  %v\nserver %v", step, body, model, got)
			}
		}
	})
}

// modelUpdate applies one legacy action to it, reporting false for a
// type mismatch.
func modelUpdate(it fdyno.Item, attr, action string, v fdyno.Value) bool {
	old, has := it[attr]
	switch {
	case action == "PUT":
		it[attr] = v
	case action == "DELETE" && v.IsZero():
		delete(it, attr)
	case action == "DELETE":
		if !has {
			return true
		}
		if old.Type() != v.Type() {
			return false
		}
		var keep []fdyno.Value
		for _, m := range refMembers(old) {
			if !slices.ContainsFunc(refMembers(v), func(x fdyno.Value) bool { return refEqual(m, x) }) {
				keep = append(keep, m)
			}
		}
		if len(keep) == 0 {
			delete(it, attr)
		} else {
			it[attr] = setOf(old.Type(), keep)
		}
	case !has:
		it[attr] = v
	case old.Type() != v.Type():
		return false
	case v.Type() == fdyno.TypeN:
		x, _ := new(big.Rat).SetString(old.N())
		y, _ := new(big.Rat).SetString(v.N())
		it[attr] = fdyno.N(x.Add(x, y).FloatString(1))
	case v.Type() == fdyno.TypeL:
		it[attr] = fdyno.L(append(slices.Clone(old.L()), v.L()...)...)
	default:
		members := refMembers(old)
		for _, m := range refMembers(v) {
			if !slices.ContainsFunc(members, func(x fdyno.Value) bool { return refEqual(m, x) }) {
				members = append(members, m)
			}
		}
		it[attr] = setOf(old.Type(), members)
	}
	return true
}

func setOf(t fdyno.Type, members []fdyno.Value) fdyno.Value {
	var ss []string
	var bs [][]byte
	for _, m := range members {
		switch t {
		case fdyno.TypeSS:
			ss = append(ss, m.S())
		case fdyno.TypeNS:
			ss = append(ss, m.N())
		default:
			bs = append(bs, m.B())
		}
	}
	switch t {
	case fdyno.TypeSS:
		return fdyno.SS(ss...)
	case fdyno.TypeNS:
		return fdyno.NS(ss...)
	}
	return fdyno.BS(bs...)
}

// itemsAgree compares items attribute by attribute: numbers by value,
// sets in any order, lists element by element.
func itemsAgree(a, b fdyno.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !valuesAgree(v, w) {
			return false
		}
	}
	return true
}

func valuesAgree(v, w fdyno.Value) bool {
	if v.Type() != w.Type() {
		return false
	}
	switch v.Type() {
	case fdyno.TypeS, fdyno.TypeN, fdyno.TypeB, fdyno.TypeSS, fdyno.TypeNS, fdyno.TypeBS:
		return refEqual(v, w)
	case fdyno.TypeL:
		return slices.EqualFunc(v.L(), w.L(), valuesAgree)
	}
	return v.Equal(w)
}

func getModelItem(t testing.TB, ts *testServer) fdyno.Item {
	t.Helper()
	out := ts.mustCall(t, "GetItem", `{"TableName":"UpdModel","Key":{"pk":{"S":"k"}},"ConsistentRead":true}`)
	raw, err := json.Marshal(out["Item"])
	if err != nil {
		t.Fatal(err)
	}
	var it wireItem
	if err := it.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	return fdyno.Item(it)
}

func mapRawJSON(m map[string]string) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, string(avjson.AppendString(nil, k))+":"+v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}
