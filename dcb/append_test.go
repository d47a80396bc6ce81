package dcb

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// An append condition fails, per the specification, if the store holds an
// event matching its query after its position; it names the first such
// position and writes nothing.
func TestAppendCondition(t *testing.T) {
	db, s := newTestStore(t)
	ps := mustAppend(t, db, s, courseEvents...)
	c1 := Items(QueryItem{Tags: []string{"course:c1"}})
	tests := []struct {
		name  string
		cond  AppendCondition
		first int // index into courseEvents of the first match, -1 for none
	}{
		{"any c1 event", AppendCondition{FailIfEventsMatch: c1}, 0},
		{"c1 after its first", AppendCondition{FailIfEventsMatch: c1, After: ps[0]}, 1},
		{"c1 after its last", AppendCondition{FailIfEventsMatch: c1, After: ps[4]}, -1},
		{"after beyond the last match", AppendCondition{FailIfEventsMatch: c1, After: ps[6]}, -1},
		{"first over items", AppendCondition{FailIfEventsMatch: Items(
			QueryItem{Types: []string{"StudentRegistered"}},
			QueryItem{Types: []string{"CourseDefined"}, Tags: []string{"course:c2"}},
		)}, 2},
		{"all", AppendCondition{FailIfEventsMatch: All(), After: ps[5]}, 6},
		{"all after the last", AppendCondition{FailIfEventsMatch: All(), After: ps[6]}, -1},
		{"no match", AppendCondition{FailIfEventsMatch: Items(QueryItem{Tags: []string{"course:c9"}})}, -1},
		{"type and tag", AppendCondition{FailIfEventsMatch: Items(QueryItem{Types: []string{"CourseRenamed"}, Tags: []string{"course:c1"}})}, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := readAll(t, db, s, All(), ReadOptions{})
			ev := Event{Type: "Probe", Tags: []string{"course:c1"}}
			a, err := s.Append(db, []Event{ev}, &tc.cond)
			if tc.first < 0 {
				if err != nil {
					t.Fatalf("Append: %v, want success", err)
				}
				p, err := a.Last()
				if err != nil {
					t.Fatal(err)
				}
				// Undo, so the cases stay independent.
				clearEvent(t, db, s, p, ev)
				return
			}
			var ce *AppendConditionError
			if !errors.As(err, &ce) || !errors.Is(err, ErrAppendConditionFailed) {
				t.Fatalf("Append error = %v, want an AppendConditionError", err)
			}
			if ce.Position != ps[tc.first] || ce.After != tc.cond.After {
				t.Errorf("AppendConditionError = {%s after %s}, want {%s after %s}", ce.Position, ce.After, ps[tc.first], tc.cond.After)
			}
			if diff := cmp.Diff(before, readAll(t, db, s, All(), ReadOptions{})); diff != "" {
				t.Errorf("a failed append wrote (-before +after):\n%s", diff)
			}
		})
	}
}

