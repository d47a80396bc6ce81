package fdyno

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fdyno/fdyno/internal/expr"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// Property tests of the expression parsers, and their fuzz targets.

// exprCmpOpts compares parsed expressions field by field; Values compare
// with their Equal method.
var exprCmpOpts = cmp.Options{cmp.AllowUnexported(condition{}, operand{}, pathElem{}, update{}, updateAction{}),
	// The tree is derived from the actions, an operand's scalar from its
	// value.
	cmpopts.IgnoreFields(update{}, "tree"), cmpopts.IgnoreFields(operand{}, "scalar")}

// Placeholders the generated expressions use.
var genValues = map[string]Value{
	":n": N("7"), ":lo": N("1"), ":hi": N("9"), ":s": S("ab"), ":b": B([]byte("ab")),
	":ss": SS("x", "y"), ":ns": NS("1", "2"), ":l": L(N("1")), ":tS": S("S"), ":bool": Bool(true),
}

// genPath draws a path over non-reserved names from pool.
func genPath(t *rapid.T, pool []string, label string) docPath {
	p := docPath{{Name: rapid.SampledFrom(pool).Draw(t, label)}}
	n := rapid.IntRange(0, 3).Draw(t, label+"-len")
	for range n {
		if rapid.Bool().Draw(t, label+"-index") {
			p = append(p, pathElem{Index: rapid.IntRange(0, 12).Draw(t, label+"-i"), IsIndex: true})
		} else {
			p = append(p, pathElem{Name: rapid.SampledFrom(pool).Draw(t, label+"-name")})
		}
	}
	return p
}

func genValueOperand(t *rapid.T, keys ...string) operand {
	k := rapid.SampledFrom(keys).Draw(t, "value")
	return operand{Kind: expr.OpValue, Token: k, Value: genValues[k]}
}

var leftNames = []string{"a", "b", "c", "x_1", "Price"}
var rightNames = []string{"d", "e", "f2"}

// genCondition draws a condition that DynamoDB's rules accept.
func genCondition(t *rapid.T, depth int) *condition {
	max := 8
	if depth >= 4 {
		max = 5
	}
	lhs := func() operand {
		switch rapid.IntRange(0, 9).Draw(t, "size") {
		case 0, 1:
			return operand{Kind: expr.OpCall, Fn: "size", Args: []operand{{Kind: expr.OpPath, Path: genPath(t, leftNames, "sp")}}}
		case 2:
			return operand{Kind: expr.OpCall, Fn: "size", Args: []operand{genValueOperand(t, ":s", ":l", ":ss")}}
		}
		return operand{Kind: expr.OpPath, Path: genPath(t, leftNames, "p")}
	}
	switch rapid.IntRange(0, max).Draw(t, "kind") {
	case 0:
		op := rapid.SampledFrom([]string{"=", "<>", "<", "<=", ">", ">="}).Draw(t, "op")
		right := genValueOperand(t, ":n", ":s", ":b", ":ss", ":l")
		if op != "=" && op != "<>" {
			// Only N, S and B constants can be ordered.
			right = genValueOperand(t, ":n", ":s", ":b")
		}
		if rapid.Bool().Draw(t, "path-right") {
			right = operand{Kind: expr.OpPath, Path: genPath(t, rightNames, "rp")}
		}
		return &condition{Kind: expr.CondCompare, Op: op, Args: []operand{lhs(), right}}
	case 1:
		return &condition{Kind: expr.CondBetween, Args: []operand{lhs(),
			{Kind: expr.OpValue, Token: ":lo", Value: genValues[":lo"]}, {Kind: expr.OpValue, Token: ":hi", Value: genValues[":hi"]}}}
	case 2:
		args := []operand{lhs()}
		for range rapid.IntRange(1, 4).Draw(t, "in") {
			args = append(args, genValueOperand(t, ":n", ":s", ":lo"))
		}
		return &condition{Kind: expr.CondIn, Args: args}
	case 3:
		fn := rapid.SampledFrom([]string{"attribute_exists", "attribute_not_exists"}).Draw(t, "fn")
		return &condition{Kind: expr.CondFunc, Op: fn, Args: []operand{{Kind: expr.OpPath, Path: genPath(t, leftNames, "fp")}}}
	case 4:
		fn := rapid.SampledFrom([]string{"begins_with", "contains"}).Draw(t, "fn")
		return &condition{Kind: expr.CondFunc, Op: fn, Args: []operand{{Kind: expr.OpPath, Path: genPath(t, leftNames, "fp")}, genValueOperand(t, ":s", ":b")}}
	case 5:
		first := operand{Kind: expr.OpPath, Path: genPath(t, leftNames, "fp")}
		if rapid.Bool().Draw(t, "constant") {
			first = genValueOperand(t, ":n", ":l")
		}
		return &condition{Kind: expr.CondFunc, Op: "attribute_type", Args: []operand{first, genValueOperand(t, ":tS")}}
	case 6:
		return &condition{Kind: expr.CondNot, Left: genCondition(t, depth+1)}
	case 7:
		return &condition{Kind: expr.CondAnd, Left: genCondition(t, depth+1), Right: genCondition(t, depth+1)}
	default:
		return &condition{Kind: expr.CondOr, Left: genCondition(t, depth+1), Right: genCondition(t, depth+1)}
	}
}

