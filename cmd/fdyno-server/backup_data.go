package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/fdyno/fdyno/fdblite/datadir"
)

// backupDataUsage is the subcommand's synopsis.
const backupDataUsage = "usage: fdyno-server backup-data [--data-dir DIR] DEST"

// backupData runs `fdyno-server backup-data [--data-dir DIR] DEST`: a
// consistent copy of the embedded database's data directory, taken while
// a server serves it (or not), into DEST, a new or empty directory. The
// copy holds every write acknowledged before the command started and is
// one moment of the database; a server started with --data-dir DEST
// serves it. A cluster is backed up by FoundationDB's own backup.
func backupData(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup-data", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", DefaultDataDir, "data directory of the embedded database to copy (it may be serving)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, backupDataUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		return errors.New(backupDataUsage)
	}
	start := time.Now()
	if err := datadir.Copy(*dataDir, fs.Arg(0)); err != nil {
		if errors.Is(err, datadir.ErrNotFdblite) {
			return errors.New("backup-data copies the embedded database's --data-dir; this fdyno-server runs on FoundationDB's client library: back up a cluster with FoundationDB's backup (fdbbackup)")
		}
		return err
	}
	fmt.Fprintf(stdout, "copied %s to %s in %v; serve it with --data-dir %s\n", *dataDir, fs.Arg(0), time.Since(start).Round(time.Millisecond), fs.Arg(0))
	return nil
}
