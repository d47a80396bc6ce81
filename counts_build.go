package fdyno

import (
	"bytes"
	"context"
	"slices"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// counts_build.go: the counting pass, which builds the counters
// (counts.go) of a table created before fdyno kept them (issue 34).
//
// Such a table's metadata is neither counted nor counting. The pass is a
// series of transactions:
//
//  1. start: the metadata is marked counting (and so stored as
//     FormatVersion 4, which versions without counters refuse:
//     table_meta.go, invariant 6), the counters are cleared and the
//     cursor, ("n", "r") (keys.go), says that no key is passed; the
//     metadata version changes, so every writer loads the new state;
//  2. batch: the items after the cursor, in key order, at most a batch
//     of them, are read; what each contributes is added to the counters
//     (what a write creating it would add), and the cursor moves to the
//     last;
//  3. the batch that reaches the end of the table marks the metadata
//     counted and clears the cursor.
//
// Invariant: at every committed version of a counting table, each
// counter holds the sum, over the items whose key is at or before the
// cursor (passed), of what the item contributes to it: its presence and
// size to the table's; its entry to each index's (for a CREATING index,
// only an entry that exists); its presence and size, and its LSI
// entries', to its item collection's. Every transaction keeps it, and
// FoundationDB's transactions are serializable, so it holds at every
// version:
//
//   - start: nothing is passed, and the counters are cleared.
//   - batch: it adds the contributions of the items it passes, as its
//     read version has them. Its range read of those keys, gaps included,
//     and of their entries in CREATING indexes, conflicts with any write
//     of them that commits before it does; it then retries.
//   - a write of a passed key adds its difference (countWrites); the
//     cursor never moves back, so the key stays passed.
//   - a write of a key the cursor has not passed adds nothing and takes
//     a read conflict on the item's key (keyCounted). The batch that
//     passes the key declares a write conflict range over every key it
//     passes: if that batch commits first, the write conflicts and,
//     retried, sees the key passed and counts.
//   - a backfill batch (backfill.go) counts the entries it makes by the
//     same rule, and its range read of the items conflicts with a pass
//     that passes them meanwhile.
//   - an index added by UpdateTable has no entries and no counters; an
//     index removed loses both (clearIndex).
//
// When every key is passed the counters are exact; the transaction that
// marks the table counted changes the metadata, on which every write
// takes a read conflict (write.go), so no write commits with the
// counting state after it.
//
// A write reads the cursor with a snapshot read started with its item's
// read: it conflicts with none of the batches that do not pass its key.
// Two passes at once conflict on the cursor, which each batch reads, so
// no item is counted twice; a crash loses at most the batch in flight,
// and BuildCounts resumes from the cursor.

// Counting pass limits.
const (
	// DefaultCountBatchSize is the most items a batch of the counting
	// pass (one transaction) reads unless BuildCountsInput.BatchSize says.
	DefaultCountBatchSize = 500
	// countBatchBytes bounds the encoded bytes of the items of one batch,
	// keeping it well inside FoundationDB's 5 s and 10 MB.
	countBatchBytes = 2 << 20
)

// BuildCountsInput is the request of [Table.BuildCounts].
type BuildCountsInput struct {
	// BatchSize is the most items one transaction reads; 0 means
	// DefaultCountBatchSize.
	BatchSize int
	// Progress, if not nil, is called after each committed transaction,
	// outside any transaction, from the goroutine that called BuildCounts.
	Progress func(BuildCountsProgress)
}

// BuildCountsProgress is the state of a counting pass after a batch.
type BuildCountsProgress struct {
	// ItemsCounted is the number of items the pass has counted, over every
	// run of it (it survives crashes with the cursor).
	ItemsCounted int64
	// Done is true once the table's counts are exact.
	Done bool
}

// BuildCounts builds the exact counters of a table created before fdyno
// kept them, whose count calls answer [ErrCountsNotReady] until it is
// done: it reads every item once, in batches, and then marks the table
// counted. Writers may run meanwhile; a write the pass has not reached
// yet is counted when the pass reaches it. Calling it on a table that is
// counted already returns at once with Done.
//
// Each batch runs in its own transaction of tx (retried as FoundationDB's
// Transact retries; pass an fdb.Database so batches are separate
// transactions), well inside FoundationDB's 5 seconds. BuildCounts stops
// with ctx's error between batches; calling it again, from any process,
// resumes where the last committed batch stopped. Two at once are safe:
// their batches conflict, and one retries.
//
// While the pass runs, every write of the table reads the pass's cursor
// with its item (and Puts and Deletes that would write blind read their
// item): the table's metadata is stored in a form fdyno versions before
// counters refuse (docs/design.md, "Exact counts").
//
// Errors: [ErrCountsDisabled] for a table created
// [TableSchema.WithoutCounts]; [ErrResourceNotFound] if the table was
// deleted; [ErrValidation] for a negative BatchSize; FoundationDB errors.
func (t *Table) BuildCounts(ctx context.Context, tx fdb.Transactor, in BuildCountsInput) (BuildCountsProgress, error) {
	batch := in.BatchSize
	switch {
	case batch < 0:
		return BuildCountsProgress{}, &ValidationError{Op: "BuildCounts", Reason: "BatchSize must not be negative"}
	case batch == 0:
		batch = DefaultCountBatchSize
	}
	for {
		if err := ctx.Err(); err != nil {
			return BuildCountsProgress{}, err
		}
		p, err := Transact(tx, func(tr fdb.Transaction) (BuildCountsProgress, error) {
			return t.buildCountsBatch(tr, batch)
		})
		if err != nil {
			return p, err
		}
		if in.Progress != nil {
			in.Progress(p)
		}
		if p.Done {
			return p, nil
		}
	}
}

// buildCountsBatch runs the next step of the counting pass in tr: the
// start, a batch, or the last batch.
func (t *Table) buildCountsBatch(tr fdb.Transaction, batch int) (BuildCountsProgress, error) {
	st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
	if err != nil {
		return BuildCountsProgress{}, err
	}
	switch {
	case st.schema.WithoutCounts:
		return BuildCountsProgress{}, ErrCountsDisabled
	case st.counted:
		return BuildCountsProgress{Done: true}, t.storeCounted(tr, st)
	case !st.counting:
		return BuildCountsProgress{}, t.startCounting(tr, st)
	}
	// A schema change or a deletion of the table aborts the batch.
	if err := tr.AddReadConflictKey(st.keys.meta); err != nil {
		return BuildCountsProgress{}, err
	}
	raw, err := tr.Get(st.keys.countProgressKey()).Get()
	if err != nil {
		return BuildCountsProgress{}, err
	}
	cur, err := decodeBackfillCursor(raw)
	if err != nil {
		return BuildCountsProgress{}, err
	}
	l := loaderOf(tr)
	reads, full, err := l.walk(&st.keys, cur.kv, batch, countBatchBytes)
	if err != nil {
		return BuildCountsProgress{}, err
	}
	items := make([]Item, len(reads))
	for i := range reads {
		if items[i], _, err = l.load(&reads[i]); err != nil {
			return BuildCountsProgress{}, err
		}
	}
	entries := startEntryReads(tr, st, items, reads)
	sums := map[string]int64{}
	for i, it := range items {
		has := func(ix *indexDef) (bool, error) {
			f, ok := entries[entryRead{i, ix.name}]
			if !ok {
				return false, nil
			}
			v, err := f.Get()
			return v != nil, err
		}
		if err := addItemCounts(st, it, reads[i].kv, has, sums); err != nil {
			return BuildCountsProgress{}, err
		}
	}
	applyCounterAdds(tr, sortedAdds(sums))
	// Writes of the keys passed, made after this batch read them, must
	// see them passed: they conflict with this range (keyCounted).
	begin, end := st.keys.items.FDBRangeKeys()
	if len(cur.kv) > 0 {
		begin = st.keys.itemKey(next(cur.kv))
	}
	if full {
		end = st.keys.itemKey(next(reads[len(reads)-1].kv))
	}
	if err := tr.AddWriteConflictRange(fdb.KeyRange{Begin: begin, End: end}); err != nil {
		return BuildCountsProgress{}, err
	}
	cur.items += int64(len(reads))
	p := BuildCountsProgress{ItemsCounted: cur.items}
	if full {
		cur.kv = reads[len(reads)-1].kv
		tr.Set(st.keys.countProgressKey(), cur.encode())
		return p, nil
	}
	// The end of the table: the counters are exact.
	meta, err := readMeta(tr, st.keys, t.name)
	if err != nil {
		return BuildCountsProgress{}, err
	}
	meta.counting, meta.counted = false, true
	if err := putMeta(tr, st.keys, meta); err != nil {
		return BuildCountsProgress{}, err
	}
	tr.Clear(st.keys.countProgressKey())
	bumpMetadataVersion(tr)
	p.Done = true
	return p, nil
}

// startCounting starts the counting pass of st's table in tr.
func (t *Table) startCounting(tr fdb.Transaction, st *tableState) error {
	meta, err := readMeta(tr, st.keys, t.name)
	if err != nil {
		return err
	}
	meta.counting = true
	if err := putMeta(tr, st.keys, meta); err != nil {
		return err
	}
	tr.ClearRange(st.keys.counts)
	tr.Set(st.keys.countProgressKey(), backfillCursor{}.encode())
	bumpMetadataVersion(tr)
	return nil
}

// storeCounted stores the metadata of a counted table in the form
// versions without counters refuse, if it is in an older one
// (table_meta.go, invariant 6).
func (t *Table) storeCounted(tr fdb.Transaction, st *tableState) error {
	meta, err := readMeta(tr, st.keys, t.name)
	if err != nil || meta.storedVersion == meta.formatVersion() {
		return err
	}
	return putMeta(tr, st.keys, meta)
}

// entryRead names the read of item i's entry in a CREATING index.
type entryRead struct {
	item  int
	index string
}

// startEntryReads starts the reads of the entries of items (read by
// reads) in the table's CREATING indexes: a backfill or a write may have
// made them, or not yet.
func startEntryReads(tr fdb.Transaction, st *tableState, items []Item, reads []itemRead) map[entryRead]fdb.FutureByteSlice {
	var out map[entryRead]fdb.FutureByteSlice
	for _, ix := range st.indexes {
		if !ix.building {
			continue
		}
		for i, it := range items {
			if key, _ := ix.entryKey(it, reads[i].kv); key != nil {
				if out == nil {
					out = map[entryRead]fdb.FutureByteSlice{}
				}
				out[entryRead{i, ix.name}] = tr.Get(key)
			}
		}
	}
	return out
}

// addItemCounts adds to sums (counter key → amount) what item it, of
// packed key values kv, contributes to the counters: what countWrites
// adds for a write that creates it. has reports whether it has its entry
// in a CREATING index.
func addItemCounts(st *tableState, it Item, kv []byte, has func(*indexDef) (bool, error), sums map[string]int64) error {
	size := int64(it.Size())
	shard := counterShard(kv)
	sums[string(st.keys.tableCountKey(countItems, shard))]++
	sums[string(st.keys.tableCountKey(countBytes, shard))] += size
	collection := size
	for _, ix := range st.indexes {
		if ix.building {
			ok, err := has(ix)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		n, b := ix.entryCount(st, it, kv, size)
		if n == 0 {
			continue
		}
		sums[string(st.keys.indexCountKey(ix.name, countItems, shard))] += n
		sums[string(st.keys.indexCountKey(ix.name, countBytes, shard))] += b
		if ix.local {
			collection += b
		}
	}
	hashKV, err := hashValue(kv)
	if err != nil {
		return err
	}
	sums[string(st.keys.partitionCountKey(hashKV, countItems))]++
	sums[string(st.keys.partitionCountKey(hashKV, countBytes))] += collection
	return nil
}

// sortedAdds returns sums as counter adds, in key order.
func sortedAdds(sums map[string]int64) []counterAdd {
	adds := make([]counterAdd, 0, len(sums))
	for k, n := range sums {
		if n != 0 {
			adds = append(adds, counterAdd{key: fdb.Key(k), n: n})
		}
	}
	slices.SortFunc(adds, func(a, b counterAdd) int { return bytes.Compare(a.key, b.key) })
	return adds
}
