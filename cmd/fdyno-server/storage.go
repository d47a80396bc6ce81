package main

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/server"
)

// DefaultDataDir is where the embedded database keeps its data when
// neither --data-dir, --in-memory nor --cluster-file is given (relative to
// the working directory, as DynamoDB Local's -dbPath is).
const DefaultDataDir = "fdyno-data"

// fdblite's database names: a durable database in a directory, and the
// server's in-memory database.
const (
	dataDirPrefix  = "fdblite-dir:"
	inMemoryDBName = "fdblite-memory:fdyno-server"
)

// databaseName turns the storage flags into the name fdb.OpenDatabase
// takes and the storage it means. set holds the flags given explicitly.
func databaseName(clusterFile, dataDir string, inMemory bool, set map[string]bool) (string, server.Storage, error) {
	switch {
	case clusterFile != "" && (set["data-dir"] || inMemory):
		return "", server.Storage{}, errors.New("--cluster-file names a FoundationDB cluster; --data-dir and --in-memory are for the embedded database")
	case clusterFile != "":
		return clusterFile, server.Storage{Mode: "cluster"}, nil
	case inMemory && set["data-dir"]:
		return "", server.Storage{}, errors.New("--in-memory and --data-dir exclude each other")
	case inMemory:
		return inMemoryDBName, server.Storage{Mode: "memory"}, nil
	}
	if dataDir == "" {
		return "", server.Storage{}, errors.New("--data-dir is empty")
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", server.Storage{}, fmt.Errorf("--data-dir: %w", err)
	}
	return dataDirPrefix + abs, server.Storage{Mode: "durable", Dir: abs}, nil
}

// openError words a failure to open the database for the operator; fdblite
// also prints its cause (the system's or SQLite's message) to stderr.
func openError(err error, st server.Storage) error {
	var fe fdb.Error
	if st.Mode != "durable" || !errors.As(err, &fe) {
		return fmt.Errorf("open database: %w", err)
	}
	hint := map[int]string{
		1529: "another process (another fdyno-server?) has the directory open; stop it or choose another --data-dir",
		1514: "the directory or its files cannot be written (permissions, or a read-only file system); fix the permissions or choose another --data-dir",
		1513: "the database file cannot be opened; check its permissions",
		1522: "the database file is corrupt or truncated; restore the directory from a backup (see server/README.md)",
		1510: "an I/O error, such as a full disk; free space and start again",
	}[fe.Code]
	if hint == "" {
		return fmt.Errorf("open data directory %s: %w", st.Dir, err)
	}
	return fmt.Errorf("open data directory %s: %w: %s", st.Dir, err, hint)
}

// checkDatabase asks the database for a read version once at start-up. A
// FoundationDB client opens a database whose cluster file is missing (1515)
// or malformed (2104) without complaint and fails each of its operations
// instead; no retry mends either, so the server refuses to start rather
// than answer every request with the error. Any other failure (a cluster
// not reachable yet) is logged and the server starts: FoundationDB's
// clients wait for their cluster.
func checkDatabase(db fdb.Database, log *slog.Logger) error {
	_, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		if tr, ok := rt.(fdb.Transaction); ok {
			if err := tr.Options().SetTimeout(5000); err != nil {
				return nil, err
			}
		}
		return rt.GetReadVersion().Get()
	})
	var fe fdb.Error
	if errors.As(err, &fe) && (fe.Code == 1515 || fe.Code == 2104) {
		return err
	}
	if err != nil {
		log.Warn("the database does not answer yet", slog.String("error", err.Error()))
	}
	return nil
}
