package fdyno

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// UpdateInput is the request of [Table.Update], DynamoDB's UpdateItem.
// Zero values are the defaults.
type UpdateInput struct {
	// Key holds exactly the table's key attributes.
	Key Item
	// UpdateExpression has SET, REMOVE, ADD and DELETE clauses; empty
	// changes nothing (but still creates an absent item, as does any SET
	// or ADD; REMOVE and DELETE alone do not).
	UpdateExpression          string
	ConditionExpression       string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]Value
	// ReturnValues is NONE, ALL_OLD, UPDATED_OLD, ALL_NEW or UPDATED_NEW.
	ReturnValues                        ReturnValue
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure
}

// UpdateOutput is the result of [Table.Update].
type UpdateOutput struct {
	// Attributes holds what ReturnValues asked for, or nil: the whole
	// item before (ALL_OLD) or after (ALL_NEW) the update, or only the
	// updated paths before (UPDATED_OLD) or after (UPDATED_NEW) it.
	Attributes Item
	// ItemSize is the larger of the item's sizes ([Item.Size]) before
	// and after the update, what DynamoDB charges an UpdateItem's write
	// capacity for; 0 when the update wrote nothing.
	ItemSize int
	indexCost
}

// Update edits an item's attributes, creating the item (from its key) if
// it does not exist, as DynamoDB does, unless every action of the
// UpdateExpression is a REMOVE or a DELETE: those leave a missing item
// missing. Key attributes cannot be updated.
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html.
//
// The key, expressions and placeholders are validated before tx is
// touched; the updated item's size and index key types are checked in the
// transaction, before anything is written.
//
// Errors, transactions and retries are as for [Table.Put]. Update is safe
// for concurrent use.
func (t *Table) Update(tx fdb.Transactor, in UpdateInput) (*UpdateOutput, error) {
	const op = "UpdateItem"
	p := writeAction{t: t, st0: t.state.Load(), op: op, kind: actionUpdate, key: in.Key,
		rv: in.ReturnValues, rvFail: in.ReturnValuesOnConditionCheckFailure}
	if err := p.prepare(); err != nil { // the key, before the expressions
		return nil, err
	}
	if err := checkReturnValues(op, in.ReturnValues, ReturnValueAllOld, ReturnValueUpdatedOld, ReturnValueAllNew, ReturnValueUpdatedNew); err != nil {
		return nil, err
	}
	if err := checkReturnOnFailure(op, in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	e, err := prepareExprs(op, in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ConditionExpression, in.UpdateExpression, "")
	if err != nil {
		return nil, err
	}
	p.cond, p.upd = e.cond, e.upd
	if e.upd != nil {
		p.paths = e.upd.Paths()
		if err := p.prepare(); err != nil { // again, with the paths
			return nil, err
		}
	}
	return Transact(tx, func(tr fdb.Transaction) (*UpdateOutput, error) {
		a := p // a copy per attempt, on the stack
		d, err := a.run(tr)
		if err != nil {
			return nil, err
		}
		out := &UpdateOutput{Attributes: d.attrs, indexCost: d.cost()}
		if d.write {
			// The larger of the item before and after (DynamoDB's write
			// capacity of an update).
			out.ItemSize = max(d.change.old.Size(), d.change.size)
		}
		return out, nil
	})
}
