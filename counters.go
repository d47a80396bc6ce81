package fdyno

import (
	"encoding/binary"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// counters.go: reading the exact counters that writes keep (counts.go,
// whose header explains them): their types and the reads every count
// answer shares.

// counterShards is how many keys each table and index counter is spread
// over (see above).
const counterShards = 32

// Counter fields.
const (
	countItems = 0
	countBytes = 1
)

// counterValue decodes a counter (little-endian, as ADD leaves it).
func counterValue(v []byte) (int64, error) {
	if len(v) != 8 {
		return 0, &CorruptError{What: "counter", Reason: "not 8 bytes"}
	}
	return int64(binary.LittleEndian.Uint64(v)), nil
}

// pendingCounts are the reads of one table's or index's sharded counters,
// started together so they take one wave with whatever else is read.
type pendingCounts struct {
	fields [2][counterShards]fdb.FutureByteSlice
}

// startCounts starts reading the counters whose keys key returns.
func startCounts(tr fdb.ReadTransaction, key func(field, shard int) fdb.Key) *pendingCounts {
	p := &pendingCounts{}
	for f := range p.fields {
		for sh := range p.fields[f] {
			p.fields[f][sh] = tr.Get(key(f, sh))
		}
	}
	return p
}

// get sums the counters.
func (p *pendingCounts) get() (Counts, error) {
	var sums [2]int64
	for f := range p.fields {
		for _, fut := range p.fields[f] {
			v, err := fut.Get()
			if err != nil {
				return Counts{}, err
			}
			if v == nil {
				continue
			}
			n, err := counterValue(v)
			if err != nil {
				return Counts{}, err
			}
			sums[f] += n
		}
	}
	return Counts{ItemCount: sums[countItems], SizeBytes: sums[countBytes]}, nil
}

// startTableCounts starts reading the table's counters.
func (st *tableState) startTableCounts(tr fdb.ReadTransaction) *pendingCounts {
	return startCounts(tr, st.keys.tableCountKey)
}

// startIndexCounts starts reading index ix's counters.
func (st *tableState) startIndexCounts(tr fdb.ReadTransaction, ix *indexDef) *pendingCounts {
	return startCounts(tr, func(f, sh int) fdb.Key { return st.keys.indexCountKey(ix.name, f, sh) })
}

// countsReady returns nil if st's counters are exact, or why not.
func (st *tableState) countsReady() error {
	switch {
	case st.counted:
		return nil
	case st.schema.WithoutCounts:
		return ErrCountsDisabled
	}
	return ErrCountsNotReady
}

// tableCounts returns the table's counts as of rt's read version.
func (st *tableState) tableCounts(rt fdb.ReadTransaction) (Counts, error) {
	if err := st.countsReady(); err != nil {
		return Counts{}, err
	}
	return st.startTableCounts(rt).get()
}

// indexCounts returns index ix's counts as of rt's read version.
func (st *tableState) indexCounts(rt fdb.ReadTransaction, ix *indexDef) (Counts, error) {
	if err := st.countsReady(); err != nil {
		return Counts{}, err
	}
	return st.startIndexCounts(rt, ix).get()
}

// collectionCounts returns the counts of the item collection of packed
// partition key value hashKV.
func (st *tableState) collectionCounts(tr fdb.ReadTransaction, hashKV []byte) (Counts, error) {
	if err := st.countsReady(); err != nil {
		return Counts{}, err
	}
	return startCollectionCounts(tr, &st.keys, hashKV)()
}

// startCollectionCounts starts reading the counters of the item
// collection of packed partition key value hashKV; the function it
// returns waits for them.
func startCollectionCounts(tr fdb.ReadTransaction, keys *tableKeys, hashKV []byte) func() (Counts, error) {
	n := tr.Get(keys.partitionCountKey(hashKV, countItems))
	b := tr.Get(keys.partitionCountKey(hashKV, countBytes))
	return func() (Counts, error) {
		var c Counts
		for _, f := range []struct {
			fut fdb.FutureByteSlice
			dst *int64
		}{{n, &c.ItemCount}, {b, &c.SizeBytes}} {
			v, err := f.fut.Get()
			if err != nil {
				return Counts{}, err
			}
			if v == nil {
				continue
			}
			if *f.dst, err = counterValue(v); err != nil {
				return Counts{}, err
			}
		}
		return c, nil
	}
}

// describeCounts starts reading the table's and its indexes' counters
// (nothing if they are not exact); the function it returns sets them in
// d. Describe reads them in the same wave as the index states.

func (st *tableState) describeCounts(tr fdb.ReadTransaction) func(d *TableDescription) error {
	if !st.counted {
		return func(*TableDescription) error { return nil }
	}
	table := st.startTableCounts(tr)
	indexes := make([]*pendingCounts, len(st.indexes))
	for i, ix := range st.indexes {
		indexes[i] = st.startIndexCounts(tr, ix)
	}
	return func(d *TableDescription) error {
		c, err := table.get()
		if err != nil {
			return err
		}
		d.Counts = &c
		d.IndexCounts = make(map[string]Counts, len(st.indexes))
		for i, ix := range st.indexes {
			if d.IndexCounts[ix.name], err = indexes[i].get(); err != nil {
				return err
			}
		}
		return nil
	}
}
