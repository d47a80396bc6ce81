package fdyno

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// table_properties.go: what a table keeps beside its schema in its
// metadata (`m`, table_meta.go): an identity (TableID,
// CreationDateTime), the labels of its streams (updatetable.go,
// stream_disabled.go), and a settings record the library stores for the
// program that serves the table and never reads: fdyno-server keeps
// there what DynamoDB reports but fdyno does not act on (billing mode,
// provisioned throughput, deletion protection, tags).
//
// Settings never change how items are read or written, so changing them
// does not bump FoundationDB's metadata version: handles keep their cached
// schema, and Describe reads the settings from `m` in its own
// transaction.

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

// MaxSettingsSize is the largest settings record a table keeps, inside
// FoundationDB's 100,000-byte value limit with the rest of the metadata.
const MaxSettingsSize = 32 << 10

// WithSettings makes [Open] create the table with the settings record b
// when it creates it (with [WithSchema]); an existing table keeps its
// own. The library stores b as it is and returns it in
// [TableDescription.Settings].
func WithSettings(b []byte) Option {
	return func(o *options) { o.settings = slices.Clone(b) }
}

// checkSettings applies MaxSettingsSize.
func checkSettings(op string, b []byte) error {
	if len(b) > MaxSettingsSize {
		return &ValidationError{Op: op, Reason: "the settings record is larger than 32 KB"}
	}
	return nil
}

// UpdateSettings reads the table's settings record, lets f replace it and
// stores the result, in one transaction, and returns the table's
// description after the change. f gets nil for a table without settings
// and must not change its argument; returning nil removes the record. f
// may be called more than once (the transaction may be retried); an
// error from f aborts without a change.
//
// Errors: [ErrResourceNotFound] if the table was deleted; [ErrValidation]
// for a record larger than [MaxSettingsSize]. With a Transactor other
// than an fdb.Transaction, UpdateSettings runs its own transaction, which
// may be retried.
func (t *Table) UpdateSettings(tx fdb.Transactor, f func(settings []byte) ([]byte, error)) (*TableDescription, error) {
	return Transact(tx, func(tr fdb.Transaction) (*TableDescription, error) {
		st, meta, err := t.loadMeta(tr)
		if err != nil {
			return nil, err
		}
		next, err := f(slices.Clone(meta.settings))
		if err != nil {
			return nil, err
		}
		if err := checkSettings("UpdateTable", next); err != nil {
			return nil, err
		}
		meta.settings = slices.Clone(next)
		if err := putMeta(tr, st.keys, meta); err != nil {
			return nil, err
		}
		gsis, err := st.describeIndexes(tr)
		if err != nil {
			return nil, err
		}
		return t.description(st, meta, gsis), nil
	})
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
