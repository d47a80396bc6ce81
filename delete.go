package fdyno

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// DeleteInput is the request of [Table.Delete], DynamoDB's DeleteItem.
// Zero values are the defaults.
type DeleteInput struct {
	// Key holds exactly the table's key attributes.
	Key                       Item
	ConditionExpression       string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]Value
	// ReturnValues is NONE or ALL_OLD.
	ReturnValues                        ReturnValue
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure
}

// DeleteOutput is the result of [Table.Delete].
type DeleteOutput struct {
	// Attributes is the deleted item when ReturnValues is ALL_OLD and
	// there was one; otherwise nil.
	Attributes Item
	indexCost
}

// Delete removes one item, and its chunks; deleting an absent item is not
// an error unless a condition fails. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html.
//
// Errors, transactions and retries are as for [Table.Put]. Delete is safe
// for concurrent use.
func (t *Table) Delete(tx fdb.Transactor, in DeleteInput) (*DeleteOutput, error) {
	const op = "DeleteItem"
	p := writeAction{t: t, st0: t.state.Load(), op: op, kind: actionDelete, key: in.Key,
		rv: in.ReturnValues, rvFail: in.ReturnValuesOnConditionCheckFailure}
	if err := p.prepare(); err != nil {
		return nil, err
	}
	if err := checkReturnValues(op, in.ReturnValues, ReturnValueAllOld); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(op, in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	e, err := prepareExprs(op, in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ConditionExpression, "", "")
	if err != nil {
		return nil, err
	}
	p.cond = e.cond
	return Transact(tx, func(tr fdb.Transaction) (*DeleteOutput, error) {
		a := p // a copy per attempt, on the stack
		d, err := a.run(tr)
		if err != nil {
			return nil, err
		}
		return &DeleteOutput{Attributes: d.attrs, indexCost: d.cost()}, nil
	})
}
