package fdyno

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// restore_run.go holds RestoreTableFromBackup and
// RestoreTableToPointInTime, and runs a restore (the batches of
// restore.go, the recovery base and log of pitr.go) as a job that may
// stop at any point and go on later, in this program or another:
//
//  1. Start (StartRestoreTableFromBackup, StartRestoreTableToPointInTime):
//     one transaction checks that the target name is free (no table, no
//     other restore to it), creates the hidden table, empty, and the
//     restore's record, ("k", "j", id), which names everything a run
//     needs: the backup, the log window to replay, the point restored.
//  2. Run (RunRestore): the batches of restore.go, each committing its
//     progress (and the record's counts) with its items, then the unique
//     checks, then the move, which clears the record in the transaction
//     that makes the table appear. A run stopped between two transactions
//     (its transactor answers context.Canceled, or the program dies) is
//     taken up by the next RunRestore from the last committed batch.
//  3. A restore that cannot finish (its backup deleted, its recovery base
//     trimmed past its start, a unique index violated, the target created
//     meanwhile) is removed: hidden table, progress and record, in one
//     transaction. No table of the target's name ever appears for it.
//
// A restore to a point in time holds its source's recovery lease
// (pitr.go) under a name derived from its id, which every run takes
// again, so that a trim never folds the base or the log it reads; the
// lease lapses recoveryRestoreLease after the last run took it, and a run
// that finds the base trimmed past its window fails (3).

// RestoreDescription is a restore under way: what DescribeTable reports
// of a table whose status is CREATING with a RestoreSummary.
type RestoreDescription struct {
	RestoreID       string
	TargetTableName string
	// SourceBackupID is the restored backup's id; empty for a restore to
	// a point in time, whose source table is SourceTableName.
	SourceBackupID  string
	SourceTableName string
	// RestoreDateTime is the point restored: the backup's creation time,
	// or the time asked of a restore to a point in time (the latest
	// restorable time at the start, for UseLatestRestorableTime).
	RestoreDateTime time.Time
	// StartDateTime is when the restore started (the handle's clock).
	StartDateTime time.Time
	// ItemsRestored and BytesRestored count the items (and their encoded
	// bytes) copied into the new table so far.
	ItemsRestored, BytesRestored int64
	// The new table's schema, TableId and settings record.
	Schema   TableSchema
	TableID  string
	Settings []byte
}

func (r *storedRestore) description() *RestoreDescription {
	d := &RestoreDescription{RestoreID: r.ID, TargetTableName: r.Target, SourceTableName: r.SourceTable, RestoreDateTime: r.Point,
		StartDateTime: r.Start, ItemsRestored: r.Items, BytesRestored: r.Bytes, Schema: loadSchema(r.Schema), TableID: r.TableID,
		Settings: slices.Clone(r.Settings)}
	if !r.PITR {
		d.SourceBackupID = r.BackupID
	}
	return d
}

// newRestoreID returns a new restore's id, the name of its hidden table's
// directory.
func newRestoreID() (string, error) {
	var rb [8]byte
	if _, err := rand.Read(rb[:]); err != nil {
		return "", err
	}
	return restorePrefix + hex.EncodeToString(rb[:]), nil
}

