package dcb

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// Every event a query matches falls in a shard its subscriber watches
// (or the subscriber watches anyShard, which every append writes): the
// condition for never missing an append, checked on the functions that
// choose the heads, over random events and queries.
func TestHeadsCoverMatches(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		e := genEvent().Draw(rt, "event")
		q := genQuery().Draw(rt, "query")
		tags := normalTags(e.Tags)
		if !q.Matches(e.Type, tags) {
			return
		}
		watched := watchedShards(q)
		if slices.Contains(watched, anyShard) {
			return
		}
		for _, sh := range eventShards(e.Type, tags) {
			if slices.Contains(watched, sh) {
				return
			}
		}
		rt.Fatalf("%+v matches %+v, but writes shards %v and the query watches %v", e, q, eventShards(e.Type, tags), watched)
	})
}

// A name's shard is part of the stored format: FNV-1a (32 bits) of the
// domain byte and the name, modulo headShards, as hash/fnv computes it.
func TestNameShardIsFNV1a(t *testing.T) {
	for _, domain := range []byte{domainTag, domainType} {
		for _, name := range []string{"", "course:c1", "StudentSubscribed", "\x00\xff", strings.Repeat("x", MaxTagBytes)} {
			h := fnv.New32a()
			h.Write([]byte{domain})
			h.Write([]byte(name))
			if got, want := nameShard(domain, name), int(h.Sum32()%headShards); got != want {
				t.Errorf("nameShard(%q, %q) = %d, want %d", domain, name, got, want)
			}
		}
	}
}

