package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Durable mode beyond RAM (docs/durable-disk.md): a durable database far
// larger than its page cache. A child process loads it and exits without
// closing (as a kill would leave it: the log holds the last seconds of
// writes); a second child restarts on it and reads; a third restarts on
// the state the second left. Each child reports its RSS (from
// /proc/self/status) and its latencies; the parent prints them.
//
//	FDBLITE_BENCH_DISK_KEYS=1000000 FDBLITE_CACHE_BYTES=67108864 \
//	  go test -run '^$' -bench DurableDisk -benchtime 1x ./fdblite/bench
const (
	envDiskDir      = "FDBLITE_BENCH_DISK_DIR"
	envDiskMode     = "FDBLITE_BENCH_DISK_MODE"
	envDiskKeys     = "FDBLITE_BENCH_DISK_KEYS"
	envDiskBaseline = "FDBLITE_BENCH_DISK_BASELINE"
	envDiskCold     = "FDBLITE_BENCH_DISK_COLD"
	diskValue       = 1000
)

// rssMB reads the process's resident set (VmRSS) and its peak (VmHWM).
func rssMB() (now, peak float64) {
	data, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			now = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return now, peak
}

// percentiles formats the p50 and p99 of ds in microseconds.
func percentiles(ds []time.Duration) string {
	slices.Sort(ds)
	us := func(q float64) float64 {
		return float64(ds[int(q*float64(len(ds)-1))].Nanoseconds()) / 1000
	}
	return fmt.Sprintf("p50 %.1f us p99 %.1f us", us(0.50), us(0.99))
}

// zipfS is the skew of the Zipfian key choice: rank k is drawn with
// probability proportional to 1/k^s. YCSB's Zipfian constant is 0.99; Go's
// generator needs s > 1, and 1.01 is the closest to it.
const zipfS = 1.01

// zipfKeys draws key indexes in [0, keys) with a Zipfian skew, the ranks
// scattered over the key space (YCSB's "scrambled Zipfian"), so the hot
// keys are not neighbours: rank k is key (k * p) mod keys for a prime p
// that does not divide keys, a permutation.
func zipfKeys(r *rand.Rand, keys int) func() int {
	z := rand.NewZipf(r, zipfS, 1, uint64(keys-1))
	const p = 1_000_000_007
	return func() int { return int((z.Uint64() * p) % uint64(keys)) }
}

// readFigures times point reads (uniform over all keys, Zipfian, then over
// a hot set of 1,000 keys read before) and 100-row range reads (uniform
// and Zipfian starts).
func readFigures(t testing.TB, db fdb.Database, keys int, emit func(string, ...any)) {
	r := rand.New(rand.NewPCG(1, 2))
	zipf := zipfKeys(r, keys)
	buf := make([]byte, 0, keySize)
	get := func(i int) time.Duration {
		start := time.Now()
		v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			return rt.Get(makeKey(buf, i)).Get()
		})
		d := time.Since(start)
		if err != nil || len(v.([]byte)) != diskValue {
			t.Fatalf("get %d: %v (%d bytes)", i, err, len(v.([]byte)))
		}
		return d
	}
	const n = 20000
	var uniform, zipfian, hot, ranges, zipfRanges []time.Duration
	for range n {
		uniform = append(uniform, get(r.IntN(keys)))
	}
	for range n {
		zipfian = append(zipfian, get(zipf()))
	}
	hotKeys := make([]int, 1000)
	for i := range hotKeys {
		hotKeys[i] = r.IntN(keys)
		get(hotKeys[i])
	}
	for range n {
		hot = append(hot, get(hotKeys[r.IntN(len(hotKeys))]))
	}
	rangeRead := func(i int) time.Duration {
		b := makeKey(buf, i)
		start := time.Now()
		rows, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			return rt.GetRange(fdb.KeyRange{Begin: b, End: fdb.Key("l")}, fdb.RangeOptions{Limit: 100}).GetSliceWithError()
		})
		d := time.Since(start)
		if err != nil || len(rows.([]fdb.KeyValue)) == 0 {
			t.Fatalf("range: %v", err)
		}
		return d
	}
	for range 2000 {
		ranges = append(ranges, rangeRead(r.IntN(keys)))
	}
	for range 2000 {
		zipfRanges = append(zipfRanges, rangeRead(zipf()))
	}
	emit("uniform point read: %s", percentiles(uniform))
	emit("Zipfian point read (s=%.2f): %s", zipfS, percentiles(zipfian))
	emit("hot point read: %s", percentiles(hot))
	emit("100-row range read: %s", percentiles(ranges))
	emit("Zipfian 100-row range read: %s", percentiles(zipfRanges))
}

