package fdyno

import (
	"strconv"
	"time"

	"github.com/fdyno/fdyno/internal/number"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// ttl.go holds Time to Live: a table's TimeToLiveAttribute (TableSchema)
// holds, in an item, the epoch second after which the item has expired;
// the sweeper the caller runs (ttl_sweep.go) deletes expired items
// through the single write path, marked as TTL deletions. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html.
//
// As in DynamoDB:
//
//  1. The attribute must be a number (N) of seconds since the Unix epoch;
//     an item without it, or with another type, never expires.
//  2. An item has expired when its attribute is less than the current
//     epoch second, unless it is more than five years in the past
//     (DynamoDB leaves such items alone).
//  3. An expired item stays readable (Get, Query, Scan, batches) until the
//     sweeper deletes it; Query and Scan can hide it (HideExpired).

// ttlMaxAge is how far in the past a TTL value may be and still expire its
// item: DynamoDB's five years.
const ttlMaxAge = 5 * 365 * 24 * time.Hour

// WithClock sets the clock a table handle reads the time from (default
// time.Now): Time to Live (which items have expired, for the sweeper and
// HideExpired), ClientRequestToken expiry, change records'
// ApproximateCreationDateTime, the age cutoff of [Table.TrimStream], and
// the times the table's metadata records (creation, stream label, stream
// disabling). Only the sweeper's pacing keeps real elapsed time. Tests use
// it to move time.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.clock = now }
}

// ttlCutoff is what an item's TTL value is compared with at time now.
type ttlCutoff struct {
	attr     string // the TimeToLiveAttribute; "" never expires
	now      string // now, in epoch seconds (N)
	earliest string // now minus five years, in epoch seconds (N)
}

func newTTLCutoff(attr string, now time.Time) ttlCutoff {
	return ttlCutoff{attr: attr, now: strconv.FormatInt(now.Unix(), 10), earliest: strconv.FormatInt(now.Add(-ttlMaxAge).Unix(), 10)}
}

// expired reports whether it has expired.
func (c ttlCutoff) expired(it Item) bool {
	if c.attr == "" {
		return false
	}
	v, ok := it[c.attr]
	if !ok || v.typ != TypeN || v.bad {
		return false
	}
	return number.Compare(v.s, c.now) < 0 && number.Compare(v.s, c.earliest) >= 0
}

// TimeToLiveSpecification turns Time to Live on or off for a table:
// DynamoDB's TimeToLiveSpecification, the request of
// [Table.UpdateTimeToLive].
type TimeToLiveSpecification struct {
	// AttributeName is the TimeToLiveAttribute to enable, or the one
	// enabled to disable.
	AttributeName string
	// Enabled turns Time to Live on (true) or off (false).
	Enabled bool
}

// UpdateTimeToLive sets (spec.Enabled) or clears the table's
// TimeToLiveAttribute, as DynamoDB's UpdateTimeToLive, and returns spec.
// The change is immediate (there are no ENABLING or DISABLING states) and
// applies to every handle from its next operation: the sweeper and
// HideExpired use the new attribute.
//
// Errors, as DynamoDB: [ErrValidation] for an empty or too long
// AttributeName, enabling a table whose TTL is already enabled ("TimeToLive
// is already enabled"), disabling a table whose TTL is disabled
// ("TimeToLive is already disabled"), or enabling or disabling another
// attribute than the enabled one ("TimeToLive is active on a different
// AttributeName"; disable it first to change the attribute);
// [ErrResourceNotFound] if the table was deleted. DynamoDB's limit of one
// change per hour does not apply. With an fdb.Database, UpdateTimeToLive
// runs its own transaction, which may be retried.
func (t *Table) UpdateTimeToLive(tx fdb.Transactor, spec TimeToLiveSpecification) (*TimeToLiveSpecification, error) {
	const op = "UpdateTimeToLive"
	if err := checkKeyAttrName("TimeToLiveSpecification.AttributeName", spec.AttributeName); err != nil {
		return nil, withOp(op, err)
	}
	return Transact(tx, func(tr fdb.Transaction) (*TimeToLiveSpecification, error) {
		st, err := t.load(tr, nil)
		if err != nil {
			return nil, err
		}
		s := st.schema.clone()
		cur := s.TimeToLiveAttribute
		fail := func(reason string) (*TimeToLiveSpecification, error) {
			return nil, &ValidationError{Op: op, Reason: reason}
		}
		switch {
		case cur != "" && cur != spec.AttributeName:
			// Enabling or disabling another attribute than the enabled
			// one: DynamoDB's words.
			return fail("TimeToLive is active on a different AttributeName")
		case spec.Enabled && cur != "":
			return fail("TimeToLive is already enabled")
		case !spec.Enabled && cur == "":
			return fail("TimeToLive is already disabled")
		case spec.Enabled:
			s.TimeToLiveAttribute = spec.AttributeName
		default:
			s.TimeToLiveAttribute = ""
		}
		if err := t.replaceSchema(tr, s, st.building()...); err != nil {
			return nil, err
		}
		out := spec
		return &out, nil
	})
}
