package fdyno

import (
	"cmp"
	"slices"
	"strings"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// batch_get.go holds BatchGet and the batched read it shares with
// TransactGet (transact_get.go): every key of the request is read in one
// FoundationDB transaction, with all item heads in flight before any is
// waited on, then all chunks of the chunked ones.

// MaxBatchGetBytes is the most bytes of items (encoded, before
// projection) one [BatchGet] returns: DynamoDB's 16 MB response limit.
// Keys past it come back in UnprocessedKeys. The first key is always
// read.
const MaxBatchGetBytes = 16 << 20

// KeysAndAttributes is what [BatchGet] reads from one table: DynamoDB's
// KeysAndAttributes.
type KeysAndAttributes struct {
	// Keys hold exactly the table's key attributes each; at least one.
	Keys []Item
	// ProjectionExpression names the attributes to return of every item
	// of this table; empty returns whole items.
	ProjectionExpression     string
	ExpressionAttributeNames map[string]string
	// ConsistentRead is accepted for compatibility; every read is
	// strongly consistent.
	ConsistentRead bool
}

// BatchGetInput is the request of [BatchGet], DynamoDB's BatchGetItem.
type BatchGetInput struct {
	// RequestItems maps each table to the keys to read from it.
	RequestItems map[*Table]KeysAndAttributes
}

// BatchGetOutput is the result of [BatchGet].
type BatchGetOutput struct {
	// Responses holds, for every table of the request, the items found,
	// projected, in the order of their keys in the request; keys without
	// an item are absent.
	Responses map[*Table][]Item
	// ItemSizes holds, for every table of the request, the size
	// ([Item.Size]) of each item of Responses before its projection, in
	// the same order: DynamoDB charges a read for the whole item.
	ItemSizes map[*Table][]int
	// UnprocessedKeys holds the keys not read because the response
	// reached MaxBatchGetBytes, with their table's projection; nil when
	// every key was read. Pass it as RequestItems of another BatchGet.
	UnprocessedKeys map[*Table]KeysAndAttributes
}

// getRequest is one validated key of a batched read.
type getRequest struct {
	t    *Table
	st0  *tableState
	key  Item
	kv   []byte
	proj *projection
	// index is the position of the key in its table's Keys.
	index int
}

// BatchGet reads items from one or more tables in one FoundationDB read
// transaction, all keys at once: every item head is requested before any
// is waited on, then the chunks of every chunked item. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html.
//
// Unlike DynamoDB there is no limit of 100 keys: all keys are read at one
// read version, and the response is bounded by [MaxBatchGetBytes]. rt may
// be an fdb.Database (its own read transaction, retried as needed), an
// fdb.Transaction or a snapshot of one. Tables are told apart by their
// directory, so two handles on one table are one table.
//
// Errors: [ErrValidation] for an empty request, a bad key or expression,
// or a key requested twice ("Provided list of item keys contains
// duplicates"); [ErrResourceNotFound] when a table was deleted;
// FoundationDB errors, wrapped so that errors.As finds the fdb.Error.
// BatchGet is safe for concurrent use.
func BatchGet(rt fdb.ReadTransactor, in BatchGetInput) (*BatchGetOutput, error) {
	const op = "BatchGetItem"
	if len(in.RequestItems) == 0 {
		return nil, &ValidationError{Op: op, Reason: "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1"}
	}
	tables := sortedTables(in.RequestItems)
	n := 0
	for _, ka := range in.RequestItems {
		n += len(ka.Keys)
	}
	reqs := make([]getRequest, 0, n)
	seen := make(map[string]bool, n)
	for _, t := range tables {
		if t == nil {
			return nil, &ValidationError{Op: op, Reason: "RequestItems holds a nil *Table"}
		}
		ka := in.RequestItems[t]
		if len(ka.Keys) == 0 {
			return nil, &ValidationError{Op: op, Reason: "1 validation error detected: Value '[]' at 'requestItems." + t.name + ".member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1"}
		}
		e, err := prepareExprs(op, ka.ExpressionAttributeNames, nil, "", "", ka.ProjectionExpression)
		if err != nil {
			return nil, err
		}
		st0 := t.state.Load()
		tid := tableID(t)
		for i, key := range ka.Keys {
			kv, err := keyOf(op, key, st0.hash, st0.rng, true)
			if err != nil {
				return nil, err
			}
			id := tid + string(kv)
			if seen[id] {
				return nil, &ValidationError{Op: op, Reason: "Provided list of item keys contains duplicates"}
			}
			seen[id] = true
			reqs = append(reqs, getRequest{t: t, st0: st0, key: key, kv: kv, proj: e.proj, index: i})
		}
	}
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*BatchGetOutput, error) {
		items, sizes, n, err := readBatch(tr, op, reqs, MaxBatchGetBytes)
		if err != nil {
			return nil, err
		}
		out := &BatchGetOutput{Responses: make(map[*Table][]Item, len(tables)), ItemSizes: make(map[*Table][]int, len(tables))}
		for _, t := range tables {
			out.Responses[t] = []Item{}
			out.ItemSizes[t] = []int{}
		}
		for i, it := range items[:n] {
			if it != nil {
				t := reqs[i].t
				out.Responses[t] = append(out.Responses[t], it)
				out.ItemSizes[t] = append(out.ItemSizes[t], sizes[i])
			}
		}
		for _, r := range reqs[n:] {
			if out.UnprocessedKeys == nil {
				out.UnprocessedKeys = map[*Table]KeysAndAttributes{}
			}
			ka, ok := out.UnprocessedKeys[r.t]
			if !ok {
				ka = in.RequestItems[r.t]
				ka.Keys = nil
			}
			ka.Keys = append(ka.Keys, in.RequestItems[r.t].Keys[r.index])
			out.UnprocessedKeys[r.t] = ka
		}
		return out, nil
	})
}

