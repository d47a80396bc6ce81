package fdyno

import (
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// TransactGetItem is one item to read in a [TransactGet]: DynamoDB's
// TransactGetItem with its Get.
type TransactGetItem struct {
	// Table is the table to read from.
	Table *Table
	// Key holds exactly the table's key attributes.
	Key                      Item
	ProjectionExpression     string
	ExpressionAttributeNames map[string]string
}

// TransactGetInput is the request of [TransactGet], DynamoDB's
// TransactGetItems.
type TransactGetInput struct {
	// TransactItems are the items to read; at least one.
	TransactItems []TransactGetItem
}

// ItemResponse is one item of a [TransactGetOutput].
type ItemResponse struct {
	// Item is the item, projected if asked, or nil if there is none.
	Item Item
	// ItemSize is the size ([Item.Size]) of the whole item read, before
	// the projection; 0 if there is none. DynamoDB charges the read for
	// it.
	ItemSize int
}

// TransactGetOutput is the result of [TransactGet].
type TransactGetOutput struct {
	// Responses has one entry per TransactItems entry, in request order.
	Responses []ItemResponse
}

// TransactGet reads items from one or more tables at one read version,
// in one FoundationDB read transaction, every read in flight at once. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html.
//
// Unlike DynamoDB there is no limit of 100 items: the limit is
// FoundationDB's five-second transaction lifetime. rt may be an
// fdb.Database (its own read transaction, retried as needed), an
// fdb.Transaction or a snapshot of one.
//
// Errors: [ErrValidation] for an empty request, a nil table, a bad
// expression, or one item named twice ("Transaction request cannot
// include multiple operations on one item"); a [*TransactionCanceledError]
// for a key that does not match its table's schema, as DynamoDB reports
// it: reason ValidationError for that item, None for the others;
// [ErrResourceNotFound] when a table was deleted; FoundationDB errors, wrapped so that errors.As finds
// the fdb.Error. TransactGet is safe for concurrent use.
func TransactGet(rt fdb.ReadTransactor, in TransactGetInput) (*TransactGetOutput, error) {
	const op = "TransactGetItems"
	if len(in.TransactItems) == 0 {
		return nil, &ValidationError{Op: op, Reason: "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"}
	}
	reqs := make([]getRequest, len(in.TransactItems))
	seen := map[string]bool{}
	// invalid holds each item's key error: DynamoDB checks a key against
	// its table's schema when it runs the transaction, so a mismatch
	// cancels it (reason ValidationError) rather than failing the request.
	var invalid []error
	for i, g := range in.TransactItems {
		if g.Table == nil {
			return nil, &ValidationError{Op: op, Reason: "TransactItems[" + strconv.Itoa(i) + "] has no Table"}
		}
		st0 := g.Table.state.Load()
		e, err := prepareExprs(op, g.ExpressionAttributeNames, nil, "", "", g.ProjectionExpression)
		if err != nil {
			return nil, err
		}
		kv, err := keyOf(op, g.Key, st0.hash, st0.rng, true)
		if err != nil {
			if invalid == nil {
				invalid = make([]error, len(in.TransactItems))
			}
			invalid[i] = err
			continue
		}
		id := itemID(g.Table, kv)
		if seen[id] {
			return nil, &ValidationError{Op: op, Reason: "Transaction request cannot include multiple operations on one item"}
		}
		seen[id] = true
		reqs[i] = getRequest{t: g.Table, st0: st0, key: g.Key, kv: kv, proj: e.proj, index: i}
	}
	if invalid != nil {
		reasons := make([]CancellationReason, len(invalid))
		for i, err := range invalid {
			reasons[i] = CancellationReason{Code: CancellationCodeNone}
			if err != nil {
				reasons[i] = validationReason(err)
			}
		}
		return nil, &TransactionCanceledError{CancellationReasons: reasons}
	}
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*TransactGetOutput, error) {
		items, sizes, _, err := readBatch(tr, op, reqs, 0)
		if err != nil {
			return nil, err
		}
		out := &TransactGetOutput{Responses: make([]ItemResponse, len(items))}
		for i, it := range items {
			out.Responses[i] = ItemResponse{Item: it, ItemSize: sizes[i]}
		}
		return out, nil
	})
}
