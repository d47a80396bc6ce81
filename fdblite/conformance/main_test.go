package conformance

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
)

// db is the default database, shared by every test; tests isolate themselves
// by key prefix (newSpace), so the suite also runs against a real cluster.
var db fdb.Database

func TestMain(m *testing.M) {
	fdb.MustAPIVersion(730)
	db = fdb.MustOpenDefault()
	os.Exit(m.Run())
}

// realCluster reports whether the suite runs against a real FoundationDB
// cluster rather than fdblite.
func realCluster() bool { return os.Getenv("FDB_CONFORMANCE_REAL_CLUSTER") != "" }

// fdbliteOnly skips tests of fdblite-only features on a real cluster.
func fdbliteOnly(t testing.TB) {
	t.Helper()
	if realCluster() {
		t.Skip("fdblite-only feature (FDB_CONFORMANCE_REAL_CLUSTER is set)")
	}
}

// space is a test's private key prefix in the default database.
type space struct {
	prefix []byte
	ss     subspace.Subspace
}

var spaceSeq atomic.Int64

// newSpace returns a key prefix private to t, empty when returned and cleared
// again when the test ends.
func newSpace(t testing.TB) space {
	t.Helper()
	ss := subspace.Sub("fdblite-conformance", t.Name(), spaceSeq.Add(1))
	s := space{prefix: ss.Bytes(), ss: ss}
	clear := func() {
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.ClearRange(s.all())
			return nil, nil
		}); err != nil {
			t.Errorf("clearing %s: %v", fdb.Printable(s.prefix), err)
		}
	}
	clear()
	t.Cleanup(clear)
	return s
}

// k returns the raw key prefix+name.
func (s space) k(name string) fdb.Key {
	return fdb.Key(append(append([]byte{}, s.prefix...), name...))
}

// kr returns [prefix+a, prefix+b).
func (s space) kr(a, b string) fdb.KeyRange { return fdb.KeyRange{Begin: s.k(a), End: s.k(b)} }

// all is the whole prefix.
func (s space) all() fdb.KeyRange {
	r, err := fdb.PrefixRange(s.prefix)
	if err != nil {
		panic(err)
	}
	return r
}

// rel strips the prefix for readable comparisons.
func (s space) rel(k fdb.Key) string {
	if !bytes.HasPrefix(k, s.prefix) {
		return "<outside:" + fdb.Printable(k) + ">"
	}
	return string(k[len(s.prefix):])
}

// codeOf returns the FoundationDB error code in err's chain, 0 if none.
func codeOf(err error) int {
	var e fdb.Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return -1
	}
	return 0
}

// wantCode fails the test unless err carries FoundationDB error code want
// (0 = no error).
func wantCode(t testing.TB, what string, err error, want int) {
	t.Helper()
	if got := codeOf(err); got != want {
		t.Errorf("%s: got error %v (code %d), want code %d (%s)", what, err, got, want, fdb.Error{Code: want})
	}
}

// newTr creates a transaction or fails the test.
func newTr(t testing.TB) fdb.Transaction {
	t.Helper()
	return newTrOn(t, db)
}

func newTrOn(t testing.TB, d fdb.Database) fdb.Transaction {
	t.Helper()
	tr, err := d.CreateTransaction()
	if err != nil {
		t.Fatalf("CreateTransaction: %v", err)
	}
	return tr
}

// mustTransact runs f in db.Transact and fails the test on error.
func mustTransact(t testing.TB, f func(tr fdb.Transaction)) {
	t.Helper()
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		f(tr)
		return nil, nil
	}); err != nil {
		t.Fatalf("Transact: %v", err)
	}
}

// put commits the given key/value pairs (nil value = clear) in one transaction.
func put(t testing.TB, kvs ...any) {
	t.Helper()
	if len(kvs)%2 != 0 {
		t.Fatalf("put: odd argument count")
	}
	mustTransact(t, func(tr fdb.Transaction) {
		for i := 0; i < len(kvs); i += 2 {
			k := kvs[i].(fdb.Key)
			switch v := kvs[i+1].(type) {
			case nil:
				tr.Clear(k)
			case []byte:
				if v == nil {
					tr.Clear(k)
				} else {
					tr.Set(k, v)
				}
			case string:
				tr.Set(k, []byte(v))
			default:
				panic(fmt.Sprintf("put: value type %T", v))
			}
		}
	})
}

