package fdyno

import (
	"context"
	"errors"
	"github.com/fdyno/fdyno/internal/expr"
	"iter"
	"slices"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// query.go holds Query and the page reader that Query and Scan (scan.go)
// share. A page is one FoundationDB range read of the table's i/ subspace
// (or of an index's entries, index_read.go), inside one transaction:
//
//  1. The request is validated and planned (key range, direction, limits,
//     expressions) against the cached table state before the transaction.
//  2. In the transaction, the metadata-version read and the range read
//     start together; the plan is rebuilt only if the schema changed.
//  3. Heads are taken in key order until Limit items or PageSize bytes
//     were read (both counted before the filter, as DynamoDB does); the
//     chunks of every chunked head in the page are then read at once.
//  4. The filter and projection are applied; the last key read becomes
//     LastEvaluatedKey and Cursor when the page stopped early.
//
// Key ranges are computed on packed key values (keys.go's packKeyValues),
// the bytes that follow the i/ prefix, and turned into FoundationDB keys by
// tableKeys.itemKey; so a plan never names a key outside the table's i/
// subspace, and an ExclusiveStartKey or cursor is checked to lie inside the
// plan's range before it is used.

// Query and Scan limits.
const (
	// DefaultPageSize is the most bytes of items a Query or Scan page
	// reads, counted before the filter and projection: DynamoDB's 1 MB.
	DefaultPageSize = 1 << 20
)

// Select is the Select parameter of Query and Scan: what a page returns.
// The zero value is ALL_ATTRIBUTES, or SPECIFIC_ATTRIBUTES when a
// ProjectionExpression is given.
type Select string

// The Select values.
const (
	SelectAllAttributes          Select = "ALL_ATTRIBUTES"
	SelectAllProjectedAttributes Select = "ALL_PROJECTED_ATTRIBUTES"
	SelectSpecificAttributes     Select = "SPECIFIC_ATTRIBUTES"
	SelectCount                  Select = "COUNT"
)

// QueryInput is the request of [Table.Query], DynamoDB's Query. Zero
// values are the defaults.
type QueryInput struct {
	// IndexName names an ACTIVE local or global secondary index to query
	// instead of the table (index_read.go); the key condition is then on
	// the index's keys.
	IndexName string
	// KeyConditionExpression is required: equality on the partition key
	// and optionally one condition on the sort key.
	KeyConditionExpression string
	// FilterExpression is applied after the items are read; it may not
	// name key attributes.
	FilterExpression         string
	ProjectionExpression     string
	ExpressionAttributeNames map[string]string
	// ExpressionAttributeValues holds the :values of the expressions.
	ExpressionAttributeValues map[string]Value
	// ScanIndexForward false reads in descending sort-key order. The zero
	// value is ascending: nil means true.
	ScanIndexForward *bool
	// Limit is the most items the page reads (evaluates), before the
	// filter; 0 means no limit.
	Limit int
	// PageSize is the most bytes of items the page reads, before the
	// filter; 0 means DefaultPageSize. Not a DynamoDB parameter.
	PageSize int
	Select   Select
	// ExclusiveStartKey is the LastEvaluatedKey of the previous page.
	ExclusiveStartKey Item
	// Cursor is the Cursor of the previous page, an alternative to
	// ExclusiveStartKey that also pins the query it came from.
	Cursor []byte
	// ConsistentRead is accepted for compatibility; every read is
	// strongly consistent, but, as DynamoDB does, it is refused on a GSI.
	ConsistentRead bool
	// HideExpired drops items whose TimeToLiveAttribute has expired (by
	// the handle's clock, see ttl.go) but that the sweeper has not
	// deleted yet. Like a filter, it applies after Limit and PageSize:
	// hidden items count in ScannedCount only. Not a DynamoDB parameter.
	HideExpired bool
}

// QueryOutput is one page of a Query.
type QueryOutput struct {
	// Items are the items of the page that passed the filter, projected;
	// nil for Select COUNT.
	Items []Item
	// Count is the number of items that passed the filter.
	Count int
	// ScannedCount is the number of items read, before the filter.
	ScannedCount int
	// ScannedSize is the summed size ([Item.Size]) of the items read,
	// before the filter and the projection: what DynamoDB charges read
	// capacity for.
	ScannedSize int
	// LastEvaluatedKey holds the key attributes of the last item read when
	// the page stopped at Limit or PageSize; nil when the query is done.
	LastEvaluatedKey Item
	// Cursor is LastEvaluatedKey in opaque form, bound to this query (see
	// cursor.go); nil when the query is done.
	Cursor []byte
}

// Forward returns a pointer to b, for ScanIndexForward.
func Forward(b bool) *bool { return &b }

// Query reads one page of the items whose key satisfies the
// KeyConditionExpression, in sort-key order, with one FoundationDB range
// read. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html.
//
// rt may be an fdb.Database (its own read transaction, retried as
// needed), an fdb.Transaction or a snapshot of one; the page is read in
// that one transaction. Use [Table.QueryAll] or [Table.QueryPages] to
// walk every page, each in a fresh transaction.
//
// Errors: [ErrValidation] for a bad expression, key, start key or cursor
// (including one from another query or table); [ErrResourceNotFound] when
// the table was deleted; FoundationDB errors, wrapped so that errors.As
// finds the fdb.Error. Query is safe for concurrent use.
func (t *Table) Query(rt fdb.ReadTransactor, in QueryInput) (*QueryOutput, error) {
	pg, err := t.readPage(rt, in.IndexName, func(st *tableState) (*readPlan, error) { return t.queryPlan(st, &in) })
	if err != nil {
		return nil, err
	}
	return &QueryOutput{Items: pg.items, Count: pg.count, ScannedCount: pg.scanned, ScannedSize: pg.size, LastEvaluatedKey: pg.lastKey, Cursor: pg.cursor}, nil
}

// readPage reads the Query or Scan page that plan plans against a table
// state, in one read transaction of rt.
func (t *Table) readPage(rt fdb.ReadTransactor, indexName string, plan func(*tableState) (*readPlan, error)) (*page, error) {
	st0 := t.state.Load()
	p0, err := plan(st0)
	if err != nil && indexName == "" {
		return nil, err
	}
	// An index request the cached schema refuses may name an index
	// created or activated since: it is planned in the transaction.
	return readTransact(rt, func(tr fdb.ReadTransaction) (*page, error) {
		return t.runPlan(tr, st0, p0, plan)
	})
}

// QueryPages returns an iterator over the pages of a Query, starting at
// in's ExclusiveStartKey or Cursor. The walk stops with ctx's error
// before a page once ctx is done. Each page is read in a fresh read
// transaction of t (t.ReadTransact), so a walk of any length never meets
// FoundationDB's five-second transaction limit; pages are therefore not
// one snapshot: an item written between pages is seen if its key is
// after the page boundary. If t is an fdb.Transaction, every page is read
// in it. The walk ends after the first error, which is yielded, or when
// the consumer stops. Limit and PageSize apply to each page.
func (t *Table) QueryPages(ctx context.Context, tr fdb.Transactor, in QueryInput) iter.Seq2[*QueryOutput, error] {
	return walkPages(ctx, func(cursor []byte) (*QueryOutput, []byte, error) {
		page := in
		if cursor != nil {
			page.ExclusiveStartKey, page.Cursor = nil, cursor
		}
		out, err := t.Query(tr, page)
		if err != nil {
			return nil, nil, err
		}
		return out, out.Cursor, nil
	})
}

// walkPages yields the pages read returns, each resuming at the cursor of
// the one before (nil: the request's own start, so the iterator can be
// ranged over more than once), until a page without a cursor, an error
// (yielded), ctx being done (its error yielded) or the consumer stopping.
func walkPages[P any](ctx context.Context, read func(cursor []byte) (P, []byte, error)) iter.Seq2[P, error] {
	return func(yield func(P, error) bool) {
		var cursor []byte
		for {
			var zero P
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			out, next, err := read(cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			if !yield(out, nil) || next == nil {
				return
			}
			cursor = next
		}
	}
}

// QueryAll returns an iterator over every item of a Query, page by page
// as [Table.QueryPages] reads them, each page in its own transaction. A
// failure is yielded once, as (nil, err), and ends the walk.
//
//	for it, err := range tbl.QueryAll(ctx, db, in) {
//		if err != nil { … }
//	}
func (t *Table) QueryAll(ctx context.Context, tr fdb.Transactor, in QueryInput) iter.Seq2[Item, error] {
	return allItems(t.QueryPages(ctx, tr, in), func(o *QueryOutput) []Item { return o.Items })
}

func allItems[P any](pages iter.Seq2[P, error], items func(P) []Item) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		for pg, err := range pages {
			if err != nil {
				yield(nil, err)
				return
			}
			for _, it := range items(pg) {
				if !yield(it, nil) {
					return
				}
			}
		}
	}
}

