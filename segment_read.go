package fdyno

import (
	"bytes"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// segment_read.go reads one parallel Scan segment through the partition
// directory that segment.go maintains (its invariants 2 and 3).

// segmentBatch is the most partitions one step of a segment page reads at
// once.
const segmentBatch = 64

// hashSegment is the readWalk of one parallel Scan segment: the slice of
// the partition directory it owns, the buckets [lo, hi). hashAttrs is the number of
// partition attributes of the table or index scanned (keys.go:
// hashValues).
type hashSegment struct {
	lo, hi    uint64
	hashAttrs int
}

// holds reports whether the item whose packed key values are kv belongs
// to the segment.
func (s *hashSegment) holds(kv []byte) bool {
	h, err := hashValues(kv, s.hashAttrs)
	if err != nil {
		return false
	}
	b := uint64(partitionBucket(h))
	return b >= s.lo && b < s.hi
}

// fingerprint returns the bytes that bind a cursor to the segment.
func (s *hashSegment) fingerprint(*readPlan) (lo, hi []byte) {
	return []byte("p" + strconv.FormatUint(s.lo, 10)), []byte("p" + strconv.FormatUint(s.hi, 10))
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
	hashAttrs int // the partition attributes of the table or index
	reads     []*fdb.RangeIterator
	cur       int
	err       error
	done      bool
}

// iterator starts the walk of p's rows in the segment, after p.start.
func (s *hashSegment) iterator(tr fdb.ReadTransaction, p *readPlan) kvIterator {
	w := &partitionWalker{tr: tr, limit: p.limit, hashAttrs: s.hashAttrs}
	w.parts, w.prefix = p.rows.partitions()
	w.dir = w.parts.buckets(s.lo, s.hi)
	if p.start != nil {
		// The plan checked that start is this segment's (invariant 2).
		if h, err := hashValues(p.start, s.hashAttrs); err == nil {
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
		h, err := w.parts.split(e.Key, w.hashAttrs)
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
