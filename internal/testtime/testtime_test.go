package testtime

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	c := NewClock(start)
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("Now() = %v, want %v", got, start)
	}
	c.Advance(90 * time.Minute)
	c.Advance(-30 * time.Minute)
	if got, want := c.Now(), start.Add(time.Hour); !got.Equal(want) {
		t.Fatalf("after +90m -30m, Now() = %v, want %v", got, want)
	}
}

func TestWaitUntil(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	WaitUntil(t, "three increments", func() bool { return n.Load() == 3 })
	calls := 0
	WaitUntil(t, "a condition already true", func() bool { calls++; return true })
	if calls != 1 {
		t.Errorf("a condition true at once was evaluated %d times, want 1", calls)
	}
}
