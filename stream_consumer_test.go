package fdyno

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// effects is a consumer's side effect: a table counting, per sequence
// number, how often a record was processed, written in the handler's
// transaction.
type effects struct {
	tbl *Table
}

func newEffects(t *testing.T, db fdb.Database) effects {
	return effects{newTestTable(t, db, hashOnly)}
}

func (e effects) handler(tr fdb.Transaction, recs []StreamRecord) error {
	for _, r := range recs {
		if _, err := e.tbl.Update(tr, UpdateInput{Key: Item{"pk": S(r.SequenceNumber)}, UpdateExpression: "ADD n :one",
			ExpressionAttributeValues: map[string]Value{":one": N("1")}}); err != nil {
			return err
		}
	}
	return nil
}

// check verifies that every record of src was processed exactly once, and
// nothing else.
func (e effects) check(t *testing.T, db fdb.Database, src *Table) {
	t.Helper()
	want := map[string]int64{}
	for _, r := range readStream(t, db, src) {
		want[r.SequenceNumber] = 1
	}
	got := map[string]int64{}
	for it, err := range e.tbl.ScanAll(context.Background(), db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		got[it["pk"].S()], _ = it["n"].Int64()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records processed (sequence number → times) mismatch (-want +got):\n%s", diff)
	}
}

func putN(t *testing.T, db fdb.Transactor, tbl *Table, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		mustPut(t, db, tbl, Item{"pk": S("k" + strconv.Itoa(i%7)), "sk": NInt(int64(i))})
	}
}

// TestConsumerExactlyOnce: a consumer whose handler fails mid-stream, and
// one abandoned (ctx cancelled) while it runs, process every record
// exactly once after they are restarted; its checkpoint is the last
// record; a second consumer progresses independently.
func TestConsumerExactlyOnce(t *testing.T) {
	db := fdblitetest.Open(t)
	src := newTestTable(t, db, streamSchema(StreamViewTypeKeysOnly, 2))
	fx := newEffects(t, db)
	c, err := src.Consumer("indexer")
	if err != nil {
		t.Fatal(err)
	}
	putN(t, db, src, 0, 30)
	// Killed by its handler on the third batch: the first two commit.
	boom := errors.New("boom")
	batches := 0
	err = c.Run(context.Background(), db, 4, func(tr fdb.Transaction, recs []StreamRecord) error {
		if batches++; batches == 3 {
			if err := fx.handler(tr, recs); err != nil { // effects written, then the crash
				return err
			}
			return boom
		}
		return fx.handler(tr, recs)
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want the handler's error", err)
	}
	eighth := readStream(t, db, src)[7].SequenceNumber
	if ck, ok, err := c.Checkpoint(db); err != nil || !ok || ck != eighth {
		t.Fatalf("checkpoint after two batches of 4 = %q, %v, %v; want the 8th record's", ck, ok, err)
	}
	// Restarted, then abandoned, once it has made progress, while more
	// records arrive.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, db, 3, fx.handler) }()
	putN(t, db, src, 30, 20)
	testtime.WaitUntil(t, "the restarted consumer to commit a batch", func() bool {
		ck, _, err := c.Checkpoint(db)
		if err != nil {
			t.Fatal(err)
		}
		return ck != eighth
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("abandoned Run = %v, want context.Canceled", err)
	}
	putN(t, db, src, 50, 10)
	// Restarted again, it drains the stream batch by batch.
	for {
		n, err := c.ProcessBatch(db, 5, fx.handler)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	fx.check(t, db, src)
	all := readStream(t, db, src)
	if ck, _, _ := c.Checkpoint(db); ck != all[len(all)-1].SequenceNumber {
		t.Errorf("checkpoint %s, want the last record's %s", ck, all[len(all)-1].SequenceNumber)
	}
	// Another consumer starts from the beginning on its own.
	other, _ := src.Consumer("auditor")
	seen := 0
	for {
		n, err := other.ProcessBatch(db, 0, func(fdb.Transaction, []StreamRecord) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if seen += n; n == 0 {
			break
		}
	}
	if seen != len(all) {
		t.Errorf("second consumer saw %d records, want %d", seen, len(all))
	}
}

// TestConsumerConcurrentInstances: several processes running the same
// consumer, under injected faults including commit_unknown_result and in
// callers' transactions without automatic idempotency, still process
// every record exactly once: they conflict on the checkpoint, and a retry
// re-reads it.
func TestConsumerConcurrentInstances(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(23))
	src := mustOpen(t, db, "Src", WithSchema(streamSchema(StreamViewTypeKeysOnly, 3)))
	fx := effects{tbl: mustOpen(t, db, "Effects", WithSchema(hashOnly))}
	c, _ := src.Consumer("shared")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				// The caller's own transaction, without automatic_idempotency.
				_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					return c.ProcessBatch(tr, 3, fx.handler)
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	putN(t, db, src, 0, 40)
	// Wait until the consumers caught up with everything written.
	all := readStream(t, db, src)
	testtime.WaitUntil(t, "the consumers to reach the last record", func() bool {
		ck, _, err := c.Checkpoint(db)
		if err != nil {
			t.Fatal(err)
		}
		return ck == all[len(all)-1].SequenceNumber
	})
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	fx.check(t, db, src)
}

// TestConsumerRejects: bad names and limits are ValidationExceptions.
func TestConsumerRejects(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeKeysOnly, 0))
	for _, name := range []string{"", string(make([]byte, MaxConsumerNameLength+1)), "\xff"} {
		if _, err := tbl.Consumer(name); !errors.Is(err, ErrValidation) {
			t.Errorf("Consumer(%q) = %v, want ErrValidation", name, err)
		}
	}
	c, _ := tbl.Consumer("c")
	if _, err := c.ProcessBatch(db, -1, nil); !errors.Is(err, ErrValidation) {
		t.Errorf("ProcessBatch(limit -1) = %v, want ErrValidation", err)
	}
	if err := c.Register(db, "12"); !errors.Is(err, ErrValidation) {
		t.Errorf("Register(bad sequence number) = %v, want ErrValidation", err)
	}
	if _, ok, err := c.Checkpoint(db); ok || err != nil {
		t.Errorf("Checkpoint of an unregistered consumer: registered %v, %v", ok, err)
	}
}
