package fdyno

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// TestTail: a tail delivers, in order, records written before it started
// and records committed while it waits, resumes after a sequence number,
// and ends with ctx.Err() when ctx is cancelled.
func TestTail(t *testing.T) {
	db := fdblitetest.Open(t)
	for _, shards := range []int{1, 3} {
		t.Run("shards="+strconv.Itoa(shards), func(t *testing.T) {
			tbl := newTestTable(t, db, streamSchema(StreamViewTypeNewImage, shards))
			mustPut(t, db, tbl, Item{"pk": S("before"), "sk": N("0")})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			got := make(chan StreamRecord, 100)
			done := make(chan error, 1)
			go func() {
				for r, err := range tbl.Tail(ctx, db, "") {
					if err != nil {
						done <- err
						return
					}
					got <- r
				}
				done <- nil
			}()
			want := []string{"before"}
			for i := range 20 {
				pk := "k" + strconv.Itoa(i)
				mustPut(t, db, tbl, Item{"pk": S(pk), "sk": N("0")})
				want = append(want, pk)
				if i%5 == 0 { // let the tail catch up, so that it waits on its watches
					testtime.WaitUntil(t, "the tail to deliver every record so far", func() bool { return len(got) == len(want) })
				}
			}
			var keys []string
			var last StreamRecord
			for range want {
				select {
				case r := <-got:
					keys = append(keys, r.Keys["pk"].S())
					last = r
				case <-time.After(10 * time.Second):
					t.Fatalf("tail delivered %v, then nothing", keys)
				}
			}
			if diff := cmp.Diff(want, keys); diff != "" {
				t.Errorf("tail order mismatch (-want +got):\n%s", diff)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("tail ended with %v, want context.Canceled", err)
			}
			// Resume after the 10th record in a new tail.
			ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel2()
			all := readStream(t, db, tbl)
			n := 0
			for r, err := range tbl.Tail(ctx2, db, all[9].SequenceNumber) {
				if err != nil {
					t.Fatal(err)
				}
				if r.SequenceNumber != all[10+n].SequenceNumber {
					t.Fatalf("resumed tail record %d = %s, want %s", n, r.SequenceNumber, all[10+n].SequenceNumber)
				}
				if n++; 10+n == len(all) {
					break
				}
			}
			if last.SequenceNumber != all[len(all)-1].SequenceNumber {
				t.Errorf("last tailed %s, last read %s", last.SequenceNumber, all[len(all)-1].SequenceNumber)
			}
		})
	}
}

// TestTailDeletedTable: a tail waiting on a table that is deleted ends
// with ResourceNotFound (the delete removes the markers it watches).
func TestTailDeletedTable(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	tbl := mustOpen(t, db, "Gone", root, WithSchema(streamSchema(StreamViewTypeKeysOnly, 0)))
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": N("0")})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := 0
	for _, err := range tbl.Tail(ctx, db, "") {
		if err != nil {
			if !errors.Is(err, ErrResourceNotFound) {
				t.Fatalf("tail error %v, want ResourceNotFound", err)
			}
			break
		}
		if n++; n == 1 {
			if err := DeleteTable(db, "Gone", root); err != nil {
				t.Fatal(err)
			}
		}
	}
}
