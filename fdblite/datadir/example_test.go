package datadir_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/datadir"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// A copy of a durable database taken while it serves, opened as a
// database of its own.
func ExampleCopy() {
	work, err := os.MkdirTemp("", "datadir-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(work)
	live, copied := filepath.Join(work, "live"), filepath.Join(work, "copy")

	db, err := fdblitetest.OpenDir(live)
	if err != nil {
		panic(err)
	}
	set := func(v string) {
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.Set(fdb.Key("hello"), []byte(v))
			return nil, nil
		}); err != nil {
			panic(err)
		}
	}
	set("world")
	if err := datadir.Copy(live, copied); err != nil {
		panic(err)
	}
	set("later") // not in the copy

	restored, err := fdblitetest.OpenDir(copied)
	if err != nil {
		panic(err)
	}
	v, err := restored.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(fdb.Key("hello")).Get()
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", v)
	// Output: world
}
