package dcb

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Each benchmark has raw FoundationDB siblings in the same run: the sets
// and range reads the operation rests on, with the same keys and values.

// benchStore is newTestStore without the consistency check, which would
// read every event a benchmark wrote.
func benchStore(b *testing.B) (fdb.Database, *Store) {
	b.Helper()
	db := fdblitetest.OpenIsolated(b)
	s, err := Open(db, subspace.Sub("bench"))
	if err != nil {
		b.Fatal(err)
	}
	return db, s
}

var benchEvent = Event{Type: "StudentSubscribed", Tags: []string{"course:c1", "student:s1", "term:t1"}, Data: make([]byte, 100)}

func BenchmarkAppend(b *testing.B) {
	db, s := benchStore(b)
	evs, err := s.prepare([]Event{benchEvent})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("dcb/tags=3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Append(db, []Event{benchEvent}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("raw-versionstamped-sets=%d", 1+len(evs[0].indexes)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				tr.SetVersionstampedKey(stamped(s.k.events, 0), evs[0].value)
				for _, ix := range evs[0].indexes {
					tr.SetVersionstampedKey(stamped(ix, 0), nil)
				}
				return nil, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("raw-versionstamped-sets=%d+conflict-ranges", 1+len(evs[0].indexes)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				if err := tr.Options().SetAutomaticIdempotency(); err != nil {
					return nil, err
				}
				rv, err := tr.GetReadVersion().Get()
				if err != nil {
					return nil, err
				}
				tr.SetVersionstampedKey(stamped(s.k.events, 0), evs[0].value)
				if err := tr.AddWriteConflictRange(laterSpan(s.k.events, rv)); err != nil {
					return nil, err
				}
				for _, ix := range evs[0].indexes {
					tr.SetVersionstampedKey(stamped(ix, 0), nil)
					if err := tr.AddWriteConflictRange(laterSpan(ix, rv)); err != nil {
						return nil, err
					}
				}
				return nil, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-set=1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				tr.SetVersionstampedKey(stamped(s.k.events, 0), evs[0].value)
				return nil, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkConditionalAppend(b *testing.B) {
	db, s := benchStore(b)
	evs, err := s.prepare([]Event{benchEvent})
	if err != nil {
		b.Fatal(err)
	}
	// The decision's query: the course and the student.
	q := Items(QueryItem{Tags: []string{"course:c1"}}, QueryItem{Types: []string{"StudentSubscribed"}, Tags: []string{"student:s1"}})
	pl, err := s.k.plan(q)
	if err != nil {
		b.Fatal(err)
	}
	// After the newest position there can be: the condition holds, and
	// reads its (empty) ranges.
	after := Position{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	b.Run("dcb", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Append(db, []Event{benchEvent}, &AppendCondition{FailIfEventsMatch: q, After: after}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-ranges+sets", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				rrs := make([]fdb.RangeResult, len(pl.prefixes))
				for i, p := range pl.prefixes {
					rrs[i] = tr.GetRange(span(p, after, Position{}), fdb.RangeOptions{Limit: 1})
				}
				for _, rr := range rrs {
					if _, err := rr.GetSliceWithError(); err != nil {
						return nil, err
					}
				}
				tr.SetVersionstampedKey(stamped(s.k.events, 0), evs[0].value)
				for _, ix := range evs[0].indexes {
					tr.SetVersionstampedKey(stamped(ix, 0), nil)
				}
				return nil, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkRead1000(b *testing.B) {
	db, s := benchStore(b)
	for i := 0; i < 1000; i += 100 {
		batch := make([]Event, 100)
		for j := range batch {
			batch[j] = Event{Type: "StudentSubscribed", Tags: []string{"course:c1", fmt.Sprintf("student:s%d", i+j)}, Data: make([]byte, 100)}
		}
		mustAppend(b, db, s, batch...)
	}
	// Noise the queries do not match.
	mustAppend(b, db, s, Event{Type: "CourseDefined", Tags: []string{"course:c1"}}, Event{Type: "StudentSubscribed", Tags: []string{"course:c2"}})
	for _, tc := range []struct {
		name string
		q    Query
	}{
		{"tags-only", Items(QueryItem{Tags: []string{"course:c1"}})},
		{"type+tags", Items(QueryItem{Types: []string{"StudentSubscribed"}, Tags: []string{"course:c1"}})},
	} {
		pl, _ := s.k.plan(tc.q)
		b.Run("dcb/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, err := range s.Read(db, tc.q, ReadOptions{Limit: 1000}) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != 1000 {
					b.Fatalf("read %d events", n)
				}
			}
		})
		b.Run("raw-range+gets/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, err := db.ReadTransact(func(tr fdb.ReadTransaction) (any, error) {
					kvs, err := tr.GetRange(span(pl.prefixes[0], Position{}, Position{}), fdb.RangeOptions{Limit: 1000, Mode: fdb.StreamingModeWantAll}).GetSliceWithError()
					if err != nil {
						return nil, err
					}
					fs := make([]fdb.FutureByteSlice, len(kvs))
					for i, kv := range kvs {
						fs[i] = tr.Get(s.k.eventKey(Position(kv.Key[len(kv.Key)-PositionLen:])))
					}
					for _, f := range fs {
						if _, err := f.Get(); err != nil {
							return nil, err
						}
					}
					return nil, nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("raw-range-of-values", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := db.ReadTransact(func(tr fdb.ReadTransaction) (any, error) {
				return tr.GetRange(span(s.k.events, Position{}, Position{}), fdb.RangeOptions{Limit: 1000, Mode: fdb.StreamingModeWantAll}).GetSliceWithError()
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSubscriberWakeups measures what one append costs the store's
// idle subscribers: with 1 and with 100 subscriptions, each on a tag of
// its own, an append matching only the first wakes the subscribers that
// watch a head it writes (heads.go: the first's, and those sharing a
// shard with its tag or its type by hash), and each reads its query's
// ranges once before it waits again. The figure is the read waves per
// append (waves/append), against the two the matching subscriber needs
// (its page, then the empty read before it waits). The raw sibling is
// the floor: each subscriber watches a key of its own, which the append
// writes for the first only, and reads it once when woken.
func BenchmarkSubscriberWakeups(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("dcb/subscribers=%d", n), func(b *testing.B) {
			db, s := benchStore(b)
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			got := make(chan Position, 1)
			watches := int64(0) // when every subscriber waits
			for i := range n {
				q := Items(QueryItem{Tags: []string{fmt.Sprintf("sub:%d", i)}})
				heads, err := s.HeadKeys(q)
				if err != nil {
					b.Fatal(err)
				}
				watches += int64(len(heads))
				go func() {
					for e, err := range s.Subscribe(ctx, db, q, Position{}) {
						if err != nil {
							return
						}
						if i == 0 {
							got <- e.Position
						}
					}
				}()
			}
			measureWakeups(b, db, watches, func() {
				ps := mustAppend(b, db, s, Event{Type: "Pinged", Tags: []string{"sub:0"}})
				if p := <-got; p != ps[0] {
					b.Fatalf("delivered %s, want %s", p, ps[0])
				}
			})
		})
		b.Run(fmt.Sprintf("raw-watch-own-key/subscribers=%d", n), func(b *testing.B) {
			db, _ := benchStore(b)
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			sub := subspace.Sub("raw-wakeups")
			got := make(chan []byte, 1)
			for i := range n {
				key := sub.Pack(tuple.Tuple{i})
				go func() {
					for ctx.Err() == nil {
						w, err := db.Transact(func(tr fdb.Transaction) (any, error) {
							v, err := tr.Get(key).Get()
							if err != nil {
								return nil, err
							}
							if i == 0 && v != nil {
								got <- v
							}
							return tr.Watch(key), nil
						})
						if err != nil {
							return
						}
						f := w.(fdb.FutureNil)
						go func() { <-ctx.Done(); f.Cancel() }()
						if f.Get() != nil {
							return
						}
					}
				}()
			}
			key0 := sub.Pack(tuple.Tuple{0})
			measureWakeups(b, db, int64(n), func() {
				_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					tr.SetVersionstampedValue(key0, headValue())
					return nil, nil
				})
				if err != nil {
					b.Fatal(err)
				}
				<-got
			})
		})
	}
}

// measureWakeups runs appendOne (an append and its delivery) once per
// iteration, each after the subscribers have settled (the database holds
// watches watches), and reports the read waves per append. Reading
// fdblite's stats costs no round trip.
func measureWakeups(b *testing.B, db fdb.Database, watches int64, appendOne func()) {
	idle := func() {
		for {
			st, err := fdblitetest.ReadStats(db)
			if err != nil {
				b.Fatal(err)
			}
			if st.Watches >= watches {
				return
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
	idle()
	appends := 0
	rt, err := fdblitetest.CountRoundTrips(db, func() error {
		for b.Loop() {
			appendOne()
			idle()
			appends++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(rt.ReadWaves)/float64(appends), "waves/append")
}
