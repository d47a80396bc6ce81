package fdyno

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// backup.go holds on-demand backups: CreateBackup, DescribeBackup,
// ListBackups and DeleteBackup (RestoreTableFromBackup is in restore.go).
//
// A backup holds the table exactly as it was at one commit version V,
// however large the table, while writers keep writing. It runs in phases,
// each a series of short transactions that record their progress in the
// backup's record, so a backup interrupted at any point resumes
// ([ResumeBackup]) from its last committed step:
//
//  1. start: one transaction adds the backup to the table's captures
//     (its metadata, bumping the metadata version) and stores the
//     commit versionstamp S. Every write that commits after S logs the
//     item's new state in the same transaction (backup_log.go): a writer
//     with an older view of the metadata conflicts on the metadata key
//     and retries with the new one.
//  2. scan: the items are copied in key order, a batch per transaction,
//     with snapshot reads (no conflict with writers); each batch is the
//     table at its own read version, after S.
//  3. stop: one transaction removes the backup from the captures and
//     stores its commit versionstamp E; writes after E log nothing for
//     this backup. V is the last version before E.
//  4. fold: the log records with versionstamps in [S, E) are replayed, in
//     commit order, over the copy: each sets or clears its item.
//  5. done: the backup is AVAILABLE; log records no other capture needs
//     are cleared.
//
// Why this is exact: an item that no write touched in (S, E) has the
// same state at every version of the window, so the scan's copy is its
// state at V; an item that some write touched has a log record for that
// write, and the last one replayed is its state after the last write
// before E, that is at V. docs/design.md has the longer argument.

// BackupStatus is DynamoDB's BackupStatus.
type BackupStatus string

const (
	BackupStatusCreating  BackupStatus = "CREATING"
	BackupStatusDeleted   BackupStatus = "DELETED"
	BackupStatusAvailable BackupStatus = "AVAILABLE"
)

// BackupType is DynamoDB's BackupType: USER for CreateBackup's backups,
// SYSTEM for those the service makes (DeleteTable of a table with
// point-in-time recovery).
type BackupType string

const (
	BackupTypeUser   BackupType = "USER"
	BackupTypeSystem BackupType = "SYSTEM"
)

// backupTypeExport is the BackupType of an export's snapshots
// (export_snapshot.go), which ListBackups never shows.
const backupTypeExport BackupType = "EXPORT"

// Errors of backups, named after DynamoDB's exceptions.
var (
	// ErrBackupNotFound is DynamoDB's BackupNotFoundException.
	ErrBackupNotFound = errors.New("fdyno: BackupNotFoundException")
	// ErrBackupInUse is DynamoDB's BackupInUseException: the backup is
	// still being created, or being restored.
	ErrBackupInUse = errors.New("fdyno: BackupInUseException")
	// ErrTableAlreadyExists is DynamoDB's TableAlreadyExistsException: a
	// restore's target table exists.
	ErrTableAlreadyExists = errors.New("fdyno: TableAlreadyExistsException")
)

// BackupError reports an error about one backup; it unwraps to one of the
// errors above.
type BackupError struct {
	BackupID string
	Reason   string
	Err      error
}

func (e *BackupError) Error() string { return e.Err.Error() + ": " + e.Reason }

// Unwrap returns the error's category.
func (e *BackupError) Unwrap() error { return e.Err }

func backupNotFound(id string) error {
	return &BackupError{BackupID: id, Err: ErrBackupNotFound, Reason: "Backup not found: " + id}
}

// BackupDescription is what DescribeBackup reports of a backup: DynamoDB's
// BackupDetails, SourceTableDetails and SourceTableFeatureDetails.
type BackupDescription struct {
	BackupID     string
	BackupName   string
	BackupStatus BackupStatus
	BackupType   BackupType
	// BackupCreationDateTime is the time of V, the version whose state
	// the backup holds (the clock of the handle that made it).
	BackupCreationDateTime time.Time
	// Version is the FoundationDB commit version of V: the backup holds
	// every write committed before it and none after.
	Version int64
	// BackupSizeBytes and ItemCount are the items' encoded size and
	// number, known once the backup is AVAILABLE.
	BackupSizeBytes int64
	ItemCount       int64
	// The source table: its name, id, creation time and schema (key
	// schema, attribute definitions, indexes, stream and TTL settings).
	TableName             string
	TableID               string
	TableCreationDateTime time.Time
	Schema                TableSchema
}

