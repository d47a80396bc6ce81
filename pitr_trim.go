package fdyno

import (
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// pitr_trim.go keeps point-in-time recovery's log to its recovery
// period, as DynamoDB keeps 1 to 35 days (RecoveryPeriodInDays): the log
// records older than the period are folded into the recovery base, in
// commit order, and cleared, and the earliest restorable time moves up to
// the period's start.
//
// Why the base stays exact: the base is a copy of every item taken by a
// scan while the log was already recording, and a restore replays the log
// from its start S over it. Folding the records of the commits before T
// (the first commit kept) gives each item they touched its last value
// before T, its state at T; an item they did not touch keeps the scan's
// copy, and any write to it at or after T is still in the log the restore
// replays from T. So a restore from T over the folded base is what a
// restore from S over the old base was, for every point at or after T.
// Commits are folded whole, so T is always a commit's first record.

// TrimContinuousBackups folds the point-in-time recovery log records of
// the table older than its recovery period into the recovery base and
// clears them, in transactions of a bounded size through tx (pass an
// fdb.Database), and moves the earliest restorable time to the period's
// start (the handle's clock, [WithClock], less RecoveryPeriodInDays). It
// does nothing when recovery is off. fdyno-server runs it with its stream
// trimmer; an embedding program runs it on its own schedule (daily is
// enough: until it runs, the window is only longer).
func (t *Table) TrimContinuousBackups(tx fdb.Transactor) error {
	return t.trimContinuousBackups(tx, backupBatch)
}

func (t *Table) trimContinuousBackups(tx fdb.Transactor, batch int) error {
	holder, err := newBackupID(t.now())
	if err != nil {
		return err
	}
	holder = "trim-" + holder
	if ok, err := t.TryLease(tx, recoveryLease, holder, recoveryTrimLease); err != nil || !ok {
		return err // a restore reads the log: trim later
	}
	defer func() { _ = t.ReleaseLease(tx, recoveryLease, holder) }()
	for {
		done, err := Transact(tx, func(tr fdb.Transaction) (bool, error) { return t.trimStep(tr, batch) })
		if err != nil || done {
			return err
		}
	}
}

// trimStep folds the log records of up to about n commits older than the
// recovery period and reports whether none remain.
func (t *Table) trimStep(tr fdb.Transaction, n int) (bool, error) {
	b, keys, meta, err := t.pitrBase(tr)
	if err != nil || b == nil {
		return true, err
	}
	cutoff := t.now().UTC().Add(-time.Duration(b.RecoveryDays) * 24 * time.Hour)
	if !cutoff.After(b.Created) {
		return true, nil // nothing is older than the period yet
	}
	from, to, err := logWindow(tr, keys, b.ID)
	if err != nil {
		return false, err
	}
	st, err := t.load(tr, nil)
	if err != nil {
		return false, err
	}
	elems := 1
	if st.rng.Name != "" {
		elems = 2
	}
	begin := st.keys.backupLogFrom(from)
	_, end := st.keys.backupLog.FDBRangeKeys()
	it := tr.Snapshot().GetRange(fdb.KeyRange{Begin: begin, End: end}, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
	j := partsJoiner{timed: true, what: "backup log"}
	latest := map[string]*partsRecord{}
	var order []string
	// next is the first commit kept: the log's new start.
	next, found := [tupleVersionstampLen]byte{}, false
	var cur [tupleVersionstampLen]byte // the commit of the record being read
	var recStamp [tupleVersionstampLen]byte
	commits, last := 0, b.Created
	full := false // stopped for the transaction's size, not at the period
	for it.Advance() {
		kv, err := it.Get()
		if err != nil {
			return false, err
		}
		vs, ikv, part, err := st.keys.splitBackupLogKey(kv.Key, elems)
		if err != nil {
			return false, err
		}
		if part == 0 {
			recStamp = vs
		}
		rec, err := j.add(ikv, part, kv.Value)
		if err != nil {
			return false, err
		}
		if rec == nil {
			continue
		}
		if commits == 0 || recStamp != cur {
			// A commit's first record: keep it and all after it if it is
			// within the period, or if this transaction folded enough.
			at := time.UnixMicro(rec.micros).UTC()
			if !at.Before(cutoff) || commits >= n {
				next, found, full = recStamp, true, at.Before(cutoff)
				break
			}
			cur, last = recStamp, at
			commits++
		}
		if _, ok := latest[string(rec.kv)]; !ok {
			order = append(order, string(rec.kv))
		}
		latest[string(rec.kv)] = rec
	}
	r := &backupRun{keys: keys, id: b.ID}
	for _, k := range order {
		if err := r.apply(tr, b, latest[k]); err != nil {
			return false, err
		}
	}
	if !found {
		// Every record is folded: the log starts after the last commit.
		next = cur
		if commits == 0 {
			next = from
		} else {
			incrementStamp(&next)
		}
	}
	// Clear what no capture needs any more: the folded records, unless an
	// on-demand backup being taken still reads them.
	horizon := next
	for _, c := range meta.captures {
		if c == b.ID {
			continue
		}
		s, err := tr.Get(keys.start(c)).Get()
		if err != nil {
			return false, err
		}
		var cs [tupleVersionstampLen]byte
		copy(cs[:], s)
		if string(cs[:]) < string(horizon[:]) {
			horizon = cs
		}
	}
	logBegin, _ := st.keys.backupLog.FDBRangeKeys()
	tr.ClearRange(fdb.KeyRange{Begin: logBegin, End: st.keys.backupLogFrom(horizon)})
	tr.Set(keys.start(b.ID), next[:10])
	// A version restores the state after every commit below it, so the
	// earliest restorable version follows the last commit folded.
	if commits > 0 && string(cur[:]) > string(to[:]) {
		tr.Set(keys.end(b.ID), cur[:10])
	}
	// The earliest restorable time: the period's start, or, when this
	// transaction stopped short of it, the last commit folded.
	b.Created = cutoff
	if full {
		b.Created = last
	}
	return !full, putBackup(tr, keys, b)
}

// incrementStamp makes vs the first versionstamp of the commit after
// its commit: the 10-byte commit versionstamp plus one, user version 0.
func incrementStamp(vs *[tupleVersionstampLen]byte) {
	clear(vs[10:])
	for i := 9; i >= 0; i-- {
		vs[i]++
		if vs[i] != 0 {
			return
		}
	}
}
