package fdyno

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// table_meta.go: the table's metadata, stored at ("m",) (keys.go), and
// its stored format, kept apart from the exported API: the stored types
// below are unexported and carry the JSON field names every version has
// written, so renaming an exported field changes nothing stored. Every
// version's format is in testdata/meta/, and every later version must
// decode each of them (table_meta_test.go).
//
// Invariants:
//
//  1. encodeMeta and decodeMeta are the only encoder and decoder of the
//     metadata; putMeta is the only writer of the metadata key.
//  2. decodeMeta(encodeMeta(m)) == m for every metadata m of this version.
//  3. A table's format (tableMeta.format, stored as FormatVersion, or as
//     Layout under FormatVersion 3) never changes after its creation: it
//     says how its items are laid out (segment.go), not how the metadata
//     is encoded. Fields added since are optional.
//  4. The settings record is opaque here: the library stores and returns
//     it and never reads it. Tables written before it existed kept their
//     server's settings (billing, throughput, deletion protection, tags)
//     among the stored properties; decodeMeta returns those fields, as a
//     JSON object, as the settings record, and the next write stores them
//     as one.
//  5. Metadata that a version without some feature would misread is
//     stored under a FormatVersion that version refuses. A GSI with a
//     multi-attribute key (index_keys.go) is such a feature: a version
//     before it would take a second HASH element for a sort key and write
//     wrong index entries. Metadata whose schema has one is stored as
//     FormatVersion 3 with the table's format in Layout (versions before
//     refuse FormatVersion > 2); all other metadata is stored as before,
//     so those versions keep reading it, and it returns to its old form
//     when the last such GSI is deleted. A unique GSI (unique.go) is
//     another: a version before it would write duplicates. Metadata with
//     one is stored as FormatVersion 4, Layout as under 3.
//  6. Exact counters (counts.go) are a third such feature: a version
//     before them writes without counting, and the counters of a table
//     it wrote to would be wrong forever after, silently. The metadata
//     of a table that keeps counters (counted) or is having them built
//     (counting, counts_build.go) is stored as FormatVersion 4 too, which
//     every version before counters refuses; every version that reads 4
//     counts (unique GSIs and counters came in one change, issue 34).
//     Counted metadata stored as 1 or 2 (by the versions between
//     counters and this rule) is read as counted, and stored as 4 by its
//     next write; BuildCounts rewrites it at once.
//  7. A capture of the change log (captures: an on-demand backup being
//     taken, or point-in-time recovery, backup_log.go) is a fourth: a
//     version before backups writes without logging, and the backup or
//     the recovery would silently miss its writes. Metadata with a
//     capture is stored as FormatVersion 4 too (backups came before
//     FormatVersion 4, so every version that reads 4 logs), and returns
//     to its old form when the last capture ends. Metadata with captures
//     stored under the FormatVersion of invariants 5 and 6 alone (by the
//     versions between backups and this rule) is read as it is, and
//     stored as 4 by its next write.

// tableMeta is a table's metadata as the code uses it.
type tableMeta struct {
	format    int // the table's format (invariant 3)
	name      string
	schema    TableSchema
	building  []string // the GSIs being backfilled (CREATING, backfill.go)
	cursorKey []byte   // the secret of the table's cursors (cursor.go)
	// tableID (a random UUID) and created identify this table among all
	// tables that had its name; tables created before they were kept have
	// neither.
	tableID string
	created time.Time
	// streamLabel and streamStartAfter identify the latest enabling of
	// the stream by UpdateTable (updatetable.go); disabledStreams are the
	// streams disabled less than DisabledStreamRetention ago
	// (stream_disabled.go).
	streamLabel      string
	streamStartAfter string
	disabledStreams  []DisabledStream
	// settings is the settings record of the table's server (invariant 4).
	settings []byte
	// counted says the table's counters (counts.go) are exact: set at
	// creation, or when the counting pass of an older table completes.
	counted bool
	// counting says the counting pass (counts_build.go) of a table
	// created before counters is under way: writes count the keys it has
	// passed. Never set with counted.
	counting bool
	// storedVersion is the FormatVersion decodeMeta read (invariant 6:
	// counted metadata of an older FormatVersion is rewritten); encodeMeta
	// ignores it.
	storedVersion int
	// captures are the backups taking the table's change log (backup.go):
	// while there is one, every write logs its item (backup_log.go).
	captures []string
}