func TestHeadKeys(t *testing.T) {
	_, s := newTestStore(t)
	manyTags := make([]QueryItem, maxWatchedShards+1)
	for i := range manyTags {
		manyTags[i] = QueryItem{Tags: []string{fmt.Sprint("tag", i)}}
	}
	// Distinct names in distinct shards, so the counts below are exact.
	if nameShard(domainType, "A") == nameShard(domainType, "B") {
		t.Fatal("types A and B share a shard: pick others")
	}
	for _, tc := range []struct {
		name   string
		q      Query
		shards []int
	}{
		{"one tag", Items(QueryItem{Tags: []string{"course:c1"}}), []int{nameShard(domainTag, "course:c1")}},
		// Any one tag of an item suffices: a matching event carries all.
		{"two tags, watched through the first", Items(QueryItem{Tags: []string{"student:s1", "course:c1"}}), []int{nameShard(domainTag, "course:c1")}},
		{"types and tags, watched through a tag", Items(QueryItem{Types: []string{"A", "B"}, Tags: []string{"course:c1"}}), []int{nameShard(domainTag, "course:c1")}},
		{"types only", Items(QueryItem{Types: []string{"A", "B"}}), []int{nameShard(domainType, "A"), nameShard(domainType, "B")}},
		{"All", All(), []int{anyShard}},
		{"more shards than maxWatchedShards", Items(manyTags...), []int{anyShard}},
		{"an item matching nothing", Items(QueryItem{Tags: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.HeadKeys(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var want []fdb.Key
			slices.Sort(tc.shards)
			for _, sh := range tc.shards {
				for st := range headStripes {
					want = append(want, s.k.headKey(sh, st))
				}
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("HeadKeys mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := s.HeadKeys(Query{}); !errors.Is(err, ErrInvalidQuery) {
		t.Errorf("HeadKeys(Query{}) = %v, want ErrInvalidQuery", err)
	}
}

// An idle subscriber is not woken by an append it cannot match: it makes
// no round trip, where it read its ranges after every append when all
// appends wrote one head. One that it matches wakes it.
func TestAppendWakesOnlyMatchingSubscribers(t *testing.T) {
	db, s := newTestStore(t)
	q := Items(QueryItem{Tags: []string{"course:c1"}})
	other := Event{Type: "CourseDefined", Tags: []string{"course:c2"}}
	if w := watchedShards(q); slices.ContainsFunc(eventShards(other.Type, other.Tags), func(sh int) bool { return slices.Contains(w, sh) }) {
		t.Fatal("the other event shares a shard with the query: pick other names")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan Position, 1)
	go func() {
		for e, err := range s.Subscribe(ctx, db, q, Position{}) {
			if err != nil {
				return
			}
			got <- e.Position
		}
	}()
	armed := func() {
		testtime.WaitUntil(t, "the subscription to watch its heads", func() bool {
			st, err := fdblitetest.ReadStats(db)
			return err == nil && st.Watches == headStripes
		})
	}
	armed()
	rt, err := fdblitetest.CountRoundTrips(db, func() error {
		mustAppend(t, db, s, other)
		// Time is the measure: no event marks a wakeup that does not happen.
		time.Sleep(50 * time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (fdblitetest.RoundTrips{ReadVersions: 1, Commits: 1}); rt != want {
		t.Errorf("a non-matching append and the subscriber: %s, want the append's own %s", rt, want)
	}
	p := mustAppend(t, db, s, Event{Type: "StudentSubscribed", Tags: []string{"course:c1", "student:s1"}})[0]
	select {
	case d := <-got:
		if d != p {
			t.Errorf("delivered %s, want %s", d, p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a matching append did not wake the subscriber")
	}
}

// subscriber collects what one subscription delivers.
type subscriber struct {
	q    Query
	mu   sync.Mutex
	got  []StoredEvent
	err  error
	done chan struct{}
}

func (sb *subscriber) snapshot() ([]StoredEvent, error) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return slices.Clone(sb.got), sb.err
}

// Subscribers never miss a matching append: random subscriptions wait,
// caught up, on their heads; after each random append (alone, or several
// in one transaction) every subscription delivers exactly the events of
// the model that its query matches, in order, or the test fails after a
// timeout. Under injected commit and read faults too (the subscriptions'
// transactions retry, the appends are idempotent).
func TestSubscribersNeverMissAppends(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate float64
	}{{"no faults", 0}, {"faults", 0.2}} {
		t.Run(tc.name, func(t *testing.T) {
			db := fdblitetest.OpenIsolated(t)
			if tc.rate > 0 {
				fdblitetest.InjectFaults(t, db, fdblitetest.Faults{
					Seed:                5,
					ReadTooOld:          tc.rate / 5,
					CommitNotCommitted:  tc.rate,
					CommitUnknownResult: tc.rate,
				})
			}
			run := 0
			rapid.Check(t, func(rt *rapid.T) {
				run++
				s, err := Open(db, subspace.Sub("subscribers", run))
				if err != nil {
					rt.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				subs := make([]*subscriber, rapid.IntRange(1, 4).Draw(rt, "subscribers"))
				var watches int
				for i := range subs {
					sb := &subscriber{q: genQuery().Draw(rt, fmt.Sprint("query", i)), done: make(chan struct{})}
					subs[i] = sb
					heads, err := s.HeadKeys(sb.q)
					if err != nil {
						rt.Fatal(err)
					}
					watches += len(heads)
					go func() {
						defer close(sb.done)
						for e, err := range s.Subscribe(ctx, db, sb.q, Position{}) {
							sb.mu.Lock()
							if err != nil {
								sb.err = err
							} else {
								sb.got = append(sb.got, e)
							}
							sb.mu.Unlock()
							if err != nil {
								return
							}
						}
					}()
				}
				defer func() {
					cancel()
					for _, sb := range subs {
						<-sb.done
					}
				}()
				m := &storeModel{}
				for step := range rapid.IntRange(1, 6).Draw(rt, "appends") {
					// Every subscription caught up and waiting on its
					// heads: only a wakeup brings it the next append.
					waitFor(rt, "the subscriptions to watch", func() bool {
						st, err := fdblitetest.ReadStats(db)
						return err == nil && st.Watches >= int64(watches)
					})
					batches := rapid.SliceOfN(rapid.SliceOfN(genEvent(), 1, 3), 1, 2).Draw(rt, fmt.Sprint("batches", step))
					m.appendTogether(rt, db, s, batches, true)
					for i, sb := range subs {
						want := m.read(sb.q, ReadOptions{})
						var got []StoredEvent
						waitFor(rt, fmt.Sprintf("subscription %d (%+v) to deliver %d events", i, sb.q, len(want)), func() bool {
							var err error
							got, err = sb.snapshot()
							if err != nil {
								rt.Fatalf("subscription %d: %v", i, err)
							}
							return len(got) >= len(want)
						})
						if diff := cmp.Diff(want, got); diff != "" {
							rt.Fatalf("subscription %d (%+v) mismatch (-model +delivered):\n%s", i, sb.q, diff)
						}
					}
				}
			})
		})
	}
}

// waitFor polls cond until it holds, failing rt after testtime.Deadline:
// a subscription that missed a wakeup never delivers.
func waitFor(rt *rapid.T, what string, cond func() bool) {
	if !testtime.Poll(cond) {
		rt.Fatalf("waited %v for %s", testtime.Deadline, what)
	}
}
