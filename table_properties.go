package fdyno

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// table_properties.go: what a table keeps beside its schema, in its
// metadata (`m`): an identity (TableID, CreationDateTime), the settings
// DynamoDB reports but fdyno does not act on (billing mode and provisioned
// throughput: FoundationDB has no capacity to provision), deletion
// protection, which DeleteTable enforces, and tags.
//
// Properties never change how items are read or written, so changing them
// does not bump FoundationDB's metadata version: handles keep their cached
// schema, and Describe reads the properties from `m` in its own
// transaction.

// BillingMode is how DynamoDB would charge a table: PROVISIONED or
// PAY_PER_REQUEST. fdyno stores and reports it; it has no effect.
type BillingMode string

// The billing modes.
const (
	BillingModeProvisioned   BillingMode = "PROVISIONED"
	BillingModePayPerRequest BillingMode = "PAY_PER_REQUEST"
)

// ProvisionedThroughput is the capacity of a PROVISIONED table or of one
// of its global secondary indexes, in DynamoDB's units.
type ProvisionedThroughput struct {
	ReadCapacityUnits  int64
	WriteCapacityUnits int64
}

// Tag is a key-value pair attached to a table (DynamoDB's Tag).
type Tag struct {
	Key   string
	Value string
}

// Tag limits (DynamoDB's tagging restrictions).
const (
	// MaxTags is the most tags a table may have.
	MaxTags = 50
	// MaxTagKeyLength and MaxTagValueLength bound a tag's key (at least
	// one character) and value, in Unicode characters.
	MaxTagKeyLength   = 128
	MaxTagValueLength = 256
	// reservedTagPrefix starts the keys AWS assigns, which users cannot.
	reservedTagPrefix = "aws:"
)

// TableProperties are a table's settings other than its schema.
type TableProperties struct {
	// BillingMode is PROVISIONED or PAY_PER_REQUEST; empty reads as
	// PAY_PER_REQUEST.
	BillingMode BillingMode `json:",omitempty"`
	// ProvisionedThroughput is the table's capacity when PROVISIONED.
	ProvisionedThroughput *ProvisionedThroughput `json:",omitempty"`
	// IndexThroughput is the capacity of each global secondary index, by
	// index name, when PROVISIONED.
	IndexThroughput map[string]ProvisionedThroughput `json:",omitempty"`
	// LastUpdateToPayPerRequest is when the billing mode was last set to
	// PAY_PER_REQUEST by a change of an existing table (DynamoDB's
	// BillingModeSummary.LastUpdateToPayPerRequestDateTime); nil for a
	// table that has been PAY_PER_REQUEST since its creation. It stays
	// as it was while the table is PROVISIONED.
	LastUpdateToPayPerRequest *time.Time `json:",omitempty"`
	// DeletionProtectionEnabled makes [DeleteTable] refuse the table.
	DeletionProtectionEnabled bool `json:",omitempty"`
	// Tags are the table's tags, in key order, keys unique.
	Tags []Tag `json:",omitempty"`
	// StreamLabel and StreamStartAfter identify the latest enabling of
	// the table's stream by UpdateTable, as DynamoDB's StreamLabel: the
	// time it was enabled (UTC, StreamLabelLayout), and a sequence number
	// that every record written since follows (DynamoDB starts a new
	// stream at each enabling). Both are empty for a stream enabled at
	// creation and never re-enabled.
	StreamLabel      string `json:",omitempty"`
	StreamStartAfter string `json:",omitempty"`
	// DisabledStreams are the streams UpdateTable disabled within
	// [DisabledStreamRetention] of the latest disabling, oldest first:
	// DynamoDB keeps a disabled stream readable for 24 hours.
	DisabledStreams []DisabledStream `json:",omitempty"`
}

