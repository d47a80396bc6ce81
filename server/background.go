package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fdyno/fdyno"
)

// background.go: the work DynamoDB does by itself, which fdyno leaves to
// its caller, run by the server in goroutines it owns:
//
//  1. Index backfills: UpdateTable creates a global secondary index
//     CREATING; the server runs fdyno's Table.Backfill for it, which
//     makes it ACTIVE (DescribeTable shows the change). At most
//     Config.MaxBackfills run at once; the others wait their turn. A
//     backfill persists its cursor, so one stopped by Close or a crash
//     resumes where it stopped: New looks for CREATING indexes in every
//     table and resumes them.
//  2. The Time to Live sweeper: every Config.TTLSweepInterval, one
//     walk of each table with a TimeToLiveAttribute deletes its expired
//     items (fdyno's Table.SweepExpiredOnce), at most
//     Config.TTLSweepItemsPerSecond items examined per second.
//  3. The stream trimmer: every Config.StreamTrimInterval, one walk of
//     each table with a stream removes the change records older than
//     Config.StreamRetention (fdyno's Table.TrimStream), DynamoDB
//     Streams' 24 hours by default; a read from before the trim horizon
//     then fails with TrimmedDataAccessException, as on DynamoDB. The
//     same walk keeps each point-in-time recovery log to its recovery
//     period (fdyno's Table.TrimContinuousBackups).
//  4. The count builder: at start and every Config.CountBuildInterval,
//     one walk of the tables runs fdyno's Table.BuildCounts for each
//     table created before fdyno kept exact counts, which reports none
//     until its counting pass is done (and stores, at once, the
//     metadata of a counted table in the form versions without counters
//     refuse). A pass keeps its cursor in the table, so one stopped by
//     Close, a crash or a lost lease resumes at a later walk, of this
//     server or another.
//
// The sweeper, the trimmer and the count builder work on a table only
// while they hold its lease for the job (holdsLease), so that of several
// servers on one database one does each job at a time.
//
// Close stops them all and waits for them; work stops between two of the
// library's transactions, so nothing is left half done.

// Background defaults.
const (
	// DefaultMaxBackfills is how many index backfills run at once when
	// Config.MaxBackfills is zero.
	DefaultMaxBackfills = 2
	// DefaultTTLSweepItemsPerSecond bounds the TTL sweeper when
	// Config.TTLSweepItemsPerSecond is zero.
	DefaultTTLSweepItemsPerSecond = 1000
	// DefaultStreamRetention is how long stream records are kept when
	// Config.StreamRetention is zero: DynamoDB Streams' 24 hours.
	DefaultStreamRetention = 24 * time.Hour
	// DefaultStreamTrimInterval is the pause between two walks of the
	// stream trimmer when Config.StreamTrimInterval is zero.
	DefaultStreamTrimInterval = time.Minute
	// backfillRetryDelay is the pause before retrying a backfill that
	// failed with an error that may pass (a FoundationDB error).
	backfillRetryDelay = time.Second
	// backfillResumeInterval is how often every server looks for
	// CREATING indexes that no server builds (their server died), and
	// backfillLeasePeriod the lease on an index's backfill, renewed after
	// every batch: a backfill whose server died is taken over, from its
	// cursor, within a period and an interval.
	backfillResumeInterval = time.Minute
	backfillLeasePeriod    = 3 * backfillResumeInterval
	// DefaultCountBuildInterval is the pause between two walks of the
	// count builder when Config.CountBuildInterval is zero.
	DefaultCountBuildInterval = time.Minute
	// countsJob names the count builder's lease.
	countsJob = "counts"
)

// backfillJob is the lease job of the backfill of index.
func backfillJob(index string) string { return "backfill/" + index }

// background holds the server's goroutines.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	slots  chan struct{} // one per backfill allowed to run
	// resumes counts the walks of resumeBackfills that ended.
	resumes atomic.Int64

	mu      sync.Mutex
	running map[backfillID]bool // backfills started and not finished
	leases  map[leaseID]bool    // leases this server holds (holdsLease)
	// transfers are the exports and imports running here (exports.go).
	transfers map[string]bool
	// jobs are the backups and restores running here (backup_jobs.go).
	jobs map[string]bool
}

type leaseID struct{ table, job string }

type backfillID struct{ table, index string }

func newBackfillSlots(n int) chan struct{} {
	if n <= 0 {
		n = DefaultMaxBackfills
	}
	return make(chan struct{}, n)
}

// Close stops the server's background work (index backfills, the TTL
// sweeper, the stream trimmer and the count builder) and waits for it to
// stop. It does not stop serving requests:
// stop the HTTP server first (Serve returns). A stopped backfill resumes
// when a server starts on the same database. Close is idempotent.
func (s *Server) Close() error {
	s.bg.mu.Lock()
	s.bg.cancel() // under mu: no goroutine starts after it (goBackground)
	s.bg.mu.Unlock()
	s.bg.wg.Wait()
	s.closeNamespaces()
	return nil
}

