package fdyno

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// TestStreamRecordTimeIsHandleClock: every write path stamps its change
// record's ApproximateCreationDateTime with the handle's clock
// ([WithClock]), not the wall clock, to the microsecond that records keep.
func TestStreamRecordTimeIsHandleClock(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	clock.Advance(123456789 * time.Nanosecond) // below a microsecond is dropped
	s := streamSchema(StreamViewTypeKeysOnly, 0)
	s.TimeToLiveAttribute = "exp"
	tbl := newTestTable(t, db, s, WithClock(clock.Now))
	key := func(n string) Item { return Item{"pk": S("a"), "sk": N(n)} }
	var want []time.Time
	step := func(name string, write func() error) {
		t.Helper()
		clock.Advance(time.Hour + 1001*time.Nanosecond)
		if err := write(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want = append(want, clock.Now().Truncate(time.Microsecond).UTC())
	}
	step("Put", func() error {
		exp := N(strconv.FormatInt(clock.Now().Unix(), 10)) // expired by the sweep
		_, err := tbl.Put(db, PutInput{Item: Item{"pk": S("a"), "sk": N("1"), "exp": exp}})
		return err
	})
	step("Update", func() error {
		_, err := tbl.Update(db, UpdateInput{Key: key("2"), UpdateExpression: "SET n = :n", ExpressionAttributeValues: map[string]Value{":n": N("1")}})
		return err
	})
	step("Delete", func() error {
		_, err := tbl.Delete(db, DeleteInput{Key: key("2")})
		return err
	})
	step("TransactWrite", func() error {
		_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: tbl, Item: key("3")}}}})
		return err
	})
	step("BatchWrite", func() error {
		return BatchWriteAll(context.Background(), db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {{DeleteRequest: &DeleteRequest{Key: key("3")}}}}})
	})
	step("SweepExpiredOnce", func() error {
		st, err := tbl.SweepExpiredOnce(context.Background(), db, SweepOptions{})
		if err == nil && st.Deleted != 1 {
			t.Errorf("the sweeper deleted %d items, want the expired one", st.Deleted)
		}
		return err
	})
	var got []time.Time
	for _, r := range readStream(t, db, tbl) {
		got = append(got, r.ApproximateCreationDateTime)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ApproximateCreationDateTime per write mismatch (-want +got):\n%s", diff)
	}
}

// TestTrimStreamOlderThanUsesHandleClock: TrimStream's age cutoff is the
// handle's clock minus OlderThan, so records age as the clock moves.
func TestTrimStreamOlderThanUsesHandleClock(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	tbl := newTestTable(t, db, streamSchema(StreamViewTypeKeysOnly, 2), WithClock(clock.Now))
	ctx := context.Background()
	putN(t, db, tbl, 0, 4) // made at T
	clock.Advance(time.Hour)
	putN(t, db, tbl, 10, 3) // made at T+1h
	all := readStream(t, db, tbl)
	clock.Advance(30 * time.Minute) // now T+1h30m
	for _, tc := range []struct {
		olderThan time.Duration
		trimmed   int
	}{
		{2 * time.Hour, 0},                // cutoff T-30m: nothing is older
		{time.Hour + time.Second, 4},      // cutoff T+29m59s: the records made at T
		{30*time.Minute + time.Second, 0}, // cutoff T+59m59s: the rest were made at T+1h
		{30 * time.Minute, 0},             // cutoff T+1h: only records made before it go
		{29 * time.Minute, 3},             // cutoff T+1h1m: the records made at T+1h
	} {
		out, err := tbl.TrimStream(ctx, db, TrimStreamInput{OlderThan: tc.olderThan})
		if err != nil || out.Trimmed != tc.trimmed {
			t.Fatalf("TrimStream(OlderThan %v) = %+v, %v; want %d trimmed", tc.olderThan, out, err, tc.trimmed)
		}
	}
	if got := readStream(t, db, tbl); len(got) != 0 {
		t.Errorf("%d of %d records left after trimming everything older than the clock", len(got), len(all))
	}
}
