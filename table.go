package fdyno

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// Table is a handle on one table. It caches the table's schema and checks,
// inside every operation's transaction, that the cache is current (see
// [Open]).
//
// A Table is safe for concurrent use by multiple goroutines.
type Table struct {
	name           string
	path           []string
	maxItemSize    int
	chunkThreshold int
	clock          func() time.Time // WithClock (ttl.go); nil is time.Now
	state          *atomic.Pointer[tableState]
	// tokenRoot caches the ClientRequestToken keys under the table's root
	// directory (transact_write.go).
	tokenRoot *atomic.Pointer[tokenRootCache]
	// guard, when not nil, is asked before every item the handle's
	// operations touch (access.go); a guarded handle shares the caches of
	// the handle it was made from.
	guard AccessGuard
}

// newTable returns a handle with fresh caches.
func newTable(name string, path []string) *Table {
	return &Table{name: name, path: path, state: new(atomic.Pointer[tableState]), tokenRoot: new(atomic.Pointer[tokenRootCache])}
}

// Open returns a handle on table name, creating it first when
// [WithSchema] is given and the table does not exist. Creating a table
// and bumping FoundationDB's metadata version happen in t's transaction.
//
// Errors: [ErrValidation] for a bad name, schema or option;
// [ErrResourceNotFound] if the table does not exist and no schema is given;
// [ErrResourceInUse] if it exists with a schema other than the one given.
//
// Every operation through the handle reads `\xff/metadataVersion` in its
// own transaction and reloads the schema when it changed, so a table
// deleted, recreated or re-indexed through another handle or process is
// never acted on with a stale schema. (A Get that finds its item skips
// that read: the item proves the cached table still exists; see
// Table.read.)
//
// With an fdb.Database, Open runs its own transaction, which may be
// retried. See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html.
func Open(t fdb.Transactor, name string, opts ...Option) (*Table, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkTableName("TableName", name); err != nil {
		return nil, err
	}
	var want *tableMeta
	if o.schema != nil {
		if err := o.schema.validate(); err != nil {
			return nil, err
		}
		if err := checkSettings("CreateTable", o.settings); err != nil {
			return nil, err
		}
		want = &tableMeta{format: metaFormatVersion, name: name, schema: o.schema.canonical(), settings: o.settings, counted: !o.schema.WithoutCounts}
	}
	tbl := newTable(name, tablePath(o.root, name))
	tbl.maxItemSize, tbl.chunkThreshold, tbl.clock, tbl.guard = o.maxItemSize, o.chunkThreshold, o.clock, o.guard
	if want != nil {
		want.created = tbl.now().UTC()
	}
	st, err := Transact(t, func(tr fdb.Transaction) (*tableState, error) {
		return tbl.openTx(tr, want)
	})
	if err != nil {
		return nil, err
	}
	tbl.state.Store(st)
	return tbl, nil
}

func (t *Table) openTx(tr fdb.Transaction, want *tableMeta) (*tableState, error) {
	mv, mvErr := readMetadataVersion(tr)
	if mvErr != nil {
		return nil, mvErr
	}
	st, err := t.load(tr, mv)
	if err == nil {
		if want != nil && !sameSchema(st.schema, want.schema) {
			return nil, &TableError{Table: t.name, Err: ErrResourceInUse,
				Reason: "Table already exists with a different schema: " + t.name}
		}
		return st, nil
	}
	if !errors.Is(err, ErrResourceNotFound) || want == nil {
		return nil, err
	}
	dir, err := directory.Create(tr, t.path, nil)
	if err != nil {
		return nil, allocationError(err)
	}
	created := *want
	if created.cursorKey, err = newCursorKey(); err != nil {
		return nil, err
	}
	if created.tableID, err = newTableID(); err != nil {
		return nil, err
	}
	keys := newTableKeys(dir)
	if err := putMeta(tr, keys, &created); err != nil {
		return nil, err
	}
	bumpMetadataVersion(tr)
	// The metadata version changes at commit and cannot be read again in
	// this transaction, so the state is marked for reloading.
	st = newTableState(nil, keys, want.schema)
	st.cursorKey = created.cursorKey
	st.format = created.format
	st.counted = created.counted
	return st, nil
}

// allocationError returns err, or the fdb.Error it reports. The directory
// layer of the Go bindings turns a FoundationDB error met while allocating
// a prefix (a transaction_too_old read, say) into plain text, "unable to
// allocate new directory prefix (FoundationDB error code 1007 (...))",
// which Transact would not retry; recovering the code lets the retry loop
// decide as it would for the error itself.
func allocationError(err error) error {
	var fe fdb.Error
	if errors.As(err, &fe) {
		return err
	}
	msg := err.Error()
	const marker = "FoundationDB error code "
	if !strings.HasPrefix(msg, "unable to allocate new directory prefix (") {
		return err
	}
	i := strings.Index(msg, marker)
	if i < 0 {
		return err
	}
	digits := msg[i+len(marker):]
	if j := strings.IndexByte(digits, ' '); j >= 0 {
		digits = digits[:j]
	}
	code, convErr := strconv.Atoi(digits)
	if convErr != nil || code <= 0 {
		return err
	}
	return fdb.Error{Code: code}
}

