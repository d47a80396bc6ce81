package fdyno

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testseed"
	"github.com/fdyno/fdyno/internal/testtime"
	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// commitVersion runs f in a transaction of its own, retrying as the
// bindings do, and returns the version it committed at (its read version
// if it wrote nothing).
func commitVersion(db fdb.Database, f func(tr fdb.Transaction) error) (int64, error) {
	tr, err := db.CreateTransaction()
	if err != nil {
		return 0, err
	}
	for {
		err := f(tr)
		if err == nil {
			err = tr.Commit().Get()
		}
		if err == nil {
			v, err := tr.GetCommittedVersion()
			if err == nil && v < 0 {
				// Read-only (a Delete of no item): the state at its read
				// version is the state after it.
				return tr.GetReadVersion().Get()
			}
			return v, err
		}
		var fe fdb.Error
		if !errors.As(err, &fe) {
			return 0, err
		}
		if err := tr.OnError(fe).Get(); err != nil {
			return 0, err
		}
	}
}

// The rapid model of point-in-time recovery: random writes (some during
// the base's scan, which runs a step at a time), each committed at a
// known version and a known time (the handle's clock); a restore to a
// random write's version, to its time, or to the latest time equals the
// model right after that write, items and indexes.
func TestPITRModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		now := clock.Now
		opts := []Option{root, WithClock(now)}
		src, err := Open(db, "Pitr"+strconv.Itoa(n), append(opts, WithSchema(backupSchema), WithChunkThreshold(300))...)
		if err != nil {
			rt.Fatal(err)
		}
		model := map[string]Item{}
		type point struct {
			version int64
			at      time.Time
			items   map[string]Item
		}
		var history []point
		write := func(rt *rapid.T) {
			clock.Advance(time.Second)
			pk := "p" + strconv.Itoa(rapid.IntRange(0, 2).Draw(rt, "pk"))
			sk := rapid.IntRange(0, 4).Draw(rt, "sk")
			var it Item
			del := rapid.IntRange(0, 3).Draw(rt, "op") == 0
			if !del {
				it = backupItem(pk, sk, rapid.IntRange(0, 20).Draw(rt, "v"), rapid.SampledFrom([]int{0, 0, 400}).Draw(rt, "pad"))
			}
			v, err := commitVersion(db, func(tr fdb.Transaction) error {
				if del {
					_, err := src.Delete(tr, DeleteInput{Key: Item{"pk": S(pk), "sk": NInt(int64(sk))}})
					return err
				}
				_, err := src.Put(tr, PutInput{Item: it})
				return err
			})
			if err != nil {
				rt.Fatal(err)
			}
			k := pk + "/" + strconv.Itoa(sk)
			if del {
				delete(model, k)
			} else {
				model[k] = it
			}
			history = append(history, point{version: v, at: now(), items: cloneModel(model)})
		}
		for range rapid.IntRange(0, 8).Draw(rt, "before") {
			write(rt)
		}
		r, err := src.startCapture(db, "", "pitr", BackupTypeSystem, rapid.IntRange(1, 3).Draw(rt, "batch"), 7)
		if err != nil {
			rt.Fatal(err)
		}
		for {
			for range rapid.IntRange(0, 2).Draw(rt, "during") {
				write(rt)
			}
			b, err := Transact(db, r.step)
			if err != nil {
				rt.Fatal(err)
			}
			if b.Phase == phasePITR {
				break
			}
		}
		history = history[:0] // restorable from here on
		clock.Advance(time.Second)
		for range rapid.IntRange(1, 12).Draw(rt, "after") {
			write(rt)
		}
		clock.Advance(time.Second) // every write is in the past
		// Trimming: the clock moves on so that the recovery period (7
		// days) starts at write c; the writes before it fold into the
		// base and can no longer be restored to.
		c := -1
		if rapid.Bool().Draw(rt, "trim") {
			c = rapid.IntRange(0, len(history)-1).Draw(rt, "periodStart")
			clock.Set(history[c].at.Add(7 * 24 * time.Hour))
			if err := src.trimContinuousBackups(db, rapid.IntRange(1, 3).Draw(rt, "trimBatch")); err != nil {
				rt.Fatal(err)
			}
			d, err := src.DescribeContinuousBackups(db)
			if err != nil || !d.EarliestRestorableDateTime.Equal(history[c].at) {
				rt.Fatalf("after trimming, DescribeContinuousBackups = %+v, %v; want the earliest restorable time %v", d, err, history[c].at)
			}
			if got := logRecords(rt, db, src); got > len(history)-c {
				rt.Fatalf("after trimming, %d log records remain, want at most the %d commits of the period", got, len(history)-c)
			}
		}
		d, err := src.DescribeContinuousBackups(db)
		if err != nil || d.PointInTimeRecoveryStatus != "ENABLED" || d.RecoveryPeriodInDays != 7 {
			rt.Fatalf("DescribeContinuousBackups = %+v, %v", d, err)
		}
		i := rapid.IntRange(0, len(history)-1).Draw(rt, "point")
		in := RestoreTableToPointInTimeInput{SourceTableName: src.name, TargetTableName: "PitrCopy" + strconv.Itoa(n)}
		want := history[i].items
		switch rapid.IntRange(0, 2).Draw(rt, "how") {
		case 0:
			in.Version = history[i].version + 1
		case 1:
			in.RestoreDateTime = history[i].at.Add(time.Duration(rapid.IntRange(0, 999).Draw(rt, "ms")) * time.Millisecond)
		case 2:
			in.UseLatestRestorableTime = true
			want = model
		}
		dst, err := restoreTableToPointInTime(db, in, rapid.IntRange(1, 4).Draw(rt, "restoreBatch"), opts...)
		// A time before the period cannot be restored to. A version can,
		// while nothing after it was folded (the commits between it and
		// the period changed nothing), and must then be exact.
		if i < c && !in.RestoreDateTime.IsZero() || i < c && in.Version != 0 && errors.Is(err, ErrInvalidRestoreTime) {
			if !errors.Is(err, ErrInvalidRestoreTime) {
				rt.Fatalf("restore to %+v, before the trimmed period: %v, want ErrInvalidRestoreTime", in, err)
			}
			if err := DeleteTable(db, src.name, root); err != nil {
				rt.Fatal(err)
			}
			return
		}
		if err != nil {
			rt.Fatal(err)
		}
		for _, p := range tableProblems(db, dst) {
			rt.Error(p)
		}
		if diff := gocmp.Diff(want, tableItems(rt, db, dst), itemCmp); diff != "" {
			rt.Fatalf("restored to %+v (-model +got):\n%s", in, diff)
		}
		if err := DeleteTable(db, dst.name, root); err != nil {
			rt.Fatal(err)
		}
		if err := DeleteTable(db, src.name, root); err != nil {
			rt.Fatal(err)
		}
	})
}

