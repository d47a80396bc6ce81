package dcb_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno/dcb"
)

// exampleStore opens the default database (fdblite in tests) and a fresh
// store in the directory dcb-examples/<name>.
func exampleStore(name string) (fdb.Database, *dcb.Store) {
	fdb.MustAPIVersion(730)
	db := fdb.MustOpenDefault()
	path := []string{"dcb-examples", name}
	if _, err := directory.Root().Remove(db, path); err != nil {
		panic(err)
	}
	dir, err := directory.CreateOrOpen(db, path, nil)
	if err != nil {
		panic(err)
	}
	s, err := dcb.Open(db, dir)
	if err != nil {
		panic(err)
	}
	return db, s
}

// The DCB cycle: read the events a decision depends on, decide, and append
// on the condition that no such event appeared since the read.
func Example() {
	db, store := exampleStore("cycle")
	_, _ = store.Append(db, []dcb.Event{
		{Type: "CourseDefined", Tags: []string{"course:c1"}, Data: []byte("capacity=1")},
	}, nil)

	// The decision: may student s1 subscribe to course c1?
	q := dcb.Items(dcb.QueryItem{Tags: []string{"course:c1"}})
	var last dcb.Position
	subscribed := 0
	for e, err := range store.Read(db, q, dcb.ReadOptions{}) {
		if err != nil {
			panic(err)
		}
		if e.Type == "StudentSubscribed" {
			subscribed++
		}
		last = e.Position
	}
	fmt.Println("subscribed so far:", subscribed)

	// Meanwhile another writer subscribes s2.
	_, _ = store.Append(db, []dcb.Event{{Type: "StudentSubscribed", Tags: []string{"course:c1", "student:s2"}}}, nil)

	// s1's append fails: the course changed after its decision was made.
	_, err := store.Append(db, []dcb.Event{{Type: "StudentSubscribed", Tags: []string{"course:c1", "student:s1"}}},
		&dcb.AppendCondition{FailIfEventsMatch: q, After: last})
	var ce *dcb.AppendConditionError
	fmt.Println(errors.Is(err, dcb.ErrAppendConditionFailed), errors.As(err, &ce) && ce.Position.Compare(last) > 0)
	// Output:
	// subscribed so far: 0
	// true true
}

// Queries are unions of items; an item matches any of its types and all
// of its tags. Reads go forwards or backwards, after or before a position,
// with a limit.
func ExampleStore_Read() {
	db, store := exampleStore("read")
	_, _ = store.Append(db, []dcb.Event{
		{Type: "CourseDefined", Tags: []string{"course:c1"}},
		{Type: "StudentRegistered", Tags: []string{"student:s1"}},
		{Type: "StudentSubscribed", Tags: []string{"course:c1", "student:s1"}},
		{Type: "CourseDefined", Tags: []string{"course:c2"}},
		{Type: "StudentSubscribed", Tags: []string{"student:s1", "course:c2"}},
	}, nil)
	show := func(q dcb.Query, o dcb.ReadOptions) {
		var line []string
		for e, err := range store.Read(db, q, o) {
			if err != nil {
				panic(err)
			}
			line = append(line, fmt.Sprint(e.Type, e.Tags))
		}
		fmt.Println(strings.Join(line, " "))
	}
	show(dcb.Items(dcb.QueryItem{Types: []string{"CourseDefined"}}), dcb.ReadOptions{})
	show(dcb.Items(dcb.QueryItem{Tags: []string{"course:c1", "student:s1"}}), dcb.ReadOptions{})
	show(dcb.Items(dcb.QueryItem{Types: []string{"StudentSubscribed"}, Tags: []string{"course:c2"}}), dcb.ReadOptions{})
	show(dcb.Items(dcb.QueryItem{Tags: []string{"student:s1"}}, dcb.QueryItem{Types: []string{"CourseDefined"}}), dcb.ReadOptions{Backwards: true, Limit: 3})
	show(dcb.All(), dcb.ReadOptions{Limit: 1})
	// Output:
	// CourseDefined[course:c1] CourseDefined[course:c2]
	// StudentSubscribed[course:c1 student:s1]
	// StudentSubscribed[course:c2 student:s1]
	// StudentSubscribed[course:c2 student:s1] CourseDefined[course:c2] StudentSubscribed[course:c1 student:s1]
	// CourseDefined[course:c1]
}

