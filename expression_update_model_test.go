package fdyno

import (
	"errors"
	"github.com/fdyno/fdyno/internal/expr"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestUpdateApplyModel checks update.apply against refUpdate, a separately
// written evaluator of DynamoDB's rule for UpdateExpression: every path and
// every SET value refers to the item as it was before the update (the
// developer guide's "Update expressions": list indexes past the end
// append, in index order; several REMOVEd list elements are the original
// list's; SET and REMOVE in one list name original elements), a REMOVE
// of a missing element of an existing map or list removes nothing, every
// action under a missing or wrong-typed parent fails on an existing item,
// and REMOVE under a missing parent is ignored on an item that does not
// exist.
func TestUpdateApplyModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		old := drawModelItem(t)
		expr, names, values := drawModelUpdate(t)
		c, err := newExprContext(names, values)
		if err != nil {
			t.Fatalf("newExprContext: %v", err)
		}
		u, err := parseUpdate(c, expr)
		if err != nil {
			t.Fatalf("parseUpdate(%q): %v", expr, err)
		}
		got, gotErr := applyUpdate(u, old, old != nil)
		want, wantErr := refUpdate(old, expr, names, values)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("apply(%q) on %v:\n got error %v\nwant error %v (want item %v, got %v)", expr, old, gotErr, wantErr, want, got)
		}
		if gotErr != nil {
			// Which of several errors DynamoDB reports first is not
			// documented; the reason must be one the reference can give.
			var ve *ValidationError
			if !errors.As(gotErr, &ve) || !slices.Contains(refReasons, ve.Reason) {
				t.Fatalf("apply(%q) on %v: error %v, want one of %q (reference: %v)", expr, old, gotErr, refReasons, wantErr)
			}
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("apply(%q) on %v mismatch (-ref +apply):\n%s", expr, old, diff)
		}
	})
}

var modelNames = []string{"a", "b", "c"}
var modelKeys = []string{"x", "y"}

func drawModelValue(t *rapid.T, depth int, label string) Value {
	kinds := []string{"n", "s", "l", "m", "ss"}
	if depth >= 3 {
		kinds = []string{"n", "s", "ss"}
	}
	switch rapid.SampledFrom(kinds).Draw(t, label) {
	case "n":
		return NInt(rapid.Int64Range(-3, 9).Draw(t, label+"n"))
	case "s":
		return S(rapid.SampledFrom([]string{"p", "q"}).Draw(t, label+"s"))
	case "ss":
		return SS(rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"p", "q", "r"}), 1, 3, rapid.ID[string]).Draw(t, label+"ss")...)
	case "l":
		n := rapid.IntRange(0, 4).Draw(t, label+"len")
		l := make([]Value, n)
		for i := range l {
			l[i] = drawModelValue(t, depth+1, label+"["+strconv.Itoa(i)+"]")
		}
		return L(l...)
	}
	m := Item{}
	for _, k := range modelKeys {
		if rapid.Bool().Draw(t, label+"has"+k) {
			m[k] = drawModelValue(t, depth+1, label+"."+k)
		}
	}
	return M(m)
}

func drawModelItem(t *rapid.T) Item {
	if rapid.IntRange(0, 9).Draw(t, "missingItem") == 0 {
		return nil
	}
	it := Item{}
	for _, n := range modelNames {
		if rapid.IntRange(0, 4).Draw(t, "has"+n) > 0 {
			it[n] = drawModelValue(t, 1, n)
		}
	}
	return it
}

// drawModelPath returns a random path over modelNames, modelKeys and list
// indexes 0 to 5, as expression text; #x stands for the map key x.
func drawModelPath(t *rapid.T, label string) string {
	p := rapid.SampledFrom(modelNames).Draw(t, label)
	for depth := rapid.IntRange(0, 3).Draw(t, label+"depth"); depth > 0; depth-- {
		if rapid.Bool().Draw(t, label+"isIndex") {
			p += "[" + strconv.Itoa(rapid.IntRange(0, 5).Draw(t, label+"index")) + "]"
		} else {
			p += ".#" + rapid.SampledFrom(modelKeys).Draw(t, label+"key")
		}
	}
	return p
}