// TestConditionPrintParse checks that printing a random condition and
// parsing the text gives the same condition, so the parser keeps the
// structure (precedence, associativity) the printer encodes.
func TestConditionPrintParse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		want := genCondition(t, 0)
		text := want.String()
		c, err := newExprContext(nil, genValues)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseCondition(c, text)
		if err != nil {
			t.Fatalf("parseCondition(%q): %v", text, err)
		}
		if diff := cmp.Diff(want, got, exprCmpOpts); diff != "" {
			t.Fatalf("parseCondition(%q) mismatch (-want +got):\n%s", text, diff)
		}
	})
}

// genSetValue draws a SET value; numeric ones may be added and
// subtracted, so their constants are numbers and they use no list_append.
func genSetValue(t *rapid.T, depth int, numeric bool) operand {
	max := 4
	if depth >= 2 {
		max = 1
	}
	if !numeric {
		max++
	}
	keys := []string{":n", ":s", ":l", ":ss"}
	if numeric {
		keys = []string{":n", ":lo"}
	}
	switch rapid.IntRange(0, max).Draw(t, "setval") {
	case 0:
		return genValueOperand(t, keys...)
	case 1:
		return operand{Kind: expr.OpPath, Path: genPath(t, rightNames, "rp")}
	case 2:
		k := rapid.SampledFrom([]expr.OperandKind{expr.OpPlus, expr.OpMinus}).Draw(t, "sign")
		return operand{Kind: k, Args: []operand{genSetValue(t, depth+1, true), genSetValue(t, depth+1, true)}}
	case 3, 4:
		def := genSetValue(t, depth+1, numeric)
		if def.Kind == expr.OpPlus || def.Kind == expr.OpMinus {
			// + and - only at the top of a SET value.
			def = genValueOperand(t, keys...)
		}
		return operand{Kind: expr.OpCall, Fn: "if_not_exists", Args: []operand{{Kind: expr.OpPath, Path: genPath(t, rightNames, "ip")}, def}}
	default:
		return operand{Kind: expr.OpCall, Fn: "list_append", Args: []operand{
			{Kind: expr.OpPath, Path: genPath(t, rightNames, "lp")}, genValueOperand(t, ":l")}}
	}
}

// genUpdate draws an update whose action paths start with distinct
// top-level names, so they never overlap.
func genUpdate(t *rapid.T) *update {
	tops := rapid.Permutation([]string{"a", "b", "c", "x_1", "Price", "g", "h"}).Draw(t, "tops")
	kinds := rapid.Permutation([]expr.ActionKind{expr.ActSet, expr.ActRemove, expr.ActAdd, expr.ActDelete}).Draw(t, "clauses")
	kinds = kinds[:rapid.IntRange(1, 4).Draw(t, "nclauses")]
	u := &update{}
	for _, k := range kinds {
		for range rapid.IntRange(1, 2).Draw(t, "nactions") {
			if len(tops) == 0 {
				break
			}
			path := append(docPath{{Name: tops[0]}}, genPath(t, rightNames, "tail")[1:]...)
			tops = tops[1:]
			a := updateAction{Kind: k, Path: path}
			switch k {
			case expr.ActSet:
				a.Val = genSetValue(t, 0, false)
			case expr.ActAdd:
				a.Val = genValueOperand(t, ":n", ":ss", ":ns")
			case expr.ActDelete:
				a.Val = genValueOperand(t, ":ss", ":ns")
			}
			u.Actions = append(u.Actions, a)
		}
	}
	return u
}