// readBatch reads every request in tr and returns the items found (nil
// for a missing one), projected, in request order, and their sizes
// before the projection (0 for none). All heads are read at once, then
// the chunks of all chunked items at once. It reads the first n requests
// whose items add up to at most maxBytes (always at least one); 0 means
// no limit.
func readBatch(tr fdb.ReadTransaction, op string, reqs []getRequest, maxBytes int) (items []Item, sizes []int, n int, err error) {
	// One metadata-version read serves every table: the key is
	// cluster-wide (table_state.go).
	l := loaderOf(tr)
	mvf := tr.Snapshot().Get(metadataVersionKey)
	fetches := make([]pendingFetch, len(reqs))
	for i, r := range reqs {
		fetches[i] = r.t.startFetch(l, mvf, op, r.st0, r.key, r.kv, nil, true)
	}
	if err := resolveAll(l, fetches); err != nil {
		return nil, nil, 0, err
	}
	total := 0
	n = len(reqs)
	for i := range fetches {
		total += fetches[i].size()
		if maxBytes > 0 && i > 0 && total > maxBytes {
			n = i
			break
		}
	}
	tgs, err := finishAll(l, fetches[:n])
	if err != nil {
		return nil, nil, 0, err
	}
	items, sizes = make([]Item, n), make([]int, n)
	for i, tg := range tgs {
		it := tg.old
		sizes[i] = it.Size()
		if it != nil && reqs[i].proj != nil {
			it = applyProjection(reqs[i].proj, it)
		}
		items[i] = it
	}
	return items, sizes, n, nil
}

// itemID identifies an item across tables: its table's directory path
// and its packed key values. Two handles on one table give the same ID.
func itemID(t *Table, kv []byte) string {
	return tableID(t) + string(kv)
}

// tableID identifies a table by its directory path, for itemID.
func tableID(t *Table) string {
	var b strings.Builder
	for _, p := range t.path {
		b.WriteString(p)
		b.WriteByte(0)
	}
	b.WriteByte(0xff)
	return b.String()
}

// sortedTables returns the tables of a request map in a fixed order (by
// directory path), so that the same request is always processed, and
// split, the same way.
func sortedTables[V any](m map[*Table]V) []*Table {
	tables := make([]*Table, 0, len(m))
	for t := range m {
		tables = append(tables, t)
	}
	slices.SortFunc(tables, func(a, b *Table) int {
		switch {
		case a == b:
			return 0
		case a == nil:
			return -1
		case b == nil:
			return 1
		}
		return cmp.Compare(joinPath(a.path), joinPath(b.path))
	})
	return tables
}
