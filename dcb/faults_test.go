package dcb

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// faultyStore opens a store on a database of its own that injects
// FoundationDB's commit and read faults at the given rate.
func faultyStore(t *testing.T, seed uint64, rate float64) (fdb.Database, *Store) {
	t.Helper()
	db := fdblitetest.OpenIsolated(t)
	s, err := Open(db, subspace.Sub("faults"))
	if err != nil {
		t.Fatal(err)
	}
	if rate > 0 {
		if err := fdblitetest.SetFaults(db, fdblitetest.Faults{
			Seed:                seed,
			ReadTooOld:          rate / 5,
			CommitNotCommitted:  rate,
			CommitUnknownResult: rate,
		}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		st, err := fdblitetest.ReadStats(db)
		if err == nil {
			t.Logf("seed %d: injected %+v, conflicts %d", seed, st.Injected, st.Conflicts)
		}
		if err := fdblitetest.ClearFaults(db); err != nil {
			t.Error(err)
		}
		checkStore(t, db, s)
	})
	return db, s
}

// Under injected not_committed and commit_unknown_result, every
// acknowledged append is stored exactly once and nothing else is: the
// store's own transactions set automatic_idempotency, so a retry after a
// commit that applied does not apply it again, whichever Transactor runs
// them (fdyno.Transact's rule).
func TestAppendsUnderFaults(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		for _, via := range []string{"Database", "RetryLoop"} {
			t.Run(fmt.Sprint("seed=", seed, "/", via), func(t *testing.T) {
				db, s := faultyStore(t, seed, 0.2)
				var tx fdb.Transactor = db
				if via == "RetryLoop" {
					tx = fdyno.RetryLoop{DB: db}
				}
				const workers, appends = 4, 20
				var wg sync.WaitGroup
				errs := make(chan error, workers)
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range appends {
							tag := fmt.Sprintf("w%d", w)
							_, err := s.Append(tx, []Event{
								{Type: "A", Tags: []string{tag}, Data: []byte(fmt.Sprint(w, "/", i, "/0"))},
								{Type: "B", Tags: []string{tag, "x"}, Data: []byte(fmt.Sprint(w, "/", i, "/1"))},
							}, nil)
							if err != nil {
								errs <- err
								return
							}
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatalf("Append: %v", err)
				}
				if err := fdblitetest.ClearFaults(db); err != nil {
					t.Fatal(err)
				}
				seen := map[string]int{}
				for _, e := range readAll(t, db, s, All(), ReadOptions{}) {
					seen[string(e.Data)]++
				}
				for w := range workers {
					for i := range appends {
						for j := range 2 {
							if k := fmt.Sprint(w, "/", i, "/", j); seen[k] != 1 {
								t.Errorf("event %s stored %d times, want 1", k, seen[k])
							}
						}
					}
				}
				if len(seen) != workers*appends*2 {
					t.Errorf("%d distinct events stored, want %d", len(seen), workers*appends*2)
				}
			})
		}
	}
}

// The course-capacity invariant of the DCB examples, by many concurrent
// writers with append conditions, with and without injected faults: a
// course never has more subscriptions than its capacity, every student
// told "subscribed" is subscribed exactly once, and no one else is.
func TestCourseCapacity(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate float64
	}{{"no faults", 0}, {"faults", 0.3}} {
		t.Run(tc.name, func(t *testing.T) {
			db, s := faultyStore(t, 11, tc.rate)
			const capacity, students = 5, 16
			mustAppend(t, db, s, Event{Type: "CourseDefined", Tags: []string{"course:c1"}, Data: []byte{capacity}})
			var wg, read sync.WaitGroup
			var mu sync.Mutex
			told := map[string]bool{}
			retries := 0
			errs := make(chan error, students)
			read.Add(students)
			for i := range students {
				wg.Add(1)
				go func() {
					defer wg.Done()
					student := fmt.Sprintf("student:s%d", i)
					// Every writer decides from the same first read: all
					// but one of their appends must fail their condition.
					first := true
					ok, err := subscribe(db, s, "course:c1", student, func() {
						if first {
							first = false
							read.Done()
							read.Wait()
							return
						}
						mu.Lock()
						retries++
						mu.Unlock()
					})
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					told[student] = ok
					mu.Unlock()
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if err := fdblitetest.ClearFaults(db); err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, e := range readAll(t, db, s, Items(QueryItem{Types: []string{"StudentSubscribed"}, Tags: []string{"course:c1"}}), ReadOptions{}) {
				for _, tag := range e.Tags {
					if tag != "course:c1" {
						got[tag]++
					}
				}
			}
			n := 0
			for student, ok := range told {
				want := 0
				if ok {
					want, n = 1, n+1
				}
				if got[student] != want {
					t.Errorf("%s: told %v, subscribed %d times", student, ok, got[student])
				}
			}
			if n != capacity || len(got) != capacity {
				t.Errorf("%d told subscribed, %d stored, want the capacity %d", n, len(got), capacity)
			}
			if retries < students-1 {
				t.Errorf("%d decisions retried after a failed condition, want at least %d", retries, students-1)
			}
		})
	}
}

// subscribe is the DCB decision: read the course's events, decide, and
// append on the condition that none of them changed since the read.
// decided runs after each read, before the decision.
func subscribe(db fdb.Database, s *Store, course, student string, decided func()) (bool, error) {
	q := Items(QueryItem{Tags: []string{course}})
	for {
		var last Position
		capacity, subscribed, already := 0, 0, false
		for e, err := range s.Read(db, q, ReadOptions{}) {
			if err != nil {
				return false, err
			}
			last = e.Position
			switch e.Type {
			case "CourseDefined":
				capacity = int(e.Data[0])
			case "StudentSubscribed":
				subscribed++
				for _, tag := range e.Tags {
					already = already || tag == student
				}
			}
		}
		decided()
		if already {
			return true, nil
		}
		if subscribed >= capacity {
			return false, nil
		}
		_, err := s.Append(db, []Event{{Type: "StudentSubscribed", Tags: []string{course, student}}},
			&AppendCondition{FailIfEventsMatch: q, After: last})
		if errors.Is(err, ErrAppendConditionFailed) {
			continue
		}
		return err == nil, err
	}
}
