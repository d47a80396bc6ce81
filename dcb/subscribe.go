package dcb

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// Subscribe returns the events matching q after position after, in
// position order, each exactly once: first those already stored, then
// each new one as it is appended, until ctx ends (the sequence then
// yields ctx's error and stops). Resume a subscription from the last
// position it delivered.
//
// It does not poll. When it has read everything, it reads and watches the
// query's head keys ([Store.HeadKeys]) in the same transaction, then
// waits until one of the watches fires: an append that may match q,
// committed after that read, rewrites one of those keys, and one
// committed before is in the read. A slow consumer loses nothing: the
// sequence reads a page of [WithPageSize] events only when the consumer
// asks for more, from the last position it delivered. Each wakeup reads
// the query's ranges (one transaction per page). Appends that cannot match
// q do not wake it, except those sharing a head with it by hash (a name of
// theirs in a shard it watches) and, for [All] or a query of more than 8
// shards, every append.
//
// A watch FoundationDB refuses (too_many_watches: the client's limit,
// the database option max_watches, is reached; a subscription holds
// len(HeadKeys(q)) of them, 8 per watched tag or type) or loses is not an
// error: the subscription reads again after a backoff that doubles from
// [MinWatchBackoff] to [MaxWatchBackoff] while its watches keep failing,
// and falls back to reading at once after a watch fires.
// [Store.SubscribeStats] counts them.
//
// Errors are yielded: an invalid query once ([ErrInvalidQuery]); a
// FoundationDB error of a page once, after which the subscription stops.
func (s *Store) Subscribe(ctx context.Context, db fdb.Database, q Query, after Position) iter.Seq2[StoredEvent, error] {
	return func(yield func(StoredEvent, error) bool) {
		pl, err := s.k.plan(q)
		if err != nil {
			yield(StoredEvent{}, err)
			return
		}
		heads := s.k.headKeys(watchedShards(q))
		failed := 0 // watches failed in a row
		for {
			if err := ctx.Err(); err != nil {
				yield(StoredEvent{}, err)
				return
			}
			type result struct {
				pg      page
				watches []fdb.FutureNil
			}
			// A watch needs its transaction to commit: this one writes
			// nothing, so its commit costs no round trip.
			r, err := fdyno.Transact(db, func(tr fdb.Transaction) (result, error) {
				pg, err := s.readPage(tr, pl, after, Position{}, false, s.pageSize)
				if err != nil || len(pg.events) > 0 {
					return result{pg: pg}, err
				}
				ws := make([]fdb.FutureNil, len(heads))
				for i, k := range heads {
					ws[i] = tr.Watch(k)
				}
				return result{watches: ws}, nil
			})
			if err != nil {
				yield(StoredEvent{}, fmt.Errorf("dcb: subscribe: %w", err))
				return
			}
			for _, e := range r.pg.events {
				if !yield(e, nil) {
					return
				}
				after = e.Position
			}
			if len(r.pg.events) > 0 {
				continue
			}
			done, err := waitAny(ctx, r.watches)
			if done {
				yield(StoredEvent{}, ctx.Err())
				return
			}
			var fe fdb.Error
			if err != nil && !errors.As(err, &fe) {
				yield(StoredEvent{}, fmt.Errorf("dcb: subscribe: watch: %w", err))
				return
			}
			if err == nil {
				failed = 0 // a watch that fired: read again at once
				continue
			}
			// A watch refused or lost (too_many_watches 1032, a lost
			// connection): read again, but only after a bounded
			// backoff, or a refused watch turns into a hot loop of
			// reads (issue 35).
			s.stats.watchErrors.Add(1)
			d := watchBackoff(failed)
			failed++
			s.stats.backoffNanos.Add(int64(d))
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				yield(StoredEvent{}, ctx.Err())
				return
			case <-t.C:
			}
		}
	}
}

// waitAny waits until one of watches is ready, or ctx is done, then
// cancels the others and returns once every watch has returned: the first
// watch's result, or done if ctx ended first. With no watches (a query
// that matches no event) it waits for ctx alone.
func waitAny(ctx context.Context, watches []fdb.FutureNil) (done bool, err error) {
	results := make(chan error, len(watches))
	for _, w := range watches {
		go func() { results <- w.Get() }()
	}
	left := len(watches)
	select {
	case <-ctx.Done():
		done = true
	case err = <-results:
		left--
	}
	for _, w := range watches {
		w.Cancel()
	}
	for range left {
		<-results
	}
	return done, err
}

// Bounds of a subscription's wait before it reads again after a watch
// failed: the n-th failure in a row waits MinWatchBackoff·2ⁿ, at most
// MaxWatchBackoff. A subscriber whose watches are all refused reads at
// most once per MaxWatchBackoff, where it read back to back before.
const (
	MinWatchBackoff = 10 * time.Millisecond
	MaxWatchBackoff = time.Second
)

// watchBackoff is the wait after failed watches failed in a row before
// this one.
func watchBackoff(failed int) time.Duration {
	d := MinWatchBackoff
	for i := 0; i < failed && d < MaxWatchBackoff; i++ {
		d *= 2
	}
	return min(d, MaxWatchBackoff)
}

// subscribeStats are the counters behind [Store.SubscribeStats].
type subscribeStats struct {
	watchErrors  atomic.Int64
	backoffNanos atomic.Int64
}

// SubscribeStats counts what the store's subscriptions did when their
// watches failed, since the store was opened.
type SubscribeStats struct {
	// WatchErrors is the number of waits that ended with a watch failed
	// with a FoundationDB error (too_many_watches, say), each followed by
	// a backoff.
	WatchErrors int64
	// Backoff is the total time subscriptions waited after them.
	Backoff time.Duration
}

// SubscribeStats returns the counters of the store's subscriptions (for a
// metrics endpoint). It is safe for concurrent use.
func (s *Store) SubscribeStats() SubscribeStats {
	return SubscribeStats{WatchErrors: s.stats.watchErrors.Load(), Backoff: time.Duration(s.stats.backoffNanos.Load())}
}
