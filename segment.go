package fdyno

import (
	"bytes"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// segment.go: parallel Scan segments that share the work fairly whatever
// the keys look like.
//
// Items are stored in key order (keys.go), so a segment that is a slice
// of the key bytes gets every item when the keys share a prefix
// ("user#…", "k0000"…"k0199", timestamps, small numbers). DynamoDB
// instead assigns items to segments by a hash of the partition key. fdyno
// does the same through the partition directory p/<bucket>/<hash>: one
// empty entry per partition key, ordered by a fixed 32-bit hash of the
// key (keys.go), and segment s of n owns a fixed slice of the hash space.
//
// Invariants:
//
//  1. Every partition key of an item in the table has its directory entry
//     (writePartition, on the single write path, in the transaction that
//     writes the item).
//  2. A segment reads the directory entries of its buckets in order and,
//     for each, the items of that partition in key order, so its pages
//     move through (bucket, hash key, sort key) strictly forward, and a
//     page resumes after its LastEvaluatedKey, whose bucket follows from
//     the key itself.
//  3. Hence an item present for the whole scan is read exactly once, by
//     the one segment owning its bucket, even while other items are
//     written; no segment reads another segment's entries.
//
// Costs: a write that may create a partition (a blind Put, or any write
// whose old item was absent) sets one more small key, blind, so it adds
// no read and no conflict. Deleting the last item of a partition leaves
// its entry in a table with a sort key (knowing that it was the last
// would take a read that conflicts with every insert into the partition),
// so a segment may read a few empty partitions; a table without a sort
// key clears the entry with the item. A segment page reads a batch of
// directory entries (one read wave) and then the items of all of them in
// parallel (a second wave), plus a third for chunked items' chunks; on a
// real cluster that is two or three round trips per batch of up to
// segmentBatch partitions, against one for a key-order Scan. A scan that
// is not split (TotalSegments 0 or 1) stays one key-order range read.

// segmentBatch is the most partitions one step of a segment page reads at
// once.
const segmentBatch = 64

// writePartition is writeItem's hook for the table's partition directory
// (invariant 1); index entries add theirs through partitionEntry.
func writePartition(tr fdb.Transaction, c itemChange) error {
	if c.st.format < metaFormatVersion {
		return nil
	}
	dir := c.st.keys.tablePartitions()
	switch {
	case c.new != nil && (!c.oldKnown || c.old == nil):
		h, err := hashValue(c.kv)
		if err != nil {
			return err
		}
		tr.Set(dir.key(h), nil)
	case c.new == nil && c.st.rng.Name == "":
		// The item was its partition's only one.
		tr.Clear(dir.key(c.kv))
	}
	return nil
}

// partitionEntry returns the index's partition directory entry that
// writing entry newKey (in place of oldKey, nil if none) must set, or nil
// when the old entry's partition is the same, so its entry exists
// (invariant 1). Entries of a partition that empties are left behind.
func (ix *indexDef) partitionEntry(st *tableState, oldKey, newKey fdb.Key) fdb.Key {
	if st.format < metaFormatVersion {
		return nil
	}
	h, err := hashValue(newKey[len(ix.prefix):])
	if err != nil {
		return nil // index.go built the key: cannot happen
	}
	if oldKey != nil {
		// Not bytes.HasPrefix: "x" packs to a prefix of "x\x00"'s packing.
		if oh, err := hashValue(oldKey[len(ix.prefix):]); err == nil && bytes.Equal(oh, h) {
			return nil
		}
	}
	return ix.parts.key(h)
}

// hashSegment is the slice of the partition directory one parallel Scan
// segment owns: the buckets [lo, hi).
type hashSegment struct{ lo, hi uint64 }

// holds reports whether the item whose packed key values are kv belongs
// to the segment.
func (s *hashSegment) holds(kv []byte) bool {
	h, err := hashValue(kv)
	if err != nil {
		return false
	}
	b := uint64(partitionBucket(h))
	return b >= s.lo && b < s.hi
}

// fingerprint returns the bytes that bind a cursor to the segment.
func (s *hashSegment) fingerprint() (lo, hi []byte) {
	return []byte("p" + strconv.FormatUint(s.lo, 10)), []byte("p" + strconv.FormatUint(s.hi, 10))
}

// kvIterator is what a page reads its entries from: one FoundationDB
// range read (*fdb.RangeIterator), or a segment's walk over partitions.
type kvIterator interface {
	Advance() bool
	Get() (fdb.KeyValue, error)
}

// partitionWalker yields the item heads (or index entries) of one hash
// segment in the order of invariant 2, reading the directory and the
// partitions a batch at a time, every partition of a batch in parallel.
type partitionWalker struct {
	tr     fdb.ReadTransaction
	parts  partitionDir
	prefix []byte       // of the partitions' keys: i/ or x/<index>/
	dir    fdb.KeyRange // the directory entries not read yet
	after  []byte       // resume after these packed key values (invariant 2)
	// afterHash is after's packed hash key value.
	afterHash []byte
	limit     int // the page's Limit (0: none), the most any partition yields
	reads     []*fdb.RangeIterator
	cur       int
	err       error
	done      bool
}

func newPartitionWalker(tr fdb.ReadTransaction, p *readPlan) *partitionWalker {
	w := &partitionWalker{tr: tr, limit: p.limit}
	if p.ix != nil {
		w.parts, w.prefix = p.ix.parts, p.ix.prefix
	} else {
		w.parts, w.prefix = p.st.keys.tablePartitions(), p.st.keys.items.Bytes()
	}
	w.dir = w.parts.buckets(p.seg.lo, p.seg.hi)
	if p.start != nil {
		// The plan checked that start is this segment's (invariant 2).
		if h, err := hashValue(p.start); err == nil {
			w.dir.Begin = w.parts.key(h)
			w.afterHash, w.after = h, p.start
		}
	}
	return w
}

// Advance reports whether another entry (or an error) is ready.
func (w *partitionWalker) Advance() bool {
	for {
		if w.err != nil {
			return true
		}
		if w.cur < len(w.reads) {
			if w.reads[w.cur].Advance() {
				return true
			}
			w.cur++
			continue
		}
		if w.done {
			return false
		}
		w.err = w.nextBatch()
	}
}

// Get returns the entry Advance found.
func (w *partitionWalker) Get() (fdb.KeyValue, error) {
	if w.err != nil {
		return fdb.KeyValue{}, w.err
	}
	return w.reads[w.cur].Get()
}

// nextBatch reads the next directory entries and starts the reads of all
// their partitions.
func (w *partitionWalker) nextBatch() error {
	n := segmentBatch
	if w.limit > 0 {
		n = min(n, w.limit)
	}
	entries, err := w.tr.GetRange(w.dir, fdb.RangeOptions{Limit: n, Mode: fdb.StreamingModeWantAll}).GetSliceWithError()
	if err != nil {
		return err
	}
	if len(entries) < n {
		w.done = true
	} else {
		w.dir.Begin = fdb.Key(next(entries[len(entries)-1].Key))
	}
	w.reads, w.cur = w.reads[:0], 0
	// Iterator mode: each partition's first batch is small and grows
	// only as the page consumes it, so the partitions a full page never
	// reaches cost little.
	opts := fdb.RangeOptions{Limit: w.limit, Mode: fdb.StreamingModeIterator}
	for _, e := range entries {
		h, err := w.parts.split(e.Key)
		if err != nil {
			return err
		}
		var after []byte
		if w.after != nil && bytes.Equal(w.afterHash, h) {
			after = w.after // the partition the previous page stopped in
		}
		w.reads = append(w.reads, w.tr.GetRange(partitionRange(w.prefix, h, after), opts).Iterator())
	}
	w.after = nil
	return nil
}
