package fdyno

import (
	"maps"
	"slices"
	"strings"

	"github.com/fdyno/fdyno/internal/expr"
)

// actionKind is the clause an update action belongs to.
type actionKind uint8

const (
	actSet actionKind = iota + 1
	actRemove
	actAdd
	actDelete
)

var actionKeywords = [...]string{actSet: "SET", actRemove: "REMOVE", actAdd: "ADD", actDelete: "DELETE"}

// updateAction is one action of an UpdateExpression: SET path = val,
// REMOVE path, ADD path val or DELETE path val.
type updateAction struct {
	kind actionKind
	path docPath
	val  operand // SET: the value expression; ADD, DELETE: an opValue
}

// update is a parsed UpdateExpression. It is immutable after parsing and
// safe for concurrent use.
//
// Invariants:
//
//  1. Actions are in the order written, and all actions of a clause are
//     contiguous (each clause appears at most once).
//  2. No two action paths overlap or conflict (see pathsRelation).
type update struct {
	actions []updateAction
	tree    *updateNode // the actions' paths; built by parseUpdate
}

// parseUpdate parses an UpdateExpression: clauses SET, REMOVE, ADD and
// DELETE, each at most once and in any order. Placeholders are resolved in
// c and marked used. Errors are *[ValidationError] in DynamoDB's words.
func parseUpdate(c *exprContext, src string) (*update, error) {
	u, err := parseUpdateActions(c, src)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return u, nil
}

// parseUpdateActions is parseUpdate with errors of package internal/expr
// left as they are.
func parseUpdateActions(c *exprContext, src string) (*update, error) {
	p, err := newParser(c, kindUpdate, src)
	if err != nil {
		return nil, err
	}
	u := &update{}
	var seen [len(actionKeywords)]bool
	for p.Peek().Kind != expr.TokEOF {
		kind := actionKind(0)
		for k := actSet; k <= actDelete; k++ {
			if p.IsKeyword(actionKeywords[k]) {
				kind = k
			}
		}
		if kind == 0 {
			return nil, p.SyntaxError()
		}
		if seen[kind] {
			p.Semantic(strings.Replace(reasonClauseTwice, "%s", actionKeywords[kind], 1))
		}
		seen[kind] = true
		p.Next()
		for {
			a, err := parseAction(p, kind)
			if err != nil {
				return nil, err
			}
			u.actions = append(u.actions, a)
			if !p.Accept(expr.TokComma) {
				break
			}
		}
	}
	if err := p.Finish(); err != nil {
		return nil, err
	}
	if err := checkOverlaps(kindUpdate, u.paths()); err != nil {
		return nil, err
	}
	u.tree = newUpdateTree(u.actions)
	return u, nil
}

func parseAction(p *parser, kind actionKind) (updateAction, error) {
	path, err := p.ParsePath()
	if err != nil {
		return updateAction{}, err
	}
	a := updateAction{kind: kind, path: path}
	switch kind {
	case actSet:
		if err := p.Expect(expr.TokEq); err != nil {
			return updateAction{}, err
		}
		if a.val, err = parseSetValue(p); err != nil {
			return updateAction{}, err
		}
		checkSetValue(p, a.val, false)
	case actAdd, actDelete:
		t := p.Peek()
		if t.Kind != expr.TokValue {
			return updateAction{}, p.SyntaxError()
		}
		if a.val, err = p.ParseOperand(); err != nil {
			return updateAction{}, err
		}
		checkAddDeleteValue(p, kind, a.val.Value)
	}
	return a, nil
}

// parseSetValue parses term [ ('+'|'-') term ].
func parseSetValue(p *parser) (operand, error) {
	left, err := parseTerm(p)
	if err != nil {
		return operand{}, err
	}
	k := expr.OperandKind(0)
	switch p.Peek().Kind {
	case expr.TokPlus:
		k = expr.OpPlus
	case expr.TokMinus:
		k = expr.OpMinus
	default:
		return left, nil
	}
	p.Next()
	p.Op()
	right, err := parseTerm(p)
	if err != nil {
		return operand{}, err
	}
	return operand{Kind: k, Args: []operand{left, right}}, nil
}

