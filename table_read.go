package fdyno

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// table_read.go: Query and Scan of the table itself. A plan of tableRows
// reads item heads in the table's i/ subspace; its positions are packed
// key values (keys.go), turned into keys by tableKeys.itemKey. A Query's
// partition is what the guard sees, and a whole partition's count is the
// counter of its item collection.

// tableRows is the rowSource of a read of the table's items.
type tableRows struct{ st *tableState }

func (r tableRows) indexName() string { return "" }

func (r tableRows) keyAttrs() (hash, rng []keyAttr) { return r.st.tableKeyAttrs() }

func (r tableRows) keyRange(kc *keyCondition) (lo, hi []byte, err error) {
	return kvRange(kc, r.st.rng.Name != "")
}

func (r tableRows) partition(kc *keyCondition) ([]byte, error) { return packKeyValues(kc.Hash...) }

func (r tableRows) key(k []byte) fdb.Key { return r.st.keys.itemKey(k) }

func (r tableRows) keyItem(k []byte) (Item, error) { return keyItem(r.st, k) }

func (r tableRows) startKey(op string, esk Item) ([]byte, error) {
	return keyOf(op, esk, r.st.hash, r.st.rng, true)
}

func (r tableRows) partitions() (partitionDir, []byte) {
	return r.st.keys.tablePartitions(), r.st.keys.items.Bytes()
}

// plan: every attribute of an item is there to filter and project.
func (r tableRows) plan(*readPlan, Select) error { return nil }

func (r tableRows) startCounts(tr fdb.ReadTransaction, part []byte) func() (Counts, error) {
	if part != nil {
		return startCollectionCounts(tr, &r.st.keys, part)
	}
	return r.st.startTableCounts(tr).get
}

// take takes the page's item heads from it, starting no chunk read.
func (r tableRows) take(p *readPlan, tr fdb.ReadTransaction, it kvIterator) (pageRead, error) {
	keys, l := &r.st.keys, loaderOf(tr)
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