// getCommitted reads key in a fresh transaction.
func getCommitted(t testing.TB, key fdb.Key) []byte {
	t.Helper()
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(key).Get()
	})
	if err != nil {
		t.Fatalf("Get(%s): %v", fdb.Printable(key), err)
	}
	return v.([]byte)
}

// rangeCommitted reads r in a fresh transaction.
func rangeCommitted(t testing.TB, r fdb.Range, opt fdb.RangeOptions) []fdb.KeyValue {
	t.Helper()
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.GetRange(r, opt).GetSliceWithError()
	})
	if err != nil {
		t.Fatalf("GetRange: %v", err)
	}
	return v.([]fdb.KeyValue)
}

// kvStrings renders a range result relative to s as "k=v" strings.
func (s space) kvStrings(kvs []fdb.KeyValue) []string {
	out := []string{}
	for _, kv := range kvs {
		out = append(out, s.rel(kv.Key)+"="+string(kv.Value))
	}
	return out
}

// keyStrings renders the keys of a range result relative to s.
func (s space) keyStrings(kvs []fdb.KeyValue) []string {
	out := []string{}
	for _, kv := range kvs {
		out = append(out, s.rel(kv.Key))
	}
	return out
}

// wait waits up to d for f; ready reports whether it completed.
func wait(f fdb.FutureNil, d time.Duration) (err error, ready bool) {
	done := make(chan error, 1)
	go func() { done <- f.Get() }()
	select {
	case err := <-done:
		return err, true
	case <-time.After(d):
		return nil, false
	}
}

// le64 encodes v as an 8-byte little-endian integer (FoundationDB's atomic
// ADD operand format).
func le64(v int64) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, uint64(v))
	return b
}

// fromLE64 decodes a little-endian integer of up to 8 bytes (absent = 0).
func fromLE64(b []byte) int64 {
	var buf [8]byte
	copy(buf[:], b)
	return int64(binary.LittleEndian.Uint64(buf[:]))
}

// printable renders a possibly-nil value for messages.
func printable(v []byte) string {
	if v == nil {
		return "<absent>"
	}
	return fdb.Printable(v)
}

// namedDB opens (fdblite-only) an in-memory database named by a
// cluster-file path unique to this test binary and name, and empties it:
// the database outlives the test (as a cluster would), so a repeated run
// (-count) must not see the last run's data.
func namedDB(t testing.TB, name string) fdb.Database {
	t.Helper()
	fdbliteOnly(t)
	path := namedPath(name)
	d, err := fdb.OpenDatabase(path)
	if err != nil {
		t.Fatalf("OpenDatabase(%q): %v", path, err)
	}
	if _, err := d.Transact(func(tr fdb.Transaction) (any, error) {
		tr.ClearRange(fdb.KeyRange{Begin: fdb.Key(""), End: fdb.Key("\xff")})
		return nil, nil
	}); err != nil {
		t.Fatalf("emptying %q: %v", path, err)
	}
	return d
}

// namedPath is the name (fdblite's fdblite-memory: form, accepted as a
// cluster-file path or a connection string) of the test database called name.
func namedPath(name string) string {
	return fmt.Sprintf("fdblite-memory:conformance-%d-%s", os.Getpid(), name)
}

// faultsKey is fdblite's fault-injection configuration special key.
var faultsKey = fdb.Key("\xff\xff/fdblite/faults")

// setFaults configures fdblite's fault injection on d.
func setFaults(t testing.TB, d fdb.Database, config string) {
	t.Helper()
	tr := newTrOn(t, d)
	if err := tr.Options().SetSpecialKeySpaceEnableWrites(); err != nil {
		t.Fatalf("SetSpecialKeySpaceEnableWrites: %v", err)
	}
	tr.Set(faultsKey, []byte(config))
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("setting faults %q: %v", config, err)
	}
}

// tupleKeys unpacks keys of kvs relative to ss for messages.
func tupleKeys(ss subspace.Subspace, kvs []fdb.KeyValue) []string {
	out := []string{}
	for _, kv := range kvs {
		tup, err := ss.Unpack(kv.Key)
		if err != nil {
			out = append(out, "!"+fdb.Printable(kv.Key))
			continue
		}
		out = append(out, tuple.Tuple(tup).String())
	}
	return out
}
