package expr

import (
	"maps"
	"slices"
	"strings"

	"github.com/fdyno/fdyno/internal/number"
)

// ActionKind is the clause an update action belongs to.
type ActionKind uint8

const (
	ActSet ActionKind = iota + 1
	ActRemove
	ActAdd
	ActDelete
)

var actionKeywords = [...]string{ActSet: "SET", ActRemove: "REMOVE", ActAdd: "ADD", ActDelete: "DELETE"}

// updateAction is one action of an UpdateExpression: SET path = val,
// REMOVE path, ADD path val or DELETE path val.
type UpdateAction[V any] struct {
	Kind ActionKind
	Path Path
	Val  Operand[V] // SET: the value expression; ADD, DELETE: an opValue
}

// update is a parsed UpdateExpression. It is immutable after parsing and
// safe for concurrent use.
//
// Invariants:
//
//  1. Actions are in the order written, and all actions of a clause are
//     contiguous (each clause appears at most once).
//  2. No two action paths overlap or conflict (see pathsRelation).
type Update[V any] struct {
	Actions []UpdateAction[V]
	tree    *updateNode // the actions' paths; built by parseUpdate
}

// ParseUpdate parses an UpdateExpression: clauses SET, REMOVE, ADD and
// DELETE, each at most once and in any order. Placeholders are resolved in
// c and marked used. Errors are *[Error] in DynamoDB's words.
func ParseUpdate[V any](ops Ops[V], c *Context[V], src string) (*Update[V], error) {
	p, err := NewParser(ops, c, kindUpdate, src)
	if err != nil {
		return nil, err
	}
	u := &Update[V]{}
	var seen [len(actionKeywords)]bool
	for p.Peek().Kind != TokEOF {
		kind := ActionKind(0)
		for k := ActSet; k <= ActDelete; k++ {
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
			a, err := p.parseAction(kind)
			if err != nil {
				return nil, err
			}
			u.Actions = append(u.Actions, a)
			if !p.Accept(TokComma) {
				break
			}
		}
	}
	if err := p.Finish(); err != nil {
		return nil, err
	}
	if err := CheckOverlaps(kindUpdate, u.Paths()); err != nil {
		return nil, err
	}
	u.tree = newUpdateTree(u.Actions)
	return u, nil
}

func (p *Parser[V]) parseAction(kind ActionKind) (UpdateAction[V], error) {
	path, err := p.ParsePath()
	if err != nil {
		return UpdateAction[V]{}, err
	}
	a := UpdateAction[V]{Kind: kind, Path: path}
	switch kind {
	case ActSet:
		if err := p.Expect(TokEq); err != nil {
			return UpdateAction[V]{}, err
		}
		if a.Val, err = p.parseSetValue(); err != nil {
			return UpdateAction[V]{}, err
		}
		p.checkSetValue(a.Val, false)
	case ActAdd, ActDelete:
		t := p.Peek()
		if t.Kind != TokValue {
			return UpdateAction[V]{}, p.SyntaxError()
		}
		if a.Val, err = p.ParseOperand(); err != nil {
			return UpdateAction[V]{}, err
		}
		p.checkAddDeleteValue(kind, a.Val.Value)
	}
	return a, nil
}

// parseSetValue parses term [ ('+'|'-') term ].
func (p *Parser[V]) parseSetValue() (Operand[V], error) {
	left, err := p.parseTerm()
	if err != nil {
		return Operand[V]{}, err
	}
	k := OperandKind(0)
	switch p.Peek().Kind {
	case TokPlus:
		k = OpPlus
	case TokMinus:
		k = OpMinus
	default:
		return left, nil
	}
	p.Next()
	p.Op()
	right, err := p.parseTerm()
	if err != nil {
		return Operand[V]{}, err
	}
	return Operand[V]{Kind: k, Args: []Operand[V]{left, right}}, nil
}

// parseTerm parses an operand or a parenthesized SET value, which
// DynamoDB's arithmetic examples allow.
func (p *Parser[V]) parseTerm() (Operand[V], error) {
	if p.Accept(TokLParen) {
		o, err := p.parseSetValue()
		if err != nil {
			return Operand[V]{}, err
		}
		if err := p.Expect(TokRParen); err != nil {
			return Operand[V]{}, err
		}
		return o, nil
	}
	return p.ParseOperand()
}

