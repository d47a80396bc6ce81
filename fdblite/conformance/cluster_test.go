package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Cluster files, the connection string, and the cluster metadata a
// one-process cluster can answer, as FoundationDB documents them: a cluster
// file holds `description:ID@IP:PORT,...`; the connection string identifies
// the cluster. A cluster file that is missing (no_cluster_file_found, 1515),
// empty or malformed (connection_string_invalid, 2104) does not fail
// OpenDatabase in FoundationDB 7.3: its client builds the database anyway
// and keeps the error in it, and every transaction of that database fails
// with it (ThreadSafeDatabase and ReadYourWritesTransaction in
// FoundationDB's fdbclient).

// connectionString matches a connection string's shape.
var connectionString = regexp.MustCompile(`^[A-Za-z0-9_]+:[A-Za-z0-9]+@[^,@\s]+:[0-9]+(:tls)?(,[^,@\s]+:[0-9]+(:tls)?)*$`)

// writeClusterFile writes content to a new cluster file and returns its path.
func writeClusterFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantOpenError checks that d, a database that opened, fails its
// operations with code: Transact and ReadTransact return it, and so does
// each future of a transaction, after a reset too.
func wantOpenError(t *testing.T, what string, d fdb.Database, code int) {
	t.Helper()
	k := fdb.Key("cluster-file-errors")
	_, err := d.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(k, []byte("v")) // a write alone: the commit reports it
		return nil, nil
	})
	wantCode(t, what+": Transact", err, code)
	_, err = d.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(k).Get()
	})
	wantCode(t, what+": ReadTransact", err, code)
	tr, err := d.CreateTransaction()
	if err != nil {
		t.Fatalf("%s: CreateTransaction: %v (creating a transaction succeeds)", what, err)
	}
	defer tr.Cancel()
	_, err = tr.GetReadVersion().Get()
	wantCode(t, what+": GetReadVersion", err, code)
	_, err = tr.GetRange(fdb.KeyRange{Begin: k, End: fdb.Key("z")}, fdb.RangeOptions{}).GetSliceWithError()
	wantCode(t, what+": GetRange", err, code)
	tr.Reset()
	_, err = tr.Get(k).Get()
	wantCode(t, what+": Get after Reset", err, code)
	wantCode(t, what+": Commit", tr.Commit().Get(), code)
}

func TestClusterFileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.cluster")
	d, err := fdb.OpenDatabase(missing)
	if err != nil {
		t.Fatalf("OpenDatabase(missing file): %v, want a database (its operations report 1515)", err)
	}
	wantOpenError(t, "missing file", d, 1515)
	d, err = fdb.OpenDatabase(t.TempDir()) // a directory is no cluster file
	if err != nil {
		t.Fatalf("OpenDatabase(directory): %v", err)
	}
	wantOpenError(t, "directory", d, 1515)
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		{"blank", " \n\t\n"},
		{"comment only", "# nothing here\n"},
		{"no at sign", "desc_id_127.0.0.1:4500"},
		{"no ID", "desc@127.0.0.1:4500"},
		{"no coordinators", "desc:id@"},
		{"no port", "desc:id@127.0.0.1"},
		{"port zero", "desc:id@127.0.0.1:0"},
		{"bad description", "de-sc:id@127.0.0.1:4500"},
		{"bad ID", "desc:i.d@127.0.0.1:4500"},
		{"duplicate coordinator", "desc:id@127.0.0.1:4500,127.0.0.1:4500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := fdb.OpenDatabase(writeClusterFile(t, "fdb.cluster", tc.content))
			if err != nil {
				t.Fatalf("OpenDatabase: %v, want a database (its operations report 2104)", err)
			}
			wantOpenError(t, "cluster file", d, 2104)
			if tc.content != "" {
				d, err = fdb.OpenWithConnectionString(tc.content)
				if err != nil {
					t.Fatalf("OpenWithConnectionString: %v, want a database (its operations report 2104)", err)
				}
				defer d.Close()
				wantOpenError(t, "connection string", d, 2104)
			}
		})
	}
}

