package dcb

import (
	"errors"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"pgregory.net/rapid"
)

// raceAppends runs two conditional appends in concurrent transactions (both
// read before either commits), commits a then b, and returns b's commit
// error and the number of conflicts FoundationDB counted.
func raceAppends(t testing.TB, db fdb.Database, s *Store, evA []Event, condA *AppendCondition, evB []Event, condB *AppendCondition) (error, int64) {
	t.Helper()
	before, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	trA, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	trB, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(trA, evA, condA); err != nil {
		t.Fatalf("Append a: %v", err)
	}
	if _, err := s.Append(trB, evB, condB); err != nil {
		t.Fatalf("Append b: %v", err)
	}
	if err := trA.Commit().Get(); err != nil {
		t.Fatalf("commit a: %v", err)
	}
	errB := trB.Commit().Get()
	after, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	return errB, after.Conflicts - before.Conflicts
}

// Two concurrent conditional appends conflict exactly when the first to
// commit appends an event the other's condition matches: the condition's
// read conflict ranges are its query's index ranges from After on, and
// nothing else an append reads or writes conflicts. FoundationDB counts
// the conflicts (not_committed, 1020).
func TestConditionConflicts(t *testing.T) {
	db, s := newTestStore(t)
	var last Position
	cond := func(items ...QueryItem) *AppendCondition {
		return &AppendCondition{FailIfEventsMatch: Items(items...), After: last}
	}
	lastPosition := func() Position {
		evs := readAll(t, db, s, All(), ReadOptions{Backwards: true, Limit: 1})
		return evs[0].Position
	}
	mustAppend(t, db, s, courseEvents...)
	enrol := func(course, student string) []Event {
		return []Event{{Type: "StudentSubscribed", Tags: []string{"course:" + course, "student:" + student}}}
	}
	courseQ := func(c string) QueryItem { return QueryItem{Tags: []string{"course:" + c}} }
	studentQ := func(s string) QueryItem { return QueryItem{Tags: []string{"student:" + s}} }
	tests := []struct {
		name     string
		evA      []Event
		condB    *AppendCondition
		conflict bool
	}{
		{"different courses and students", enrol("c1", "s1"), cond(courseQ("c2"), studentQ("s2")), false},
		{"same course", enrol("c1", "s1"), cond(courseQ("c1"), studentQ("s2")), true},
		{"same student", enrol("c1", "s1"), cond(courseQ("c2"), studentQ("s1")), true},
		{"type only, other type", enrol("c1", "s1"), cond(QueryItem{Types: []string{"CourseDefined"}}), false},
		{"type only, same type", enrol("c1", "s1"), cond(QueryItem{Types: []string{"StudentSubscribed"}}), true},
		{"type and tag, other type", enrol("c1", "s1"), cond(QueryItem{Types: []string{"CourseDefined"}, Tags: []string{"course:c1"}}), false},
		{"type and tag, same", enrol("c1", "s1"), cond(QueryItem{Types: []string{"StudentSubscribed"}, Tags: []string{"course:c1"}}), true},
		{"two tags, one shared", enrol("c1", "s1"), cond(QueryItem{Tags: []string{"course:c1", "student:s2"}}), false},
		{"two tags, both shared", enrol("c1", "s1"), cond(QueryItem{Tags: []string{"student:s1", "course:c1"}}), true},
		{"all", enrol("c1", "s1"), &AppendCondition{FailIfEventsMatch: All(), After: last}, true},
		{"untagged event, tag query", []Event{{Type: "Ping"}}, cond(courseQ("c1")), false},
		{"no condition", enrol("c1", "s1"), nil, false},
	}
	for _, tc := range tests {
		last = lastPosition()
		if tc.condB != nil {
			tc.condB.After = last
		}
		t.Run(tc.name, func(t *testing.T) {
			condA := cond(courseQ("c1"), studentQ("s1"))
			errB, conflicts := raceAppends(t, db, s, tc.evA, condA, enrol("c2", "s2"), tc.condB)
			var fe fdb.Error
			gotConflict := errors.As(errB, &fe) && fe.Code == 1020
			if errB != nil && !gotConflict {
				t.Fatalf("commit b: %v", errB)
			}
			if gotConflict != tc.conflict || conflicts != map[bool]int64{false: 0, true: 1}[tc.conflict] {
				t.Errorf("b conflicted %v (%d conflicts counted), want %v", gotConflict, conflicts, tc.conflict)
			}
			if tc.conflict {
				// Retried, b's condition now fails, naming a's event.
				_, err := s.Append(db, enrol("c2", "s2"), tc.condB)
				if !errors.Is(err, ErrAppendConditionFailed) {
					t.Errorf("b retried: %v, want ErrAppendConditionFailed", err)
				}
			}
		})
	}
}

// The same property over random events and queries: b's commit conflicts
// if and only if one of a's events matches b's condition.
func TestConditionConflictsProperty(t *testing.T) {
	db, s := newTestStore(t)
	rapid.Check(t, func(rt *rapid.T) {
		last := readAll(t, db, s, All(), ReadOptions{Backwards: true, Limit: 1})
		var after Position
		if len(last) > 0 {
			after = last[0].Position
		}
		evA := rapid.SliceOfN(genEvent(), 1, 3).Draw(rt, "a")
		evB := rapid.SliceOfN(genEvent(), 1, 3).Draw(rt, "b")
		qB := genQuery().Draw(rt, "qb")
		qA := genQuery().Draw(rt, "qa")
		errB, conflicts := raceAppends(t, db, s, evA, &AppendCondition{FailIfEventsMatch: qA, After: after}, evB, &AppendCondition{FailIfEventsMatch: qB, After: after})
		want := false
		for _, e := range evA {
			want = want || qB.Matches(e.Type, normalTags(e.Tags))
		}
		var fe fdb.Error
		got := errors.As(errB, &fe) && fe.Code == 1020
		if errB != nil && !got {
			rt.Fatalf("commit b: %v", errB)
		}
		if got != want || conflicts != map[bool]int64{false: 0, true: 1}[want] {
			rt.Fatalf("b conflicted %v (%d conflicts), want %v", got, conflicts, want)
		}
	})
}

var (
	testTypes = []string{"A", "B", "C"}
	testTags  = []string{"x", "y", "z", "w"}
)

func genEvent() *rapid.Generator[Event] {
	return rapid.Custom(func(t *rapid.T) Event {
		return Event{
			Type: rapid.SampledFrom(testTypes).Draw(t, "type"),
			Tags: rapid.SliceOfN(rapid.SampledFrom(testTags), 0, 3).Draw(t, "tags"),
			Data: rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "data"),
		}
	})
}

func genQuery() *rapid.Generator[Query] {
	item := rapid.Custom(func(t *rapid.T) QueryItem {
		for {
			it := QueryItem{
				Types: rapid.SliceOfN(rapid.SampledFrom(testTypes), 0, 2).Draw(t, "types"),
				Tags:  rapid.SliceOfN(rapid.SampledFrom(testTags), 0, 2).Draw(t, "tags"),
			}
			if len(it.Types)+len(it.Tags) > 0 {
				return it
			}
		}
	})
	return rapid.Custom(func(t *rapid.T) Query {
		if rapid.IntRange(0, 9).Draw(t, "all") == 0 {
			return All()
		}
		return Items(rapid.SliceOfN(item, 1, 3).Draw(t, "items")...)
	})
}
