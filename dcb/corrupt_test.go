package dcb

import (
	"errors"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
)

// Malformed stored bytes under a store's namespace are reported as
// ErrCorrupt by reads and by conditions, never a panic.
func TestCorruptStore(t *testing.T) {
	tests := []struct {
		name  string
		write func(tr fdb.Transaction, s *Store, p Position)
	}{
		{"event value garbage", func(tr fdb.Transaction, s *Store, p Position) {
			tr.Set(s.k.eventKey(p), []byte{1, 0xff, 0xff})
		}},
		{"event value unknown version", func(tr fdb.Transaction, s *Store, p Position) {
			tr.Set(s.k.eventKey(p), []byte{9, 1, 'T', 0})
		}},
		{"short index key", func(tr fdb.Transaction, s *Store, p Position) {
			k := append(append([]byte{}, s.k.typePrefix("T")...), tupleVersionstampCode, 1, 2)
			tr.Set(fdb.Key(k), nil)
		}},
		{"index entry without its event", func(tr fdb.Transaction, s *Store, p Position) {
			tr.Clear(s.k.eventKey(p))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, s := newTestStore(t)
			p := mustAppend(t, db, s, Event{Type: "T", Tags: []string{"a"}})[0]
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				tc.write(tr, s, p)
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
			corrupt := false
			for _, q := range []Query{All(), Items(QueryItem{Types: []string{"T"}})} {
				for _, err := range s.Read(db, q, ReadOptions{}) {
					if err != nil {
						if !errors.Is(err, ErrCorrupt) {
							t.Errorf("Read error %v, want ErrCorrupt", err)
						}
						corrupt = true
					}
				}
			}
			if !corrupt {
				t.Error("no read reported the corruption")
			}
			// Repair, so the cleanup check passes.
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				tr.ClearRange(fdb.KeyRange{Begin: fdb.Key(s.k.ns), End: fdb.Key(append(append([]byte{}, s.k.ns...), 0xff))})
				tr.Set(s.k.meta, []byte{formatVersion})
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
	// A short index key found by a condition.
	db, s := newTestStore(t)
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(fdb.Key(append(append([]byte{}, s.k.typePrefix("T")...), tupleVersionstampCode, 1)), nil)
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Append(db, []Event{{Type: "U"}}, &AppendCondition{FailIfEventsMatch: Items(QueryItem{Types: []string{"T"}})})
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Append over a corrupt index: %v, want ErrCorrupt", err)
	}
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Clear(fdb.Key(append(append([]byte{}, s.k.typePrefix("T")...), tupleVersionstampCode, 1)))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	// An unknown format refuses Open.
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(s.k.meta, []byte{99})
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db, subspace.FromBytes(s.k.ns)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open over format 99: %v, want ErrCorrupt", err)
	}
}

// Two conditional appends in one caller's transaction: the second's
// condition cannot read the range the first wrote into (its keys are not
// known before the commit), which FoundationDB reports.
func TestTwoConditionsInOneTransaction(t *testing.T) {
	db, s := newTestStore(t)
	q := &AppendCondition{FailIfEventsMatch: Items(QueryItem{Tags: []string{"a"}})}
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := s.Append(tr, []Event{{Type: "T", Tags: []string{"a"}}}, q); err != nil {
			return nil, err
		}
		return s.Append(tr, []Event{{Type: "T", Tags: []string{"a"}}}, q)
	})
	t.Logf("second condition in the same transaction: %v", err)
	var fe fdb.Error
	if !errors.As(err, &fe) || fe.Code != 1036 {
		t.Errorf("error %v, want accessed_unreadable (1036)", err)
	}
	if n := len(readAll(t, db, s, All(), ReadOptions{})); n != 0 {
		t.Errorf("%d events stored, want 0", n)
	}
}
