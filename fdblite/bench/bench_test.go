package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Key and value sizes of the loaded databases (~16-byte keys and values).
const (
	keySize   = 16
	valueSize = 16
	loadBatch = 10_000 // keys per transaction while loading (~320 KB)
)

// mvccWindow is FoundationDB's 5-second transaction lifetime: fdblite keeps
// old versions and conflict history this long before reclaiming them.
const mvccWindow = 5 * time.Second

func openDB(b *testing.B, name string) fdb.Database {
	b.Helper()
	db, err := fdblitetest.OpenDatabase("bench-" + name)
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// reportRate reports operations per second over the timed loop. After b.Loop
// returns false, b.N holds the number of iterations.
func reportRate(b *testing.B, unit string) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
}

// makeKey writes the i-th key of a loaded database into buf: "k" and 15
// decimal digits, so keys sort by i.
func makeKey(buf []byte, i int) fdb.Key {
	buf = append(buf[:0], 'k')
	s := strconv.Itoa(i)
	for range keySize - 1 - len(s) {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

func makeValue(i int) []byte {
	v := make([]byte, valueSize)
	binary.BigEndian.PutUint64(v, uint64(i))
	binary.BigEndian.PutUint64(v[8:], ^uint64(i))
	return v
}

func mustTransact(b *testing.B, db fdb.Database, f func(fdb.Transaction)) {
	b.Helper()
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		f(tr)
		return nil, nil
	}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOneGetTxn is a read-only transaction doing one point read
// (target: >= 200,000 txn/s on one goroutine).
func BenchmarkOneGetTxn(b *testing.B) {
	db := openDB(b, "one-get")
	key := fdb.Key("get/key")
	mustTransact(b, db, func(tr fdb.Transaction) { tr.Set(key, makeValue(1)) })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			return rt.Get(key).MustGet(), nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, "txn/s")
}

// BenchmarkOneSetCommit commits a transaction with one blind write
// (target: >= 100,000 commits/s on one goroutine).
func BenchmarkOneSetCommit(b *testing.B) {
	db := openDB(b, "one-set")
	key := fdb.Key("set/key")
	value := makeValue(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.Set(key, value)
			return nil, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, "commits/s")
}

// BenchmarkTenSetCommit commits a transaction with ten blind writes.
func BenchmarkTenSetCommit(b *testing.B) {
	db := openDB(b, "ten-set")
	var keys [10]fdb.Key
	for i := range keys {
		keys[i] = makeKey(nil, i)
	}
	value := makeValue(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			for _, k := range keys {
				tr.Set(k, value)
			}
			return nil, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, "commits/s")
}

// BenchmarkRangeRead100 is a read-only transaction reading 100 consecutive
// keys (target: under 30 µs).
func BenchmarkRangeRead100(b *testing.B) {
	const rows = 100
	db := openDB(b, "range")
	// 1,000 keys, so the range has neighbours on both sides.
	mustTransact(b, db, func(tr fdb.Transaction) {
		for i := range 1000 {
			tr.Set(makeKey(nil, i), makeValue(i))
		}
	})
	r := fdb.KeyRange{Begin: makeKey(nil, 400), End: makeKey(nil, 400+rows)}
	b.ReportAllocs()
	b.SetBytes(rows * (keySize + valueSize))
	for b.Loop() {
		v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			return rt.GetRange(r, fdb.RangeOptions{Limit: rows}).GetSliceWithError()
		})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(v.([]fdb.KeyValue)); n != rows {
			b.Fatalf("range read returned %d rows, want %d", n, rows)
		}
	}
	reportRate(b, "txn/s")
}

// BenchmarkWatchRoundTrip sets a watch in a committed transaction, changes
// the key from another transaction and waits for the watch to fire.
func BenchmarkWatchRoundTrip(b *testing.B) {
	db := openDB(b, "watch")
	key := fdb.Key("watch/key")
	one := make([]byte, 8)
	binary.LittleEndian.PutUint64(one, 1)
	mustTransact(b, db, func(tr fdb.Transaction) { tr.Add(key, one) })
	b.ReportAllocs()
	for b.Loop() {
		f, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			return tr.Watch(key), nil
		})
		if err != nil {
			b.Fatal(err)
		}
		mustTransact(b, db, func(tr fdb.Transaction) { tr.Add(key, one) })
		if err := f.(fdb.FutureNil).Get(); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, "round-trips/s")
}

// loaded is a database holding keys 0..n-1 (makeKey, makeValue).
type loaded struct {
	db     fdb.Database
	n      int
	before fdblitetest.Stats // stats of the empty database
	after  fdblitetest.Stats // once the load has aged past the MVCC window
	rss    int64             // growth of the process's anonymous RSS, or -1
}

var (
	loadMu sync.Mutex
	loads  = map[int]*loaded{}
)

