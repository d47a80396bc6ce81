package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// backup_jobs.go: on-demand backups and restores run in the background,
// as DynamoDB runs them.
//
// CreateBackup starts the backup (fdyno's Table.StartBackup, one
// transaction) and answers CREATING; a job here runs fdyno.ResumeBackup
// until it is AVAILABLE. The restores start theirs
// (fdyno.StartRestoreTableFromBackup, StartRestoreTableToPointInTime) and
// answer the target table CREATING with RestoreSummary.RestoreInProgress;
// a job runs fdyno.RunRestore, whose last transaction makes the table
// appear, ACTIVE, whole. Until then DescribeTable answers CREATING (with
// the items copied so far), ListTables lists it and CreateTable refuses
// its name.
//
// Both persist their progress with each transaction, so a job stopped by
// Close, a crash or a lost lease goes on from its last committed batch
// when a server runs it again: every server walks its namespace's CREATING
// backups and restores at start and every Config.JobLease (resumeJobs).
// Of several servers on one database, one runs each job: the one that
// holds its lease (a backup's on its table, fdyno's Table.TryLease; a
// restore's in its hidden table, fdyno.TryRestoreLease), renewed every
// third of a period; a holder that dies is replaced within two periods.
//
// Bounded: the library's transactions copy at most a batch of items
// (about 200) each, and jobTransactor pauses after each for as long as it
// took (at least Config.JobPause), so a job takes at most about half of
// the time of the one connection it uses, and requests run between its
// transactions.
//
// A restore that cannot finish is removed by the library (no table
// appears) and logged; a backup that cannot (its table deleted) is
// removed: DynamoDB has no FAILED backup status. A FoundationDB error
// (the cluster unavailable, a timeout) is retried after jobRetryDelay.

const (
	// DefaultJobLease is the lease on a job when Config.JobLease is
	// zero; resumeJobs walks the jobs this often, and a running job
	// renews its lease three times as often.
	DefaultJobLease = 15 * time.Second
	// jobRetryDelay is the pause before a job that failed with an error
	// that may pass runs again.
	jobRetryDelay = time.Second
)

// Job kinds and results, the labels of the jobs' metrics.
const (
	jobBackup  = "backup"
	jobRestore = "restore"
	jobExport  = "export" // exports.go
	jobImport  = "import" // imports.go
)

// errLeaseLost stops a job whose lease another server took.
var errLeaseLost = fmt.Errorf("the job's lease was taken by another server: %w", context.Canceled)

// jobTransactor runs a background job's transactions: it stops, with an
// error wrapping context.Canceled, once ctx is done or the job's lease is
// lost (renew, called every third of the lease period, reports false); it pauses
// after each transaction (see above) and calls progress when it renews.
type jobTransactor struct {
	ctx      context.Context
	db       fdyno.RetryLoop
	pause    time.Duration
	renew    func() bool
	progress func()
	renewed  time.Time
	every    time.Duration // between two renewals
}

func (j *jobTransactor) before() error {
	if err := j.ctx.Err(); err != nil {
		return err
	}
	if time.Since(j.renewed) >= j.every {
		if j.progress != nil {
			j.progress()
		}
		if !j.renew() {
			return errLeaseLost
		}
		j.renewed = time.Now()
	}
	return nil
}

// after pauses for as long as the transaction that started at start
// took, at least j.pause.
func (j *jobTransactor) after(start time.Time) {
	d := max(time.Since(start), j.pause)
	select {
	case <-j.ctx.Done():
	case <-time.After(d):
	}
}

func (j *jobTransactor) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	if err := j.before(); err != nil {
		return nil, err
	}
	defer j.after(time.Now())
	return j.db.Transact(f)
}

func (j *jobTransactor) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	if err := j.before(); err != nil {
		return nil, err
	}
	defer j.after(time.Now())
	return j.db.ReadTransact(f)
}

// startJob reports whether job key may start here: it is not running in
// this server already.
func (s *Server) startJob(key string) bool {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	if s.bg.jobs == nil {
		s.bg.jobs = map[string]bool{}
	}
	if s.bg.jobs[key] {
		return false
	}
	s.bg.jobs[key] = true
	return true
}

func (s *Server) endJob(key string) {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	delete(s.bg.jobs, key)
}

// runJob runs job key in the background: attempt until it reports done,
// retrying (after jobRetryDelay) while it reports an error that may pass.
func (s *Server) runJob(kind, key string, attempt func(ctx context.Context) (result string, retry bool)) {
	if !s.startJob(key) {
		return
	}
	started := s.goBackground(func(ctx context.Context) {
		defer s.endJob(key)
		s.metrics.jobStarted(kind)
		result := "stopped"
		defer func() { s.metrics.jobEnded(kind, result) }()
		for {
			var retry bool
			result, retry = attempt(ctx)
			if !retry || ctx.Err() != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(jobRetryDelay):
			}
		}
	})
	if !started {
		s.endJob(key)
	}
}

// jobLease is the lease period of a job.
func (s *Server) jobLease() time.Duration {
	if s.bgConfig.JobLease > 0 {
		return s.bgConfig.JobLease
	}
	return DefaultJobLease
}

// jobTx returns the transactor of a job, renewing its lease with renew.
func (s *Server) jobTx(ctx context.Context, renew func() bool, progress func()) *jobTransactor {
	return &jobTransactor{ctx: ctx, db: s.db, pause: s.bgConfig.JobPause, renew: renew, progress: progress, renewed: time.Now(),
		every: s.jobLease() / 3}
}

