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
	// ItemSize is the size ([Item.Size]) of the whole item read, before
	// the projection; 0 if there is none. DynamoDB charges a GetItem's
	// read capacity for it: a projection does not change the item size
	// that counts.
	ItemSize int
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
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*GetOutput, error) {
		it, err := t.read(tr, op, st0, in.Key, kv)
		if err != nil {
			return nil, err
		}
		size := it.Size()
		if it != nil && e.proj != nil {
			it = applyProjection(e.proj, it)
		}
		return &GetOutput{Item: it, ItemSize: size}, nil
	})
}

// read returns the item whose key attributes are key (packed kv under the
// cached state st0), or nil if there is none.
//
// A read needs no schema check when it finds the item: an item head exists
// under a table's directory prefix only while that table exists (DeleteTable
// clears the prefix in the transaction that removes the directory, and the
// directory layer never hands a removed prefix to a new table), and a
// table's key schema never changes, so the item is exactly what a current
// schema would have read. Only a miss is ambiguous: the item may be absent,
// or the cached table may be gone or recreated. A miss therefore checks the
// metadata version (Table.current) and reads again under a reloaded
// schema. This keeps the common case at one FoundationDB read.
func (t *Table) read(rt fdb.ReadTransaction, op string, st0 *tableState, key Item, kv []byte) (Item, error) {
	if err := t.allowItem(false, kv); err != nil {
		return nil, err
	}
	l := loaderOf(rt)
	r := l.get(&st0.keys, kv)
	if err := r.wait(); err != nil {
		return nil, err
	}
	if !r.found() {
		st, err := t.current(rt, rt.Snapshot().Get(metadataVersionKey))
		if err != nil {
			return nil, err
		}
		if st == st0 {
			return nil, nil
		}
		if kv, err = keyOf(op, key, st.hash, st.rng, true); err != nil {
			return nil, err
		}
		if err := t.allowItem(false, kv); err != nil {
			return nil, err
		}
		r = l.get(&st.keys, kv)
	}
	it, _, err := l.load(&r)
	return it, err
}