// TestUpdatePrintParse is TestConditionPrintParse for updates.
func TestUpdatePrintParse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		want := genUpdate(t)
		text := want.String()
		c, err := newExprContext(nil, genValues)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseUpdate(c, text)
		if err != nil {
			t.Fatalf("parseUpdate(%q): %v", text, err)
		}
		if diff := cmp.Diff(want, got, exprCmpOpts); diff != "" {
			t.Fatalf("parseUpdate(%q) mismatch (-want +got):\n%s", text, diff)
		}
	})
}

// genItemPath draws a path that mostly exists in it, by a random walk.
func genItemPath(t *rapid.T, it Item) docPath {
	names := slices.Sorted(maps.Keys(it))
	if len(names) == 0 || rapid.IntRange(0, 5).Draw(t, "stray") == 0 {
		return docPath{{Name: rapid.StringN(1, 4, -1).Draw(t, "name")}}
	}
	p := docPath{{Name: rapid.SampledFrom(names).Draw(t, "top")}}
	v := it[p[0].Name]
	for rapid.IntRange(0, 2).Draw(t, "deeper") > 0 {
		switch {
		case v.typ == TypeM && len(v.mapv()) > 0:
			k := rapid.SampledFrom(slices.Sorted(maps.Keys(v.mapv()))).Draw(t, "key")
			p, v = append(p, pathElem{Name: k}), v.mapv()[k]
		case v.typ == TypeL && len(v.listv()) > 0:
			i := rapid.IntRange(0, len(v.listv())).Draw(t, "index")
			p = append(p, pathElem{Index: i, IsIndex: true})
			if i == len(v.listv()) {
				return p
			}
			v = v.listv()[i]
		default:
			return p
		}
	}
	return p
}

// isSubValue reports whether sub is part of v: equal, or a map with a
// subset of v's keys holding parts of v's values, or a list whose elements
// are parts of an in-order subsequence of v's elements.
func isSubValue(sub, v Value) bool {
	switch {
	case sub.typ == TypeM && v.typ == TypeM:
		return isSubItem(sub.mapv(), v.mapv())
	case sub.typ == TypeL && v.typ == TypeL:
		j := 0
		for _, e := range sub.listv() {
			for j < len(v.listv()) && !isSubValue(e, v.listv()[j]) {
				j++
			}
			if j == len(v.listv()) {
				return false
			}
			j++
		}
		return true
	}
	return sub.Equal(v)
}

func isSubItem(sub, it Item) bool {
	for k, v := range sub {
		w, ok := it[k]
		if !ok || !isSubValue(v, w) {
			return false
		}
	}
	return true
}

// TestProjectionSubset checks that a projection is part of the item, holds
// every projected path that exists, and leaves the item alone.
func TestProjectionSubset(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		it := itemGen().Draw(t, "item")
		before := cloneItem(it)
		var paths []docPath
		for range rapid.IntRange(1, 5).Draw(t, "npaths") {
			p := genItemPath(t, it)
			ok := true
			for _, q := range paths {
				if expr.Relation(p, q) != expr.Disjoint {
					ok = false
				}
			}
			if ok {
				paths = append(paths, p)
			}
		}
		got := projectPaths(it, paths)
		if !isSubItem(got, it) {
			t.Fatalf("projection %v of %v is not part of it", got, it)
		}
		for _, p := range paths {
			if v := lookupPath(it, p); !v.IsZero() {
				if w := lookupPath(got, docPath{p[0]}); w.IsZero() {
					t.Fatalf("projection %v lacks %s", got, p)
				}
			}
		}
		if !it.Equal(before) {
			t.Fatalf("projectPaths modified its input")
		}
	})
}