// metaFormatVersion is the format of tables Open creates. Format 1 tables
// (made before the partition directory existed) are read and written as
// before; their parallel Scan segments split the key bytes (segment.go).
const (
	metaFormatVersion  = 2
	firstFormatVersion = 1
	// multiKeyFormatVersion is the FormatVersion of metadata with a
	// multi-attribute GSI key (invariant 5); its Layout is the format.
	multiKeyFormatVersion = 3
	// uniqueFormatVersion is the FormatVersion of metadata with a unique
	// GSI (invariant 5) or counters (invariant 6), multi-attribute keys
	// or not; its Layout is the format.
	uniqueFormatVersion = 4
)

// storedFormatVersion returns the FormatVersion of metadata of a table of
// format format with schema s, that keeps counters, has them built or has
// its change log captured if refuseOlder (invariants 5, 6 and 7).
func (s TableSchema) storedFormatVersion(format int, refuseOlder bool) int {
	switch {
	case s.hasUniqueIndexes() || refuseOlder:
		return uniqueFormatVersion
	case s.hasMultiAttributeKeys():
		return multiKeyFormatVersion
	}
	return format
}

// formatVersion returns the FormatVersion m is stored under.
func (m *tableMeta) formatVersion() int {
	return m.schema.storedFormatVersion(m.format, m.counted || m.counting || len(m.captures) > 0)
}

// storedMeta is the JSON stored at ("m",).
type storedMeta struct {
	FormatVersion int
	// Layout is the table's format when FormatVersion is
	// multiKeyFormatVersion (invariant 5).
	Layout           int `json:",omitempty"`
	TableName        string
	Schema           storedSchema
	Building         []string         `json:",omitempty"`
	CursorKey        []byte           `json:",omitempty"`
	TableID          string           `json:",omitempty"`
	CreationDateTime time.Time        `json:",omitzero"`
	Properties       storedProperties `json:",omitzero"`
	// Settings is the settings record (invariant 4).
	Settings []byte `json:",omitempty"`
	// Counted marks exact counters (counts.go); Counting a counting pass
	// under way (counts_build.go).
	Counted  bool `json:",omitempty"`
	Counting bool `json:",omitempty"`
	// Captures are the backups taking the change log (backup.go).
	Captures []string `json:",omitempty"`
}

// storedSchema is a TableSchema as stored.
type storedSchema struct {
	KeySchema              []storedKey
	AttributeDefinitions   []storedAttr
	LocalSecondaryIndexes  []storedIndex `json:",omitempty"`
	GlobalSecondaryIndexes []storedIndex `json:",omitempty"`
	StreamViewType         string        `json:",omitempty"`
	TimeToLiveAttribute    string        `json:",omitempty"`
	StreamShards           int           `json:",omitempty"`
	WithoutCounts          bool          `json:",omitempty"`
}

type storedKey struct {
	AttributeName string
	KeyType       string
}

type storedAttr struct {
	AttributeName string
	AttributeType string
}

type storedIndex struct {
	IndexName  string
	KeySchema  []storedKey
	Projection storedProjection
	Unique     bool `json:",omitempty"`
}

type storedProjection struct {
	ProjectionType   string
	NonKeyAttributes []string `json:",omitempty"`
}

// storedProperties are the stream's labels as stored. The fields of the
// legacy settings (invariant 4) are read by decodeMeta from the raw
// object, never written here.
type storedProperties struct {
	StreamLabel      string                 `json:",omitempty"`
	StreamStartAfter string                 `json:",omitempty"`
	DisabledStreams  []storedDisabledStream `json:",omitempty"`
}

type storedDisabledStream struct {
	StreamLabel        string `json:",omitempty"`
	StreamStartAfter   string `json:",omitempty"`
	StreamViewType     string
	DisabledAt         time.Time
	LastSequenceNumber string `json:",omitempty"`
}

