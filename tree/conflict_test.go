package tree

import (
	"errors"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// The conflict rule (doc.go, # Conflicts), checked with FoundationDB's own count of
// conflicts (fdblite's Stats.Conflicts): two transactions take their read
// versions, then the first commits and the second tries to; FoundationDB
// rejects the second with not_committed (1020) exactly when it read a key
// the first wrote.
func TestConflictRule(t *testing.T) {
	put := func(tr *Tree, s string) func(fdb.Transaction) error {
		return func(tx fdb.Transaction) error { return tr.Put(tx, p(s), fdyno.Item{}) }
	}
	del := func(tr *Tree, s string) func(fdb.Transaction) error {
		return func(tx fdb.Transaction) error { return tr.Delete(tx, p(s)) }
	}
	tests := []struct {
		name          string
		setup         []string
		first, second func(*Tree) func(fdb.Transaction) error
		conflict      bool
		want          []string // listing rows afterwards (after retrying a conflicted second)
	}{
		{
			name:   "puts under one directory",
			setup:  []string{"d/x"},
			first:  func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/a") },
			second: func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/b") },
			want:   []string{"¦ d", "¦d¦ a", "¦d¦ b", "¦d¦ x", "¦d¦a", "¦d¦b", "¦d¦x"},
		},
		{
			name:   "puts into existing directories of one path",
			setup:  []string{"x/y/z/0"},
			first:  func(tr *Tree) func(fdb.Transaction) error { return put(tr, "x/y/z/1") },
			second: func(tr *Tree) func(fdb.Transaction) error { return put(tr, "x/y/2") },
			want:   []string{"¦ x", "¦x¦ y", "¦x¦y¦ 2", "¦x¦y¦ z", "¦x¦y¦2", "¦x¦y¦z¦ 0", "¦x¦y¦z¦ 1", "¦x¦y¦z¦0", "¦x¦y¦z¦1"},
		},
		{
			// Both read the listing rows of x, x/y and x/y/z as missing
			// and write them: the second read rows the first wrote.
			name:     "puts creating the same new directories",
			first:    func(tr *Tree) func(fdb.Transaction) error { return put(tr, "x/y/z/1") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return put(tr, "x/y/z/2") },
			conflict: true,
			want:     []string{"¦ x", "¦x¦ y", "¦x¦y¦ z", "¦x¦y¦z¦ 1", "¦x¦y¦z¦ 2", "¦x¦y¦z¦1", "¦x¦y¦z¦2"},
		},
		{
			name:   "puts of one existing path",
			setup:  []string{"d/a"},
			first:  func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/a") },
			second: func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/a") },
			want:   []string{"¦ d", "¦d¦ a", "¦d¦a"},
		},
		{
			name:     "puts of one new path",
			first:    func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/a") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/a") },
			conflict: true,
			want:     []string{"¦ d", "¦d¦ a", "¦d¦a"},
		},
		{
			name:     "put into the directory a delete empties, put first",
			setup:    []string{"d/a"},
			first:    func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/b") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return del(tr, "d/a") },
			conflict: true,
			want:     []string{"¦ d", "¦d¦ b", "¦d¦b"},
		},
		{
			// The Put read the root's row of d, which the Delete removed:
			// it retries and lists d again.
			name:     "put into the directory a delete empties, delete first",
			setup:    []string{"d/a"},
			first:    func(tr *Tree) func(fdb.Transaction) error { return del(tr, "d/a") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/b") },
			conflict: true,
			want:     []string{"¦ d", "¦d¦ b", "¦d¦b"},
		},
		{
			name:     "put under two levels a delete empties, delete first",
			setup:    []string{"a/b/c"},
			first:    func(tr *Tree) func(fdb.Transaction) error { return del(tr, "a/b/c") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return put(tr, "a/b/d") },
			conflict: true,
			want:     []string{"¦ a", "¦a¦ b", "¦a¦b¦ d", "¦a¦b¦d"},
		},
		{
			name:     "put under two levels a delete empties, put first",
			setup:    []string{"a/b/c"},
			first:    func(tr *Tree) func(fdb.Transaction) error { return put(tr, "a/b/d") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return del(tr, "a/b/c") },
			conflict: true,
			want:     []string{"¦ a", "¦a¦ b", "¦a¦b¦ d", "¦a¦b¦d"},
		},
		{
			name:   "put beside the witness of a directory a delete keeps",
			setup:  []string{"d/m", "d/z"},
			first:  func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/a") },
			second: func(tr *Tree) func(fdb.Transaction) error { return del(tr, "d/z") },
			want:   []string{"¦ d", "¦d¦ a", "¦d¦ m", "¦d¦a", "¦d¦m"},
		},
		{
			name:     "deletes of each other's witness",
			setup:    []string{"d/a", "d/b"},
			first:    func(tr *Tree) func(fdb.Transaction) error { return del(tr, "d/a") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return del(tr, "d/b") },
			conflict: true,
			want:     nil,
		},
		{
			// q stays, an object; whichever Delete leaves it with no
			// child counts the change of its kind in the root's counter,
			// so each reads the other's row as its witness.
			name:     "deletes of each other's witness under an object",
			setup:    []string{"q", "q/a", "q/b"},
			first:    func(tr *Tree) func(fdb.Transaction) error { return del(tr, "q/a") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return del(tr, "q/b") },
			conflict: true,
			want:     []string{"¦ q", "¦q"},
		},
		{
			name:     "put of an ancestor object a delete unlists",
			setup:    []string{"a/b/c"},
			first:    func(tr *Tree) func(fdb.Transaction) error { return put(tr, "a/b") },
			second:   func(tr *Tree) func(fdb.Transaction) error { return del(tr, "a/b/c") },
			conflict: true,
			want:     []string{"¦ a", "¦a¦ b", "¦a¦b"},
		},
		{
			name:   "put and delete in unrelated directories",
			setup:  []string{"d/a", "e/a"},
			first:  func(tr *Tree) func(fdb.Transaction) error { return put(tr, "e/b") },
			second: func(tr *Tree) func(fdb.Transaction) error { return del(tr, "d/a") },
			want:   []string{"¦ e", "¦e¦ a", "¦e¦ b", "¦e¦a", "¦e¦b"},
		},
		{
			name:  "move out of a directory a put writes into",
			setup: []string{"d/a"},
			first: func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/b") },
			second: func(tr *Tree) func(fdb.Transaction) error {
				return func(tx fdb.Transaction) error { return tr.Move(tx, p("d/a"), p("e/a")) }
			},
			conflict: true,
			want:     []string{"¦ d", "¦ e", "¦d¦ b", "¦d¦b", "¦e¦ a", "¦e¦a"},
		},
		{
			name:  "put into a directory a move empties, move first",
			setup: []string{"d/a"},
			first: func(tr *Tree) func(fdb.Transaction) error {
				return func(tx fdb.Transaction) error { return tr.Move(tx, p("d/a"), p("e/a")) }
			},
			second:   func(tr *Tree) func(fdb.Transaction) error { return put(tr, "d/b") },
			conflict: true,
			want:     []string{"¦ d", "¦ e", "¦d¦ b", "¦d¦b", "¦e¦ a", "¦e¦a"},
		},
		{
			name:  "put into the directory a move lists, move first",
			setup: []string{"d/a", "e/x"},
			first: func(tr *Tree) func(fdb.Transaction) error {
				return func(tx fdb.Transaction) error { return tr.Move(tx, p("d/a"), p("e/a")) }
			},
			second: func(tr *Tree) func(fdb.Transaction) error { return put(tr, "e/b") },
			want:   []string{"¦ e", "¦e¦ a", "¦e¦ b", "¦e¦ x", "¦e¦a", "¦e¦b", "¦e¦x"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := fdblitetest.OpenIsolated(t)
			tr := newTestTree(t, db, Options{})
			for _, s := range tc.setup {
				if err := tr.Put(db, p(s), fdyno.Item{}); err != nil {
					t.Fatal(err)
				}
			}
			before := stats(t, db)
			tx1, err := db.CreateTransaction()
			if err != nil {
				t.Fatal(err)
			}
			tx2, err := db.CreateTransaction()
			if err != nil {
				t.Fatal(err)
			}
			// Both take their read versions before either commits.
			tx1.GetReadVersion().MustGet()
			tx2.GetReadVersion().MustGet()
			if err := tc.first(tr)(tx1); err != nil {
				t.Fatalf("first: %v", err)
			}
			if err := tc.second(tr)(tx2); err != nil {
				t.Fatalf("second: %v", err)
			}
			if err := tx1.Commit().Get(); err != nil {
				t.Fatalf("first commit: %v", err)
			}
			err = tx2.Commit().Get()
			var fe fdb.Error
			conflicted := errors.As(err, &fe) && fe.Code == 1020
			if err != nil && !conflicted {
				t.Fatalf("second commit: %v", err)
			}
			if conflicted != tc.conflict {
				t.Errorf("second commit conflicted = %v, want %v", conflicted, tc.conflict)
			}
			if got := stats(t, db).Conflicts - before.Conflicts; got != b2i(tc.conflict) {
				t.Errorf("fdblite counted %d conflicts, want %d", got, b2i(tc.conflict))
			}
			if conflicted {
				// The retry sees the first's commit.
				_, err := db.Transact(func(tx fdb.Transaction) (any, error) { return nil, tc.second(tr)(tx) })
				if err != nil && !errors.Is(err, ErrNotFound) {
					t.Fatalf("second, retried: %v", err)
				}
			}
			if diff := cmp.Diff(tc.want, listing(t, db, tr)); diff != "" {
				t.Errorf("rows mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func stats(t *testing.T, db fdb.Database) fdblitetest.Stats {
	t.Helper()
	st, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
