package fdyno

import (
	"encoding/binary"
	"errors"
	"strconv"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// pitr.go is point-in-time recovery: a backup (backup.go) whose capture
// never stops. Enabling it starts a capture of id pitrID(TableId) and
// scans a base copy of the table; from then on every write logs its item
// (backup_log.go), and a restore to a version v copies the base and
// replays the log from the capture's start up to v (restore.go). The base
// is exact from the version at which its scan ended (the earliest
// restorable version); the latest restorable time is now.

// Errors of point-in-time recovery, named after DynamoDB's exceptions.
var (
	// ErrPointInTimeRecoveryUnavailable is DynamoDB's
	// PointInTimeRecoveryUnavailableException: recovery is not enabled.
	ErrPointInTimeRecoveryUnavailable = errors.New("fdyno: PointInTimeRecoveryUnavailableException")
	// ErrInvalidRestoreTime is DynamoDB's InvalidRestoreTimeException.
	ErrInvalidRestoreTime = errors.New("fdyno: InvalidRestoreTimeException")
)

// ContinuousBackupsDescription is DynamoDB's ContinuousBackupsDescription
// with its PointInTimeRecoveryDescription.
type ContinuousBackupsDescription struct {
	// PointInTimeRecoveryStatus is ENABLED or DISABLED.
	PointInTimeRecoveryStatus string
	RecoveryPeriodInDays      int
	// EarliestRestorableDateTime is when the base was complete;
	// LatestRestorableDateTime is now (DynamoDB's lags five minutes).
	EarliestRestorableDateTime, LatestRestorableDateTime time.Time
	// EarliestRestorableVersion is the first version a restore may name.
	EarliestRestorableVersion int64
}

// UpdateContinuousBackups enables (recoveryDays 1-35; 0 is DynamoDB's
// default, 35) or disables point-in-time recovery of the table. Enabling
// scans a base copy of the table over many transactions through tx (pass
// an fdb.Database) and returns once recovery is available. Disabling
// removes the base and the log. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContinuousBackups.html.
func (t *Table) UpdateContinuousBackups(tx fdb.Transactor, enabled bool, recoveryDays int) (*ContinuousBackupsDescription, error) {
	return t.updateContinuousBackups(tx, enabled, recoveryDays, backupBatch)
}

func (t *Table) updateContinuousBackups(tx fdb.Transactor, enabled bool, recoveryDays, batch int) (*ContinuousBackupsDescription, error) {
	if recoveryDays == 0 {
		recoveryDays = 35
	}
	if recoveryDays < 1 || recoveryDays > 35 {
		return nil, &ValidationError{Op: "UpdateContinuousBackups", Reason: "RecoveryPeriodInDays must be between 1 and 35, got " + strconv.Itoa(recoveryDays)}
	}
	if !enabled {
		_, err := Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
			st, meta, err := t.loadMeta(tr)
			if err != nil {
				return struct{}{}, err
			}
			keys, err := rootKeys(tr, t)
			if err != nil {
				return struct{}{}, err
			}
			if _, err := dropRecoveryBase(tr, st, meta, keys); err != nil {
				return struct{}{}, err
			}
			return struct{}{}, nil
		})
		if err != nil {
			return nil, err
		}
		return t.DescribeContinuousBackups(tx)
	}
	r, err := t.startCapture(tx, "", "pitr", BackupTypeSystem, batch, recoveryDays)
	if err != nil {
		return nil, err
	}
	if _, err := r.run(tx); err != nil {
		return nil, err
	}
	// Already enabled: the period changes.
	if _, err := Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		b, err := getBackup(tr, r.keys, r.id)
		if err != nil || b.RecoveryDays == recoveryDays {
			return struct{}{}, err
		}
		b.RecoveryDays = recoveryDays
		return struct{}{}, putBackup(tr, r.keys, b)
	}); err != nil {
		return nil, err
	}
	return t.DescribeContinuousBackups(tx)
}

