package tree

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// maxHotShare is the largest share of a workload's transactions that may
// write one key or take a read conflict on it, as in the root package's
// TestHotKeys: on a cluster one storage team serves each key, so a key
// every write touches caps the tree's write rate at that team's.
const maxHotShare = 0.25

// TestTreeHotKeys runs a tree workload under fdblite's key audit: Puts of
// three-level paths into existing and new directories across eight
// top-level directories, Deletes, and Moves of objects and of
// directories, on a tree with watch counters. It fails when one key is
// written, or read with a conflict, by more than maxHotShare of the
// committed transactions, except the table's metadata key (hot by design,
// docs/design.md "Hot keys": every fdyno write's read conflict on it, a
// resolver check and no storage read). Before, every Put wrote the root's
// counter and the partition directory entry of the root's listing.
func TestTreeHotKeys(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	dir := fdblitetest.UniqueDirectory(t, db)
	tbl, err := fdyno.Open(db, "Tree", fdyno.WithRoot(dir.GetPath()...), fdyno.WithSchema(TableSchema()))
	if err != nil {
		t.Fatal(err)
	}
	watch := fdblitetest.UniquePrefix(t, db)
	tr, err := Open(db, tbl, Options{Watch: watch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { checkTree(t, db, tr) })
	tableDir, err := directory.Open(db, append(dir.GetPath(), "Tree"), nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := tableDir.Pack(tuple.Tuple{"m"}) // docs/design.md: the table's metadata key m

	seed := uint64(35)
	r := rand.New(rand.NewPCG(seed, seed))
	const tops, subs = 8, 6
	path := func() Path {
		return Path{fmt.Sprint("top", r.IntN(tops)), fmt.Sprint("sub", r.IntN(subs)), fmt.Sprint("o", r.IntN(12))}
	}
	// A few objects in every directory first, so that most Puts go into
	// existing directories and Deletes rarely empty one; new directories
	// come from Puts of new sub names and from Moves.
	for i := range tops * subs {
		if err := tr.Put(db, Path{fmt.Sprint("top", i/subs), fmt.Sprint("sub", i%subs), "seed"}, fdyno.Item{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := fdblitetest.StartKeyAudit(db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fdblitetest.StopKeyAudit(db) })
	ops := map[string]int{}
	for i := range 300 {
		var err error
		switch k := r.IntN(10); {
		case k < 5: // into an existing directory, mostly a new object
			ops["put"]++
			err = tr.Put(db, path(), fdyno.Item{"n": fdyno.NInt(int64(i))})
		case k < 6: // into a new directory
			ops["put into a new directory"]++
			q := path()
			q[1] = fmt.Sprint("new", i)
			err = tr.Put(db, q, fdyno.Item{})
		case k < 8:
			ops["delete"]++
			err = tr.Delete(db, path())
		case k < 9: // an object, to another top-level directory
			ops["move object"]++
			err = tr.Move(db, path(), path())
		default: // a directory, to a new name in another one
			ops["move directory"]++
			from := path()[:2]
			err = tr.Move(db, from, Path{fmt.Sprint("top", r.IntN(tops)), fmt.Sprint("moved", i)})
		}
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrExists) {
			err = nil
		}
		if err != nil {
			t.Fatalf("seed %d, operation %d: %v", seed, i, err)
		}
	}
	a, err := fdblitetest.ReadKeyAudit(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: %d transactions (%v)", seed, a.Transactions, ops)
	describe := func(k fdb.Key) string { return describeTreeKey(tableDir, watch, k) }
	var hot []string
	for _, h := range a.Hot(maxHotShare) {
		if string(h.Begin) == string(meta) {
			continue
		}
		hot = append(hot, h.Describe(describe(h.Begin), a.Transactions))
	}
	if len(hot) > 0 {
		t.Errorf("seed %d: keys touched by more than %.0f%% of the transactions:\n%s", seed, 100*maxHotShare, strings.Join(hot, "\n"))
	}
}

// describeTreeKey names key k for a report: a watch counter's directory,
// or the tuple after the table's directory prefix.
func describeTreeKey(table directory.DirectorySubspace, watch subspace.Subspace, k fdb.Key) string {
	for _, s := range []struct {
		name string
		ss   subspace.Subspace
	}{{"watch counter", watch}, {"table", table}} {
		if tup, err := s.ss.Unpack(k); err == nil {
			return s.name + " " + fmt.Sprint(tup)
		}
	}
	return fmt.Sprintf("%q", []byte(k))
}
