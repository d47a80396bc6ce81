package fdyno

import (
	"github.com/fdyno/fdyno/internal/expr"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// index_read.go: Query and Scan of a secondary index. A plan with an index
// (readPlan.ix) works on the bytes that follow the index's prefix x/<index>/
// in its entry keys, the index key values followed by the base item's key
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
//     does not project, makes the page read each base item (fetchBase),
//     as DynamoDB fetches from the table.
//   - LastEvaluatedKey holds the index keys and the table keys.
//
// An entry whose projection was too long to store inline (indexRefMarker)
// is read from its base item in the same transaction.

// keyAttrs returns the hash and sort key attributes the plan's key
// condition, segments and filter restriction apply to: the index's or
// the table's.
func (p *readPlan) keyAttrs() (hash, rng []keyAttr) {
	if p.ix != nil {
		return p.ix.hash, p.ix.rng
	}
	return p.st.tableKeyAttrs()
}

// keyRange returns the plan's range for key condition kc.
func (p *readPlan) keyRange(kc *keyCondition) (lo, hi []byte, err error) {
	if p.ix != nil {
		return indexKeyRange(kc, len(p.ix.rng))
	}
	return kvRange(kc, p.st.rng.Name != "")
}

// key returns the FoundationDB key of position k of the plan's range.
func (p *readPlan) key(k []byte) fdb.Key {
	if p.ix != nil {
		return indexKey(p.ix.prefix, k)
	}
	return p.st.keys.itemKey(k)
}

// keyItem returns the key attributes of the item at position k of the
// plan's range: the table keys, and for an index the index keys too.
func (p *readPlan) keyItem(k []byte) (Item, error) {
	if p.ix == nil {
		return keyItem(p.st, k)
	}
	ikv, kv, err := splitTuple(k, p.ix.indexKeyCount())
	if err != nil {
		return nil, err
	}
	it, err := keyItem(p.st, kv)
	if err != nil {
		return nil, err
	}
	attrs := p.ix.keyAttrs()
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

// startKey returns the position of ExclusiveStartKey esk in the plan's
// range. On an index, esk holds exactly the index and table keys, as the
// LastEvaluatedKey of an index page does.
func (p *readPlan) startKey(esk Item) ([]byte, error) {
	st := p.st
	if p.ix == nil {
		return keyOf(p.op, esk, st.hash, st.rng, true)
	}
	mismatch := &ValidationError{Op: p.op, Reason: reasonKeyMismatch}
	table := Item{}
	for _, a := range []keyAttr{st.hash, st.rng} {
		if v, ok := esk[a.Name]; ok && a.Name != "" {
			table[a.Name] = v
		}
	}
	kv, err := keyOf(p.op, table, st.hash, st.rng, true)
	if err != nil {
		return nil, err
	}
	values := make([]Value, 0, p.ix.indexKeyCount())
	for i, a := range p.ix.keyAttrs() {
		v, ok := esk[a.Name]
		if !ok {
			return nil, mismatch
		}
		if err := checkKeyValue(a.Name, v, a.Type, i < len(p.ix.hash)); err != nil {
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

// planIndexRead applies the index's projection rules to Select sel and the
// parsed projection and filter of p.
func (p *readPlan) planIndexRead(sel Select) error {
	ix := p.ix
	if ix == nil {
		return nil
	}
	if sel == SelectAllAttributes && ix.proj.ProjectionType != ProjectionTypeAll {
		if !ix.local {
			return &ValidationError{Op: p.op, Reason: "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index " +
				ix.name + " because its projection type is not ALL"}
		}
		p.fetchBase, p.allAttrs = true, true
	}
	if attr := p.ttl.attr; attr != "" && !ix.local && !p.fetchBase && !ix.projects(p.st, attr) {
		return &ValidationError{Op: p.op, Reason: "HideExpired needs the TimeToLiveAttribute " + attr +
			" in the projection of global secondary index " + ix.name}
	}
	if !ix.local || p.fetchBase {
		return nil
	}
	unprojected := func(name string) {
		if !ix.projects(p.st, name) {
			p.fetchBase = true
		}
	}
	if p.proj != nil {
		for _, path := range p.proj.Paths {
			unprojected(path[0].Name)
		}
		p.allAttrs = p.fetchBase // the projection applies to the item
	}
	// A filter on an unprojected attribute, or HideExpired on an
	// unprojected TimeToLiveAttribute, is evaluated on the item; the page
	// still returns the projection.
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
	// base is set when the item is read from the table, through the
	// item loader.
	base bool
	item itemRead
}

// takeIndex is take for an index plan: it takes entries from it and
// starts the point reads of the base items it needs (an LSI page that
// returns base attributes, or entries too long to store inline).
func (p *readPlan) takeIndex(tr fdb.ReadTransaction, it kvIterator) (pageRead, error) {
	ix, keys, l := p.ix, &p.st.keys, loaderOf(tr)
	entries, last, err := takeRows(p, it, func(kvp fdb.KeyValue) (indexEntry, []byte, int, error) {
		rest, kv, err := splitIndexKey(ix.prefix, kvp.Key, ix.indexKeyCount())
		if err != nil {
			return indexEntry{}, nil, 0, err
		}
		e := indexEntry{value: kvp.Value, base: p.fetchBase || isIndexRef(kvp.Value)}
		if e.base {
			e.item = l.get(keys, kv)
		}
		if isIndexRef(kvp.Value) {
			return e, rest, indexInlineMax, nil // at least; the projection was longer
		}
		return e, rest, len(kvp.Value), nil
	})
	if err != nil {
		return nil, err
	}
	return &indexPageRead{p: p, l: l, entries: entries, last: last}, nil
}

// indexPageRead is an index page's taken entries.
type indexPageRead struct {
	p       *readPlan
	l       itemLoader
	entries []indexEntry
	last    []byte
}

// follow waits for the base heads, then starts every chunk of the chunked
// ones, before any wait on a chunk.
func (r *indexPageRead) follow() error {
	ix := r.p.ix
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
		r.l.follow(&e.item)
	}
	return nil
}

// finish applies the filter and projection to the entries and base items.
func (r *indexPageRead) finish() (*page, error) {
	p, ix, l := r.p, r.p.ix, r.l
	pg := p.newPage(len(r.entries))
	var project func(Item) Item
	if p.fetchBase && !p.allAttrs {
		project = func(it Item) Item { return ix.project(p.st, it) }
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
		if e.base && !p.fetchBase {
			item = ix.project(p.st, item)
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
