package fdyno

import (
	"context"
	"strconv"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// ttl.go holds Time to Live: a table's TimeToLiveAttribute (TableSchema)
// holds, in an item, the epoch second after which the item has expired;
// the sweeper the caller runs deletes expired items through the single
// write path, marked as TTL deletions. See
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

// TTL sweeper defaults.
const (
	// DefaultSweepBatchSize is the most items one sweeper transaction
	// examines, and so deletes.
	DefaultSweepBatchSize = 100
	// DefaultSweepInterval is the pause of [Table.SweepExpired] between
	// walks of the whole table.
	DefaultSweepInterval = time.Minute
	// ttlMaxAge is how far in the past a TTL value may be and still
	// expire its item: DynamoDB's five years.
	ttlMaxAge = 5 * 365 * 24 * time.Hour
	// sweepPageBytes bounds the bytes one sweeper transaction reads.
	sweepPageBytes = 1 << 20
)

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

func (t *Table) now() time.Time {
	if t.clock == nil {
		return time.Now()
	}
	return t.clock()
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
	return compareNumbers(v.s, c.now) < 0 && compareNumbers(v.s, c.earliest) >= 0
}

// SweepOptions configures [Table.SweepExpired] and
// [Table.SweepExpiredOnce]. Zero values are the defaults.
type SweepOptions struct {
	// BatchSize is the most items one transaction examines and deletes
	// (default DefaultSweepBatchSize).
	BatchSize int
	// ItemsPerSecond limits how many items per second the sweeper
	// examines (and so deletes at most); 0 means no limit.
	ItemsPerSecond float64
	// Interval is the pause of SweepExpired between walks of the table
	// (default DefaultSweepInterval).
	Interval time.Duration
}

// SweepStats counts what a sweep did.
type SweepStats struct {
	// Scanned is the number of items examined.
	Scanned int
	// Deleted is the number of expired items deleted. A batch whose
	// commit applied but reported commit_unknown_result is run again and
	// then finds its items gone, so Deleted can undercount unless the
	// transactions set FoundationDB's automatic_idempotency option.
	Deleted int
}

// SweepExpired deletes the table's expired items until ctx is done, then
// returns ctx's error: it walks the table with [Table.SweepExpiredOnce]
// and pauses opts.Interval between walks. A table without a
// TimeToLiveAttribute has nothing to sweep. Run it in a goroutine of its
// own; several sweepers of one table are safe (each deletion re-checks
// the item in its transaction) but redundant.
func (t *Table) SweepExpired(ctx context.Context, tx fdb.Transactor, opts SweepOptions) error {
	interval := opts.Interval
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	for {
		if _, err := t.SweepExpiredOnce(ctx, tx, opts); err != nil {
			return err
		}
		if err := sleepCtx(ctx, interval); err != nil {
			return err
		}
	}
}

// SweepExpiredOnce walks the whole table once and deletes the items that
// have expired by the handle's clock ([WithClock]), in transactions of at
// most opts.BatchSize items (and about 1 MB) each, at most
// opts.ItemsPerSecond items per second. Each deletion goes through the
// single write path, after the item was read again and found still
// expired in the deleting transaction, so an item rewritten meanwhile is
// kept, indexes are maintained and the change record is a REMOVE marked
// as a TTL deletion.
//
// With an fdb.Database, each batch is its own transaction, retried as
// needed; with an fdb.Transaction, every batch is written in it. The walk
// stops with ctx's error between batches once ctx is done; batches
// committed until then stay committed.
//
// Errors: [ErrValidation] for bad options; [ErrResourceNotFound] when the
// table was deleted; FoundationDB errors, wrapped so that errors.As finds
// the fdb.Error.
func (t *Table) SweepExpiredOnce(ctx context.Context, tx fdb.Transactor, opts SweepOptions) (SweepStats, error) {
	var stats SweepStats
	if opts.BatchSize < 0 || opts.ItemsPerSecond < 0 {
		return stats, &ValidationError{Op: "SweepExpired", Reason: "BatchSize and ItemsPerSecond must not be negative"}
	}
	batch := opts.BatchSize
	if batch == 0 {
		batch = DefaultSweepBatchSize
	}
	var start Item
	// Pacing measures real elapsed time (monotonic), not the handle's
	// clock: a clock a test moves or freezes must not change the rate.
	began := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		cutoff := t.now()
		step, err := transact(tx, func(tr fdb.Transaction) (sweepStep, error) {
			return t.sweepBatch(tr, start, batch, cutoff)
		})
		if err != nil {
			return stats, err
		}
		stats.Scanned += step.scanned
		stats.Deleted += step.deleted
		if step.next == nil {
			return stats, nil
		}
		start = step.next
		if opts.ItemsPerSecond > 0 {
			due := began.Add(time.Duration(float64(stats.Scanned) / opts.ItemsPerSecond * float64(time.Second)))
			if err := sleepCtx(ctx, time.Until(due)); err != nil {
				return stats, err
			}
		}
	}
}

