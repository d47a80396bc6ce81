package crashtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Failure injection: what a durable database does when its directory is
// not writable, its disk fills up or its file is corrupt. Each case runs
// in a child process (a process keeps a database open until it exits).

// envProbe names the child's job (probeMain).
const envProbe = "FDBLITE_PROBE"

// probeMain is the child of the failure tests. It prints one line per
// step: "OK", "ACK <i>", "ERR <code>".
func probeMain(mode, dir string) int {
	code := func(err error) string {
		var fe fdb.Error
		if errors.As(err, &fe) {
			return strconv.Itoa(fe.Code)
		}
		return "other: " + err.Error()
	}
	var db fdb.Database
	var err error
	if mode == "default" {
		// FDBLITE_DATA_DIR names the default database's directory.
		fdb.MustAPIVersion(fdblitetest.APIVersion)
		db, err = fdb.OpenDefault()
	} else {
		db, err = fdblitetest.OpenDir(dir)
	}
	if err != nil {
		fmt.Println("ERR", code(err))
		return 0
	}
	set := func(k string, v []byte) error {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.Set(fdb.Key(k), v)
			return nil, nil
		})
		return err
	}
	value := make([]byte, 2000)
	switch mode {
	case "has-probe": // the key "probe" is there
		v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			return rt.Get(fdb.Key("probe")).Get()
		})
		if err != nil || v.([]byte) == nil {
			fmt.Println("ERR missing", err)
			return 0
		}
		fmt.Println("OK")
	case "open", "default": // open and commit once
		if err := set("probe", []byte("x")); err != nil {
			fmt.Println("ERR", code(err))
			return 0
		}
		fmt.Println("OK")
	case "fill": // commit until the disk is full, then once more
		for i := 0; i < 100000; i++ {
			if err := set(fmt.Sprintf("k%06d", i), value); err != nil {
				fmt.Println("ERR", code(err))
				break
			}
			fmt.Println("ACK", i)
		}
		if err := set("after", []byte("x")); err != nil {
			fmt.Println("ERR", code(err))
		}
		v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			return rt.Get(fdb.Key("k000000")).Get()
		})
		if err != nil || len(v.([]byte)) != len(value) {
			fmt.Println("ERR read", err)
			return 0
		}
		fmt.Println("OK")
	case "check": // every k<i> the fill acknowledged, then one more commit
		n, _ := strconv.Atoi(os.Getenv("FDBLITE_PROBE_N"))
		kvs, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			return rt.GetRange(fdb.KeyRange{Begin: fdb.Key("k"), End: fdb.Key("l")}, fdb.RangeOptions{}).GetSliceWithError()
		})
		if err != nil {
			fmt.Println("ERR", code(err))
			return 0
		}
		if got := len(kvs.([]fdb.KeyValue)); got != n {
			fmt.Println("ERR count", got)
			return 0
		}
		if err := set("after", []byte("x")); err != nil {
			fmt.Println("ERR", code(err))
			return 0
		}
		fmt.Println("OK")
	}
	return 0
}

// probe runs a child job on dir and returns its output lines.
func probe(t *testing.T, mode, dir string, cred *syscall.Credential, env ...string) []string {
	t.Helper()
	bin := os.Args[0]
	if cred != nil {
		// Another user must be able to run the test binary: copy it where
		// everyone can read it.
		d, err := os.MkdirTemp("", "fdblite-probe-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		os.Chmod(d, 0o755)
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(d, "probe")
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		// The binary finds libfdb_c.so through its run path, a directory
		// of the checkout, which the other user cannot enter when the
		// checkout lives in a private home or temporary directory. Give
		// the child a copy beside the binary; LD_LIBRARY_PATH is searched
		// before the run path.
		lib := loadedClientLibrary(t)
		b, err = os.ReadFile(lib)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, filepath.Base(lib)), b, 0o755); err != nil {
			t.Fatal(err)
		}
		env = append([]string{"LD_LIBRARY_PATH=" + d}, env...)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), envProbe+"="+mode, envDir+"="+dir), env...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe %s: %v\n%s", mode, err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Logf("probe %s: %d lines, last %q; stderr: %s", mode, len(lines), lines[len(lines)-1], strings.TrimSpace(stderr.String()))
	return lines
}

// loadedClientLibrary is the path of the libfdb_c this process loaded,
// read from /proc/self/maps.
func loadedClientLibrary(t *testing.T) string {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && strings.HasPrefix(filepath.Base(f[5]), "libfdb_c.so") {
			return f[5]
		}
	}
	t.Fatal("libfdb_c.so is not among this process's mappings")
	return ""
}

// nobody is the credential of an unprivileged user, for tests of
// permissions (root ignores them). Without root, tests run as themselves.
func nobody(t *testing.T) *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	return &syscall.Credential{Uid: 65534, Gid: 65534}
}