// commitKeys is the size of the small durable database that commits on
// the large one are compared with.
const commitKeys = 100_000

// commitFigures compares commit throughput on the large database (big,
// keys keys) with a small durable one (commitKeys keys) it loads first:
// each commit overwrites one uniformly chosen existing key with a new
// 1,000-byte value, so the apply step updates rows all over the key table.
// The two alternate, 5 s at a time, five rounds each for 1 and for 64
// writers, so both see the same load on a shared machine; the figures are
// each round's and their medians.
func commitFigures(t *testing.T, big fdb.Database, keys int, emit func(string, ...any)) {
	small, err := fdblitetest.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	value := make([]byte, diskValue)
	buf := make([]byte, 0, keySize)
	for i := 0; i < commitKeys; i += 5000 {
		if _, err := small.Transact(func(tr fdb.Transaction) (any, error) {
			for j := i; j < min(i+5000, commitKeys); j++ {
				tr.Set(makeKey(buf, j), value)
			}
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// measure runs writers for 5 s on db (n keys) and returns their
	// commits per second; it adds every commit's latency to lat.
	measure := func(db fdb.Database, n, writers int, lat *[]time.Duration) float64 {
		var mu sync.Mutex
		stop := time.Now().Add(5 * time.Second)
		var wg sync.WaitGroup
		done := 0
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), uint64(n)))
				buf := make([]byte, 0, keySize)
				v := make([]byte, diskValue)
				var mine []time.Duration
				for time.Now().Before(stop) {
					k := makeKey(buf, r.IntN(n))
					v[0]++
					t0 := time.Now()
					if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
						tr.Set(k, v)
						return nil, nil
					}); err != nil {
						t.Error(err)
						return
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				defer mu.Unlock()
				*lat = append(*lat, mine...)
				done += len(mine)
			}()
		}
		wg.Wait()
		return float64(done) / 5
	}
	for _, writers := range []int{1, 64} {
		var onSmall, onBig []float64
		var latSmall, latBig []time.Duration
		for range 5 {
			onSmall = append(onSmall, measure(small, commitKeys, writers, &latSmall))
			onBig = append(onBig, measure(big, keys, writers, &latBig))
		}
		emit("commits/s with %d writer(s): %d keys %s; %d keys %s", writers,
			commitKeys, rounds(onSmall), keys, rounds(onBig))
		emit("commit latency with %d writer(s): %d keys %s; %d keys %s", writers,
			commitKeys, tail(latSmall), keys, tail(latBig))
	}
}

// tail formats the 50th, 99th and 99.9th percentiles of ds and its
// maximum.
func tail(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[int(q*float64(len(ds)-1))] }
	return fmt.Sprintf("p50 %v p99 %v p99.9 %v max %v", at(0.5).Round(time.Microsecond),
		at(0.99).Round(time.Microsecond), at(0.999).Round(time.Microsecond), ds[len(ds)-1].Round(time.Microsecond))
}

// rounds formats measurements and their median.
func rounds(xs []float64) string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprintf("%.0f", x))
	}
	m := slices.Clone(xs)
	slices.Sort(m)
	return fmt.Sprintf("%s (median %.0f)", strings.Join(out, " "), m[len(m)/2])
}

// TestDiskChild is BenchmarkDurableDisk's child; skipped otherwise.
func TestDiskChild(t *testing.T) {
	dir := os.Getenv(envDiskDir)
	if dir == "" {
		t.Skip("the child of BenchmarkDurableDisk")
	}
	keys, _ := strconv.Atoi(os.Getenv(envDiskKeys))
	emit := func(format string, args ...any) { fmt.Printf("FIG "+format+"\n", args...) }
	start := time.Now()
	db, err := fdblitetest.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, keySize)
	if os.Getenv(envDiskMode) == "load" {
		value := make([]byte, diskValue)
		for i := 0; i < keys; i += 5000 {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				for j := i; j < min(i+5000, keys); j++ {
					tr.Set(makeKey(buf, j), value)
				}
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		secs := time.Since(start).Seconds()
		_, peak := rssMB()
		emit("load: %d keys in %.1f s (%.0f keys/s, %.1f MB/s), peak RSS %.0f MB", keys, secs,
			float64(keys)/secs, float64(keys)*(keySize+diskValue)/secs/(1<<20), peak)
		return // no close: the log keeps the last seconds of writes
	}
	if os.Getenv(envDiskMode) == "commit" {
		commitFigures(t, db, keys, emit)
		return
	}
	if _, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(makeKey(buf, keys/2)).Get()
	}); err != nil {
		t.Fatal(err)
	}
	now, _ := rssMB()
	stats, _ := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(fdblitetest.StatsKey).Get()
	})
	emit("restart: first answer %.3f s after open began (%s), RSS %.0f MB", time.Since(start).Seconds(),
		statField(string(stats.([]byte)), "recovered_commits", "loaded_keys"), now)
	readFigures(t, db, keys, emit)
	now, peak := rssMB()
	emit("after the reads: RSS %.0f MB, peak %.0f MB", now, peak)
}

