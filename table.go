package fdyno

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// Table and index limits (DynamoDB's service quotas and API reference).
const (
	// MinTableNameLength and MaxTableNameLength bound table and index
	// names, which use only a-z, A-Z, 0-9, '_', '-' and '.'.
	MinTableNameLength = 3
	MaxTableNameLength = 255
	// MaxKeyAttributeNameLength is the longest name of a table or index
	// key attribute, and of an INCLUDE projection attribute, in bytes.
	MaxKeyAttributeNameLength = 255
	// MaxLocalSecondaryIndexes is the most LSIs a table may have.
	MaxLocalSecondaryIndexes = 5
	// MaxGlobalSecondaryIndexes is DynamoDB's default GSI quota.
	MaxGlobalSecondaryIndexes = 20
	// MaxIndexNonKeyAttributes bounds the NonKeyAttributes of one INCLUDE
	// projection; MaxTotalNonKeyAttributes their sum over all indexes.
	MaxIndexNonKeyAttributes = 20
	MaxTotalNonKeyAttributes = 100
)

// KeyType is the role of a key attribute: HASH (partition key) or RANGE
// (sort key).
type KeyType string

// The key types.
const (
	KeyTypeHash  KeyType = "HASH"
	KeyTypeRange KeyType = "RANGE"
)

// ScalarAttributeType is the type of a key attribute: S, N or B.
type ScalarAttributeType string

// The key attribute types.
const (
	ScalarAttributeTypeS ScalarAttributeType = "S"
	ScalarAttributeTypeN ScalarAttributeType = "N"
	ScalarAttributeTypeB ScalarAttributeType = "B"
)

// ProjectionType says which attributes a secondary index copies.
type ProjectionType string

// The projection types.
const (
	ProjectionTypeAll      ProjectionType = "ALL"
	ProjectionTypeKeysOnly ProjectionType = "KEYS_ONLY"
	ProjectionTypeInclude  ProjectionType = "INCLUDE"
)

// StreamViewType says what a change record holds; empty means no stream.
type StreamViewType string

// The stream view types.
const (
	StreamViewTypeKeysOnly        StreamViewType = "KEYS_ONLY"
	StreamViewTypeNewImage        StreamViewType = "NEW_IMAGE"
	StreamViewTypeOldImage        StreamViewType = "OLD_IMAGE"
	StreamViewTypeNewAndOldImages StreamViewType = "NEW_AND_OLD_IMAGES"
)

// KeySchemaElement is one key attribute of a table or index.
type KeySchemaElement struct {
	AttributeName string
	KeyType       KeyType
}

// AttributeDefinition declares the type of a key attribute of the table
// or of one of its indexes.
type AttributeDefinition struct {
	AttributeName string
	AttributeType ScalarAttributeType
}

// Projection says which attributes an index copies from the table.
type Projection struct {
	ProjectionType   ProjectionType
	NonKeyAttributes []string
}

// LocalSecondaryIndex is an index with the table's partition key and
// another sort key.
type LocalSecondaryIndex struct {
	IndexName  string
	KeySchema  []KeySchemaElement
	Projection Projection
}

// GlobalSecondaryIndex is an index with its own partition and sort keys.
type GlobalSecondaryIndex struct {
	IndexName  string
	KeySchema  []KeySchemaElement
	Projection Projection
}

// TableSchema is what CreateTable takes, in DynamoDB's vocabulary.
// AttributeDefinitions declares exactly the key attributes of the table
// and its indexes.
type TableSchema struct {
	KeySchema              []KeySchemaElement
	AttributeDefinitions   []AttributeDefinition
	LocalSecondaryIndexes  []LocalSecondaryIndex
	GlobalSecondaryIndexes []GlobalSecondaryIndex
	StreamViewType         StreamViewType
	TimeToLiveAttribute    string
	// StreamShards splits the stream into this many ordered ranges by the
	// items' hash keys (stream.go), 1 to MaxStreamShards; zero means 1. It
	// needs a StreamViewType.
	StreamShards int
}

