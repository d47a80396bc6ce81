package fdyno

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// export_run.go runs an export StartExport recorded: the snapshot
// (export_snapshot.go), the files (export_files.go), the record's end.

// exportReadItems and exportReadBytes bound one read transaction of a
// snapshot: far below FoundationDB's 5 seconds.
const (
	exportReadItems = 1000
	exportReadBytes = 4 << 20
)

// ExportTableToPointInTime exports table in.TableName to dest in
// DynamoDB's export layout and returns the export's description once it
// is COMPLETED. It runs many transactions through tx (pass an
// fdb.Database) and may run while other clients write to the table: the
// export holds the table exactly as it was at one version.
//
// Errors: [ErrValidation]; [ErrResourceNotFound] for a missing table;
// [ErrPointInTimeRecoveryUnavailable] for an ExportTime, Version or
// incremental export of a table without point-in-time recovery;
// [ErrInvalidExportTime]; [ErrExportConflict]. An export that fails
// after it started is recorded FAILED and its error returned. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html.
func ExportTableToPointInTime(tx fdb.Transactor, in ExportTableToPointInTimeInput, dest ExportDestination, opts ...Option) (*ExportDescription, error) {
	d, err := StartExport(tx, in, opts...)
	if err != nil {
		return nil, err
	}
	return RunExport(tx, d.ExportID, dest, opts...)
}

// RunExport runs export id, recorded IN_PROGRESS by [StartExport],
// writing its objects to dest, and returns its description once it is
// COMPLETED. An export that is no longer IN_PROGRESS is returned as it
// is. It runs many transactions through tx (pass an fdb.Database); one
// interrupted at any point may be run again, and then starts its files
// again from a snapshot that resumes where it stopped.
//
// An error after the export started marks it FAILED, with DynamoDB's
// FailureCode and FailureMessage, and is returned; one that is (or
// wraps) context.Canceled, from a transactor that stops between
// transactions, leaves it IN_PROGRESS, to be run again.
func RunExport(tx fdb.Transactor, id string, dest ExportDestination, opts ...Option) (*ExportDescription, error) {
	return runExport(tx, id, dest, backupBatch, exportFileItems, opts...)
}

func runExport(tx fdb.Transactor, id string, dest ExportDestination, batch, perFile int, opts ...Option) (*ExportDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	e, keys, err := exportRecords.read(tx, o.root, id)
	if err != nil {
		return nil, err
	}
	src := newTable(e.TableName, e.TablePath)
	src.maxItemSize, src.chunkThreshold, src.clock = o.maxItemSize, o.chunkThreshold, o.clock
	if e.ExportStatus != ExportStatusInProgress {
		return &e.ExportDescription, dropExportSnapshots(tx, keys, id)
	}
	r := &exportRun{tx: tx, keys: keys, e: e, src: src, batch: batch, perFile: perFile}
	err = r.run(dest)
	end := src.now().UTC()
	if errors.Is(err, context.Canceled) {
		// Stopped, not failed: the export stays IN_PROGRESS, to be run
		// again.
		return nil, err
	}
	if err != nil {
		_, ferr := finishExport(tx, keys, id, end, func(s *storedExport) {
			s.ExportStatus, s.FailureCode, s.FailureMessage = ExportStatusFailed, exportFailureCode(err), err.Error()
		})
		if ferr == nil {
			ferr = dropExportSnapshots(tx, keys, id)
		}
		return nil, errors.Join(err, ferr)
	}
	d, err := finishExport(tx, keys, id, end, func(s *storedExport) {
		s.ExportStatus, s.ItemCount, s.BilledSizeBytes = ExportStatusCompleted, r.w.items, r.w.bytes
		s.ExportTime, s.Version, s.FromVersion = r.e.ExportTime, r.e.Version, r.e.FromVersion
	})
	if err != nil {
		return nil, err
	}
	return d, dropExportSnapshots(tx, keys, id)
}

func dropExportSnapshots(tx fdb.Transactor, keys backupKeys, id string) error {
	if err := dropSnapshot(tx, keys, exportSnapshotID(id)); err != nil {
		return err
	}
	return dropSnapshot(tx, keys, exportChangesID(id))
}

// exportRun is one run of an export.
type exportRun struct {
	tx      fdb.Transactor
	keys    backupKeys
	e       *storedExport
	src     *Table
	batch   int
	perFile int
	w       *exportWriter
}

