package fdyno

import (
	"bytes"
	"errors"
	"slices"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// tableState is a snapshot of a table's metadata, valid while FoundationDB's
// metadata version equals mv.
//
// Invariants:
//
//  1. A tableState is immutable once published in Table.state.
//  2. keys, schema and the key attributes describe the table as it was at
//     a read version at which the metadata version was mv; mv is nil when
//     it could not be read (in a transaction that itself changed it), and
//     such a state is reloaded by every operation.
type tableState struct {
	mv     []byte
	keys   tableKeys
	schema TableSchema
	hash   keyAttr
	rng    keyAttr // Name "" if the table has no sort key
	// indexKeys are the non-key attributes that are index keys, each
	// once with its declared type and the first index using it, for write
	// validation; index by index, each index's in key schema order: the
	// order writes check them in, so that an item with several mistyped
	// ones always gets one answer.
	indexKeys []indexKeyAttr
	// indexes are the table's LSIs and GSIs (index_def.go).
	indexes []*indexDef
	// cursorKey authenticates the table's cursors (cursor.go).
	cursorKey []byte
	// format is the table's metadata format (tableMeta.FormatVersion);
	// tables of format 2 and later keep the partition directory
	// (segment.go).
	format int
	// counted: every write keeps the table's counters (counts.go).
	counted bool
	// counting: the counting pass (counts_build.go) is under way; a
	// write keeps the counters only of a key the pass has passed.
	counting bool
	// capture is set while a backup takes the table's change log: every
	// write then logs its item (backup_log.go).
	capture bool
}

type indexKeyAttr struct {
	name  string
	typ   Type
	index string
}

// (and no error) if tr already changed it and so cannot read it
// (accessed_unreadable, 1036).
func readMetadataVersion(rt fdb.ReadTransaction) ([]byte, error) {
	return metadataVersionOf(rt.Snapshot().Get(metadataVersionKey))
}

func metadataVersionOf(f fdb.FutureByteSlice) ([]byte, error) {
	mv, err := f.Get()
	if err != nil {
		var fe fdb.Error
		if errors.As(err, &fe) && fe.Code == 1036 {
			return nil, nil
		}
		return nil, err
	}
	if mv == nil {
		mv = []byte{} // never bumped: still a known version
	}
	return mv, nil
}

// load reads the table's directory and metadata in rt.
func (t *Table) load(rt fdb.ReadTransaction, mv []byte) (*tableState, error) {
	dir, err := directory.Open(rt, t.path, nil)
	if errors.Is(err, directory.ErrDirNotExists) {
		return nil, tableNotFound(t.name)
	}
	if err != nil {
		return nil, err
	}
	keys := newTableKeys(dir)
	raw, err := rt.Get(keys.meta).Get()
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, &TableError{Table: t.name, Err: ErrResourceInUse,
			Reason: "directory " + strconv.Quote(joinPath(t.path)) + " exists but is not an fdyno table"}
	}
	meta, err := decodeMeta(raw, t.name)
	if err != nil {
		return nil, err
	}
	st := newTableState(mv, keys, meta.schema)
	st.markBuilding(meta.building)
	st.cursorKey = meta.cursorKey
	st.format = meta.format
	st.counted = meta.counted
	st.counting = meta.counting
	st.capture = len(meta.captures) > 0
	return st, nil
}

func newTableState(mv []byte, keys tableKeys, s TableSchema) *tableState {
	st := &tableState{mv: mv, keys: keys, schema: s}
	types := map[string]Type{}
	for _, d := range s.AttributeDefinitions {
		types[d.AttributeName] = scalarType(d.AttributeType)
	}
	for _, k := range s.KeySchema {
		a := keyAttr{Name: k.AttributeName, Type: types[k.AttributeName]}
		if k.KeyType == KeyTypeHash {
			st.hash = a
		} else {
			st.rng = a
		}
	}
	addIndex := func(name string, ks []KeySchemaElement) {
		for _, k := range ks {
			if k.AttributeName == st.hash.Name || k.AttributeName == st.rng.Name {
				continue
			}
			if !slices.ContainsFunc(st.indexKeys, func(a indexKeyAttr) bool { return a.name == k.AttributeName }) {
				st.indexKeys = append(st.indexKeys, indexKeyAttr{name: k.AttributeName, typ: types[k.AttributeName], index: name})
			}
		}
	}
	for _, ix := range s.LocalSecondaryIndexes {
		addIndex(ix.IndexName, ix.KeySchema)
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		addIndex(ix.IndexName, ix.KeySchema)
	}
	st.indexes = newIndexDefs(keys, s)
	return st
}

// current returns the table's state as of rt's read version, given the
// metadata-version future mvf started in rt. It reuses the cached state
// when the metadata version is unchanged and reloads it otherwise.
func (t *Table) current(rt fdb.ReadTransaction, mvf fdb.FutureByteSlice) (*tableState, error) {
	mv, err := metadataVersionOf(mvf)
	if err != nil {
		return nil, err
	}
	st := t.state.Load()
	if st != nil && st.mv != nil && mv != nil && bytes.Equal(st.mv, mv) {
		return st, nil
	}
	st, err = t.load(rt, mv)
	if err != nil {
		return nil, err
	}
	// Publishing the state is safe even if the transaction later fails:
	// the state is what the table was at a version whose metadata version
	// was mv, and a state is only used while the metadata version still
	// equals mv.
	if mv != nil {
		t.state.Store(st)
	}
	return st, nil
}

// tokenRootCache is the token keys of a table's root directory, as
// opened while the table's cached state was st: opening a directory costs
// a read per path element, one after another, so TransactWrite opens the
// root once per metadata version (like the table's own directory) and
// reads the token in the wave of the item reads.
type tokenRootCache struct {
	st   *tableState
	keys tokenKeys
}

// tableKeyAttrs returns the table's key attributes as lists, the form an
// index's take: the hash key, and the sort key if there is one.
func (st *tableState) tableKeyAttrs() (hash, rng []keyAttr) {
	hash = []keyAttr{st.hash}
	if st.rng.Name != "" {
		rng = []keyAttr{st.rng}
	}
	return hash, rng
}