// drawModelUpdate returns a random UpdateExpression of SET, REMOVE, ADD
// and DELETE actions with its placeholders.
func drawModelUpdate(t *rapid.T) (string, map[string]string, map[string]Value) {
	values := map[string]Value{}
	usedNames := false
	val := func(v Value) string {
		k := ":v" + strconv.Itoa(len(values))
		values[k] = v
		return k
	}
	path := func(label string) string {
		p := drawModelPath(t, label)
		if strings.Contains(p, "#") {
			usedNames = true
		}
		return p
	}
	clauses := map[string][]string{}
	var targets [][]refElem
	for i := rapid.IntRange(1, 5).Draw(t, "actions"); i > 0; i-- {
		p := drawModelPath(t, "path")
		target := refParsePath(p, map[string]string{"#x": "x", "#y": "y"})
		if slices.ContainsFunc(targets, func(q []refElem) bool { return refOverlap(target, q) }) {
			continue // DynamoDB refuses overlapping paths at parse time
		}
		targets = append(targets, target)
		if strings.Contains(p, "#") {
			usedNames = true
		}
		switch rapid.SampledFrom([]string{"SET", "REMOVE", "ADD", "DELETE"}).Draw(t, "clause") {
		case "SET":
			var rhs string
			switch rapid.SampledFrom([]string{"const", "path", "plus", "append", "ifnot"}).Draw(t, "setValue") {
			case "const":
				rhs = val(drawModelValue(t, 2, "const"))
			case "path":
				rhs = path("from")
			case "plus":
				rhs = path("from") + " + " + val(NInt(1))
			case "append":
				rhs = "list_append(" + path("from") + ", " + val(L(S("z"))) + ")"
			case "ifnot":
				rhs = "if_not_exists(" + path("from") + ", " + val(NInt(7)) + ")"
			}
			clauses["SET"] = append(clauses["SET"], p+" = "+rhs)
		case "REMOVE":
			clauses["REMOVE"] = append(clauses["REMOVE"], p)
		case "ADD":
			v := NInt(2)
			if rapid.Bool().Draw(t, "addSet") {
				v = SS("r")
			}
			clauses["ADD"] = append(clauses["ADD"], p+" "+val(v))
		case "DELETE":
			clauses["DELETE"] = append(clauses["DELETE"], p+" "+val(SS("p")))
		}
	}
	var parts []string
	for _, k := range []string{"REMOVE", "SET", "DELETE", "ADD"} {
		if len(clauses[k]) > 0 {
			parts = append(parts, k+" "+strings.Join(clauses[k], ", "))
		}
	}
	var names map[string]string
	if usedNames {
		names = map[string]string{}
		for _, k := range modelKeys {
			if strings.Contains(strings.Join(parts, " "), "#"+k) {
				names["#"+k] = k
			}
		}
	}
	if len(values) == 0 {
		values = nil
	}
	return strings.Join(parts, " "), names, values
}