// dropRecoveryBase turns point-in-time recovery off in tr: it removes the
// recovery base from the table's captures and clears it, and the log if
// no other capture reads it. It reports whether recovery was on.
func dropRecoveryBase(tr fdb.Transaction, st *tableState, meta *tableMeta, keys backupKeys) (bool, error) {
	id := pitrID(meta.tableID)
	m := *meta
	m.captures = nil
	for _, c := range meta.captures {
		if c != id {
			m.captures = append(m.captures, c)
		}
	}
	if len(m.captures) == len(meta.captures) {
		return false, nil // not enabled
	}
	if err := putMeta(tr, st.keys, &m); err != nil {
		return false, err
	}
	bumpMetadataVersion(tr)
	tr.Clear(keys.record(id))
	tr.ClearRange(keys.dataRange(id))
	tr.Clear(keys.start(id))
	tr.Clear(keys.end(id))
	if len(m.captures) == 0 {
		tr.ClearRange(st.keys.backupLog)
	}
	return true, nil
}

// errChangedSinceBackup says that a table being deleted was written, or
// its recovery turned on or off, after its system backup was taken.
var errChangedSinceBackup = errors.New("fdyno: the table changed after its deletion backup")

// deletionBackup takes the system backup DynamoDB keeps of a table with
// point-in-time recovery enabled when it is deleted: its state just
// before deletion, named <table>$DeletedTableBackup. nil if recovery is
// off.
func (t *Table) deletionBackup(tx fdb.Transactor) (*BackupDescription, error) {
	on, err := ReadTransact(tx, func(tr fdb.ReadTransaction) (bool, error) {
		b, _, _, err := t.pitrBase(tr)
		return b != nil, err
	})
	if err != nil || !on {
		return nil, err
	}
	if JoinsCaller(tx) {
		return nil, &ValidationError{Op: "DeleteTable", Reason: "a table with point-in-time recovery is deleted through transactions of its own, " +
			"as its system backup takes many: pass an fdb.Database, not a transaction"}
	}
	r, err := t.startBackup(tx, t.name+"$DeletedTableBackup", BackupTypeSystem, backupBatch)
	if err != nil {
		return nil, err
	}
	return r.run(tx)
}

// dropRecovery ends point-in-time recovery of a table deleted in tr,
// whose deletion backup sys (nil: none) must hold its last state: no
// commit wrote the table after sys's version (the recovery log, which
// every write appends to, is read past it, so a concurrent write
// conflicts), and recovery is as it was when sys was taken. Otherwise it
// returns errChangedSinceBackup.
func (t *Table) dropRecovery(tr fdb.Transaction, st *tableState, meta *tableMeta, sys *BackupDescription) error {
	keys, err := rootKeys(tr, t)
	if err != nil {
		return err
	}
	if sys != nil {
		var after [tupleVersionstampLen]byte
		binary.BigEndian.PutUint64(after[:8], uint64(sys.Version))
		_, end := st.keys.backupLog.FDBRangeKeys()
		later, err := tr.GetRange(fdb.KeyRange{Begin: st.keys.backupLogFrom(after), End: end}, fdb.RangeOptions{Limit: 1}).GetSliceWithError()
		if err != nil {
			return err
		}
		if len(later) > 0 {
			return errChangedSinceBackup
		}
	}
	on, err := dropRecoveryBase(tr, st, meta, keys)
	if err != nil {
		return err
	}
	if on != (sys != nil) {
		return errChangedSinceBackup
	}
	return nil
}

// pitrBase reads the table's recovery base; nil if recovery is off.
func (t *Table) pitrBase(rt fdb.ReadTransaction) (*storedBackup, backupKeys, *tableMeta, error) {
	st, err := t.load(rt, nil)
	if err != nil {
		return nil, backupKeys{}, nil, err
	}
	meta, err := readMeta(rt, st.keys, t.name)
	if err != nil {
		return nil, backupKeys{}, nil, err
	}
	keys, err := rootKeys(rt, t)
	if err != nil {
		return nil, keys, nil, err
	}
	b, err := getBackup(rt, keys, pitrID(meta.tableID))
	if errors.Is(err, ErrBackupNotFound) || err == nil && b.Phase != phasePITR {
		return nil, keys, meta, nil
	}
	return b, keys, meta, err
}