// Enabling, describing and disabling recovery, and DynamoDB's errors.
func TestPITRLifecycle(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Lifecycle", root, WithSchema(backupSchema))
	mustPut(t, db, src, backupItem("a", 1, 1, 0))
	d, err := src.DescribeContinuousBackups(db)
	if err != nil || d.PointInTimeRecoveryStatus != "DISABLED" {
		t.Fatalf("before enabling: %+v, %v", d, err)
	}
	_, err = RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Lifecycle", TargetTableName: "Copy", UseLatestRestorableTime: true}, root)
	if !errors.Is(err, ErrPointInTimeRecoveryUnavailable) {
		t.Errorf("restore without recovery: %v", err)
	}
	for _, days := range []int{-1, 36} {
		if _, err := src.UpdateContinuousBackups(db, true, days); !errors.Is(err, ErrValidation) {
			t.Errorf("RecoveryPeriodInDays %d: %v", days, err)
		}
	}
	if d, err = src.UpdateContinuousBackups(db, true, 0); err != nil || d.PointInTimeRecoveryStatus != "ENABLED" || d.RecoveryPeriodInDays != 35 {
		t.Fatalf("enable: %+v, %v", d, err)
	}
	if d, err = src.UpdateContinuousBackups(db, true, 3); err != nil || d.RecoveryPeriodInDays != 3 {
		t.Fatalf("change the period: %+v, %v", d, err)
	}
	mustPut(t, db, src, backupItem("a", 2, 2, 0))
	_, err = RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Lifecycle", TargetTableName: "Copy", RestoreDateTime: d.EarliestRestorableDateTime.Add(-time.Hour)}, root)
	if !errors.Is(err, ErrInvalidRestoreTime) {
		t.Errorf("restore before the window: %v", err)
	}
	_, err = RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Lifecycle", TargetTableName: "Copy", UseLatestRestorableTime: true, Version: 5}, root)
	if !errors.Is(err, ErrValidation) {
		t.Errorf("two points: %v", err)
	}
	cp, err := RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: "Lifecycle", TargetTableName: "Copy", UseLatestRestorableTime: true}, root)
	if err != nil {
		t.Fatal(err)
	}
	if got := tableItems(t, db, cp); len(got) != 2 {
		t.Errorf("latest restore has %d items, want 2", len(got))
	}
	if list, err := ListBackups(db, ListBackupsInput{BackupType: "ALL"}, root); err != nil || len(list.BackupSummaries) != 0 {
		t.Errorf("ListBackups shows the recovery base: %+v, %v", list, err)
	}
	if d, err = src.UpdateContinuousBackups(db, false, 0); err != nil || d.PointInTimeRecoveryStatus != "DISABLED" {
		t.Fatalf("disable: %+v, %v", d, err)
	}
	if n := backupLogLen(t, db, src); n != 0 {
		t.Errorf("%d log records after disabling", n)
	}
	mustPut(t, db, src, backupItem("a", 3, 3, 0))
	if n := backupLogLen(t, db, src); n != 0 {
		t.Errorf("a write after disabling logged %d records", n)
	}
}