// Backup phases, stored in the record.
const (
	phaseScan = "scan"
	phaseStop = "stop"
	phaseFold = "fold"
	phaseDone = "done"
	// phasePITR is the continuous phase of a point-in-time recovery base
	// (pitr.go): scanned, never stopped.
	phasePITR = "pitr"
	// phaseGone is never stored: the step that found the table deleted
	// removed the backup.
	phaseGone = "gone"
)

// storedBackup is a backup's record, JSON at ("k", "b", id).
type storedBackup struct {
	ID, Name, Type       string
	Table, TableID       string
	TablePath            []string
	TableCreated         time.Time `json:",omitzero"`
	Schema               storedSchema
	Phase                string
	Cursor               []byte `json:",omitempty"`
	Created              time.Time
	Version              int64
	SizeBytes, ItemCount int64
	// Continuous marks the base of point-in-time recovery (pitr.go):
	// after its scan it stays in phasePITR; RecoveryDays is its period.
	Continuous   bool `json:",omitempty"`
	RecoveryDays int  `json:",omitempty"`
}

func (b *storedBackup) description() *BackupDescription {
	d := &BackupDescription{BackupID: b.ID, BackupName: b.Name, BackupType: BackupType(b.Type), BackupStatus: BackupStatusCreating,
		BackupCreationDateTime: b.Created, Version: b.Version, BackupSizeBytes: b.SizeBytes, ItemCount: b.ItemCount,
		TableName: b.Table, TableID: b.TableID, TableCreationDateTime: b.TableCreated, Schema: loadSchema(b.Schema)}
	if b.Phase == phaseDone {
		d.BackupStatus = BackupStatusAvailable
	}
	return d
}

// backupBatch is the number of items (or log records) one backup
// transaction copies (or replays): far below FoundationDB's 5-second and
// 10 MB limits for items of DynamoDB's 400 KB maximum.
const backupBatch = 200

// backupRun is one backup being made.
type backupRun struct {
	keys  backupKeys
	id    string
	tbl   *Table
	batch int
}

// CreateBackup makes an on-demand backup of the table named backupName
// and returns its description once it is AVAILABLE. It runs many
// transactions through tx (pass an fdb.Database) and may run while other
// clients write to the table: the backup holds the table exactly as it
// was at one version (BackupDescription.Version), its creation time.
//
// If CreateBackup returns an error after the backup was started, the
// backup stays CREATING and [ResumeBackup] finishes it, from its last
// committed step. A backup that cannot be finished (its table deleted)
// is removed: DynamoDB has no FAILED backup status.
//
// Errors: [ErrValidation] for a bad name; [ErrResourceNotFound] if the
// table does not exist (or is deleted during the backup). See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateBackup.html.
func (t *Table) CreateBackup(tx fdb.Transactor, backupName string) (*BackupDescription, error) {
	return t.createBackup(tx, backupName, backupBatch)
}

func (t *Table) createBackup(tx fdb.Transactor, backupName string, batch int) (*BackupDescription, error) {
	if err := checkBackupName(backupName); err != nil {
		return nil, err
	}
	r, err := t.startBackup(tx, backupName, BackupTypeUser, batch)
	if err != nil {
		return nil, err
	}
	return r.run(tx)
}

// StartBackup starts an on-demand backup of the table, as [Table.CreateBackup]
// does, in one transaction, and returns its description, CREATING:
// [ResumeBackup] makes it, in this program or another. Its
// BackupCreationDateTime is the start's time until it is AVAILABLE.
func (t *Table) StartBackup(tx fdb.Transactor, backupName string) (*BackupDescription, error) {
	if err := checkBackupName(backupName); err != nil {
		return nil, err
	}
	r, err := t.startBackup(tx, backupName, BackupTypeUser, backupBatch)
	if err != nil {
		return nil, err
	}
	b, _, err := readBackup(tx, t.path[:len(t.path)-1], r.id)
	if err != nil {
		return nil, err
	}
	return b.description(), nil
}