func (r *exportRun) run(dest ExportDestination) error {
	e := &r.e.ExportDescription
	snap := exportSnapshotID(e.ExportID)
	var b *storedBackup
	var err error
	inc := e.IncrementalExportSpecification
	switch {
	case inc == nil && e.ExportTime.IsZero() && e.Version == 0:
		if b, err = r.src.snapshotNow(r.tx, r.keys, snap, r.batch); err != nil {
			return err
		}
		e.Version, e.ExportTime = b.Version, b.Created
	case inc == nil:
		release, err := r.src.holdRecovery(r.tx, "export")
		if err != nil {
			return err
		}
		defer release()
		cut := versionCut(e.Version)
		if e.Version == 0 {
			// The state at ExportTime holds the commits made at or before
			// it: cut before the first one made after it.
			if cut, err = r.src.cutAtTime(r.tx, e.ExportTime.Add(time.Microsecond), r.batch); err != nil {
				return err
			}
		}
		if b, err = r.src.snapshotAt(r.tx, r.keys, snap, cut, r.batch); err != nil {
			return err
		}
		e.Version = int64(binary.BigEndian.Uint64(cut[:8]))
		if e.ExportTime.IsZero() {
			e.ExportTime = e.StartTime
		}
	default:
		release, err := r.src.holdRecovery(r.tx, "export")
		if err != nil {
			return err
		}
		defer release()
		from, to, err := r.window(inc)
		if err != nil {
			return err
		}
		if b, err = r.src.snapshotAt(r.tx, r.keys, snap, from, r.batch); err != nil {
			return err
		}
		if err := r.src.foldChanges(r.tx, r.keys, exportChangesID(e.ExportID), from, to, r.batch); err != nil {
			return err
		}
		e.FromVersion = int64(binary.BigEndian.Uint64(from[:8]))
		e.Version = int64(binary.BigEndian.Uint64(to[:8]))
		if e.ExportTime = inc.ExportToTime; e.ExportTime.IsZero() {
			e.ExportTime = e.StartTime
		}
	}
	if r.w, err = newExportWriter(dest, e.S3Prefix, e.ExportID, e.ExportFormat, r.perFile); err != nil {
		return err
	}
	defer r.w.abort()
	schema := loadSchema(b.Schema)
	if inc == nil {
		err = r.writeItems(snap, schema)
	} else {
		err = r.writeChanges(snap, exportChangesID(e.ExportID), schema, inc.ExportViewType)
	}
	if err != nil {
		return err
	}
	return r.w.finish(e, r.src.now().UTC())
}

// window resolves an incremental export's window into cuts.
func (r *exportRun) window(inc *IncrementalExportSpecification) (from, to [tupleVersionstampLen]byte, err error) {
	if inc.ExportFromVersion != 0 {
		from = versionCut(inc.ExportFromVersion)
		if inc.ExportToVersion != 0 {
			return from, versionCut(inc.ExportToVersion), nil
		}
	} else if from, err = r.src.cutAtTime(r.tx, inc.ExportFromTime, r.batch); err != nil {
		return from, to, err
	}
	if !inc.ExportToTime.IsZero() {
		to, err = r.src.cutAtTime(r.tx, inc.ExportToTime, r.batch)
		return from, to, err
	}
	// Up to now: the commits below the version the export started at.
	rv, err := ReadTransact(r.tx, func(tr fdb.ReadTransaction) (int64, error) { return tr.GetReadVersion().Get() })
	return from, versionCut(rv + 1), err
}