// sweepStep is the result of one sweeper transaction.
type sweepStep struct {
	scanned, deleted int
	next             Item // where the next batch starts; nil at the end
}

// sweepBatch examines up to batch items from start (exclusive) and
// deletes the expired ones. The candidates come from a snapshot read, so
// the walk takes no conflicts; each candidate is read again, with a
// conflict, and deleted only if it has still expired.
func (t *Table) sweepBatch(tr fdb.Transaction, start Item, batch int, now time.Time) (sweepStep, error) {
	step, changes, err := t.sweepChanges(tr, start, batch, now)
	if err != nil {
		return sweepStep{}, err
	}
	// Checks are done; from here on, only writes.
	for _, c := range changes {
		if err := writeItem(tr, t, *c); err != nil {
			return sweepStep{}, withOp("SweepExpired", err)
		}
		step.deleted++
	}
	return step, nil
}

// sweepChanges reads one batch for sweepBatch and returns the deletions
// to make, each a Time to Live deletion (decide.go) of an item that has
// still expired.
func (t *Table) sweepChanges(tr fdb.Transaction, start Item, batch int, now time.Time) (sweepStep, []*itemChange, error) {
	const op = "SweepExpired"
	page, err := t.Scan(tr.Snapshot(), ScanInput{Limit: batch, PageSize: sweepPageBytes, ExclusiveStartKey: start})
	if err != nil {
		return sweepStep{}, nil, err
	}
	step := sweepStep{scanned: page.ScannedCount, next: page.LastEvaluatedKey}
	st0 := t.state.Load()
	cut := newTTLCutoff(st0.schema.TimeToLiveAttribute, now)
	l := loaderOf(tr)
	mvf := tr.Snapshot().Get(metadataVersionKey)
	var actions []writeAction
	for _, it := range page.Items {
		if !cut.expired(it) {
			continue
		}
		key := keyItemOf(st0, it)
		kv, err := keyOf(op, key, st0.hash, st0.rng, true)
		if err != nil {
			return sweepStep{}, nil, err
		}
		actions = append(actions, writeAction{t: t, st0: st0, kv: kv, op: op, kind: actionDelete, key: key, expiredAt: now})
	}
	fetches := make([]pendingFetch, len(actions))
	for i := range actions {
		fetches[i] = actions[i].start(l, mvf)
	}
	tgs, err := fetchAll(l, fetches)
	if err != nil {
		return sweepStep{}, nil, err
	}
	var changes []*itemChange
	for i := range actions {
		d, err := decide(&actions[i], tgs[i])
		if err != nil {
			return sweepStep{}, nil, err
		}
		if d.write {
			changes = append(changes, &d.change)
		}
	}
	return step, changes, nil
}

// keyItemOf returns the key attributes of item it under state st.
func keyItemOf(st *tableState, it Item) Item {
	key := Item{st.hash.Name: it[st.hash.Name]}
	if st.rng.Name != "" {
		key[st.rng.Name] = it[st.rng.Name]
	}
	return key
}

// sleep waits for d or until ctx is done, whichever comes first, and
// returns ctx's error in the second case.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
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
	return transact(tx, func(tr fdb.Transaction) (*TimeToLiveSpecification, error) {
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
