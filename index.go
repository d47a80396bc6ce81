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
//	x/<index>/<hashValue>[/<sortValue>]/<basePK>  →  value
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

// IndexStatus is the state of a global secondary index, as DescribeTable
// reports it.
type IndexStatus string

// The index states fdyno reports. A GSI is CREATING from UpdateTable until
// its backfill completes, then ACTIVE. Deleting a GSI removes it and all
// its entries in one transaction, so no DELETING state is ever observed.
const (
	IndexStatusCreating IndexStatus = "CREATING"
	IndexStatusActive   IndexStatus = "ACTIVE"
)

// GlobalSecondaryIndexDescription is the state of one GSI in a
// [TableDescription].
type GlobalSecondaryIndexDescription struct {
	IndexName   string
	IndexStatus IndexStatus
	// Backfilling is true while the index is being built (CREATING).
	Backfilling bool
	// BackfillItems is the number of base items the backfill has walked
	// so far; 0 for an ACTIVE index.
	BackfillItems int64
}

// indexDef is one index of a table state, ready for writes and reads.
type indexDef struct {
	name      string
	local     bool
	building  bool // a GSI in state CREATING
	hash, rng keyAttr
	proj      Projection
	include   map[string]bool // INCLUDE's NonKeyAttributes
	prefix    fdb.Key         // x/<name>/; nil in a state without keys
	parts     partitionDir    // p/<name>/, its partition directory (segment.go)
}

// newIndexDefs returns the index definitions of schema s, all ACTIVE
// until markBuilding says otherwise.
func newIndexDefs(keys tableKeys, s TableSchema) []*indexDef {
	types := map[string]Type{}
	for _, d := range s.AttributeDefinitions {
		types[d.AttributeName] = scalarType(d.AttributeType)
	}
	var defs []*indexDef
	add := func(name string, local bool, ks []KeySchemaElement, p Projection) {
		ix := &indexDef{name: name, local: local, proj: p}
		ix.hash = keyAttr{Name: ks[0].AttributeName, Type: types[ks[0].AttributeName]}
		if len(ks) > 1 {
			ix.rng = keyAttr{Name: ks[1].AttributeName, Type: types[ks[1].AttributeName]}
		}
		if p.ProjectionType == ProjectionTypeInclude {
			ix.include = map[string]bool{}
			for _, a := range p.NonKeyAttributes {
				ix.include[a] = true
			}
		}
		if keys.index != nil {
			ix.prefix = keys.indexPrefix(name)
			ix.parts = keys.indexPartitions(name)
		}
		defs = append(defs, ix)
	}
	for _, ix := range s.LocalSecondaryIndexes {
		add(ix.IndexName, true, ix.KeySchema, ix.Projection)
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		add(ix.IndexName, false, ix.KeySchema, ix.Projection)
	}
	return defs
}

// markBuilding marks the GSIs named in building as CREATING. It is part
// of building a state, before it is published (table.go, invariant 1).
func (st *tableState) markBuilding(building []string) {
	for _, ix := range st.indexes {
		ix.building = !ix.local && slices.Contains(building, ix.name)
	}
}

// building returns the names of the GSIs being built, in name order.
func (st *tableState) building() []string {
	var names []string
	for _, ix := range st.indexes {
		if ix.building {
			names = append(names, ix.name)
		}
	}
	slices.Sort(names)
	return names
}

// hasIndexes reports whether the table has any secondary index, whose
// entries writeItem maintains from the old and new item.
func (st *tableState) hasIndexes() bool { return len(st.indexes) > 0 }