// DescribeContinuousBackups reports the table's point-in-time recovery.
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContinuousBackups.html.
func (t *Table) DescribeContinuousBackups(rt fdb.ReadTransactor) (*ContinuousBackupsDescription, error) {
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*ContinuousBackupsDescription, error) {
		b, keys, _, err := t.pitrBase(tr)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return &ContinuousBackupsDescription{PointInTimeRecoveryStatus: "DISABLED"}, nil
		}
		e, err := tr.Get(keys.end(b.ID)).Get()
		if err != nil {
			return nil, err
		}
		if len(e) != 10 {
			return nil, &CorruptError{What: "backup record", Reason: "point-in-time recovery without its earliest version"}
		}
		return &ContinuousBackupsDescription{PointInTimeRecoveryStatus: "ENABLED", RecoveryPeriodInDays: b.RecoveryDays,
			EarliestRestorableDateTime: b.Created, LatestRestorableDateTime: t.now().UTC(),
			EarliestRestorableVersion: int64(binary.BigEndian.Uint64(e[:8]))}, nil
	})
}

// RestoreTableToPointInTimeInput is DynamoDB's RestoreTableToPointInTime
// request, for what the library keeps, with one addition: Version.
type RestoreTableToPointInTimeInput struct {
	SourceTableName string
	TargetTableName string
	// RestoreDateTime restores the state after the last commit whose
	// writes were made at or before it; UseLatestRestorableTime restores
	// the state now. Version (beyond DynamoDB), if not zero, restores the
	// state after every commit with a version below it: "just before this
	// commit". Exactly one of the three must be given.
	RestoreDateTime         time.Time
	UseLatestRestorableTime bool
	Version                 int64
	// The overrides, as RestoreTableFromBackup's.
	GlobalSecondaryIndexOverride []GlobalSecondaryIndex
	LocalSecondaryIndexOverride  []LocalSecondaryIndex
	// Settings, as RestoreTableFromBackup's.
	Settings []byte
}

// recoveryLease is the lease (lease.go) that a trim and a restore to a
// point in time take on the source table, so that a trim never folds or
// clears the base and log a restore is reading over many transactions.
// A restore holds it for at most recoveryRestoreLease, renewing nothing:
// one that dies delays trimming by that much at most, which only
// lengthens the recovery window for a while.
const (
	recoveryLease        = "pitr"
	recoveryTrimLease    = 10 * time.Minute
	recoveryRestoreLease = 24 * time.Hour
	// recoveryWait bounds how long a restore waits for a trim to end.
	recoveryWait = 2 * time.Minute
)

// holdRecovery takes the recovery lease for a restore, waiting while a
// trim (or another restore) holds it, and returns its release.
func (t *Table) holdRecovery(tx fdb.Transactor, what string) (func(), error) {
	holder, err := newBackupID(t.now())
	if err != nil {
		return nil, err
	}
	return t.holdRecoveryAs(tx, what+"-"+holder)
}

// holdRecoveryAs is holdRecovery under the name holder, which takes the
// lease again if holder holds it (a restore run again).
func (t *Table) holdRecoveryAs(tx fdb.Transactor, holder string) (func(), error) {
	for deadline := time.Now().Add(recoveryWait); ; time.Sleep(50 * time.Millisecond) {
		ok, err := t.TryLease(tx, recoveryLease, holder, recoveryRestoreLease)
		if err != nil {
			return nil, err
		}
		if ok {
			return func() { _ = t.ReleaseLease(tx, recoveryLease, holder) }, nil
		}
		if time.Now().After(deadline) {
			return nil, &TableError{Table: t.name, Err: ErrResourceInUse, Reason: "Another restore or trim of the point-in-time recovery of table " + t.name + " is running"}
		}
	}
}
