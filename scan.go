package fdyno

import (
	"context"
	"iter"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Parallel scan bounds (DynamoDB's API reference).
const (
	// MaxTotalSegments is the most segments a parallel scan may have.
	MaxTotalSegments = 1_000_000
)

// ScanInput is the request of [Table.Scan], DynamoDB's Scan. Zero values
// are the defaults.
type ScanInput struct {
	// IndexName names an ACTIVE local or global secondary index to scan
	// instead of the table, in index key order (index_read.go).
	IndexName                 string
	FilterExpression          string
	ProjectionExpression      string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]Value
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
	// ExclusiveStartKey.
	Cursor []byte
	// Segment and TotalSegments make the scan one of TotalSegments
	// parallel scans, each reading a disjoint part of the table; together
	// they read every item exactly once. TotalSegments 0 means one scan
	// of the whole table.
	Segment       int
	TotalSegments int
	// ConsistentRead is accepted for compatibility; every read is
	// strongly consistent.
	ConsistentRead bool
	// HideExpired drops items whose TimeToLiveAttribute has expired but
	// that the sweeper has not deleted yet, as [QueryInput.HideExpired].
	HideExpired bool
}

// ScanOutput is one page of a Scan.
type ScanOutput struct {
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
	// the page stopped at Limit or PageSize; nil when the scan is done.
	LastEvaluatedKey Item
	// Cursor is LastEvaluatedKey in opaque form, bound to this scan and
	// segment; nil when the scan is done.
	Cursor []byte
}

// Scan reads one page of the table's items (or of one segment of them).
// A whole-table Scan is one FoundationDB range read in key order, which is
// partition-key order, not DynamoDB's hash order. With TotalSegments > 1,
// each segment owns the partitions whose key hashes fall in its slice of
// the hash space, as in DynamoDB, so segments share the items fairly
// whatever the keys look like; a segment's page reads its partitions in
// hash order (segment.go explains the method and its cost).
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html.
//
// rt may be an fdb.Database, an fdb.Transaction or a snapshot of one;
// the page is read in that one transaction. Use [Table.ScanAll] or
// [Table.ScanPages] to walk every page, each in a fresh transaction.
//
// Errors: as for [Table.Query]. Scan is safe for concurrent use.
func (t *Table) Scan(rt fdb.ReadTransactor, in ScanInput) (*ScanOutput, error) {
	pg, err := t.readPage(rt, in.IndexName, func(st *tableState) (*readPlan, error) { return t.scanPlan(st, &in) })
	if err != nil {
		return nil, err
	}
	return &ScanOutput{Items: pg.items, Count: pg.count, ScannedCount: pg.scanned, ScannedSize: pg.size, LastEvaluatedKey: pg.lastKey, Cursor: pg.cursor}, nil
}

// ScanPages returns an iterator over the pages of a Scan, each read in a
// fresh read transaction of t, as [Table.QueryPages] does; it stops with
// ctx's error once ctx is done.
func (t *Table) ScanPages(ctx context.Context, tr fdb.Transactor, in ScanInput) iter.Seq2[*ScanOutput, error] {
	return walkPages(ctx, func(cursor []byte) (*ScanOutput, []byte, error) {
		page := in
		if cursor != nil {
			page.ExclusiveStartKey, page.Cursor = nil, cursor
		}
		out, err := t.Scan(tr, page)
		if err != nil {
			return nil, nil, err
		}
		return out, out.Cursor, nil
	})
}

// ScanAll returns an iterator over every item of a Scan, page by page as
// [Table.ScanPages] reads them. A failure is yielded once, as (nil, err),
// and ends the walk.
func (t *Table) ScanAll(ctx context.Context, tr fdb.Transactor, in ScanInput) iter.Seq2[Item, error] {
	return allItems(t.ScanPages(ctx, tr, in), func(o *ScanOutput) []Item { return o.Items })
}

// scanPlan validates in against table state st and plans its page.
func (t *Table) scanPlan(st *tableState, in *ScanInput) (*readPlan, error) {
	const op = "Scan"
	o := readOptions{filter: in.FilterExpression, proj: in.ProjectionExpression, names: in.ExpressionAttributeNames,
		values: in.ExpressionAttributeValues, limit: in.Limit, pageSize: in.PageSize, sel: in.Select,
		esk: in.ExclusiveStartKey, cursor: in.Cursor, indexName: in.IndexName, consistent: in.ConsistentRead,
		hideExpired: in.HideExpired}
	fail := func(reason string) (*readPlan, error) {
		return nil, &ValidationError{Op: op, Reason: reason}
	}
	switch {
	case in.TotalSegments < 0 || in.TotalSegments > MaxTotalSegments:
		return fail("1 validation error detected: Value '" + strconv.Itoa(in.TotalSegments) + "' at 'totalSegments' failed to satisfy constraint: Member must have value between 1 and 1000000")
	case in.Segment < 0 || in.Segment >= MaxTotalSegments:
		return fail("1 validation error detected: Value '" + strconv.Itoa(in.Segment) + "' at 'segment' failed to satisfy constraint: Member must have value between 0 and 999999")
	case in.TotalSegments == 0 && in.Segment != 0:
		return fail("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.TotalSegments > 0 && in.Segment >= in.TotalSegments:
		return fail("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: " + strconv.Itoa(in.Segment) + " is not less than TotalSegments: " + strconv.Itoa(in.TotalSegments))
	}
	if in.FilterExpression == "" && in.ProjectionExpression == "" {
		switch {
		case in.ExpressionAttributeNames != nil:
			return fail("ExpressionAttributeNames can only be specified when using expressions")
		case in.ExpressionAttributeValues != nil:
			return fail("ExpressionAttributeValues can only be specified when using expressions")
		}
	}
	p, c, err := t.planCommon(op, st, &o)
	if err != nil {
		return nil, err
	}
	if err := t.finishExprs(op, st, p, c, &o, false); err != nil {
		return nil, err
	}
	p.forward = true
	hash, _ := p.rows.keyAttrs()
	switch {
	case in.TotalSegments > 1 && st.format >= metaFormatVersion:
		// Segments by partition-key hash (segment.go).
		lo, hi := segmentBuckets(in.Segment, in.TotalSegments)
		p.walk = &hashSegment{lo: lo, hi: hi, hashAttrs: len(hash)}
		p.lo, p.hi = segmentRange(hash[0].Type, 0, 1)
	default:
		p.lo, p.hi = segmentRange(hash[0].Type, in.Segment, max(in.TotalSegments, 1))
	}
	outside := "The provided Exclusive start key does not map to the provided Segment: TotalSegments: " +
		strconv.Itoa(in.TotalSegments) + " Segment: " + strconv.Itoa(in.Segment)
	if err := t.planStart(p, &o, outside); err != nil {
		return nil, err
	}
	p.countable(in.TotalSegments <= 1, o.pageSize)
	return p, nil
}
