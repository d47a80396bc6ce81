package fdyno

// This file joins the root package to package internal/expr, which holds
// the lexer, the reserved words, document paths, the parser of conditions
// and operands, their syntax tree, condition evaluation, key conditions and
// UpdateExpression, over any value type: here are the Value operations it
// uses (valueOps), the validation of a request's ExpressionAttributeNames
// and ExpressionAttributeValues (exprContext), the conversion of its
// errors, and ProjectionExpression.
//
// The grammar is restated from the DynamoDB developer guide's expressions
// chapter:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.html

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fdyno/fdyno/internal/expr"
)

// maxSubstitutionsSize bounds ExpressionAttributeNames and
// ExpressionAttributeValues together (the DynamoDB service quotas page,
// "Expression parameters"); the other expression limits are package
// internal/expr's.
const maxSubstitutionsSize = 2 << 20

// Reasons, in DynamoDB's words. The expression kind is prefixed by
// exprError ("Invalid UpdateExpression: ...").
const (
	reasonNamesEmpty        = "ExpressionAttributeNames must not be empty"
	reasonValuesEmpty       = "ExpressionAttributeValues must not be empty"
	reasonNamesUnused       = "Value provided in ExpressionAttributeNames unused in expressions: keys: {"
	reasonValuesUnused      = "Value provided in ExpressionAttributeValues unused in expressions: keys: {"
	reasonSubstitutionsSize = "ExpressionAttributeNames and ExpressionAttributeValues exceed the size limit of 2 MB"
)

// Expression kinds, as DynamoDB names them in its messages.
const (
	kindCondition  = "ConditionExpression"
	kindFilter     = "FilterExpression"
	kindUpdate     = "UpdateExpression"
	kindProjection = "ProjectionExpression"
)

// validationFromExpr returns err, an error of package expr, as the
// *ValidationError users see: DynamoDB's message, reachable with errors.As
// and errors.Is(err, ErrValidation).
func validationFromExpr(err error) error {
	var e *expr.Error
	if errors.As(err, &e) {
		if e.Kind == "" {
			return &ValidationError{Path: e.Path, Reason: e.Reason}
		}
		return exprError(e.Kind, e.Reason)
	}
	return err
}

// exprError returns the *ValidationError for a rejected expression of the
// given kind.
func exprError(kind, reason string) error {
	return &ValidationError{Reason: "Invalid " + kind + ": " + reason}
}

// exprContext holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues and what the request's expressions used; see
// [expr.Context]. Parse every expression of the request with the same
// context, then call [checkAllUsed].
type exprContext = expr.Context[Value]

// The parser and the syntax tree are package internal/expr's, over the
// root package's Value.
type (
	parser    = expr.Parser[Value]
	operand   = expr.Operand[Value]
	condition = expr.Condition[Value]
)

// valueOps are the operations on Value package internal/expr uses.
type valueOps struct{}

func (valueOps) Type(v Value) expr.Type { return expr.Type(v.typ) }
func (valueOps) Scalar(v Value) expr.Scalar {
	return expr.Scalar{Type: expr.Type(v.typ), Text: v.s, Malformed: v.bad}
}
func (valueOps) Equal(a, b Value) bool            { return a.Equal(b) }
func (valueOps) Len(v Value) int                  { return v.Len() }
func (valueOps) Members(v Value) []string         { return v.setv() }
func (valueOps) List(v Value) []Value             { return v.listv() }
func (valueOps) Number(s string) Value            { return Value{typ: TypeN, s: s} }
func (valueOps) Map(v Value) map[string]Value     { return v.mapv() }
func (valueOps) MakeMap(m map[string]Value) Value { return M(m) }
func (valueOps) MakeList(l []Value) Value         { return L(l...) }
func (valueOps) MakeSet(t expr.Type, members []string) Value {
	return Value{typ: Type(t), x: members}
}
func (valueOps) Field(v Value, name string) (Value, bool) {
	w, ok := v.mapv()[name]
	return w, ok
}

// update is a parsed UpdateExpression; see [expr.Update].
type (
	update       = expr.Update[Value]
	updateAction = expr.UpdateAction[Value]
)

// parseUpdate parses an UpdateExpression: clauses SET, REMOVE, ADD and
// DELETE, each at most once and in any order. Placeholders are resolved in
// c and marked used. Errors are *[ValidationError] in DynamoDB's words.
func parseUpdate(c *exprContext, src string) (*update, error) {
	u, err := expr.ParseUpdate[Value](valueOps{}, c, src)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return u, nil
}