// ResumeBackup finishes backup id, left CREATING by an interrupted
// CreateBackup, and returns its description. An AVAILABLE backup is
// returned as it is.
func ResumeBackup(tx fdb.Transactor, id string, opts ...Option) (*BackupDescription, error) {
	return resumeBackup(tx, id, backupBatch, opts...)
}

func resumeBackup(tx fdb.Transactor, id string, batch int, opts ...Option) (*BackupDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	b, keys, err := readBackup(tx, o.root, id)
	if err != nil {
		return nil, err
	}
	tbl := newTable(b.Table, b.TablePath)
	tbl.maxItemSize, tbl.chunkThreshold, tbl.clock = o.maxItemSize, o.chunkThreshold, o.clock
	return (&backupRun{keys: keys, id: id, tbl: tbl, batch: batch}).run(tx)
}

// checkBackupName applies DynamoDB's BackupName rule: 3-255 of
// [a-zA-Z0-9_.-].
func checkBackupName(name string) error { return checkTableName("BackupName", name) }

// newBackupID returns an id in DynamoDB's form: the creation time in
// Unix milliseconds, a dash and 8 random hexadecimal digits.
func newBackupID(now time.Time) (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return strconv.FormatInt(now.UnixMilli(), 10) + "-" + hex.EncodeToString(b[:]), nil
}

// openBackupKeys opens the backup keys of root in rt.
func openBackupKeys(rt fdb.ReadTransaction, root []string) (backupKeys, bool, error) {
	dir, err := directory.Open(rt, root, nil)
	if errors.Is(err, directory.ErrDirNotExists) {
		return backupKeys{}, false, nil
	}
	if err != nil {
		return backupKeys{}, false, err
	}
	return newBackupKeys(dir), true, nil
}

// rootKeys returns the backup keys of the root a table lives in.
func rootKeys(rt fdb.ReadTransaction, t *Table) (backupKeys, error) {
	k, ok, err := openBackupKeys(rt, t.path[:len(t.path)-1])
	if err == nil && !ok {
		err = tableNotFound(t.name)
	}
	return k, err
}

func getBackup(rt fdb.ReadTransaction, keys backupKeys, id string) (*storedBackup, error) {
	raw, err := rt.Get(keys.record(id)).Get()
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, backupNotFound(id)
	}
	var b storedBackup
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, &CorruptError{What: "backup record", Reason: "cannot decode backup " + id}
	}
	return &b, nil
}

func putBackup(tr fdb.Transaction, keys backupKeys, b *storedBackup) error {
	raw, err := json.Marshal(b)
	if err != nil {
		return err
	}
	tr.Set(keys.record(b.ID), raw)
	return nil
}

func readBackup(rt fdb.ReadTransactor, root []string, id string) (*storedBackup, backupKeys, error) {
	type res struct {
		b    *storedBackup
		keys backupKeys
	}
	r, err := ReadTransact(rt, func(tr fdb.ReadTransaction) (res, error) {
		keys, ok, err := openBackupKeys(tr, root)
		if err != nil {
			return res{}, err
		}
		if !ok {
			return res{}, backupNotFound(id)
		}
		b, err := getBackup(tr, keys, id)
		return res{b, keys}, err
	})
	return r.b, r.keys, err
}

// versionstampValue is the value SetVersionstampedValue takes to store
// the transaction's 10-byte commit versionstamp.
func versionstampValue() []byte { return make([]byte, 14) }

// startBackup is phase 1.
func (t *Table) startBackup(tx fdb.Transactor, name string, typ BackupType, batch int) (*backupRun, error) {
	now := t.now().UTC()
	id, err := newBackupID(now)
	if err != nil {
		return nil, err
	}
	return t.startCapture(tx, id, name, typ, batch, 0)
}