// statField is the first of names found in fdblite's stats JSON, as
// "name": value; a baseline library may report others than today's.
func statField(stats string, names ...string) string {
	for _, name := range names {
		i := strings.Index(stats, `"`+name+`"`)
		if i < 0 {
			continue
		}
		f := stats[i:]
		if j := strings.IndexAny(f, ",}"); j >= 0 {
			f = f[:j]
		}
		return f
	}
	return "no " + strings.Join(names, " or ")
}

// BenchmarkDurableDisk: see the comment at the top of this file. Keys are
// 16 bytes, values 1,000; FDBLITE_BENCH_DISK_KEYS (default 100,000) sets
// the size. The in-memory database's reads, in this process, are the
// comparison. The figures go to stdout.
//
// FDBLITE_BENCH_DISK_BASELINE names a directory holding another build's
// libfdb_c.so, such as the design before beyond-RAM, which kept every key
// in memory (docs/benchmarks.md says how to build it): every child then
// runs again on a second directory with that library (LD_LIBRARY_PATH
// overrides the test binary's RUNPATH), and the commit children of the
// two libraries alternate, twice each, so both see the same machine.
// FDBLITE_BENCH_DISK_COLD=1 drops the system's page cache before every
// child (root only), so none finds the other's pages cached.
func BenchmarkDurableDisk(b *testing.B) {
	keys := 100_000
	if s := os.Getenv(envDiskKeys); s != "" {
		keys, _ = strconv.Atoi(s)
	}
	type library struct{ name, dir, libDir string }
	libs := []library{{name: "", dir: b.TempDir()}}
	if base := os.Getenv(envDiskBaseline); base != "" {
		if _, err := os.Stat(base + "/libfdb_c.so"); err != nil {
			b.Fatalf("%s: %v", envDiskBaseline, err)
		}
		libs = append(libs, library{name: "baseline ", dir: b.TempDir(), libDir: base})
	}
	cold := os.Getenv(envDiskCold) != ""
	run := func(lib library, mode string) {
		if cold {
			// Every child starts on a cold page cache (root only).
			syscall.Sync()
			if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("1"), 0); err != nil {
				b.Fatalf("%s: %v", envDiskCold, err)
			}
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDiskChild$", "-test.bench=^$", "-test.count=1")
		cmd.Env = append(os.Environ(), envDiskDir+"="+lib.dir, envDiskMode+"="+mode, envDiskKeys+"="+strconv.Itoa(keys))
		if lib.libDir != "" {
			cmd.Env = append(cmd.Env, "LD_LIBRARY_PATH="+lib.libDir)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%s%s child: %v\n%s", lib.name, mode, err, out)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if fig, ok := strings.CutPrefix(sc.Text(), "FIG "); ok {
				fmt.Printf("%s%s: %s\n", lib.name, mode, fig)
			}
		}
	}
	for b.Loop() {
		for _, lib := range libs {
			run(lib, "load")
			run(lib, "read")   // restart on the log a kill left
			run(lib, "reread") // restart on the state a clean run left
		}
		for range min(len(libs), 2) {
			for _, lib := range libs {
				run(lib, "commit") // commits on it against a small database
			}
		}
		mem := openDB(b, "disk-memory")
		n := min(keys, 100_000)
		value := make([]byte, diskValue)
		buf := make([]byte, 0, keySize)
		for i := 0; i < n; i += 5000 {
			mustTransact(b, mem, func(tr fdb.Transaction) {
				for j := i; j < min(i+5000, n); j++ {
					tr.Set(makeKey(buf, j), value)
				}
			})
		}
		readFigures(b, mem, n, func(format string, args ...any) {
			fmt.Printf("memory (%d keys): "+format+"\n", append([]any{n}, args...)...)
		})
	}
}