// applyUpdate returns the item that results from applying u to old;
// exists tells whether the item existed. See [expr.Update.Apply]. Errors
// are *[ValidationError].
func applyUpdate(u *update, old Item, exists bool) (Item, error) {
	it, err := u.Apply(valueOps{}, old, exists)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return it, nil
}

// evalCondition evaluates the condition against it; a nil it means the
// item does not exist. See [expr.Test]. The error is reserved so that
// evaluation of a FilterExpression can fail later without an API change.
func evalCondition(cd *condition, it Item) (bool, error) {
	return testCondition(cd, it), nil
}

// testCondition evaluates the condition against it; see [expr.Test].
func testCondition(cd *condition, it Item) bool {
	return expr.Test[Value](valueOps{}, cd, it)
}

// compareScalars orders two N, S or B values of the same type; see
// [expr.CompareScalars].
func compareScalars(a, b Value) (int, bool) {
	return expr.CompareScalars[Value](valueOps{}, a, b)
}

// newParser checks the length of src and tokenizes it. Errors are
// *[ValidationError].
func newParser(c *exprContext, kind, src string) (*parser, error) {
	p, err := expr.NewParser[Value](valueOps{}, c, kind, src)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return p, nil
}

// parseCondition parses a ConditionExpression. Placeholders are resolved
// in c and marked used. Errors are *[ValidationError] in DynamoDB's words,
// syntax errors with the offending token and its neighbours.
func parseCondition(c *exprContext, src string) (*condition, error) {
	return parseConditionKind(c, kindCondition, src)
}

// parseConditionKind is parseCondition for another kind of condition, such
// as kindFilter, whose name DynamoDB puts in its messages.
func parseConditionKind(c *exprContext, kind, src string) (*condition, error) {
	cd, err := expr.ParseCondition[Value](valueOps{}, c, kind, src)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return cd, nil
}

// newExprContext validates a request's ExpressionAttributeNames and
// ExpressionAttributeValues: keys of the form #[A-Za-z0-9_]+ and
// :[A-Za-z0-9_]+ of at most 255 bytes, non-empty attribute names, values
// that pass [Value.Validate], maps that are nil or non-empty, and at most
// 2 MB in all. Either map may be nil. Errors are *[ValidationError].
//
// Whether an expression was supplied at all is the caller's to check:
// DynamoDB rejects the maps without one.
func newExprContext(names map[string]string, values map[string]Value) (*exprContext, error) {
	if names != nil && len(names) == 0 {
		return nil, &ValidationError{Reason: reasonNamesEmpty}
	}
	if values != nil && len(values) == 0 {
		return nil, &ValidationError{Reason: reasonValuesEmpty}
	}
	size := 0
	for _, k := range sortedKeys(names) {
		if !validPlaceholder(k, '#') {
			return nil, &ValidationError{Reason: "ExpressionAttributeNames contains invalid key: Syntax error; key: " + strconv.Quote(k)}
		}
		if names[k] == "" {
			return nil, &ValidationError{Reason: "ExpressionAttributeNames contains invalid value: Empty attribute name for key " + k}
		}
		if len(names[k]) > MaxAttributeNameLength {
			return nil, &ValidationError{Reason: "ExpressionAttributeNames contains invalid value: " + reasonNameTooLong + " for key " + k}
		}
		if !utf8.ValidString(names[k]) {
			return nil, &ValidationError{Reason: "ExpressionAttributeNames contains invalid value: " + reasonInvalidUTF8Name + " for key " + k}
		}
		size += len(k) + len(names[k])
	}
	for _, k := range sortedKeys(values) {
		if !validPlaceholder(k, ':') {
			return nil, &ValidationError{Reason: "ExpressionAttributeValues contains invalid key: Syntax error; key: " + strconv.Quote(k)}
		}
		if err := values[k].Validate(); err != nil {
			reason := err.Error()
			if ve, ok := err.(*ValidationError); ok {
				reason = ve.Reason
			}
			return nil, &ValidationError{Reason: "ExpressionAttributeValues contains invalid value: " + reason + " for key " + k}
		}
		size += len(k) + values[k].Size()
	}
	if size > maxSubstitutionsSize {
		return nil, &ValidationError{Reason: reasonSubstitutionsSize}
	}
	return expr.NewContext(names, values), nil
}