// readPlan is a validated Query or Scan page request against one table
// state.
//
// Invariants:
//
//  1. lo < hi are packed key values (or "" and "\xff", the whole i/
//     subspace); the page reads only item keys in [itemKey(lo),
//     itemKey(hi)).
//  2. start, if set, lies in [lo, hi) and holds the key types of the
//     table's key schema.
type readPlan struct {
	op       string
	st       *tableState
	lo, hi   []byte
	start    []byte
	forward  bool
	limit    int
	pageSize int
	filter   *condition
	proj     *projection
	count    bool
	fp       cursorFingerprint
	ttl      ttlCutoff // HideExpired; the zero value hides nothing
	// ix is the index read instead of the table, or nil; fetchBase makes
	// an LSI page read each base item, and allAttrs return it whole
	// (index_read.go).
	ix                  *indexDef
	fetchBase, allAttrs bool
	// seg, if not nil, makes the plan one hash segment of a parallel
	// Scan (segment_read.go): it reads the partitions of seg's buckets, and
	// lo, hi span the whole table.
	seg *hashSegment
	// part is the packed partition value of a Query of the table, nil
	// for any other read; the handle's guard sees it (access.go).
	part []byte
}

// page is the result of one plan.
type page struct {
	items   []Item
	count   int
	scanned int
	size    int // of the items read, Item.Size
	lastKey Item
	cursor  []byte
}

