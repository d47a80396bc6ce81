package fdblitetest_test

import (
	"fmt"
	"os"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// A durable database: the cluster-file path "fdblite-dir:" + dir keeps the
// database in the directory dir (created if absent). A commit returns only
// once it is on disk; reopening the directory in a later process recovers
// every acknowledged commit.
func Example_durable() {
	dir, err := os.MkdirTemp("", "fdblite-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	fdb.MustAPIVersion(730)
	db, err := fdb.OpenDatabase("fdblite-dir:" + dir)
	if err != nil {
		panic(err) // fdb.Error 1529 if another process has dir open; the cause is on stderr
	}
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(fdb.Key("hello"), []byte("world")) // durable once Transact returns nil
		return nil, nil
	})
	fmt.Println(err)
	// Output: <nil>
}