// DisabledStream is a stream disabled by UpdateTable, which stays
// readable for [DisabledStreamRetention] after DisabledAt.
type DisabledStream struct {
	// StreamLabel is the stream's label: the time it was enabled (UTC,
	// StreamLabelLayout), the table's creation time for a stream enabled
	// with the table, or empty for a table that has no creation time.
	StreamLabel string `json:",omitempty"`
	// StreamStartAfter is the sequence number the stream's records follow
	// (empty for all records).
	StreamStartAfter string `json:",omitempty"`
	// StreamViewType is the view type the stream had.
	StreamViewType StreamViewType
	// DisabledAt is when the stream was disabled (the handle's clock,
	// [WithClock]).
	DisabledAt time.Time
	// LastSequenceNumber is the sequence number of the stream's last
	// record, empty if the table's stream holds none.
	LastSequenceNumber string `json:",omitempty"`
}

// DisabledStreamRetention is how long a disabled stream stays readable,
// DynamoDB's 24 hours.
const DisabledStreamRetention = 24 * time.Hour

// StreamLabelLayout is the time layout of a stream's label, DynamoDB's.
const StreamLabelLayout = "2006-01-02T15:04:05.000"

func (p TableProperties) clone() TableProperties {
	c := p
	if p.ProvisionedThroughput != nil {
		pt := *p.ProvisionedThroughput
		c.ProvisionedThroughput = &pt
	}
	if p.IndexThroughput != nil {
		c.IndexThroughput = make(map[string]ProvisionedThroughput, len(p.IndexThroughput))
		for k, v := range p.IndexThroughput {
			c.IndexThroughput[k] = v
		}
	}
	c.Tags = slices.Clone(p.Tags)
	c.DisabledStreams = slices.Clone(p.DisabledStreams)
	return c
}

// validate checks p's billing settings and tags.
func (p *TableProperties) validate(op string) error {
	switch p.BillingMode {
	case "", BillingModeProvisioned, BillingModePayPerRequest:
	default:
		return &ValidationError{Op: op, Reason: "unknown BillingMode " + strconv.Quote(string(p.BillingMode))}
	}
	if pt := p.ProvisionedThroughput; pt != nil && (pt.ReadCapacityUnits < 1 || pt.WriteCapacityUnits < 1) {
		return &ValidationError{Op: op, Reason: "ProvisionedThroughput units must be at least 1"}
	}
	for name, pt := range p.IndexThroughput {
		if pt.ReadCapacityUnits < 1 || pt.WriteCapacityUnits < 1 {
			return &ValidationError{Op: op, Reason: "ProvisionedThroughput units of index " + name + " must be at least 1"}
		}
	}
	merged, err := mergeTags(nil, p.Tags, op)
	if err != nil {
		return err
	}
	p.Tags = merged
	return nil
}

// WithProperties makes [Open] create the table with properties p when it
// creates it (with [WithSchema]); an existing table keeps its own.
func WithProperties(p TableProperties) Option {
	return func(o *options) { pp := p.clone(); o.properties = &pp }
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

// checkTag applies DynamoDB's tagging restrictions to one tag: a key of 1
// to 128 characters not starting with "aws:", a value of at most 256, both
// of letters, digits, white space and + - = . _ : / @.
func checkTag(op string, t Tag) error {
	n := utf8.RuneCountInString(t.Key)
	switch {
	case n < 1 || n > MaxTagKeyLength:
		return &ValidationError{Op: op, Path: "Tags", Reason: "One or more parameter values were invalid: tag key must be 1 to 128 characters: " + strconv.Quote(t.Key)}
	case utf8.RuneCountInString(t.Value) > MaxTagValueLength:
		return &ValidationError{Op: op, Path: "Tags", Reason: "One or more parameter values were invalid: tag value of key " + strconv.Quote(t.Key) + " is longer than 256 characters"}
	case strings.HasPrefix(strings.ToLower(t.Key), reservedTagPrefix):
		return &ValidationError{Op: op, Path: "Tags", Reason: "One or more parameter values were invalid: tag keys starting with 'aws:' are reserved for system use: " + strconv.Quote(t.Key)}
	case !tagText(t.Key) || !tagText(t.Value):
		return &ValidationError{Op: op, Path: "Tags", Reason: "One or more parameter values were invalid: tags may use only letters, digits, white space and + - = . _ : / @: " + strconv.Quote(t.Key)}
	}
	return nil
}

func tagText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) && !strings.ContainsRune("+-=._:/@", r) {
			return false
		}
	}
	return true
}

