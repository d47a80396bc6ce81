package dcb

import (
	"bytes"
	"slices"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// newTestStore opens a store on a database of the test's own and checks
// its consistency when the test ends.
func newTestStore(t testing.TB, opts ...Option) (fdb.Database, *Store) {
	t.Helper()
	db := fdblitetest.OpenIsolated(t)
	s, err := Open(db, subspace.Sub("dcb", "test"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { checkStore(t, db, s) })
	return db, s
}

// checkStore verifies the store's invariants: every event decodes and has
// exactly the index entries its type and tags call for, and no index
// entry lacks its event.
func checkStore(t testing.TB, db fdb.Database, s *Store) {
	t.Helper()
	_, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		want := map[string]bool{}
		evs, err := rt.GetRange(span(s.k.events, Position{}, Position{}), fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		for _, kv := range evs {
			p, err := positionOf(kv.Key, s.k.events)
			if err != nil {
				t.Errorf("checkStore: %v", err)
				continue
			}
			evs, err := s.decodeEvents(rt, []Position{p}, [][]byte{kv.Value})
			if err != nil {
				t.Errorf("checkStore: event %s: %v", p, err)
				continue
			}
			typ, tags := evs[0].Type, evs[0].Tags
			want[string(s.k.typePrefix(typ))+"\x33"+string(p[:])] = true
			for mask := 1; mask < 1<<len(tags); mask++ {
				var sub []string
				for j, tg := range tags {
					if mask&(1<<j) != 0 {
						sub = append(sub, tg)
					}
				}
				want[string(s.k.tagsPrefix(sub, typ, true))+"\x33"+string(p[:])] = true
				want[string(s.k.tagsPrefix(sub, "", false))+"\x33"+string(p[:])] = true
			}
		}
		// Parts: exactly those of the chunked events.
		wantParts := map[Position]int{}
		for _, kv := range evs {
			if n, _, ok, _ := chunkHeader(kv.Value); ok {
				p, _ := positionOf(kv.Key, s.k.events)
				wantParts[p] = n - 1
			}
		}
		kr, _ := fdb.PrefixRange(s.k.chunks)
		parts, err := rt.GetRange(kr, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		for _, kv := range parts {
			var p Position
			copy(p[:], kv.Key[len(s.k.chunks)+1:])
			wantParts[p]--
		}
		for p, n := range wantParts {
			if n != 0 {
				t.Errorf("checkStore: event %s: %d parts missing (negative: orphans)", p, n)
			}
		}
		var got []string
		for _, pre := range [][]byte{s.k.types, s.k.tags} {
			kr, _ := fdb.PrefixRange(pre)
			kvs, err := rt.GetRange(kr, fdb.RangeOptions{}).GetSliceWithError()
			if err != nil {
				return nil, err
			}
			for _, kv := range kvs {
				if len(kv.Value) != 0 {
					t.Errorf("checkStore: index entry %s has a value", fdb.Printable(kv.Key))
				}
				got = append(got, string(kv.Key))
			}
		}
		for _, k := range got {
			if !want[k] {
				t.Errorf("checkStore: index entry %s has no event", fdb.Printable([]byte(k)))
			}
			delete(want, k)
		}
		for k := range want {
			t.Errorf("checkStore: missing index entry %s", fdb.Printable([]byte(k)))
		}
		return nil, nil
	})
	if err != nil {
		t.Errorf("checkStore: %v", err)
	}
}

// readAll collects a read, failing the test on an error.
func readAll(t testing.TB, tr fdb.ReadTransactor, s *Store, q Query, o ReadOptions) []StoredEvent {
	t.Helper()
	var out []StoredEvent
	for e, err := range s.Read(tr, q, o) {
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		out = append(out, e)
	}
	return out
}

// mustAppend appends unconditionally, failing the test on an error.
func mustAppend(t testing.TB, tr fdb.Transactor, s *Store, evs ...Event) []Position {
	t.Helper()
	a, err := s.Append(tr, evs, nil)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	ps, err := a.Positions()
	if err != nil {
		t.Fatalf("Positions: %v", err)
	}
	return ps
}

func isSorted(ps []Position) bool {
	return slices.IsSortedFunc(ps, func(a, b Position) int { return bytes.Compare(a[:], b[:]) })
}