// startCapture starts backup id; recoveryDays > 0 makes it the continuous
// base of point-in-time recovery (pitr.go), whose id is derived from the
// table's in the transaction (pitrID).
func (t *Table) startCapture(tx fdb.Transactor, id, name string, typ BackupType, batch, recoveryDays int) (*backupRun, error) {
	now := t.now().UTC()
	return Transact(tx, func(tr fdb.Transaction) (*backupRun, error) {
		if err := t.allow(Access{}); err != nil { // a read of the whole table
			return nil, err
		}
		st, meta, err := t.loadMeta(tr)
		if err != nil {
			return nil, err
		}
		keys, err := rootKeys(tr, t)
		if err != nil {
			return nil, err
		}
		if recoveryDays > 0 {
			id = pitrID(meta.tableID)
		}
		run := &backupRun{keys: keys, id: id, tbl: t, batch: batch}
		if slices.Contains(meta.captures, id) {
			return run, nil // an earlier attempt committed
		}
		b := &storedBackup{ID: id, Name: name, Type: string(typ), Table: t.name, TableID: meta.tableID, TablePath: t.path,
			TableCreated: meta.created, Schema: storeSchema(st.schema), Phase: phaseScan, Created: now,
			Continuous: recoveryDays > 0, RecoveryDays: recoveryDays}
		if err := putBackup(tr, keys, b); err != nil {
			return nil, err
		}
		m := *meta
		m.captures = append(slices.Clone(meta.captures), id)
		if err := putMeta(tr, st.keys, &m); err != nil {
			return nil, err
		}
		bumpMetadataVersion(tr)
		tr.SetVersionstampedValue(keys.start(id), versionstampValue())
		return run, nil
	})
}

// run carries the backup through its remaining phases.
func (r *backupRun) run(tx fdb.Transactor) (*BackupDescription, error) {
	for {
		b, err := Transact(tx, r.step)
		if err != nil {
			return nil, err
		}
		if b.Phase == phaseDone || b.Phase == phasePITR {
			return b.description(), nil
		}
		if b.Phase == phaseGone {
			return nil, &TableError{Table: b.Table, Err: ErrResourceNotFound, Reason: "Table " + b.Table + " was deleted during backup " + r.id}
		}
	}
}