// snapshotBatch reads the next records of snapshot id after cursor, at
// most about exportReadItems records or exportReadBytes bytes, ending on
// a record boundary; next is nil once none remain.
func snapshotBatch(tr fdb.ReadTransaction, keys backupKeys, id string, elems int, timed bool, cursor fdb.Key) (recs []*partsRecord, next fdb.Key, err error) {
	rng := keys.dataRange(id)
	if cursor != nil {
		rng.Begin = fdb.Key(append(slices.Clone(cursor), 0x00))
	}
	it := tr.Snapshot().GetRange(rng, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
	j := partsJoiner{timed: timed, what: "export snapshot"}
	size := 0
	var last fdb.Key
	for it.Advance() {
		kv, err := it.Get()
		if err != nil {
			return nil, nil, err
		}
		if (len(recs) >= exportReadItems || size >= exportReadBytes) && j.done {
			return recs, last, nil
		}
		ikv, part, err := keys.splitDataKey(id, kv.Key, elems)
		if err != nil {
			return nil, nil, err
		}
		rec, err := j.add(ikv, part, kv.Value)
		if err != nil {
			return nil, nil, err
		}
		last, size = kv.Key, size+len(kv.Value)
		if rec != nil {
			recs = append(recs, rec)
		}
	}
	return recs, nil, nil
}

// writeItems writes the items of snapshot id, in key order.
func (r *exportRun) writeItems(id string, schema TableSchema) error {
	elems := len(schema.KeySchema)
	var cursor fdb.Key
	line := make([]byte, 0, 4096)
	for {
		type res struct {
			items []Item
			next  fdb.Key
		}
		b, err := ReadTransact(r.tx, func(tr fdb.ReadTransaction) (res, error) {
			recs, next, err := snapshotBatch(tr, r.keys, id, elems, false, cursor)
			if err != nil {
				return res{}, err
			}
			items := make([]Item, len(recs))
			for i, rec := range recs {
				if items[i], err = DecodeItem(rec.data); err != nil {
					return res{}, err
				}
			}
			return res{items, next}, nil
		})
		if err != nil {
			return err
		}
		for _, it := range b.items {
			line = appendExportItem(line[:0], r.e.ExportFormat, it)
			if err := r.w.line(line, it.Size()); err != nil {
				return err
			}
		}
		if b.next == nil {
			return nil
		}
		cursor = b.next
	}
}

// writeChanges writes one line per item of changes snapshot chg (the last
// record of each item changed in the window), with its state before the
// window from snapshot snap.
func (r *exportRun) writeChanges(snap, chg string, schema TableSchema, view ExportViewType) error {
	elems := len(schema.KeySchema)
	var cursor fdb.Key
	line := make([]byte, 0, 4096)
	type change struct {
		micros   int64
		old, new Item
	}
	for {
		type res struct {
			changes []change
			next    fdb.Key
		}
		b, err := ReadTransact(r.tx, func(tr fdb.ReadTransaction) (res, error) {
			recs, next, err := snapshotBatch(tr, r.keys, chg, elems, true, cursor)
			if err != nil {
				return res{}, err
			}
			// The old states, read in parallel.
			olds := make([]fdb.RangeResult, len(recs))
			for i, rec := range recs {
				olds[i] = tr.Snapshot().GetRange(r.keys.itemRange(snap, rec.kv), fdb.RangeOptions{Mode: fdb.StreamingModeWantAll})
			}
			out := make([]change, 0, len(recs))
			for i, rec := range recs {
				c := change{micros: rec.micros}
				if !rec.deleted {
					if c.new, err = DecodeItem(rec.data); err != nil {
						return res{}, err
					}
				}
				rows, err := olds[i].GetSliceWithError()
				if err != nil {
					return res{}, err
				}
				if len(rows) > 0 {
					j := partsJoiner{what: "export snapshot"}
					var old *partsRecord
					for _, row := range rows {
						ikv, part, err := r.keys.splitDataKey(snap, row.Key, elems)
						if err != nil {
							return res{}, err
						}
						if old, err = j.add(ikv, part, row.Value); err != nil {
							return res{}, err
						}
						if old != nil {
							break
						}
					}
					if old == nil {
						return res{}, &CorruptError{What: "export snapshot", Reason: "an item without its last part"}
					}
					if c.old, err = DecodeItem(old.data); err != nil {
						return res{}, err
					}
				}
				if c.old == nil && c.new == nil {
					continue // made and deleted in the window: no change
				}
				out = append(out, c)
			}
			return res{out, next}, nil
		})
		if err != nil {
			return err
		}
		for _, c := range b.changes {
			line = appendChangeLine(line[:0], r.e.ExportFormat, schema, view, c.micros, c.old, c.new)
			size := c.new.Size()
			if c.new == nil {
				size = c.old.Size()
			}
			if err := r.w.line(line, size); err != nil {
				return err
			}
		}
		if b.next == nil {
			return nil
		}
		cursor = b.next
	}
}

// appendExportItem appends the line of item it of a full export.
func appendExportItem(dst []byte, format ExportFormat, it Item) []byte {
	if format == ExportFormatIon {
		dst = append(dst, "$ion_1_0 {Item:"...)
		dst = appendIonItem(dst, it)
		return append(dst, '}')
	}
	dst = append(dst, `{"Item":`...)
	dst = append(dst, it.String()...)
	return append(dst, '}')
}

// keysOf returns the primary key attributes of it.
func keysOf(schema TableSchema, it Item) Item {
	k := Item{}
	for _, e := range schema.KeySchema {
		if v, ok := it[e.AttributeName]; ok {
			k[e.AttributeName] = v
		}
	}
	return k
}

// appendChangeLine appends the line of one item of an incremental export:
// its write time, keys, new image (absent for a deletion) and, in the
// NEW_AND_OLD_IMAGES view, old image (absent for an item made in the
// window).
func appendChangeLine(dst []byte, format ExportFormat, schema TableSchema, view ExportViewType, micros int64, old, new Item) []byte {
	k := new
	if k == nil {
		k = old
	}
	keys := keysOf(schema, k)
	ts := strconv.FormatInt(micros, 10)
	if format == ExportFormatIon {
		dst = append(dst, "$ion_1_0 {Metadata:{WriteTimestampMicros:"...)
		dst = append(dst, ts...)
		dst = append(dst, "},Keys:"...)
		dst = appendIonItem(dst, keys)
		if new != nil {
			dst = append(dst, ",NewImage:"...)
			dst = appendIonItem(dst, new)
		}
		if old != nil && view == ExportViewNewAndOldImages {
			dst = append(dst, ",OldImage:"...)
			dst = appendIonItem(dst, old)
		}
		return append(dst, '}')
	}
	dst = append(dst, `{"Metadata":{"WriteTimestampMicros":{"N":"`...)
	dst = append(dst, ts...)
	dst = append(dst, `"}},"Keys":`...)
	dst = append(dst, keys.String()...)
	if new != nil {
		dst = append(dst, `,"NewImage":`...)
		dst = append(dst, new.String()...)
	}
	if old != nil && view == ExportViewNewAndOldImages {
		dst = append(dst, `,"OldImage":`...)
		dst = append(dst, old.String()...)
	}
	return append(dst, '}')
}
