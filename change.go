package fdyno

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// change.go: one change to one item, what the write decision (decide.go)
// makes and the single write path (write.go) applies; indexes, the
// partition directory, the change stream and the backup log each read it
// to derive their own keys.

// itemChange is one change to one item.
type itemChange struct {
	st *tableState
	kv []byte // packed key values (keys.go)
	// old is the item before the change, nil if it did not exist. It is
	// meaningful only if oldKnown: a Put that needs neither a condition
	// nor return values writes blind (see tableState.needsOld). oldEnc,
	// if not nil, is its encoding as stored.
	old      Item
	oldEnc   []byte
	oldKnown bool
	// new is the item after the change; nil deletes it.
	new Item
	// enc is the encoding of new, made once by encodeNew (decide.go) and
	// so checked against the size limit; every write of the change uses
	// it (a Put encodes before its transaction, once for all retries).
	enc []byte
	// size is new.Size(), measured with enc by encodeNew.
	size int
	// byTTL marks a deletion made by the Time to Live sweeper (ttl_sweep.go);
	// its change record carries DynamoDB's service identity (stream.go).
	byTTL bool
	// orders are the reads of stream order keys started with the
	// transaction's item reads (stream.go); nil reads when needed.
	orders *orderPrefetches
	// probes are the reads of the unique index slots a Put takes,
	// started with its item's read (unique.go).
	probes []uniqueProbe
	// passed is the read of the counting pass's cursor, started with the
	// item's read while the pass runs (counts_build.go); nil reads it
	// when needed.
	passed fdb.FutureByteSlice
}

// needsOld reports whether every write must read the old item even when
// the request itself does not need it: index entries (the old entry is
// cleared) and change records (event name, old image) need it.
// Counters (counts.go) need it for the change's difference, and so does
// the counting pass (counts_build.go) for the keys it has passed.
func (st *tableState) needsOld() bool {
	return st.hasIndexes() || st.hasStream() || st.counted || st.counting
}

// uniqueProbe is the read of one slot of a unique index, started and not
// yet waited on.
type uniqueProbe struct {
	slot fdb.Key
	rr   fdb.RangeResult
}