// refOverlap reports whether one path is a prefix of the other, or they
// take a map key and a list index at the same level.
func refOverlap(p, q []refElem) bool {
	for i := 0; i < len(p) && i < len(q); i++ {
		if (p[i].index < 0) != (q[i].index < 0) {
			return true
		}
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// ---- The reference evaluator ----
//
// refUpdate works on a mutable copy of the item in which every list
// element remembers its index in the original list, so an action's path
// is looked up by original index whatever other actions did to the list.
// It parses the expression text itself (the simple shapes
// drawModelUpdate writes) rather than using parseUpdate.

type refNode struct {
	v       Value // a scalar or set
	isMap   bool  // a map: fields
	isList  bool  // a list: elems, appended
	fields  map[string]*refNode
	elems   []*refNode      // by original index
	removed map[int]bool    // original indexes removed
	appends map[int]refNode // indexes past the end, set
}

func refFrom(v Value) *refNode {
	switch v.Type() {
	case TypeM:
		n := &refNode{isMap: true, fields: map[string]*refNode{}}
		for k, w := range v.M() {
			n.fields[k] = refFrom(w)
		}
		return n
	case TypeL:
		n := &refNode{isList: true, removed: map[int]bool{}, appends: map[int]refNode{}}
		for _, w := range v.L() {
			n.elems = append(n.elems, refFrom(w))
		}
		return n
	}
	return &refNode{v: v}
}

func (n *refNode) value() Value {
	switch {
	case n.isMap:
		m := Item{}
		for k, c := range n.fields {
			m[k] = c.value()
		}
		return M(m)
	case n.isList:
		l := []Value{}
		for i, c := range n.elems {
			if !n.removed[i] {
				l = append(l, c.value())
			}
		}
		idx := make([]int, 0, len(n.appends))
		for i := range n.appends {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			a := n.appends[i]
			l = append(l, a.value())
		}
		return L(l...)
	}
	return n.v
}

type refElem struct {
	name  string
	index int // -1 for a name
}

func refParsePath(s string, names map[string]string) []refElem {
	var out []refElem
	for s != "" {
		switch {
		case s[0] == '.':
			s = s[1:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			i, _ := strconv.Atoi(s[1:end])
			out = append(out, refElem{index: i})
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			name := s[:end]
			if name[0] == '#' {
				name = names[name]
			}
			out = append(out, refElem{name: name, index: -1})
			s = s[end:]
		}
	}
	return out
}

// refLookup returns the value at path in the original item.
func refLookup(it Item, path []refElem) Value {
	v := M(it)
	for _, e := range path {
		switch {
		case e.index < 0 && v.Type() == TypeM:
			v = v.M()[e.name]
		case e.index >= 0 && v.Type() == TypeL && e.index < len(v.L()):
			v = v.L()[e.index]
		default:
			return Value{}
		}
	}
	return v
}

var refReasons = []string{expr.ReasonUpdatePathInvalid, expr.ReasonUpdateMissingAttr, expr.ReasonUpdateOperandType}

var (
	errRefPathInvalid = errors.New(expr.ReasonUpdatePathInvalid)
	errRefMissing     = errors.New(expr.ReasonUpdateMissingAttr)
	errRefType        = errors.New(expr.ReasonUpdateOperandType)
)

func refSetValue(old Item, rhs string, names map[string]string, values map[string]Value) (Value, error) {
	operand := func(s string) (Value, error) {
		if s[0] == ':' {
			return values[s], nil
		}
		v := refLookup(old, refParsePath(s, names))
		if v.IsZero() {
			return Value{}, errRefMissing
		}
		return v, nil
	}
	switch {
	case strings.HasPrefix(rhs, "list_append("):
		args := strings.Split(strings.TrimSuffix(strings.TrimPrefix(rhs, "list_append("), ")"), ", ")
		a, err := operand(args[0])
		if err != nil {
			return Value{}, err
		}
		if a.Type() != TypeL {
			return Value{}, errRefType
		}
		return L(append(append([]Value{}, a.L()...), values[args[1]].L()...)...), nil
	case strings.HasPrefix(rhs, "if_not_exists("):
		args := strings.Split(strings.TrimSuffix(strings.TrimPrefix(rhs, "if_not_exists("), ")"), ", ")
		if v := refLookup(old, refParsePath(args[0], names)); !v.IsZero() {
			return v, nil
		}
		return values[args[1]], nil
	case strings.Contains(rhs, " + "):
		args := strings.Split(rhs, " + ")
		a, err := operand(args[0])
		if err != nil {
			return Value{}, err
		}
		if a.Type() != TypeN {
			return Value{}, errRefType
		}
		x, _ := a.Int64()
		y, _ := values[args[1]].Int64()
		return NInt(x + y), nil
	}
	return operand(rhs)
}

// refUpdate applies the update expression text to a copy of old.
func refUpdate(old Item, expr string, names map[string]string, values map[string]Value) (Item, error) {
	type action struct {
		kind, path, arg string
	}
	var actions []action
	// Split into clauses at the keywords drawModelUpdate writes.
	rest := expr
	for rest != "" {
		kw := rest[:strings.IndexByte(rest, ' ')]
		rest = rest[len(kw)+1:]
		end := len(rest)
		for _, next := range []string{" REMOVE ", " SET ", " DELETE ", " ADD "} {
			if i := strings.Index(rest, next); i >= 0 && i < end {
				end = i
			}
		}
		for _, a := range refSplitTop(rest[:end]) {
			switch kw {
			case "SET":
				p, rhs, _ := strings.Cut(a, " = ")
				actions = append(actions, action{kw, p, rhs})
			case "REMOVE":
				actions = append(actions, action{kw, a, ""})
			default:
				p, v, _ := strings.Cut(a, " ")
				actions = append(actions, action{kw, p, v})
			}
		}
		rest = strings.TrimPrefix(rest[end:], " ")
	}
	// The values of SET come from the original item, before any action.
	setVals := make([]Value, len(actions))
	for i, a := range actions {
		if a.kind == "SET" {
			v, err := refSetValue(old, a.arg, names, values)
			if err != nil {
				return nil, err
			}
			setVals[i] = v
		}
	}
	root := refFrom(M(maps.Clone(old)))
	if old == nil {
		root = refFrom(M(Item{}))
	}
	for i, a := range actions {
		path := refParsePath(a.path, names)
		// Walk to the parent, by original indexes.
		parent := root
		missing := false
		for _, e := range path[:len(path)-1] {
			var next *refNode
			switch {
			case e.index < 0 && parent.isMap:
				next = parent.fields[e.name]
			case e.index >= 0 && parent.isList:
				if e.index < len(parent.elems) && !parent.removed[e.index] {
					next = parent.elems[e.index]
				}
			default:
				// The wrong kind of container, or a scalar.
				return nil, errRefPathInvalid
			}
			if next == nil {
				missing = true
				break
			}
			parent = next
		}
		if missing {
			if a.kind == "REMOVE" && old == nil {
				continue
			}
			return nil, errRefPathInvalid
		}
		last := path[len(path)-1]
		if last.index < 0 && !parent.isMap || last.index >= 0 && !parent.isList {
			return nil, errRefPathInvalid
		}
		cur := refLookup(old, path)
		var nv Value
		switch a.kind {
		case "SET":
			nv = setVals[i]
		case "REMOVE":
		case "ADD":
			v := values[a.arg]
			switch {
			case cur.IsZero():
				nv = v
			case cur.Type() == TypeN && v.Type() == TypeN:
				x, _ := cur.Int64()
				y, _ := v.Int64()
				nv = NInt(x + y)
			case cur.Type() == TypeSS && v.Type() == TypeSS:
				union := append(cur.SS(), v.SS()...)
				slices.Sort(union)
				nv = SS(slices.Compact(union)...)
			default:
				return nil, errRefType
			}
		case "DELETE":
			v := values[a.arg]
			switch {
			case cur.IsZero():
			case cur.Type() == TypeSS:
				var keep []string
				for _, m := range cur.SS() {
					if !slices.Contains(v.SS(), m) {
						keep = append(keep, m)
					}
				}
				if len(keep) > 0 {
					nv = SS(keep...)
				}
			default:
				return nil, errRefType
			}
		}
		if last.index < 0 {
			if nv.IsZero() {
				delete(parent.fields, last.name)
			} else {
				parent.fields[last.name] = refFrom(nv)
			}
			continue
		}
		switch {
		case last.index >= len(parent.elems):
			if !nv.IsZero() {
				parent.appends[last.index] = *refFrom(nv)
			}
		case nv.IsZero():
			parent.removed[last.index] = true
		default:
			parent.elems[last.index] = refFrom(nv)
		}
	}
	return root.value().M(), nil
}

// refSplitTop splits s at the commas outside parentheses.
func refSplitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 2 // ", "
			}
		}
	}
	return append(out, s[start:])
}

func TestRefUpdateExamples(t *testing.T) {
	// The reference evaluator itself, on the developer guide's cases.
	old := Item{"c": L(N("1"), N("3"))}
	got, err := refUpdate(old, "SET c[4] = :x, c[2] = :y", nil, map[string]Value{":x": S("x"), ":y": S("y")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Item{"c": L(N("1"), N("3"), S("y"), S("x"))}, got); diff != "" {
		t.Errorf("refUpdate mismatch (-want +got):\n%s", diff)
	}
	got, err = refUpdate(Item{"l": L(N("0"), N("1"), N("2"), N("3"))}, "REMOVE l[3], l[1]", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Item{"l": L(N("0"), N("2"))}, got); diff != "" {
		t.Errorf("refUpdate mismatch (-want +got):\n%s", diff)
	}
}
