package fdblitetest_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Cluster files work on fdblite as on a cluster: the connection string in
// the file names the database, so two copies of one file reach the same
// data. A missing file does not fail OpenDatabase (FoundationDB 7.3 builds
// the database anyway): the database's transactions fail with
// FoundationDB's error 1515.
func Example_clusterFile() {
	if err := fdb.APIVersion(fdblitetest.APIVersion); err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "cluster-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	const cs = "example:Cl0nE@127.0.0.1:4500\n" // description:ID@coordinators
	for _, name := range []string{"a.cluster", "b.cluster"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(cs), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	a, err := fdb.OpenDatabase(filepath.Join(dir, "a.cluster"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(fdb.Key("greeting"), []byte("hello"))
		return nil, nil
	}); err != nil {
		log.Fatal(err)
	}
	b, err := fdb.OpenDatabase(filepath.Join(dir, "b.cluster"))
	if err != nil {
		log.Fatal(err)
	}
	v, err := b.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(fdb.Key("greeting")).Get()
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("through the copy: %s\n", v)

	missing, err := fdb.OpenDatabase(filepath.Join(dir, "missing.cluster"))
	if err != nil {
		log.Fatal(err)
	}
	_, err = missing.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(fdb.Key("greeting")).Get()
	})
	var fe fdb.Error
	if errors.As(err, &fe) {
		fmt.Println("missing file:", fe.Code)
	}
	// Output:
	// through the copy: hello
	// missing file: 1515
}
