package tree

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// The network round trips of each operation, as fdblite counts them (read
// versions, waves of reads in flight together, commits). The budgets come
// from what each operation must read before it can write: Put one wave
// (the listing rows of its path and, with watch counters, its ancestors'
// object rows, together; it was no read when it wrote every listing row
// blind), Get one object row per
// path it visits, List one range and then every child's object row and
// first listing row together (one fdyno.QueryBatch).
func TestRoundTripBudgets(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tr := newTestTree(t, db, Options{})
	for i := range 20 {
		if err := tr.Put(db, p(fmt.Sprintf("dir/child%02d", i)), fdyno.Item{"n": fdyno.NInt(int64(i))}); err != nil {
			t.Fatal(err)
		}
		if err := tr.Put(db, p(fmt.Sprintf("dirs/sub%02d/x", i)), fdyno.Item{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"del/a", "del/a/child", "del/b/x", "del/b/y", "del/o", "del/o/c"} {
		if err := tr.Put(db, p(q), fdyno.Item{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.PutLink(db, p("l1"), p("dir/child00")); err != nil {
		t.Fatal(err)
	}
	if err := tr.PutLink(db, p("l2"), p("l1")); err != nil {
		t.Fatal(err)
	}
	rt := func(rv, waves, commits int64) fdblitetest.RoundTrips {
		return fdblitetest.RoundTrips{ReadVersions: rv, ReadWaves: waves, Commits: commits}
	}
	tests := []struct {
		name string
		op   func() error
		want fdblitetest.RoundTrips
	}{
		{"Put 4 deep", func() error { return tr.Put(db, p("a/b/c/d"), fdyno.Item{"v": fdyno.S("x")}) }, rt(1, 1, 1)},
		{"Put 4 deep, again", func() error { return tr.Put(db, p("a/b/c/d"), fdyno.Item{"v": fdyno.S("y")}) }, rt(1, 1, 1)},
		{"Put into an existing directory", func() error { return tr.Put(db, p("dir/child20"), fdyno.Item{}) }, rt(1, 1, 1)},
		{"PutLink", func() error { return tr.PutLink(db, p("a/b/link"), p("a/b/c/d")) }, rt(1, 1, 1)},
		{"Get", func() error { _, err := tr.Get(db, p("a/b/c/d")); return err }, rt(1, 1, 0)},
		{"Get through 2 links", func() error { _, err := tr.Get(db, p("l2")); return err }, rt(1, 3, 0)},
		{"GetLink", func() error { _, err := tr.GetLink(db, p("l2")); return err }, rt(1, 1, 0)},
		// Delete: its object row; then, per directory it examines, a
		// snapshot read of the listing and the conflict read (the witness
		// or the whole listing); per ancestor, first its object row.
		{"Delete of an object with children", func() error { return tr.Delete(db, p("del/a")) }, rt(1, 3, 1)},
		{"Delete beside a sibling", func() error { return tr.Delete(db, p("del/b/x")) }, rt(1, 6, 1)},
		// An object's last child: the object stays, and whether it keeps
		// a child (a snapshot read, with no conflict read when it keeps
		// none) says whether its entry changes kind, for del's counter.
		{"Delete of an object's last child", func() error { return tr.Delete(db, p("del/o/c")) }, rt(1, 5, 1)},
		{"List 20 names only", func() error { _, err := tr.List(db, p("dir"), ListInput{NamesOnly: true}); return err }, rt(1, 1, 0)},
		{"List 20 directories", func() error { _, err := tr.List(db, p("dirs"), ListInput{}); return err }, rt(1, 2, 0)},
		{"List 20 objects", func() error { _, err := tr.List(db, p("dir"), ListInput{}); return err }, rt(1, 2, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Warm the table handle's schema cache, so the count is the
			// operation's own.
			if _, err := tr.table.Describe(db); err != nil {
				t.Fatal(err)
			}
			got, err := fdblitetest.CountRoundTrips(db, tc.op)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("round trips = %v, want %v", got, tc.want)
			}
		})
	}
	// Every kind in one page (objects, directories, an object that is
	// also a directory, links): still one wave for the listing and one
	// for every child's object row and first listing row.
	if err := tr.Put(db, p("dirs"), fdyno.Item{}); err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	got, err := fdblitetest.CountRoundTrips(db, func() error {
		out, err := tr.List(db, Path{}, ListInput{})
		for _, e := range out.Entries {
			kinds = append(kinds, e.Kind)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// a, del, dir: directories; dirs: an object and a directory; l1, l2:
	// links.
	if want := []Kind{KindDirectory, KindDirectory, KindDirectory, KindObject | KindDirectory, KindLink, KindLink}; !slices.Equal(kinds, want) {
		t.Errorf("List of the root: kinds %v, want %v", kinds, want)
	}
	if got != rt(1, 2, 0) {
		t.Errorf("List of the root: round trips = %v, want %v", got, rt(1, 2, 0))
	}
	// DeleteTree of dirs (an object, 20 subdirectories, an object in
	// each): its object row, then one wave per level (one QueryBatch of
	// the level's listings and object rows: dirs's listing; the 20
	// subdirectories' listings and rows; the 20 objects' listings and
	// rows); then the commit.
	got, err = fdblitetest.CountRoundTrips(db, func() error { return tr.DeleteTree(db, p("dirs")) })
	if err != nil {
		t.Fatal(err)
	}
	if want := rt(1, 1+3, 1); got != want {
		t.Errorf("DeleteTree of 20 directories: round trips = %v, want %v", got, want)
	}
}

// Move of 1,000 objects (10 directories of 100) reads one wave per level
// of the subtree, whatever its width: the destination's row, its listing
// (a snapshot read for a witness, then the conflict read) and the
// source's row (four waves, before the subtree), then the
// source's listing, the 10 directories' listings and rows, the 1,000
// objects' listings and rows; then the commit. The old code read the
// rows 10 at a time, one TransactGet after another.
func TestMoveRoundTrips(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tr := newTestTree(t, db, Options{})
	for d := range 10 {
		_, err := db.Transact(func(txn fdb.Transaction) (any, error) {
			for i := range 100 {
				if err := tr.Put(txn, p(fmt.Sprintf("src/d%d/o%03d", d, i)), fdyno.Item{"n": fdyno.NInt(int64(i))}); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.table.Describe(db); err != nil {
		t.Fatal(err)
	}
	got, err := fdblitetest.CountRoundTrips(db, func() error { return tr.Move(db, p("src"), p("dst")) })
	if err != nil {
		t.Fatal(err)
	}
	if want := (fdblitetest.RoundTrips{ReadVersions: 1, ReadWaves: 4 + 3, Commits: 1}); got != want {
		t.Errorf("Move of 1,000 objects: round trips = %v, want %v", got, want)
	}
	if n := len(allRows(t, db, tr)); n != 1+10+10*100*2 {
		t.Errorf("%d rows after the move, want %d", n, 1+10+10*100*2)
	}
}
