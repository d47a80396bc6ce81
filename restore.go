package fdyno

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// restore.go restores a backup (backup.go) to a new table: the request's
// types and the batches that build the table; restore_run.go starts and
// runs a restore as a job (RestoreTableFromBackup and
// RestoreTableToPointInTime are there).
//
// The new table is built in a directory of its own under the root whose
// name, starting with '!', is no table name (ListTables skips it), over
// many transactions that each write a batch of the backup's items through
// the write path (write.go), so the indexes are built with the items.
// Each batch records its progress in the same transaction, so a retried
// or resumed batch never writes an item twice. The last transaction moves
// the directory to the table's name and bumps the metadata version: the
// table appears whole, or not at all.
//
// The new table keeps exact counts (counts.go), unless the backup's
// schema is WithoutCounts, whatever its source kept: it starts empty and
// every item enters it through the write path, which counts. Its unique
// indexes (unique.go) are checked once it is built, before it moves
// (unique.go, invariant 6): a restore whose items would put two in one
// slot fails with a *DuplicateKeysError and leaves no table.

// RestoreTableFromBackupInput is DynamoDB's RestoreTableFromBackup
// request, for what the library keeps (billing, provisioned throughput
// and encryption are the server's).
type RestoreTableFromBackupInput struct {
	BackupID        string
	TargetTableName string
	// GlobalSecondaryIndexOverride and LocalSecondaryIndexOverride, when
	// not nil, replace the backup's indexes (an empty slice: none). As
	// DynamoDB's, they may only keep or drop the backup's indexes: a
	// kept GSI is unique if the backup's was, whatever its Unique says.
	GlobalSecondaryIndexOverride []GlobalSecondaryIndex
	LocalSecondaryIndexOverride  []LocalSecondaryIndex
	// Settings, if not nil, is the new table's settings record (see
	// [Table.UpdateSettings]; a server's billing overrides), in place
	// from the moment the table appears.
	Settings []byte
}

// restoreMoved reports whether the hidden table tmp, whose id is tableID,
// has already been moved to target.
func restoreMoved(tr fdb.Transaction, tmp *Table, target []string, tableID string) (bool, error) {
	if ok, err := directory.Exists(tr, tmp.path); err != nil || ok {
		return false, err
	}
	t := newTable(tmp.name, target)
	_, meta, err := t.loadMeta(tr)
	if err != nil {
		return false, err
	}
	return meta.tableID == tableID, nil
}

func tableAlreadyExists(name string) error {
	return &TableError{Table: name, Err: ErrTableAlreadyExists, Reason: "Table already exists: " + name}
}

// restoredSchema is the backup's schema s as a restore creates it: no
// stream, no Time to Live, and the overrides' indexes.
func restoredSchema(s TableSchema, in RestoreTableFromBackupInput) (TableSchema, error) {
	s = s.clone()
	s.StreamViewType, s.StreamShards, s.TimeToLiveAttribute = "", 0, ""
	if in.GlobalSecondaryIndexOverride != nil {
		for _, g := range in.GlobalSecondaryIndexOverride {
			if !slices.ContainsFunc(s.GlobalSecondaryIndexes, func(h GlobalSecondaryIndex) bool { return h.IndexName == g.IndexName }) {
				return s, &ValidationError{Op: "RestoreTableFromBackup", Reason: "GlobalSecondaryIndexOverride names an index the backup does not have: " + g.IndexName}
			}
		}
		kept := slices.Clone(in.GlobalSecondaryIndexOverride)
		for i, g := range kept {
			// A kept index keeps its uniqueness (unique.go): the
			// override keeps or drops an index, it does not change one.
			j := slices.IndexFunc(s.GlobalSecondaryIndexes, func(h GlobalSecondaryIndex) bool { return h.IndexName == g.IndexName })
			kept[i].Unique = s.GlobalSecondaryIndexes[j].Unique
		}
		s.GlobalSecondaryIndexes = kept
	}
	if in.LocalSecondaryIndexOverride != nil {
		for _, l := range in.LocalSecondaryIndexOverride {
			if !slices.ContainsFunc(s.LocalSecondaryIndexes, func(h LocalSecondaryIndex) bool { return h.IndexName == l.IndexName }) {
				return s, &ValidationError{Op: "RestoreTableFromBackup", Reason: "LocalSecondaryIndexOverride names an index the backup does not have: " + l.IndexName}
			}
		}
		s.LocalSecondaryIndexes = slices.Clone(in.LocalSecondaryIndexOverride)
	}
	// Attribute definitions only of the keys that remain.
	used := map[string]bool{}
	for _, k := range s.KeySchema {
		used[k.AttributeName] = true
	}
	for _, g := range s.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			used[k.AttributeName] = true
		}
	}
	for _, l := range s.LocalSecondaryIndexes {
		for _, k := range l.KeySchema {
			used[k.AttributeName] = true
		}
	}
	s.AttributeDefinitions = slices.DeleteFunc(slices.Clone(s.AttributeDefinitions), func(d AttributeDefinition) bool { return !used[d.AttributeName] })
	if err := s.validate(); err != nil {
		return s, err
	}
	return s, nil
}

// restoreRun copies a backup's items into the hidden table tbl.
type restoreRun struct {
	keys   backupKeys
	backup *storedBackup
	tbl    *Table
	batch  int
	// job is the restore's id: each step counts its items in the
	// restore's record.
	job string
}

