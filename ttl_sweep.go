package fdyno

import (
	"context"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// ttl_sweep.go holds the Time to Live sweeper: it walks the table with
// Scan pages and deletes the items that have expired (ttl.go's rule)
// through the single write path, marked as TTL deletions.

// TTL sweeper defaults.
const (
	// DefaultSweepBatchSize is the most items one sweeper transaction
	// examines, and so deletes.
	DefaultSweepBatchSize = 100
	// DefaultSweepInterval is the pause of [Table.SweepExpired] between
	// walks of the whole table.
	DefaultSweepInterval = time.Minute
	// sweepPageBytes bounds the bytes one sweeper transaction reads.
	sweepPageBytes = 1 << 20
)

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
		step, err := Transact(tx, func(tr fdb.Transaction) (sweepStep, error) {
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
		a := writeAction{t: t, st0: st0, op: op, kind: actionDelete, key: keyItemOf(st0, it), expiredAt: now}
		if err := a.prepare(); err != nil {
			return sweepStep{}, nil, err
		}
		actions = append(actions, a)
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
