package fdyno

import (
	"slices"

	"github.com/fdyno/fdyno/internal/expr"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// read_plan.go: the plan of one Query or Scan page, and its reading. A
// page is one read of a range of positions, inside one transaction:
//
//  1. The request is validated and planned (query.go, scan.go) against
//     the cached table state before the transaction.
//  2. In the transaction, the metadata-version read and the page's first
//     read start together (runPlan); the plan is rebuilt only if the
//     schema changed.
//  3. Rows are taken in order until Limit rows or PageSize bytes were read
//     (both counted before the filter, as DynamoDB does); the reads they
//     lead to (chunks, base items) are then started all at once.
//  4. The filter and projection are applied; the last position read
//     becomes LastEvaluatedKey and Cursor when the page stopped early.
//
// What kind of read a plan is, is in its types, each kind in one place:
//
//   - rows, what it reads: the table's items (tableRows, table_read.go)
//     or one index's entries, with or without each base item (indexRows,
//     index_read.go);
//   - walk, how: one range read of [lo, hi) (keyRangeWalk), or the
//     partitions of a parallel Scan's hash segment (*hashSegment,
//     segment_read.go);
//   - answer, what the page returns: the items, their count (Select
//     COUNT), or the count the exact counters hold (counts.go), read
//     without reading a row.
//
// Positions are the bytes that follow the rows' prefix: packed key values
// for the table, index key values then base key values for an index
// (keys.go). The rows' key method turns one into a FoundationDB key; so a
// plan never names a key outside its rows' subspace, and an
// ExclusiveStartKey or cursor is checked to lie inside the plan's range
// before it is used.

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

// readPlan is a validated Query or Scan page request against one table
// state.
//
// Invariants:
//
//  1. lo < hi are positions (or "" and "\xff", every row); the page reads
//     only the rows in [rows.key(lo), rows.key(hi)).
//  2. start, if set, lies in [lo, hi), is held by walk, and holds the key
//     types of the rows' key schema.
//  3. answer is answerCounters only for a whole table, index or table
//     partition with nothing to filter, limit or start from, on a state
//     whose counters are exact (countable).
type readPlan struct {
	op       string
	st       *tableState
	rows     rowSource
	walk     readWalk
	answer   readAnswer
	lo, hi   []byte
	start    []byte
	forward  bool
	limit    int
	pageSize int
	filter   *condition
	proj     *projection
	fp       cursorFingerprint
	ttl      ttlCutoff // HideExpired; the zero value hides nothing
	// part is the packed partition value of a Query of the table, nil
	// for any other read; the handle's guard sees it (access.go).
	part []byte
}

// rowSource is what a plan reads, and what a position of its range
// means: tableRows or *indexRows.
type rowSource interface {
	// indexName is the index read, "" for the table.
	indexName() string
	// keyAttrs are the key attributes positions are made of: the key
	// condition's, the segments' and the filter restriction's.
	keyAttrs() (hash, rng []keyAttr)
	// keyRange is the range of positions key condition kc selects.
	keyRange(kc *keyCondition) (lo, hi []byte, err error)
	// partition is the packed partition value the guard sees for a Query
	// with key condition kc: nil when it sees the whole index.
	partition(kc *keyCondition) ([]byte, error)
	// key is the FoundationDB key of position k.
	key(k []byte) fdb.Key
	// keyItem is the key attributes of position k: LastEvaluatedKey.
	keyItem(k []byte) (Item, error)
	// startKey is the position of ExclusiveStartKey esk.
	startKey(op string, esk Item) ([]byte, error)
	// partitions is the partition directory of the rows and the prefix
	// of the partitions' keys, which a segment walks.
	partitions() (partitionDir, []byte)
	// plan finishes p for its parsed expressions and Select sel.
	plan(p *readPlan, sel Select) error
	// take takes a page's rows from it (the loader's first wave).
	take(p *readPlan, tr fdb.ReadTransaction, it kvIterator) (pageRead, error)
	// startCounts starts reading the counts of every row, or of the table
	// partition part if not nil.
	startCounts(tr fdb.ReadTransaction, part []byte) func() (Counts, error)
}

// readWalk is how a plan walks its range: keyRangeWalk or *hashSegment.
type readWalk interface {
	// iterator starts reading p's rows after p.start.
	iterator(tr fdb.ReadTransaction, p *readPlan) kvIterator
	// fingerprint is the range a cursor of p is bound to.
	fingerprint(p *readPlan) (lo, hi []byte)
	// holds reports whether position kv is one the walk reads.
	holds(kv []byte) bool
}

// kvIterator is what a page takes its rows from: one FoundationDB range
// read (*fdb.RangeIterator), or a segment's walk over partitions.
type kvIterator interface {
	Advance() bool
	Get() (fdb.KeyValue, error)
}

// readAnswer is what a page returns.
type readAnswer int

const (
	// answerItems returns the items read, filtered and projected.
	answerItems readAnswer = iota
	// answerCount counts the items read and returns none (Select COUNT).
	answerCount
	// answerCounters answers Select COUNT from the exact counters,
	// reading no row (invariant 3).
	answerCounters
)

// keyRangeWalk walks a plan's range with one range read.
type keyRangeWalk struct{}

func (keyRangeWalk) iterator(tr fdb.ReadTransaction, p *readPlan) kvIterator {
	lo, hi := p.lo, p.hi
	if p.start != nil {
		if p.forward {
			lo = next(p.start)
		} else {
			hi = p.start
		}
	}
	r := fdb.KeyRange{Begin: p.rows.key(lo), End: p.rows.key(hi)}
	// WantAll: the page is consumed whole, so its first batch is as large
	// as FoundationDB sends (about 80 KB); the iterator mode's small first
	// batches would cost a round trip each on a cluster.
	return tr.GetRange(r, fdb.RangeOptions{Limit: p.limit, Reverse: !p.forward, Mode: fdb.StreamingModeWantAll}).Iterator()
}

func (keyRangeWalk) fingerprint(p *readPlan) (lo, hi []byte) { return p.lo, p.hi }

func (keyRangeWalk) holds([]byte) bool { return true }

// countable makes p answer from the exact counters when invariant 3
// allows: wholeRange says that p's range is every row, or one whole
// partition of the table (p.part). pageSize is the request's PageSize:
// the counters answer the whole count in one page, so a caller who asked
// for smaller pages reads them.
func (p *readPlan) countable(wholeRange bool, pageSize int) {
	if p.answer == answerCount && wholeRange && p.st.counted && p.filter == nil && p.limit == 0 &&
		pageSize == 0 && p.start == nil && p.ttl.attr == "" && p.walk == readWalk(keyRangeWalk{}) {
		p.answer = answerCounters
	}
}

// runPlan reads plan p0, made against state st0, in tr: its first read
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
	var take func() (pageRead, error)
	if p0 != nil {
		take = p0.begin(tr)
	}
	st, err := t.current(tr, mvf)
	if err != nil {
		return nil, err
	}
	if st != st0 || p0 == nil {
		p, err := rebuild(st)
		if err != nil {
			return nil, err
		}
		if err := t.allowPlan(p); err != nil {
			return nil, err
		}
		take = p.begin(tr)
	}
	return loadPage(take)
}

