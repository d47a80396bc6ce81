package fdyno

import (
	"maps"
	"slices"
	"strings"
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
}

// parseUpdate parses an UpdateExpression: clauses SET, REMOVE, ADD and
// DELETE, each at most once and in any order. Placeholders are resolved in
// c and marked used. Errors are *[ValidationError] in DynamoDB's words.
func parseUpdate(c *exprContext, expr string) (*update, error) {
	p, err := newParser(c, kindUpdate, expr)
	if err != nil {
		return nil, err
	}
	u := &update{}
	var seen [len(actionKeywords)]bool
	for p.peek().kind != tokEOF {
		kind := actionKind(0)
		for k := actSet; k <= actDelete; k++ {
			if p.isKeyword(actionKeywords[k]) {
				kind = k
			}
		}
		if kind == 0 {
			return nil, p.syntaxError()
		}
		if seen[kind] {
			p.semantic(strings.Replace(reasonClauseTwice, "%s", actionKeywords[kind], 1))
		}
		seen[kind] = true
		p.next()
		for {
			a, err := p.parseAction(kind)
			if err != nil {
				return nil, err
			}
			u.actions = append(u.actions, a)
			if !p.accept(tokComma) {
				break
			}
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	if err := checkOverlaps(kindUpdate, u.paths()); err != nil {
		return nil, err
	}
	return u, nil
}

func (p *parser) parseAction(kind actionKind) (updateAction, error) {
	path, err := p.parsePath()
	if err != nil {
		return updateAction{}, err
	}
	a := updateAction{kind: kind, path: path}
	switch kind {
	case actSet:
		if err := p.expect(tokEq); err != nil {
			return updateAction{}, err
		}
		if a.val, err = p.parseSetValue(); err != nil {
			return updateAction{}, err
		}
		p.checkSetValue(a.val, false)
	case actAdd, actDelete:
		t := p.peek()
		if t.kind != tokValue {
			return updateAction{}, p.syntaxError()
		}
		if a.val, err = p.parseOperand(); err != nil {
			return updateAction{}, err
		}
		p.checkAddDeleteValue(kind, a.val.value)
	}
	return a, nil
}

// parseSetValue parses term [ ('+'|'-') term ].
func (p *parser) parseSetValue() (operand, error) {
	left, err := p.parseTerm()
	if err != nil {
		return operand{}, err
	}
	k := operandKind(0)
	switch p.peek().kind {
	case tokPlus:
		k = opPlus
	case tokMinus:
		k = opMinus
	default:
		return left, nil
	}
	p.next()
	p.op()
	right, err := p.parseTerm()
	if err != nil {
		return operand{}, err
	}
	return operand{kind: k, args: []operand{left, right}}, nil
}

// parseTerm parses an operand or a parenthesized SET value, which
// DynamoDB's arithmetic examples allow.
func (p *parser) parseTerm() (operand, error) {
	if p.accept(tokLParen) {
		o, err := p.parseSetValue()
		if err != nil {
			return operand{}, err
		}
		if err := p.expect(tokRParen); err != nil {
			return operand{}, err
		}
		return o, nil
	}
	return p.parseOperand()
}

// checkSetValue applies the parse-time rules of SET values: only
// if_not_exists and list_append, with the right number of operands,
// if_not_exists on a path, no list_append inside list_append, and constant
// operands of the right type for +, - and list_append.
func (p *parser) checkSetValue(o operand, inListAppend bool) {
	switch o.kind {
	case opPlus, opMinus:
		name := "+"
		if o.kind == opMinus {
			name = "-"
		}
		for _, a := range o.args {
			if a.kind == opValue && !a.value.IsZero() && a.value.typ != TypeN {
				p.operandTypeError(name, a)
				return
			}
			p.checkSetValue(a, false)
		}
	case opCall:
		switch {
		case !isFunction(o.fn):
			return // reported as an invalid function name
		case !updateFunctions[o.fn]:
			p.semantic(reasonFunctionInUpdate + o.fn)
			return
		case o.fn == "list_append" && inListAppend:
			p.semantic(reasonFunctionMisused + o.fn)
			return
		}
		if !p.checkArgs(o, 2) {
			return
		}
		if o.fn == "if_not_exists" {
			if o.args[0].kind != opPath {
				p.operandTypeError(o.fn, o.args[0])
				return
			}
			p.checkSetValue(o.args[1], false)
			return
		}
		for _, a := range o.args {
			if a.kind == opValue && !a.value.IsZero() && a.value.typ != TypeL {
				p.operandTypeError(o.fn, a)
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
func (p *parser) checkAddDeleteValue(kind actionKind, v Value) {
	if v.IsZero() {
		return // undefined, already reported
	}
	ok := v.typ == TypeSS || v.typ == TypeNS || v.typ == TypeBS || kind == actAdd && v.typ == TypeN
	if !ok {
		p.semantic("Incorrect operand type for operator or function; operator: " + actionKeywords[kind] +
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

// apply returns the item that results from applying the update to old,
// which may be nil for an item that does not exist yet. old is not
// modified: the result is a new Item that shares only unmodified values
// with it. As in DynamoDB, every SET value is computed from old before any
// action is applied, so "SET a = b, b = a" swaps. Errors are
// *[ValidationError]: an operand of the wrong type (ADD to a non-number or
// a set of another type, list_append of non-lists, arithmetic on non-N), a
// missing attribute in a SET value, a path whose parent does not exist or
// is of the wrong kind, and number overflow. The result is not validated
// against item limits.
func (u *update) apply(old Item) (Item, error) {
	vals := make([]Value, len(u.actions))
	for i, a := range u.actions {
		if a.kind == actSet {
			v, err := evalSetValue(old, a.val)
			if err != nil {
				return nil, withPath(err, a.path)
			}
			vals[i] = v
		}
	}
	out := make(Item, len(old)+len(u.actions))
	maps.Copy(out, old)
	var removes []docPath
	for i, a := range u.actions {
		var err error
		switch a.kind {
		case actSet:
			v := vals[i]
			err = modifyAt(out, a.path, func(Value) (Value, error) { return v, nil })
		case actRemove:
			removes = append(removes, a.path)
		case actAdd:
			err = modifyAt(out, a.path, func(cur Value) (Value, error) { return addValues(cur, a.val.value) })
		case actDelete:
			err = modifyAt(out, a.path, func(cur Value) (Value, error) { return deleteValues(cur, a.val.value) })
		}
		if err != nil {
			return nil, withPath(err, a.path)
		}
	}
	// Remove list elements from the highest index down, so that each
	// index names an element of the original list.
	slices.SortFunc(removes, func(p, q docPath) int { return -comparePaths(p, q) })
	for _, p := range removes {
		if err := modifyAt(out, p, func(Value) (Value, error) { return Value{}, nil }); err != nil {
			return nil, withPath(err, p)
		}
	}
	return out, nil
}

func withPath(err error, p docPath) error {
	if ve, ok := err.(*ValidationError); ok && ve.Path == "" {
		return &ValidationError{Op: ve.Op, Path: p.String(), Reason: ve.Reason}
	}
	return err
}

// comparePaths orders paths element by element, names by bytes and
// indexes numerically, a prefix first.
func comparePaths(p, q docPath) int {
	for i := 0; i < len(p) && i < len(q); i++ {
		a, b := p[i], q[i]
		switch {
		case a.isIndex && b.isIndex:
			if a.index != b.index {
				if a.index < b.index {
					return -1
				}
				return 1
			}
		case a.isIndex != b.isIndex:
			if a.isIndex {
				return 1
			}
			return -1
		default:
			if c := strings.Compare(a.name, b.name); c != 0 {
				return c
			}
		}
	}
	return len(p) - len(q)
}

func updateError(reason string) error { return &ValidationError{Reason: reason} }

// evalSetValue computes a SET value from the old item.
func evalSetValue(old Item, o operand) (Value, error) {
	switch o.kind {
	case opValue:
		return o.value, nil
	case opPath:
		v := lookupPath(old, o.path)
		if v.IsZero() {
			return Value{}, updateError(reasonUpdateMissingAttr)
		}
		return v, nil
	case opPlus, opMinus:
		a, err := evalSetValue(old, o.args[0])
		if err != nil {
			return Value{}, err
		}
		b, err := evalSetValue(old, o.args[1])
		if err != nil {
			return Value{}, err
		}
		if a.typ != TypeN || b.typ != TypeN || a.bad || b.bad {
			return Value{}, updateError(reasonUpdateOperandType)
		}
		var s string
		if o.kind == opPlus {
			s, err = addNumbers(a.s, b.s)
		} else {
			s, err = subNumbers(a.s, b.s)
		}
		if err != nil {
			return Value{}, updateError(err.Error())
		}
		return Value{typ: TypeN, s: s}, nil
	case opCall:
		switch o.fn {
		case "if_not_exists":
			if v := lookupPath(old, o.args[0].path); !v.IsZero() {
				return v, nil
			}
			return evalSetValue(old, o.args[1])
		case "list_append":
			a, err := evalSetValue(old, o.args[0])
			if err != nil {
				return Value{}, err
			}
			b, err := evalSetValue(old, o.args[1])
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

// modifyAt replaces the value at p in it, which the caller owns, with
// f(current value); the current value is the zero Value if p does not
// exist, and a zero result removes the element. Containers on the way are
// copied, never modified, since they may be shared with another item. The
// parent of p must exist and be a map (for a name) or a list (for an
// index). An index past the end of a list appends, or does nothing if f
// returns the zero Value.
func modifyAt(it Item, p docPath, f func(Value) (Value, error)) error {
	name := p[0].name
	if len(p) == 1 {
		v, err := f(it[name])
		if err != nil {
			return err
		}
		if v.IsZero() {
			delete(it, name)
		} else {
			it[name] = v
		}
		return nil
	}
	child, ok := it[name]
	if !ok {
		return updateError(reasonUpdatePathInvalid)
	}
	nv, err := modifyIn(child, p[1:], f)
	if err != nil {
		return err
	}
	it[name] = nv
	return nil
}

func modifyIn(cont Value, p docPath, f func(Value) (Value, error)) (Value, error) {
	e := p[0]
	if e.isIndex {
		if cont.typ != TypeL {
			return Value{}, updateError(reasonUpdatePathInvalid)
		}
		l := slices.Clone(cont.listv())
		if len(p) > 1 {
			if e.index >= len(l) {
				return Value{}, updateError(reasonUpdatePathInvalid)
			}
			nv, err := modifyIn(l[e.index], p[1:], f)
			if err != nil {
				return Value{}, err
			}
			l[e.index] = nv
			return L(l...), nil
		}
		var cur Value
		if e.index < len(l) {
			cur = l[e.index]
		}
		nv, err := f(cur)
		if err != nil {
			return Value{}, err
		}
		switch {
		case e.index >= len(l):
			if !nv.IsZero() {
				l = append(l, nv)
			}
		case nv.IsZero():
			l = slices.Delete(l, e.index, e.index+1)
		default:
			l[e.index] = nv
		}
		return L(l...), nil
	}
	if cont.typ != TypeM {
		return Value{}, updateError(reasonUpdatePathInvalid)
	}
	m := make(Item, len(cont.mapv())+1)
	maps.Copy(m, cont.mapv())
	if err := modifyAt(m, p, f); err != nil {
		return Value{}, err
	}
	return M(m), nil
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
