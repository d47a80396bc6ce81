package bench

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Durable mode: commits per second with 1 and 64 concurrent writers (group
// commit at work), against the in-memory database in the same run; the
// recovery time per GB and the disk bytes per stored byte.

// durableValue is the value size of the durable benchmarks.
const durableValue = 100

func openDurable(b *testing.B) fdb.Database {
	b.Helper()
	db, err := fdblitetest.OpenDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// durableStats reads the durable log's counters.
func durableStats(b *testing.B, db fdb.Database) (commits, groups int64) {
	b.Helper()
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(fdblitetest.StatsKey).Get()
	})
	if err != nil {
		b.Fatal(err)
	}
	var s struct {
		Durable struct{ Commits, Groups int64 }
	}
	if err := json.Unmarshal(v.([]byte), &s); err != nil {
		b.Fatal(err)
	}
	return s.Durable.Commits, s.Durable.Groups
}

// BenchmarkDurableCommit: one Set of a 16-byte key and a 100-byte value
// per transaction, by 1 or 64 goroutines, in memory and durable (each
// commit fsynced before it is acknowledged; concurrent commits share
// fsyncs).
func BenchmarkDurableCommit(b *testing.B) {
	for _, mode := range []string{"memory", "durable"} {
		for _, writers := range []int{1, 64} {
			b.Run(fmt.Sprintf("mode=%s/writers=%d", mode, writers), func(b *testing.B) {
				var db fdb.Database
				if mode == "durable" {
					db = openDurable(b)
				} else {
					db = openDB(b, "commit-"+mode+strconv.Itoa(writers))
				}
				value := make([]byte, durableValue)
				var next atomic.Int64
				commit := func(buf []byte) {
					k := makeKey(buf, int(next.Add(1)))
					if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
						tr.Set(k, value)
						return nil, nil
					}); err != nil {
						b.Error(err)
					}
				}
				c0, g0 := int64(0), int64(0)
				if mode == "durable" {
					c0, g0 = durableStats(b, db)
				}
				b.ResetTimer()
				if writers == 1 {
					buf := make([]byte, 0, keySize)
					for b.Loop() {
						commit(buf)
					}
				} else {
					b.SetParallelism((writers + 1) / 2) // GOMAXPROCS=2 on the reference machine
					b.RunParallel(func(pb *testing.PB) {
						buf := make([]byte, 0, keySize)
						for pb.Next() {
							commit(buf)
						}
					})
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
				if mode == "durable" {
					c1, g1 := durableStats(b, db)
					if g1 > g0 {
						b.ReportMetric(float64(c1-c0)/float64(g1-g0), "commits/fsync")
					}
				}
			})
		}
	}
}

// Recovery: the parent writes a durable database, the child (this test
// binary, TestRecoveryChild) opens it and reports how long opening took.
const envRecoveryDir = "FDBLITE_BENCH_RECOVERY_DIR"

// TestRecoveryChild is BenchmarkDurableRecovery's child; skipped otherwise.
func TestRecoveryChild(t *testing.T) {
	dir := os.Getenv(envRecoveryDir)
	if dir == "" {
		t.Skip("the child of BenchmarkDurableRecovery")
	}
	start := time.Now()
	db, err := fdblitetest.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(fdblitetest.StatsKey).Get()
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("OPEN %f\nSTATS %s\n", time.Since(start).Seconds(), v.([]byte))
}

// BenchmarkDurableRecovery writes FDBLITE_BENCH_RECOVERY_MB (default 256)
// MB of 16-byte keys and 1000-byte values, then measures a fresh process
// opening the directory (it reads the log of the last seconds of writes,
// not the keys): the open time per GB stored, which falls as the data
// grows, and the disk bytes per stored byte.
func BenchmarkDurableRecovery(b *testing.B) {
	mb := 256
	if s := os.Getenv("FDBLITE_BENCH_RECOVERY_MB"); s != "" {
		mb, _ = strconv.Atoi(s)
	}
	const valueBytes = 1000
	dir := b.TempDir()
	db, err := fdblitetest.OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	keys := mb << 20 / (keySize + valueBytes)
	value := make([]byte, valueBytes)
	buf := make([]byte, 0, keySize)
	for i := 0; i < keys; i += 5000 {
		mustTransact(b, db, func(tr fdb.Transaction) {
			for j := i; j < min(i+5000, keys); j++ {
				tr.Set(makeKey(buf, j), value)
			}
		})
	}
	var disk int64
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if info, err := e.Info(); err == nil {
				disk += info.Size()
			}
		}
		return nil
	})
	stored := float64(keys) * (keySize + valueBytes)
	var open float64
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRecoveryChild$", "-test.bench=^$")
		// The child can open the directory only once this process lets go
		// of it: this process keeps it open, so the child gets a copy.
		copyDir := b.TempDir()
		if err := exec.Command("cp", "-a", dir+"/.", copyDir).Run(); err != nil {
			b.Fatal(err)
		}
		cmd.Env = append(os.Environ(), envRecoveryDir+"="+copyDir)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var line string
		for _, l := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(l, "OPEN "); ok {
				line = rest
			}
		}
		open, _ = strconv.ParseFloat(line, 64)
	}
	b.ReportMetric(open/(stored/(1<<30)), "s/GB")
	b.ReportMetric(float64(disk)/stored, "disk-bytes/byte")
	b.ReportMetric(float64(mb), "MB")
}