// begin starts the page's first read in tr: its rows' range read or
// segment walk, or the counters it answers from. The function it returns
// waits for it and takes the page's rows.
func (p *readPlan) begin(tr fdb.ReadTransaction) func() (pageRead, error) {
	if p.answer == answerCounters {
		get := p.rows.startCounts(tr, p.part)
		return func() (pageRead, error) { return countersRead(get), nil }
	}
	it := p.walk.iterator(tr, p)
	return func() (pageRead, error) { return p.rows.take(p, tr, it) }
}

// loadPage takes, follows and finishes one page.
func loadPage(take func() (pageRead, error)) (*page, error) {
	pr, err := take()
	if err != nil {
		return nil, err
	}
	if err := pr.follow(); err != nil {
		return nil, err
	}
	return pr.finish()
}

// pageRead is a page whose rows were taken from its first read, in the
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

// countersRead is a page answered from the counters: every row counts,
// and all were scanned (nothing is filtered).
type countersRead func() (Counts, error)

func (countersRead) follow() error { return nil }

func (r countersRead) finish() (*page, error) {
	c, err := r()
	if err != nil {
		return nil, err
	}
	return &page{count: int(c.ItemCount), scanned: int(c.ItemCount), size: int(c.SizeBytes)}, nil
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

// takeRows takes the rows of a page from it, in order, as take turns
// each into an entry and gives its position and size, until the page is
// full: Limit entries or PageSize bytes, counted before the filter as
// DynamoDB does. last is the position of the last entry of a full page
// (rows may follow), nil otherwise.
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
	if p.answer == answerItems {
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
	if p.answer != answerItems {
		return nil
	}
	if p.proj != nil {
		item = applyProjection(p.proj, item)
	}
	pg.items = append(pg.items, item)
	return nil
}

// setLast makes position last, if not nil, LastEvaluatedKey and cursor.
func (p *readPlan) setLast(pg *page, last []byte) error {
	if last == nil {
		return nil
	}
	var err error
	if pg.lastKey, err = p.rows.keyItem(last); err != nil {
		return err
	}
	pg.cursor = encodeCursor(p.fp, last)
	return nil
}

// allowPlan asks t's guard about the read of plan p, counters included:
// a Query's partition, or a whole table or index.
func (t *Table) allowPlan(p *readPlan) error {
	if t.guard == nil {
		return nil
	}
	return t.guard.Allow(Access{Table: t.name, Index: p.rows.indexName(), key: p.part})
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
