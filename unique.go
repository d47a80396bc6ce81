package fdyno

import (
	"bytes"
	"context"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// unique.go: unique global secondary indexes (issue 34), an fdyno
// extension: DynamoDB users keep "one account per email" with a sentinel
// item per value and a TransactWriteItems around every write.
//
// A GSI marked [GlobalSecondaryIndex.Unique] holds at most one entry per
// index key (the values of all its key attributes, multi-attribute keys
// included). Its entries are ordinary entries, x/<index>/<key values>/
// <base key> (keys.go); the slot of a key is the range of entries with
// those values, [x/<index>/<key values>, x/<index>/<key values>\xff): the
// base key that follows always starts with a tuple type code below \xff,
// and a longer value that shares the bytes continues with \xff (the
// tuple's escape of \x00), so the range holds exactly the entries of those
// values.
//
// Invariants:
//
//  1. A write that gives an item an entry in a slot it did not occupy
//     reads the slot (a range read of at most two entries) in its own
//     transaction, and writes nothing if another item's entry is there
//     and that item is not leaving the slot in the same request. The
//     read takes a read conflict on the slot, so of two transactions that
//     claim one empty slot only the first to commit does; the other
//     conflicts and, retried, sees the claim.
//  2. A Put knows its new item before reading, so its slot reads start
//     with the read of its old item: the same wave (pendingFetch.probes).
//     An Update's new item depends on the old one; its slot reads are a
//     second wave, only when the update changes an index key.
//  3. Every check is made before the request's first write (checkUnique
//     runs after every decision, before writeItem), so a refused write,
//     or a refused action of a TransactWrite or BatchWrite, writes
//     nothing. Actions of one request claiming one slot collide with each
//     other, as they would in sequence.
//  4. Items without an index key attribute have no entry and never
//     collide (a sparse index).
//  5. A unique index added by UpdateTable is backfilled as any GSI; a
//     backfill batch that finds two items of one key fails the backfill,
//     which removes the index and reports the keys (backfill.go).
//  6. A restore (restore.go) writes its items without the check: the
//     items it writes are not a state any writer committed until the
//     restore is done (a point-in-time base is scanned over many
//     versions, and its log brings it to one), and a backup may hold
//     duplicates in a unique index (one taken while the index was
//     CREATING over them, or while it was deleted and others written).
//     Before the restored table appears, the restore walks each unique
//     index (uniqueDuplicates) and fails if two items share a key.

// uniqueProbeLimit is how many entries a slot read returns: the slot
// holds at most one other item's entry (invariant 1), and one more is
// enough to see any stranger.
const uniqueProbeLimit = 2

// uniqueSlot returns the slot of it's key in unique index ix, or nil if
// it has no entry there.
func (ix *indexDef) uniqueSlot(it Item) fdb.Key {
	if it == nil || !ix.unique || ix.prefix == nil {
		return nil
	}
	ikv, ok := ix.keyValues(it)
	if !ok {
		return nil
	}
	return concatKey(ix.prefix, ikv)
}

// startProbe starts the read of slot in rt.
func startProbe(rt fdb.ReadTransaction, slot fdb.Key) uniqueProbe {
	return uniqueProbe{slot: slot, rr: rt.GetRange(indexRange(slot), fdb.RangeOptions{Limit: uniqueProbeLimit})}
}

// startPutProbes starts the reads of the slots item it of a Put takes in
// st's unique indexes, with the read of its old item (invariant 2).
func startPutProbes(rt fdb.ReadTransaction, st *tableState, it Item) []uniqueProbe {
	var probes []uniqueProbe
	for _, ix := range st.indexes {
		if slot := ix.uniqueSlot(it); slot != nil {
			probes = append(probes, startProbe(rt, slot))
		}
	}
	return probes
}

// uniqueClaim is a change's entry in a slot it did not occupy.
type uniqueClaim struct {
	change int // index in the request's changes
	ix     *indexDef
	probe  uniqueProbe
}

// checkUnique checks the changes of one request (nil: nothing written)
// against the unique indexes of their tables (invariants 1 and 3) and
// returns, for each change, nil or the *[UniqueViolationError] that
// refuses it; ok is false if any is refused. It reads and writes nothing
// but the slots, and reads those only for changes that claim one.
func checkUnique(rt fdb.ReadTransaction, changes []*itemChange) (refused []error, ok bool, err error) {
	var claims []uniqueClaim
	// leaving holds the entries that a change of this request clears.
	leaving := map[string]bool{}
	for i, c := range changes {
		if c == nil || !c.st.schema.hasUniqueIndexes() {
			continue
		}
		for _, ix := range c.st.indexes {
			if !ix.unique {
				continue
			}
			oldSlot, newSlot := ix.uniqueSlot(c.old), ix.uniqueSlot(c.new)
			if oldSlot != nil && !bytes.Equal(oldSlot, newSlot) {
				leaving[string(concatKey(oldSlot, c.kv))] = true
			}
			if newSlot == nil || bytes.Equal(oldSlot, newSlot) {
				continue // no entry, or the item keeps its own
			}
			claims = append(claims, uniqueClaim{change: i, ix: ix, probe: c.probe(rt, newSlot)})
		}
	}
	if len(claims) == 0 {
		return nil, true, nil
	}
	refused = make([]error, len(changes))
	ok = true
	taken := map[string]int{} // slot → the change of this request that claims it
	for _, cl := range claims {
		c := changes[cl.change]
		entries, err := cl.probe.rr.GetSliceWithError()
		if err != nil {
			return nil, false, err
		}
		violated := false
		for _, e := range entries {
			if leaving[string(e.Key)] {
				continue // its item leaves the slot in this request
			}
			_, kv, err := splitIndexKey(cl.ix.prefix, e.Key, len(cl.ix.attrs))
			if err != nil {
				return nil, false, err
			}
			if !bytes.Equal(kv, c.kv) {
				violated = true
			}
		}
		if j, dup := taken[string(cl.probe.slot)]; dup && j != cl.change {
			violated = true
		}
		taken[string(cl.probe.slot)] = cl.change
		if violated && refused[cl.change] == nil {
			refused[cl.change] = &UniqueViolationError{Index: cl.ix.name}
			ok = false
		}
	}
	return refused, ok, nil
}

// probe returns the read of slot that c's request started with its item
// (a Put's), or starts it.
func (c *itemChange) probe(rt fdb.ReadTransaction, slot fdb.Key) uniqueProbe {
	for _, p := range c.probes {
		if bytes.Equal(p.slot, slot) {
			return p
		}
	}
	return startProbe(rt, slot)
}

// firstRefusal returns the first refusal of checkUnique's answer.
func firstRefusal(refused []error) error {
	for _, err := range refused {
		if err != nil {
			return err
		}
	}
	return nil
}

// uniqueBackfill checks the entries a backfill batch is about to set in
// a unique index (invariant 5): against each other and against the
// entries already there (made by writes since the index was added, or by
// earlier batches). It does nothing for another index.
type uniqueBackfill struct {
	tr     fdb.Transaction
	st     *tableState
	ix     *indexDef
	probes []uniqueProbe
	kvs    [][]byte
}

func newUniqueBackfill(tr fdb.Transaction, st *tableState, ix *indexDef) *uniqueBackfill {
	return &uniqueBackfill{tr: tr, st: st, ix: ix}
}

// entry starts reading the slot item (of packed key values kv) takes.
func (u *uniqueBackfill) entry(item Item, kv []byte) {
	slot := u.ix.uniqueSlot(item)
	if slot == nil {
		return
	}
	u.probes = append(u.probes, startProbe(u.tr, slot))
	u.kvs = append(u.kvs, kv)
}

// duplicates returns the keys of the items that share a slot with
// another, in the order found, or nil.
func (u *uniqueBackfill) duplicates() ([]Item, error) {
	var dups []Item
	listed := map[string]bool{}
	list := func(kv []byte) error {
		if listed[string(kv)] {
			return nil
		}
		listed[string(kv)] = true
		key, err := keyItem(u.st, kv)
		if err != nil {
			return err
		}
		dups = append(dups, key)
		return nil
	}
	taken := map[string][]byte{} // slot → the batch's item in it
	for i, p := range u.probes {
		kv := u.kvs[i]
		entries, err := p.rr.GetSliceWithError()
		if err != nil {
			return nil, err
		}
		var others [][]byte
		for _, e := range entries {
			_, other, err := splitIndexKey(u.ix.prefix, e.Key, len(u.ix.attrs))
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(other, kv) {
				others = append(others, other)
			}
		}
		if first, ok := taken[string(p.slot)]; ok {
			others = append(others, first)
		} else {
			taken[string(p.slot)] = kv
		}
		for _, other := range others {
			if err := list(kv); err != nil {
				return nil, err
			}
			if err := list(other); err != nil {
				return nil, err
			}
		}
	}
	return dups, nil
}

// uniqueDuplicatesBatch bounds one transaction of uniqueDuplicates: at
// most this many entries, and no more once their bytes reach
// uniqueDuplicatesBytes.
const (
	uniqueDuplicatesBatch = 1000
	uniqueDuplicatesBytes = 2 << 20
)

// uniqueDuplicates walks the entries of unique index name of table t in
// key order, a transaction of tx per batch, and returns the keys of the
// items of the first slot it finds held by two or more (nil if none):
// the slot's entries are adjacent, so one walk finds them (invariant 6).
// It reads only; the walk is not one version, so t must take no writes
// meanwhile (a restore's hidden table).
func uniqueDuplicates(ctx context.Context, tx fdb.Transactor, t *Table, name string) ([]Item, error) {
	// The walk's state: the last entry walked, its index key values, and
	// the keys of the items walked in that slot.
	type walk struct {
		after   fdb.Key
		slot    []byte
		holders []Item
		found   bool // holders are two or more, and the slot is over
		done    bool // the end of the index
	}
	var w walk
	for !w.found && !w.done {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		w, err = ReadTransact(tx, func(tr fdb.ReadTransaction) (walk, error) {
			b := w // a retry starts again from the state before
			st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
			if err != nil {
				return walk{}, err
			}
			ix := st.index(name)
			if ix == nil || !ix.unique {
				return walk{done: true}, nil
			}
			rng := indexRange(ix.prefix)
			begin := rng.Begin
			if b.after != nil {
				begin = fdb.Key(next(b.after))
			}
			it := tr.GetRange(fdb.KeyRange{Begin: begin, End: rng.End}, fdb.RangeOptions{Mode: fdb.StreamingModeIterator}).Iterator()
			for n, size := 0, 0; n < uniqueDuplicatesBatch && size < uniqueDuplicatesBytes; n++ {
				if !it.Advance() {
					b.done = true
					break
				}
				e, err := it.Get()
				if err != nil {
					return walk{}, err
				}
				size += len(e.Key) + len(e.Value)
				rest, kv, err := splitIndexKey(ix.prefix, e.Key, len(ix.attrs))
				if err != nil {
					return walk{}, err
				}
				if ikv := rest[:len(rest)-len(kv)]; !bytes.Equal(ikv, b.slot) {
					if len(b.holders) > 1 {
						b.found = true
						return b, nil
					}
					b.slot, b.holders = bytes.Clone(ikv), nil
				}
				key, err := keyItem(st, kv)
				if err != nil {
					return walk{}, err
				}
				b.holders = append(b.holders, key)
				b.after = e.Key
			}
			return b, nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(w.holders) > 1 {
		return w.holders, nil
	}
	return nil, nil
}