// TestUpdateDoesNotMutate applies random updates to random items: the input
// is never modified, and a successful result holds every SET and ADD
// target.
func TestUpdateDoesNotMutate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		it := itemGen().Draw(t, "item")
		before := cloneItem(it)
		u := &update{}
		var paths []docPath
		for range rapid.IntRange(1, 5).Draw(t, "nactions") {
			p := genItemPath(t, it)
			ok := true
			for _, q := range paths {
				if expr.Relation(p, q) != expr.Disjoint {
					ok = false
				}
			}
			if !ok {
				continue
			}
			paths = append(paths, p)
			a := updateAction{Kind: rapid.SampledFrom([]expr.ActionKind{expr.ActSet, expr.ActRemove, expr.ActAdd, expr.ActDelete}).Draw(t, "kind"), Path: p}
			switch a.Kind {
			case expr.ActSet:
				if rapid.Bool().Draw(t, "from-path") {
					a.Val = operand{Kind: expr.OpCall, Fn: "if_not_exists", Args: []operand{
						{Kind: expr.OpPath, Path: genItemPath(t, it)}, genValueOperand(t, ":n", ":l")}}
				} else {
					a.Val = genValueOperand(t, ":n", ":s", ":l", ":ss")
				}
			case expr.ActAdd:
				a.Val = genValueOperand(t, ":n", ":ss", ":ns")
			case expr.ActDelete:
				a.Val = genValueOperand(t, ":ss", ":ns")
			}
			u.Actions = append(u.Actions, a)
		}
		got, err := applyUpdate(u, it, it != nil)
		if !it.Equal(before) {
			t.Fatalf("apply(%s) modified its input", u)
		}
		if err != nil {
			if !errors.Is(err, ErrValidation) {
				t.Fatalf("apply(%s) = %v, not a validation error", u, err)
			}
			return
		}
		for _, a := range u.Actions {
			// A path through a list index names an element of the
			// original list, which a REMOVE of an earlier element or an
			// append past the end puts at another index; TestUpdateApplyModel
			// checks those.
			if slices.ContainsFunc(a.Path, func(e pathElem) bool { return e.IsIndex }) {
				continue
			}
			if (a.Kind == expr.ActSet || a.Kind == expr.ActAdd) && lookupPath(got, a.Path).IsZero() {
				t.Fatalf("apply(%s): %s missing from %v", u, a.Path, got)
			}
		}
	})
}

// cloneItem copies it deeply, so that a mutation of a shared container
// shows up in a comparison.
func cloneItem(it Item) Item {
	if it == nil {
		return nil
	}
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v Value) Value {
	switch v.typ {
	case TypeM:
		return M(cloneItem(v.mapv()))
	case TypeL:
		l := make([]Value, len(v.listv()))
		for i, e := range v.listv() {
			l[i] = cloneValue(e)
		}
		return L(l...)
	case TypeSS, TypeNS, TypeBS:
		v.x = append([]string(nil), v.setv()...)
	}
	return v
}

// Fuzz targets. The oracle: no panic, errors are validation errors, and a
// parsed expression prints to text that parses to the same expression.

var fuzzNames = map[string]string{"#a": "a", "#b": "bb", "#c": "c_1"}

var fuzzItem = Item{
	"a":  N("7"),
	"bb": M(Item{"c_1": L(S("x"), N("1")), "a": SS("x")}),
	"d":  S("ab"),
	"e":  L(N("1"), N("2")),
}

func fuzzContext(t *testing.T) *exprContext {
	c, err := newExprContext(fuzzNames, genValues)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkFuzzError(t *testing.T, expr string, err error) {
	var ve *ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, ErrValidation) {
		t.Fatalf("parse(%q) = %v, want a *ValidationError", expr, err)
	}
}

func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{
		"a = :n", "a < :n AND NOT (d = :s OR begins_with(d, :s))", "size(#b.#c) BETWEEN :lo AND :hi",
		"a IN (:n, :lo, :hi)", "contains(e, :n) OR attribute_type(#a, :tS)", "((a = :n))", "a < < :n",
		"attribute_not_exists(#b.c_1[1]) and not a <> :n", "a = @", "#b.#c[0] = :s",
		"(size(d)) = :n", "(a) BETWEEN (:lo) AND :hi", "((a) = :n AND (d) IN ((:s), :s))", "((a)) = :n",
		"size(:s) > :n", "attribute_type(:n, :tS)", "begins_with(:s, d)", "_a = :n", "a < :ss",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		cd, err := parseCondition(fuzzContext(t), expr)
		if err != nil {
			checkFuzzError(t, expr, err)
			return
		}
		if _, err := evalCondition(cd, fuzzItem); err != nil {
			t.Fatalf("eval(%q): %v", expr, err)
		}
		text := cd.String()
		again, err := parseCondition(fuzzContext(t), text)
		if err != nil {
			t.Fatalf("parse(%q) printed %q, which fails: %v", expr, text, err)
		}
		if diff := cmp.Diff(cd, again, exprCmpOpts); diff != "" {
			t.Fatalf("parse(%q) printed %q, which parses differently (-first +second):\n%s", expr, text, diff)
		}
	})
}

