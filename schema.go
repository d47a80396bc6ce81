package fdyno

import (
	"slices"
	"strings"
	"time"
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
	// Unique makes the index unique (unique.go, an fdyno extension): no
	// two items may have the same values of all its key attributes. A
	// write that would give a second item an entry's key writes nothing
	// and fails with [ErrUniqueViolation]; items without the key
	// attributes have no entry and never collide.
	Unique bool
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
	// WithoutCounts creates the table without exact counts (counts.go):
	// its writes keep no counters, so a Put or Delete of a table without
	// indexes or stream writes blind, reading nothing and taking no read
	// conflict, and [Table.Count] answers [ErrCountsDisabled]. The zero
	// value keeps counts, as tables created through fdyno-server do. It
	// is fixed at creation.
	WithoutCounts bool
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
	// (counts.go), as of the read; nil for a table created
	// [TableSchema.WithoutCounts] and until the table's counters are
	// exact ([ErrCountsNotReady]). Describe fills them; the description
	// UpdateTable returns does not.
	Counts      *Counts
	IndexCounts map[string]Counts
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

// DisabledStream is a stream disabled by UpdateTable, which stays
// readable for [DisabledStreamRetention] after DisabledAt.
type DisabledStream struct {
	// StreamLabel is the stream's label: the time it was enabled (UTC,
	// StreamLabelLayout), the table's creation time for a stream enabled
	// with the table, or empty for a table that has no creation time.
	StreamLabel string
	// StreamStartAfter is the sequence number the stream's records follow
	// (empty for all records).
	StreamStartAfter string
	// StreamViewType is the view type the stream had.
	StreamViewType StreamViewType
	// DisabledAt is when the stream was disabled (the handle's clock,
	// [WithClock]).
	DisabledAt time.Time
	// LastSequenceNumber is the sequence number of the stream's last
	// record, empty if the table's stream holds none.
	LastSequenceNumber string
}

// DisabledStreamRetention is how long a disabled stream stays readable,
// DynamoDB's 24 hours.
const DisabledStreamRetention = 24 * time.Hour

// StreamLabelLayout is the time layout of a stream's label, DynamoDB's.
const StreamLabelLayout = "2006-01-02T15:04:05.000"

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

// usedDefinitions returns the attribute definitions of s that a key of
// the table or of an index still uses.
func usedDefinitions(s TableSchema) []AttributeDefinition {
	used := map[string]bool{}
	mark := func(ks []KeySchemaElement) {
		for _, k := range ks {
			used[k.AttributeName] = true
		}
	}
	mark(s.KeySchema)
	for _, ix := range s.LocalSecondaryIndexes {
		mark(ix.KeySchema)
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		mark(ix.KeySchema)
	}
	return slices.DeleteFunc(slices.Clone(s.AttributeDefinitions), func(d AttributeDefinition) bool { return !used[d.AttributeName] })
}

// withoutGSI returns a copy of s without GSI name and the attribute
// definitions only it used.
func (s TableSchema) withoutGSI(name string) TableSchema {
	c := s.clone()
	c.GlobalSecondaryIndexes = slices.DeleteFunc(c.GlobalSecondaryIndexes, func(g GlobalSecondaryIndex) bool { return g.IndexName == name })
	c.AttributeDefinitions = usedDefinitions(c)
	return c
}

// hasUniqueIndexes reports whether s has a unique GSI (unique.go).
func (s TableSchema) hasUniqueIndexes() bool {
	for _, ix := range s.GlobalSecondaryIndexes {
		if ix.Unique {
			return true
		}
	}
	return false
}

// Counts are exact item counts and sizes.
type Counts struct {
	// ItemCount is the number of items (of index entries, for an index).
	ItemCount int64
	// SizeBytes is the sum of their sizes as DynamoDB measures them.
	SizeBytes int64
}
