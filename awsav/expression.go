package awsav

import (
	"maps"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
)

// BuiltExpression is what the SDK's expression builder returns: the
// expression.Expression of
// github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression, from
// expression.NewBuilder()...Build(). This package names the methods it
// reads instead of importing the builder, so that it depends on the SDK's
// types only.
type BuiltExpression interface {
	Condition() *string
	Filter() *string
	KeyCondition() *string
	Projection() *string
	Update() *string
	Names() map[string]string
	Values() map[string]types.AttributeValue
}

// Expressions holds a built expression in fdyno's terms: the expression
// strings ("" where the builder had none), the #name placeholders and the
// :value placeholders converted to fdyno values. Its fields are named like
// the methods of the SDK's expression.Expression, so that expr.Update()
// becomes x.Update, expr.Names() x.Names and expr.Values() x.Values; its
// methods fill fdyno's request types.
type Expressions struct {
	Condition    string
	Filter       string
	KeyCondition string
	Projection   string
	Update       string
	Names        map[string]string
	Values       map[string]fdyno.Value
}

// FromExpression converts a built SDK expression. The error is a
// *[fdyno.ValidationError] for a placeholder value that is not a valid
// attribute value (see [Value]); the expressions themselves are parsed
// and checked by the fdyno call that receives them.
func FromExpression(e BuiltExpression) (Expressions, error) {
	x := Expressions{
		Condition:    deref(e.Condition()),
		Filter:       deref(e.Filter()),
		KeyCondition: deref(e.KeyCondition()),
		Projection:   deref(e.Projection()),
		Update:       deref(e.Update()),
		Names:        maps.Clone(e.Names()),
	}
	if vs := e.Values(); vs != nil {
		x.Values = make(map[string]fdyno.Value, len(vs))
		for k, av := range vs {
			v, err := Value(av)
			if err != nil {
				return Expressions{}, valueError(err, k)
			}
			x.Values[k] = v
		}
	}
	return x, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// valueError names the placeholder whose value is invalid.
func valueError(err error, placeholder string) error {
	if ve, ok := err.(*fdyno.ValidationError); ok {
		c := *ve
		c.Reason = "ExpressionAttributeValues contains invalid value: " + c.Reason + " for key " + placeholder
		return &c
	}
	return err
}

// The methods below return a request with x's expressions in it; the
// caller adds the rest (Key, Item, ReturnValues, Limit...). Each one
// fails with a *fdyno.ValidationError when x holds an expression the
// operation does not take, rather than drop it silently.

// PutInput returns a PutItem request for item with x's condition.
func (x Expressions) PutInput(item fdyno.Item) (fdyno.PutInput, error) {
	if err := x.only("PutItem", "Condition"); err != nil {
		return fdyno.PutInput{}, err
	}
	return fdyno.PutInput{Item: item, ConditionExpression: x.Condition, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// UpdateInput returns an UpdateItem request for key with x's update and
// condition.
func (x Expressions) UpdateInput(key fdyno.Item) (fdyno.UpdateInput, error) {
	if err := x.only("UpdateItem", "Update", "Condition"); err != nil {
		return fdyno.UpdateInput{}, err
	}
	return fdyno.UpdateInput{Key: key, UpdateExpression: x.Update, ConditionExpression: x.Condition, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// DeleteInput returns a DeleteItem request for key with x's condition.
func (x Expressions) DeleteInput(key fdyno.Item) (fdyno.DeleteInput, error) {
	if err := x.only("DeleteItem", "Condition"); err != nil {
		return fdyno.DeleteInput{}, err
	}
	return fdyno.DeleteInput{Key: key, ConditionExpression: x.Condition, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// GetInput returns a GetItem request for key with x's projection.
func (x Expressions) GetInput(key fdyno.Item) (fdyno.GetInput, error) {
	if err := x.only("GetItem", "Projection"); err != nil {
		return fdyno.GetInput{}, err
	}
	if len(x.Values) > 0 {
		return fdyno.GetInput{}, &fdyno.ValidationError{Op: "GetItem", Reason: "ExpressionAttributeValues can only be specified when using expressions: GetItem takes only a ProjectionExpression, which has no values"}
	}
	return fdyno.GetInput{Key: key, ProjectionExpression: x.Projection, ExpressionAttributeNames: x.Names}, nil
}

// QueryInput returns a Query request with x's key condition, filter and
// projection.
func (x Expressions) QueryInput() (fdyno.QueryInput, error) {
	if err := x.only("Query", "KeyCondition", "Filter", "Projection"); err != nil {
		return fdyno.QueryInput{}, err
	}
	return fdyno.QueryInput{KeyConditionExpression: x.KeyCondition, FilterExpression: x.Filter, ProjectionExpression: x.Projection, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// ScanInput returns a Scan request with x's filter and projection.
func (x Expressions) ScanInput() (fdyno.ScanInput, error) {
	if err := x.only("Scan", "Filter", "Projection"); err != nil {
		return fdyno.ScanInput{}, err
	}
	return fdyno.ScanInput{FilterExpression: x.Filter, ProjectionExpression: x.Projection, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// ConditionCheck returns a TransactWriteItems condition check of key in
// table with x's condition.
func (x Expressions) ConditionCheck(table *fdyno.Table, key fdyno.Item) (*fdyno.ConditionCheck, error) {
	if err := x.only("ConditionCheck", "Condition"); err != nil {
		return nil, err
	}
	return &fdyno.ConditionCheck{Table: table, Key: key, ConditionExpression: x.Condition, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// TransactPut returns a TransactWriteItems put of item in table with x's
// condition.
func (x Expressions) TransactPut(table *fdyno.Table, item fdyno.Item) (*fdyno.TransactPut, error) {
	if err := x.only("Put", "Condition"); err != nil {
		return nil, err
	}
	return &fdyno.TransactPut{Table: table, Item: item, ConditionExpression: x.Condition, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// TransactUpdate returns a TransactWriteItems update of key in table with
// x's update and condition.
func (x Expressions) TransactUpdate(table *fdyno.Table, key fdyno.Item) (*fdyno.TransactUpdate, error) {
	if err := x.only("Update", "Update", "Condition"); err != nil {
		return nil, err
	}
	return &fdyno.TransactUpdate{Table: table, Key: key, UpdateExpression: x.Update, ConditionExpression: x.Condition, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// TransactDelete returns a TransactWriteItems delete of key in table with
// x's condition.
func (x Expressions) TransactDelete(table *fdyno.Table, key fdyno.Item) (*fdyno.TransactDelete, error) {
	if err := x.only("Delete", "Condition"); err != nil {
		return nil, err
	}
	return &fdyno.TransactDelete{Table: table, Key: key, ConditionExpression: x.Condition, ExpressionAttributeNames: x.Names, ExpressionAttributeValues: x.Values}, nil
}

// only fails if x holds an expression other than the allowed ones.
func (x Expressions) only(op string, allowed ...string) error {
	for _, e := range [...]struct{ name, expr string }{
		{"Condition", x.Condition},
		{"Filter", x.Filter},
		{"KeyCondition", x.KeyCondition},
		{"Projection", x.Projection},
		{"Update", x.Update},
	} {
		if e.expr == "" {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == e.name
		}
		if !ok {
			return &fdyno.ValidationError{Op: op, Reason: "the expression builder built a " + e.name + "Expression, which " + op + " does not take"}
		}
	}
	return nil
}
