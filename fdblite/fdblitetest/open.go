package fdblitetest

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
)

// APIVersion is the FoundationDB API version fdyno and fdblite speak.
const APIVersion = 730

// DatabasePrefix starts the name of every database opened by [OpenDatabase]:
// fdblite reads a cluster-file path as FoundationDB does (the file must
// exist and hold a connection string), and takes a path of the form
// "fdblite-memory:<name>" as the name of an in-memory database instead.
const DatabasePrefix = "fdblite-memory:"

// openMu serialises fdb.OpenDatabase and Database.Close: the bindings keep
// their cache of open databases in a map without a lock, so parallel tests
// opening databases would race.
var openMu sync.Mutex

// seq numbers the isolated databases, prefixes and directories of this process.
var seq atomic.Int64

func selectAPIVersion() error {
	// Selecting the same version again is a no-op in the bindings.
	if err := fdb.APIVersion(APIVersion); err != nil {
		return fmt.Errorf("fdblitetest: select API version %d: %w", APIVersion, err)
	}
	return nil
}

func open(clusterFile string) (fdb.Database, error) {
	if err := selectAPIVersion(); err != nil {
		return fdb.Database{}, err
	}
	openMu.Lock()
	defer openMu.Unlock()
	db, err := fdb.OpenDatabase(clusterFile)
	if err != nil {
		return fdb.Database{}, fmt.Errorf("fdblitetest: open database %q: %w", clusterFile, err)
	}
	return db, nil
}

// Open selects [APIVersion] and returns the default database, shared by every
// test in the process. It fails the test if the database cannot be opened.
// Use [UniquePrefix] or [UniqueDirectory] to keep tests apart on it.
func Open(t testing.TB) fdb.Database {
	t.Helper()
	db, err := open(fdb.DefaultClusterFile)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// OpenDatabase selects [APIVersion] and opens the in-memory database called
// [DatabasePrefix]+name. Within one process the same name opens the same data
// and the same fault configuration; the database is created empty, without
// faults, on first use. The name is passed to fdb.OpenDatabase as a cluster
// file path, so on a real FoundationDB client the database's transactions
// fail (no such file, 1515).
//
// The returned Database is safe for concurrent use by multiple goroutines.
func OpenDatabase(name string) (fdb.Database, error) {
	return open(DatabasePrefix + name)
}

// OpenIsolated opens a database of its own for t (named after the test and a
// process-wide sequence number) so that its faults and keys touch no other
// test. At cleanup it turns faults off, clears the keyspace and closes the
// database.
func OpenIsolated(t testing.TB) fdb.Database {
	t.Helper()
	db, err := OpenDatabase(fmt.Sprintf("%s#%d", t.Name(), seq.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ClearFaults(db); err != nil {
			t.Errorf("OpenIsolated cleanup: %v", err)
		}
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.ClearRange(fdb.KeyRange{Begin: fdb.Key(""), End: fdb.Key("\xff")})
			return nil, nil
		}); err != nil {
			t.Errorf("OpenIsolated cleanup: clear keyspace: %v", err)
		}
		openMu.Lock()
		defer openMu.Unlock()
		db.Close()
	})
	return db
}

// uniqueName names t's keyspace: the test name, the process ID (tests of
// different packages run in different processes, which share data on a real
// cluster) and a sequence number.
func uniqueName(t testing.TB) string {
	return fmt.Sprintf("%s#%d.%d", t.Name(), os.Getpid(), seq.Add(1))
}

// UniquePrefix returns a subspace no other test uses, ("fdblitetest", name),
// and clears it when t ends. db is used only for the cleanup.
func UniquePrefix(t testing.TB, db fdb.Transactor) subspace.Subspace {
	t.Helper()
	ss := subspace.Sub("fdblitetest", uniqueName(t))
	t.Cleanup(func() {
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.ClearRange(ss)
			return nil, nil
		}); err != nil {
			t.Errorf("UniquePrefix cleanup: clear %s: %v", ss, err)
		}
	})
	return ss
}

// UniqueDirectory creates a directory-layer directory no other test uses,
// under the path ("fdblitetest", name), and removes it when t ends.
func UniqueDirectory(t testing.TB, db fdb.Transactor) directory.DirectorySubspace {
	t.Helper()
	path := []string{"fdblitetest", uniqueName(t)}
	dir, err := directory.Create(db, path, nil)
	if err != nil {
		t.Fatalf("UniqueDirectory: create %q: %v", path, err)
	}
	t.Cleanup(func() {
		if _, err := directory.Root().Remove(db, path); err != nil {
			t.Errorf("UniqueDirectory cleanup: remove %q: %v", path, err)
		}
	})
	return dir
}
