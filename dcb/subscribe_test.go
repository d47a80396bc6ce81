package dcb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// A subscription delivers the matching events, stored and new, in order
// and exactly once, to a slow consumer too, and stops with ctx.
func TestSubscribe(t *testing.T) {
	db, s := newTestStore(t, WithPageSize(3))
	q := Items(QueryItem{Tags: []string{"course:c1"}})
	mustAppend(t, db, s, courseEvents...) // 3 of them match
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan StoredEvent)
	end := make(chan error, 1)
	go func() {
		for e, err := range s.Subscribe(ctx, db, q, Position{}) {
			if err != nil {
				end <- err
				return
			}
			got <- e
		}
		end <- nil
	}()
	var want []StoredEvent
	for _, e := range readAll(t, db, s, q, ReadOptions{}) {
		want = append(want, e)
	}
	const batches = 10
	var appended atomic.Int64 // batches the appender has committed
	go func() {
		for i := range batches {
			evs := []Event{
				{Type: "StudentSubscribed", Tags: []string{"course:c1", fmt.Sprintf("student:s%d", i)}},
				{Type: "StudentSubscribed", Tags: []string{"course:c2"}}, // does not match
				{Type: "CourseRenamed", Tags: []string{"course:c1"}, Data: []byte{byte(i)}},
			}
			if _, err := s.Append(db, evs, nil); err != nil {
				t.Error(err)
				return
			}
			appended.Add(1)
		}
	}()
	var seen []StoredEvent
	for len(seen) < 3+2*batches {
		select {
		case e := <-got:
			seen = append(seen, e)
			// A slow consumer: having taken an event of batch b, it takes
			// the next only once the appender has committed batch b+1.
			if b := int64(len(seen)-4) / 2; len(seen) > 3 && b+1 < batches {
				testtime.WaitUntil(t, "the appender to run ahead", func() bool { return appended.Load() > b+1 })
			}
		case err := <-end:
			t.Fatalf("subscription ended early: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatalf("subscription stalled after %d events", len(seen))
		}
	}
	want = readAll(t, db, s, q, ReadOptions{})
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("subscription mismatch (-read +subscribed):\n%s", diff)
	}
	// Idle, caught up: it waits on its watch and makes no round trip. The
	// window below measures time itself: idleness is the absence of round
	// trips over an interval, which no event marks.
	testtime.WaitUntil(t, "the subscription to wait on its watch", func() bool {
		st, err := fdblitetest.ReadStats(db)
		return err == nil && st.Watches > 0
	})
	rt, err := fdblitetest.CountRoundTrips(db, func() error { time.Sleep(100 * time.Millisecond); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rt.Total() != 0 {
		t.Errorf("an idle subscription made round trips: %s", rt)
	}
	// Resumed from the last delivered position, it delivers only what is new.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	p := mustAppend(t, db, s, Event{Type: "CourseRenamed", Tags: []string{"course:c1"}})[0]
	for e, err := range s.Subscribe(ctx2, db, q, seen[len(seen)-1].Position) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Position != p {
			t.Errorf("resumed subscription delivered %s, want %s", e.Position, p)
		}
		break
	}
	// The first subscription delivers it too, once.
	select {
	case e := <-got:
		if e.Position != p {
			t.Errorf("delivered %s, want %s", e.Position, p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("subscription stalled")
	}
	cancel()
	select {
	case err := <-end:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("subscription ended with %v, want context.Canceled", err)
		}
	case e := <-got:
		t.Errorf("delivered %s twice", e.Position)
	case <-time.After(10 * time.Second):
		t.Fatal("subscription did not stop on cancel")
	}
}

func TestSubscribeInvalid(t *testing.T) {
	db, s := newTestStore(t)
	for _, err := range s.Subscribe(context.Background(), db, Query{}, Position{}) {
		if !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("Subscribe(Query{}) = %v, want ErrInvalidQuery", err)
		}
	}
}

// When FoundationDB refuses every watch (max_watches 0: each watch fails
// with too_many_watches, 1032), a subscription still delivers new events,
// but reads again only after a doubling backoff: over 400ms it takes a
// handful of refused watches (10+20+40+80+160ms), where the old code read
// back to back, tens of thousands of times a second.
func TestSubscribeBacksOffWhenWatchesAreRefused(t *testing.T) {
	db, s := newTestStore(t)
	if err := db.Options().SetMaxWatches(0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	got := make(chan StoredEvent, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e, err := range s.Subscribe(ctx, db, All(), Position{}) {
			if err != nil {
				return
			}
			got <- e
		}
	}()
	// The append lands while the subscription backs off from a refused
	// watch.
	testtime.WaitUntil(t, "a watch to be refused", func() bool { return s.SubscribeStats().WatchErrors >= 1 })
	ps := mustAppend(t, db, s, Event{Type: "A"})
	select {
	case e := <-got:
		if e.Position != ps[0] {
			t.Errorf("delivered %s, want %s", e.Position, ps[0])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the event was not delivered with watches refused")
	}
	<-done
	st := s.SubscribeStats()
	if st.WatchErrors < 1 || st.WatchErrors > 12 {
		t.Errorf("WatchErrors = %d over 400ms, want 1 to 12 (a doubling backoff from %s)", st.WatchErrors, MinWatchBackoff)
	}
	if st.Backoff < MinWatchBackoff {
		t.Errorf("Backoff = %s, want at least %s", st.Backoff, MinWatchBackoff)
	}
	for i, want := range []time.Duration{10, 20, 40, 80, 160, 320, 640, 1000, 1000} {
		if got := watchBackoff(i); got != want*time.Millisecond {
			t.Errorf("watchBackoff(%d) = %s, want %s", i, got, want*time.Millisecond)
		}
	}
}