// step runs one transaction of the backup's current phase and returns the
// record as it leaves it.
func (r *backupRun) step(tr fdb.Transaction) (*storedBackup, error) {
	b, err := getBackup(tr, r.keys, r.id)
	if err != nil {
		return nil, err
	}
	switch b.Phase {
	case phaseDone, phasePITR:
		return b, nil
	case phaseFold:
		err = r.fold(tr, b)
	default:
		var st *tableState
		var meta *tableMeta
		st, meta, err = r.tbl.loadMeta(tr)
		if err == nil && (meta.tableID != b.TableID || !slices.Contains(meta.captures, r.id)) {
			err = tableNotFound(b.Table)
		}
		if errors.Is(err, ErrResourceNotFound) {
			// The table was deleted (and perhaps recreated): the backup
			// cannot be finished, and goes.
			tr.Clear(r.keys.record(r.id))
			tr.ClearRange(r.keys.dataRange(r.id))
			tr.Clear(r.keys.start(r.id))
			b.Phase = phaseGone // committed, then reported by run
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if b.Phase == phaseScan {
			err = r.scan(tr, st, b)
		} else {
			err = r.stop(tr, st, meta, b)
		}
	}
	if err != nil {
		return nil, err
	}
	return b, putBackup(tr, r.keys, b)
}

// scan is one transaction of phase 2: the next batch of items.
func (r *backupRun) scan(tr fdb.Transaction, st *tableState, b *storedBackup) error {
	begin, end := st.keys.items.FDBRangeKeys()
	if b.Cursor != nil {
		begin = fdb.Key(append(slices.Clone(b.Cursor), 0x00))
	}
	snap := tr.Snapshot()
	rows, err := snap.GetRange(fdb.KeyRange{Begin: begin, End: end}, fdb.RangeOptions{Limit: r.batch}).GetSliceWithError()
	if err != nil {
		return err
	}
	l := loaderOf(snap)
	reads := make([]itemRead, len(rows))
	for i, row := range rows {
		kv, err := st.keys.splitItemKey(row.Key)
		if err != nil {
			return err
		}
		if reads[i], err = l.row(&st.keys, kv, row.Value); err != nil {
			return err
		}
		l.follow(&reads[i])
	}
	for i := range reads {
		_, enc, err := l.load(&reads[i])
		if err != nil {
			return err
		}
		kv := reads[i].kv
		tr.ClearRange(r.keys.itemRange(r.id, kv))
		for _, p := range splitParts(false, enc, time.Time{}, func(part int) fdb.Key { return r.keys.dataKey(r.id, kv, part) }) {
			tr.Set(p.Key, p.Value)
		}
		b.ItemCount++
		b.SizeBytes += int64(len(enc))
	}
	if len(rows) < r.batch && b.Continuous {
		// The base is complete: restorable from the version this
		// transaction commits at (pitr.go).
		b.Phase, b.Cursor, b.Created = phasePITR, nil, r.tbl.now().UTC()
		tr.SetVersionstampedValue(r.keys.end(r.id), versionstampValue())
	} else if len(rows) < r.batch {
		b.Phase, b.Cursor = phaseStop, nil
	} else {
		b.Cursor = rows[len(rows)-1].Key
	}
	return nil
}

// stop is phase 3.
func (r *backupRun) stop(tr fdb.Transaction, st *tableState, meta *tableMeta, b *storedBackup) error {
	m := *meta
	m.captures = slices.DeleteFunc(slices.Clone(meta.captures), func(c string) bool { return c == r.id })
	if err := putMeta(tr, st.keys, &m); err != nil {
		return err
	}
	bumpMetadataVersion(tr)
	tr.SetVersionstampedValue(r.keys.end(r.id), versionstampValue())
	b.Phase, b.Cursor, b.Created = phaseFold, nil, r.tbl.now().UTC()
	return nil
}

// logWindow reads the versionstamps S and E of backup id as the bounds
// of a log range: its records are those in [S, E).
func logWindow(rt fdb.ReadTransaction, keys backupKeys, id string) (from, to [tupleVersionstampLen]byte, err error) {
	fs, fe := rt.Get(keys.start(id)), rt.Get(keys.end(id))
	s, err := fs.Get()
	if err != nil {
		return from, to, err
	}
	e, err := fe.Get()
	if err != nil {
		return from, to, err
	}
	if len(s) != 10 || len(e) != 10 {
		return from, to, &CorruptError{What: "backup record", Reason: "backup " + id + " has no log window"}
	}
	copy(from[:], s)
	copy(to[:], e)
	return from, to, nil
}

// fold is one transaction of phase 4: the next batch of log records,
// replayed over the copy.
func (r *backupRun) fold(tr fdb.Transaction, b *storedBackup) error {
	from, to, err := logWindow(tr, r.keys, r.id)
	if err != nil {
		return err
	}
	st, err := r.tbl.load(tr, nil)
	if err != nil {
		return err
	}
	if b.Cursor == nil {
		b.Version = int64(binary.BigEndian.Uint64(to[:8]))
	}
	logRange := st.keys.backupLogRange(from, to)
	if b.Cursor != nil {
		logRange.Begin = fdb.Key(append(slices.Clone(b.Cursor), 0x00))
	}
	last, more, err := foldLog(tr, st, logRange, r.batch, func(rec *partsRecord) error {
		return r.apply(tr, b, rec)
	})
	if err != nil {
		return err
	}
	if !more {
		return r.finish(tr, st, b, to)
	}
	b.Cursor = last
	return nil
}

// foldLog reads the log records of rng in commit order, up to about n of
// them ending on a record boundary, keeps the last record of each item
// and hands those to apply (in an order of their own). It returns the
// last key read and whether records remain.
func foldLog(tr fdb.Transaction, st *tableState, rng fdb.KeyRange, n int, apply func(*partsRecord) error) (fdb.Key, bool, error) {
	elems := 1
	if st.rng.Name != "" {
		elems = 2
	}
	it := tr.Snapshot().GetRange(rng, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
	j := partsJoiner{timed: true, what: "backup log"}
	latest := map[string]*partsRecord{}
	var order []string
	var last fdb.Key
	count, broke := 0, false
	for it.Advance() {
		kv, err := it.Get()
		if err != nil {
			return nil, false, err
		}
		if count >= n && j.done {
			// Stop on a record boundary, before this record.
			broke = true
			break
		}
		_, ikv, part, err := st.keys.splitBackupLogKey(kv.Key, elems)
		if err != nil {
			return nil, false, err
		}
		rec, err := j.add(ikv, part, kv.Value)
		if err != nil {
			return nil, false, err
		}
		last = kv.Key
		if rec != nil {
			count++
			if _, ok := latest[string(rec.kv)]; !ok {
				order = append(order, string(rec.kv))
			}
			latest[string(rec.kv)] = rec
		}
	}
	more := broke
	for _, k := range order {
		if err := apply(latest[k]); err != nil {
			return nil, false, err
		}
	}
	return last, more, nil
}

// apply replays one log record over the backup's copy.
func (r *backupRun) apply(tr fdb.Transaction, b *storedBackup, rec *partsRecord) error {
	rng := r.keys.itemRange(r.id, rec.kv)
	old, err := tr.GetRange(rng, fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		return err
	}
	if len(old) > 0 {
		b.ItemCount--
		for _, kv := range old {
			b.SizeBytes -= int64(len(kv.Value) - 1)
		}
	}
	tr.ClearRange(rng)
	if rec.deleted {
		return nil
	}
	for _, p := range splitParts(false, rec.data, time.Time{}, func(part int) fdb.Key { return r.keys.dataKey(r.id, rec.kv, part) }) {
		tr.Set(p.Key, p.Value)
	}
	b.ItemCount++
	b.SizeBytes += int64(len(rec.data))
	return nil
}

// finish is phase 5: the backup is AVAILABLE, and the log records that no
// other capture needs are cleared.
func (r *backupRun) finish(tr fdb.Transaction, st *tableState, b *storedBackup, to [tupleVersionstampLen]byte) error {
	b.Phase, b.Cursor = phaseDone, nil
	meta, err := readMeta(tr, st.keys, r.tbl.name)
	if err != nil {
		return err
	}
	horizon := to
	for _, c := range meta.captures {
		s, err := tr.Get(r.keys.start(c)).Get()
		if err != nil {
			return err
		}
		var cs [tupleVersionstampLen]byte
		copy(cs[:], s)
		if string(cs[:]) < string(horizon[:]) {
			horizon = cs
		}
	}
	begin, _ := st.keys.backupLog.FDBRangeKeys()
	tr.ClearRange(fdb.KeyRange{Begin: begin, End: st.keys.backupLogFrom(horizon)})
	tr.Clear(r.keys.start(r.id))
	tr.Clear(r.keys.end(r.id))
	return nil
}

// DescribeBackup returns backup id's description. Errors:
// [ErrBackupNotFound]. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeBackup.html.
func DescribeBackup(rt fdb.ReadTransactor, id string, opts ...Option) (*BackupDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	b, _, err := readBackup(rt, o.root, id)
	if err != nil {
		return nil, err
	}
	return b.description(), nil
}

// ListBackupsInput is DynamoDB's ListBackups request.
type ListBackupsInput struct {
	// TableName, if not empty, lists only the backups of that table.
	TableName string
	// TimeRangeLowerBound (inclusive) and TimeRangeUpperBound (exclusive)
	// bound the backups' creation times when not zero.
	TimeRangeLowerBound, TimeRangeUpperBound time.Time
	// BackupType is USER (the default, as DynamoDB's), SYSTEM or ALL.
	BackupType string
	// Limit is the most backups to return (0: no limit).
	Limit int
	// ExclusiveStartBackupID continues a listing after that backup.
	ExclusiveStartBackupID string
}

// ListBackupsOutput is DynamoDB's ListBackups response.
type ListBackupsOutput struct {
	BackupSummaries []BackupDescription
	// LastEvaluatedBackupID is set when more backups may follow.
	LastEvaluatedBackupID string
}

// ListBackups lists backups in id order (creation time, as DynamoDB's).
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListBackups.html.
func ListBackups(rt fdb.ReadTransactor, in ListBackupsInput, opts ...Option) (*ListBackupsOutput, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	switch in.BackupType {
	case "", "USER", "SYSTEM", "ALL":
	default:
		return nil, &ValidationError{Op: "ListBackups", Reason: "1 validation error detected: Value '" + in.BackupType + "' at 'backupType' failed to satisfy constraint: Member must satisfy enum value set: [USER, SYSTEM, ALL]"}
	}
	if in.Limit < 0 || in.Limit > 100 {
		return nil, &ValidationError{Op: "ListBackups", Reason: "Limit must be between 1 and 100"}
	}
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*ListBackupsOutput, error) {
		out := &ListBackupsOutput{BackupSummaries: []BackupDescription{}}
		keys, ok, err := openBackupKeys(tr, o.root)
		if err != nil || !ok {
			return out, err
		}
		begin, end := keys.records.FDBRangeKeys()
		if in.ExclusiveStartBackupID != "" {
			begin = fdb.Key(append(keys.record(in.ExclusiveStartBackupID), 0x00))
		}
		rows, err := tr.GetRange(fdb.KeyRange{Begin: begin, End: end}, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			var b storedBackup
			if err := json.Unmarshal(row.Value, &b); err != nil {
				return nil, &CorruptError{What: "backup record", Reason: "cannot decode a backup record"}
			}
			if b.Continuous || b.Type == string(backupTypeExport) || in.TableName != "" && b.Table != in.TableName ||
				!in.TimeRangeLowerBound.IsZero() && b.Created.Before(in.TimeRangeLowerBound) ||
				!in.TimeRangeUpperBound.IsZero() && !b.Created.Before(in.TimeRangeUpperBound) {
				continue
			}
			want := in.BackupType
			if want == "" {
				want = "USER"
			}
			if want != "ALL" && b.Type != want {
				continue
			}
			if in.Limit > 0 && len(out.BackupSummaries) == in.Limit {
				out.LastEvaluatedBackupID = out.BackupSummaries[len(out.BackupSummaries)-1].BackupID
				break
			}
			out.BackupSummaries = append(out.BackupSummaries, *b.description())
		}
		return out, nil
	})
}