// readOptions are the request fields Query and Scan share.
type readOptions struct {
	filter, proj string
	names        map[string]string
	values       map[string]Value
	limit        int
	pageSize     int
	sel          Select
	esk          Item
	cursor       []byte
	indexName    string
	consistent   bool
	hideExpired  bool
}

// queryPlan validates in against table state st and plans its page.
func (t *Table) queryPlan(st *tableState, in *QueryInput) (*readPlan, error) {
	const op = "Query"
	o := readOptions{filter: in.FilterExpression, proj: in.ProjectionExpression, names: in.ExpressionAttributeNames,
		values: in.ExpressionAttributeValues, limit: in.Limit, pageSize: in.PageSize, sel: in.Select,
		esk: in.ExclusiveStartKey, cursor: in.Cursor, indexName: in.IndexName, consistent: in.ConsistentRead,
		hideExpired: in.HideExpired}
	if in.KeyConditionExpression == "" {
		return nil, &ValidationError{Op: op, Reason: "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."}
	}
	p, c, err := t.planCommon(op, st, &o)
	if err != nil {
		return nil, err
	}
	hash, rng := p.keyAttrs()
	kc, err := parseKeyCondition(c, in.KeyConditionExpression, hash, rng)
	if err != nil {
		return nil, withOp(op, err)
	}
	if err := t.finishExprs(op, st, p, c, &o, true); err != nil {
		return nil, err
	}
	if p.lo, p.hi, err = p.keyRange(kc); err != nil {
		return nil, withOp(op, err)
	}
	if p.ix == nil {
		if p.part, err = packKeyValues(kc.Hash...); err != nil {
			return nil, withOp(op, err)
		}
	}
	p.forward = in.ScanIndexForward == nil || *in.ScanIndexForward
	if err := t.planStart(p, &o, "The provided starting key is outside query boundaries based on provided conditions"); err != nil {
		return nil, err
	}
	return p, nil
}

