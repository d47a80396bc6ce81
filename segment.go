package fdyno

import (
	"bytes"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// segment.go: parallel Scan segments that share the work fairly whatever
// the keys look like. This file writes the partition directory;
// segment_read.go reads a segment from it.
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
	h, err := hashValues(newKey[len(ix.prefix):], len(ix.hash))
	if err != nil {
		return nil // index.go built the key: cannot happen
	}
	if oldKey != nil {
		// Not bytes.HasPrefix: "x" packs to a prefix of "x\x00"'s packing.
		if oh, err := hashValues(oldKey[len(ix.prefix):], len(ix.hash)); err == nil && bytes.Equal(oh, h) {
			return nil
		}
	}
	return ix.parts.key(h)
}
