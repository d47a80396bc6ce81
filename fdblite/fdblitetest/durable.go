package fdblitetest

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// DataDirPrefix starts a cluster-file path (or connection string) that
// names a durable fdblite database: fdb.OpenDatabase(DataDirPrefix + dir)
// keeps the database in the directory dir, creating it if absent, and
// recovers what it holds. The environment variable FDBLITE_DATA_DIR does
// the same for the default database.
const DataDirPrefix = "fdblite-dir:"

// OpenDir selects [APIVersion] and opens the durable database kept in the
// directory dir. A directory is open in at most one process at a time;
// opening one that another process holds fails with FoundationDB's error
// 1529 (lock_file_failure). In one process the database stays open until
// the process exits, as every fdblite database does.
func OpenDir(dir string) (fdb.Database, error) {
	return open(DataDirPrefix + dir)
}