// startRestore creates restore rec (its source members set) to table
// target with schema and settings: its hidden table, empty, and its
// record.
func startRestore(tx fdb.Transactor, o options, keys backupKeys, target string, schema TableSchema, settings []byte, rec *storedRestore) (*RestoreDescription, error) {
	if err := checkSettings("RestoreTable", settings); err != nil {
		return nil, err
	}
	if rec.ID == "" {
		id, err := newRestoreID()
		if err != nil {
			return nil, err
		}
		rec.ID = id
	}
	tmp := newTable(target, tablePath(o.root, rec.ID))
	tmp.clock, tmp.guard = o.clock, o.guard
	// The restore writes every item of the target: the guard is asked
	// for the whole table's writes now, since a run in the background
	// (RunRestore) may run without it.
	if err := tmp.allow(Access{Write: true}); err != nil {
		return nil, err
	}
	now := tmp.now().UTC()
	rec.Target, rec.TablePath, rec.Start, rec.Schema, rec.Settings = target, tmp.path, now, storeSchema(schema), slices.Clone(settings)
	want := &tableMeta{format: metaFormatVersion, name: target, schema: schema.canonical(), created: now, counted: !schema.WithoutCounts,
		settings: slices.Clone(settings)}
	return Transact(tx, func(tr fdb.Transaction) (*RestoreDescription, error) {
		if ok, err := directory.Exists(tr, tablePath(o.root, target)); err != nil || ok {
			if err == nil {
				err = tableAlreadyExists(target)
			}
			return nil, err
		}
		others, err := restoresIn(tr, keys)
		if err != nil {
			return nil, err
		}
		for _, r := range others {
			if r.Target == target && r.ID != rec.ID {
				return nil, &TableError{Table: target, Err: ErrTableAlreadyExists, Reason: "Table already exists: " + target + " (being restored)"}
			}
		}
		st, err := tmp.openTx(tr, want)
		if err != nil {
			return nil, err
		}
		meta, err := readMeta(tr, st.keys, target)
		if err != nil {
			return nil, err
		}
		rec.TableID = meta.tableID
		if err := putRestore(tr, keys, rec); err != nil {
			return nil, err
		}
		return rec.description(), nil
	})
}

// RunRestore runs restore id, recorded by [StartRestoreTableFromBackup] or
// [StartRestoreTableToPointInTime], until its table exists, whole, and
// returns the table's handle. A restore interrupted at any point may be
// run again and goes on from its last committed batch; an error that is
// (or wraps) context.Canceled, from a transactor that stops between
// transactions, or a FoundationDB error leaves it to be run again. Any
// other error ends it: its hidden table and record are removed, and no
// table appears. Errors: [ErrResourceNotFound] if no restore id is under
// way (it ended); those of the restores.
func RunRestore(tx fdb.Transactor, id string, opts ...Option) (*Table, error) {
	return runRestore(tx, id, backupBatch, opts...)
}

func runRestore(tx fdb.Transactor, id string, batch int, opts ...Option) (*Table, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	type found struct {
		rec  *storedRestore
		keys backupKeys
	}
	f, err := ReadTransact(tx, func(tr fdb.ReadTransaction) (found, error) {
		keys, ok, err := openBackupKeys(tr, o.root)
		if err != nil || !ok {
			if err == nil {
				err = restoreNotFound(id)
			}
			return found{}, err
		}
		rec, err := getRestore(tr, keys, id)
		return found{rec, keys}, err
	})
	if err != nil {
		return nil, err
	}
	j := &restoreJob{tx: tx, o: o, keys: f.keys, rec: f.rec, batch: batch}
	j.tbl = newTable(f.rec.Target, f.rec.TablePath)
	j.tbl.maxItemSize, j.tbl.chunkThreshold, j.tbl.clock, j.tbl.guard = o.maxItemSize, o.chunkThreshold, o.clock, o.guard
	if err := j.run(); err != nil {
		if errors.Is(err, context.Canceled) || isFDBError(err) {
			return nil, err // stopped, not failed: run it again
		}
		return nil, j.abandon(err)
	}
	return Open(tx, f.rec.Target, opts...)
}

// runRestoreNow is a synchronous restore's run (RestoreTableFromBackup,
// RestoreTableToPointInTime): one that fails, even with an error a later
// run could pass, is removed, since no one runs it again; one stopped by
// context.Canceled is left, to be run.
func runRestoreNow(tx fdb.Transactor, id string, batch int, opts ...Option) (*Table, error) {
	t, err := runRestore(tx, id, batch, opts...)
	if err == nil || errors.Is(err, context.Canceled) || !isFDBError(err) {
		return t, err
	}
	o, oerr := buildOptions(opts)
	if oerr != nil {
		return nil, err
	}
	j, jerr := ReadTransact(tx, func(tr fdb.ReadTransaction) (*restoreJob, error) {
		keys, ok, err := openBackupKeys(tr, o.root)
		if err != nil || !ok {
			return nil, err
		}
		rec, err := getRestore(tr, keys, id)
		if err != nil {
			return nil, nil // removed, or moved in
		}
		return &restoreJob{tx: tx, o: o, keys: keys, rec: rec, tbl: newTable(rec.Target, rec.TablePath)}, nil
	})
	if jerr != nil || j == nil {
		return nil, err
	}
	return nil, j.abandon(err)
}

