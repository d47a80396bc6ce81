package dcb

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// storeModel is the specification as a list: events in append order, each
// with the position the store gave it.
type storeModel struct {
	events []StoredEvent
}

// firstMatch is the first event after after matching q, if any.
func (m *storeModel) firstMatch(q Query, after Position) (Position, bool) {
	for _, e := range m.events {
		if e.Position.Compare(after) > 0 && q.Matches(e.Type, e.Tags) {
			return e.Position, true
		}
	}
	return Position{}, false
}

func (m *storeModel) read(q Query, o ReadOptions) []StoredEvent {
	var out []StoredEvent
	for _, e := range m.events {
		if !o.After.IsZero() && e.Position.Compare(o.After) <= 0 || !o.Before.IsZero() && e.Position.Compare(o.Before) >= 0 {
			continue
		}
		if q.Matches(e.Type, e.Tags) {
			out = append(out, e)
		}
	}
	if o.Backwards {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	if o.Limit > 0 && len(out) > o.Limit {
		out = out[:o.Limit]
	}
	return out
}

// appendTogether appends batches in one transaction of db (idempotent:
// with automatic idempotency, as the store's own transactions are),
// checks that their positions follow the model's events, and records
// them in the model.
func (m *storeModel) appendTogether(rt *rapid.T, db fdb.Database, s *Store, batches [][]Event, idempotent bool) {
	var as []Appended
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if idempotent {
			if err := tr.Options().SetAutomaticIdempotency(); err != nil {
				return nil, err
			}
		}
		as = as[:0]
		for _, b := range batches {
			a, err := s.Append(tr, b, nil)
			if err != nil {
				return nil, err
			}
			as = append(as, a)
		}
		return nil, nil
	})
	if err != nil {
		rt.Fatal(err)
	}
	for i, b := range batches {
		ps, err := as[i].Positions()
		if err != nil {
			rt.Fatal(err)
		}
		for j, e := range b {
			if n := len(m.events); n > 0 && ps[j].Compare(m.events[n-1].Position) <= 0 {
				rt.Fatalf("position %s not after %s", ps[j], m.events[n-1].Position)
			}
			m.events = append(m.events, stored(e, ps[j]))
		}
	}
}

func stored(e Event, p Position) StoredEvent {
	d := append([]byte{}, e.Data...)
	return StoredEvent{Position: p, Type: e.Type, Tags: normalTags(e.Tags), Data: d}
}