// parseTerm parses an operand or a parenthesized SET value, which
// DynamoDB's arithmetic examples allow.
func parseTerm(p *parser) (operand, error) {
	if p.Accept(expr.TokLParen) {
		o, err := parseSetValue(p)
		if err != nil {
			return operand{}, err
		}
		if err := p.Expect(expr.TokRParen); err != nil {
			return operand{}, err
		}
		return o, nil
	}
	return p.ParseOperand()
}

// checkSetValue applies the parse-time rules of SET values: only
// if_not_exists and list_append, with the right number of operands,
// if_not_exists on a path, no list_append inside list_append, and constant
// operands of the right type for +, - and list_append.
func checkSetValue(p *parser, o operand, inListAppend bool) {
	switch o.Kind {
	case expr.OpPlus, expr.OpMinus:
		name := "+"
		if o.Kind == expr.OpMinus {
			name = "-"
		}
		for _, a := range o.Args {
			if a.Kind == expr.OpValue && !a.Value.IsZero() && a.Value.typ != TypeN {
				p.OperandTypeError(name, a)
				return
			}
			checkSetValue(p, a, false)
		}
	case expr.OpCall:
		switch {
		case !expr.IsFunction(o.Fn):
			return // reported as an invalid function name
		case !expr.IsUpdateFunction(o.Fn):
			p.Semantic(reasonFunctionInUpdate + o.Fn)
			return
		case o.Fn == "list_append" && inListAppend:
			p.Semantic(expr.ReasonFunctionMisused + o.Fn)
			return
		}
		if !p.CheckArgs(o, 2) {
			return
		}
		if o.Fn == "if_not_exists" {
			if o.Args[0].Kind != expr.OpPath {
				p.OperandTypeError(o.Fn, o.Args[0])
				return
			}
			checkSetValue(p, o.Args[1], false)
			return
		}
		for _, a := range o.Args {
			if a.Kind == expr.OpValue && !a.Value.IsZero() && a.Value.typ != TypeL {
				p.OperandTypeError(o.Fn, a)
				return
			}
			checkSetValue(p, a, true)
		}
	}
}

// longTypeNames are the type names of DynamoDB's ADD and DELETE operand
// messages.
var longTypeNames = [...]string{
	TypeS: "STRING", TypeN: "NUMBER", TypeB: "BINARY", TypeBOOL: "BOOLEAN", TypeNULL: "NULL",
	TypeM: "MAP", TypeL: "LIST", TypeSS: "STRING_SET", TypeNS: "NUMBER_SET", TypeBS: "BINARY_SET",
}

// checkAddDeleteValue requires a number or set for ADD and a set for
// DELETE.
func checkAddDeleteValue(p *parser, kind actionKind, v Value) {
	if v.IsZero() {
		return // undefined, already reported
	}
	ok := v.typ == TypeSS || v.typ == TypeNS || v.typ == TypeBS || kind == actAdd && v.typ == TypeN
	if !ok {
		p.Semantic("Incorrect operand type for operator or function; operator: " + actionKeywords[kind] +
			", operand type: " + longTypeNames[v.typ] + ", typeSet: ALLOWED_FOR_" + actionKeywords[kind] + "_OPERAND")
	}
}

// paths returns the path of every action, in the order written: what SET,
// REMOVE, ADD and DELETE target. Callers use it for ReturnValues
// UPDATED_OLD and UPDATED_NEW (with [projectPaths]) and to reject updates
// of key attributes.
func (u *update) paths() []docPath {
	out := make([]docPath, len(u.actions))
	for i, a := range u.actions {
		out[i] = a.path
	}
	return out
}