// goBackground runs f in a goroutine that Close waits for and reports
// true, unless the server is closed.
func (s *Server) goBackground(f func(ctx context.Context)) bool {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	if s.bg.ctx.Err() != nil {
		return false
	}
	s.bg.wg.Add(1)
	go func() {
		defer s.bg.wg.Done()
		f(s.bg.ctx)
	}()
	return true
}

// startBackfill builds index of table in the background, unless a
// backfill of it is already running.
func (s *Server) startBackfill(table, index string) {
	id := backfillID{table, index}
	s.bg.mu.Lock()
	if s.bg.running[id] {
		s.bg.mu.Unlock()
		return
	}
	s.bg.running[id] = true
	s.bg.mu.Unlock()
	done := func() {
		s.bg.mu.Lock()
		delete(s.bg.running, id)
		s.bg.mu.Unlock()
	}
	started := s.goBackground(func(ctx context.Context) {
		defer done()
		select {
		case s.bg.slots <- struct{}{}:
			defer func() { <-s.bg.slots }()
		case <-ctx.Done():
			return
		}
		s.runBackfill(ctx, id)
	})
	if !started {
		done() // closed: the next server resumes it
	}
}

// runBackfill runs Table.Backfill until the index is ACTIVE, the index or
// table is gone, or ctx is done, retrying FoundationDB errors.
func (s *Server) runBackfill(ctx context.Context, id backfillID) {
	log := s.log.With(slog.String("table", id.table), slog.String("index", id.index))
	start := time.Now() // real elapsed time, for the log
	s.metrics.backfillStarted()
	result := "stopped"
	defer func() { s.metrics.backfillEnded(result) }()
	job := backfillJob(id.index)
	for {
		t, err := s.openTable(id.table)
		if err == nil && !s.holdsLease(t, job, backfillLeasePeriod) {
			// Another server builds it; this one takes it over if that
			// one dies (resumeBackfills).
			result = "elsewhere"
			return
		}
		if err == nil && !s.stillCreating(t, id.index) {
			// Another server finished it (and released the lease) since
			// this one saw it CREATING: it is not done twice.
			result = "elsewhere"
			s.releaseLease(t, job)
			return
		}
		var p fdyno.BackfillProgress
		lost := false
		if err == nil {
			run, cancel := context.WithCancel(ctx)
			p, err = t.Backfill(run, s.db, fdyno.BackfillInput{IndexName: id.index, BatchSize: s.bgConfig.backfillBatchSize, Progress: func(fdyno.BackfillProgress) {
				if !s.holdsLease(t, job, backfillLeasePeriod) {
					lost = true // renewal failed: another server took it
					cancel()
				}
			}})
			cancel()
		}
		switch {
		case err == nil && p.Done:
			result = "done"
			s.releaseLease(t, job)
			log.Info("index backfill done", slog.Int64("items", p.ItemsScanned), slog.Duration("took", time.Since(start)))
			return
		case lost && ctx.Err() == nil:
			result = "elsewhere"
			s.dropLease(t, job)
			log.Info("index backfill taken over by another server")
			return
		case ctx.Err() != nil:
			log.Info("index backfill stopped; another server, or this one when it starts again, takes it over")
			return
		case errors.Is(err, fdyno.ErrUniqueViolation):
			// A unique index (made through the library) over duplicates:
			// the backfill removed it.
			result = "abandoned"
			s.releaseLease(t, job)
			log.Warn("unique index backfill found duplicates; the index was removed", slog.String("reason", err.Error()))
			return
		case errors.Is(err, fdyno.ErrValidation), errors.Is(err, fdyno.ErrResourceNotFound):
			// The index or its table was deleted meanwhile.
			result = "abandoned"
			if t != nil {
				s.releaseLease(t, job)
			}
			log.Info("index backfill abandoned", slog.String("reason", err.Error()))
			return
		case err != nil:
			s.metrics.backfillRetried()
			log.Warn("index backfill failed; retrying", slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backfillRetryDelay):
		}
	}
}

// stillCreating reports whether index of t is still CREATING, read after
// this server took its backfill's lease: a server that finishes a
// backfill releases the lease after the batch that makes the index
// ACTIVE has committed, so a server that takes the lease after it sees
// the index ACTIVE. A failed read counts as CREATING (Backfill then
// reports what is wrong).
func (s *Server) stillCreating(t *fdyno.Table, index string) bool {
	d, err := t.Describe(s.db)
	if err != nil {
		return true
	}
	for _, g := range d.GlobalSecondaryIndexDescriptions {
		if g.IndexName == index {
			return g.IndexStatus == fdyno.IndexStatusCreating
		}
	}
	return true // gone: Backfill reports it (abandoned)
}

