package tree

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// newTestTree opens a tree on a table of t's own, with watch counters in a
// prefix of t's own, and checks the tree's invariants (treeProblems) when
// t ends.
func newTestTree(t testing.TB, db fdb.Database, opts Options) *Tree {
	t.Helper()
	dir := fdblitetest.UniqueDirectory(t, db)
	tbl, err := fdyno.Open(db, "Tree", fdyno.WithRoot(dir.GetPath()...), fdyno.WithSchema(TableSchema()))
	if err != nil {
		t.Fatalf("fdyno.Open: %v", err)
	}
	if opts.Watch == nil {
		opts.Watch = fdblitetest.UniquePrefix(t, db)
	}
	tr, err := Open(db, tbl, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { checkTree(t, db, tr) })
	return tr
}

func checkTree(t testing.TB, db fdb.Database, tr *Tree) {
	t.Helper()
	for _, p := range treeProblems(t, db, tr) {
		t.Errorf("checkTree: %s", p)
	}
}

// row is one table row as text: Key, Child and the other attributes.
type row struct {
	Key, Child string
	Attrs      string
}

func (r row) String() string { return fmt.Sprintf("%q/%q %s", r.Key, r.Child, r.Attrs) }

// allRows scans the whole table, in (Key, Child) order.
func allRows(t testing.TB, db fdb.Database, tr *Tree) []row {
	t.Helper()
	var rows []row
	for it, err := range tr.table.ScanAll(context.Background(), db, fdyno.ScanInput{}) {
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		rows = append(rows, rowOf(it))
	}
	sortRows(rows)
	return rows
}

func rowOf(it fdyno.Item) row {
	attrs := fdyno.Item{}
	for k, v := range it {
		if k != KeyAttribute && k != ChildAttribute {
			attrs[k] = v
		}
	}
	a := ""
	if len(attrs) > 0 {
		a = attrs.String()
	}
	return row{Key: it[KeyAttribute].S(), Child: it[ChildAttribute].S(), Attrs: a}
}

func sortRows(rows []row) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Key != rows[j].Key {
			return rows[i].Key < rows[j].Key
		}
		return rows[i].Child < rows[j].Child
	})
}

// treeProblems checks the invariants of the tree's table:
//
//  1. every row is an object row (Child R, Key an object key) or a listing
//     row (Key a directory key, Child a valid component);
//  2. every listing row has an object or a listing row beneath it;
//  3. every object is listed in each of its ancestors.
func treeProblems(t testing.TB, db fdb.Database, tr *Tree) []string {
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	rows := allRows(t, db, tr)
	objects := map[string]bool{}
	dirs := map[string]bool{} // directory keys with a listing row
	listed := map[[2]string]bool{}
	for _, r := range rows {
		if r.Child == tr.r {
			objects[r.Key] = true
		} else {
			dirs[r.Key] = true
			listed[[2]string{r.Key, r.Child}] = true
		}
	}
	for _, r := range rows {
		if r.Child == tr.r {
			p, err := tr.parseObjectKey(r.Key)
			if err != nil {
				errorf("object row %v: key: %v", r, err)
				continue
			}
			for i := range p {
				if !listed[[2]string{tr.dirKey(p[:i]), p[i]}] {
					errorf("object %q: not listed in %q", p, p[:i])
				}
			}
			continue
		}
		if !strings.HasSuffix(r.Key, tr.r) {
			errorf("listing row %v: key is not a directory key", r)
			continue
		}
		if r.Key != tr.r {
			if _, err := tr.parseObjectKey(strings.TrimSuffix(r.Key, tr.r)); err != nil {
				errorf("listing row %v: key: %v", r, err)
				continue
			}
		}
		if why := tr.checkComponent(r.Child); why != "" {
			errorf("listing row %v: %s", r, why)
		}
		if !objects[r.Key+r.Child] && !dirs[r.Key+r.Child+tr.r] {
			errorf("listing row %v: nothing beneath it", r)
		}
	}
	return problems
}

// p parses a slash path for tests.
func p(s string) Path {
	path, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return path
}
