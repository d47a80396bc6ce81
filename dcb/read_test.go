package dcb

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// courseEvents is the course-subscription example of the DCB
// specification's site, plus an untagged event.
var courseEvents = []Event{
	{Type: "CourseDefined", Tags: []string{"course:c1"}, Data: []byte("c1")},
	{Type: "StudentSubscribed", Tags: []string{"student:s1", "course:c1"}, Data: []byte("s1c1")},
	{Type: "CourseDefined", Tags: []string{"course:c2"}, Data: []byte("c2")},
	{Type: "StudentSubscribed", Tags: []string{"course:c2", "student:s1", "course:c2"}, Data: []byte("s1c2")},
	{Type: "CourseRenamed", Tags: []string{"course:c1"}},
	{Type: "StudentRegistered", Tags: []string{"student:s1"}, Data: []byte("s1")},
	{Type: "Ping"},
}

// Queries select by the specification's rule: an event matches an item
// if its type is one of the item's types (any, if none) and its tags
// include all of the item's tags; a query is the union of its items.
func TestReadQueries(t *testing.T) {
	db, s := newTestStore(t)
	// Two appends, so that positions span transactions and orders.
	ps := mustAppend(t, db, s, courseEvents[:3]...)
	ps = append(ps, mustAppend(t, db, s, courseEvents[3:]...)...)
	if !isSorted(ps) {
		t.Fatalf("positions not increasing: %v", ps)
	}
	tests := []struct {
		name string
		q    Query
		o    ReadOptions
		want []int // indexes into courseEvents
	}{
		{"all", All(), ReadOptions{}, []int{0, 1, 2, 3, 4, 5, 6}},
		{"one type", Items(QueryItem{Types: []string{"CourseDefined"}}), ReadOptions{}, []int{0, 2}},
		{"types are OR", Items(QueryItem{Types: []string{"CourseDefined", "CourseRenamed"}}), ReadOptions{}, []int{0, 2, 4}},
		{"one tag", Items(QueryItem{Tags: []string{"course:c1"}}), ReadOptions{}, []int{0, 1, 4}},
		{"tags are AND", Items(QueryItem{Tags: []string{"student:s1", "course:c2"}}), ReadOptions{}, []int{3}},
		{"tags in any order", Items(QueryItem{Tags: []string{"course:c2", "student:s1"}}), ReadOptions{}, []int{3}},
		{"type and tags", Items(QueryItem{Types: []string{"StudentSubscribed"}, Tags: []string{"course:c1"}}), ReadOptions{}, []int{1}},
		{"types and tags", Items(QueryItem{Types: []string{"StudentSubscribed", "CourseDefined"}, Tags: []string{"course:c2"}}), ReadOptions{}, []int{2, 3}},
		{"items are OR, each event once", Items(
			QueryItem{Tags: []string{"student:s1"}},
			QueryItem{Types: []string{"StudentSubscribed"}},
			QueryItem{Tags: []string{"course:c1"}},
		), ReadOptions{}, []int{0, 1, 3, 4, 5}},
		{"no match", Items(QueryItem{Tags: []string{"course:c3"}}), ReadOptions{}, nil},
		{"unknown type", Items(QueryItem{Types: []string{"Nope"}}), ReadOptions{}, nil},
		{"more tags than any event", Items(QueryItem{Tags: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}}), ReadOptions{}, nil},
		{"after is exclusive", Items(QueryItem{Tags: []string{"course:c1"}}), ReadOptions{After: ps[1]}, []int{4}},
		{"after, all", All(), ReadOptions{After: ps[4]}, []int{5, 6}},
		{"before is exclusive", All(), ReadOptions{Before: ps[2]}, []int{0, 1}},
		{"limit", Items(QueryItem{Tags: []string{"student:s1"}}), ReadOptions{Limit: 2}, []int{1, 3}},
		{"backwards", Items(QueryItem{Tags: []string{"student:s1"}}), ReadOptions{Backwards: true}, []int{5, 3, 1}},
		{"backwards with limit", All(), ReadOptions{Backwards: true, Limit: 2}, []int{6, 5}},
		{"backwards before", Items(QueryItem{Tags: []string{"course:c1"}}, QueryItem{Types: []string{"Ping"}}), ReadOptions{Backwards: true, Before: ps[6]}, []int{4, 1, 0}},
		{"backwards after", All(), ReadOptions{Backwards: true, After: ps[4]}, []int{6, 5}},
		{"after and before", All(), ReadOptions{After: ps[0], Before: ps[3]}, []int{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []StoredEvent
			for _, i := range tc.want {
				e := courseEvents[i]
				data := e.Data
				if data == nil {
					data = []byte{}
				}
				want = append(want, StoredEvent{Position: ps[i], Type: e.Type, Tags: normalTags(e.Tags), Data: data})
			}
			for _, pageSize := range []int{1, 2, 1000} {
				s2 := *s
				s2.pageSize = pageSize
				got := readAll(t, db, &s2, tc.q, tc.o)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Read(page size %d) mismatch (-want +got):\n%s", pageSize, diff)
				}
			}
		})
	}
}

func TestReadInvalid(t *testing.T) {
	db, s := newTestStore(t)
	tests := []struct {
		name string
		q    Query
		o    ReadOptions
		want error
	}{
		{"zero query", Query{}, ReadOptions{}, ErrInvalidQuery},
		{"empty item", Items(QueryItem{}), ReadOptions{}, ErrInvalidQuery},
		{"empty type", Items(QueryItem{Types: []string{""}}), ReadOptions{}, ErrInvalidQuery},
		{"negative limit", All(), ReadOptions{Limit: -1}, ErrInvalidOptions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, err := range s.Read(db, tc.q, tc.o) {
				n++
				if !errors.Is(err, tc.want) {
					t.Errorf("Read error = %v, want %v", err, tc.want)
				}
			}
			if n != 1 {
				t.Errorf("Read yielded %d values, want 1 error", n)
			}
		})
	}
}