// TestMainThreadBusyness: FoundationDB's client reports how busy its network
// thread is, refreshed about once a second: 0 idle, 1 saturated. The thread
// has work of its own while the network runs, so after a second the figure
// is above 0 even if no transaction runs, and never above 1.
func TestMainThreadBusyness(t *testing.T) {
	deadline := time.Now().Add(5 * time.Second)
	var b float64
	for {
		var err error
		if b, err = mainThreadBusyness(); err != nil {
			t.Fatal(err)
		}
		if b > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !(b > 0 && b <= 1) {
		t.Errorf("fdb_database_get_main_thread_busyness = %v after the network ran for seconds, want in (0, 1]", b)
	}
}

func TestClusterFileCopiesReachTheSameData(t *testing.T) {
	fdbliteOnly(t) // needs clusters of its own
	const cs = "conformance:c0p1es@127.0.0.1:4500"
	a := writeClusterFile(t, "a.cluster", cs+"\n")
	b := writeClusterFile(t, "b.cluster", "# a copy\n"+cs+"\n")
	other := writeClusterFile(t, "c.cluster", "conformance:0ther@127.0.0.1:4500\n")
	open := func(p string) fdb.Database {
		d, err := fdb.OpenDatabase(p)
		if err != nil {
			t.Fatalf("OpenDatabase(%s): %v", p, err)
		}
		return d
	}
	da, db2, dc := open(a), open(b), open(other)
	k := fdb.Key("cluster-copies-key")
	if _, err := da.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(k, []byte("v"))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	get := func(d fdb.Database, key fdb.Key, system bool) []byte {
		v, err := d.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			if system {
				if err := rt.(fdb.Transaction).Options().SetReadSystemKeys(); err != nil {
					return nil, err
				}
			}
			return rt.Get(key).Get()
		})
		if err != nil {
			t.Fatalf("Get(%s): %v", printable(key), err)
		}
		return v.([]byte)
	}
	if got := get(db2, k, false); string(got) != "v" {
		t.Errorf("copy of the cluster file: Get = %s, want v", printable(got))
	}
	if got := get(dc, k, false); got != nil {
		t.Errorf("another connection string: Get = %s, want <absent>", printable(got))
	}
	dcs, err := fdb.OpenWithConnectionString(cs)
	if err != nil {
		t.Fatal(err)
	}
	defer dcs.Close()
	if got := get(dcs, k, false); string(got) != "v" {
		t.Errorf("OpenWithConnectionString: Get = %s, want v", printable(got))
	}
	if got := get(db2, fdb.Key("\xff/coordinators"), true); string(got) != cs {
		t.Errorf(`\xff/coordinators = %s, want %s`, printable(got), cs)
	}
}

func TestCoordinatorsKey(t *testing.T) {
	tr := newTr(t)
	defer tr.Cancel()
	_, err := tr.Get(fdb.Key("\xff/coordinators")).Get()
	wantCode(t, "Get without system-key access", err, 2004)
	tr2 := newTr(t)
	defer tr2.Cancel()
	must(tr2.Options().SetReadSystemKeys())
	v, err := tr2.Get(fdb.Key("\xff/coordinators")).Get()
	if err != nil {
		t.Fatal(err)
	}
	if !connectionString.Match(v) {
		t.Errorf(`\xff/coordinators = %s, not a connection string`, printable(v))
	}
}

func TestLocalityGetAddressesForKey(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	defer tr.Cancel()
	addrs, err := tr.LocalityGetAddressesForKey(s.k("any")).Get()
	if err != nil {
		t.Fatal(err)
	}
	if len(addrs) == 0 {
		t.Fatal("no addresses")
	}
	hostPort := regexp.MustCompile(`^\S+:[0-9]+$`) // ports since API version 630
	for _, a := range addrs {
		if !hostPort.MatchString(a) {
			t.Errorf("address %q is not host:port", a)
		}
	}
}

// Under read-your-writes a read conflict on a key the transaction itself
// set is no conflict: what it reads there is its own write, whatever others
// commit. Without read-your-writes, or after an atomic operation (which
// depends on the stored value), the conflict stays.
func TestAddReadConflictOverOwnWrites(t *testing.T) {
	s := newSpace(t)
	own, other := s.k("own"), s.k("other")
	for _, tc := range []struct {
		name     string
		ryw      bool
		atomic   bool
		conflict fdb.KeyRange // zero: AddReadConflictKey(own)
		write    fdb.Key
		want     int
	}{
		{"own key", true, false, fdb.KeyRange{}, own, 0},
		{"range around own key, write there", true, false, s.all(), own, 0},
		{"range around own key, write elsewhere", true, false, s.all(), other, 1020},
		{"atomic op on own key", true, true, fdb.KeyRange{}, own, 1020},
		{"read your writes disabled", false, false, fdb.KeyRange{}, own, 1020},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t1 := newTr(t)
			defer t1.Cancel()
			if !tc.ryw {
				must(t1.Options().SetReadYourWritesDisable())
			}
			if _, err := t1.GetReadVersion().Get(); err != nil { // before the other commit
				t.Fatal(err)
			}
			if tc.atomic {
				t1.Add(own, le64(1))
			} else {
				t1.Set(own, []byte("mine"))
			}
			if tc.conflict.Begin == nil {
				must(t1.AddReadConflictKey(own))
			} else {
				must(t1.AddReadConflictRange(tc.conflict))
			}
			put(t, tc.write, "theirs")
			wantCode(t, "commit", t1.Commit().Get(), tc.want)
		})
	}
}