func (t *Table) Name() string { return t.name }

// Describe returns the table's name and schema as of rt's read version.
//
// Errors: [ErrResourceNotFound] if the table was deleted. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTable.html.
func (t *Table) Describe(rt fdb.ReadTransactor) (*TableDescription, error) {
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*TableDescription, error) {
		st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
		if err != nil {
			return nil, err
		}
		counts := st.describeCounts(tr) // counts.go
		meta, err := readMeta(tr, st.keys, t.name)
		if err != nil {
			return nil, err
		}
		gsis, err := st.describeIndexes(tr)
		if err != nil {
			return nil, err
		}
		d := t.description(st, meta, gsis)
		if err := counts(d); err != nil {
			return nil, err
		}
		return d, nil
	})
}

// description is the TableDescription of the table in state st with
// metadata meta.
func (t *Table) description(st *tableState, meta *tableMeta, gsis []GlobalSecondaryIndexDescription) *TableDescription {
	return &TableDescription{TableName: t.name, TableSchema: st.schema.clone(), Directory: slices.Clone(t.path),
		GlobalSecondaryIndexDescriptions: gsis, TableID: meta.tableID, CreationDateTime: meta.created,
		StreamLabel: meta.streamLabel, StreamStartAfter: meta.streamStartAfter, DisabledStreams: slices.Clone(meta.disabledStreams),
		Settings: slices.Clone(meta.settings)}
}

// loadMeta reads the table's state and metadata in tr, for a change of
// the metadata.
func (t *Table) loadMeta(tr fdb.Transaction) (*tableState, *tableMeta, error) {
	st, err := t.load(tr, nil)
	if err != nil {
		return nil, nil, err
	}
	meta, err := readMeta(tr, st.keys, t.name)
	if err != nil {
		return nil, nil, err
	}
	return st, meta, nil
}

// ListTables returns the names of the tables under the root ([WithRoot]),
// in byte order. Options other than WithRoot are ignored. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTables.html.
func ListTables(rt fdb.ReadTransactor, opts ...Option) ([]string, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return ReadTransact(rt, func(tr fdb.ReadTransaction) ([]string, error) {
		ok, err := directory.Exists(tr, o.root)
		if err != nil || !ok {
			return []string{}, err
		}
		names, err := directory.List(tr, o.root)
		// A table being restored (restore.go) is not a table yet.
		return slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, restorePrefix) }), err
	})
}

// replaceSchema stores schema s for the table in tr and bumps the metadata
// version, so every handle reloads it on its next operation. It is the
// schema-change step of index creation and deletion (updatetable.go) and
// of a backfill's completion (backfill.go); building names the GSIs left
// in state CREATING.
func (t *Table) replaceSchema(tr fdb.Transaction, s TableSchema, building ...string) error {
	if err := s.validate(); err != nil {
		return err
	}
	st, old, err := t.loadMeta(tr)
	if err != nil {
		return err
	}
	if !sameKeySchema(st.schema, s) {
		return &ValidationError{Op: "UpdateTable", Reason: "the table's key schema cannot change"}
	}
	if s.StreamShards != 0 && s.StreamShards < st.schema.StreamShards || s.StreamShards == 0 && st.schema.StreamShards > 1 {
		// Readers merge the shards the schema names: fewer would hide records.
		return &ValidationError{Op: "UpdateTable", Reason: "StreamShards cannot decrease"}
	}
	meta := *old
	meta.schema, meta.building = s.canonical(), building
	if err := putMeta(tr, st.keys, &meta); err != nil {
		return err
	}
	bumpMetadataVersion(tr)
	return nil
}

func sameKeySchema(a, b TableSchema) bool {
	if len(a.KeySchema) != len(b.KeySchema) {
		return false
	}
	for i := range a.KeySchema {
		if a.KeySchema[i] != b.KeySchema[i] {
			return false
		}
	}
	na, nb := newTableState(nil, tableKeys{}, a), newTableState(nil, tableKeys{}, b)
	return na.hash == nb.hash && na.rng == nb.rng
}

func joinPath(p []string) string {
	b := []byte{}
	for i, s := range p {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, s...)
	}
	return string(b)
}

// now is the handle's clock ([WithClock]).
func (t *Table) now() time.Time {
	if t.clock == nil {
		return time.Now()
	}
	return t.clock()
}