// isFDBError reports whether err is a FoundationDB error, which may pass
// (the cluster unavailable, a transaction timed out).
func isFDBError(err error) bool {
	var fe fdb.Error
	return errors.As(err, &fe)
}

// restoreJob is one run of a restore.
type restoreJob struct {
	tx    fdb.Transactor
	o     options
	keys  backupKeys
	rec   *storedRestore
	tbl   *Table // the hidden table
	batch int
	// release gives up the recovery lease of a restore to a point in time
	// (set by run once it holds it).
	release func()
}

// recoveryHolder is the name under which restore id holds its source's
// recovery lease.
func recoveryHolder(id string) string { return "restore-" + id }

// run runs the restore to its end. A restore to a point in time keeps
// its recovery lease when the run stops (the next run takes it again, and
// a trim must not fold the base meanwhile); the move and abandon release
// it.
func (j *restoreJob) run() error {
	b, _, err := readBackup(j.tx, j.o.root, j.rec.BackupID)
	if err != nil {
		return err
	}
	var replay *logReplay
	if j.rec.PITR {
		src := newTable(j.rec.SourceTable, tablePath(j.o.root, j.rec.SourceTable))
		src.clock = j.o.clock
		if j.release, err = src.holdRecoveryAs(j.tx, recoveryHolder(j.rec.ID)); err != nil {
			return err
		}
		from, err := ReadTransact(j.tx, func(tr fdb.ReadTransaction) ([tupleVersionstampLen]byte, error) {
			f, _, err := logWindow(tr, j.keys, b.ID)
			return f, err
		})
		if err != nil {
			return err
		}
		if string(from[:]) != string(j.rec.From) {
			// A trim folded the base past the restore's start (its lease
			// lapsed): the point is no longer restorable from here.
			return &TableError{Table: j.rec.SourceTable, Err: ErrInvalidRestoreTime, Reason: "The point-in-time recovery of table " + j.rec.SourceTable + " was trimmed past restore " + j.rec.ID + "'s start"}
		}
		replay = &logReplay{src: src, before: j.rec.Before, until: j.rec.Until}
		copy(replay.from[:], j.rec.From)
	}
	r := &restoreRun{keys: j.keys, backup: b, tbl: j.tbl, batch: j.batch, job: j.rec.ID}
	for done := false; !done; {
		if done, err = Transact(j.tx, r.step); err != nil {
			return err
		}
	}
	if replay != nil {
		replay.tbl, replay.batch, replay.progress = j.tbl, j.batch, j.keys.restore(j.rec.ID+"/log")
		for done := false; !done; {
			if done, err = Transact(j.tx, replay.step); err != nil {
				return err
			}
		}
	}
	schema := loadSchema(j.rec.Schema)
	for _, g := range schema.GlobalSecondaryIndexes {
		if !g.Unique {
			continue
		}
		dups, err := uniqueDuplicates(context.Background(), j.tx, j.tbl, g.IndexName)
		if err == nil && dups != nil {
			err = &DuplicateKeysError{Index: g.IndexName, Keys: dups}
		}
		if err != nil {
			return err
		}
	}
	target := tablePath(j.o.root, j.rec.Target)
	_, err = Transact(j.tx, func(tr fdb.Transaction) (struct{}, error) {
		if moved, err := restoreMoved(tr, j.tbl, target, j.rec.TableID); err != nil || moved {
			return struct{}{}, err // moved: an earlier attempt committed
		}
		if ok, err := directory.Exists(tr, target); err != nil || ok {
			if err == nil {
				err = tableAlreadyExists(j.rec.Target)
			}
			return struct{}{}, err
		}
		// The runs' lease (TryRestoreLease) does not go with the table.
		st, err := j.tbl.load(tr, nil)
		if err != nil {
			return struct{}{}, err
		}
		tr.Clear(st.keys.leaseKey(restoreLeaseJob))
		if _, err := directory.Root().Move(tr, j.tbl.path, target); err != nil {
			return struct{}{}, err
		}
		j.clearRecord(tr)
		bumpMetadataVersion(tr)
		return struct{}{}, nil
	})
	if err == nil && j.release != nil {
		j.release()
	}
	return err
}

