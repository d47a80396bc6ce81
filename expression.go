package fdyno

// This file joins the root package to package internal/expr, which holds
// the lexer, the reserved words, document paths, the parser of conditions
// and operands, their syntax tree, condition evaluation, key conditions and
// UpdateExpression, ProjectionExpression and the validation of a request's
// ExpressionAttributeNames and ExpressionAttributeValues, over any value
// type: here are the root's names for them, the conversion of their errors
// to *ValidationError, and the wrappers the operations call. The Value
// operations they use are valueOps (value_ops.go).
//
// The grammar is restated from the DynamoDB developer guide's expressions
// chapter:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.html

import (
	"errors"
	"github.com/fdyno/fdyno/internal/validate"

	"github.com/fdyno/fdyno/internal/expr"
)

// Expression kinds, as DynamoDB names them in its messages.
const (
	kindCondition = "ConditionExpression"
	kindFilter    = "FilterExpression"
	kindUpdate    = "UpdateExpression"
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

// The syntax tree is package internal/expr's, over the root package's
// Value.
type (
	operand   = expr.Operand[Value]
	condition = expr.Condition[Value]
)

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
// ExpressionAttributeValues under the item model's rules for attribute
// names and values; see [expr.CheckContext]. Errors are
// *[ValidationError].
func newExprContext(names map[string]string, values map[string]Value) (*exprContext, error) {
	c, err := expr.CheckContext(names, values, validate.Name, func(v Value) (int, string) {
		if err := v.Validate(); err != nil {
			if ve, ok := err.(*ValidationError); ok {
				return 0, ve.Reason
			}
			return 0, err.Error()
		}
		return v.Size(), ""
	})
	return c, validationFromExpr(err)
}

// checkAllUsed fails if a supplied placeholder was used by none of the
// expressions parsed with c; see [expr.Context.CheckAllUsed].
func checkAllUsed(c *exprContext) error {
	return validationFromExpr(c.CheckAllUsed())
}

// pathElem and docPath are the root package's names for a document path
// element and a document path; see package internal/expr.
type (
	pathElem = expr.PathElem
	docPath  = expr.Path
)

// lookupPath returns the value at p in it, or the zero Value if there is
// none: a missing name, an index past the end, or an element of the wrong
// kind for its container.
func lookupPath(it Item, p docPath) Value {
	return expr.Lookup[Value](valueOps{}, it, p)
}

// projection is a parsed ProjectionExpression; see [expr.Projection].
type projection = expr.Projection

// parseProjection parses a ProjectionExpression: document paths separated
// by commas, none overlapping another. Errors are *[ValidationError].
func parseProjection(c *exprContext, src string) (*projection, error) {
	pr, err := expr.ParseProjection[Value](valueOps{}, c, src)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return pr, nil
}

// applyProjection returns the attributes of it that p names; see
// [expr.Project].
// A nil item projects to nil.
func applyProjection(p *projection, it Item) Item {
	if it == nil {
		return nil
	}
	return projectPaths(it, p.Paths)
}

// projectPaths returns the sub-item of it holding just the given paths;
// see [expr.Project].
func projectPaths(it Item, paths []docPath) Item {
	return expr.Project[Value](valueOps{}, it, paths)
}
