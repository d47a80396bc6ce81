package fdyno

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Schemas used across the tests.
var (
	hashOnly = TableSchema{
		KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}},
		AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}},
	}
	hashRange = TableSchema{
		KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
		AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN}},
	}
)

// testRoot returns a directory-layer root of t's own, removed at cleanup.
func testRoot(t testing.TB, db fdb.Database) Option {
	t.Helper()
	dir := fdblitetest.UniqueDirectory(t, db)
	return WithRoot(dir.GetPath()...)
}

// newTestTable creates a table with schema s under a root of t's own, and
// checks the table's storage invariants (checkTable) when t ends.
func newTestTable(t testing.TB, db fdb.Database, s TableSchema, opts ...Option) *Table {
	t.Helper()
	tbl, err := Open(db, "Test", append([]Option{testRoot(t, db), WithSchema(s)}, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { checkTable(t, db, tbl) })
	return tbl
}

// mustOpen opens the table name through tx, failing t if Open fails.
func mustOpen(t testing.TB, tx fdb.Transactor, name string, opts ...Option) *Table {
	t.Helper()
	tbl, err := Open(tx, name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// testRootOf returns the WithRoot option of the directory tbl lives in.
func testRootOf(tbl *Table) Option {
	return WithRoot(tbl.path[:len(tbl.path)-1]...)
}

// reopen returns another handle on tbl, opened as another process would
// open it.
func reopen(t testing.TB, db fdb.Database, tbl *Table) *Table {
	t.Helper()
	h, err := Open(db, tbl.name, testRootOf(tbl))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// runWorkers runs work(0), …, work(n-1) in goroutines of their own and,
// once all have returned, returns their errors joined (nil if none).
func runWorkers(n int, work func(w int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = work(w)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sourceFile is one parsed non-test Go file of the package.
type sourceFile struct {
	name string
	f    *ast.File
}

// parseSources parses the package's non-test Go files into fset, failing
// t if one does not parse.
func parseSources(t testing.TB, fset *gotoken.FileSet) []sourceFile {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []sourceFile
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, sourceFile{name, f})
	}
	return files
}

// values builds an attribute value map from name, value pairs.
func values(kv ...any) map[string]Value {
	m := map[string]Value{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(Value)
	}
	return m
}

// openTestTable creates a table with schema s on the shared database, as
// [newTestTable] does, and returns the database with it.
func openTestTable(t testing.TB, s TableSchema, opts ...Option) (fdb.Database, *Table) {
	t.Helper()
	db := fdblitetest.Open(t)
	return db, newTestTable(t, db, s, opts...)
}

// checkTable verifies the storage invariants of tbl (tableProblems) and
// reports each violation as an error of t.
func checkTable(t testing.TB, db fdb.Database, tbl *Table) {
	t.Helper()
	for _, p := range tableProblems(db, tbl) {
		t.Errorf("checkTable: %s", p)
	}
}

// tableProblems checks the chunk invariants of chunk.go (every manifest
// has exactly its chunks and every chunk belongs to a manifest), that
// every head decodes to an item whose key attributes match its key, and
// the index invariants of index.go (indexProblems), the partition
// directory's of segment.go (partitionProblems) and the counters' of
// counts.go (countProblems).
func tableProblems(db fdb.Database, tbl *Table) []string {
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	_, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		problems = problems[:0]
		st, err := tbl.current(rt, rt.Get(metadataVersionKey))
		if err != nil {
			return nil, err
		}
		heads, err := rt.GetRange(st.keys.items, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		chunks, err := rt.GetRange(st.keys.chunks, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		want := map[string]int{} // packed key values → chunk count
		// items maps packed key values to items, for indexProblems.
		items := map[string]Item{}
		for _, kv := range heads {
			k, err := st.keys.splitItemKey(kv.Key)
			if err != nil {
				errorf("item key %s: %v", fdb.Printable(kv.Key), err)
				continue
			}
			r, err := loaderOf(rt).row(&st.keys, k, kv.Value)
			var it Item
			if err == nil {
				it, _, err = loaderOf(rt).load(&r)
			}
			if err != nil {
				if errors.As(err, new(fdb.Error)) {
					return nil, err // a read failed (maybe injected): ReadTransact retries
				}
				errorf("item %s: %v", fdb.Printable(kv.Key), err)
				continue
			}
			items[string(k)] = it
			if got, err := keyOf("check", it, st.hash, st.rng, false); err != nil || !bytes.Equal(got, k) {
				errorf("item %s holds key %s (%v)", fdb.Printable(kv.Key), fdb.Printable(got), err)
			}
			if r.m.count > 0 {
				want[string(k)] = r.m.count
			}
		}
		got := map[string]int{}
		for _, kv := range chunks {
			k, n, err := st.keys.splitChunkKey(kv.Key)
			if err != nil {
				errorf("chunk key %s: %v", fdb.Printable(kv.Key), err)
				continue
			}
			if n != got[string(k)] {
				errorf("chunk %s out of sequence", fdb.Printable(kv.Key))
			}
			got[string(k)]++
		}
		for k, n := range got {
			if want[k] != n {
				errorf("item %s has %d chunks, manifest says %d", fdb.Printable([]byte(k)), n, want[k])
			}
		}
		for k, n := range want {
			if got[k] != n {
				errorf("manifest %s says %d chunks, found %d", fdb.Printable([]byte(k)), n, got[k])
			}
		}
		if err := indexProblems(rt, st, items, errorf); err != nil {
			return nil, err
		}
		if err := partitionProblems(rt, st, items, errorf); err != nil {
			return nil, err
		}
		if len(problems) == 0 { // counts of unreadable items mean nothing
			if err := countProblems(rt, st, items, errorf); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil && !isNotFound(err) {
		errorf("%v", err)
	}
	return problems
}

func isNotFound(err error) bool { return errors.Is(err, ErrResourceNotFound) }
