package fdyno

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// GetInput is the request of [Table.Get], DynamoDB's GetItem. Zero values
// are the defaults.
type GetInput struct {
	// Key holds exactly the table's key attributes.
	Key Item
	// ProjectionExpression names the attributes (and nested paths) to
	// return; empty returns the whole item.
	ProjectionExpression     string
	ExpressionAttributeNames map[string]string
	// ConsistentRead is accepted for compatibility; every read is
	// strongly consistent.
	ConsistentRead bool
}

// GetOutput is the result of [Table.Get].
type GetOutput struct {
	// Item is the item, projected if asked, or nil if there is none.
	Item Item
}

// Get reads one item. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html.
//
// A chunked item's chunks are read in parallel. rt may be an fdb.Database
// (its own read transaction, retried as needed), an fdb.Transaction, or a
// snapshot of one.
//
// Errors: [ErrValidation] for a bad key or expression;
// [ErrResourceNotFound] when the table was deleted; FoundationDB errors,
// wrapped so that errors.As finds the fdb.Error. Get is safe for
// concurrent use.
func (t *Table) Get(rt fdb.ReadTransactor, in GetInput) (*GetOutput, error) {
	const op = "GetItem"
	st0 := t.state.Load()
	kv, err := keyOf(op, in.Key, st0.hash, st0.rng, true)
	if err != nil {
		return nil, err
	}
	e, err := prepareExprs(op, in.ExpressionAttributeNames, nil, "", "", in.ProjectionExpression)
	if err != nil {
		return nil, err
	}
	return readTransact(rt, func(tr fdb.ReadTransaction) (*GetOutput, error) {
		tg, err := t.fetch(tr, op, st0, in.Key, kv, true, true)
		if err != nil {
			return nil, err
		}
		it := tg.old
		if it != nil && e.proj != nil {
			it = e.proj.apply(it)
		}
		return &GetOutput{Item: it}, nil
	})
}
