package fdyno

import (
	"context"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// batch_write.go holds BatchWrite: puts and deletes across tables, as
// many as fit in one FoundationDB transaction, through writeItem.

// Limits of one [BatchWrite] transaction. FoundationDB refuses a
// transaction above 10,000,000 bytes of mutations and conflict ranges and
// aborts one older than five seconds; a batch takes at most half the size
// and a bounded number of items, so that it commits well inside both. A
// single request larger than the budget (an item up to
// [MaxItemSizeLimit]) still goes, alone.
const (
	// MaxBatchWriteBytes bounds the estimated size of one BatchWrite
	// transaction: item keys and encodings, chunk keys, clears and
	// conflict ranges.
	MaxBatchWriteBytes = 5_000_000
	// MaxBatchWriteItems bounds the requests of one BatchWrite
	// transaction.
	MaxBatchWriteItems = 10_000
)

// WriteRequest is one put or delete of a [BatchWrite]: exactly one of its
// fields is set. DynamoDB's WriteRequest.
type WriteRequest struct {
	PutRequest    *PutRequest
	DeleteRequest *DeleteRequest
}

// PutRequest puts a whole item, unconditionally.
type PutRequest struct {
	// Item is the whole new item, key attributes included.
	Item Item
}

// DeleteRequest deletes an item, unconditionally.
type DeleteRequest struct {
	// Key holds exactly the table's key attributes.
	Key Item
}

// BatchWriteInput is the request of [BatchWrite], DynamoDB's
// BatchWriteItem.
type BatchWriteInput struct {
	// RequestItems maps each table to the puts and deletes to apply to it.
	RequestItems map[*Table][]WriteRequest
}

// BatchWriteOutput is the result of [BatchWrite].
type BatchWriteOutput struct {
	// UnprocessedItems holds the requests that did not fit in the
	// transaction, whole requests only; nil when everything was written.
	// Pass it as RequestItems of another BatchWrite.
	UnprocessedItems map[*Table][]WriteRequest
	batchCost        // IndexCapacity (index_capacity.go)
}

// writeRequest is one validated request of a batch: an unconditional
// put or delete.
type writeRequest struct {
	w     writeAction
	index int // position in its table's requests
	cost  int // estimated transaction bytes
}

// BatchWrite puts and deletes items across tables in one FoundationDB
// transaction, every item whole: as many requests as fit in
// [MaxBatchWriteBytes] and [MaxBatchWriteItems], in the order of the
// tables' directory paths and then of the requests; the rest come back in
// UnprocessedItems, never part of an item. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html.
//
// Every request is validated before tx is touched, and a bad one fails
// the whole batch. Unlike DynamoDB there is no limit of 25 requests.
// Puts replace whole items and deletes of absent items do nothing, so a
// retried batch is idempotent. [BatchWriteAll] runs the unprocessed rest
// in further transactions.
//
// With an fdb.Database, BatchWrite runs its own transaction and may retry
// it; with an fdb.Transaction, the batch commits with the caller's
// transaction.
//
// Errors: [ErrValidation] for an empty request, a bad item or key, or one
// item named twice ("Provided list of item keys contains duplicates");
// [ErrResourceNotFound] when a table was deleted; FoundationDB errors,
// wrapped so that errors.As finds the fdb.Error. On any error nothing is
// written in tx. BatchWrite is safe for concurrent use.
func BatchWrite(tx fdb.Transactor, in BatchWriteInput) (*BatchWriteOutput, error) {
	reqs, err := prepareBatchWrite(in)
	if err != nil {
		return nil, err
	}
	n := fitBatch(reqs)
	changes, err := Transact(tx, func(tr fdb.Transaction) ([]*itemChange, error) {
		return writeBatch(tr, reqs[:n])
	})
	if err != nil {
		return nil, err
	}
	out := &BatchWriteOutput{}
	for i, c := range changes {
		if c != nil {
			if out.changes == nil {
				out.changes = map[*Table][]*itemChange{}
			}
			t := reqs[i].w.t
			out.changes[t] = append(out.changes[t], c)
		}
	}
	for _, r := range reqs[n:] {
		if out.UnprocessedItems == nil {
			out.UnprocessedItems = map[*Table][]WriteRequest{}
		}
		t := r.w.t
		out.UnprocessedItems[t] = append(out.UnprocessedItems[t], in.RequestItems[t][r.index])
	}
	return out, nil
}

// BatchWriteAll applies a [BatchWrite] and then its UnprocessedItems,
// each in a fresh transaction of tx, until nothing is left. It stops with
// ctx's error before a transaction once ctx is done; the batches committed
// until then stay committed. If tx is an fdb.Transaction, every batch is
// written in it.
func BatchWriteAll(ctx context.Context, tx fdb.Transactor, in BatchWriteInput) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := BatchWrite(tx, in)
		if err != nil {
			return err
		}
		if len(out.UnprocessedItems) == 0 {
			return nil
		}
		in = BatchWriteInput{RequestItems: out.UnprocessedItems}
	}
}

