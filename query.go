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

// query.go holds Query, and the planning that Query and Scan (scan.go)
// share: the options both take, the expressions, and the start key or
// cursor. The plan and its reading are read_plan.go's.

// Query and Scan limits.
const (
	// DefaultPageSize is the most bytes of items a Query or Scan page
	// reads, counted before the filter and projection: DynamoDB's 1 MB.
	DefaultPageSize = 1 << 20
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
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*page, error) {
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
	hash, rng := p.rows.keyAttrs()
	kc, err := parseKeyCondition(c, in.KeyConditionExpression, hash, rng)
	if err != nil {
		return nil, withOp(op, err)
	}
	if err := t.finishExprs(op, st, p, c, &o, true); err != nil {
		return nil, err
	}
	if p.lo, p.hi, err = p.rows.keyRange(kc); err != nil {
		return nil, withOp(op, err)
	}
	if p.part, err = p.rows.partition(kc); err != nil {
		return nil, withOp(op, err)
	}
	p.forward = in.ScanIndexForward == nil || *in.ScanIndexForward
	if err := t.planStart(p, &o, "The provided starting key is outside query boundaries based on provided conditions"); err != nil {
		return nil, err
	}
	// A whole partition of the table is counted by its item
	// collection's counters.
	p.countable(p.part != nil && kc.Op == expr.SortNone && len(kc.Eq) == 0, o.pageSize)
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
	p := &readPlan{op: op, st: st, rows: tableRows{st}, walk: keyRangeWalk{}, limit: o.limit, pageSize: o.pageSize}
	if ix != nil {
		p.rows = &indexRows{st: st, ix: ix}
	}
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
	if o.sel == SelectCount {
		p.answer = answerCount
	}
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
			hash, rng := p.rows.keyAttrs()
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
	if err := p.rows.plan(p, o.sel); err != nil {
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
	fpLo, fpHi := p.walk.fingerprint(p)
	p.fp = newCursorFingerprint(p.st.cursorKey, t.name, p.st.keys.items.Bytes(), p.op, o.indexName, fpLo, fpHi, p.forward)
	switch {
	case o.esk != nil:
		kv, err := p.rows.startKey(p.op, o.esk)
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
		if !inRange(kv, p.lo, p.hi) || !p.walk.holds(kv) {
			return &ValidationError{Op: p.op, Path: "ExclusiveStartKey", Reason: outside}
		}
		p.start = kv
	case o.cursor != nil:
		kv, err := decodeCursorWith(o.cursor, p.fp, p.rows.keyItem, p.lo, p.hi)
		if err != nil {
			return withOp(p.op, err)
		}
		if !p.walk.holds(kv) {
			return &ValidationError{Op: p.op, Path: "Cursor", Reason: "The provided cursor is invalid: its key is outside the request's key range"}
		}
		p.start = kv
	}
	return nil
}
