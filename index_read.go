package fdyno

import (
	"slices"

	"github.com/fdyno/fdyno/internal/expr"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// index_read.go: Query and Scan of a secondary index. A plan of indexRows
// works on the bytes that follow the index's prefix x/<index>/ in its
// entry keys, the index key values followed by the base item's key
// values (keys.go), exactly as a table plan works on packed key values:
// one range read per page, cursors and ExclusiveStartKey checked to lie in
// the plan's range. So a page on an index reads entries of that index
// only, in index key order and, among entries of one index key, in base
// primary key order.
//
// What a page returns follows DynamoDB:
//
//   - Select ALL_PROJECTED_ATTRIBUTES (the default on an index) returns
//     the index's projection; SPECIFIC_ATTRIBUTES (a ProjectionExpression)
//     projects it further; COUNT counts.
//   - ALL_ATTRIBUTES is allowed on a GSI only if its projection is ALL. On
//     an LSI it, or a projection or filter naming an attribute the LSI
//     does not project, makes the page read each base item (indexFetch),
//     as DynamoDB fetches from the table.
//   - LastEvaluatedKey holds the index keys and the table keys.
//
// An entry whose projection was too long to store inline (indexRefMarker)
// is read from its base item in the same transaction.

// indexRows is the rowSource of a read of index ix's entries.
type indexRows struct {
	st    *tableState
	ix    *indexDef
	fetch indexFetch
}

// indexFetch is what an index page reads besides its entries.
type indexFetch int

const (
	// fetchNone reads the entries only (an entry too long to store inline
	// is read from its base item, whatever the fetch).
	fetchNone indexFetch = iota
	// fetchProjected reads each base item, for a filter or HideExpired on
	// attributes an LSI does not project, and returns the index's
	// projection.
	fetchProjected
	// fetchWhole reads each base item and returns its attributes
	// (ALL_ATTRIBUTES, or a ProjectionExpression naming unprojected ones,
	// on an LSI).
	fetchWhole
)

func (r *indexRows) indexName() string { return r.ix.name }

func (r *indexRows) keyAttrs() (hash, rng []keyAttr) { return r.ix.hash, r.ix.rng }

func (r *indexRows) keyRange(kc *keyCondition) (lo, hi []byte, err error) {
	return indexKeyRange(kc, len(r.ix.rng))
}

// partition: the guard sees a read of the whole index.
func (r *indexRows) partition(*keyCondition) ([]byte, error) { return nil, nil }

func (r *indexRows) key(k []byte) fdb.Key { return indexKey(r.ix.prefix, k) }

// keyItem returns the table keys and index keys of the entry at k.
func (r *indexRows) keyItem(k []byte) (Item, error) {
	ikv, kv, err := splitTuple(k, r.ix.indexKeyCount())
	if err != nil {
		return nil, err
	}
	it, err := keyItem(r.st, kv)
	if err != nil {
		return nil, err
	}
	attrs := r.ix.keyAttrs()
	types := make([]Type, len(attrs))
	for i, a := range attrs {
		types[i] = a.Type
	}
	vs, err := unpackKeyValues(ikv, types...)
	if err != nil {
		return nil, err
	}
	for i, a := range attrs {
		if old, ok := it[a.Name]; ok && !old.Equal(vs[i]) {
			return nil, &CorruptError{What: "key", Reason: "index key " + a.Name + " differs from the table key"}
		}
		it[a.Name] = vs[i]
	}
	return it, nil
}

// startKey: esk holds exactly the index and table keys, as the
// LastEvaluatedKey of an index page does.
func (r *indexRows) startKey(op string, esk Item) ([]byte, error) {
	st := r.st
	mismatch := &ValidationError{Op: op, Reason: reasonKeyMismatch}
	table := Item{}
	for _, a := range []keyAttr{st.hash, st.rng} {
		if v, ok := esk[a.Name]; ok && a.Name != "" {
			table[a.Name] = v
		}
	}
	kv, err := keyOf(op, table, st.hash, st.rng, true)
	if err != nil {
		return nil, err
	}
	values := make([]Value, 0, r.ix.indexKeyCount())
	for i, a := range r.ix.keyAttrs() {
		v, ok := esk[a.Name]
		if !ok {
			return nil, mismatch
		}
		if err := checkKeyValue(a.Name, v, a.Type, i < len(r.ix.hash)); err != nil {
			return nil, err
		}
		values = append(values, v)
		table[a.Name] = v
	}
	if len(table) != len(esk) {
		return nil, mismatch
	}
	ikv, err := packKeyValues(values...)
	if err != nil {
		return nil, err
	}
	return append(ikv, kv...), nil
}

func (r *indexRows) partitions() (partitionDir, []byte) { return r.ix.parts, r.ix.prefix }

func (r *indexRows) startCounts(tr fdb.ReadTransaction, _ []byte) func() (Counts, error) {
	return r.st.startIndexCounts(tr, r.ix).get
}

// plan applies the index's projection rules to Select sel and the parsed
// projection and filter of p: what the page fetches.
func (r *indexRows) plan(p *readPlan, sel Select) error {
	ix := r.ix
	if sel == SelectAllAttributes && ix.proj.ProjectionType != ProjectionTypeAll {
		if !ix.local {
			return &ValidationError{Op: p.op, Reason: "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index " +
				ix.name + " because its projection type is not ALL"}
		}
		r.fetch = fetchWhole
	}
	if attr := p.ttl.attr; attr != "" && !ix.local && r.fetch == fetchNone && !ix.projects(r.st, attr) {
		return &ValidationError{Op: p.op, Reason: "HideExpired needs the TimeToLiveAttribute " + attr +
			" in the projection of global secondary index " + ix.name}
	}
	if !ix.local || r.fetch != fetchNone {
		return nil
	}
	if p.proj != nil && slices.ContainsFunc(p.proj.Paths, func(path expr.Path) bool { return !ix.projects(r.st, path[0].Name) }) {
		// The projection applies to the item.
		r.fetch = fetchWhole
		return nil
	}
	// A filter on an unprojected attribute, or HideExpired on an
	// unprojected TimeToLiveAttribute, is evaluated on the item; the page
	// still returns the projection.
	unprojected := func(name string) {
		if !ix.projects(r.st, name) {
			r.fetch = fetchProjected
		}
	}
	conditionNames(p.filter, unprojected)
	if p.ttl.attr != "" {
		unprojected(p.ttl.attr)
	}
	return nil
}

// conditionNames calls f with the top-level attribute name of every path
// in cd.
func conditionNames(cd *condition, f func(string)) {
	if cd == nil {
		return
	}
	var inOperand func(o operand)
	inOperand = func(o operand) {
		if o.Kind == expr.OpPath {
			f(o.Path[0].Name)
		}
		for _, a := range o.Args {
			inOperand(a)
		}
	}
	for _, a := range cd.Args {
		inOperand(a)
	}
	conditionNames(cd.Left, f)
	conditionNames(cd.Right, f)
}

// isIndexRef reports whether an entry value is indexRefMarker.
func isIndexRef(v []byte) bool { return len(v) == 1 && v[0] == indexRefMarker }

// indexEntry is one entry read by an index page.
type indexEntry struct {
	value []byte
	pos   []byte // the entry's position
	size  int    // the bytes it counts for in the page
	// base is set when the item is read from the table, through the
	// item loader.
	base bool
	item itemRead
}

// take takes the page's entries from it and starts the point reads of
// the base items it needs (a fetch, or entries too long to store inline).
func (r *indexRows) take(p *readPlan, tr fdb.ReadTransaction, it kvIterator) (pageRead, error) {
	ix, keys, l := r.ix, &r.st.keys, loaderOf(tr)
	entries, last, err := takeRows(p, it, func(kvp fdb.KeyValue) (indexEntry, []byte, int, error) {
		rest, kv, err := splitIndexKey(ix.prefix, kvp.Key, ix.indexKeyCount())
		if err != nil {
			return indexEntry{}, nil, 0, err
		}
		e := indexEntry{value: kvp.Value, pos: rest, size: len(kvp.Value), base: r.fetch != fetchNone || isIndexRef(kvp.Value)}
		if e.base {
			e.item = l.get(keys, kv)
		}
		if isIndexRef(kvp.Value) {
			e.size = indexInlineMax // at least; follow counts the item's size
		}
		return e, rest, e.size, nil
	})
	if err != nil {
		return nil, err
	}
	return &indexPageRead{p: p, r: r, l: l, entries: entries, last: last}, nil
}

// indexPageRead is an index page's taken entries.
type indexPageRead struct {
	p       *readPlan
	r       *indexRows
	l       itemLoader
	entries []indexEntry
	last    []byte
}

// follow waits for the base heads, then starts every chunk of the chunked
// ones, before any wait on a chunk.
func (r *indexPageRead) follow() error {
	ix := r.r.ix
	for i := range r.entries {
		e := &r.entries[i]
		if !e.base {
			continue
		}
		if err := e.item.wait(); err != nil {
			return err
		}
		if !e.item.found() {
			return &CorruptError{What: "index entry", Reason: "index " + ix.name + " has an entry for an item that does not exist"}
		}
	}
	r.cut()
	for i := range r.entries {
		if e := &r.entries[i]; e.base {
			r.l.follow(&e.item)
		}
	}
	return nil
}

// cut ends the page once its entries reach PageSize bytes, counting an
// entry too long to store inline, which take counted as indexInlineMax
// bytes (the least it can be), as its item's size, now that the item's
// head is read: so a page of such entries stops near 1 MB, as DynamoDB's
// does, and does not read up to 100 times more.
func (r *indexPageRead) cut() {
	size := 0
	for i := range r.entries {
		e := &r.entries[i]
		if isIndexRef(e.value) {
			e.size = max(e.size, e.item.size())
		}
		size += e.size
		if size >= r.p.pageSize && i < len(r.entries)-1 {
			r.entries, r.last = r.entries[:i+1], e.pos
			return
		}
	}
}

// finish applies the filter and projection to the entries and base items.
func (r *indexPageRead) finish() (*page, error) {
	p, ix, st, l := r.p, r.r.ix, r.r.st, r.l
	pg := p.newPage(len(r.entries))
	var project func(Item) Item
	if r.r.fetch == fetchProjected {
		project = func(it Item) Item { return ix.project(st, it) }
	}
	for i := range r.entries {
		e := &r.entries[i]
		var item Item
		var err error
		if e.base {
			item, _, err = l.load(&e.item)
		} else {
			item, err = l.entry(e.value)
		}
		if err != nil {
			return nil, err
		}
		if e.base && r.r.fetch == fetchNone {
			item = ix.project(st, item)
		}
		if err := p.add(pg, item, project); err != nil {
			return nil, err
		}
	}
	if err := p.setLast(pg, r.last); err != nil {
		return nil, err
	}
	return pg, nil
}