// TableDescription is what DescribeTable returns.
type TableDescription struct {
	TableName string
	TableSchema
	// Directory is the table's directory-layer path.
	Directory []string
	// GlobalSecondaryIndexDescriptions holds the status of each GSI, in
	// name order (index_def.go).
	GlobalSecondaryIndexDescriptions []GlobalSecondaryIndexDescription
	// TableID is a UUID made when the table was created, and
	// CreationDateTime the time of its creation; both are empty for a
	// table created by a version of fdyno that did not keep them.
	TableID          string
	CreationDateTime time.Time
	// StreamLabel and StreamStartAfter identify the latest enabling of
	// the table's stream by UpdateTable, as DynamoDB's StreamLabel: the
	// time it was enabled (UTC, StreamLabelLayout), and a sequence number
	// that every record written since follows (DynamoDB starts a new
	// stream at each enabling). Both are empty for a stream enabled at
	// creation and never re-enabled.
	StreamLabel      string
	StreamStartAfter string
	// DisabledStreams are the streams UpdateTable disabled within
	// [DisabledStreamRetention] of the latest disabling, oldest first:
	// DynamoDB keeps a disabled stream readable for 24 hours.
	DisabledStreams []DisabledStream
	// Settings is the table's settings record ([WithSettings]), nil if it
	// has none.
	Settings []byte
	// Counts are the table's exact counts and IndexCounts each index's
	// (counts.go), as of the read; nil until the table's counters are
	// exact ([ErrCountsNotReady]). Describe fills them; the description
	// UpdateTable returns does not.
	Counts      *Counts
	IndexCounts map[string]Counts
}

// Option configures [Open], [ListTables] and [DeleteTable].
type Option func(*options)

type options struct {
	root           []string
	schema         *TableSchema
	settings       []byte // WithSettings (table_properties.go)
	maxItemSize    int
	chunkThreshold int
	clock          func() time.Time // WithClock (ttl.go); nil is time.Now
}

// WithRoot sets the directory-layer path under which tables live (default
// [DefaultRoot]). Tables under different roots never see each other.
func WithRoot(path ...string) Option {
	return func(o *options) { o.root = slices.Clone(path) }
}

// WithSchema makes [Open] create the table with schema s if it does not
// exist, and check that an existing table has exactly this schema.
func WithSchema(s TableSchema) Option {
	return func(o *options) { o.schema = &s }
}

// WithMaxItemSize sets the largest item, by [Item.Size], that the handle
// writes (default [DefaultMaxItemSize], at most [MaxItemSizeLimit]).
func WithMaxItemSize(n int) Option {
	return func(o *options) { o.maxItemSize = n }
}

// WithChunkThreshold sets the encoded size above which an item is stored
// in chunks (default [DefaultChunkThreshold]).
func WithChunkThreshold(n int) Option {
	return func(o *options) { o.chunkThreshold = n }
}

func buildOptions(opts []Option) (options, error) {
	o := options{root: []string{DefaultRoot}, maxItemSize: DefaultMaxItemSize, chunkThreshold: DefaultChunkThreshold}
	for _, opt := range opts {
		opt(&o)
	}
	switch {
	case len(o.root) == 0:
		return o, &ValidationError{Op: "Open", Reason: "the root directory path is empty"}
	case o.maxItemSize < 1 || o.maxItemSize > MaxItemSizeLimit:
		return o, &ValidationError{Op: "Open", Reason: "max item size " + strconv.Itoa(o.maxItemSize) + " is outside 1.." + strconv.Itoa(MaxItemSizeLimit)}
	case o.chunkThreshold < 1 || o.chunkThreshold > maxChunkThreshold:
		return o, &ValidationError{Op: "Open", Reason: "chunk threshold " + strconv.Itoa(o.chunkThreshold) + " is outside 1.." + strconv.Itoa(maxChunkThreshold)}
	}
	return o, nil
}

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
	// capture is set while a backup takes the table's change log: every
	// write then logs its item (backup_log.go).
	capture bool
}

