package fdyno

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// export_snapshot.go takes the snapshots an export reads: hidden backups
// (backup.go) of the export's own, ids exportSnapshotID(id) and
// exportChangesID(id), which ListBackups never shows.
//
//   - Now: a backup like CreateBackup's, exact at the version at which
//     its capture stopped, taken while writers write.
//   - At a cut (a versionstamp: every commit below it): the
//     point-in-time recovery base is copied, then the recovery log from
//     the base's start S up to the cut is folded over the copy, as a
//     backup folds its own log (backupRun.fold). Trimming, which folds
//     and clears that log, is kept away by the recovery lease
//     (pitr.go: holdRecovery) for as long as the export reads it.
//   - Changes in [from, to): the log records of the window folded into a
//     backup of their own, one record per item, its last, deletions kept
//     as such with the writer's time, for an incremental export
//     (export_incremental.go).

// Phases of an export's snapshots beyond backup.go's.
const (
	// phaseCopy copies the point-in-time recovery base.
	phaseCopy = "copy"
	// phaseChanges folds a window of the recovery log, deletions kept.
	phaseChanges = "changes"
)

// exportCopyBytes bounds the bytes one copy transaction writes, far below
// FoundationDB's 10 MB.
const exportCopyBytes = 1 << 20

func exportSnapshotID(id string) string { return "export-" + id }
func exportChangesID(id string) string  { return "export-changes-" + id }

// snapshotNow makes (or finishes) snapshot id of t as a backup taken now
// and returns its record.
func (t *Table) snapshotNow(tx fdb.Transactor, keys backupKeys, id string, batch int) (*storedBackup, error) {
	b, err := ReadTransact(tx, func(tr fdb.ReadTransaction) (*storedBackup, error) {
		b, err := getBackup(tr, keys, id)
		if err != nil && isBackupNotFound(err) {
			return nil, nil
		}
		return b, err
	})
	if err != nil {
		return nil, err
	}
	if b == nil {
		if _, err := t.startCapture(tx, id, "export", backupTypeExport, batch, 0); err != nil {
			return nil, err
		}
	}
	if _, err := (&backupRun{keys: keys, id: id, tbl: t, batch: batch}).run(tx); err != nil {
		return nil, err
	}
	return readSnapshotRecord(tx, keys, id)
}

func readSnapshotRecord(rt fdb.ReadTransactor, keys backupKeys, id string) (*storedBackup, error) {
	return ReadTransact(rt, func(tr fdb.ReadTransaction) (*storedBackup, error) { return getBackup(tr, keys, id) })
}

func isBackupNotFound(err error) bool {
	be, ok := err.(*BackupError)
	return ok && be.Err == ErrBackupNotFound
}

// recoveryLog is the point-in-time recovery of a table as an export reads
// it: the base's id and the log's start S.
type recoveryLog struct {
	base  *storedBackup
	start [tupleVersionstampLen]byte
}

// readRecoveryLog reads t's recovery base and log start; Errors:
// [ErrPointInTimeRecoveryUnavailable].
func (t *Table) readRecoveryLog(tr fdb.ReadTransaction) (recoveryLog, backupKeys, error) {
	b, keys, _, err := t.pitrBase(tr)
	if err != nil {
		return recoveryLog{}, keys, err
	}
	if b == nil {
		return recoveryLog{}, keys, &TableError{Table: t.name, Err: ErrPointInTimeRecoveryUnavailable, Reason: "Point in time recovery is not enabled for table '" + t.name + "'"}
	}
	from, _, err := logWindow(tr, keys, b.ID)
	return recoveryLog{base: b, start: from}, keys, err
}

// versionCut is the cut below every commit of a version below v.
func versionCut(v int64) [tupleVersionstampLen]byte {
	var c [tupleVersionstampLen]byte
	binary.BigEndian.PutUint64(c[:8], uint64(v))
	return c
}