// Positions have a stable text form, for a client to keep between reads.
func ExampleParsePosition() {
	p, err := dcb.ParsePosition("0000000005f5e21a00010002")
	fmt.Println(p, err)
	_, err = dcb.ParsePosition("5f5e21a")
	fmt.Println(errors.Is(err, dcb.ErrInvalidPosition))
	// Output:
	// 0000000005f5e21a00010002 <nil>
	// true
}

// A subscription delivers stored and new events in order, and waits on a
// watch in between.
func ExampleStore_Subscribe() {
	db, store := exampleStore("subscribe")
	_, _ = store.Append(db, []dcb.Event{{Type: "CourseDefined", Tags: []string{"course:c1"}}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for e, err := range store.Subscribe(ctx, db, dcb.Items(dcb.QueryItem{Tags: []string{"course:c1"}}), dcb.Position{}) {
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(e.Type)
		if n++; n == 1 {
			go func() {
				_, _ = store.Append(db, []dcb.Event{{Type: "CourseRenamed", Tags: []string{"course:c1"}}}, nil)
			}()
		} else {
			cancel()
		}
	}
	// Output:
	// CourseDefined
	// CourseRenamed
	// context canceled
}

// An append with an idempotency key applies once, however often it is
// retried.
func ExampleStore_AppendOnce() {
	db, store := exampleStore("once")
	ev := []dcb.Event{{Type: "PaymentReceived", Tags: []string{"order:o1"}}}
	for range 3 {
		a, err := store.AppendOnce(db, []byte("payment-o1"), ev, nil)
		fmt.Println(a.Repeated(), err)
	}
	n := 0
	for range store.Read(db, dcb.All(), dcb.ReadOptions{}) {
		n++
	}
	fmt.Println(n, "event")
	// Output:
	// false <nil>
	// true <nil>
	// true <nil>
	// 1 event
}

// A consumer of one's own waits for new events as Subscribe does: it
// reads what it has not seen and watches the query's head keys in one
// transaction, then waits for a watch. An append the query may match
// fires one; the store's other appends leave them alone (up to hash
// collisions).
func ExampleStore_HeadKeys() {
	db, store := exampleStore("heads")
	q := dcb.Items(dcb.QueryItem{Tags: []string{"course:c1"}})
	heads, err := store.HeadKeys(q)
	if err != nil {
		panic(err)
	}
	fmt.Println("watching", len(heads), "keys")
	var last dcb.Position
	ws, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		for e, err := range store.Read(tr, q, dcb.ReadOptions{After: last}) {
			if err != nil {
				return nil, err
			}
			last = e.Position // fold e into the consumer's state
		}
		ws := make([]fdb.FutureNil, len(heads))
		for i, k := range heads {
			ws[i] = tr.Watch(k)
		}
		return ws, nil
	})
	if err != nil {
		panic(err)
	}
	watches := ws.([]fdb.FutureNil)
	fired := make(chan struct{}, len(watches))
	for _, w := range watches {
		go func() {
			if w.Get() == nil {
				fired <- struct{}{}
			}
		}()
	}
	_, _ = store.Append(db, []dcb.Event{{Type: "CourseDefined", Tags: []string{"course:c1"}}}, nil)
	<-fired
	fmt.Println("woken: read again after position", last)
	for _, w := range watches {
		w.Cancel()
	}
	// Output:
	// watching 8 keys
	// woken: read again after position 000000000000000000000000
}