// restoreID names a restore's progress key after its directory.
func restoreID(t *Table) string { return t.path[len(t.path)-1] }

// step writes the next batch of items and reports whether all are.
func (r *restoreRun) step(tr fdb.Transaction) (bool, error) {
	st, err := r.tbl.load(tr, nil)
	if err != nil {
		return false, err
	}
	// The backup must still be there (DeleteBackup refuses a backup being
	// restored; this read conflicts with one that did not see us).
	if _, err := getBackup(tr, r.keys, r.backup.ID); err != nil {
		return false, err
	}
	rec, err := getRestore(tr, r.keys, r.job)
	if err != nil {
		return false, err
	}
	pk := r.keys.restore(restoreID(r.tbl))
	cursor, err := tr.Get(pk).Get()
	if err != nil {
		return false, err
	}
	rng := r.keys.dataRange(r.backup.ID)
	if cursor != nil {
		rng.Begin = fdb.Key(append(cursor, 0x00))
	}
	elems := 1
	if st.rng.Name != "" {
		elems = 2
	}
	it := tr.Snapshot().GetRange(rng, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
	j := partsJoiner{what: "backup item"}
	count := 0
	var last fdb.Key
	for it.Advance() {
		kv, err := it.Get()
		if err != nil {
			return false, err
		}
		if count >= r.batch && j.done {
			tr.Set(pk, last)
			return false, putRestore(tr, r.keys, rec)
		}
		ikv, part, err := r.keys.splitDataKey(r.backup.ID, kv.Key, elems)
		if err != nil {
			return false, err
		}
		joined, err := j.add(ikv, part, kv.Value)
		if err != nil {
			return false, err
		}
		last = kv.Key
		if joined == nil {
			continue
		}
		count++
		item, err := DecodeItem(joined.data)
		if err != nil {
			return false, err
		}
		if err := writeItem(tr, r.tbl, itemChange{st: st, kv: joined.kv, oldKnown: true, new: item, enc: joined.data, size: item.Size()}); err != nil {
			return false, err
		}
		rec.Items++
		rec.Bytes += int64(len(joined.data))
	}
	if last != nil {
		tr.Set(pk, last)
	}
	return true, putRestore(tr, r.keys, rec)
}

// logReplay replays, over a table being restored, the log records of a
// source table from versionstamp from, in commit order, up to (not
// including) the first commit at or after version before, or the first
// commit whose records' time is after until (if not zero).
type logReplay struct {
	src    *Table
	from   [tupleVersionstampLen]byte
	before int64
	until  time.Time
	// set by restoreBackup
	tbl      *Table
	batch    int
	progress fdb.Key
}

// step replays the next batch and reports whether the replay is done.
func (p *logReplay) step(tr fdb.Transaction) (bool, error) {
	st, err := p.tbl.load(tr, nil)
	if err != nil {
		return false, err
	}
	src, err := p.src.load(tr, nil)
	if err != nil {
		return false, err
	}
	cursor, err := tr.Get(p.progress).Get()
	if err != nil {
		return false, err
	}
	var end [tupleVersionstampLen]byte
	binary.BigEndian.PutUint64(end[:8], uint64(p.before))
	rng := src.keys.backupLogRange(p.from, end)
	if cursor != nil {
		rng.Begin = fdb.Key(append(cursor, 0x00))
	}
	elems := 1
	if st.rng.Name != "" {
		elems = 2
	}
	it := tr.Snapshot().GetRange(rng, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
	j := partsJoiner{timed: true, what: "backup log"}
	var stamp []byte // the versionstamp of the commit being replayed
	var last fdb.Key
	count := 0
	finished := true
	var recs []*partsRecord
	for it.Advance() {
		kv, err := it.Get()
		if err != nil {
			return false, err
		}
		vs, ikv, part, err := src.keys.splitBackupLogKey(kv.Key, elems)
		if err != nil {
			return false, err
		}
		if part == 0 && string(vs[:10]) != string(stamp) {
			// A new commit: stop before it if the batch is full, or if it
			// is past the time.
			if count >= p.batch {
				finished = false
				break
			}
			stamp = append(stamp[:0], vs[:10]...)
			if !p.until.IsZero() && len(kv.Value) >= 9 && int64(binary.BigEndian.Uint64(kv.Value[1:9])) > p.until.UnixMicro() {
				break
			}
		}
		rec, err := j.add(ikv, part, kv.Value)
		if err != nil {
			return false, err
		}
		last = kv.Key
		if rec != nil {
			count++
			recs = append(recs, rec)
		}
	}
	// Later records of an item in the batch replace earlier ones.
	latest := map[string]int{}
	for i, rec := range recs {
		latest[string(rec.kv)] = i
	}
	l := loaderOf(tr)
	for i, rec := range recs {
		if latest[string(rec.kv)] != i {
			continue
		}
		r := l.get(&st.keys, rec.kv)
		old, oldEnc, err := l.load(&r)
		if err != nil {
			return false, err
		}
		c := itemChange{st: st, kv: rec.kv, old: old, oldEnc: oldEnc, oldKnown: true}
		if !rec.deleted {
			if c.new, err = DecodeItem(rec.data); err != nil {
				return false, err
			}
			c.enc, c.size = rec.data, c.new.Size()
		}
		if err := writeItem(tr, p.tbl, c); err != nil {
			return false, err
		}
	}
	if last != nil {
		tr.Set(p.progress, last)
	}
	return finished, nil
}