// createsItem reports whether the update creates a missing item: it does
// if it has a SET or an ADD action, while REMOVE and DELETE alone leave a
// missing item missing, as in DynamoDB.
func (u *update) createsItem() bool {
	for _, a := range u.actions {
		if a.kind == actSet || a.kind == actAdd {
			return true
		}
	}
	return false
}

// String returns the update as expression text, paths without
// placeholders.
func (u *update) String() string {
	var b strings.Builder
	for i, a := range u.actions {
		switch {
		case i == 0 || u.actions[i-1].kind != a.kind:
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(actionKeywords[a.kind])
			b.WriteByte(' ')
		default:
			b.WriteString(", ")
		}
		b.WriteString(a.path.String())
		switch a.kind {
		case actSet:
			b.WriteString(" = ")
			b.WriteString(a.val.String())
		case actAdd, actDelete:
			b.WriteByte(' ')
			b.WriteString(a.val.String())
		}
	}
	return b.String()
}

// apply returns the item that results from applying the update to old;
// exists tells whether the item existed (old is then the stored item) or
// not (old is nil, or holds only the key attributes). old is not
// modified: the result is a new Item that shares only unmodified values
// with it.
//
// As in DynamoDB, every path and every SET value refers to old, the item
// as it was before the update, never to the result of an earlier action:
// "SET a = b, b = a" swaps; "SET l[4] = :x, l[2] = :y" on a two-element
// list appends :y then :x (indexes past the end append in index order);
// "REMOVE l[0], l[2]" removes the first and third elements of the original
// list; and SET and REMOVE of elements of one list name the original
// elements. apply builds the tree of action paths (no two overlap, by
// parseUpdate's check) and rebuilds each touched container once.
//
// REMOVE of a missing element of an existing map or list (a.y, b[7] past
// the end) does nothing, and so does REMOVE of any path of an item that
// does not exist. Errors are *[ValidationError]: an operand of the wrong
// type (ADD to a non-number or a set of another type, list_append of
// non-lists, arithmetic on non-N), a missing attribute in a SET value, a
// path whose parent does not exist (REMOVE included, on an existing item)
// or is of the wrong kind for its element, and number overflow. The result
// is not validated against item limits.
func (u *update) apply(old Item, exists bool) (Item, error) {
	root := u.tree
	if root == nil {
		root = newUpdateTree(u.actions)
	}
	var vals []Value
	for i, a := range u.actions {
		if a.kind == actSet {
			v, err := evalSetValue(old, a.val)
			if err != nil {
				return nil, withPath(err, a.path)
			}
			if vals == nil {
				vals = make([]Value, len(u.actions))
			}
			vals[i] = v
		}
	}
	out := make(Item, len(old)+len(root.names))
	maps.Copy(out, old)
	for _, name := range root.names {
		nv, err := root.fields[name].apply(u.actions, vals, old[name], exists)
		if err != nil {
			return nil, err
		}
		if nv.IsZero() {
			delete(out, name)
		} else {
			out[name] = nv
		}
	}
	return out, nil
}

// updateNode is a node of the tree of an update's action paths, built
// once per parsed update and then only read: a leaf names its action, an
// inner node the elements below it, by map key (names, in the order first
// written) or by list index (idx, ascending). Paths never overlap or
// conflict (parseUpdate checks), so a node has map keys or list indexes,
// never both, and a leaf has neither.
type updateNode struct {
	action int // 1 + the index of the leaf's action; 0 for an inner node
	names  []string
	fields map[string]*updateNode
	idx    []int
	elems  map[int]*updateNode
	// removesOnly is true if every action at or below the node is a
	// REMOVE.
	removesOnly bool
	// first is the path of an action at or below the node, for messages.
	first docPath
}