// checkSetValue applies the parse-time rules of SET values: only
// if_not_exists and list_append, with the right number of operands,
// if_not_exists on a path, no list_append inside list_append, and constant
// operands of the right type for +, - and list_append.
func (p *Parser[V]) checkSetValue(o Operand[V], inListAppend bool) {
	switch o.Kind {
	case OpPlus, OpMinus:
		name := "+"
		if o.Kind == OpMinus {
			name = "-"
		}
		for _, a := range o.Args {
			if a.Kind == OpValue && !p.isZero(a.Value) && p.typ(a.Value) != TypeN {
				p.OperandTypeError(name, a)
				return
			}
			p.checkSetValue(a, false)
		}
	case OpCall:
		switch {
		case !IsFunction(o.Fn):
			return // reported as an invalid function name
		case !IsUpdateFunction(o.Fn):
			p.Semantic(reasonFunctionInUpdate + o.Fn)
			return
		case o.Fn == "list_append" && inListAppend:
			p.Semantic(ReasonFunctionMisused + o.Fn)
			return
		}
		if !p.CheckArgs(o, 2) {
			return
		}
		if o.Fn == "if_not_exists" {
			if o.Args[0].Kind != OpPath {
				p.OperandTypeError(o.Fn, o.Args[0])
				return
			}
			p.checkSetValue(o.Args[1], false)
			return
		}
		for _, a := range o.Args {
			if a.Kind == OpValue && !p.isZero(a.Value) && p.typ(a.Value) != TypeL {
				p.OperandTypeError(o.Fn, a)
				return
			}
			p.checkSetValue(a, true)
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
func (p *Parser[V]) checkAddDeleteValue(kind ActionKind, v V) {
	t := p.typ(v)
	if t == 0 {
		return // undefined, already reported
	}
	ok := t == TypeSS || t == TypeNS || t == TypeBS || kind == ActAdd && t == TypeN
	if !ok {
		p.Semantic("Incorrect operand type for operator or function; operator: " + actionKeywords[kind] +
			", operand type: " + longTypeNames[t] + ", typeSet: ALLOWED_FOR_" + actionKeywords[kind] + "_OPERAND")
	}
}

// Paths returns the path of every action, in the order written: what SET,
// REMOVE, ADD and DELETE target. Callers use it for ReturnValues
// UPDATED_OLD and UPDATED_NEW (with [Project]) and to reject updates
// of key attributes.
func (u *Update[V]) Paths() []Path {
	out := make([]Path, len(u.Actions))
	for i, a := range u.Actions {
		out[i] = a.Path
	}
	return out
}

// CreatesItem reports whether the update creates a missing item: it does
// if it has a SET or an ADD action, while REMOVE and DELETE alone leave a
// missing item missing, as in DynamoDB.
func (u *Update[V]) CreatesItem() bool {
	for _, a := range u.Actions {
		if a.Kind == ActSet || a.Kind == ActAdd {
			return true
		}
	}
	return false
}

// String returns the update as expression text, paths without
// placeholders.
func (u *Update[V]) String() string {
	var b strings.Builder
	for i, a := range u.Actions {
		switch {
		case i == 0 || u.Actions[i-1].Kind != a.Kind:
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(actionKeywords[a.Kind])
			b.WriteByte(' ')
		default:
			b.WriteString(", ")
		}
		b.WriteString(a.Path.String())
		switch a.Kind {
		case ActSet:
			b.WriteString(" = ")
			b.WriteString(a.Val.String())
		case ActAdd, ActDelete:
			b.WriteByte(' ')
			b.WriteString(a.Val.String())
		}
	}
	return b.String()
}

// Apply returns the item that results from applying the update to old;
// exists tells whether the item existed (old is then the stored item) or
// not (old is nil, or holds only the key attributes). old is not
// modified: the result is a new item that shares only unmodified values
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
// does not exist. Errors are *[Error], with the action's path: an operand of the wrong
// type (ADD to a non-number or a set of another type, list_append of
// non-lists, arithmetic on non-N), a missing attribute in a SET value, a
// path whose parent does not exist (REMOVE included, on an existing item)
// or is of the wrong kind for its element, and number overflow. The result
// is not validated against item limits.
func (u *Update[V]) Apply(ops Ops[V], old map[string]V, exists bool) (map[string]V, error) {
	root := u.tree
	if root == nil {
		root = newUpdateTree(u.Actions)
	}
	var vals []V
	for i, a := range u.Actions {
		if a.Kind == ActSet {
			v, err := evalSetValue(ops, old, a.Val)
			if err != nil {
				return nil, withPath(err, a.Path)
			}
			if vals == nil {
				vals = make([]V, len(u.Actions))
			}
			vals[i] = v
		}
	}
	return applyFields(ops, root, u.Actions, vals, old, exists)
}

// applyFields returns a copy of map cur with the children of inner node
// n applied to its elements: an element whose result is absent is
// removed.
func applyFields[V any](ops Ops[V], n *updateNode, actions []UpdateAction[V], vals []V, cur map[string]V, exists bool) (map[string]V, error) {
	m := make(map[string]V, len(cur)+len(n.names))
	maps.Copy(m, cur)
	for _, name := range n.names {
		nv, err := applyNode(ops, n.fields[name], actions, vals, cur[name], exists)
		if err != nil {
			return nil, err
		}
		if ops.Type(nv) == 0 {
			delete(m, name)
		} else {
			m[name] = nv
		}
	}
	return m, nil
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
	first Path
}

// newUpdateTree builds the tree of the paths of actions.
func newUpdateTree[V any](actions []UpdateAction[V]) *updateNode {
	root := &updateNode{}
	for i, a := range actions {
		n := root
		for _, e := range a.Path {
			n = n.child(e, a.Kind, a.Path)
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

// child returns n's child for e, made on first use by an action of the
// given kind and path.
func (n *updateNode) child(e PathElem, kind ActionKind, path Path) *updateNode {
	c := n.elems[e.Index]
	if !e.IsIndex {
		c = n.fields[e.Name]
	}
	if c != nil {
		c.removesOnly = c.removesOnly && kind == ActRemove
		return c
	}
	c = &updateNode{removesOnly: kind == ActRemove, first: path}
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

// applyNode returns what the node n's actions make of cur, the value at the
// node's path in the old item (the zero V if there is none); a zero
// result removes the element. vals holds the computed SET values, by
// action; exists tells whether the item existed.
func applyNode[V any](ops Ops[V], n *updateNode, actions []UpdateAction[V], vals []V, cur V, exists bool) (V, error) {
	var zero V
	if n.action > 0 {
		a := &actions[n.action-1]
		var (
			v   V
			err error
		)
		switch a.Kind {
		case ActSet:
			v = vals[n.action-1]
		case ActRemove:
		case ActAdd:
			v, err = addValues(ops, cur, a.Val.Value)
		case ActDelete:
			v, err = deleteValues(ops, cur, a.Val.Value)
		}
		return v, withPath(err, a.Path)
	}
	if ops.Type(cur) == 0 && n.removesOnly && !exists {
		// On an item that does not exist, DynamoDB ignores a REMOVE
		// under a missing parent; on an existing item the path is as
		// invalid as it is for SET.
		return cur, nil
	}
	if n.fields != nil {
		if ops.Type(cur) != TypeM {
			return zero, withPath(updateError(ReasonUpdatePathInvalid), n.first)
		}
		m, err := applyFields(ops, n, actions, vals, ops.Map(cur), exists)
		if err != nil {
			return zero, err
		}
		return ops.MakeMap(m), nil
	}
	if ops.Type(cur) != TypeL {
		return zero, withPath(updateError(ReasonUpdatePathInvalid), n.first)
	}
	old := ops.List(cur)
	l := make([]V, 0, len(old)+len(n.idx))
	next := 0 // the next original element to copy
	for _, i := range n.idx {
		var ov V
		if i < len(old) {
			ov = old[i]
		}
		nv, err := applyNode(ops, n.elems[i], actions, vals, ov, exists)
		if err != nil {
			return zero, err
		}
		// Indexes ascend, so the original elements up to i (all of
		// them, for an index past the end) come first; a zero result
		// removes an original element, and indexes past the end append
		// in index order.
		end := min(i, len(old))
		l = append(l, old[next:end]...)
		next = max(next, min(i+1, len(old)))
		if ops.Type(nv) != 0 {
			l = append(l, nv)
		}
	}
	l = append(l, old[next:]...)
	return ops.MakeList(l), nil
}

// withPath returns err, if it is an *Error without a path, with path p.
func withPath(err error, p Path) error {
	if e, ok := err.(*Error); ok && e.Path == "" {
		return &Error{Kind: e.Kind, Path: p.String(), Reason: e.Reason}
	}
	return err
}

// updateError is an update DynamoDB rejects when it applies it, in words
// that name no expression kind.
func updateError(reason string) error { return &Error{Reason: reason} }

// evalSetPair evaluates the two operands args of a SET value's + or -
// or list_append, left first.
func evalSetPair[V any](ops Ops[V], old map[string]V, args []Operand[V]) (a, b V, err error) {
	if a, err = evalSetValue(ops, old, args[0]); err != nil {
		return a, b, err
	}
	b, err = evalSetValue(ops, old, args[1])
	return a, b, err
}

// evalSetValue computes a SET value from the old item.
func evalSetValue[V any](ops Ops[V], old map[string]V, o Operand[V]) (V, error) {
	var zero V
	switch o.Kind {
	case OpValue:
		return o.Value, nil
	case OpPath:
		v := Lookup(ops, old, o.Path)
		if ops.Type(v) == 0 {
			return zero, updateError(ReasonUpdateMissingAttr)
		}
		return v, nil
	case OpPlus, OpMinus:
		a, b, err := evalSetPair(ops, old, o.Args)
		if err != nil {
			return zero, err
		}
		x, y := ops.Scalar(a), ops.Scalar(b)
		if x.Type != TypeN || y.Type != TypeN || x.Malformed || y.Malformed {
			return zero, updateError(ReasonUpdateOperandType)
		}
		var s string
		if o.Kind == OpPlus {
			s, err = number.Add(x.Text, y.Text)
		} else {
			s, err = number.Sub(x.Text, y.Text)
		}
		if err != nil {
			return zero, updateError(err.Error())
		}
		return ops.Number(s), nil
	case OpCall:
		switch o.Fn {
		case "if_not_exists":
			if v := Lookup(ops, old, o.Args[0].Path); ops.Type(v) != 0 {
				return v, nil
			}
			return evalSetValue(ops, old, o.Args[1])
		case "list_append":
			a, b, err := evalSetPair(ops, old, o.Args)
			if err != nil {
				return zero, err
			}
			if ops.Type(a) != TypeL || ops.Type(b) != TypeL {
				return zero, updateError(ReasonUpdateOperandType)
			}
			la, lb := ops.List(a), ops.List(b)
			l := make([]V, 0, len(la)+len(lb))
			return ops.MakeList(append(append(l, la...), lb...)), nil
		}
	}
	return zero, updateError(ReasonUpdateOperandType)
}

// addValues is ADD: a number added to a number (a missing attribute counts
// as 0), or a set's members added to a set of the same type (a missing
// attribute counts as empty).
func addValues[V any](ops Ops[V], cur, v V) (V, error) {
	var zero V
	t, err := setOperands(ops, cur, v)
	switch {
	case err != nil:
		return zero, err
	case t == 0:
		return v, nil
	}
	switch t {
	case TypeN:
		s, err := number.Add(ops.Scalar(cur).Text, ops.Scalar(v).Text)
		if err != nil {
			return zero, updateError(err.Error())
		}
		return ops.Number(s), nil
	case TypeSS, TypeBS, TypeNS:
		cmp := memberOrder(t)
		set := append(slices.Clone(ops.Members(cur)), ops.Members(v)...)
		slices.SortFunc(set, cmp)
		set = slices.CompactFunc(set, func(a, b string) bool { return cmp(a, b) == 0 })
		return ops.MakeSet(t, set), nil
	}
	return zero, updateError(ReasonUpdateOperandType)
}

// deleteValues is DELETE: the set less v's members; an empty result
// removes the attribute, and deleting from a missing attribute does
// nothing.
func deleteValues[V any](ops Ops[V], cur, v V) (V, error) {
	var zero V
	t, err := setOperands(ops, cur, v)
	if err != nil || t == 0 {
		return zero, err
	}
	cmp := memberOrder(t)
	members, remove := ops.Members(cur), ops.Members(v)
	set := make([]string, 0, len(members))
	for _, m := range members {
		if _, found := slices.BinarySearchFunc(remove, m, cmp); !found {
			set = append(set, m)
		}
	}
	if len(set) == 0 {
		return zero, nil
	}
	return ops.MakeSet(t, set), nil
}

// setOperands is what ADD and DELETE check first: the type of the current
// value cur, 0 if the attribute is missing, and an error if the operand v
// is not of cur's type or either value is malformed.
func setOperands[V any](ops Ops[V], cur, v V) (Type, error) {
	c, x := ops.Scalar(cur), ops.Scalar(v)
	if c.Type != 0 && (c.Type != x.Type || c.Malformed || x.Malformed) {
		return 0, updateError(ReasonUpdateOperandType)
	}
	return c.Type, nil
}

// memberOrder returns the order of the members of a set of type t:
// numeric for NS, bytewise for SS and BS.
func memberOrder(t Type) func(a, b string) int {
	if t == TypeNS {
		return number.Compare
	}
	return strings.Compare
}