func FuzzParseUpdate(f *testing.F) {
	for _, s := range []string{
		"SET a = a + :n", "SET d = :s, e[5] = :n REMOVE bb.c_1[0] ADD x :ss DELETE #b.#a :ss",
		"SET e = list_append(if_not_exists(e, :l), :l)", "SET a = (a - :n) + :lo", "remove e[0], e[1]",
		"SET a = :n SET d = :s", "ADD hits : incr", "SET bb.zz.y = :n", "SET a = d + :n",
		"SET e[9] = :n, e[4] = :s REMOVE e[0]", "SET a = if_not_exists(a, :n + :n)", "SET _a = :n", "REMOVE x.y, z[3]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		u, err := parseUpdate(fuzzContext(t), expr)
		if err != nil {
			checkFuzzError(t, expr, err)
			return
		}
		before := cloneItem(fuzzItem)
		if _, err := applyUpdate(u, fuzzItem, true); err != nil && !errors.Is(err, ErrValidation) {
			t.Fatalf("apply(%q) = %v, not a validation error", expr, err)
		}
		if !fuzzItem.Equal(before) {
			t.Fatalf("apply(%q) modified its input", expr)
		}
		if _, err := applyUpdate(u, nil, false); err != nil && !errors.Is(err, ErrValidation) {
			t.Fatalf("apply(%q) to nil = %v, not a validation error", expr, err)
		}
		text := u.String()
		again, err := parseUpdate(fuzzContext(t), text)
		if err != nil {
			t.Fatalf("parse(%q) printed %q, which fails: %v", expr, text, err)
		}
		if diff := cmp.Diff(u, again, exprCmpOpts); diff != "" {
			t.Fatalf("parse(%q) printed %q, which parses differently (-first +second):\n%s", expr, text, diff)
		}
	})
}

func FuzzParseProjection(f *testing.F) {
	for _, s := range []string{"a", "a, d, #b.#c[1]", "e[1], e[0]", "a, a", "bb.a, bb[0]", "a,", "#b.c_1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		p, err := parseProjection(fuzzContext(t), expr)
		if err != nil {
			checkFuzzError(t, expr, err)
			return
		}
		got := applyProjection(p, fuzzItem)
		if !isSubItem(got, fuzzItem) {
			t.Fatalf("projection %q of %v gave %v, not part of it", expr, fuzzItem, got)
		}
		text := p.String()
		again, err := parseProjection(fuzzContext(t), text)
		if err != nil {
			t.Fatalf("parse(%q) printed %q, which fails: %v", expr, text, err)
		}
		if diff := cmp.Diff(p.Paths, again.Paths, exprCmpOpts); diff != "" {
			t.Fatalf("parse(%q) printed %q, which parses differently (-first +second):\n%s", expr, text, diff)
		}
	})
}

// TestExprFuzzCorpusPresent keeps the checked-in seed corpora from
// vanishing.
func TestExprFuzzCorpusPresent(t *testing.T) {
	for _, target := range []string{"FuzzParseCondition", "FuzzParseUpdate", "FuzzParseProjection"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
		if len(files) == 0 {
			t.Errorf("no seed corpus in testdata/fuzz/%s", target)
		}
	}
}

// TestParseDeepNesting checks that the parser's recursion stays bounded by
// the expression length: the most deeply nested expression that fits in
// 4 KB parses or fails cleanly.
func TestParseDeepNesting(t *testing.T) {
	for _, n := range []int{100, 1000, 2040} {
		maxLen := expr.MaxExpressionLength
		expr := ""
		for range n {
			expr += "NOT "
		}
		expr += "a = :n"
		if len(expr) > maxLen {
			expr = expr[len(expr)-maxLen:]
		}
		if _, err := parseCondition(fuzzContext(t), expr); err != nil {
			checkFuzzError(t, expr, err)
		}
		open := ""
		for range n {
			open += "("
		}
		if _, err := parseCondition(fuzzContext(t), open+"a = :n"); err == nil {
			t.Errorf("unbalanced %d parentheses parsed", n)
		}
	}
	if _, err := parseCondition(fuzzContext(t), "a = :n"+strconv.Itoa(1)); err == nil {
		t.Error("undefined :n1 parsed")
	}
	// Parenthesized operands and conditions nested as deep as 4 KB
	// allows: the parser tries an operand at every "(" and must still
	// finish (in linear time, by remembering failed tries).
	for _, expr := range []string{
		strings.Repeat("(", 2000) + "a = :n" + strings.Repeat(")", 2000),
		strings.Repeat("(", 2000) + "a" + strings.Repeat(")", 2000) + " = :n",
		strings.Repeat("(", 4000),
		strings.Repeat("((a) = :n AND ", 200) + "a = :n" + strings.Repeat(")", 200),
	} {
		if _, err := parseCondition(fuzzContext(t), expr); err != nil {
			checkFuzzError(t, expr, err)
		}
	}
}