// index returns the index named name, or nil.
func (st *tableState) index(name string) *indexDef {
	for _, ix := range st.indexes {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// readableIndex returns the index a Query or Scan names, with DynamoDB's
// ValidationException for an index that does not exist or is not active,
// and for a consistent read of a GSI.
func (st *tableState) readableIndex(op, name string, consistent bool) (*indexDef, error) {
	if name == "" {
		return nil, nil
	}
	ix := st.index(name)
	switch {
	case ix == nil:
		return nil, &ValidationError{Op: op, Reason: "The table does not have the specified index: " + name}
	case ix.building:
		return nil, &ValidationError{Op: op, Reason: "Cannot read from backfilling global secondary index: " + name}
	case consistent && !ix.local:
		// fdyno's GSIs are consistent, but DynamoDB refuses the flag.
		return nil, &ValidationError{Op: op, Reason: "Consistent reads are not supported on global secondary indexes"}
	}
	return ix, nil
}

// checkIndexKeySizes refuses an item whose value of an index key
// attribute is longer than a key value may be (2048 bytes for a partition
// key, 1024 for a sort key): it would be an index key violation, which
// DynamoDB refuses on write (a backfill skips such items instead).
func checkIndexKeySizes(op string, it Item, st *tableState) error {
	for _, ix := range st.indexes {
		for i, a := range []keyAttr{ix.hash, ix.rng}[:ix.indexKeyCount()] {
			v, ok := it[a.Name]
			if !ok || v.typ != a.Type || (a.Name == st.hash.Name || a.Name == st.rng.Name) {
				continue // absent, or checked as a table key or index key type
			}
			if err := checkKeyValue(a.Name, v, a.Type, i == 0); err != nil {
				ve := err.(*ValidationError)
				ve.Op, ve.Reason = op, ve.Reason+" IndexName: "+ix.name
				return ve
			}
		}
	}
	return nil
}

// isKey reports whether name is a key attribute of the index or table.
func (ix *indexDef) isKey(st *tableState, name string) bool {
	return name == ix.hash.Name || ix.rng.Name != "" && name == ix.rng.Name ||
		name == st.hash.Name || st.rng.Name != "" && name == st.rng.Name
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

// keyValues returns the packed index key values of it, or ok false when
// it is not indexed: an index key attribute is absent or not a valid key
// value of its declared type.
func (ix *indexDef) keyValues(it Item) (ikv []byte, ok bool) {
	hv, found := it[ix.hash.Name]
	if !found || checkKeyValue(ix.hash.Name, hv, ix.hash.Type, true) != nil {
		return nil, false
	}
	if ix.rng.Name == "" {
		ikv, err := packKeyValues(hv)
		return ikv, err == nil
	}
	rv, found := it[ix.rng.Name]
	if !found || checkKeyValue(ix.rng.Name, rv, ix.rng.Type, false) != nil {
		return nil, false
	}
	ikv, err := packKeyValues(hv, rv)
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

// indexWrites returns the entry writes of change c, whose new item has
// encoding enc: for each index, the old entry is cleared if the new item
// has no entry or one under another key, and the new entry is set unless
// the old one is identical. Entries are computed before anything is
// written, so an error leaves the transaction untouched.
func indexWrites(c itemChange, enc []byte) ([]indexMutation, error) {
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
		value, err := ix.entryValue(c.st, c.new, enc)
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

// describeIndexes returns the state of the table's GSIs, reading the
// backfill progress of those being built.
func (st *tableState) describeIndexes(rt fdb.ReadTransaction) ([]GlobalSecondaryIndexDescription, error) {
	var out []GlobalSecondaryIndexDescription
	for _, ix := range st.indexes {
		if ix.local {
			continue
		}
		d := GlobalSecondaryIndexDescription{IndexName: ix.name, IndexStatus: IndexStatusActive}
		if ix.building {
			d.IndexStatus, d.Backfilling = IndexStatusCreating, true
			raw, err := rt.Get(st.keys.backfillKey(ix.name)).Get()
			if err != nil {
				return nil, err
			}
			bp, err := decodeBackfillCursor(raw)
			if err != nil {
				return nil, err
			}
			d.BackfillItems = bp.items
		}
		out = append(out, d)
	}
	return out, nil
}

// indexKeyCount returns the number of key values of the index.
func (ix *indexDef) indexKeyCount() int {
	if ix.rng.Name == "" {
		return 1
	}
	return 2
}
