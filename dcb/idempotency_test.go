package dcb

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"
)

func TestAppendOnce(t *testing.T) {
	db, s := newTestStore(t)
	ev := []Event{{Type: "CourseDefined", Tags: []string{"course:c1"}}, {Type: "CourseRenamed", Tags: []string{"course:c1"}}}
	a1, err := s.AppendOnce(db, []byte("req-1"), ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := a1.Positions()
	if err != nil || len(p1) != len(ev) {
		t.Fatalf("AppendOnce positions %v, %v; want %d", p1, err, len(ev))
	}
	a2, err := s.AppendOnce(db, []byte("req-1"), ev, &AppendCondition{FailIfEventsMatch: Items(QueryItem{Tags: []string{"course:c1"}})})
	if err != nil {
		t.Fatalf("repeated AppendOnce: %v (its condition must not be checked against its own events)", err)
	}
	p2, err := a2.Positions()
	if err != nil {
		t.Fatalf("repeated AppendOnce positions: %v", err)
	}
	if a1.Repeated() || !a2.Repeated() {
		t.Errorf("Repeated() = %v, %v; want false, true", a1.Repeated(), a2.Repeated())
	}
	if diff := cmp.Diff(p1, p2); diff != "" {
		t.Errorf("repeated positions (-first +repeat):\n%s", diff)
	}
	if n := len(readAll(t, db, s, All(), ReadOptions{})); n != 2 {
		t.Errorf("%d events stored, want 2", n)
	}
	if err := s.ForgetIdempotencyKey(db, []byte("req-1")); err != nil {
		t.Fatal(err)
	}
	a3, err := s.AppendOnce(db, []byte("req-1"), ev, nil)
	if err != nil || a3.Repeated() {
		t.Fatalf("AppendOnce after Forget: repeated %v, %v", a3.Repeated(), err)
	}
	if n := len(readAll(t, db, s, All(), ReadOptions{})); n != 4 {
		t.Errorf("%d events stored, want 4", n)
	}
	for _, id := range [][]byte{nil, make([]byte, MaxIdempotencyKeyBytes+1)} {
		if _, err := s.AppendOnce(db, id, ev, nil); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("AppendOnce(id of %d bytes) = %v, want ErrInvalidOptions", len(id), err)
		}
	}
}

// In a caller's transaction retried after commit_unknown_result (without
// automatic_idempotency), AppendOnce applies each append once, and a
// conditional one never fails on its own first attempt's events.
func TestAppendOnceUnderUnknownResults(t *testing.T) {
	db, s := faultyStore(t, 5, 0.3)
	const n = 30
	for i := range n {
		course := fmt.Sprintf("course:c%d", i)
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			return s.AppendOnce(tr, []byte("define-"+course), []Event{{Type: "CourseDefined", Tags: []string{course}}},
				&AppendCondition{FailIfEventsMatch: Items(QueryItem{Types: []string{"CourseDefined"}, Tags: []string{course}})})
		})
		if err != nil {
			t.Fatalf("define %s: %v", course, err)
		}
	}
	got := map[string]int{}
	for _, e := range readAll(t, db, s, Items(QueryItem{Types: []string{"CourseDefined"}}), ReadOptions{}) {
		got[e.Tags[0]]++
	}
	for i := range n {
		if c := fmt.Sprintf("course:c%d", i); got[c] != 1 {
			t.Errorf("%s defined %d times, want 1", c, got[c])
		}
	}
}