// newUpdateTree builds the tree of the paths of actions.
func newUpdateTree(actions []updateAction) *updateNode {
	root := &updateNode{}
	for i, a := range actions {
		n := root
		for _, e := range a.path {
			n = n.child(e, a)
		}
		n.action = i + 1
	}
	var finish func(n *updateNode)
	finish = func(n *updateNode) {
		for _, c := range n.fields {
			finish(c)
			n.removesOnly = n.removesOnly && c.removesOnly
		}
		for _, c := range n.elems {
			finish(c)
			n.removesOnly = n.removesOnly && c.removesOnly
		}
		slices.Sort(n.idx)
	}
	finish(root)
	return root
}

// child returns n's child for e, made on first use by action a.
func (n *updateNode) child(e pathElem, a updateAction) *updateNode {
	c := n.elems[e.Index]
	if !e.IsIndex {
		c = n.fields[e.Name]
	}
	if c != nil {
		c.removesOnly = c.removesOnly && a.kind == actRemove
		return c
	}
	c = &updateNode{removesOnly: a.kind == actRemove, first: a.path}
	if e.IsIndex {
		if n.elems == nil {
			n.elems = make(map[int]*updateNode)
		}
		n.elems[e.Index] = c
		n.idx = append(n.idx, e.Index)
	} else {
		if n.fields == nil {
			n.fields = make(map[string]*updateNode)
		}
		n.fields[e.Name] = c
		n.names = append(n.names, e.Name)
	}
	return c
}

// apply returns what the node's actions make of cur, the value at the
// node's path in the old item (the zero Value if there is none); a zero
// result removes the element. vals holds the computed SET values, by
// action; exists tells whether the item existed.
func (n *updateNode) apply(actions []updateAction, vals []Value, cur Value, exists bool) (Value, error) {
	if n.action > 0 {
		a := &actions[n.action-1]
		var (
			v   Value
			err error
		)
		switch a.kind {
		case actSet:
			v = vals[n.action-1]
		case actRemove:
		case actAdd:
			v, err = addValues(cur, a.val.Value)
		case actDelete:
			v, err = deleteValues(cur, a.val.Value)
		}
		return v, withPath(err, a.path)
	}
	if cur.IsZero() && n.removesOnly && !exists {
		// On an item that does not exist, DynamoDB ignores a REMOVE
		// under a missing parent; on an existing item the path is as
		// invalid as it is for SET.
		return cur, nil
	}
	if n.fields != nil {
		if cur.typ != TypeM {
			return Value{}, withPath(updateError(reasonUpdatePathInvalid), n.first)
		}
		m := make(Item, len(cur.mapv())+len(n.names))
		maps.Copy(m, cur.mapv())
		for _, name := range n.names {
			nv, err := n.fields[name].apply(actions, vals, m[name], exists)
			if err != nil {
				return Value{}, err
			}
			if nv.IsZero() {
				delete(m, name)
			} else {
				m[name] = nv
			}
		}
		return M(m), nil
	}
	if cur.typ != TypeL {
		return Value{}, withPath(updateError(reasonUpdatePathInvalid), n.first)
	}
	old := cur.listv()
	l := make([]Value, 0, len(old)+len(n.idx))
	next := 0 // the next original element to copy
	for _, i := range n.idx {
		var ov Value
		if i < len(old) {
			ov = old[i]
		}
		nv, err := n.elems[i].apply(actions, vals, ov, exists)
		if err != nil {
			return Value{}, err
		}
		// Indexes ascend, so the original elements up to i (all of
		// them, for an index past the end) come first; a zero result
		// removes an original element, and indexes past the end append
		// in index order.
		end := min(i, len(old))
		l = append(l, old[next:end]...)
		next = max(next, min(i+1, len(old)))
		if !nv.IsZero() {
			l = append(l, nv)
		}
	}
	l = append(l, old[next:]...)
	return L(l...), nil
}

func withPath(err error, p docPath) error {
	if ve, ok := err.(*ValidationError); ok && ve.Path == "" {
		return &ValidationError{Op: ve.Op, Path: p.String(), Reason: ve.Reason}
	}
	return err
}