func prepareBatchWrite(in BatchWriteInput) ([]writeRequest, error) {
	const op = "BatchWriteItem"
	if len(in.RequestItems) == 0 {
		return nil, &ValidationError{Op: op, Reason: "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1"}
	}
	var reqs []writeRequest
	seen := map[string]bool{}
	for _, t := range sortedTables(in.RequestItems) {
		if t == nil {
			return nil, &ValidationError{Op: op, Reason: "RequestItems holds a nil *Table"}
		}
		wrs := in.RequestItems[t]
		if len(wrs) == 0 {
			return nil, &ValidationError{Op: op, Reason: "1 validation error detected: Value '[]' at 'requestItems." + t.name + ".member' failed to satisfy constraint: Member must have length greater than or equal to 1"}
		}
		st0 := t.state.Load()
		for i, wr := range wrs {
			r := writeRequest{w: writeAction{t: t, st0: st0, op: op}, index: i}
			switch {
			case (wr.PutRequest == nil) == (wr.DeleteRequest == nil):
				return nil, &ValidationError{Op: op, Reason: "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes: a WriteRequest needs exactly one of PutRequest and DeleteRequest"}
			case wr.PutRequest != nil:
				it := wr.PutRequest.Item
				if it == nil {
					return nil, &ValidationError{Op: op, Reason: "PutRequest.Item is required"}
				}
				r.w.kind, r.w.key = actionPut, it
			default:
				r.w.kind, r.w.key = actionDelete, wr.DeleteRequest.Key
			}
			if err := r.w.prepare(); err != nil {
				return nil, err
			}
			id := itemID(t, r.w.kv)
			if seen[id] {
				return nil, &ValidationError{Op: op, Reason: "Provided list of item keys contains duplicates"}
			}
			seen[id] = true
			r.cost = writeCost(len(st0.keys.itemKey(r.w.kv)), len(r.w.put.enc), t.chunkThreshold)
			reqs = append(reqs, r)
		}
	}
	return reqs, nil
}

// writeCost estimates the bytes one item write adds to a FoundationDB
// transaction (what counts toward its 10 MB limit): the head key set or
// cleared, the chunk range cleared, the chunks of a large encoding, each
// with its write conflict range, and the read conflict on the table's
// metadata key.
func writeCost(keyLen, encLen, threshold int) int {
	const batchPerKey = 16 // a chunk key's suffix and FoundationDB's bookkeeping
	cost := 6*keyLen + 3*batchPerKey + encLen
	if encLen > threshold {
		chunks := (encLen + ChunkSize - 1) / ChunkSize
		cost += chunks * 2 * (keyLen + batchPerKey)
	}
	return cost
}

// fitBatch returns how many of reqs, from the first, one transaction
// takes: at least one, then while they fit the batch limits.
func fitBatch(reqs []writeRequest) int {
	total := 0
	for i, r := range reqs {
		total += r.cost
		if i > 0 && (total > MaxBatchWriteBytes || i >= MaxBatchWriteItems) {
			return i
		}
	}
	return len(reqs)
}

// writeBatch writes reqs in tr through decide and writeItem, and returns
// the change each made (nil for a delete of an absent item). Every read
// (of the schema, and of old items when the table needs them) is started
// before any is waited on, and every check is done before the first write.
func writeBatch(tr fdb.Transaction, reqs []writeRequest) ([]*itemChange, error) {
	const op = "BatchWriteItem"
	l := loaderOf(tr)
	mvf := tr.Snapshot().Get(metadataVersionKey)
	states := make([]*tableState, len(reqs))
	for i, r := range reqs {
		states[i] = r.w.st0
	}
	orders, err := startOrderPrefetches(tr, states)
	if err != nil {
		return nil, err
	}
	fetches := make([]pendingFetch, len(reqs))
	for i := range reqs {
		fetches[i] = reqs[i].w.start(l, mvf)
	}
	tgs, err := fetchAll(l, fetches)
	if err != nil {
		return nil, err
	}
	changes := make([]*itemChange, len(reqs))
	for i := range reqs {
		d, err := decide(&reqs[i].w, tgs[i])
		if err != nil {
			return nil, err
		}
		if d.write {
			changes[i] = &d.change
		}
	}
	refused, ok, err := checkUnique(tr, changes) // unique.go
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, withOp(op, firstRefusal(refused))
	}
	// Checks are done; from here on, only writes.
	for i, c := range changes {
		if c == nil {
			continue // deleting an absent item: nothing to write
		}
		c.orders = orders
		if err := writeItem(tr, reqs[i].w.t, *c); err != nil {
			return nil, withOp(op, err)
		}
	}
	return changes, nil
}