// DeleteBackup deletes backup id and returns its description with status
// DELETED. Errors: [ErrBackupNotFound]; [ErrBackupInUse] while it is
// being created or restored. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteBackup.html.
func DeleteBackup(tx fdb.Transactor, id string, opts ...Option) (*BackupDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return Transact(tx, func(tr fdb.Transaction) (*BackupDescription, error) {
		keys, ok, err := openBackupKeys(tr, o.root)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, backupNotFound(id)
		}
		b, err := getBackup(tr, keys, id)
		if err != nil {
			return nil, err
		}
		if b.Phase != phaseDone {
			return nil, &BackupError{BackupID: id, Err: ErrBackupInUse, Reason: "Backup is being created: " + id}
		}
		restores, err := restoresIn(tr, keys)
		if err != nil {
			return nil, err
		}
		for _, r := range restores {
			if r.BackupID == id {
				return nil, &BackupError{BackupID: id, Err: ErrBackupInUse, Reason: "Backup is being restored: " + id}
			}
		}
		tr.Clear(keys.record(id))
		tr.ClearRange(keys.dataRange(id))
		d := b.description()
		d.BackupStatus = BackupStatusDeleted
		return d, nil
	})
}

// storedRestore is a restore's record, JSON at ("k", "j", id).
type storedRestore struct {
	ID          string
	Target      string
	TablePath   []string
	TableID     string
	BackupID    string
	SourceTable string
	// PITR restores replay the source's log from versionstamp From, up to
	// the first commit at or after version Before, or past time Until.
	PITR     bool      `json:",omitempty"`
	From     []byte    `json:",omitempty"`
	Before   int64     `json:",omitempty"`
	Until    time.Time `json:",omitzero"`
	Point    time.Time
	Start    time.Time
	Schema   storedSchema
	Settings []byte `json:",omitempty"`
	Items    int64
	Bytes    int64
}

func restoreNotFound(id string) error {
	return &TableError{Err: ErrResourceNotFound, Reason: "Restore not found: " + id}
}

func getRestore(rt fdb.ReadTransaction, keys backupKeys, id string) (*storedRestore, error) {
	raw, err := rt.Get(keys.restoreJob(id)).Get()
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, restoreNotFound(id)
	}
	var r storedRestore
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, &CorruptError{What: "restore record", Reason: "cannot decode restore " + id}
	}
	return &r, nil
}

func putRestore(tr fdb.Transaction, keys backupKeys, r *storedRestore) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tr.Set(keys.restoreJob(r.ID), raw)
	return nil
}

// restoresIn reads every restore record of keys.
func restoresIn(rt fdb.ReadTransaction, keys backupKeys) ([]*storedRestore, error) {
	rows, err := rt.GetRange(keys.jobs, fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		return nil, err
	}
	out := make([]*storedRestore, 0, len(rows))
	for _, row := range rows {
		var r storedRestore
		if err := json.Unmarshal(row.Value, &r); err != nil {
			return nil, &CorruptError{What: "restore record", Reason: "cannot decode a restore record"}
		}
		out = append(out, &r)
	}
	return out, nil
}