// clearRecord clears the restore's record and progress.
func (j *restoreJob) clearRecord(tr fdb.Transaction) {
	tr.Clear(j.keys.restoreJob(j.rec.ID))
	tr.Clear(j.keys.restore(j.rec.ID))
	tr.Clear(j.keys.restore(j.rec.ID + "/log"))
}

// abandon removes the restore, which failed with cause: its hidden table,
// never visible, and its record. It returns cause.
func (j *restoreJob) abandon(cause error) error {
	_, err := Transact(j.tx, func(tr fdb.Transaction) (bool, error) {
		if _, err := getRestore(tr, j.keys, j.rec.ID); err != nil {
			if errors.Is(err, ErrResourceNotFound) {
				err = nil // removed already (or moved in)
			}
			return false, err
		}
		j.clearRecord(tr)
		return directory.Root().Remove(tr, j.tbl.path)
	})
	if j.rec.PITR {
		src := newTable(j.rec.SourceTable, tablePath(j.o.root, j.rec.SourceTable))
		_ = src.ReleaseLease(j.tx, recoveryLease, recoveryHolder(j.rec.ID))
	}
	return errors.Join(cause, err)
}

// restoreLeaseJob names the lease of a restore's runs, in its hidden
// table.
const restoreLeaseJob = "restore"

// TryRestoreLease takes or renews holder's lease on running restore id,
// until d from now, unless another holder's has not expired, as
// [Table.TryLease] does for a table's jobs: of several programs that
// resume restores, one runs each. The lease is kept in the hidden table
// and cleared when the table appears. Errors: [ErrResourceNotFound] if no
// restore id is under way.
func TryRestoreLease(tx fdb.Transactor, id, holder string, d time.Duration, opts ...Option) (bool, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return false, err
	}
	rec, err := ReadTransact(tx, func(tr fdb.ReadTransaction) (*storedRestore, error) {
		keys, ok, err := openBackupKeys(tr, o.root)
		if err != nil || !ok {
			if err == nil {
				err = restoreNotFound(id)
			}
			return nil, err
		}
		return getRestore(tr, keys, id)
	})
	if err != nil {
		return false, err
	}
	tmp := newTable(rec.Target, rec.TablePath)
	tmp.clock = o.clock
	ok, err := tmp.TryLease(tx, restoreLeaseJob, holder, d)
	if errors.Is(err, ErrResourceNotFound) {
		err = restoreNotFound(id) // moved in, or removed, meanwhile
	}
	return ok, err
}

// ListRestores returns the restores under way, in id order (random).
func ListRestores(rt fdb.ReadTransactor, opts ...Option) ([]RestoreDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return ReadTransact(rt, func(tr fdb.ReadTransaction) ([]RestoreDescription, error) {
		out := []RestoreDescription{}
		keys, ok, err := openBackupKeys(tr, o.root)
		if err != nil || !ok {
			return out, err
		}
		recs, err := restoresIn(tr, keys)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			out = append(out, *r.description())
		}
		return out, nil
	})
}

// DescribeRestore returns the restore under way to table target.
// Errors: [ErrResourceNotFound] if there is none.
func DescribeRestore(rt fdb.ReadTransactor, target string, opts ...Option) (*RestoreDescription, error) {
	all, err := ListRestores(rt, opts...)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].TargetTableName == target {
			return &all[i], nil
		}
	}
	return nil, &TableError{Table: target, Err: ErrResourceNotFound, Reason: "Requested resource not found: Table: " + target + " not found"}
}

