package fdyno

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// TestTrimStream: KeepLast keeps exactly the newest records, in batches;
// a registered consumer holds the trim at its checkpoint unless forced;
// reading from a trimmed position fails with TrimmedDataAccess; OlderThan
// trims by creation time.
func TestTrimStream(t *testing.T) {
	db := fdblitetest.Open(t)
	ctx := context.Background()
	for _, shards := range []int{1, 4} {
		clock := newBatchClock()
		tbl := newTestTable(t, db, streamSchema(StreamViewTypeKeysOnly, shards), WithClock(clock.Now))
		putN(t, db, tbl, 0, 30)
		all := readStream(t, db, tbl)
		c, _ := tbl.Consumer("slow")
		if err := c.Register(db, all[4].SequenceNumber); err != nil {
			t.Fatal(err)
		}
		// The consumer has processed 5 records: only those may go.
		out, err := tbl.TrimStream(ctx, db, TrimStreamInput{KeepLast: 10, BatchSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		if want := (&TrimStreamOutput{Trimmed: 5, TrimHorizon: all[4].SequenceNumber}); !cmp.Equal(want, out) {
			t.Fatalf("shards=%d: trim held by a consumer = %+v, want %+v", shards, out, want)
		}
		if diff := cmp.Diff(all[5:], readStream(t, db, tbl), itemCmp); diff != "" {
			t.Fatalf("shards=%d: records after the trim mismatch (-want +got):\n%s", shards, diff)
		}
		// Forced, KeepLast 10 leaves the newest 10.
		if out, err = tbl.TrimStream(ctx, db, TrimStreamInput{KeepLast: 10, BatchSize: 3, Force: true}); err != nil || out.Trimmed != 15 {
			t.Fatalf("shards=%d: forced trim = %+v, %v; want 15 trimmed", shards, out, err)
		}
		if diff := cmp.Diff(all[20:], readStream(t, db, tbl), itemCmp); diff != "" {
			t.Fatalf("shards=%d: records after the forced trim mismatch (-want +got):\n%s", shards, diff)
		}
		// The consumer was passed: its next batch reports the gap.
		if _, err := c.ProcessBatch(db, 0, func(fdb.Transaction, []StreamRecord) error { return nil }); !errors.Is(err, ErrTrimmedDataAccess) {
			t.Errorf("shards=%d: consumer behind the horizon: %v, want ErrTrimmedDataAccess", shards, err)
		}
		_, err = tbl.GetRecords(db, GetRecordsInput{ExclusiveStartSequenceNumber: all[10].SequenceNumber})
		var te *TrimmedDataAccessError
		if !errors.As(err, &te) || te.TrimHorizon != all[19].SequenceNumber || te.Table != "Test" {
			t.Errorf("shards=%d: GetRecords behind the horizon: %v, want a TrimmedDataAccessError at %s", shards, err, all[19].SequenceNumber)
		}
		if _, err := tbl.GetRecords(db, GetRecordsInput{ExclusiveStartSequenceNumber: all[19].SequenceNumber}); err != nil {
			t.Errorf("shards=%d: GetRecords at the horizon: %v", shards, err)
		}
		if err := c.Deregister(db); err != nil {
			t.Fatal(err)
		}
		// Nothing is older than an hour, until the table's clock moves.
		if out, err = tbl.TrimStream(ctx, db, TrimStreamInput{OlderThan: time.Hour}); err != nil || out.Trimmed != 0 {
			t.Errorf("shards=%d: trim older than an hour = %+v, %v; want none", shards, out, err)
		}
		clock.Advance(2 * time.Hour)
		if out, err = tbl.TrimStream(ctx, db, TrimStreamInput{OlderThan: time.Hour}); err != nil || out.Trimmed != 10 {
			t.Errorf("shards=%d: trim older than an hour, two hours later = %+v, %v; want the 10 left", shards, out, err)
		}
		// The counts stay right: new records, then KeepLast again.
		putN(t, db, tbl, 100, 6)
		if out, err = tbl.TrimStream(ctx, db, TrimStreamInput{KeepLast: 4}); err != nil || out.Trimmed != 2 {
			t.Errorf("shards=%d: KeepLast 4 of 6 = %+v, %v; want 2 trimmed", shards, out, err)
		}
	}
}

// TestTrimStreamRejects: a trim needs a limit; a registered consumer that
// has not started holds everything.
func TestTrimStreamRejects(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeKeysOnly, 0))
	for _, in := range []TrimStreamInput{{}, {KeepLast: -1}, {OlderThan: -time.Second}, {KeepLast: 1, BatchSize: 5000}} {
		if _, err := tbl.TrimStream(context.Background(), db, in); !errors.Is(err, ErrValidation) {
			t.Errorf("TrimStream(%+v) = %v, want ErrValidation", in, err)
		}
	}
	putN(t, db, tbl, 0, 5)
	c, _ := tbl.Consumer("fresh")
	if err := c.Register(db, ""); err != nil {
		t.Fatal(err)
	}
	if out, err := tbl.TrimStream(context.Background(), db, TrimStreamInput{KeepLast: 1}); err != nil || out.Trimmed != 0 {
		t.Errorf("trim with a fresh consumer = %+v, %v; want nothing trimmed", out, err)
	}
}