// resumeBackfills starts a backfill for every CREATING index of every
// table that no server holds the lease of (those of a server that stopped
// before they were ACTIVE): at start, and every backfillResumeInterval.
func (s *Server) resumeBackfills(ctx context.Context) {
	defer s.bg.resumes.Add(1)
	s.eachTable(ctx, "index backfill resume", func(name string, _ *fdyno.Table, d *fdyno.TableDescription) {
		for _, g := range d.GlobalSecondaryIndexDescriptions {
			if g.IndexStatus == fdyno.IndexStatusCreating {
				s.startBackfill(name, g.IndexName)
			}
		}
	})
}

// everyInterval calls once, then again interval after each call ends,
// until ctx is done.
func everyInterval(ctx context.Context, interval time.Duration, once func()) {
	for {
		once()
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// sweepOnce is one walk of every table with a TimeToLiveAttribute.
func (s *Server) sweepOnce(ctx context.Context, perSecond float64, period time.Duration) {
	s.eachTable(ctx, "TTL sweeper", func(name string, t *fdyno.Table, d *fdyno.TableDescription) {
		if d.TimeToLiveAttribute == "" || !s.holdsLease(t, "ttl-sweep", period) {
			return
		}
		stats, err := t.SweepExpiredOnce(ctx, s.db, fdyno.SweepOptions{ItemsPerSecond: perSecond})
		failed := err != nil && ctx.Err() == nil && !errors.Is(err, fdyno.ErrResourceNotFound)
		s.metrics.ttlSwept(stats.Scanned, stats.Deleted, failed)
		switch {
		case failed:
			s.log.Warn("TTL sweep failed", slog.String("table", name), slog.String("error", err.Error()))
		case stats.Deleted > 0:
			s.log.Info("TTL sweep", slog.String("table", name), slog.Int("scanned", stats.Scanned), slog.Int("deleted", stats.Deleted))
		}
	})
}

// trimOnce is one walk of every table with a stream. The trim keeps the
// records that a registered consumer has not read (fdyno's TrimStream
// without Force).
func (s *Server) trimOnce(ctx context.Context, retention, period time.Duration) {
	s.eachTable(ctx, "stream trimmer", func(name string, t *fdyno.Table, d *fdyno.TableDescription) {
		if !s.holdsLease(t, "trim", period) {
			return
		}
		// Point-in-time recovery's log is kept to its recovery period
		// (fdyno's TrimContinuousBackups; nothing to do when it is off).
		if err := t.TrimContinuousBackups(s.db); err != nil && ctx.Err() == nil && !errors.Is(err, fdyno.ErrResourceNotFound) {
			s.log.Warn("point-in-time recovery trim failed", slog.String("table", name), slog.String("error", err.Error()))
		}
		if d.StreamViewType == "" {
			// No stream, or a disabled one, whose records stay readable
			// for 24 hours (streams.go): it is left alone.
			return
		}
		out, err := t.TrimStream(ctx, s.db, fdyno.TrimStreamInput{OlderThan: retention})
		trimmed := 0
		if out != nil {
			trimmed = out.Trimmed
		}
		// A stream disabled or a table deleted meanwhile is not a failure.
		failed := err != nil && ctx.Err() == nil && !errors.Is(err, fdyno.ErrResourceNotFound) && !errors.Is(err, fdyno.ErrValidation)
		s.metrics.streamTrimmedRecords(trimmed, failed)
		switch {
		case failed:
			s.log.Warn("stream trim failed", slog.String("table", name), slog.String("error", err.Error()))
		case trimmed > 0:
			s.log.Info("stream trim", slog.String("table", name), slog.Int("trimmed", trimmed), slog.String("trim_horizon", out.TrimHorizon))
		}
	})
}

// buildCountsOnce is one walk of the count builder (point 4 above).
// The pass of a table runs under its lease, renewed every interval while
// it runs (a period is three intervals: leasePeriod), and stops if the
// lease is lost; the lease is released when the counts are exact.
func (s *Server) buildCountsOnce(ctx context.Context, interval time.Duration) {
	s.eachTable(ctx, "count builder", func(name string, t *fdyno.Table, d *fdyno.TableDescription) {
		if d.WithoutCounts {
			return
		}
		log := s.log.With(slog.String("table", name))
		if d.Counts != nil {
			// Counted: at most a rewrite of the metadata's form.
			if _, err := t.BuildCounts(ctx, s.db, fdyno.BuildCountsInput{}); err != nil && ctx.Err() == nil && !errors.Is(err, fdyno.ErrResourceNotFound) {
				log.Warn("counted metadata rewrite failed", slog.String("error", err.Error()))
			}
			return
		}
		period := leasePeriod(interval)
		if !s.holdsLease(t, countsJob, period) {
			return
		}
		run, stop := context.WithCancel(ctx)
		defer stop()
		start, renewed := time.Now(), time.Now() // real elapsed time
		var counted int64
		first := int64(-1)
		p, err := t.BuildCounts(run, s.db, fdyno.BuildCountsInput{Progress: func(p fdyno.BuildCountsProgress) {
			if first < 0 {
				first = p.ItemsCounted
			}
			counted = p.ItemsCounted - first
			if time.Since(renewed) >= interval {
				renewed = time.Now()
				if !s.holdsLease(t, countsJob, period) {
					stop() // another server took it over: it resumes the pass
				}
			}
		}})
		switch {
		case err == nil && p.Done:
			s.metrics.countBuilt("done", counted)
			s.releaseLease(t, countsJob)
			log.Info("exact counts built", slog.Int64("items", p.ItemsCounted), slog.Duration("took", time.Since(start)))
		case errors.Is(err, fdyno.ErrResourceNotFound), errors.Is(err, fdyno.ErrCountsDisabled):
			// Deleted meanwhile.
		case run.Err() != nil:
			s.metrics.countBuilt("stopped", counted)
			log.Info("counting pass stopped; it resumes at a later walk", slog.Int64("items", counted))
		default:
			s.metrics.countBuilt("error", counted)
			log.Warn("counting pass failed; it resumes at the next walk", slog.String("error", err.Error()))
		}
	})
}

// leasePeriod is the lease a walk repeated every interval takes on each
// table: three intervals, so its holder renews it twice before it could
// lapse, and a holder that died is replaced within three intervals.
func leasePeriod(interval time.Duration) time.Duration { return 3 * interval }

// holdsLease takes or renews this server's lease on job for table t
// (fdyno's Table.TryLease), so that of several servers on one database
// one walks each table at a time; it reports whether this server holds
// it, and keeps fdyno_background_leases{job} at the number it holds.
func (s *Server) holdsLease(t *fdyno.Table, job string, period time.Duration) bool {
	ok, err := t.TryLease(s.db, job, s.holder, period)
	if err != nil {
		if !errors.Is(err, fdyno.ErrResourceNotFound) {
			s.log.Warn("lease failed", slog.String("table", t.Name()), slog.String("job", job), slog.String("error", err.Error()))
		}
		ok = false
	}
	s.bg.mu.Lock()
	if s.bg.leases == nil {
		s.bg.leases = map[leaseID]bool{}
	}
	id := leaseID{t.Name(), job}
	was := s.bg.leases[id]
	if ok {
		s.bg.leases[id] = true
	} else {
		delete(s.bg.leases, id)
	}
	s.bg.mu.Unlock()
	if ok != was {
		s.metrics.leaseHeld(leaseMetricJob(job), ok)
	}
	return ok
}

// leaseMetricJob is job as fdyno_background_leases labels it: its kind,
// "backfill" whatever the index, "backup" whatever the backup (label
// values come from fixed sets, never from a request or an id).
func leaseMetricJob(job string) string {
	kind, _, _ := strings.Cut(job, "/")
	return kind
}

// releaseLease gives up this server's lease on job for table t, so
// another server need not wait for it to lapse.
func (s *Server) releaseLease(t *fdyno.Table, job string) {
	if err := t.ReleaseLease(s.db, job, s.holder); err != nil && !errors.Is(err, fdyno.ErrResourceNotFound) {
		s.log.Warn("lease release failed", slog.String("table", t.Name()), slog.String("job", job), slog.String("error", err.Error()))
	}
	s.dropLease(t, job)
}

// dropLease records that this server no longer holds its lease on job
// for table t.
func (s *Server) dropLease(t *fdyno.Table, job string) {
	s.bg.mu.Lock()
	id := leaseID{t.Name(), job}
	was := s.bg.leases[id]
	delete(s.bg.leases, id)
	s.bg.mu.Unlock()
	if was {
		s.metrics.leaseHeld(leaseMetricJob(job), false)
	}
}

// newHolderID returns a random name for this server in leases.
func newHolderID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// eachTable calls f for every table that exists, with its description,
// until ctx is done; who names the walker in the log.
func (s *Server) eachTable(ctx context.Context, who string, f func(name string, t *fdyno.Table, d *fdyno.TableDescription)) {
	names, err := fdyno.ListTables(s.db, fdyno.WithRoot(s.root...))
	if err != nil {
		s.log.Warn(who+" cannot list tables", slog.String("error", err.Error()))
		return
	}
	for _, name := range names {
		if ctx.Err() != nil {
			return
		}
		t, err := s.openTable(name)
		if err != nil {
			continue // deleted meanwhile
		}
		d, err := t.Describe(s.db)
		if err != nil {
			continue
		}
		f(name, t, d)
	}
}