// clearEvent removes an event and its index entries (a test helper: the
// store itself never deletes).
func clearEvent(t *testing.T, db fdb.Database, s *Store, p Position, e Event) {
	t.Helper()
	evs, err := s.prepare([]Event{e})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Clear(s.k.eventKey(p))
		for _, ix := range evs[0].indexes {
			tr.Clear(fdb.Key(append(append(append([]byte{}, ix...), tupleVersionstampCode), p[:]...)))
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAppendInvalid(t *testing.T) {
	db, s := newTestStore(t)
	many := make([]string, MaxTags+1)
	for i := range many {
		many[i] = string(rune('a' + i))
	}
	tests := []struct {
		name   string
		events []Event
		cond   *AppendCondition
		want   error
	}{
		{"no events", nil, nil, ErrInvalidEvent},
		{"no type", []Event{{Data: []byte("x")}}, nil, ErrInvalidEvent},
		{"type too long", []Event{{Type: strings.Repeat("t", MaxTypeBytes+1)}}, nil, ErrInvalidEvent},
		{"too many tags", []Event{{Type: "T", Tags: many}}, nil, ErrInvalidEvent},
		{"tag too long", []Event{{Type: "T", Tags: []string{strings.Repeat("g", MaxTagBytes+1)}}}, nil, ErrInvalidEvent},
		{"event too large", []Event{{Type: "T", Data: make([]byte, MaxEventBytes)}}, nil, ErrTooLarge},
		{"batch too large", func() []Event {
			evs := make([]Event, 100)
			for i := range evs {
				evs[i] = Event{Type: "T", Data: make([]byte, MaxEventBytes-100)}
			}
			return evs
		}(), nil, ErrTooLarge},
		{"invalid condition", []Event{{Type: "T"}}, &AppendCondition{}, ErrInvalidQuery},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := fdblitetest.CountRoundTrips(db, func() error {
				_, err := s.Append(db, tc.events, tc.cond)
				if !errors.Is(err, tc.want) {
					t.Errorf("Append error = %v, want %v", err, tc.want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if rt.Total() != 0 {
				t.Errorf("a refused append made round trips: %s", rt)
			}
		})
	}
	if got := readAll(t, db, s, All(), ReadOptions{}); len(got) != 0 {
		t.Errorf("refused appends wrote %d events", len(got))
	}
	// The largest event allowed is accepted.
	e := Event{Type: "T"}
	e.Data = make([]byte, MaxEventBytes-encodedLen(e.Type, nil, nil))
	mustAppend(t, db, s, e)
}

// Several appends in one caller's transaction get distinct, increasing
// positions, known after the commit; the events commit together.
func TestAppendInCallerTransaction(t *testing.T) {
	db, s := newTestStore(t)
	var as []Appended
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		as = as[:0]
		for i := range 3 {
			a, err := s.Append(tr, []Event{{Type: "A", Data: []byte{byte(i)}}, {Type: "B", Data: []byte{byte(i)}}}, nil)
			if err != nil {
				return nil, err
			}
			as = append(as, a)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ps []Position
	for _, a := range as {
		p, err := a.Positions()
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p...)
	}
	if !isSorted(ps) || len(ps) != 6 {
		t.Fatalf("positions %v: want 6, increasing", ps)
	}
	got := readAll(t, db, s, All(), ReadOptions{})
	var gotPs []Position
	for _, e := range got {
		gotPs = append(gotPs, e.Position)
	}
	if diff := cmp.Diff(ps, gotPs); diff != "" {
		t.Errorf("positions (-appended +read):\n%s", diff)
	}
	// A later transaction's events come after.
	next := mustAppend(t, db, s, Event{Type: "A"})
	if next[0].Compare(ps[5]) <= 0 {
		t.Errorf("later append at %s, not after %s", next[0], ps[5])
	}
}

// The positions of an append whose transaction does not commit are an
// error.
func TestAppendNotCommitted(t *testing.T) {
	db, s := newTestStore(t)
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Append(tr, []Event{{Type: "A"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.Cancel()
	if _, err := a.Positions(); !errors.Is(err, ErrNotCommitted) {
		t.Errorf("Positions after cancel: %v, want ErrNotCommitted", err)
	}
	if _, err := (Appended{}).Positions(); !errors.Is(err, ErrNotCommitted) {
		t.Errorf("zero Appended: %v, want ErrNotCommitted", err)
	}
}

// Round trips, as fdblite counts them: a conditional append given a
// database is one read version, one wave of reads and one commit; an
// unconditional one is a read version and a commit; a read page of an
// index query is a read version and two waves (index ranges, then the
// events), of All a read version and one wave.
func TestRoundTrips(t *testing.T) {
	db, s := newTestStore(t)
	for i := range 50 {
		mustAppend(t, db, s, Event{Type: "T", Tags: []string{"a", "b", string(rune('c' + i%3))}})
	}
	q := Items(QueryItem{Tags: []string{"a"}}, QueryItem{Types: []string{"T"}, Tags: []string{"b"}}, QueryItem{Types: []string{"T", "U"}})
	tests := []struct {
		name string
		fn   func() error
		want fdblitetest.RoundTrips
	}{
		{"conditional append", func() error {
			_, err := s.Append(db, []Event{{Type: "U"}}, &AppendCondition{FailIfEventsMatch: Items(QueryItem{Tags: []string{"z"}}, QueryItem{Types: []string{"V"}})})
			return err
		}, fdblitetest.RoundTrips{ReadVersions: 1, ReadWaves: 1, Commits: 1}},
		{"unconditional append", func() error {
			_, err := s.Append(db, []Event{{Type: "U"}}, nil)
			return err
		}, fdblitetest.RoundTrips{ReadVersions: 1, Commits: 1}},
		{"index read page", func() error {
			for _, err := range s.Read(db, q, ReadOptions{}) {
				if err != nil {
					return err
				}
			}
			return nil
		}, fdblitetest.RoundTrips{ReadVersions: 1, ReadWaves: 2}},
		{"all read page", func() error {
			for _, err := range s.Read(db, All(), ReadOptions{}) {
				if err != nil {
					return err
				}
			}
			return nil
		}, fdblitetest.RoundTrips{ReadVersions: 1, ReadWaves: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fdblitetest.CountRoundTrips(db, tc.fn)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("round trips %s, want %s", got, tc.want)
			}
		})
	}
}

// Events over EventPartBytes are stored in parts and read back whole, by
// every kind of read.
func TestLargeEvents(t *testing.T) {
	db, s := newTestStore(t)
	var evs []Event
	for i, n := range []int{EventPartBytes - 20, EventPartBytes, EventPartBytes + 1, 3*EventPartBytes + 7, 1 << 20} {
		data := make([]byte, n)
		for j := range data {
			data[j] = byte(j * (i + 1))
		}
		evs = append(evs, Event{Type: "Big", Tags: []string{fmt.Sprint("size:", n)}, Data: data})
	}
	ps := mustAppend(t, db, s, evs...)
	var want []StoredEvent
	for i, e := range evs {
		want = append(want, stored(e, ps[i]))
	}
	for _, q := range []Query{All(), Items(QueryItem{Types: []string{"Big"}})} {
		got := readAll(t, db, s, q, ReadOptions{})
		// Compare the data with bytes.Equal: cmp walks a byte slice
		// element by element, which takes seconds for megabytes.
		if len(got) != len(want) {
			t.Fatalf("Read(%v): %d events, want %d", q, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i].Data, want[i].Data) {
				t.Errorf("Read(%v): event %d data differs", q, i)
			}
			got[i].Data, want[i].Data = nil, nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Read(%v) mismatch (-want +got):\n%s", q, diff)
		}
		for i, e := range evs {
			want[i].Data = e.Data
		}
	}
	got := readAll(t, db, s, Items(QueryItem{Tags: []string{fmt.Sprint("size:", 1<<20)}}), ReadOptions{})
	if len(got) != 1 || !bytes.Equal(got[0].Data, evs[4].Data) {
		t.Errorf("tag read of the 1 MiB event: %d events", len(got))
	}
	// A chunked event missing a part is corrupt, not a short event.
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		kr := s.k.partsSpan(ps[3])
		kvs, err := tr.GetRange(kr, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		tr.Clear(kvs[1].Key)
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, err := range s.Read(db, All(), ReadOptions{}) {
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Errorf("Read: %v, want ErrCorrupt", err)
		}
	}
	clearEvent(t, db, s, ps[3], evs[3])
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.ClearRange(s.k.partsSpan(ps[3]))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// positionsWithin calls a.Positions and fails the test if it blocks: the
// old code waited on the versionstamp of a transaction that never commits.
func positionsWithin(t *testing.T, a Appended) ([]Position, error) {
	t.Helper()
	type res struct {
		ps  []Position
		err error
	}
	done := make(chan res, 1)
	go func() {
		ps, err := a.Positions()
		done <- res{ps, err}
	}()
	select {
	case r := <-done:
		return r.ps, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("Positions blocked")
		return nil, nil
	}
}

// An append joined to a transaction whose function returns an error never
// commits, and its Positions say so at once (ErrNotCommitted), as they do
// when asked inside the function, before the commit.
func TestAppendNotCommittedWithoutBlocking(t *testing.T) {
	db, s := newTestStore(t)
	var a Appended
	failed := errors.New("decided against it")
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		var err error
		if a, err = s.Append(tr, []Event{{Type: "A"}}, nil); err != nil {
			return nil, err
		}
		if _, err := positionsWithin(t, a); !errors.Is(err, ErrNotCommitted) {
			t.Errorf("Positions inside the transaction: %v, want ErrNotCommitted", err)
		}
		return nil, failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("Transact: %v", err)
	}
	if _, err := positionsWithin(t, a); !errors.Is(err, ErrNotCommitted) {
		t.Errorf("Positions after the function failed: %v, want ErrNotCommitted", err)
	}
	if got := readAll(t, db, s, All(), ReadOptions{}); len(got) != 0 {
		t.Errorf("store holds %d events, want 0", len(got))
	}
}

// joiningWrapper is a tracing wrapper of a caller's transaction that says
// it joins (fdyno.CallerTransactor); silentWrapper is one that does not.
type joiningWrapper struct{ tr fdb.Transaction }

func (w joiningWrapper) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return f(w.tr)
}
func (w joiningWrapper) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return f(w.tr)
}
func (w joiningWrapper) JoinsCaller() bool { return true }

type silentWrapper struct{ tr fdb.Transaction }

func (w silentWrapper) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return f(w.tr)
}
func (w silentWrapper) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return f(w.tr)
}

// A wrapper of a caller's transaction that says it joins gets the joined
// behaviour: two appends in one transaction, positions after the commit,
// all distinct. One that does not say so is refused when it returns
// (fdyno.ErrTransactorDidNotCommit) instead of deadlocking on a commit that
// could only follow, and nothing commits. The old code decided by the
// concrete type fdb.Transaction and blocked forever in Append.
func TestAppendThroughWrappers(t *testing.T) {
	db, s := newTestStore(t)
	var as []Appended
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		as = as[:0]
		for range 2 {
			a, err := s.Append(joiningWrapper{tr}, []Event{{Type: "A"}, {Type: "B"}}, nil)
			if err != nil {
				return nil, err
			}
			as = append(as, a)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Position]bool{}
	for _, a := range as {
		ps, err := positionsWithin(t, a)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			seen[p] = true
		}
	}
	if len(seen) != 4 || len(readAll(t, db, s, All(), ReadOptions{})) != 4 {
		t.Errorf("joined appends: %d distinct positions, want 4", len(seen))
	}

	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Append(silentWrapper{tr}, []Event{{Type: "C"}}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, fdyno.ErrTransactorDidNotCommit) {
			t.Errorf("Append through a silent wrapper: %v, want ErrTransactorDidNotCommit", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Append through a silent wrapper deadlocked")
	}
	var fe fdb.Error
	if err := tr.Commit().Get(); !errors.As(err, &fe) || fe.Code != 1025 {
		t.Errorf("caller's commit: %v, want transaction_cancelled (1025)", err)
	}
	if got := readAll(t, db, s, All(), ReadOptions{}); len(got) != 4 {
		t.Errorf("store holds %d events after the refused append, want 4", len(got))
	}
}