// sharedTempDir is a temporary directory another user may enter, removed
// at the end of the test.
func sharedTempDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "fdblite-failure-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(d)
	})
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// A data directory the process may not write: file_not_writable (1514) at
// open, with the reason on stderr.
func TestOpenPermissionDenied(t *testing.T) {
	parent := sharedTempDir(t)
	dir := filepath.Join(parent, "data")
	if err := os.Mkdir(dir, 0o555); err != nil { // read-only for everyone; owned by us
		t.Fatal(err)
	}
	cred := nobody(t)
	if cred == nil {
		// Not root: the directory is ours; take our own write permission away.
		defer os.Chmod(dir, 0o755)
	}
	if got := probe(t, "open", dir, cred); got[0] != "ERR 1514" {
		t.Errorf("open of a read-only directory: %q, want ERR 1514", got)
	}
	// A data directory that does not exist under a directory we may not
	// write: the same.
	if got := probe(t, "open", filepath.Join(dir, "sub"), cred); got[0] != "ERR 1514" {
		t.Errorf("create under a read-only directory: %q, want ERR 1514", got)
	}
}

// An existing database whose files became read-only: 1514 at open, and the
// data is untouched (it opens again once writable).
func TestOpenReadOnlyDatabase(t *testing.T) {
	parent := sharedTempDir(t)
	dir := filepath.Join(parent, "data")
	if got := probe(t, "open", dir, nil); got[0] != "OK" {
		t.Fatalf("first open: %q", got)
	}
	cred := nobody(t)
	if cred != nil {
		// Owned by root, readable by nobody: read-only to the child.
		os.Chmod(dir, 0o755)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.Chmod(filepath.Join(dir, e.Name()), 0o644)
		}
	} else {
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
	}
	if got := probe(t, "open", dir, cred); got[0] != "ERR 1514" {
		t.Errorf("open of a read-only database: %q, want ERR 1514", got)
	}
	if cred == nil {
		os.Chmod(dir, 0o755)
	}
	// The lock file writable, the database files not: SQLite refuses.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		mode := os.FileMode(0o444)
		if e.Name() == "LOCK" {
			mode = 0o666
		}
		os.Chmod(filepath.Join(dir, e.Name()), mode)
	}
	if got := probe(t, "open", dir, cred); got[0] != "ERR 1514" {
		t.Errorf("open of read-only database files: %q, want ERR 1514", got)
	}
	for _, e := range entries {
		os.Chmod(filepath.Join(dir, e.Name()), 0o644)
	}
	if got := probe(t, "open", dir, nil); got[0] != "OK" {
		t.Errorf("open once writable again: %q", got)
	}
}

// A full disk (the database capped by SQLite's max_page_count, which fails
// exactly as a full disk does): the commit that does not fit fails with
// io_error (1510), not retried; every later commit fails the same; reads
// go on; after a restart with space, every acknowledged commit is there and
// commits work again.
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	lines := probe(t, "fill", dir, nil, "FDBLITE_DURABLE_MAX_PAGES=200")
	acked := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "ACK ") {
			acked++
		}
	}
	tail := lines[acked:]
	if want := []string{"ERR 1510", "ERR 1510", "OK"}; strings.Join(tail, "|") != strings.Join(want, "|") {
		t.Errorf("after %d commits: %q, want %q", acked, tail, want)
	}
	if acked < 10 {
		t.Errorf("only %d commits before the disk was full", acked)
	}
	if got := probe(t, "check", dir, nil, "FDBLITE_PROBE_N="+strconv.Itoa(acked)); got[0] != "OK" {
		t.Errorf("after a restart with space: %q, want OK", got)
	}
}

// A database file that is not SQLite's (overwritten, or another program's
// file): file_corrupt (1522) at open, and the file is left as it was.
func TestOpenCorruptFile(t *testing.T) {
	dir := t.TempDir()
	if got := probe(t, "open", dir, nil); got[0] != "OK" {
		t.Fatalf("first open: %q", got)
	}
	for _, name := range []string{"fdblite.sqlite-wal", "fdblite.sqlite-shm"} {
		os.Remove(filepath.Join(dir, name))
	}
	garbage := []byte(strings.Repeat("not a database ", 1000))
	path := filepath.Join(dir, "fdblite.sqlite")
	if err := os.WriteFile(path, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := probe(t, "open", dir, nil); got[0] != "ERR 1522" {
		t.Errorf("open of a corrupt file: %q, want ERR 1522", got)
	}
	if b, _ := os.ReadFile(path); string(b) != string(garbage) {
		t.Errorf("the corrupt file was changed")
	}
}

// FDBLITE_DATA_DIR makes the default database durable in that directory.
func TestDataDirEnvironment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if got := probe(t, "default", "", nil, "FDBLITE_DATA_DIR="+dir); got[0] != "OK" {
		t.Fatalf("commit on the default database: %q", got)
	}
	if got := probe(t, "has-probe", dir, nil); got[0] != "OK" {
		t.Errorf("after a restart: %q, want the default database's commit", got)
	}
}
