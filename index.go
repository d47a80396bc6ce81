package fdyno

import (
	"bytes"
	"slices"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// index.go: local and global secondary indexes that are never stale.
//
// Every index of a table (LSIs, and GSIs whether ACTIVE or CREATING) has,
// for each base item that holds its key attributes with valid values, one
// entry (keys.go):
//
//	x/<index>/<hashValue>…[/<sortValue>…]/<basePK>  →  value
//
// written by writeItem (write.go) in the transaction that writes the base
// item, so an index never disagrees with its table. The value is the
// entry's projection (ALL: the item; KEYS_ONLY: the table and index keys;
// INCLUDE: those and the NonKeyAttributes the item has) in the item codec,
// when that encoding is at most indexInlineMax bytes; otherwise it is the
// one-byte indexRefMarker, and a Query on the index reads the base item in
// its own transaction and projects it, which is as consistent. This keeps
// every entry under FoundationDB's 100 KB value limit (an ALL projection
// of a 400 KB item does not fit) and an index write small.
//
// Invariants, checked after every test (helpers_test.go, tableProblems):
//
//  1. An ACTIVE index's entries are exactly indexEntry of every base item:
//     no missing, stale or orphan entry, byte for byte.
//  2. A CREATING index's entries are a subset of those, and include those
//     of every base item up to its backfill cursor (backfill.go).
//  3. No entry exists under x/ for an index that is not in the schema.
//
// Sparse: an item lacking an index key attribute, or holding one of the
// wrong type or an invalid key value (possible only for items written
// before a GSI was added; writes validate index keys, item_ops.go), has no
// entry in that index.
const (
	// indexInlineMax is the longest projection stored in an index entry;
	// a longer one is replaced by indexRefMarker. A constant, not the
	// handle's chunk threshold, so that an entry is a function of the item
	// alone whatever the handle.
	indexInlineMax = DefaultChunkThreshold
	// indexRefMarker is the value of an entry whose projection is read
	// from the base item. Codec encodings start with codecVersion (0x01)
	// and manifests with 0x81, so it is never mistaken for either.
	indexRefMarker = 0x82
)

// checkIndexKeySizes refuses an item whose value of an index key
// attribute is longer than a key value may be (2048 bytes for a partition
// key, 1024 for a sort key): it would be an index key violation, which
// DynamoDB refuses on write (a backfill skips such items instead). The
// table's key values were checked as such; of them only the partition
// key, as an index sort attribute (as the last sort attribute of a
// multi-attribute key often is), has a stricter limit here, which refuses
// the write when the item holds the index's other key attributes: it
// would be an entry of the index, which could not hold it.
func checkIndexKeySizes(op string, it Item, st *tableState) error {
	for _, ix := range st.indexes {
		for i, a := range ix.keyAttrs() {
			v, ok := it[a.Name]
			isHash := i < len(ix.hash)
			if !ok || v.typ != a.Type || a.Name == st.rng.Name || a.Name == st.hash.Name && (isHash || !ix.holdsKeys(it)) {
				continue // absent, or checked as a table key or index key type
			}
			if err := checkKeyValue(a.Name, v, a.Type, isHash); err != nil {
				ve := err.(*ValidationError)
				ve.Op, ve.Reason = op, ve.Reason+" IndexName: "+ix.name
				return ve
			}
		}
	}
	return nil
}

// holdsKeys reports whether it holds every key attribute of the index
// with its declared type.
func (ix *indexDef) holdsKeys(it Item) bool {
	for _, a := range ix.keyAttrs() {
		if v, ok := it[a.Name]; !ok || v.typ != a.Type {
			return false
		}
	}
	return true
}

// isKey reports whether name is a key attribute of the index or table.
func (ix *indexDef) isKey(st *tableState, name string) bool {
	return ix.isIndexKey(name) || name == st.hash.Name || st.rng.Name != "" && name == st.rng.Name
}

// isIndexKey reports whether name is a key attribute of the index.
func (ix *indexDef) isIndexKey(name string) bool {
	return slices.ContainsFunc(ix.attrs, func(a keyAttr) bool { return a.Name == name })
}

// projects reports whether the index's entries hold attribute name.
func (ix *indexDef) projects(st *tableState, name string) bool {
	return ix.proj.ProjectionType == ProjectionTypeAll || ix.isKey(st, name) || ix.include[name]
}

// project returns the attributes of it that the index projects.
func (ix *indexDef) project(st *tableState, it Item) Item {
	if ix.proj.ProjectionType == ProjectionTypeAll {
		return it
	}
	out := make(Item, len(ix.include)+4)
	for name, v := range it {
		if ix.projects(st, name) {
			out[name] = v
		}
	}
	return out
}

// keyValues returns the packed index key values of it, partition values
// then sort values in key schema order, or ok false when it is not
// indexed: an index key attribute is absent or not a valid key value of
// its declared type (index_keys.go, rule 2).
func (ix *indexDef) keyValues(it Item) (ikv []byte, ok bool) {
	var buf [MaxIndexHashKeyAttributes + MaxIndexRangeKeyAttributes]Value
	vs := buf[:0]
	for i, a := range ix.keyAttrs() {
		v, found := it[a.Name]
		if !found || checkKeyValue(a.Name, v, a.Type, i < len(ix.hash)) != nil {
			return nil, false
		}
		vs = append(vs, v)
	}
	ikv, err := packKeyValues(vs...)
	return ikv, err == nil
}

// entryKey returns the key of it's entry in the index (it has packed base
// key values kv), or nil when it is not indexed. tooLarge reports a key
// over FoundationDB's limit, which is not indexed either.
func (ix *indexDef) entryKey(it Item, kv []byte) (key fdb.Key, tooLarge bool) {
	if it == nil {
		return nil, false
	}
	ikv, ok := ix.keyValues(it)
	if !ok {
		return nil, false
	}
	key = indexKey(ix.prefix, append(ikv, kv...))
	if len(key) > maxKeySize {
		return nil, true
	}
	return key, false
}

// entryValue returns the value of it's entry: its projection's encoding,
// or indexRefMarker when that is longer than indexInlineMax. enc, if not
// nil, is the encoding of it.
func (ix *indexDef) entryValue(st *tableState, it Item, enc []byte) ([]byte, error) {
	if ix.proj.ProjectionType != ProjectionTypeAll || enc == nil {
		var err error
		if enc, err = EncodeItem(ix.project(st, it)); err != nil {
			return nil, err
		}
	}
	if len(enc) > indexInlineMax {
		return []byte{indexRefMarker}, nil
	}
	return enc, nil
}

// indexMutation is one index entry write: a Set when value is not nil,
// else a Clear.
type indexMutation struct {
	key   fdb.Key
	value []byte
}

// indexWrites returns the entry writes of change c (its new item encoded
// as c.enc): for each index, the old entry is cleared if the new item
// has no entry or one under another key, and the new entry is set unless
// the old one is identical. Entries are computed before anything is
// written, so an error leaves the transaction untouched.
func indexWrites(c itemChange) ([]indexMutation, error) {
	if !c.st.hasIndexes() {
		return nil, nil
	}
	if !c.oldKnown {
		return nil, &CorruptError{What: "write", Reason: "an indexed table's write did not read the old item"}
	}
	var muts []indexMutation
	for _, ix := range c.st.indexes {
		oldKey, _ := ix.entryKey(c.old, c.kv)
		newKey, tooLarge := ix.entryKey(c.new, c.kv)
		if tooLarge {
			return nil, &ValidationError{Reason: "the key of the item's entry in index " + ix.name + " exceeds FoundationDB's 10,000-byte key limit"}
		}
		if oldKey != nil && !bytes.Equal(oldKey, newKey) {
			muts = append(muts, indexMutation{key: oldKey})
		}
		if newKey == nil {
			continue
		}
		if part := ix.partitionEntry(c.st, oldKey, newKey); part != nil {
			muts = append(muts, indexMutation{key: part, value: []byte{}})
		}
		value, err := ix.entryValue(c.st, c.new, c.enc)
		if err != nil {
			return nil, err
		}
		if oldKey != nil && bytes.Equal(oldKey, newKey) && ix.proj.ProjectionType != ProjectionTypeAll {
			// Same key: skip the set if the small projection is unchanged.
			// (Any change of an item changes its ALL projection.)
			oldValue, err := ix.entryValue(c.st, c.old, nil)
			if err == nil && bytes.Equal(oldValue, value) {
				continue
			}
		}
		muts = append(muts, indexMutation{key: newKey, value: value})
	}
	return muts, nil
}

// applyIndexWrites performs the mutations indexWrites returned.
func applyIndexWrites(tr fdb.Transaction, muts []indexMutation) {
	for _, m := range muts {
		if m.value == nil {
			tr.Clear(m.key)
		} else {
			tr.Set(m.key, m.value)
		}
	}
}
