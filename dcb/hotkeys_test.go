package dcb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// maxHotShare is the largest share of a workload's committed transactions
// that may write one key or take a read conflict on it (the root
// package's TestHotKeys uses the same bound): on a cluster one storage
// team serves each key, so a key every append touches caps the store's
// append rate at that team's.
const maxHotShare = 0.25

// TestHotKeys runs a mixed workload of appends under fdblite's key audit
// (the DCB course example with three event types over 16 courses and 64
// students: unconditional and conditional appends, AppendOnce, several
// appends in one caller's transaction) while subscriptions on tags, on
// types and on All() wait, and fails when one key is written, or read
// with a conflict, by more than maxHotShare of the committed
// transactions. No key of the store is hot by design.
func TestHotKeys(t *testing.T) {
	db, s := newTestStore(t)
	seed := uint64(3)
	r := rand.New(rand.NewPCG(seed, seed))
	types := []string{"CourseDefined", "StudentSubscribed", "StudentUnsubscribed"}
	event := func() Event {
		return Event{
			Type: types[r.IntN(len(types))],
			Tags: []string{fmt.Sprint("course:c", r.IntN(16)), fmt.Sprint("student:s", r.IntN(64))},
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for _, q := range []Query{
		Items(QueryItem{Tags: []string{"course:c1"}}),
		Items(QueryItem{Types: []string{"StudentSubscribed"}, Tags: []string{"student:s2"}}),
		Items(QueryItem{Types: []string{"CourseDefined"}}),
		All(),
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, err := range s.Subscribe(ctx, db, q, Position{}) {
				if err != nil {
					return
				}
			}
		}()
	}
	if err := fdblitetest.StartKeyAudit(db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fdblitetest.StopKeyAudit(db) })
	for i := range 400 {
		var err error
		// Half the operations join a caller's transaction.
		switch r.IntN(6) {
		case 0:
			_, err = s.Append(db, []Event{event(), event()}, nil)
		case 1:
			// A decision on one course since the last of its events.
			e := event()
			q := Items(QueryItem{Tags: e.Tags[:1]})
			var last Position
			for ev, err := range s.Read(db, q, ReadOptions{Backwards: true, Limit: 1}) {
				if err != nil {
					t.Fatal(err)
				}
				last = ev.Position
			}
			_, err = s.Append(db, []Event{e}, &AppendCondition{FailIfEventsMatch: q, After: last})
			if errors.Is(err, ErrAppendConditionFailed) {
				err = nil
			}
		case 2:
			_, err = s.AppendOnce(db, []byte(fmt.Sprint("request-", i)), []Event{event()}, nil)
		default:
			// Two appends joined to a caller's transaction (a projection
			// written beside them, say).
			_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
				for range 2 {
					if _, err := s.Append(tr, []Event{event()}, nil); err != nil {
						return nil, err
					}
				}
				return nil, nil
			})
		}
		if err != nil {
			t.Fatalf("seed %d, operation %d: %v", seed, i, err)
		}
	}
	a, err := fdblitetest.ReadKeyAudit(db)
	if err != nil {
		t.Fatal(err)
	}
	var hot []string
	for _, h := range a.Hot(maxHotShare) {
		hot = append(hot, h.Describe(describeStoreKey(s, h.Begin), a.Transactions))
	}
	if len(hot) > 0 {
		t.Errorf("seed %d: keys touched by more than %.0f%% of the transactions:\n%s", seed, 100*maxHotShare, strings.Join(hot, "\n"))
	}
}

// describeStoreKey names a key of s for a report: the tuple after the
// store's namespace, or the key itself.
func describeStoreKey(s *Store, k fdb.Key) string {
	if rest, ok := strings.CutPrefix(string(k), string(s.k.ns)); ok {
		if tup, err := tuple.Unpack([]byte(rest)); err == nil {
			return "store " + fmt.Sprint(tup)
		}
	}
	return fmt.Sprintf("%q", []byte(k))
}
