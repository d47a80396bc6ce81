package datadir_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno/fdblite/datadir"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// ledger is the invariant the writer keeps: every commit adds one row
// ("row", i) and sets "rows" to i+1 in the same transaction. A copy holds
// one moment of the database exactly when "rows" counts its rows.
var rowsKey = fdb.Key(tuple.Tuple{"rows"}.Pack())

func rowKey(i int64) fdb.Key { return fdb.Key(tuple.Tuple{"row", i}.Pack()) }

func appendRow(db fdb.Database) (int64, error) {
	n, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		v := tr.Get(rowsKey).MustGet()
		var n int64
		if v != nil {
			t, err := tuple.Unpack(v)
			if err != nil {
				return nil, err
			}
			n = t[0].(int64)
		}
		tr.Set(rowKey(n), make([]byte, 700)) // pages enough for a copy that takes a while
		tr.Set(rowsKey, tuple.Tuple{n + 1}.Pack())
		return n + 1, nil
	})
	if err != nil {
		return 0, err
	}
	return n.(int64), nil
}

// check opens dir and returns its "rows", failing t unless exactly rows
// 0..rows-1 are there.
func check(t *testing.T, dir string) int64 {
	t.Helper()
	db, err := fdblitetest.OpenDir(dir)
	if err != nil {
		t.Fatalf("open the copy: %v", err)
	}
	got, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		v := rt.Get(rowsKey).MustGet()
		if v == nil {
			return [2]int64{}, nil
		}
		t, err := tuple.Unpack(v)
		if err != nil {
			return nil, err
		}
		kr, err := fdb.PrefixRange(tuple.Tuple{"row"}.Pack())
		if err != nil {
			return nil, err
		}
		rows := rt.GetRange(kr, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).GetSliceOrPanic()
		for i, kv := range rows {
			if !bytes.Equal(kv.Key, rowKey(int64(i))) {
				return nil, fmt.Errorf("row %d is %s", i, kv.Key)
			}
		}
		return [2]int64{t[0].(int64), int64(len(rows))}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c := got.([2]int64)
	if c[0] != c[1] {
		t.Fatalf("the copy says %d rows and holds %d: not one moment of the database", c[0], c[1])
	}
	return c[0]
}

// TestCopyWhileCommitting copies a database that writers keep committing
// to: the copy holds every commit acknowledged before the copy began, none
// acknowledged after it returned beyond what was durable, and one moment
// exactly; and it opens as a database of its own while the source serves.
func TestCopyWhileCommitting(t *testing.T) {
	src := t.TempDir()
	db, err := fdblitetest.OpenDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		if _, err := appendRow(db); err != nil {
			t.Fatal(err)
		}
	}
	var acked atomic.Int64
	acked.Store(2000)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			n, err := appendRow(db)
			if err != nil {
				writeErr = err
				return
			}
			acked.Store(n)
		}
	}()
	for round := 0; round < 3; round++ {
		before := acked.Load()
		dst := filepath.Join(t.TempDir(), "copy")
		if err := datadir.Copy(src, dst); err != nil {
			t.Fatal(err)
		}
		after := acked.Load()
		rows := check(t, dst)
		t.Logf("round %d: %d rows acknowledged before the copy, %d after, %d in the copy", round, before, after, rows)
		// A commit acknowledged after Copy returned may have been durable
		// before the copy's snapshot; one more than that may have been
		// durable and not yet acknowledged.
		if rows < before || rows > after+1 {
			t.Errorf("round %d: the copy holds %d rows; acknowledged: %d before the copy, %d after", round, rows, before, after)
		}
	}
	close(stop)
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
}

// TestCopyOfACopy copies a directory no process has opened since it was
// written (no write-ahead log beside it), which is how a copy starts.
func TestCopyOfACopy(t *testing.T) {
	src := t.TempDir()
	db, err := fdblitetest.OpenDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for i := 0; i < 10; i++ {
		if want, err = appendRow(db); err != nil {
			t.Fatal(err)
		}
	}
	first := filepath.Join(t.TempDir(), "first")
	if err := datadir.Copy(src, first); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(t.TempDir(), "second")
	if err := datadir.Copy(first, second); err != nil {
		t.Fatal(err)
	}
	if got := check(t, second); got != want {
		t.Fatalf("the copy of the copy holds %d rows, want %d", got, want)
	}
}

func TestCopyRefuses(t *testing.T) {
	src := t.TempDir()
	db, err := fdblitetest.OpenDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := appendRow(db); err != nil {
		t.Fatal(err)
	}
	notEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(notEmpty, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	notFdblite := t.TempDir()
	if err := os.WriteFile(filepath.Join(notFdblite, "fdblite.sqlite"), []byte("not a database at all, longer than SQLite's header of one hundred bytes........................................"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		src, dst string
		code     int
	}{
		{"source holds no database", t.TempDir(), filepath.Join(t.TempDir(), "c"), 1513},
		{"destination not empty", src, notEmpty, 1514},
		{"destination is the source", src, src, 1514},
		{"destination is a file", src, filepath.Join(notEmpty, "x"), 1514},
		{"source is not SQLite", notFdblite, filepath.Join(t.TempDir(), "c"), 1522},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := datadir.Copy(tc.src, tc.dst)
			var fe fdb.Error
			if !errors.As(err, &fe) || fe.Code != tc.code {
				t.Fatalf("Copy(%s, %s) = %v, want fdb.Error %d", tc.src, tc.dst, err, tc.code)
			}
			if _, err := os.Stat(filepath.Join(tc.dst, "fdblite.sqlite.partial")); err == nil {
				t.Errorf("a refused copy left %s/fdblite.sqlite.partial behind", tc.dst)
			}
		})
	}
}