type indexKeyAttr struct {
	name  string
	typ   Type
	index string
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
		want = &tableMeta{format: metaFormatVersion, name: name, schema: o.schema.canonical(), settings: o.settings, counted: true}
	}
	tbl := newTable(name, tablePath(o.root, name))
	tbl.maxItemSize, tbl.chunkThreshold, tbl.clock = o.maxItemSize, o.chunkThreshold, o.clock
	if want != nil {
		want.created = tbl.now().UTC()
	}
	st, err := transact(t, func(tr fdb.Transaction) (*tableState, error) {
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

// readMetadataVersion returns the value of `\xff/metadataVersion`, or nil
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

// Name returns the table's name.
func (t *Table) Name() string { return t.name }

// Describe returns the table's name and schema as of rt's read version.
//
// Errors: [ErrResourceNotFound] if the table was deleted. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTable.html.
func (t *Table) Describe(rt fdb.ReadTransactor) (*TableDescription, error) {
	return readTransact(rt, func(tr fdb.ReadTransaction) (*TableDescription, error) {
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
	return readTransact(rt, func(tr fdb.ReadTransaction) ([]string, error) {
		ok, err := directory.Exists(tr, o.root)
		if err != nil || !ok {
			return []string{}, err
		}
		names, err := directory.List(tr, o.root)
		// A table being restored (restore.go) is not a table yet.
		return slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, restorePrefix) }), err
	})
}

// DeleteTable removes table name and everything in it (items, chunks,
// index entries, change records) and bumps the metadata version, so the
// next operation through any handle fails with [ErrResourceNotFound].
//
// Errors: [ErrValidation] for a bad name; [ErrResourceNotFound] if there
// is no such table. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html.
func DeleteTable(t fdb.Transactor, name string, opts ...Option) error {
	o, err := buildOptions(opts)
	if err != nil {
		return err
	}
	if err := checkTableName("TableName", name); err != nil {
		return err
	}
	tbl := newTable(name, tablePath(o.root, name))
	_, err = transact(t, func(tr fdb.Transaction) (struct{}, error) {
		if _, _, err := tbl.loadMeta(tr); err != nil {
			return struct{}{}, err
		}
		if _, err := directory.Root().Remove(tr, tbl.path); err != nil {
			return struct{}{}, err
		}
		bumpMetadataVersion(tr)
		return struct{}{}, nil
	})
	return err
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

func scalarType(t ScalarAttributeType) Type {
	switch t {
	case ScalarAttributeTypeS:
		return TypeS
	case ScalarAttributeTypeN:
		return TypeN
	case ScalarAttributeTypeB:
		return TypeB
	}
	return 0
}

// checkTableName applies DynamoDB's rules for table and index names.
func checkTableName(field, name string) error {
	if len(name) < MinTableNameLength || len(name) > MaxTableNameLength {
		return &ValidationError{Path: field, Reason: field + " must be at least 3 characters long and at most 255 characters long"}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return &ValidationError{Path: field, Reason: "Value '" + name + "' at '" + field + "' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"}
		}
	}
	return nil
}

func checkKeyAttrName(field, name string) error {
	if name == "" || len(name) > MaxKeyAttributeNameLength || !utf8.ValidString(name) {
		return &ValidationError{Path: field, Reason: "key attribute names must be 1 to 255 bytes of UTF-8: " + strconv.Quote(name)}
	}
	return nil
}

// MaxStreamShards is the most stream shards a table may have
// (TableSchema.StreamShards; stream.go).
const MaxStreamShards = 256

// validate applies CreateTable's rules to s.
func (s *TableSchema) validate() error {
	fail := func(reason string) error {
		return &ValidationError{Op: "CreateTable", Reason: "One or more parameter values were invalid: " + reason}
	}
	defined := map[string]ScalarAttributeType{}
	for _, d := range s.AttributeDefinitions {
		if err := checkKeyAttrName("AttributeDefinitions", d.AttributeName); err != nil {
			return err
		}
		if scalarType(d.AttributeType) == 0 {
			return fail("Invalid AttributeType " + strconv.Quote(string(d.AttributeType)) + " for " + d.AttributeName + "; must be S, N or B")
		}
		if _, dup := defined[d.AttributeName]; dup {
			// DynamoDB's words, without the usual prefix.
			return &ValidationError{Op: "CreateTable", Reason: "Attribute Name is duplicated: " + d.AttributeName}
		}
		defined[d.AttributeName] = d.AttributeType
	}
	used := map[string]bool{}
	var usedOrder []string // the key attributes in order of first use
	// checkKeys checks a key schema: a GSI's may have multi-attribute
	// keys (index_keys.go), the table's and an LSI's may not.
	checkKeys := func(where string, ks []KeySchemaElement, gsi bool) error {
		if gsi {
			if err := checkGSIKeyShape(ks); err != nil {
				return err
			}
		} else if len(ks) < 1 || len(ks) > 2 || ks[0].KeyType != KeyTypeHash || len(ks) == 2 && ks[1].KeyType != KeyTypeRange {
			return fail(where + ": KeySchema must be one HASH key optionally followed by one RANGE key")
		}
		for _, k := range ks {
			if err := checkKeyAttrName(where, k.AttributeName); err != nil {
				return err
			}
			if _, ok := defined[k.AttributeName]; !ok {
				return undefinedKeys(ks, s.AttributeDefinitions)
			}
			if !used[k.AttributeName] {
				used[k.AttributeName] = true
				usedOrder = append(usedOrder, k.AttributeName)
			}
		}
		return repeatedKeyName(ks)
	}
	if err := checkKeys("KeySchema", s.KeySchema, false); err != nil {
		return err
	}
	names := map[string]bool{}
	total := 0
	checkIndex := func(kind, name string, ks []KeySchemaElement, p Projection) error {
		if err := checkTableName("IndexName", name); err != nil {
			return err
		}
		if names[name] {
			return fail("Duplicate index name: " + name)
		}
		names[name] = true
		if err := checkKeys(kind+" "+name, ks, kind == "GlobalSecondaryIndex"); err != nil {
			return err
		}
		switch p.ProjectionType {
		case ProjectionTypeAll, ProjectionTypeKeysOnly:
			if len(p.NonKeyAttributes) > 0 {
				return fail("ProjectionType is " + string(p.ProjectionType) + ", but NonKeyAttributes is specified")
			}
		case ProjectionTypeInclude:
			if len(p.NonKeyAttributes) == 0 || len(p.NonKeyAttributes) > MaxIndexNonKeyAttributes {
				return fail("INCLUDE projection of " + name + " needs 1 to 20 NonKeyAttributes")
			}
			for i, a := range p.NonKeyAttributes {
				if err := checkKeyAttrName("NonKeyAttributes", a); err != nil {
					return err
				}
				if slices.Contains(p.NonKeyAttributes[:i], a) {
					// DynamoDB's words for an attribute projected twice.
					return &ValidationError{Op: "CreateTable", Reason: "Cannot have two attributes with the same name"}
				}
			}
			total += len(p.NonKeyAttributes)
		default:
			return fail("Unknown ProjectionType " + strconv.Quote(string(p.ProjectionType)) + " for index " + name)
		}
		return nil
	}
	if len(s.LocalSecondaryIndexes) > MaxLocalSecondaryIndexes {
		return fail("a table may have at most 5 local secondary indexes")
	}
	for _, ix := range s.LocalSecondaryIndexes {
		if err := checkIndex("LocalSecondaryIndex", ix.IndexName, ix.KeySchema, ix.Projection); err != nil {
			return err
		}
		if len(s.KeySchema) != 2 {
			return fail("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		if len(ix.KeySchema) != 2 || ix.KeySchema[0].AttributeName != s.KeySchema[0].AttributeName {
			return fail("Index KeySchema of " + ix.IndexName + " must have the table's hash key and a range key")
		}
	}
	if len(s.GlobalSecondaryIndexes) > MaxGlobalSecondaryIndexes {
		return fail("a table may have at most 20 global secondary indexes")
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		if err := checkIndex("GlobalSecondaryIndex", ix.IndexName, ix.KeySchema, ix.Projection); err != nil {
			return err
		}
	}
	if total > MaxTotalNonKeyAttributes {
		return fail("the indexes project more than 100 NonKeyAttributes in total")
	}
	if len(used) != len(defined) {
		// DynamoDB's two texts for a definition no key uses: without
		// indexes, and with them (where it lists both sets; the
		// definitions here in request order, the keys in order of first
		// use, table key first).
		if len(s.LocalSecondaryIndexes)+len(s.GlobalSecondaryIndexes) == 0 {
			return fail("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
		defs := make([]string, len(s.AttributeDefinitions))
		for i, d := range s.AttributeDefinitions {
			defs[i] = d.AttributeName
		}
		return fail("Some AttributeDefinitions are not used. AttributeDefinitions: [" + strings.Join(defs, ", ") +
			"], keys used: [" + strings.Join(usedOrder, ", ") + "]")
	}
	switch s.StreamViewType {
	case "", StreamViewTypeKeysOnly, StreamViewTypeNewImage, StreamViewTypeOldImage, StreamViewTypeNewAndOldImages:
	default:
		return fail("Unknown StreamViewType " + strconv.Quote(string(s.StreamViewType)))
	}
	if s.StreamShards < 0 || s.StreamShards > MaxStreamShards || s.StreamShards > 0 && s.StreamViewType == "" {
		return fail("StreamShards must be 0 to " + strconv.Itoa(MaxStreamShards) + ", and needs a StreamViewType")
	}
	if s.TimeToLiveAttribute != "" {
		if err := checkKeyAttrName("TimeToLiveAttribute", s.TimeToLiveAttribute); err != nil {
			return err
		}
	}
	return nil
}

// undefinedKeys is DynamoDB's error for a key schema ks naming an
// attribute that defs does not define: the key schema's and the
// definitions' attribute names, in request order.
func undefinedKeys(ks []KeySchemaElement, defs []AttributeDefinition) error {
	keys := make([]string, len(ks))
	for i, k := range ks {
		keys[i] = k.AttributeName
	}
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.AttributeName
	}
	return &ValidationError{Op: "CreateTable", Reason: "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [" +
		strings.Join(keys, ", ") + "], AttributeDefinitions: [" + strings.Join(names, ", ") + "]"}
}

// canonical returns a copy of s with attribute definitions and indexes in
// name order, so equal schemas compare and store equal.
func (s TableSchema) canonical() TableSchema {
	c := s.clone()
	if c.StreamShards == 1 {
		c.StreamShards = 0 // the default
	}
	slices.SortFunc(c.AttributeDefinitions, func(a, b AttributeDefinition) int { return strings.Compare(a.AttributeName, b.AttributeName) })
	slices.SortFunc(c.LocalSecondaryIndexes, func(a, b LocalSecondaryIndex) int { return strings.Compare(a.IndexName, b.IndexName) })
	slices.SortFunc(c.GlobalSecondaryIndexes, func(a, b GlobalSecondaryIndex) int { return strings.Compare(a.IndexName, b.IndexName) })
	for i := range c.LocalSecondaryIndexes {
		slices.Sort(c.LocalSecondaryIndexes[i].Projection.NonKeyAttributes)
	}
	for i := range c.GlobalSecondaryIndexes {
		slices.Sort(c.GlobalSecondaryIndexes[i].Projection.NonKeyAttributes)
	}
	return c
}

func (s TableSchema) clone() TableSchema {
	c := s
	c.KeySchema = slices.Clone(s.KeySchema)
	c.AttributeDefinitions = slices.Clone(s.AttributeDefinitions)
	c.LocalSecondaryIndexes = slices.Clone(s.LocalSecondaryIndexes)
	for i := range c.LocalSecondaryIndexes {
		c.LocalSecondaryIndexes[i].KeySchema = slices.Clone(c.LocalSecondaryIndexes[i].KeySchema)
		c.LocalSecondaryIndexes[i].Projection.NonKeyAttributes = slices.Clone(c.LocalSecondaryIndexes[i].Projection.NonKeyAttributes)
	}
	c.GlobalSecondaryIndexes = slices.Clone(s.GlobalSecondaryIndexes)
	for i := range c.GlobalSecondaryIndexes {
		c.GlobalSecondaryIndexes[i].KeySchema = slices.Clone(c.GlobalSecondaryIndexes[i].KeySchema)
		c.GlobalSecondaryIndexes[i].Projection.NonKeyAttributes = slices.Clone(c.GlobalSecondaryIndexes[i].Projection.NonKeyAttributes)
	}
	return c
}

// sameSchema reports whether a and b store the same: an absent list of
// indexes or of non-key attributes is an empty one.
func sameSchema(a, b TableSchema) bool {
	ja, _ := json.Marshal(storeSchema(a.canonical()))
	jb, _ := json.Marshal(storeSchema(b.canonical()))
	return bytes.Equal(ja, jb)
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
