package fdyno

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// counts.go: exact, live item counts and sizes of a table, of each of its
// indexes and of each item collection (partition key value).
//
// DynamoDB refreshes DescribeTable's ItemCount and TableSizeBytes about
// every six hours. fdyno keeps them exact: writeItem (write.go) adds each
// write's difference to counters in the write's own transaction, with
// FoundationDB's atomic ADD, which takes no read conflict, so concurrent
// writers never conflict on a counter. The difference is computed from
// the old item, which every write of a counted table reads
// (tableState.needsOld); that read is what makes a retried transaction
// (commit_unknown_result) add nothing twice: if the first attempt
// committed, the retry reads the item it wrote and adds zero.
//
// Layout (keys.go): ("n","t",field,shard) for the table and
// ("n","x",index,field,shard) for each index, with field countItems or
// countBytes, spread over counterShards shards: a write adds to the shard
// its item key hashes to. ("n","p",<hash>,field) is one item collection's,
// unsharded (DynamoDB's own partition limits keep one partition key's
// write rate to a single partition's), and cleared when it empties.
//
// Why 32 shards: an atomic add never conflicts, but every add to one key
// lands on the one storage team that holds it, and FoundationDB's data
// distribution can split a write-hot range only between keys. A storage
// server sustains on the order of 10–20 thousand small writes a second on
// a hot range, so 32 keys, which data distribution may place on up to 32
// teams, carry several hundred thousand counted writes a second, more than
// one table of a typical cluster takes; reading them all remains a single
// wave of 64 point reads (about 2 KB) per table or index, so Count stays
// constant time. More shards would cost reads and buy no throughput a
// typical cluster has.
//
// Sizes are DynamoDB's item sizes ([Item.Size]): TableSizeBytes sums the
// items; an index's IndexSizeBytes sums its entries' projections (what
// DynamoDB counts); an item collection's size sums its items and their
// LSI entries' projections, as DynamoDB's ItemCollectionMetrics does.
//
// A table created before counters existed has none: its state is not
// counted (tableMeta.counted), [Table.Count] answers [ErrCountsNotReady]
// and DescribeTable reports no counts, until the counting pass
// (counts_build.go) has built them. While it runs, a write counts only
// if its key is one the pass has passed (keyCounted).

// counterAdd is one atomic add to a counter; clearZero clears the counter
// after the add if it is then zero (an emptied item collection).
type counterAdd struct {
	key       fdb.Key
	n         int64
	clearZero bool
}

// counterShard returns the shard the item of packed key values kv counts in.
func counterShard(kv []byte) int { return int(crc32.ChecksumIEEE(kv) % counterShards) }

// countWrites returns the counter adds of change c. It needs the old item
// (c.oldKnown). Nothing is returned for a change that does not count
// (counted false: keyCounted).
//
// The entry of the old item in a CREATING index exists only if a write or
// the backfill made it: oldEntries holds, for each such index, whether
// it exists (read by readOldEntries); if it does not, the new entry
// exists only if ixw (indexWrites) sets it, which it skips when the
// entry would be unchanged.
func countWrites(c itemChange, counted bool, oldEntries map[string]bool, ixw []indexMutation) ([]counterAdd, error) {
	st := c.st
	if !counted {
		return nil, nil
	}
	if !c.oldKnown {
		return nil, &CorruptError{What: "write", Reason: "a counted table's write did not read the old item"}
	}
	var adds []counterAdd
	add := func(key fdb.Key, n int64, clearZero bool) {
		if n != 0 {
			adds = append(adds, counterAdd{key: key, n: n, clearZero: clearZero})
		}
	}
	oldN, newN := presence(c.old), presence(c.new)
	oldSize, newSize := int64(0), int64(c.size)
	if c.old != nil {
		oldSize = int64(c.old.Size())
	}
	shard := counterShard(c.kv)
	add(st.keys.tableCountKey(countItems, shard), newN-oldN, false)
	add(st.keys.tableCountKey(countBytes, shard), newSize-oldSize, false)
	collection := newSize - oldSize
	for _, ix := range st.indexes {
		on, os := ix.entryCount(st, c.old, c.kv, oldSize)
		nn, ns := ix.entryCount(st, c.new, c.kv, newSize)
		if ix.building && !oldEntries[ix.name] {
			on, os = 0, 0
			if nn == 1 && !setsEntry(ixw, ix, c) {
				nn, ns = 0, 0
			}
		}
		add(st.keys.indexCountKey(ix.name, countItems, shard), nn-on, false)
		add(st.keys.indexCountKey(ix.name, countBytes, shard), ns-os, false)
		if ix.local {
			collection += ns - os
		}
	}
	hashKV, err := hashValue(c.kv)
	if err != nil {
		return nil, err
	}
	emptied := newN-oldN < 0
	add(st.keys.partitionCountKey(hashKV, countItems), newN-oldN, emptied)
	if collection != 0 || emptied {
		adds = append(adds, counterAdd{key: st.keys.partitionCountKey(hashKV, countBytes), n: collection, clearZero: emptied})
	}
	return adds, nil
}

