package fdyno

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// counts_read.go: reads answered from the exact counters (counts.go)
// instead of from the items.

// Count returns the exact number and total size of the table's items, as
// of rt's read version: one wave of reads of the table's 64 counter keys,
// whatever the table's size.
//
// On a guarded handle ([Table.Guarded]) it is a read of the whole table.
//
// Errors: [ErrCountsNotReady] for a table created before fdyno kept
// counters, until [Table.BuildCounts] has built them; [ErrCountsDisabled] for a table created
// [TableSchema.WithoutCounts]; [ErrResourceNotFound] for a deleted table; the guard's
// refusal.
func (t *Table) Count(rt fdb.ReadTransactor) (Counts, error) {
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (Counts, error) {
		st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
		if err != nil {
			return Counts{}, err
		}
		if err := t.allow(Access{}); err != nil { // a read of the whole table
			return Counts{}, err
		}
		return st.tableCounts(tr)
	})
}

// IndexCount returns the exact number and total size (of their
// projections) of the entries of index, a GSI or LSI of the table. A
// CREATING GSI counts the entries its backfill has written so far. On a
// guarded handle it is a read of the whole index.
//
// Errors: as [Table.Count], and [ErrValidation] for an unknown index.
func (t *Table) IndexCount(rt fdb.ReadTransactor, index string) (Counts, error) {
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (Counts, error) {
		st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
		if err != nil {
			return Counts{}, err
		}
		ix := st.index(index)
		if ix == nil {
			return Counts{}, &ValidationError{Op: "IndexCount", Reason: "The table does not have the specified index: " + index}
		}
		if err := t.allow(Access{Index: index}); err != nil { // a read of the whole index
			return Counts{}, err
		}
		return st.indexCounts(tr, ix)
	})
}

// CollectionCount returns the exact number of items of the item
// collection of key's partition key value, and its size: its items' and
// their LSI entries' (as DynamoDB's ItemCollectionMetrics measures it).
// key needs only the partition key attribute. On a guarded handle it is
// a read of that partition.
//
// Errors: as [Table.Count], and [ErrValidation] for a key without a valid
// partition key.
func (t *Table) CollectionCount(rt fdb.ReadTransactor, key Item) (Counts, error) {
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (Counts, error) {
		st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
		if err != nil {
			return Counts{}, err
		}
		hashKV, err := collectionKey("CollectionCount", st, key)
		if err != nil {
			return Counts{}, err
		}
		if err := t.allowItem(false, hashKV); err != nil { // a read of the partition
			return Counts{}, err
		}
		return st.collectionCounts(tr, hashKV)
	})
}

// collectionKey returns the packed partition key value of key.
func collectionKey(op string, st *tableState, key Item) ([]byte, error) {
	hv, ok := key[st.hash.Name]
	if !ok || hv.Type() != st.hash.Type {
		return nil, &ValidationError{Op: op, Reason: reasonKeyMismatch}
	}
	return packKeyValues(hv)
}