// encodeMeta returns the stored form of m.
func encodeMeta(m *tableMeta) ([]byte, error) {
	s := storedMeta{FormatVersion: m.format, TableName: m.name, Schema: storeSchema(m.schema), Building: m.building,
		CursorKey: m.cursorKey, TableID: m.tableID, CreationDateTime: m.created, Settings: m.settings, Captures: m.captures,
		Properties: storedProperties{StreamLabel: m.streamLabel, StreamStartAfter: m.streamStartAfter}, Counted: m.counted, Counting: m.counting}
	if v := m.formatVersion(); v != m.format {
		s.FormatVersion, s.Layout = v, m.format
	}
	for _, d := range m.disabledStreams {
		s.Properties.DisabledStreams = append(s.Properties.DisabledStreams, storedDisabledStream{StreamLabel: d.StreamLabel,
			StreamStartAfter: d.StreamStartAfter, StreamViewType: string(d.StreamViewType), DisabledAt: d.DisabledAt, LastSequenceNumber: d.LastSequenceNumber})
	}
	return json.Marshal(s)
}

// decodeMeta decodes the metadata of table name, of any format this
// version reads. Errors: a *[CorruptError] for anything else.
func decodeMeta(raw []byte, name string) (*tableMeta, error) {
	corrupt := &CorruptError{What: "table metadata", Reason: "cannot decode the schema of " + name}
	var s storedMeta
	if err := json.Unmarshal(raw, &s); err != nil || s.FormatVersion < firstFormatVersion || s.FormatVersion > uniqueFormatVersion {
		return nil, corrupt
	}
	format := s.FormatVersion
	if format >= multiKeyFormatVersion {
		format = s.Layout
	} else if s.Layout != 0 {
		return nil, corrupt
	}
	if format < firstFormatVersion || format > metaFormatVersion {
		return nil, corrupt
	}
	m := &tableMeta{format: format, name: s.TableName, schema: loadSchema(s.Schema), building: s.Building,
		cursorKey: s.CursorKey, tableID: s.TableID, created: s.CreationDateTime, settings: s.Settings, captures: s.Captures,
		streamLabel: s.Properties.StreamLabel, streamStartAfter: s.Properties.StreamStartAfter, counted: s.Counted,
		counting: s.Counting, storedVersion: s.FormatVersion}
	for _, d := range s.Properties.DisabledStreams {
		m.disabledStreams = append(m.disabledStreams, DisabledStream{StreamLabel: d.StreamLabel, StreamStartAfter: d.StreamStartAfter,
			StreamViewType: StreamViewType(d.StreamViewType), DisabledAt: d.DisabledAt, LastSequenceNumber: d.LastSequenceNumber})
	}
	switch v := m.formatVersion(); {
	case m.counted && m.counting:
		return nil, corrupt
	case v == s.FormatVersion:
	case m.counted && !m.counting && m.schema.storedFormatVersion(format, false) == s.FormatVersion:
		// Counted metadata stored before invariant 6.
	case len(m.captures) > 0 && m.schema.storedFormatVersion(format, m.counted || m.counting) == s.FormatVersion:
		// Captured metadata stored before invariant 7.
	default:
		return nil, corrupt // invariants 5 and 6: written by no version
	}
	if m.settings == nil {
		legacy, err := legacySettings(raw)
		if err != nil {
			return nil, corrupt
		}
		m.settings = legacy
	}
	return m, nil
}

// legacySettings returns the settings a table written before the
// settings record kept among its properties, as a JSON object of those
// fields, or nil if it kept none (invariant 4).
func legacySettings(raw []byte) ([]byte, error) {
	var outer struct{ Properties map[string]json.RawMessage }
	if err := json.Unmarshal(raw, &outer); err != nil {
		return nil, err
	}
	for _, own := range []string{"StreamLabel", "StreamStartAfter", "DisabledStreams"} {
		delete(outer.Properties, own)
	}
	if len(outer.Properties) == 0 {
		return nil, nil
	}
	return json.Marshal(outer.Properties)
}