// logRecords counts the records of tbl's backup log (their first parts).
func logRecords(t *rapid.T, db fdb.Database, tbl *Table) int {
	n, err := ReadTransact(db, func(tr fdb.ReadTransaction) (int, error) {
		st, err := tbl.load(tr, nil)
		if err != nil {
			return 0, err
		}
		elems := 1
		if st.rng.Name != "" {
			elems = 2
		}
		rows, err := tr.GetRange(st.keys.backupLog, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return 0, err
		}
		n := 0
		for _, kv := range rows {
			if _, _, part, err := st.keys.splitBackupLogKey(kv.Key, elems); err != nil {
				return 0, err
			} else if part == 0 {
				n++
			}
		}
		return n, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Under injected faults (retryable errors, commits that fail or report an
// unknown result), trimming folds each commit into the recovery base
// exactly once: every step moves the log's start in the transaction that
// folds, so a retried step finds its records already folded. A restore
// to the latest time afterwards is the table.
func TestTrimContinuousBackupsUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(testseed.Seed(t, "FDYNO_PITR_TRIM_FAULT_SEED")))
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	src := mustOpen(t, db, "TrimFaulty", WithSchema(backupSchema), WithClock(now))
	if _, err := src.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	var periodStart time.Time
	for i := range 40 {
		clock.Advance(time.Minute)
		if i == 30 {
			periodStart = now()
		}
		mustPut(t, db, src, backupItem("p"+strconv.Itoa(i%4), i%7, i, (i%3)*300))
	}
	clock.Set(periodStart.Add(24 * time.Hour))
	if err := src.trimContinuousBackups(db, 3); err != nil {
		t.Fatal(err)
	}
	d, err := src.DescribeContinuousBackups(db)
	if err != nil || !d.EarliestRestorableDateTime.Equal(periodStart) {
		t.Fatalf("DescribeContinuousBackups = %+v, %v; want the earliest restorable time %v", d, err, periodStart)
	}
	dst, err := RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: src.name, TargetTableName: "TrimFaultyCopy", UseLatestRestorableTime: true}, WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, db, dst)
	if diff := gocmp.Diff(tableItems(t, db, src), tableItems(t, db, dst), itemCmp); diff != "" {
		t.Errorf("restored after trimming (-table +restored):\n%s", diff)
	}
	_, err = RestoreTableToPointInTime(db, RestoreTableToPointInTimeInput{SourceTableName: src.name, TargetTableName: "TooEarly",
		RestoreDateTime: periodStart.Add(-time.Second)}, WithClock(now))
	if !errors.Is(err, ErrInvalidRestoreTime) {
		t.Errorf("restore to before the period: %v, want InvalidRestoreTimeException", err)
	}
}

// A trim never runs while a restore to a point in time reads the base and
// the log: both take the table's recovery lease, and a trim that finds it
// held leaves the log for a later walk.
func TestTrimWaitsForRestore(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	src := newTestTable(t, db, backupSchema, WithClock(now))
	if _, err := src.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		clock.Advance(time.Minute)
		mustPut(t, db, src, backupItem("p", i, i, 0))
	}
	before, err := src.DescribeContinuousBackups(db)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(48 * time.Hour)
	release, err := src.holdRecovery(db, "restore") // a restore in progress
	if err != nil {
		t.Fatal(err)
	}
	if err := src.TrimContinuousBackups(db); err != nil {
		t.Fatal(err)
	}
	during, err := src.DescribeContinuousBackups(db)
	if err != nil || !during.EarliestRestorableDateTime.Equal(before.EarliestRestorableDateTime) {
		t.Fatalf("trim during a restore moved the earliest restorable time: %+v, %v; want %v", during, err, before.EarliestRestorableDateTime)
	}
	release()
	if err := src.TrimContinuousBackups(db); err != nil {
		t.Fatal(err)
	}
	after, err := src.DescribeContinuousBackups(db)
	if err != nil || !after.EarliestRestorableDateTime.After(before.EarliestRestorableDateTime) {
		t.Fatalf("trim after the restore: %+v, %v; want the earliest restorable time moved on", after, err)
	}
}