// TestTrimConcurrentWithConsumer: a trim looping while writers write and
// a registered consumer runs never removes a record before the consumer
// has processed it: the consumer processes every record exactly once.
func TestTrimConcurrentWithConsumer(t *testing.T) {
	db := fdblitetest.Open(t)
	src := newTestTable(t, db, streamSchema(StreamViewTypeKeysOnly, 2))
	fx := newEffects(t, db)
	c, _ := src.Consumer("kept")
	if err := c.Register(db, ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- c.Run(ctx, db, 3, fx.handler) }()
	trimErr := make(chan error, 1)
	trimmed := 0
	go func() {
		for ctx.Err() == nil {
			out, err := src.TrimStream(ctx, db, TrimStreamInput{KeepLast: 1, BatchSize: 2})
			if err != nil && ctx.Err() == nil {
				trimErr <- err
				return
			}
			if out != nil {
				trimmed += out.Trimmed
			}
		}
		trimErr <- nil
	}()
	const n = 60
	putN(t, db, src, 0, n) // distinct items: n INSERT records
	testtime.WaitUntil(t, "the consumer to process every record", func() bool {
		items := 0
		for _, err := range fx.tbl.ScanAll(context.Background(), db, ScanInput{}) {
			if err != nil {
				t.Fatal(err)
			}
			items++
		}
		return items == n
	})
	cancel()
	if err := <-runErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if err := <-trimErr; err != nil {
		t.Fatalf("TrimStream = %v", err)
	}
	for it, err := range fx.tbl.ScanAll(context.Background(), db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := it["n"].Int64(); v != 1 {
			t.Errorf("record %s processed %d times", it["pk"].S(), v)
		}
	}
	t.Logf("%d records trimmed while the consumer ran", trimmed)
}

// plainDB runs transactions in FoundationDB's own retry loop without
// automatic_idempotency, so a commit that applied can be retried.
type plainDB struct{ db fdb.Database }

func (d plainDB) Transact(f func(fdb.Transaction) (any, error)) (any, error) { return d.db.Transact(f) }

func (d plainDB) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return d.db.ReadTransact(f)
}

// TestTrimStreamUnderFaults: trims in small batches under injected faults,
// including commit_unknown_result retried without automatic idempotency,
// keep exactly the newest KeepLast records: a batch re-reads the trimmed
// counts, so a retry of a batch that applied trims nothing twice.
func TestTrimStreamUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(5))
	for _, shards := range []int{1, 3} {
		tbl := mustOpen(t, db, "Trim"+strconv.Itoa(shards), WithSchema(streamSchema(StreamViewTypeKeysOnly, shards)))
		putN(t, db, tbl, 0, 40)
		all := readStream(t, db, tbl)
		for _, keep := range []int{30, 17, 17, 5} {
			if _, err := tbl.TrimStream(context.Background(), plainDB{db}, TrimStreamInput{KeepLast: keep, BatchSize: 3}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(all[len(all)-keep:], readStream(t, db, tbl), itemCmp); diff != "" {
				t.Fatalf("shards=%d: after KeepLast %d (-want +got):\n%s", shards, keep, diff)
			}
		}
	}
}
