package tree

import (
	"fmt"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Each tree operation beside the fdyno table operations it rests on and the
// raw FoundationDB operations under those, in the same run:
//
//	go test -run '^$' -bench . -benchmem ./tree/
//
// Put of a 4-deep path into existing directories is one wave of 7 point
// reads (the 4 listing rows of its path and the 3 ancestors' object rows,
// as the tree keeps watch counters) and then one table Put and one
// counter add; into new directories it writes each new listing row and
// counts it. "before" is what Put did until issue 35: 5 blind table Puts
// and an add to every ancestor's counter, no read. Get is one table Get;
// List of 1,000 children one Query of 1,000 listing rows plus the kinds
// (one QueryBatch of every child's object row and first listing row).
func BenchmarkPut(b *testing.B) {
	db := fdblitetest.Open(b)
	tr := newTestTree(b, db, Options{})
	raw := fdblitetest.UniquePrefix(b, db)
	it := fdyno.Item{"LinkTarget": fdyno.S("http://example.com/")}
	b.Run("tree/depth=4", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			if err := tr.Put(db, Path{"Accounts", "123456", "Links", fmt.Sprint(i % 1000)}, it); err != nil {
				b.Fatal(err)
			}
		}
	})
	runs := 0 // distinct paths in every run of the function
	b.Run("tree/depth=4/new-directories", func(b *testing.B) {
		b.ReportAllocs()
		runs++
		run := fmt.Sprint(runs)
		i := 0
		for b.Loop() {
			i++
			if err := tr.Put(db, Path{"New" + run, fmt.Sprint(i), "Links", "x"}, it); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("before/depth=4", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			path := Path{"Accounts", "123456", "Links", fmt.Sprint(i % 1000)}
			if _, err := db.Transact(func(t fdb.Transaction) (any, error) { return nil, blindPut(t, tr, path, it) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("table/1-put", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			path := Path{"Accounts", "123456", "Links", fmt.Sprint(i % 1000)}
			if _, err := tr.table.Put(db, fdyno.PutInput{Item: tr.objectRow(path, it)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	val := []byte("http://example.com/")
	b.Run("raw/7-gets+set+add", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			_, err := db.Transact(func(t fdb.Transaction) (any, error) {
				fs := make([]fdb.FutureByteSlice, 7)
				for j := range fs {
					fs[j] = t.Get(raw.Pack(tuple.Tuple{"r", j}))
				}
				for _, f := range fs {
					if _, err := f.Get(); err != nil {
						return nil, err
					}
				}
				t.Set(raw.Pack(tuple.Tuple{i % 1000}), val)
				t.Add(raw.Pack(tuple.Tuple{"c"}), one)
				return nil, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw/5-sets+4-adds", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			_, err := db.Transact(func(t fdb.Transaction) (any, error) {
				for j := range 5 {
					t.Set(raw.Pack(tuple.Tuple{j, i % 1000}), val)
				}
				for j := range 4 {
					t.Add(raw.Pack(tuple.Tuple{"c", j}), one)
				}
				return nil, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// blindPut is what Put did before issue 35: every listing row of the path
// written blind and one added to every ancestor's counter, so every Put
// wrote the root's counter and the partition directory entry of the
// root's listing.
func blindPut(t fdb.Transaction, tr *Tree, path Path, it fdyno.Item) error {
	for j := range path {
		if _, err := tr.table.Put(t, fdyno.PutInput{Item: tr.listingRow(path[:j], path[j])}); err != nil {
			return err
		}
		t.Add(tr.watchKey(tr.dirKey(path[:j])), one)
	}
	_, err := tr.table.Put(t, fdyno.PutInput{Item: tr.objectRow(path, it)})
	return err
}

func BenchmarkGet(b *testing.B) {
	db := fdblitetest.Open(b)
	tr := newTestTree(b, db, Options{})
	raw := fdblitetest.UniquePrefix(b, db)
	path := Path{"Accounts", "123456", "Links", "xyzpdq"}
	it := fdyno.Item{"LinkTarget": fdyno.S("http://example.com/")}
	if err := tr.Put(db, path, it); err != nil {
		b.Fatal(err)
	}
	if err := tr.PutLink(db, Path{"Links", "xyzpdq"}, path); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Transact(func(t fdb.Transaction) (any, error) {
		t.Set(raw.Pack(tuple.Tuple{"k"}), []byte("http://example.com/"))
		return nil, nil
	}); err != nil {
		b.Fatal(err)
	}
	b.Run("tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tr.Get(db, path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tree/via-link", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tr.Get(db, Path{"Links", "xyzpdq"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("table", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tr.table.Get(db, fdyno.GetInput{Key: tr.objectRowKey(path)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := db.ReadTransact(func(t fdb.ReadTransaction) (any, error) {
				return t.Get(raw.Pack(tuple.Tuple{"k"})).Get()
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkList(b *testing.B) {
	db := fdblitetest.Open(b)
	tr := newTestTree(b, db, Options{MaxRows: 100000})
	raw := fdblitetest.UniquePrefix(b, db)
	const n = 1000
	for start := 0; start < n; start += 100 {
		if _, err := db.Transact(func(t fdb.Transaction) (any, error) {
			for i := start; i < start+100; i++ {
				if err := tr.Put(t, Path{"dir", fmt.Sprintf("child%04d", i)}, fdyno.Item{"n": fdyno.NInt(int64(i))}); err != nil {
					return nil, err
				}
				t.Set(raw.Pack(tuple.Tuple{fmt.Sprintf("child%04d", i)}), nil)
			}
			return nil, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run(fmt.Sprintf("tree/children=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := tr.List(db, Path{"dir"}, ListInput{Limit: n})
			if err != nil || len(out.Entries) != n {
				b.Fatal(err, len(out.Entries))
			}
		}
	})
	b.Run(fmt.Sprintf("tree-names-only/children=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := tr.List(db, Path{"dir"}, ListInput{Limit: n, NamesOnly: true})
			if err != nil || len(out.Entries) != n {
				b.Fatal(err, len(out.Entries))
			}
		}
	})
	b.Run(fmt.Sprintf("table-query/children=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := tr.table.Query(db, tr.listQuery(Path{"dir"}, n))
			if err != nil || len(out.Items) != n {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("raw-range/children=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			kvs, err := db.ReadTransact(func(t fdb.ReadTransaction) (any, error) {
				return t.GetRange(raw, fdb.RangeOptions{}).GetSliceWithError()
			})
			if err != nil || len(kvs.([]fdb.KeyValue)) != n {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkModelled runs the tree's operations on fdblite with its model of
// a cluster's round trips (fdblitetest.DefaultLatency), where an
// operation's time is mostly its round trips:
//
//	go test -run '^$' -bench Modelled -benchtime 20x ./tree/
func BenchmarkModelled(b *testing.B) {
	db := fdblitetest.OpenIsolated(b)
	tr := newTestTree(b, db, Options{})
	for i := range 100 {
		if err := tr.Put(db, Path{"dir", fmt.Sprintf("child%03d", i)}, fdyno.Item{}); err != nil {
			b.Fatal(err)
		}
		if err := tr.Put(db, Path{"dirs", fmt.Sprintf("sub%03d", i), "x"}, fdyno.Item{}); err != nil {
			b.Fatal(err)
		}
	}
	path := Path{"Accounts", "123456", "Links", "xyzpdq"}
	it := fdyno.Item{"LinkTarget": fdyno.S("http://example.com/")}
	if err := tr.Put(db, path, it); err != nil {
		b.Fatal(err)
	}
	if err := tr.PutLink(db, Path{"Links", "xyzpdq"}, path); err != nil {
		b.Fatal(err)
	}
	if err := fdblitetest.SetLatency(db, fdblitetest.DefaultLatency()); err != nil {
		b.Fatal(err)
	}
	run := func(name string, op func(i int) error) {
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if err := op(i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("Put/depth=4", func(i int) error { return tr.Put(db, Path{"w", "x", "y", fmt.Sprint(i)}, it) })
	newDirs := 0
	run("Put/depth=4/new-directories", func(i int) error {
		newDirs++ // distinct paths in every run of the function
		return tr.Put(db, Path{"n", fmt.Sprint(newDirs), "x", "y"}, it)
	})
	run("Put/depth=4/before", func(i int) error {
		_, err := db.Transact(func(t fdb.Transaction) (any, error) {
			return nil, blindPut(t, tr, Path{"w", "x", "y", fmt.Sprint(i)}, it)
		})
		return err
	})
	run("Get", func(int) error { _, err := tr.Get(db, path); return err })
	run("Get/via-link", func(int) error { _, err := tr.Get(db, Path{"Links", "xyzpdq"}); return err })
	run("Delete/emptying-depth=4", func(i int) error {
		q := Path{"v", "x", "y", fmt.Sprint(i)}
		if err := tr.Put(db, q, it); err != nil {
			return err
		}
		return tr.Delete(db, q)
	})
	run("DeleteTree/100-objects", func(i int) error {
		q := Path{"u", fmt.Sprint(i)}
		if _, err := db.Transact(func(t fdb.Transaction) (any, error) {
			for j := range 100 {
				if err := tr.Put(t, q.join(fmt.Sprint(j)), it); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}); err != nil {
			return err
		}
		return tr.DeleteTree(db, q)
	})
	run("List/100-objects", func(int) error { _, err := tr.List(db, Path{"dir"}, ListInput{}); return err })
	run("List/100-directories", func(int) error { _, err := tr.List(db, Path{"dirs"}, ListInput{}); return err })
	run("List/100-names-only", func(int) error { _, err := tr.List(db, Path{"dir"}, ListInput{NamesOnly: true}); return err })
}