// readOldEntries reads whether the old item of c, a change that counts,
// has its entry in each CREATING index (see countWrites); nil when there
// is none, so a write outside a backfill reads nothing more.
func readOldEntries(tr fdb.Transaction, c itemChange, counted bool) (map[string]bool, error) {
	if !counted || c.old == nil {
		return nil, nil
	}
	var names []string
	var futures []fdb.FutureByteSlice
	for _, ix := range c.st.indexes {
		if !ix.building {
			continue
		}
		if key, _ := ix.entryKey(c.old, c.kv); key != nil {
			names = append(names, ix.name)
			futures = append(futures, tr.Get(key))
		}
	}
	if names == nil {
		return nil, nil
	}
	had := map[string]bool{}
	for i, f := range futures {
		v, err := f.Get()
		if err != nil {
			return nil, err
		}
		had[names[i]] = v != nil
	}
	return had, nil
}

// setsEntry reports whether ixw sets the entry of c.new in ix.
func setsEntry(ixw []indexMutation, ix *indexDef, c itemChange) bool {
	key, _ := ix.entryKey(c.new, c.kv)
	for _, m := range ixw {
		if m.value != nil && bytes.Equal(m.key, key) {
			return true
		}
	}
	return false
}

func presence(it Item) int64 {
	if it == nil {
		return 0
	}
	return 1
}

// entryCount returns 1 and the size of it's entry in the index, or 0, 0
// if it has none. size is it.Size(), which an ALL projection's entry has.
func (ix *indexDef) entryCount(st *tableState, it Item, kv []byte, size int64) (n, bytes int64) {
	if key, _ := ix.entryKey(it, kv); key == nil {
		return 0, 0
	}
	if ix.proj.ProjectionType == ProjectionTypeAll {
		return 1, size
	}
	return 1, int64(ix.project(st, it).Size())
}

var zeroCounter = make([]byte, 8)

// applyCounterAdds performs adds in tr.
func applyCounterAdds(tr fdb.Transaction, adds []counterAdd) {
	var b [8]byte
	for _, a := range adds {
		binary.LittleEndian.PutUint64(b[:], uint64(a.n))
		tr.Add(a.key, b[:])
		if a.clearZero {
			tr.CompareAndClear(a.key, zeroCounter)
		}
	}
}

// backfillCounts counts the entries a backfill batch writes (backfill.go)
// that did not exist: a write after the index was added made the others,
// and counted them. While the counting pass runs, only the entries of
// keys it has passed count (keyCounted); the batch's read of the items
// conflicts with a pass that passes them meanwhile.
type backfillCounts struct {
	tr      fdb.Transaction
	st      *tableState
	ix      *indexDef
	passed  fdb.FutureByteSlice
	pending []pendingEntry
}

type pendingEntry struct {
	had   fdb.FutureByteSlice
	kv    []byte
	shard int
	size  int64
}

func newBackfillCounts(tr fdb.Transaction, st *tableState, ix *indexDef) *backfillCounts {
	return &backfillCounts{tr: tr, st: st, ix: ix, passed: startPassed(tr, st)}
}

// entry starts reading whether entry key (of item, with packed key
// values kv) exists, before the backfill sets it.
func (b *backfillCounts) entry(key fdb.Key, item Item, kv []byte) {
	if !b.st.counted && !b.st.counting {
		return
	}
	_, size := b.ix.entryCount(b.st, item, kv, int64(item.Size()))
	b.pending = append(b.pending, pendingEntry{had: b.tr.Get(key), kv: kv, shard: counterShard(kv), size: size})
}

// apply adds the new entries to the index's counters.
func (b *backfillCounts) apply() error {
	var adds []counterAdd
	for _, p := range b.pending {
		counted, err := keyCounted(b.tr, b.st, b.passed, p.kv)
		if err != nil {
			return err
		}
		v, err := p.had.Get()
		if err != nil {
			return err
		}
		if counted && v == nil {
			adds = append(adds, counterAdd{key: b.st.keys.indexCountKey(b.ix.name, countItems, p.shard), n: 1},
				counterAdd{key: b.st.keys.indexCountKey(b.ix.name, countBytes, p.shard), n: p.size})
		}
	}
	applyCounterAdds(b.tr, adds)
	return nil
}

// startPassed starts a snapshot read of the counting pass's cursor when
// the pass runs on st's table; nil otherwise.
func startPassed(rt fdb.ReadTransaction, st *tableState) fdb.FutureByteSlice {
	if !st.counting {
		return nil
	}
	return rt.Snapshot().Get(st.keys.countProgressKey())
}

// keyCounted reports whether a write in tr of the item with packed key
// values kv keeps the counters: always on a counted table; while the
// counting pass runs, if the pass has passed the key, as passed (a read
// startPassed started, or nil) says. A write of a key not passed takes a
// read conflict on the item's key, so a batch that passes it before the
// write commits makes the write retry (counts_build.go).
func keyCounted(tr fdb.Transaction, st *tableState, passed fdb.FutureByteSlice, kv []byte) (bool, error) {
	if !st.counting {
		return st.counted, nil
	}
	if passed == nil {
		passed = startPassed(tr, st)
	}
	raw, err := passed.Get()
	if err != nil {
		return false, err
	}
	cur, err := decodeBackfillCursor(raw)
	if err != nil {
		return false, err
	}
	if len(cur.kv) > 0 && bytes.Compare(kv, cur.kv) <= 0 {
		return true, nil
	}
	return false, tr.AddReadConflictKey(st.keys.itemKey(kv))
}