// planCommon checks the options Query and Scan share that need no
// expression parsing, and returns the plan and expression context.
func (t *Table) planCommon(op string, st *tableState, o *readOptions) (*readPlan, *exprContext, error) {
	fail := func(reason string) (*readPlan, *exprContext, error) {
		return nil, nil, &ValidationError{Op: op, Reason: reason}
	}
	ix, err := st.readableIndex(op, o.indexName, o.consistent)
	if err != nil {
		return nil, nil, err
	}
	if o.limit < 0 {
		return fail("1 validation error detected: Value '" + strconv.Itoa(o.limit) + "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	}
	if o.pageSize < 0 {
		return fail("PageSize must not be negative")
	}
	if o.esk != nil && o.cursor != nil {
		return fail("ExclusiveStartKey and Cursor are exclusive")
	}
	p := &readPlan{op: op, st: st, limit: o.limit, pageSize: o.pageSize, ix: ix}
	if p.pageSize == 0 {
		p.pageSize = DefaultPageSize
	}
	switch o.sel {
	case "", SelectAllAttributes, SelectSpecificAttributes, SelectCount:
	case SelectAllProjectedAttributes:
		if ix == nil {
			return fail("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
	default:
		return fail("1 validation error detected: Value '" + string(o.sel) + "' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]")
	}
	if o.proj != "" && (o.sel == SelectAllAttributes || o.sel == SelectCount) {
		return fail("Cannot specify the ProjectionExpression when choosing to get " + string(o.sel))
	}
	if o.proj == "" && o.sel == SelectSpecificAttributes {
		return fail("Must specify the ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
	}
	p.count = o.sel == SelectCount
	if o.hideExpired {
		p.ttl = newTTLCutoff(st.schema.TimeToLiveAttribute, t.now())
	}
	c, err := newExprContext(o.names, o.values)
	if err != nil {
		return nil, nil, withOp(op, err)
	}
	return p, c, nil
}

// finishExprs parses the filter and projection into p and checks that
// every placeholder was used. A Query filter may not name key attributes.
func (t *Table) finishExprs(op string, st *tableState, p *readPlan, c *exprContext, o *readOptions, noKeys bool) error {
	var err error
	if o.filter != "" {
		if p.filter, err = parseConditionKind(c, kindFilter, o.filter); err != nil {
			return withOp(op, err)
		}
		if noKeys {
			hash, rng := p.keyAttrs()
			if name := keyAttrIn(p.filter, hash, rng); name != "" {
				return &ValidationError{Op: op, Reason: "Filter Expression can only contain non-primary key attributes: Primary key attribute: " + name}
			}
		}
	}
	if o.proj != "" {
		if p.proj, err = parseProjection(c, o.proj); err != nil {
			return withOp(op, err)
		}
	}
	if err := p.planIndexRead(o.sel); err != nil {
		return err
	}
	return withOp(op, checkAllUsed(c))
}

// keyAttrIn returns the first of the key attributes hash and rng that cd
// names, or "". For a GSI with a multi-attribute key that is any of its
// key attributes, as DynamoDB refuses a filter on any of them.
func keyAttrIn(cd *condition, hash, rng []keyAttr) string {
	isKey := func(name string) bool {
		return slices.ContainsFunc(hash, func(a keyAttr) bool { return a.Name == name }) ||
			slices.ContainsFunc(rng, func(a keyAttr) bool { return a.Name == name })
	}
	found := ""
	conditionNames(cd, func(name string) {
		if found == "" && isKey(name) {
			found = name
		}
	})
	return found
}

// planStart resolves the request's ExclusiveStartKey or Cursor into
// p.start, refusing one outside [p.lo, p.hi) with reason outside.
func (t *Table) planStart(p *readPlan, o *readOptions, outside string) error {
	fpLo, fpHi := p.lo, p.hi
	if p.seg != nil {
		fpLo, fpHi = p.seg.fingerprint()
	}
	p.fp = newCursorFingerprint(p.st.cursorKey, t.name, p.st.keys.items.Bytes(), p.op, o.indexName, fpLo, fpHi, p.forward)
	switch {
	case o.esk != nil:
		kv, err := p.startKey(o.esk)
		if err != nil {
			reason := err.Error()
			if ve := (*ValidationError)(nil); errors.As(err, &ve) {
				reason = ve.Reason
			}
			if p.op == "Query" && reason == reasonKeyMismatch {
				// DynamoDB's Query says no more when the key's attributes
				// are not the table's and index's (as observed, and as
				// users of index queries report it); Scan names the
				// mismatch.
				return &ValidationError{Op: p.op, Path: "ExclusiveStartKey", Reason: "The provided starting key is invalid"}
			}
			return &ValidationError{Op: p.op, Path: "ExclusiveStartKey", Reason: "The provided starting key is invalid: " + reason}
		}
		if !inRange(kv, p.lo, p.hi) || p.seg != nil && !p.seg.holds(kv) {
			return &ValidationError{Op: p.op, Path: "ExclusiveStartKey", Reason: outside}
		}
		p.start = kv
	case o.cursor != nil:
		kv, err := decodeCursorWith(o.cursor, p.fp, p.keyItem, p.lo, p.hi)
		if err != nil {
			return withOp(p.op, err)
		}
		if p.seg != nil && !p.seg.holds(kv) {
			return &ValidationError{Op: p.op, Path: "Cursor", Reason: "The provided cursor is invalid: its key is outside the request's key range"}
		}
		p.start = kv
	}
	return nil
}

// kvRange returns the range [lo, hi) of packed key values whose items
// satisfy kc, for a table with a sort key if hasRange: keyConditionRange,
// where the least key after a full key k is next(k), since a table key
// ends with its sort element.
func kvRange(kc *keyCondition, hasRange bool) (lo, hi []byte, err error) {
	n := 0
	if hasRange {
		n = 1
	}
	return keyConditionRange(kc, n, next)
}

// indexKeyRange returns the range [lo, hi) of the bytes that follow an
// index's prefix (index key values, then base key values) of the entries
// whose index key satisfies kc, for an index of sortAttrs sort key
// attributes: keyConditionRange, where the least key after a full index
// key k is prefixEnd(k), since base key values follow it.
func indexKeyRange(kc *keyCondition, sortAttrs int) (lo, hi []byte, err error) {
	return keyConditionRange(kc, sortAttrs, prefixEnd)
}

// keyConditionRange plans the one range of key condition kc, for a key of
// sortAttrs sort attributes, from the packing's facts that keys.go
// states: the keys whose leading values are the partition values and the
// sort equalities (kc.Hash, kc.Eq), packed as p, are [p, prefixEnd(p));
// the least key after a full key k is after(k); and within that prefix
// the next sort attribute's values order the keys, whatever follows them.
// So every condition, a multi-attribute key's too, is pushed into the key
// range: nothing is filtered after the read.
func keyConditionRange(kc *keyCondition, sortAttrs int, after func([]byte) []byte) (lo, hi []byte, err error) {
	fixed := append(slices.Clip(kc.Hash), kc.Eq...)
	p, err := packKeyValues(fixed...)
	if err != nil {
		return nil, nil, err
	}
	end := prefixEnd(p)
	if kc.Op == expr.SortNone {
		if sortAttrs == 0 {
			return p, after(p), nil
		}
		return p, end, nil
	}
	pack := func(v Value) []byte {
		if err != nil {
			return nil
		}
		var k []byte
		k, err = packKeyValues(append(slices.Clip(fixed), v)...)
		return k
	}
	switch kc.Op {
	case expr.SortEq:
		lo = pack(kc.Lo)
		hi = after(lo)
	case expr.SortLt:
		lo, hi = p, pack(kc.Lo)
	case expr.SortLe:
		lo, hi = p, after(pack(kc.Lo))
	case expr.SortGt:
		lo, hi = after(pack(kc.Lo)), end
	case expr.SortGe:
		lo, hi = pack(kc.Lo), end
	case expr.SortBetween:
		lo, hi = pack(kc.Lo), after(pack(kc.Hi))
	case expr.SortBeginsWith:
		return beginsWithRange(fixed, kc.Lo)
	}
	return lo, hi, err
}

// runPlan reads plan p0, made against state st0, in tr: the range read
// starts together with the metadata-version read and is redone with a
// plan rebuilt by rebuild only if the table's state changed (or p0 is
// nil: st0 refused the request).
func (t *Table) runPlan(tr fdb.ReadTransaction, st0 *tableState, p0 *readPlan, rebuild func(*tableState) (*readPlan, error)) (*page, error) {
	if p0 != nil {
		if err := t.allowPlan(p0); err != nil {
			return nil, err
		}
	}
	mvf := tr.Snapshot().Get(metadataVersionKey)
	var rr kvIterator
	if p0 != nil {
		rr = p0.rangeRead(tr)
	}
	st, err := t.current(tr, mvf)
	if err != nil {
		return nil, err
	}
	p := p0
	if st != st0 || p0 == nil {
		if p, err = rebuild(st); err != nil {
			return nil, err
		}
		if err := t.allowPlan(p); err != nil {
			return nil, err
		}
		rr = p.rangeRead(tr)
	}
	return p.read(tr, rr)
}

// rangeRead starts the plan's range read, or its walk over the partitions
// of a hash segment.
func (p *readPlan) rangeRead(tr fdb.ReadTransaction) kvIterator {
	if p.seg != nil {
		return newPartitionWalker(tr, p)
	}
	lo, hi := p.lo, p.hi
	if p.start != nil {
		if p.forward {
			lo = next(p.start)
		} else {
			hi = p.start
		}
	}
	r := fdb.KeyRange{Begin: p.key(lo), End: p.key(hi)}
	// WantAll: the page is consumed whole, so its first batch is as large
	// as FoundationDB sends (about 80 KB); the iterator mode's small first
	// batches would cost a round trip each on a cluster.
	return tr.GetRange(r, fdb.RangeOptions{Limit: p.limit, Reverse: !p.forward, Mode: fdb.StreamingModeWantAll}).Iterator()
}

// read takes the page's heads from it, has the item loader follow the
// chunked ones all at once, and applies the filter and projection.
func (p *readPlan) read(tr fdb.ReadTransaction, it kvIterator) (*page, error) {
	pr, err := p.take(tr, it)
	if err != nil {
		return nil, err
	}
	if err := pr.follow(); err != nil {
		return nil, err
	}
	return pr.finish()
}

// pageRead is a page whose rows were taken from its range read, in the
// loader's three waves (loader.go): take waited for the rows; follow
// starts the reads the rows lead to (chunks, or an index's base items and
// their chunks) without waiting on a chunk; finish waits for them and
// builds the page. A batch of pages (query_batch.go) takes every page,
// then follows every page, then finishes each, so that all of their
// chunks are one wave.
type pageRead interface {
	follow() error
	finish() (*page, error)
}

// take takes the page's rows from it: a table page's item heads, or an
// index page's entries (index_read.go).
func (p *readPlan) take(tr fdb.ReadTransaction, it kvIterator) (pageRead, error) {
	if p.ix != nil {
		return p.takeIndex(tr, it)
	}
	keys, l := &p.st.keys, loaderOf(tr)
	entries, last, err := takeRows(p, it, func(kvp fdb.KeyValue) (itemRead, []byte, int, error) {
		kv, err := keys.splitItemKey(kvp.Key)
		if err != nil {
			return itemRead{}, nil, 0, err
		}
		r, err := l.row(keys, kv, kvp.Value)
		return r, kv, r.size(), err
	})
	if err != nil {
		return nil, err
	}
	return &tablePageRead{p: p, l: l, entries: entries, last: last}, nil
}

// tablePageRead is a table page's taken item heads.
type tablePageRead struct {
	p       *readPlan
	l       itemLoader
	entries []itemRead
	last    []byte
}

// follow starts every chunk read of the page before any is waited on.
func (r *tablePageRead) follow() error {
	for i := range r.entries {
		r.l.follow(&r.entries[i])
	}
	return nil
}

func (r *tablePageRead) finish() (*page, error) {
	p := r.p
	pg := p.newPage(len(r.entries))
	for i := range r.entries {
		item, _, err := r.l.load(&r.entries[i])
		if err != nil {
			return nil, err
		}
		if err := p.add(pg, item, nil); err != nil {
			return nil, err
		}
	}
	if err := p.setLast(pg, r.last); err != nil {
		return nil, err
	}
	return pg, nil
}

// takeRows takes the rows of a page from it, in order, as take turns
// each into an entry and gives its position (the key after the plan's
// prefix) and size, until the page is full: Limit entries or PageSize
// bytes, counted before the filter as DynamoDB does. last is the position
// of the last entry of a full page (rows may follow), nil otherwise.
func takeRows[E any](p *readPlan, it kvIterator, take func(fdb.KeyValue) (E, []byte, int, error)) (entries []E, last []byte, err error) {
	if p.limit > 0 {
		entries = make([]E, 0, min(p.limit, 1024))
	}
	bytesRead := 0
	for it.Advance() {
		kvp, err := it.Get()
		if err != nil {
			return nil, nil, err
		}
		e, pos, size, err := take(kvp)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
		bytesRead += size
		if p.limit > 0 && len(entries) == p.limit || bytesRead >= p.pageSize {
			return entries, pos, nil
		}
	}
	return entries, nil, nil
}

// newPage returns the page that holds n entries read, before add.
func (p *readPlan) newPage(n int) *page {
	pg := &page{scanned: n}
	if !p.count {
		pg.items = make([]Item, 0, n)
	}
	return pg
}

// add counts item, read from the store, into pg and keeps it unless
// HideExpired or the filter drops it, projected unless Select is COUNT.
// project, if not nil, applies after the filter (an LSI page that read
// the base item returns the index's projection).
func (p *readPlan) add(pg *page, item Item, project func(Item) Item) error {
	pg.size += item.Size()
	if p.ttl.expired(item) {
		return nil
	}
	if p.filter != nil {
		ok, err := evalCondition(p.filter, item)
		if err != nil || !ok {
			return err
		}
	}
	if project != nil {
		item = project(item)
	}
	pg.count++
	if p.count {
		return nil
	}
	if p.proj != nil {
		item = applyProjection(p.proj, item)
	}
	pg.items = append(pg.items, item)
	return nil
}

// setLast makes the key last (bytes after the plan's prefix), if not nil,
// LastEvaluatedKey and cursor.
func (p *readPlan) setLast(pg *page, last []byte) error {
	if last == nil {
		return nil
	}
	var err error
	if pg.lastKey, err = p.keyItem(last); err != nil {
		return err
	}
	pg.cursor = encodeCursor(p.fp, last)
	return nil
}

// allowPlan asks t's guard about the range read of plan p: a Query's
// partition, or a whole table or index.
func (t *Table) allowPlan(p *readPlan) error {
	if t.guard == nil {
		return nil
	}
	a := Access{Table: t.name, key: p.part}
	if p.ix != nil {
		a.Index = p.ix.name
	}
	return t.guard.Allow(a)
}