func storeSchema(s TableSchema) storedSchema {
	out := storedSchema{KeySchema: storeKeys(s.KeySchema), StreamViewType: string(s.StreamViewType),
		TimeToLiveAttribute: s.TimeToLiveAttribute, StreamShards: s.StreamShards, WithoutCounts: s.WithoutCounts}
	out.AttributeDefinitions = convert(s.AttributeDefinitions, func(d AttributeDefinition) storedAttr {
		return storedAttr{d.AttributeName, string(d.AttributeType)}
	})
	for _, ix := range s.LocalSecondaryIndexes {
		out.LocalSecondaryIndexes = append(out.LocalSecondaryIndexes, storeIndex(ix.IndexName, ix.KeySchema, ix.Projection, false))
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		out.GlobalSecondaryIndexes = append(out.GlobalSecondaryIndexes, storeIndex(ix.IndexName, ix.KeySchema, ix.Projection, ix.Unique))
	}
	return out
}

func storeKeys(ks []KeySchemaElement) []storedKey {
	return convert(ks, func(k KeySchemaElement) storedKey { return storedKey{k.AttributeName, string(k.KeyType)} })
}

func storeIndex(name string, ks []KeySchemaElement, p Projection, unique bool) storedIndex {
	return storedIndex{IndexName: name, KeySchema: storeKeys(ks), Unique: unique,
		Projection: storedProjection{ProjectionType: string(p.ProjectionType), NonKeyAttributes: p.NonKeyAttributes}}
}

func loadSchema(s storedSchema) TableSchema {
	out := TableSchema{KeySchema: loadKeys(s.KeySchema), StreamViewType: StreamViewType(s.StreamViewType),
		TimeToLiveAttribute: s.TimeToLiveAttribute, StreamShards: s.StreamShards, WithoutCounts: s.WithoutCounts}
	out.AttributeDefinitions = convert(s.AttributeDefinitions, func(d storedAttr) AttributeDefinition {
		return AttributeDefinition{d.AttributeName, ScalarAttributeType(d.AttributeType)}
	})
	for _, ix := range s.LocalSecondaryIndexes {
		out.LocalSecondaryIndexes = append(out.LocalSecondaryIndexes, LocalSecondaryIndex{IndexName: ix.IndexName,
			KeySchema: loadKeys(ix.KeySchema), Projection: loadProjection(ix.Projection)})
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		out.GlobalSecondaryIndexes = append(out.GlobalSecondaryIndexes, GlobalSecondaryIndex{IndexName: ix.IndexName,
			KeySchema: loadKeys(ix.KeySchema), Projection: loadProjection(ix.Projection), Unique: ix.Unique})
	}
	return out
}

func loadKeys(ks []storedKey) []KeySchemaElement {
	return convert(ks, func(k storedKey) KeySchemaElement { return KeySchemaElement{k.AttributeName, KeyType(k.KeyType)} })
}

// convert returns f of each member of xs: nil for nil, so that a stored
// list keeps telling absent from empty.
func convert[S, T any](xs []S, f func(S) T) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func loadProjection(p storedProjection) Projection {
	return Projection{ProjectionType: ProjectionType(p.ProjectionType), NonKeyAttributes: p.NonKeyAttributes}
}

// readMeta reads and decodes the table's metadata.
func readMeta(rt fdb.ReadTransaction, keys tableKeys, name string) (*tableMeta, error) {
	raw, err := rt.Get(keys.meta).Get()
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, tableNotFound(name)
	}
	return decodeMeta(raw, name)
}

// putMeta stores m as the table's metadata in tr. It writes nothing on
// error.
func putMeta(tr fdb.Transaction, keys tableKeys, m *tableMeta) error {
	raw, err := encodeMeta(m)
	if err != nil {
		return err
	}
	tr.Set(keys.meta, raw)
	return nil
}

// sameSchema reports whether a and b store the same: an absent list of
// indexes or of non-key attributes is an empty one.
func sameSchema(a, b TableSchema) bool {
	ja, _ := json.Marshal(storeSchema(a.canonical()))
	jb, _ := json.Marshal(storeSchema(b.canonical()))
	return bytes.Equal(ja, jb)
}

// checkSettings applies MaxSettingsSize.
func checkSettings(op string, b []byte) error {
	if len(b) > MaxSettingsSize {
		return &ValidationError{Op: op, Reason: "the settings record is larger than 32 KB"}
	}
	return nil
}

// newTableID returns a random version 4 UUID, DynamoDB's TableId form.
func newTableID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// MaxSettingsSize is the largest settings record a table keeps, inside
// FoundationDB's 100,000-byte value limit with the rest of the metadata.
const MaxSettingsSize = 32 << 10
