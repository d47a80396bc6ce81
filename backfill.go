package fdyno

import (
	"context"
	"slices"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// backfill.go builds a global secondary index added to a table that
// already holds data (updatetable.go creates it in state CREATING).
//
// From the moment the index exists, every write maintains its entries
// (write.go), so only the items written before it need entries. The
// backfill walks the base items in key order in batches, each batch its
// own transaction that reads the items and sets their entries; a write
// racing a batch on one of its items makes one of them retry, so an entry
// is always that of the item as committed. The cursor, the key of the
// last item walked, is kept at b/<index> (keys.go), not in the metadata
// key m: every writer has a read conflict on m, so a cursor there would
// abort concurrent writers at every batch. The batch that reaches the end
// marks the index ACTIVE (metadata version bump) and clears the cursor.
//
// A crash loses at most the batch in flight: calling Backfill again
// resumes from the cursor. Two Backfills of one index conflict on the
// cursor and so never do a batch's work twice at once.

// Backfill limits.
const (
	// DefaultBackfillBatchSize is the most base items a backfill batch
	// (one transaction) walks unless BackfillInput.BatchSize says.
	DefaultBackfillBatchSize = 500
	// backfillBatchBytes bounds the encoded bytes of the items of one
	// batch, keeping it well inside FoundationDB's 5 s and 10 MB.
	backfillBatchBytes = 2 << 20
)

// BackfillInput is the request of [Table.Backfill].
type BackfillInput struct {
	// IndexName names the CREATING global secondary index to build.
	IndexName string
	// BatchSize is the most base items one transaction walks; 0 means
	// DefaultBackfillBatchSize.
	BatchSize int
	// Progress, if not nil, is called after each committed batch, outside
	// any transaction, from the goroutine that called Backfill.
	Progress func(BackfillProgress)
}

// BackfillProgress is the state of a backfill after a batch.
type BackfillProgress struct {
	IndexName string
	// ItemsScanned is the number of base items walked so far, over every
	// run of the backfill (it survives crashes with the cursor).
	ItemsScanned int64
	// Done is true once the index is ACTIVE.
	Done bool
}

// Backfill builds index in.IndexName, created by [Table.UpdateTable], and
// marks it ACTIVE when every base item has its entry. Writers may run
// during the backfill; the index is consistent with them throughout, and
// Query and Scan refuse it until it is ACTIVE.
//
// Each batch runs in its own transaction of tx (retried as FoundationDB's
// Transact retries; pass an fdb.Database so batches are separate
// transactions). Backfill stops with ctx's error between batches; calling
// it again, from any process, resumes where the last committed batch
// stopped. Backfill of an ACTIVE index returns at once with Done.
//
// A unique index (unique.go) whose items turn out to share a key fails
// its backfill: the batch that finds them removes the index, leaving the
// table as it was before UpdateTable added it, and Backfill returns a
// *[DuplicateKeysError] listing them.
//
// Errors: [ErrValidation] if the table has no such GSI (for example, it
// was deleted during the backfill) or BatchSize is negative;
// [ErrResourceNotFound] if the table was deleted; [ErrUniqueViolation]
// (a *DuplicateKeysError) for a unique index over duplicates;
// FoundationDB errors.
func (t *Table) Backfill(ctx context.Context, tx fdb.Transactor, in BackfillInput) (BackfillProgress, error) {
	batch := in.BatchSize
	switch {
	case batch < 0:
		return BackfillProgress{}, &ValidationError{Op: "Backfill", Reason: "BatchSize must not be negative"}
	case batch == 0:
		batch = DefaultBackfillBatchSize
	}
	for {
		if err := ctx.Err(); err != nil {
			return BackfillProgress{IndexName: in.IndexName}, err
		}
		var dups []Item
		p, err := Transact(tx, func(tr fdb.Transaction) (BackfillProgress, error) {
			var p BackfillProgress
			var err error
			p, dups, err = t.backfillBatch(tr, in.IndexName, batch)
			return p, err
		})
		if err != nil {
			return p, err
		}
		if dups != nil {
			return p, &DuplicateKeysError{Index: in.IndexName, Keys: dups}
		}
		if in.Progress != nil {
			in.Progress(p)
		}
		if p.Done {
			return p, nil
		}
	}
}

// backfillBatch walks the next batch of base items in tr. For a unique
// index whose items share a key it returns their keys (dups) instead,
// having removed the index in tr.
func (t *Table) backfillBatch(tr fdb.Transaction, name string, batch int) (_ BackfillProgress, dups []Item, _ error) {
	const op = "Backfill"
	st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
	if err != nil {
		return BackfillProgress{}, nil, err
	}
	ix := st.index(name)
	if ix == nil || ix.local {
		return BackfillProgress{}, nil, &ValidationError{Op: op, Reason: "The table does not have the specified index: " + name}
	}
	if !ix.building {
		return BackfillProgress{IndexName: name, Done: true}, nil, nil
	}
	// A concurrent deletion of the index (or of the table) aborts the
	// batch rather than leaving entries behind.
	if err := tr.AddReadConflictKey(st.keys.meta); err != nil {
		return BackfillProgress{}, nil, err
	}
	raw, err := tr.Get(st.keys.backfillKey(name)).Get()
	if err != nil {
		return BackfillProgress{}, nil, err
	}
	cur, err := decodeBackfillCursor(raw)
	if err != nil {
		return BackfillProgress{}, nil, err
	}
	l := loaderOf(tr)
	entries, full, err := l.walk(&st.keys, cur.kv, batch, backfillBatchBytes)
	if err != nil {
		return BackfillProgress{}, nil, err
	}
	// Counters (counts.go) count the entries writes have not made yet.
	counted := newBackfillCounts(tr, st, ix)
	// A unique index's slots are read first (unique.go, invariant 5).
	unique := newUniqueBackfill(tr, st, ix)
	var sets []fdb.KeyValue
	for i := range entries {
		item, enc, err := l.load(&entries[i])
		if err != nil {
			return BackfillProgress{}, nil, err
		}
		key, _ := ix.entryKey(item, entries[i].kv) // a too-large key is not indexed
		if key == nil {
			continue
		}
		value, err := ix.entryValue(st, item, enc)
		if err != nil {
			return BackfillProgress{}, nil, err
		}
		counted.entry(key, item, entries[i].kv)
		unique.entry(item, entries[i].kv)
		sets = append(sets, fdb.KeyValue{Key: key, Value: value})
	}
	if dups, err := unique.duplicates(); err != nil || dups != nil {
		if err != nil {
			return BackfillProgress{}, nil, err
		}
		// Leave the table as it was before the index was added.
		s := st.schema.withoutGSI(name)
		building := slices.DeleteFunc(st.building(), func(n string) bool { return n == name })
		clearIndex(tr, st, name)
		tr.Clear(st.keys.backfillKey(name))
		if err := t.replaceSchema(tr, s, building...); err != nil {
			return BackfillProgress{}, nil, err
		}
		return BackfillProgress{IndexName: name, ItemsScanned: cur.items}, dups, nil
	}
	for _, kv := range sets {
		tr.Set(kv.Key, kv.Value)
		if part := ix.partitionEntry(st, nil, kv.Key); part != nil {
			tr.Set(part, nil)
		}
	}
	if err := counted.apply(); err != nil {
		return BackfillProgress{}, nil, err
	}
	cur.items += int64(len(entries))
	if len(entries) > 0 {
		cur.kv = entries[len(entries)-1].kv
	}
	p := BackfillProgress{IndexName: name, ItemsScanned: cur.items}
	if full {
		tr.Set(st.keys.backfillKey(name), cur.encode())
		return p, nil, nil
	}
	// The end of the table: the index is complete.
	building := slices.DeleteFunc(st.building(), func(n string) bool { return n == name })
	if err := t.replaceSchema(tr, st.schema, building...); err != nil {
		return BackfillProgress{}, nil, err
	}
	tr.Clear(st.keys.backfillKey(name))
	p.Done = true
	return p, nil, nil
}
