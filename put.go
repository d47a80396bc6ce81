package fdyno

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// PutInput is the request of [Table.Put], DynamoDB's PutItem. Zero values
// are the defaults.
type PutInput struct {
	// Item is the whole new item, key attributes included.
	Item Item
	// ConditionExpression must hold for the item as it is for the put to
	// happen; absent items see attribute_not_exists(x) as true.
	ConditionExpression       string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]Value
	// ReturnValues is NONE or ALL_OLD.
	ReturnValues ReturnValue
	// ReturnValuesOnConditionCheckFailure ALL_OLD puts the item as it was
	// into the *ConditionalCheckFailedError.
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure
}

// PutOutput is the result of [Table.Put].
type PutOutput struct {
	// Attributes is the replaced item when ReturnValues is ALL_OLD and an
	// item was replaced; otherwise nil.
	Attributes Item
	indexCost
}

// Put creates an item or replaces it entirely. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html.
//
// The request is validated before t is touched: the item, its key
// attributes (present, of the declared type), index key types, its size
// (at most the handle's max item size), the expressions and placeholders.
//
// Errors: [ErrValidation] for a bad request; [ErrConditionalCheckFailed]
// (a *[ConditionalCheckFailedError]) when the condition is false;
// [ErrResourceNotFound] when the table was deleted; FoundationDB errors,
// wrapped so that errors.As finds the fdb.Error. On any error, nothing is
// written in t.
//
// With an fdb.Database, Put runs its own transaction and may retry it;
// with an fdb.Transaction, the put commits with the caller's transaction.
// Put is safe for concurrent use.
func (t *Table) Put(tx fdb.Transactor, in PutInput) (*PutOutput, error) {
	const op = "PutItem"
	st0 := t.state.Load()
	if in.Item == nil {
		return nil, &ValidationError{Op: op, Reason: "Item is required"}
	}
	if err := checkReturnValues(op, in.ReturnValues, ReturnValueAllOld); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(op, in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	// Done once, outside the transaction's retry loop.
	p := writeAction{t: t, st0: st0, op: op, kind: actionPut, key: in.Item,
		rv: in.ReturnValues, rvFail: in.ReturnValuesOnConditionCheckFailure}
	if err := p.prepare(); err != nil {
		return nil, err
	}
	e, err := prepareExprs(op, in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ConditionExpression, "", "")
	if err != nil {
		return nil, err
	}
	p.cond = e.cond
	return Transact(tx, func(tr fdb.Transaction) (*PutOutput, error) {
		a := p // a copy per attempt, on the stack
		d, err := a.run(tr)
		if err != nil {
			return nil, err
		}
		return &PutOutput{Attributes: d.attrs, indexCost: d.cost()}, nil
	})
}