func updateError(reason string) error { return &ValidationError{Reason: reason} }

// evalSetValue computes a SET value from the old item.
func evalSetValue(old Item, o operand) (Value, error) {
	switch o.Kind {
	case expr.OpValue:
		return o.Value, nil
	case expr.OpPath:
		v := lookupPath(old, o.Path)
		if v.IsZero() {
			return Value{}, updateError(reasonUpdateMissingAttr)
		}
		return v, nil
	case expr.OpPlus, expr.OpMinus:
		a, err := evalSetValue(old, o.Args[0])
		if err != nil {
			return Value{}, err
		}
		b, err := evalSetValue(old, o.Args[1])
		if err != nil {
			return Value{}, err
		}
		if a.typ != TypeN || b.typ != TypeN || a.bad || b.bad {
			return Value{}, updateError(reasonUpdateOperandType)
		}
		var s string
		if o.Kind == expr.OpPlus {
			s, err = addNumbers(a.s, b.s)
		} else {
			s, err = subNumbers(a.s, b.s)
		}
		if err != nil {
			return Value{}, updateError(err.Error())
		}
		return Value{typ: TypeN, s: s}, nil
	case expr.OpCall:
		switch o.Fn {
		case "if_not_exists":
			if v := lookupPath(old, o.Args[0].Path); !v.IsZero() {
				return v, nil
			}
			return evalSetValue(old, o.Args[1])
		case "list_append":
			a, err := evalSetValue(old, o.Args[0])
			if err != nil {
				return Value{}, err
			}
			b, err := evalSetValue(old, o.Args[1])
			if err != nil {
				return Value{}, err
			}
			if a.typ != TypeL || b.typ != TypeL {
				return Value{}, updateError(reasonUpdateOperandType)
			}
			l := make([]Value, 0, len(a.listv())+len(b.listv()))
			return L(append(append(l, a.listv()...), b.listv()...)...), nil
		}
	}
	return Value{}, updateError(reasonUpdateOperandType)
}

// addValues is ADD: a number added to a number (a missing attribute counts
// as 0), or a set's members added to a set of the same type (a missing
// attribute counts as empty).
func addValues(cur, v Value) (Value, error) {
	if cur.IsZero() {
		return v, nil
	}
	if cur.typ != v.typ || cur.bad || v.bad {
		return Value{}, updateError(reasonUpdateOperandType)
	}
	switch cur.typ {
	case TypeN:
		s, err := addNumbers(cur.s, v.s)
		if err != nil {
			return Value{}, updateError(err.Error())
		}
		return Value{typ: TypeN, s: s}, nil
	case TypeSS, TypeBS, TypeNS:
		cmp := strings.Compare
		if cur.typ == TypeNS {
			cmp = compareNumbers
		}
		set := append(slices.Clone(cur.setv()), v.setv()...)
		slices.SortFunc(set, cmp)
		set = slices.CompactFunc(set, func(a, b string) bool { return cmp(a, b) == 0 })
		return Value{typ: cur.typ, x: set}, nil
	}
	return Value{}, updateError(reasonUpdateOperandType)
}

// deleteValues is DELETE: the set less v's members; an empty result
// removes the attribute, and deleting from a missing attribute does
// nothing.
func deleteValues(cur, v Value) (Value, error) {
	if cur.IsZero() {
		return Value{}, nil
	}
	if cur.typ != v.typ || cur.bad || v.bad {
		return Value{}, updateError(reasonUpdateOperandType)
	}
	cmp := strings.Compare
	if cur.typ == TypeNS {
		cmp = compareNumbers
	}
	set := make([]string, 0, len(cur.setv()))
	for _, m := range cur.setv() {
		if _, found := slices.BinarySearchFunc(v.setv(), m, cmp); !found {
			set = append(set, m)
		}
	}
	if len(set) == 0 {
		return Value{}, nil
	}
	return Value{typ: cur.typ, x: set}, nil
}
