// Package testtime holds the tests' two ways of dealing with time, so that
// no test sleeps for a fixed while and hopes: a [Clock] that a test moves
// by hand, for code that reads the time through an injected clock
// (fdyno.WithClock, the server's Config.Now), and [WaitUntil], for waiting
// on another goroutine or a background worker, with one generous deadline.
//
// A fixed sleep remains only where the thing tested is time itself (a
// timeout, a rate limit, a crash at a random moment); such a test says so
// next to the sleep.
package testtime

import (
	"sync"
	"testing"
	"time"
)

// Deadline is how long [WaitUntil] and [Poll] wait before giving up. It is
// generous because the tests share a loaded machine: a condition that
// should hold in milliseconds may take seconds under -race.
const Deadline = 30 * time.Second

// pollInterval is the pause between two evaluations of a condition.
const pollInterval = 2 * time.Millisecond

// Clock is a fake clock that moves only when told. Its zero value reads
// the zero time; use [NewClock].
//
// A Clock is safe for concurrent use by multiple goroutines.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads start until advanced.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time. It has the signature of time.Now, so
// c.Now can be injected where a clock function is expected.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock forward by d (backward if d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Poll evaluates cond until it returns true, and reports whether it did
// before [Deadline]. It suits goroutines other than the test's, which must
// not call t.Fatal.
func Poll(cond func() bool) bool {
	deadline := time.Now().Add(Deadline)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollInterval)
	}
	return true
}

// WaitUntil evaluates cond until it returns true, and fails t, naming
// what it waited for, if that takes longer than [Deadline]. cond runs on
// the test's goroutine, so it may itself call t.Fatal.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Poll(cond) {
		t.Fatalf("waited %v for %s", Deadline, what)
	}
}
