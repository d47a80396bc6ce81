package fdyno

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// loader.go holds the item loader, the one reader of stored items. Every
// reader hands it the item heads it reads: Get, BatchGet and TransactGet,
// Query and Scan pages of tables and of indexes (with the base items an
// index page reads), backfill batches, the TTL sweeper and the write
// path's reads of old items (item_ops.go, write.go). It alone follows a
// manifest to its chunks (chunk.go) and decodes an item; a lint test
// (loader_test.go) fails if anything else does.
//
// A read goes in up to three waves, whatever the reader: the heads (point
// reads the loader starts, or rows a range read returned), then the chunks
// of every chunked head, then the decoding. A reader that reads many items
// starts all heads before it waits on any, and follows all of them before
// it loads any, so a page or a batch costs one wave for its heads and one
// for all its chunks.

// itemLoader reads the items of one transaction. It is a value bound to
// its transaction and never outlives it.
type itemLoader struct {
	rt fdb.ReadTransaction
}

// loaderOf returns the item loader of transaction rt.
func loaderOf(rt fdb.ReadTransaction) itemLoader { return itemLoader{rt: rt} }

// itemRead is one item an itemLoader reads.
//
// Invariants:
//
//  1. head is not nil only until wait: a point read started and not yet
//     waited on.
//  2. Once the head is known, value is it (nil: no item) and, if it is a
//     manifest, m is the decoded manifest (m.count > 0).
//  3. chunks, once follow started them, holds m.count reads.
type itemRead struct {
	keys   *tableKeys // of the table state the read was started under
	kv     []byte
	head   fdb.FutureByteSlice
	value  []byte
	m      manifest
	chunks []fdb.FutureByteSlice
}

// get starts the point read of the head of the item with packed key
// values kv.
func (l itemLoader) get(keys *tableKeys, kv []byte) itemRead {
	return itemRead{keys: keys, kv: kv, head: l.rt.Get(keys.itemKey(kv))}
}

// row hands the loader the head value of the item with packed key values
// kv, read by a range read.
func (l itemLoader) row(keys *tableKeys, kv, value []byte) (itemRead, error) {
	r := itemRead{keys: keys, kv: kv}
	return r, r.setHead(value)
}

// wait waits for a point read's head; for a row it does nothing.
func (r *itemRead) wait() error {
	if r.head == nil {
		return nil
	}
	v, err := r.head.Get()
	if err != nil {
		return err
	}
	r.head = nil
	return r.setHead(v)
}

func (r *itemRead) setHead(v []byte) error {
	r.value = v
	if isManifest(v) {
		var err error
		if r.m, err = decodeManifest(v); err != nil {
			return err
		}
	}
	return nil
}

// found reports whether the head, once known, holds an item.
func (r *itemRead) found() bool { return r.value != nil }

// size returns the encoded size of the item whose head is known, 0 if
// absent: what pages and batches count against their byte limits.
func (r *itemRead) size() int {
	if r.m.count > 0 {
		return r.m.length
	}
	return len(r.value)
}

// follow starts the chunk reads of an item whose head is known, if it is
// chunked and they were not started yet.
func (l itemLoader) follow(r *itemRead) {
	if r.m.count > 0 && r.chunks == nil {
		r.chunks = startChunks(l.rt, *r.keys, r.kv, r.m)
	}
}

// load returns the item r reads (nil if there is none) and its encoding,
// waiting for whatever r has not waited for yet: the head, then the
// chunks.
func (l itemLoader) load(r *itemRead) (Item, []byte, error) {
	if err := r.wait(); err != nil {
		return nil, nil, err
	}
	if r.value == nil {
		return nil, nil, nil
	}
	enc := r.value
	if r.m.count > 0 {
		l.follow(r)
		var err error
		if enc, err = joinChunks(r.m, r.chunks); err != nil {
			return nil, nil, err
		}
	}
	it, err := DecodeItem(enc)
	if err != nil {
		return nil, nil, err
	}
	return it, enc, nil
}

// entry decodes the value of an index entry stored inline, the encoding
// of its item's projection (index.go); an entry is never chunked.
func (l itemLoader) entry(value []byte) (Item, error) { return DecodeItem(value) }

// walk starts reading the next batch of a walk over every item of a
// table in key order (a backfill, the counting pass): at most limit
// items after the one whose packed key values are after (from the first
// if after is empty), and no more once their encoded size reaches
// maxBytes. The item heads are one range read, conflicting with writes
// of those items; the chunks of every chunked item are started before
// any is waited on. full reports that the walk did not reach the end of
// the table. Load each read with load.
func (l itemLoader) walk(keys *tableKeys, after []byte, limit, maxBytes int) (reads []itemRead, full bool, err error) {
	begin, end := keys.items.FDBRangeKeys()
	if len(after) > 0 {
		begin = keys.itemKey(next(after))
	}
	heads, err := l.rt.GetRange(fdb.KeyRange{Begin: begin, End: end}, fdb.RangeOptions{Limit: limit, Mode: fdb.StreamingModeWantAll}).GetSliceWithError()
	if err != nil {
		return nil, false, err
	}
	reads = make([]itemRead, 0, len(heads))
	size := 0
	full = len(heads) == limit
	for _, h := range heads {
		kv, err := keys.splitItemKey(h.Key)
		if err != nil {
			return nil, false, err
		}
		r, err := l.row(keys, kv, h.Value)
		if err != nil {
			return nil, false, err
		}
		l.follow(&r)
		reads = append(reads, r)
		if size += r.size(); size >= maxBytes {
			return reads, true, nil
		}
	}
	return reads, full, nil
}