// RestoreTableFromBackup creates table in.TargetTableName holding the
// items of backup in.BackupID, with the backup's schema and indexes (or
// the overrides) and, as DynamoDB, without its stream and Time to Live
// settings. It runs many transactions through tx (pass an fdb.Database)
// and returns the new table's handle once the table exists, whole: it is
// [StartRestoreTableFromBackup] followed by [RunRestore].
//
// The new table keeps exact counts (unless the backup's schema is
// WithoutCounts), and its unique indexes are checked before it appears.
//
// Errors: [ErrValidation] for a bad name or override; [ErrBackupNotFound];
// [ErrBackupInUse] if the backup is still being created;
// [ErrTableAlreadyExists] if the target exists, or is being restored; a
// *[DuplicateKeysError] ([ErrUniqueViolation]) if two of the backup's
// items share a key in a unique index (possible when the backup was taken
// while the index was CREATING, or deleted): no table is created, and a
// restore with a GlobalSecondaryIndexOverride without the index succeeds.
// See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableFromBackup.html.
func RestoreTableFromBackup(tx fdb.Transactor, in RestoreTableFromBackupInput, opts ...Option) (*Table, error) {
	return restoreTableFromBackup(tx, in, backupBatch, opts...)
}

func restoreTableFromBackup(tx fdb.Transactor, in RestoreTableFromBackupInput, batch int, opts ...Option) (*Table, error) {
	d, err := StartRestoreTableFromBackup(tx, in, opts...)
	if err != nil {
		return nil, err
	}
	return runRestoreNow(tx, d.RestoreID, batch, opts...)
}

// StartRestoreTableFromBackup checks a restore as [RestoreTableFromBackup]
// does and records it, in one transaction, with its hidden table, empty:
// [RunRestore] writes it. Until then the target's name is taken (another
// restore to it fails with [ErrTableAlreadyExists]) and [ListRestores]
// reports the restore; no table of that name exists.
func StartRestoreTableFromBackup(tx fdb.Transactor, in RestoreTableFromBackupInput, opts ...Option) (*RestoreDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkTableName("TargetTableName", in.TargetTableName); err != nil {
		return nil, err
	}
	b, keys, err := readBackup(tx, o.root, in.BackupID)
	if err != nil {
		return nil, err
	}
	if b.Phase != phaseDone {
		return nil, &BackupError{BackupID: b.ID, Err: ErrBackupInUse, Reason: "Backup is being created: " + b.ID}
	}
	schema, err := restoredSchema(loadSchema(b.Schema), in)
	if err != nil {
		return nil, err
	}
	rec := &storedRestore{BackupID: b.ID, SourceTable: b.Table, Point: b.Created}
	return startRestore(tx, o, keys, in.TargetTableName, schema, in.Settings, rec)
}

// RestoreTableToPointInTime creates table in.TargetTableName holding the
// source table's committed state at the point the input names, with the
// schema the source had when recovery was enabled (or the overrides);
// like RestoreTableFromBackup's, the new table keeps exact counts and
// its unique indexes are checked before it appears. Errors:
// [ErrPointInTimeRecoveryUnavailable]; [ErrInvalidRestoreTime] for a
// point outside the recovery window; those of RestoreTableFromBackup. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html.
func RestoreTableToPointInTime(tx fdb.Transactor, in RestoreTableToPointInTimeInput, opts ...Option) (*Table, error) {
	return restoreTableToPointInTime(tx, in, backupBatch, opts...)
}

func restoreTableToPointInTime(tx fdb.Transactor, in RestoreTableToPointInTimeInput, batch int, opts ...Option) (*Table, error) {
	d, err := StartRestoreTableToPointInTime(tx, in, opts...)
	if err != nil {
		return nil, err
	}
	return runRestoreNow(tx, d.RestoreID, batch, opts...)
}

