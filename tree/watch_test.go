package tree

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

type watchResult struct {
	ev  WatchEvent
	err error
}

// startWatch runs w in a goroutine and passes its results on; the goroutine
// ends when ctx is done.
func startWatch(ctx context.Context, w func(func(WatchEvent, error) bool)) <-chan watchResult {
	ch := make(chan watchResult)
	go func() {
		defer close(ch)
		for ev, err := range w {
			select {
			case ch <- watchResult{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

func tokenValue(t *testing.T, r watchResult) int64 {
	t.Helper()
	if r.err != nil {
		t.Fatalf("Watch: %v", r.err)
	}
	if len(r.ev.Token) == 0 {
		return 0
	}
	if len(r.ev.Token) != 8 {
		t.Fatalf("token %x is not a counter", r.ev.Token)
	}
	return int64(binary.LittleEndian.Uint64(r.ev.Token))
}

// Each change into a directory adds one to its counter (a FoundationDB
// atomic add), and the watch on the counter wakes Watch; changes elsewhere
// do not touch it. Tokens resume a watch without missing a change.
func TestWatch(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events := startWatch(ctx, tr.Watch(ctx, db, p("d"), nil))
	if got := tokenValue(t, <-events); got != 0 {
		t.Fatalf("first event token = %d, want 0 (nothing written yet)", got)
	}
	if err := tr.Put(db, p("d/x"), fdyno.Item{}); err != nil {
		t.Fatal(err)
	}
	r1 := <-events
	if got := tokenValue(t, r1); got != 1 {
		t.Fatalf("after Put d/x: token = %d, want 1", got)
	}
	if err := tr.Put(db, p("e/y"), fdyno.Item{}); err != nil { // not into d
		t.Fatal(err)
	}
	if err := tr.Put(db, p("d/x/deeper"), fdyno.Item{}); err != nil { // into d/x, and d's entry x gains a directory
		t.Fatal(err)
	}
	r2 := <-events
	if got := tokenValue(t, r2); got != 2 {
		t.Fatalf("after Put e/y and Put d/x/deeper: token = %d, want 2", got)
	}
	if diff := r2.ev.Dir.String(); diff != "d" {
		t.Errorf("event Dir = %q, want d", diff)
	}

	// Resuming from the current token waits for the next change.
	ctx2, cancel2 := context.WithCancel(t.Context())
	resumed := startWatch(ctx2, tr.Watch(ctx2, db, p("d"), r2.ev.Token))
	// Resuming from an older token reports at once.
	older := startWatch(ctx2, tr.Watch(ctx2, db, p("d"), r1.ev.Token))
	if got := tokenValue(t, <-older); got != 2 {
		t.Errorf("resumed from token 1: first event token = %d, want 2", got)
	}
	if err := tr.DeleteTree(db, p("d/x")); err != nil {
		t.Fatal(err)
	}
	if got := tokenValue(t, <-resumed); got != 3 {
		t.Errorf("resumed from token 2: first event token = %d, want 3", got)
	}
	if got := tokenValue(t, <-events); got != 3 {
		t.Errorf("first watch after DeleteTree: token = %d, want 3", got)
	}
	cancel2()
	// A cancelled Watch yields the context's error and ends.
	cancel()
	for r := range events {
		if r.err != nil && !errors.Is(r.err, context.Canceled) {
			t.Errorf("after cancel: %v", r.err)
		}
	}
}

func TestWatchDisabled(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	plain, err := Open(db, tr.table, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range plain.Watch(t.Context(), db, Path{}, nil) {
		if !errors.Is(err, ErrNoWatch) {
			t.Errorf("Watch without Options.Watch = %v, want ErrNoWatch", err)
		}
		break
	}
}
