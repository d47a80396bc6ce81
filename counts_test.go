package fdyno

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"
)

// countProblems checks the counters of counts.go against the items the
// table holds (items: packed key values → item) and the index entries it
// holds: the table's, each index's and each item collection's counts and
// sizes, computed here from their definitions (DynamoDB's item size,
// the entries' projections, an item collection's items and LSI entries),
// and that no emptied item collection leaves counters behind.
func countProblems(rt fdb.ReadTransaction, st *tableState, items map[string]Item, errorf func(string, ...any)) error {
	if !st.counted {
		return nil
	}
	var want Counts
	colls := map[string]*Counts{}
	for kv, it := range items {
		size := int64(it.Size())
		want.ItemCount++
		want.SizeBytes += size
		h, err := hashValue([]byte(kv))
		if err != nil {
			return err
		}
		c := colls[string(h)]
		if c == nil {
			c = &Counts{}
			colls[string(h)] = c
		}
		c.ItemCount++
		c.SizeBytes += size
		for _, ix := range st.indexes {
			if ix.local {
				_, n := ix.entryCount(st, it, []byte(kv), size)
				c.SizeBytes += n
			}
		}
	}
	got, err := st.tableCounts(rt)
	if err != nil {
		return err
	}
	if d := cmp.Diff(want, got); d != "" {
		errorf("table counts (-want +got):\n%s", d)
	}
	for _, ix := range st.indexes {
		// Count the entries that exist (a CREATING index has a subset).
		entries, err := rt.GetRange(indexRange(ix.prefix), fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return err
		}
		var want Counts
		for _, e := range entries {
			_, kv, err := splitIndexKey(ix.prefix, e.Key, len(ix.attrs))
			if err != nil {
				errorf("index %s entry %s: %v", ix.name, fdb.Printable(e.Key), err)
				continue
			}
			it := items[string(kv)]
			n, size := ix.entryCount(st, it, kv, int64(it.Size()))
			want.ItemCount += n
			want.SizeBytes += size
		}
		got, err := st.indexCounts(rt, ix)
		if err != nil {
			return err
		}
		if d := cmp.Diff(want, got); d != "" {
			errorf("index %s counts (-want +got):\n%s", ix.name, d)
		}
	}
	all, err := rt.GetRange(st.keys.counts.Sub("p"), fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		return err
	}
	if len(all) > 2*len(colls) {
		errorf("%d item collection counters for %d item collections", len(all), len(colls))
	}
	for h, want := range colls {
		got, err := st.collectionCounts(rt, []byte(h))
		if err != nil {
			return err
		}
		if d := cmp.Diff(*want, got); d != "" {
			errorf("item collection %s counts (-want +got):\n%s", fdb.Printable([]byte(h)), d)
		}
	}
	return nil
}