// StartRestoreTableToPointInTime checks a restore as
// [RestoreTableToPointInTime] does, fixes the point it restores (the
// latest restorable version now, for UseLatestRestorableTime) and
// records it with its hidden table, empty, as
// [StartRestoreTableFromBackup]: [RunRestore] writes it.
func StartRestoreTableToPointInTime(tx fdb.Transactor, in RestoreTableToPointInTimeInput, opts ...Option) (*RestoreDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkTableName("SourceTableName", in.SourceTableName); err != nil {
		return nil, err
	}
	if err := checkTableName("TargetTableName", in.TargetTableName); err != nil {
		return nil, err
	}
	given := 0
	for _, b := range []bool{!in.RestoreDateTime.IsZero(), in.UseLatestRestorableTime, in.Version != 0} {
		if b {
			given++
		}
	}
	if given != 1 {
		return nil, &ValidationError{Op: "RestoreTableToPointInTime", Reason: "give exactly one of RestoreDateTime, UseLatestRestorableTime and Version"}
	}
	src := newTable(in.SourceTableName, tablePath(o.root, in.SourceTableName))
	src.clock, src.guard = o.clock, o.guard
	if err := src.allow(Access{}); err != nil { // a read of the whole source
		return nil, err
	}
	// The restore reads the base and the log over many transactions:
	// trimming (pitr_trim.go) must not fold or clear them meanwhile. The
	// lease is taken here under the restore's name, and again by each run
	// (restore_run.go).
	id, err := newRestoreID()
	if err != nil {
		return nil, err
	}
	release, err := src.holdRecoveryAs(tx, recoveryHolder(id))
	if err != nil {
		return nil, err
	}
	kept := false
	defer func() {
		if !kept {
			release()
		}
	}()
	type point struct {
		b     *storedBackup
		keys  backupKeys
		from  [tupleVersionstampLen]byte
		early int64
		rv    int64
	}
	p, err := ReadTransact(tx, func(tr fdb.ReadTransaction) (point, error) {
		b, keys, _, err := src.pitrBase(tr)
		if err != nil {
			return point{}, err
		}
		if b == nil {
			return point{}, &TableError{Table: in.SourceTableName, Err: ErrPointInTimeRecoveryUnavailable, Reason: "Point in time recovery is not enabled for table '" + in.SourceTableName + "'"}
		}
		from, to, err := logWindow(tr, keys, b.ID)
		if err != nil {
			return point{}, err
		}
		rv, err := tr.GetReadVersion().Get()
		return point{b: b, keys: keys, from: from, early: int64(binary.BigEndian.Uint64(to[:8])), rv: rv}, err
	})
	if err != nil {
		return nil, err
	}
	now := src.now().UTC()
	rec := &storedRestore{ID: id, BackupID: p.b.ID, SourceTable: in.SourceTableName, PITR: true, From: p.from[:], Before: p.rv + 1, Point: now}
	switch {
	case in.Version != 0:
		if in.Version <= p.early || in.Version > p.rv+1 {
			return nil, &TableError{Table: in.SourceTableName, Err: ErrInvalidRestoreTime, Reason: "Version " + strconv.FormatInt(in.Version, 10) + " is outside the recovery window"}
		}
		rec.Before = in.Version
	case !in.RestoreDateTime.IsZero():
		if in.RestoreDateTime.Before(p.b.Created) || in.RestoreDateTime.After(now) {
			return nil, &TableError{Table: in.SourceTableName, Err: ErrInvalidRestoreTime, Reason: "Restore time " + in.RestoreDateTime.UTC().Format(time.RFC3339Nano) + " is outside the recovery window"}
		}
		rec.Until, rec.Point = in.RestoreDateTime, in.RestoreDateTime.UTC()
	}
	schema, err := restoredSchema(loadSchema(p.b.Schema), RestoreTableFromBackupInput{GlobalSecondaryIndexOverride: in.GlobalSecondaryIndexOverride, LocalSecondaryIndexOverride: in.LocalSecondaryIndexOverride})
	if err != nil {
		return nil, err
	}
	d, err := startRestore(tx, o, p.keys, in.TargetTableName, schema, in.Settings, rec)
	kept = err == nil // the restore's runs take the lease again, and release it
	return d, err
}