// cutAtTime returns the cut before the first commit, at or after the
// recovery log's start, whose writer's time is at or after at (the time
// of its first record, as a restore reads it: logReplay); if there is
// none, the cut after every commit so far. It reads the log over as many
// transactions as it takes.
func (t *Table) cutAtTime(tx fdb.Transactor, at time.Time, batch int) ([tupleVersionstampLen]byte, error) {
	var cursor fdb.Key
	var commit []byte // the versionstamp of the commit last seen
	for {
		type res struct {
			cut    [tupleVersionstampLen]byte
			next   fdb.Key
			commit []byte
			done   bool
		}
		r, err := ReadTransact(tx, func(tr fdb.ReadTransaction) (res, error) {
			rl, _, err := t.readRecoveryLog(tr)
			if err != nil {
				return res{}, err
			}
			st, err := t.load(tr, nil)
			if err != nil {
				return res{}, err
			}
			rv, err := tr.GetReadVersion().Get()
			if err != nil {
				return res{}, err
			}
			rng := fdb.KeyRange{Begin: st.keys.backupLogFrom(rl.start)}
			_, rng.End = st.keys.backupLog.FDBRangeKeys()
			if cursor != nil {
				rng.Begin = fdb.Key(append(slices.Clone(cursor), 0x00))
			}
			rows, err := tr.Snapshot().GetRange(rng, fdb.RangeOptions{Limit: batch}).GetSliceWithError()
			if err != nil {
				return res{}, err
			}
			elems := len(loadSchema(rl.base.Schema).KeySchema)
			last := slices.Clone(commit)
			for _, row := range rows {
				vs, _, part, err := st.keys.splitBackupLogKey(row.Key, elems)
				if err != nil {
					return res{}, err
				}
				if part != 0 || string(vs[:10]) == string(last) {
					continue
				}
				// A commit's first record: its time is the commit's.
				last = slices.Clone(vs[:10])
				if len(row.Value) >= 9 && int64(binary.BigEndian.Uint64(row.Value[1:9])) >= at.UnixMicro() {
					var c [tupleVersionstampLen]byte
					copy(c[:10], vs[:10])
					return res{cut: c, done: true}, nil
				}
			}
			if len(rows) < batch {
				return res{cut: versionCut(rv + 1), done: true}, nil
			}
			return res{next: rows[len(rows)-1].Key, commit: last}, nil
		})
		if err != nil {
			return [tupleVersionstampLen]byte{}, err
		}
		if r.done {
			return r.cut, nil
		}
		cursor, commit = r.next, r.commit
	}
}

// snapshotAt makes (or finishes) snapshot id of t holding every commit
// below cut, from the point-in-time recovery base and log. The caller
// holds the recovery lease.
func (t *Table) snapshotAt(tx fdb.Transactor, keys backupKeys, id string, cut [tupleVersionstampLen]byte, batch int) (*storedBackup, error) {
	_, err := Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		if _, err := getBackup(tr, keys, id); err == nil || !isBackupNotFound(err) {
			return struct{}{}, err // an earlier attempt started it
		}
		rl, _, err := t.readRecoveryLog(tr)
		if err != nil {
			return struct{}{}, err
		}
		b := &storedBackup{ID: id, Name: "export", Type: string(backupTypeExport), Table: t.name, TableID: rl.base.TableID,
			TablePath: t.path, TableCreated: rl.base.TableCreated, Schema: rl.base.Schema, Phase: phaseCopy, Created: t.now().UTC()}
		tr.Set(keys.start(id), rl.start[:10])
		tr.Set(keys.end(id), cut[:10])
		return struct{}{}, putBackup(tr, keys, b)
	})
	if err != nil {
		return nil, err
	}
	for {
		b, err := Transact(tx, func(tr fdb.Transaction) (*storedBackup, error) { return copyBaseStep(tr, keys, id) })
		if err != nil {
			return nil, err
		}
		if b.Phase != phaseCopy {
			break
		}
	}
	if _, err := (&backupRun{keys: keys, id: id, tbl: t, batch: batch}).run(tx); err != nil {
		return nil, err
	}
	return readSnapshotRecord(tx, keys, id)
}