// validPlaceholder reports whether k is sigil followed by 1 to 254 of
// [A-Za-z0-9_].
func validPlaceholder(k string, sigil byte) bool {
	if len(k) < 2 || len(k) > expr.MaxPlaceholderLength || k[0] != sigil {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !expr.IsNameByte(k[i]) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkAllUsed fails if a supplied placeholder was used by none of the
// expressions parsed with c, in DynamoDB's words: "Value provided in
// ExpressionAttributeNames unused in expressions: keys: {#x}" (names are
// checked before values).
func checkAllUsed(c *exprContext) error {
	names, values := c.Unused()
	if len(names) > 0 {
		return &ValidationError{Reason: reasonNamesUnused + strings.Join(names, ", ") + "}"}
	}
	if len(values) > 0 {
		return &ValidationError{Reason: reasonValuesUnused + strings.Join(values, ", ") + "}"}
	}
	return nil
}

// pathElem and docPath are the root package's names for a document path
// element and a document path; see package internal/expr.
type (
	pathElem = expr.PathElem
	docPath  = expr.Path
)

// checkOverlaps rejects two paths that overlap or conflict, naming them in
// the order they were written. Errors are *[ValidationError].
func checkOverlaps(kind string, paths []docPath) error {
	return validationFromExpr(expr.CheckOverlaps(kind, paths))
}

// lookupPath returns the value at p in it, or the zero Value if there is
// none: a missing name, an index past the end, or an element of the wrong
// kind for its container.
func lookupPath(it Item, p docPath) Value {
	return expr.Lookup[Value](valueOps{}, it, p)
}

// projection is a parsed ProjectionExpression. It is immutable after
// parsing and safe for concurrent use.
type projection struct {
	paths []docPath
}

// parseProjection parses a ProjectionExpression: document paths separated
// by commas, none overlapping another. Errors are *[ValidationError].
func parseProjection(c *exprContext, src string) (*projection, error) {
	pr, err := parseProjectionPaths(c, src)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return pr, nil
}

// parseProjectionPaths is parseProjection with errors of package
// internal/expr left as they are.
func parseProjectionPaths(c *exprContext, src string) (*projection, error) {
	p, err := newParser(c, kindProjection, src)
	if err != nil {
		return nil, err
	}
	var paths []docPath
	for {
		path, err := p.ParsePath()
		if err != nil {
			return nil, err
		}
		paths = append(paths, path)
		if !p.Accept(expr.TokComma) {
			break
		}
	}
	if err := p.Finish(); err != nil {
		return nil, err
	}
	if err := checkOverlaps(kindProjection, paths); err != nil {
		return nil, err
	}
	return &projection{paths: paths}, nil
}

// String returns the projection as an expression without placeholders.
func (p *projection) String() string {
	s := make([]string, len(p.paths))
	for i, q := range p.paths {
		s[i] = q.String()
	}
	return strings.Join(s, ", ")
}

// apply returns the attributes of it that the projection names; see
// [projectPaths]. A nil item projects to nil.
func (p *projection) apply(it Item) Item {
	if it == nil {
		return nil
	}
	return projectPaths(it, p.paths)
}

// projectPaths returns the sub-item of it holding just the given paths, as
// DynamoDB returns a projection: a map keeps only the named keys, a list
// keeps only the named elements, in index order and without gaps, and
// paths that do not exist are left out. The result shares scalar values
// and unprojected containers with it but never modifies it.
func projectPaths(it Item, paths []docPath) Item {
	root := &projNode{}
	for _, p := range paths {
		v := lookupPath(it, p)
		if v.IsZero() {
			continue
		}
		n := root
		for _, e := range p {
			n = n.child(e)
		}
		n.leaf, n.hasLeaf = v, true
	}
	out := make(Item, len(root.fields))
	for name, n := range root.fields {
		out[name] = n.build()
	}
	return out
}

// projNode is a node of the tree of projected paths.
type projNode struct {
	leaf    Value
	hasLeaf bool
	fields  map[string]*projNode
	elems   map[int]*projNode
}

func (n *projNode) child(e pathElem) *projNode {
	if e.IsIndex {
		if n.elems == nil {
			n.elems = make(map[int]*projNode)
		}
		c := n.elems[e.Index]
		if c == nil {
			c = &projNode{}
			n.elems[e.Index] = c
		}
		return c
	}
	if n.fields == nil {
		n.fields = make(map[string]*projNode)
	}
	c := n.fields[e.Name]
	if c == nil {
		c = &projNode{}
		n.fields[e.Name] = c
	}
	return c
}

func (n *projNode) build() Value {
	if n.hasLeaf {
		// Paths never overlap, so a leaf has no children.
		return n.leaf
	}
	if n.elems != nil {
		idx := make([]int, 0, len(n.elems))
		for i := range n.elems {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		l := make([]Value, len(idx))
		for j, i := range idx {
			l[j] = n.elems[i].build()
		}
		return L(l...)
	}
	m := make(Item, len(n.fields))
	for name, c := range n.fields {
		m[name] = c.build()
	}
	return M(m)
}
