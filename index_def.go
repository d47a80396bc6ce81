package fdyno

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// index_def.go: a table's secondary indexes as its cached state holds
// them (table_state.go): their definitions and states, what DescribeTable
// reports of them, and the backfill progress of a CREATING index
// (backfill.go walks it; index.go writes the entries).

// indexDef is one index of a table state, ready for writes and reads.
type indexDef struct {
	name     string
	local    bool
	building bool // a GSI in state CREATING
	// hash and rng are the index's partition and sort key attributes in
	// key schema order: one and at most one for an LSI, 1–4 and 0–4 for a
	// GSI (index_keys.go).
	hash, rng []keyAttr
	// attrs is hash then rng, the order of their values in an entry key;
	// hash and rng are its two parts.
	attrs   []keyAttr
	proj    Projection
	include map[string]bool // INCLUDE's NonKeyAttributes
	prefix  fdb.Key         // x/<name>/; nil in a state without keys
	unique  bool            // a unique GSI (unique.go)
	parts   partitionDir    // p/<name>/, its partition directory (segment.go)
}

// newIndexDefs returns the index definitions of schema s, all ACTIVE
// until markBuilding says otherwise.
func newIndexDefs(keys tableKeys, s TableSchema) []*indexDef {
	types := map[string]Type{}
	for _, d := range s.AttributeDefinitions {
		types[d.AttributeName] = scalarType(d.AttributeType)
	}
	var defs []*indexDef
	add := func(name string, local bool, ks []KeySchemaElement, p Projection, unique bool) {
		ix := &indexDef{name: name, local: local, proj: p, unique: unique}
		attrs, n := splitKeySchema(ks, types)
		ix.attrs, ix.hash, ix.rng = attrs, attrs[:n:n], attrs[n:]
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
		add(ix.IndexName, true, ix.KeySchema, ix.Projection, false)
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		add(ix.IndexName, false, ix.KeySchema, ix.Projection, ix.Unique)
	}
	return defs
}

// markBuilding marks the GSIs named in building as CREATING. It is part
// of building a state, before it is published (table_state.go, invariant 1).
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
	return len(ix.attrs)
}

// keyAttrs returns the index's key attributes, partition then sort, in
// the order of their values in an entry key.
func (ix *indexDef) keyAttrs() []keyAttr {
	return ix.attrs
}

// backfillCursorVersion is the first byte of a backfill cursor.
const backfillCursorVersion = 0x01

// backfillCursor is the value at b/<index>:
//
//	0x01 | items walked: uvarint | packed key values of the last item walked
//
// The key is empty before the first batch.
type backfillCursor struct {
	items int64
	kv    []byte
}

func (c backfillCursor) encode() []byte {
	b := binary.AppendUvarint([]byte{backfillCursorVersion}, uint64(c.items))
	return append(b, c.kv...)
}

// decodeBackfillCursor decodes a backfill cursor, refusing anything
// encode cannot produce with a *CorruptError.
func decodeBackfillCursor(raw []byte) (backfillCursor, error) {
	fail := func(reason string) (backfillCursor, error) {
		return backfillCursor{}, &CorruptError{What: "backfill cursor", Reason: reason}
	}
	if len(raw) < 2 || raw[0] != backfillCursorVersion {
		return fail("missing or unknown format")
	}
	n, w := binary.Uvarint(raw[1:])
	if w <= 0 || n > 1<<62 {
		return fail("bad item count")
	}
	kv := raw[1+w:]
	if err := checkTuple(kv); err != nil {
		return fail("bad key")
	}
	c := backfillCursor{items: int64(n), kv: bytes.Clone(kv)}
	if !bytes.Equal(c.encode(), raw) {
		return fail("not in canonical form")
	}
	return c, nil
}

// clearIndex clears everything index name holds: its entries, its
// partition directory and its counters (counts.go).
func clearIndex(tr fdb.Transaction, st *tableState, name string) {
	tr.ClearRange(indexRange(st.keys.indexPrefix(name)))
	tr.ClearRange(st.keys.indexPartitions(name).all())
	tr.ClearRange(st.keys.indexCountRange(name))
}
