package dcb

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The DCB specification (https://dcb.events/specification/), clause by
// clause: each subtest quotes the requirement it checks.
func TestSpecification(t *testing.T) {
	db, s := newTestStore(t)
	ps := mustAppend(t, db, s, courseEvents...)
	types := func(evs []StoredEvent) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.Type+"@"+e.Position.String())
		}
		return out
	}
	want := func(idx ...int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, courseEvents[i].Type+"@"+ps[i].String())
		}
		return out
	}
	check := func(t *testing.T, got []StoredEvent, idx ...int) {
		t.Helper()
		if diff := cmp.Diff(want(idx...), types(got)); diff != "" {
			t.Errorf("mismatch (-want +got):\n%s", diff)
		}
	}
	read := func(q Query, o ReadOptions) []StoredEvent { return readAll(t, db, s, q, o) }

	t.Run("Reading/MUST filter Events based on their Event Type and/or Tag", func(t *testing.T) {
		check(t, read(Items(QueryItem{Types: []string{"CourseDefined"}}), ReadOptions{}), 0, 2)
		check(t, read(Items(QueryItem{Tags: []string{"student:s1"}}), ReadOptions{}), 1, 3, 5)
		check(t, read(Items(QueryItem{Types: []string{"StudentSubscribed"}, Tags: []string{"course:c2"}}), ReadOptions{}), 3)
	})
	t.Run("Reading/SHOULD read Events from a given starting Sequence Position", func(t *testing.T) {
		check(t, read(Items(QueryItem{Tags: []string{"student:s1"}}), ReadOptions{After: ps[1]}), 3, 5)
	})
	t.Run("Reading/MAY provide further filter options, e.g. for ordering or to limit", func(t *testing.T) {
		check(t, read(All(), ReadOptions{Backwards: true, Limit: 2}), 6, 5)
	})
	t.Run("Writing/MUST atomically persist one or more Event(s)", func(t *testing.T) {
		// A batch whose transaction does not commit leaves nothing.
		tr, err := db.CreateTransaction()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(tr, []Event{{Type: "X"}, {Type: "Y"}}, nil); err != nil {
			t.Fatal(err)
		}
		tr.Cancel()
		check(t, read(Items(QueryItem{Types: []string{"X", "Y"}}), ReadOptions{}))
		// A committed one, all of it.
		got := mustAppend(t, db, s, Event{Type: "X"}, Event{Type: "Y"})
		evs := read(Items(QueryItem{Types: []string{"X", "Y"}}), ReadOptions{})
		if len(evs) != 2 || evs[0].Position != got[0] || evs[1].Position != got[1] {
			t.Errorf("read %v, want both events at %v", types(evs), got)
		}
	})
	t.Run("Writing/MUST fail if the Event Store contains at least one Event matching the Append Condition", func(t *testing.T) {
		_, err := s.Append(db, []Event{{Type: "Z"}}, &AppendCondition{FailIfEventsMatch: Items(QueryItem{Tags: []string{"course:c2"}})})
		var ce *AppendConditionError
		if !errors.As(err, &ce) || ce.Position != ps[2] {
			t.Errorf("Append = %v, want a failed condition at %s", err, ps[2])
		}
	})
	t.Run("Query/MUST contain at least one Query Item or represent a query that matches all Events", func(t *testing.T) {
		for _, err := range s.Read(db, Query{}, ReadOptions{}) {
			if !errors.Is(err, ErrInvalidQuery) {
				t.Errorf("Read(Query{}) = %v, want ErrInvalidQuery", err)
			}
		}
		if n := len(read(All(), ReadOptions{})); n < len(courseEvents) {
			t.Errorf("All() read %d events, want every one", n)
		}
	})
	t.Run("Query/All Query Items are effectively combined with an OR", func(t *testing.T) {
		check(t, read(Items(QueryItem{Types: []string{"Ping"}}, QueryItem{Tags: []string{"course:c2"}}), ReadOptions{}), 2, 3, 6)
	})
	t.Run("Query Item/the Type MUST match one of the provided Types", func(t *testing.T) {
		check(t, read(Items(QueryItem{Types: []string{"CourseRenamed", "Ping", "Unknown"}}), ReadOptions{}), 4, 6)
	})
	t.Run("Query Item/the Tags MUST contain all of the Tags specified", func(t *testing.T) {
		check(t, read(Items(QueryItem{Tags: []string{"course:c1", "student:s1"}}), ReadOptions{}), 1)
	})
	t.Run("Sequenced Event/MUST contain the Sequence Position and the Event", func(t *testing.T) {
		e := read(Items(QueryItem{Types: []string{"StudentSubscribed"}}), ReadOptions{Limit: 1})[0]
		w := courseEvents[1]
		if e.Position != ps[1] || e.Type != w.Type || !slices.Equal(e.Tags, normalTags(w.Tags)) || string(e.Data) != string(w.Data) {
			t.Errorf("read %+v, want %+v at %s", e, w, ps[1])
		}
	})
	t.Run("Sequence Position/MUST be unique and monotonic increasing; MAY contain gaps", func(t *testing.T) {
		all := read(All(), ReadOptions{})
		for i := 1; i < len(all); i++ {
			if all[i].Position.Compare(all[i-1].Position) <= 0 {
				t.Errorf("position %d (%s) not after %s", i, all[i].Position, all[i-1].Position)
			}
		}
	})
	t.Run("Events/MUST not be empty", func(t *testing.T) {
		if _, err := s.Append(db, nil, nil); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("Append(no events) = %v, want ErrInvalidEvent", err)
		}
	})
	t.Run("Event/MUST contain an Event Type; MUST contain Event Data; MAY contain Tags", func(t *testing.T) {
		if _, err := s.Append(db, []Event{{Data: []byte("x")}}, nil); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("Append(no type) = %v, want ErrInvalidEvent", err)
		}
		p := mustAppend(t, db, s, Event{Type: "NoTagsNoData"})[0]
		e := read(Items(QueryItem{Types: []string{"NoTagsNoData"}}), ReadOptions{})[0]
		if e.Position != p || e.Tags != nil || e.Data == nil || len(e.Data) != 0 {
			t.Errorf("read %+v, want empty (not nil) data and no tags", e)
		}
	})
	t.Run("Tags/SHOULD not contain multiple Tags with the same value", func(t *testing.T) {
		// Duplicates are accepted and stored once: the tags are a set.
		mustAppend(t, db, s, Event{Type: "Dup", Tags: []string{"b", "a", "b"}})
		e := read(Items(QueryItem{Types: []string{"Dup"}}), ReadOptions{})[0]
		if !slices.Equal(e.Tags, []string{"a", "b"}) {
			t.Errorf("tags %q, want [a b]", e.Tags)
		}
	})
	t.Run("Append Condition/MUST ignore the Events before the specified position", func(t *testing.T) {
		q := Items(QueryItem{Tags: []string{"course:c1"}})
		if _, err := s.Append(db, []Event{{Type: "Z"}}, &AppendCondition{FailIfEventsMatch: q, After: ps[4]}); err != nil {
			t.Errorf("Append after the last match: %v", err)
		}
		// "This number can be higher than the position of the last event
		// matching the Query."
		if _, err := s.Append(db, []Event{{Type: "Z"}}, &AppendCondition{FailIfEventsMatch: q, After: ps[6]}); err != nil {
			t.Errorf("Append after a later position: %v", err)
		}
	})
	t.Run("Append Condition/if after is omitted, no Events will be ignored", func(t *testing.T) {
		_, err := s.Append(db, []Event{{Type: "Z"}}, &AppendCondition{FailIfEventsMatch: Items(QueryItem{Types: []string{"CourseDefined"}})})
		var ce *AppendConditionError
		if !errors.As(err, &ce) || ce.Position != ps[0] {
			t.Errorf("Append = %v, want a failed condition at the first event %s", err, ps[0])
		}
	})
}