// copyBaseStep copies the next bytes of the recovery base into snapshot
// id, then moves it to phaseFold.
func copyBaseStep(tr fdb.Transaction, keys backupKeys, id string) (*storedBackup, error) {
	b, err := getBackup(tr, keys, id)
	if err != nil || b.Phase != phaseCopy {
		return b, err
	}
	base := pitrID(b.TableID)
	rng := keys.dataRange(base)
	if b.Cursor != nil {
		rng.Begin = fdb.Key(append(slices.Clone(b.Cursor), 0x00))
	}
	it := tr.Snapshot().GetRange(rng, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
	n := 0
	for it.Advance() {
		kv, err := it.Get()
		if err != nil {
			return nil, err
		}
		k, err := keys.rebaseDataKey(base, id, kv.Key)
		if err != nil {
			return nil, err
		}
		tr.Set(k, kv.Value)
		b.Cursor = kv.Key
		if n += len(kv.Key) + len(kv.Value); n >= exportCopyBytes {
			return b, putBackup(tr, keys, b)
		}
	}
	b.Phase, b.Cursor = phaseFold, nil
	return b, putBackup(tr, keys, b)
}

// foldChanges folds the recovery log records of t in [from, to) into
// snapshot id, keeping each item's last record, deletions included.
func (t *Table) foldChanges(tx fdb.Transactor, keys backupKeys, id string, from, to [tupleVersionstampLen]byte, batch int) error {
	_, err := Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		if _, err := getBackup(tr, keys, id); err == nil || !isBackupNotFound(err) {
			return struct{}{}, err
		}
		rl, _, err := t.readRecoveryLog(tr)
		if err != nil {
			return struct{}{}, err
		}
		b := &storedBackup{ID: id, Name: "export-changes", Type: string(backupTypeExport), Table: t.name, TableID: rl.base.TableID,
			TablePath: t.path, Schema: rl.base.Schema, Phase: phaseChanges, Created: t.now().UTC()}
		return struct{}{}, putBackup(tr, keys, b)
	})
	if err != nil {
		return err
	}
	for {
		b, err := Transact(tx, func(tr fdb.Transaction) (*storedBackup, error) {
			b, err := getBackup(tr, keys, id)
			if err != nil || b.Phase != phaseChanges {
				return b, err
			}
			st, err := t.load(tr, nil)
			if err != nil {
				return nil, err
			}
			rng := st.keys.backupLogRange(from, to)
			if b.Cursor != nil {
				rng.Begin = fdb.Key(append(slices.Clone(b.Cursor), 0x00))
			}
			last, more, err := foldLog(tr, st, rng, batch, func(rec *partsRecord) error {
				tr.ClearRange(keys.itemRange(id, rec.kv))
				for _, p := range splitParts(rec.deleted, rec.data, time.UnixMicro(rec.micros), func(part int) fdb.Key { return keys.dataKey(id, rec.kv, part) }) {
					tr.Set(p.Key, p.Value)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			if more {
				b.Cursor = last
			} else {
				b.Phase, b.Cursor = phaseDone, nil
			}
			return b, putBackup(tr, keys, b)
		})
		if err != nil {
			return err
		}
		if b.Phase == phaseDone {
			return nil
		}
	}
}

// dropSnapshot removes snapshot id (its record, items and log window).
func dropSnapshot(tx fdb.Transactor, keys backupKeys, id string) error {
	_, err := Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		tr.Clear(keys.record(id))
		tr.ClearRange(keys.dataRange(id))
		tr.Clear(keys.start(id))
		tr.Clear(keys.end(id))
		return struct{}{}, nil
	})
	return err
}