// The store against the model: random appends with and without
// conditions (in their own transactions and several in one), and reads of
// every query shape in both directions with after, before and limits, at
// random page sizes.
func TestStoreModel(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		s, err := Open(db, subspace.Sub("model", run))
		if err != nil {
			rt.Fatal(err)
		}
		defer checkStore(t, db, s)
		m := &storeModel{}
		onces := map[string][]Position{}   // idempotency key → positions
		onceEvents := map[string][]Event{} // idempotency key → its events
		genPosition := func(rt *rapid.T, label string) Position {
			switch k := rapid.IntRange(0, 3).Draw(rt, label+"-kind"); {
			case k == 0 || len(m.events) == 0:
				return Position{}
			case k == 1:
				// A position between events: an existing one's successor.
				p := m.events[rapid.IntRange(0, len(m.events)-1).Draw(rt, label)].Position
				p[PositionLen-1]++
				return p
			default:
				return m.events[rapid.IntRange(0, len(m.events)-1).Draw(rt, label)].Position
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"append": func(rt *rapid.T) {
				evs := rapid.SliceOfN(genEvent(), 1, 3).Draw(rt, "events")
				var cond *AppendCondition
				if rapid.Bool().Draw(rt, "conditional") {
					cond = &AppendCondition{FailIfEventsMatch: genQuery().Draw(rt, "query"), After: genPosition(rt, "after")}
				}
				a, err := s.Append(db, evs, cond)
				if cond != nil {
					if first, ok := m.firstMatch(cond.FailIfEventsMatch, cond.After); ok {
						var ce *AppendConditionError
						if !errors.As(err, &ce) || ce.Position != first {
							rt.Fatalf("Append = %v, want the condition to fail at %s", err, first)
						}
						return
					}
				}
				if err != nil {
					rt.Fatalf("Append: %v", err)
				}
				ps, err := a.Positions()
				if err != nil {
					rt.Fatal(err)
				}
				for i, e := range evs {
					if n := len(m.events); n > 0 && ps[i].Compare(m.events[n-1].Position) <= 0 {
						rt.Fatalf("position %s not after %s", ps[i], m.events[n-1].Position)
					}
					m.events = append(m.events, stored(e, ps[i]))
				}
			},
			"append once": func(rt *rapid.T) {
				id := rapid.SampledFrom([]string{"k1", "k2", "k3"}).Draw(rt, "id")
				evs := rapid.SliceOfN(genEvent(), 1, 2).Draw(rt, "events")
				var cond *AppendCondition
				if rapid.Bool().Draw(rt, "conditional") {
					cond = &AppendCondition{FailIfEventsMatch: genQuery().Draw(rt, "query"), After: genPosition(rt, "after")}
				}
				a, err := s.AppendOnce(db, []byte(id), evs, cond)
				if prev, ok := onces[id]; ok && !sameEvents(onceEvents[id], evs) {
					// Reused for other events: refused, nothing written.
					if !errors.Is(err, ErrIdempotencyKeyReused) {
						rt.Fatalf("AppendOnce(%s) with other events = %v, want ErrIdempotencyKeyReused", id, err)
					}
					return
				} else if ok {
					// Already applied: the first positions, nothing written,
					// no condition checked.
					ps, perr := a.Positions()
					if err != nil || perr != nil || !a.Repeated() || !cmp.Equal(ps, prev) {
						rt.Fatalf("repeated AppendOnce(%s) = %v, %v, %v; want the positions %v", id, ps, err, perr, prev)
					}
					return
				}
				if cond != nil {
					if first, ok := m.firstMatch(cond.FailIfEventsMatch, cond.After); ok {
						var ce *AppendConditionError
						if !errors.As(err, &ce) || ce.Position != first {
							rt.Fatalf("AppendOnce = %v, want the condition to fail at %s", err, first)
						}
						return
					}
				}
				if err != nil || a.Repeated() {
					rt.Fatalf("AppendOnce: %v (repeated %v)", err, a.Repeated())
				}
				ps, err := a.Positions()
				if err != nil {
					rt.Fatal(err)
				}
				onces[id], onceEvents[id] = ps, evs
				for i, e := range evs {
					m.events = append(m.events, stored(e, ps[i]))
				}
			},
			"append several in one transaction": func(rt *rapid.T) {
				m.appendTogether(rt, db, s, rapid.SliceOfN(rapid.SliceOfN(genEvent(), 1, 2), 2, 3).Draw(rt, "batches"), false)
			},
			"read": func(rt *rapid.T) {
				q := genQuery().Draw(rt, "query")
				o := ReadOptions{
					After:     genPosition(rt, "after"),
					Before:    genPosition(rt, "before"),
					Limit:     rapid.IntRange(0, 6).Draw(rt, "limit"),
					Backwards: rapid.Bool().Draw(rt, "backwards"),
				}
				s2 := *s
				s2.pageSize = rapid.IntRange(1, 4).Draw(rt, "page")
				// From a database (a transaction per page), or inside one
				// transaction, serializable or snapshot.
				var tr fdb.ReadTransactor = db
				var got []StoredEvent
				switch rapid.IntRange(0, 2).Draw(rt, "transactor") {
				case 1:
					t, err := db.CreateTransaction()
					if err != nil {
						rt.Fatal(err)
					}
					defer t.Cancel()
					tr = t
				case 2:
					t, err := db.CreateTransaction()
					if err != nil {
						rt.Fatal(err)
					}
					defer t.Cancel()
					tr = t.Snapshot()
				}
				for e, err := range s2.Read(tr, q, o) {
					if err != nil {
						rt.Fatal(err)
					}
					got = append(got, e)
				}
				if diff := cmp.Diff(m.read(q, o), got); diff != "" {
					rt.Fatalf("Read(%s) mismatch (-model +store):\n%s", fmt.Sprint(q, o), diff)
				}
			},
		})
	})
}

// sameEvents says whether two lists of events store the same: types, tags
// as stored (sorted, distinct) and data, in order.
func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || !slices.Equal(normalTags(a[i].Tags), normalTags(b[i].Tags)) || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}
