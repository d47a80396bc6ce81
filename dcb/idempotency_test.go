package dcb

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno"
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

// An AppendOnce that reuses an id for other events (another type, tags,
// data, count or order) is refused with ErrIdempotencyKeyReused and
// writes nothing; the same events under it still repeat. The old code
// returned the first append's positions for any events.
func TestAppendOnceRefusesOtherEvents(t *testing.T) {
	db, s := newTestStore(t)
	ev := []Event{{Type: "A", Tags: []string{"t:1"}, Data: []byte("x")}, {Type: "B"}}
	if _, err := s.AppendOnce(db, []byte("id"), ev, nil); err != nil {
		t.Fatal(err)
	}
	for name, other := range map[string][]Event{
		"type":  {{Type: "Z", Tags: []string{"t:1"}, Data: []byte("x")}, {Type: "B"}},
		"tags":  {{Type: "A", Tags: []string{"t:2"}, Data: []byte("x")}, {Type: "B"}},
		"data":  {{Type: "A", Tags: []string{"t:1"}, Data: []byte("y")}, {Type: "B"}},
		"count": {{Type: "A", Tags: []string{"t:1"}, Data: []byte("x")}},
		"order": {{Type: "B"}, {Type: "A", Tags: []string{"t:1"}, Data: []byte("x")}},
	} {
		if _, err := s.AppendOnce(db, []byte("id"), other, nil); !errors.Is(err, ErrIdempotencyKeyReused) {
			t.Errorf("%s differs: %v, want ErrIdempotencyKeyReused", name, err)
		}
	}
	if a, err := s.AppendOnce(db, []byte("id"), ev, nil); err != nil || !a.Repeated() {
		t.Errorf("same events again: repeated %v, %v", a.Repeated(), err)
	}
	if n := len(readAll(t, db, s, All(), ReadOptions{})); n != 2 {
		t.Errorf("%d events stored, want 2", n)
	}
}

// A record expires after the store's retention, on the writer's clock:
// before, AppendOnce repeats; after, it applies again (a new record), and
// ForgetExpiredIdempotencyKeys removes expired records only, a page at a
// time. Retention 0 keeps records.
func TestAppendOnceExpires(t *testing.T) {
	db, s := newTestStore(t, WithIdempotencyRetention(time.Hour))
	clock := time.Unix(1_000_000, 0)
	s.now = func() time.Time { return clock }
	ev := []Event{{Type: "A"}}
	for _, id := range []string{"a", "b", "c"} {
		if _, err := s.AppendOnce(db, []byte(id), ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(59 * time.Minute)
	if _, err := s.AppendOnce(db, []byte("d"), ev, nil); err != nil { // expires later
		t.Fatal(err)
	}
	if a, err := s.AppendOnce(db, []byte("a"), ev, nil); err != nil || !a.Repeated() {
		t.Fatalf("before expiry: repeated %v, %v; want a repeat", a.Repeated(), err)
	}
	clock = clock.Add(time.Minute)
	a, err := s.AppendOnce(db, []byte("a"), ev, nil)
	if err != nil || a.Repeated() {
		t.Fatalf("at expiry: repeated %v, %v; want a new append", a.Repeated(), err)
	}
	// a was rewritten (expires in an hour); b and c expired; d has 59
	// minutes left.
	removed, more, err := s.ForgetExpiredIdempotencyKeys(db, 2)
	if err != nil || removed != 1 || !more { // reads a, b: removes b
		t.Errorf("first page: removed %d, more %v, %v; want 1, true", removed, more, err)
	}
	removed, _, err = s.ForgetExpiredIdempotencyKeys(db, 0)
	if err != nil || removed != 1 { // c
		t.Errorf("second sweep: removed %d, %v; want 1", removed, err)
	}
	for id, repeated := range map[string]bool{"a": true, "b": false, "c": false, "d": true} {
		got, err := fdyno.ReadTransact(db, func(tr fdb.ReadTransaction) ([]byte, error) {
			return tr.Get(s.k.idempotencyKey([]byte(id))).Get()
		})
		if err != nil {
			t.Fatal(err)
		}
		if (got != nil) != repeated {
			t.Errorf("record %s present %v, want %v", id, got != nil, repeated)
		}
	}
	if _, err := Open(db, subspace.Sub("x"), WithIdempotencyRetention(time.Millisecond)); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("retention 1ms: %v, want ErrInvalidOptions", err)
	}
	keep, err := Open(db, subspace.Sub("dcb", "keep"), WithIdempotencyRetention(0))
	if err != nil {
		t.Fatal(err)
	}
	keep.now = func() time.Time { return clock }
	if _, err := keep.AppendOnce(db, []byte("k"), ev, nil); err != nil {
		t.Fatal(err)
	}
	keep.now = func() time.Time { return clock.Add(10_000 * time.Hour) }
	if a, err := keep.AppendOnce(db, []byte("k"), ev, nil); err != nil || !a.Repeated() {
		t.Errorf("retention 0, much later: repeated %v, %v; want a repeat", a.Repeated(), err)
	}
}

// A record written before digests (14 bytes) still decodes, with no
// digest and no expiry.
func TestLegacyIdempotencyRecord(t *testing.T) {
	v := make([]byte, 14)
	v[11], v[13] = 2, 3 // first 2, n 3
	r, err := decodeRecord(v)
	if err != nil || r.first != 2 || r.n != 3 || r.digest != nil || r.expires != 0 {
		t.Errorf("decodeRecord(legacy) = %+v, %v", r, err)
	}
	if _, err := decodeRecord(v[:13]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("13 bytes: %v, want ErrCorrupt", err)
	}
}
