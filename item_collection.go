package fdyno

import (
	"math"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// item_collection.go: DynamoDB's item collections. In a table with local
// secondary indexes, the items of one partition key value and their LSI
// entries form an item collection, whose size DynamoDB reports in
// ItemCollectionMetrics so an application can watch it approach the
// 10 GB limit of such collections.

// ItemCollectionMetrics is DynamoDB's ItemCollectionMetrics: the
// partition key of an item collection and an estimate of its size.
type ItemCollectionMetrics struct {
	// ItemCollectionKey holds the partition key attribute.
	ItemCollectionKey Item
	// SizeEstimateRangeGB is a lower and an upper bound of the
	// collection's size, in GB (2^30 bytes), one GB apart.
	SizeEstimateRangeGB [2]float64
}

// ItemCollectionMetrics returns the metrics of the item collection of
// key's partition key value, or nil if the table has no local secondary
// index (DynamoDB reports item collections only for such tables). key
// needs only the partition key attribute; other attributes are ignored.
//
// The size is FoundationDB's estimate of the bytes stored under the
// collection's key ranges (its items, their chunks and their LSI
// entries), read without conflicts: it is sampled, so small collections
// may read as empty, and like DynamoDB's it is not exact. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html.
//
// Errors: [ErrValidation] for a key without a valid partition key;
// [ErrResourceNotFound] for a deleted table.
func (t *Table) ItemCollectionMetrics(rt fdb.ReadTransactor, key Item) (*ItemCollectionMetrics, error) {
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*ItemCollectionMetrics, error) {
		st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
		if err != nil {
			return nil, err
		}
		if len(st.schema.LocalSecondaryIndexes) == 0 {
			return nil, nil
		}
		hv, ok := key[st.hash.Name]
		if !ok || hv.Type() != st.hash.Type {
			return nil, &ValidationError{Op: "ItemCollectionMetrics", Reason: "The provided key element does not match the schema"}
		}
		hashKV, err := packKeyValues(hv)
		if err != nil {
			return nil, err
		}
		if err := t.allowItem(false, hashKV); err != nil {
			return nil, err
		}
		lsis := make([]string, len(st.schema.LocalSecondaryIndexes))
		for i, ix := range st.schema.LocalSecondaryIndexes {
			lsis[i] = ix.IndexName
		}
		ranges := st.keys.itemCollectionRanges(hashKV, lsis)
		futures := make([]fdb.FutureInt64, len(ranges))
		for i, r := range ranges {
			futures[i] = tr.Snapshot().GetEstimatedRangeSizeBytes(r)
		}
		var size int64
		for _, f := range futures {
			n, err := f.Get()
			if err != nil {
				return nil, err
			}
			size += n
		}
		lo := math.Floor(float64(size) / (1 << 30))
		return &ItemCollectionMetrics{ItemCollectionKey: Item{st.hash.Name: hv}, SizeEstimateRangeGB: [2]float64{lo, lo + 1}}, nil
	})
}