// pacedTx returns a transactor that paces a job's transactions as jobTx
// does, for a job that renews its lease itself (exports and imports,
// exports.go) and for the walk that looks for their jobs; it stops once
// ctx is done.
func (s *Server) pacedTx(ctx context.Context) *jobTransactor {
	return &jobTransactor{ctx: ctx, db: s.db, pause: s.bgConfig.JobPause, renew: func() bool { return true }, renewed: time.Now(),
		every: s.jobLease()}
}

// backupJob is the lease job of backup id on its table.
func backupJob(id string) string { return "backup/" + id }

// runBackupInBackground makes backup id of table in the background.
func (s *Server) runBackupInBackground(table, id string) {
	log := s.log.With(slog.String("table", table), slog.String("backup", id))
	var items, bytes int64 // reported to the metrics so far
	report := func() {
		d, err := fdyno.DescribeBackup(s.db, id, s.tableOptions()...)
		if err == nil {
			s.metrics.jobProgress(jobBackup, d.ItemCount-items, d.BackupSizeBytes-bytes)
			items, bytes = d.ItemCount, d.BackupSizeBytes
		}
	}
	s.runJob(jobBackup, backupJob(id), func(ctx context.Context) (string, bool) {
		t, err := s.openTable(table)
		if err == nil && !s.holdsLease(t, backupJob(id), s.jobLease()) {
			return "elsewhere", false // resumeJobs takes it over if that server dies
		}
		// A table deleted since: the run removes the backup.
		renew := func() bool { return t == nil || s.holdsLease(t, backupJob(id), s.jobLease()) }
		d, err := fdyno.ResumeBackup(s.jobTx(ctx, renew, report), id, s.tableOptions()...)
		switch {
		case err == nil:
			report()
			s.releaseLease(t, backupJob(id))
			log.Info("backup available", slog.Int64("items", d.ItemCount), slog.Int64("bytes", d.BackupSizeBytes))
			return "done", false
		case errors.Is(err, errLeaseLost):
			s.dropLease(t, backupJob(id))
			return "elsewhere", false
		case ctx.Err() != nil:
			return "stopped", false
		case errors.Is(err, fdyno.ErrResourceNotFound), errors.Is(err, fdyno.ErrBackupNotFound):
			log.Warn("backup removed: its table was deleted before it was made", slog.String("error", err.Error()))
			if t != nil {
				s.dropLease(t, backupJob(id))
			}
			return "failed", false
		default:
			log.Warn("backup failed; retrying", slog.String("error", err.Error()))
			return "retried", true
		}
	})
}

// runRestoreInBackground runs restore id (to table target) in the
// background.
func (s *Server) runRestoreInBackground(id, target string) {
	log := s.log.With(slog.String("table", target), slog.String("restore", id))
	var items, bytes int64
	report := func() {
		d, err := fdyno.DescribeRestore(s.db, target, s.tableOptions()...)
		if err == nil && d.RestoreID == id {
			s.metrics.jobProgress(jobRestore, d.ItemsRestored-items, d.BytesRestored-bytes)
			items, bytes = d.ItemsRestored, d.BytesRestored
		}
	}
	s.runJob(jobRestore, "restore/"+id, func(ctx context.Context) (string, bool) {
		renew := func() bool {
			ok, err := fdyno.TryRestoreLease(s.db, id, s.holder, s.jobLease(), s.tableOptions()...)
			return err == nil && ok
		}
		ok, err := fdyno.TryRestoreLease(s.db, id, s.holder, s.jobLease(), s.tableOptions()...)
		switch {
		case errors.Is(err, fdyno.ErrResourceNotFound):
			return "elsewhere", false // finished, or removed, meanwhile
		case err != nil:
			log.Warn("restore lease failed; retrying", slog.String("error", err.Error()))
			return "retried", true
		case !ok:
			return "elsewhere", false
		}
		_, err = fdyno.RunRestore(s.jobTx(ctx, renew, report), id, s.tableOptions()...)
		switch {
		case err == nil:
			report()
			log.Info("restore done: table ACTIVE", slog.Int64("items", items), slog.Int64("bytes", bytes))
			return "done", false
		case errors.Is(err, errLeaseLost):
			return "elsewhere", false
		case ctx.Err() != nil:
			return "stopped", false
		case errors.Is(err, context.Canceled):
			return "stopped", false
		case isFDBError(err):
			log.Warn("restore interrupted; retrying", slog.String("error", err.Error()))
			return "retried", true
		default:
			// The library removed it: no table appears.
			log.Warn("restore failed; its table was removed", slog.String("error", err.Error()))
			return "failed", false
		}
	})
}

// isFDBError reports whether err is a FoundationDB error, which may pass.
func isFDBError(err error) bool {
	var fe fdb.Error
	return errors.As(err, &fe)
}

// resumeJobs runs the CREATING backups and the restores of s's namespace
// that no server runs (their server stopped): at start, and every
// Config.JobLease.
func (s *Server) resumeJobs(ctx context.Context) {
	everyInterval(ctx, s.jobLease(), func() {
		if l, err := fdyno.ListBackups(s.db, fdyno.ListBackupsInput{BackupType: "ALL"}, s.tableOptions()...); err == nil {
			for _, b := range l.BackupSummaries {
				if b.BackupStatus == fdyno.BackupStatusCreating {
					s.runBackupInBackground(b.TableName, b.BackupID)
				}
			}
		} else if ctx.Err() == nil {
			s.log.Warn("backup resume cannot list backups", slog.String("error", err.Error()))
		}
		if l, err := fdyno.ListRestores(s.db, s.tableOptions()...); err == nil {
			for _, r := range l {
				s.runRestoreInBackground(r.RestoreID, r.TargetTableName)
			}
		} else if ctx.Err() == nil {
			s.log.Warn("restore resume cannot list restores", slog.String("error", err.Error()))
		}
	})
}