// load returns a database with n keys, loading it on first use in the process
// (so BenchmarkPointGet and BenchmarkMemoryPerKey share the 1M-key load).
func load(b *testing.B, n int) *loaded {
	b.Helper()
	loadMu.Lock()
	defer loadMu.Unlock()
	if l, ok := loads[n]; ok {
		return l
	}
	db := openDB(b, fmt.Sprintf("load-%d", n))
	before, err := fdblitetest.ReadStats(db)
	if err != nil {
		b.Fatal(err)
	}
	rssBefore := rssAnon()
	start := time.Now()
	buf := make([]byte, 0, keySize)
	for lo := 0; lo < n; lo += loadBatch {
		hi := min(lo+loadBatch, n)
		mustTransact(b, db, func(tr fdb.Transaction) {
			for i := lo; i < hi; i++ {
				tr.Set(makeKey(buf, i), makeValue(i))
			}
		})
	}
	loadTime := time.Since(start)
	// Let the write-conflict history of the load age out of the 5-second
	// window (real time: the thing measured), then commit once so that
	// fdblite reclaims it, and measure.
	time.Sleep(mvccWindow + 500*time.Millisecond)
	mustTransact(b, db, func(tr fdb.Transaction) { tr.Set(makeKey(buf, 0), makeValue(0)) })
	after, err := fdblitetest.ReadStats(db)
	if err != nil {
		b.Fatal(err)
	}
	if after.Keys-before.Keys != int64(n) {
		b.Fatalf("stats report %d keys after loading %d", after.Keys-before.Keys, n)
	}
	b.Logf("loaded %d keys in %v (%.0f keys/s); stats %+v", n, loadTime.Round(time.Millisecond), float64(n)/loadTime.Seconds(), after)
	rss := int64(-1)
	if rssAfter := rssAnon(); rssBefore >= 0 && rssAfter >= 0 {
		rss = rssAfter - rssBefore
	}
	l := &loaded{db: db, n: n, before: before, after: after, rss: rss}
	loads[n] = l
	return l
}

// rssAnon returns the process's resident anonymous memory in bytes from
// /proc/self/status (Linux), or -1 if it cannot be read.
func rssAnon() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// BenchmarkPointGet reads one random key per transaction from databases of
// 10k and 1M keys; the cost should not depend on the size.
func BenchmarkPointGet(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"keys=10k", 10_000}, {"keys=1M", 1_000_000}} {
		b.Run(size.name, func(b *testing.B) {
			l := load(b, size.n)
			rng := rand.New(rand.NewPCG(1, 2))
			buf := make([]byte, 0, keySize)
			b.ReportAllocs()
			for b.Loop() {
				i := rng.IntN(l.n)
				key := makeKey(buf, i)
				v, err := l.db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
					return rt.Get(key).MustGet(), nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if !bytes.Equal(v.([]byte), makeValue(i)) {
					b.Fatalf("get %s = %x, want %x", key, v, makeValue(i))
				}
			}
			reportRate(b, "txn/s")
		})
	}
}

// BenchmarkMemoryPerKey loads 1M keys of 16 bytes with 16-byte values and
// reports fdblite's memory per key beyond the 32 key and value bytes
// (target: under 100 B/key). The timed loop only reads the stats key.
func BenchmarkMemoryPerKey(b *testing.B) {
	const n = 1_000_000
	l := load(b, n)
	for b.Loop() {
		if _, err := fdblitetest.ReadStats(l.db); err != nil {
			b.Fatal(err)
		}
	}
	heap := float64(l.after.HeapBytes-l.before.HeapBytes) / n
	b.ReportMetric(heap, "heap-B/key")
	b.ReportMetric(heap-(keySize+valueSize), "overhead-B/key")
	if l.rss >= 0 {
		// A cross-check independent of fdblite's own accounting: what the
		// load added to the process's resident anonymous memory.
		b.ReportMetric(float64(l.rss)/n-(keySize+valueSize), "rss-overhead-B/key")
	}
	b.ReportMetric(float64(l.after.Versions)/n, "versions/key")
	b.ReportMetric(float64(l.after.ConflictBoundaries), "conflict-boundaries")
}

// BenchmarkCommitShapes commits the transaction shapes fdyno's writes are
// made of, on 1 KB values over 100 keys, so that the cost of each
// operation a change stream adds (a read of the old value, a
// versionstamped record of 2 KB, an atomic add on a marker) shows beside
// a blind set.
func BenchmarkCommitShapes(b *testing.B) {
	db := openDB(b, "shapes")
	const keys = 100
	value := bytes.Repeat([]byte{'v'}, 1024)
	record := bytes.Repeat([]byte{'r'}, 2048)
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	stamped := func(i int) fdb.Key {
		// "s/" + 10-byte versionstamp + 2-byte order, offset at the end.
		k := append([]byte("s/"), make([]byte, 12)...)
		binary.BigEndian.PutUint16(k[12:], uint16(i))
		return append(k, 2, 0, 0, 0)
	}
	for _, tc := range []struct {
		name                    string
		get, set, stamp, atomic bool
	}{
		{"set", false, true, false, false},
		{"get-set", true, true, false, false},
		{"set-add", false, true, false, true},
		{"set-stamped", false, true, true, false},
		{"get-set-stamped-add", true, true, true, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				key := fdb.Key(fmt.Sprintf("shape/%s/%03d", tc.name, i%keys))
				mustTransact(b, db, func(tr fdb.Transaction) {
					if tc.get {
						tr.Get(key).MustGet()
					}
					if tc.set {
						tr.Set(key, value)
					}
					if tc.stamp {
						tr.SetVersionstampedKey(stamped(i), record)
					}
					if tc.atomic {
						tr.Add(fdb.Key("shape/marker"), one)
					}
				})
				i++
			}
		})
	}
}