// mergeTags returns have with add applied (a key already present takes
// the new value), in key order, refusing invalid tags and more than
// MaxTags in all.
func mergeTags(have, add []Tag, op string) ([]Tag, error) {
	out := slices.Clone(have)
	for _, t := range add {
		if err := checkTag(op, t); err != nil {
			return nil, err
		}
		i, found := slices.BinarySearchFunc(out, t.Key, func(a Tag, k string) int { return strings.Compare(a.Key, k) })
		if found {
			out[i].Value = t.Value
		} else {
			out = slices.Insert(out, i, t)
		}
	}
	if len(out) > MaxTags {
		return nil, &ValidationError{Op: op, Path: "Tags",
			Reason: "One or more parameter values were invalid: a table can have at most 50 tags, this request would make " + strconv.Itoa(len(out))}
	}
	return out, nil
}

// UpdateProperties reads the table's properties, lets f change them and
// stores the result, in one transaction, and returns the table's
// description after the change. f may be called more than once (the
// transaction may be retried); an error from f aborts without a change.
//
// Errors: [ErrResourceNotFound] if the table was deleted; [ErrValidation]
// for invalid properties. With an fdb.Database, UpdateProperties runs its
// own transaction, which may be retried.
func (t *Table) UpdateProperties(tx fdb.Transactor, f func(*TableProperties) error) (*TableDescription, error) {
	return transact(tx, func(tr fdb.Transaction) (*TableDescription, error) {
		st, meta, err := t.loadMeta(tr)
		if err != nil {
			return nil, err
		}
		p := meta.Properties.clone()
		if err := f(&p); err != nil {
			return nil, err
		}
		if err := p.validate("UpdateTable"); err != nil {
			return nil, err
		}
		meta.Properties = p
		raw, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		tr.Set(st.keys.meta, raw)
		gsis, err := st.describeIndexes(tr)
		if err != nil {
			return nil, err
		}
		return t.description(st, meta, gsis), nil
	})
}

// TagResource adds tags to the table, replacing the value of a key it
// already has. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TagResource.html.
//
// Errors: [ErrValidation] for an invalid tag (key of 1 to [MaxTagKeyLength]
// characters not starting with "aws:", value of at most
// [MaxTagValueLength], DynamoDB's character set) and past [MaxTags];
// [ErrResourceNotFound] for a deleted
// table. The tags are stored in one transaction, which may be retried.
func (t *Table) TagResource(tx fdb.Transactor, tags []Tag) error {
	for _, tg := range tags {
		if err := checkTag("TagResource", tg); err != nil {
			return err
		}
	}
	_, err := t.UpdateProperties(tx, func(p *TableProperties) error {
		merged, err := mergeTags(p.Tags, tags, "TagResource")
		p.Tags = merged
		return err
	})
	return err
}

// UntagResource removes the tags with the given keys from the table; a key
// it does not have is not an error. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UntagResource.html.
func (t *Table) UntagResource(tx fdb.Transactor, keys []string) error {
	_, err := t.UpdateProperties(tx, func(p *TableProperties) error {
		p.Tags = slices.DeleteFunc(p.Tags, func(tg Tag) bool { return slices.Contains(keys, tg.Key) })
		return nil
	})
	return err
}

// ListTags returns the table's tags in key order. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTagsOfResource.html.
func (t *Table) ListTags(rt fdb.ReadTransactor) ([]Tag, error) {
	d, err := t.Describe(rt)
	if err != nil {
		return nil, err
	}
	return d.Properties.Tags, nil
}
