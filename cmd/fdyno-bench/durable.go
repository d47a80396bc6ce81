package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/server"
)

// durable.go: fdyno-server on a durable database larger than its cache
// (issue 36). --durable-items N loads N items of 1 KB (ten per partition)
// into a fresh data directory through BatchWriteItem, kills the server
// with SIGKILL and starts it again on the directory, then measures GetItem
// (uniform and Zipfian keys) and Query (uniform partitions) with one
// client and with --clients. The server is a child process (this binary
// with --serve-dir), whose cache budget is --cache-mib, so that the report
// can give its resident memory and the data's size against the cache. The
// same workload on an in-memory database, in the same run, is the
// reference.

// itemsPerPartition is how many items share a partition key: what a
// Query of queryLimit rows reads.
const itemsPerPartition = queryLimit

// zipfS is the skew of the Zipfian key choice (as in fdblite/bench: the
// closest to YCSB's 0.99 that Go's generator takes).
const zipfS = 1.01

// serveDirectory is the child's side: fdyno-server on the durable database
// in dir (or an in-memory one for memoryDir), on addr, until killed. The
// parent sets its cache budget through FDBLITE_CACHE_BYTES, as
// fdyno-server's --cache-size does.
func serveDirectory(dir, addr string) error {
	if err := fdb.APIVersion(730); err != nil {
		return err
	}
	name := "fdblite-dir:" + dir
	if dir == memoryDir {
		name = "fdblite-memory:fdyno-bench"
	}
	db, err := fdb.OpenDatabase(name)
	if err != nil {
		return err
	}
	srv, err := server.New(server.Config{DB: db, Logger: slog.New(slog.DiscardHandler), TTLSweepInterval: -1})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return server.Serve(context.Background(), ln, srv, server.Timeouts{}, slog.New(slog.DiscardHandler))
}

// durableItemKey is item i's key: partition i/10, sort key i%10.
func durableItemKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "p" + strconv.Itoa(i/itemsPerPartition)},
		"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(i % itemsPerPartition)},
	}
}

// memoryDir is the --serve-dir value that serves an in-memory database:
// the same workload's reference, in the same run.
const memoryDir = ":memory:"

// runDurable runs the durable benchmark, and the same workload on an
// in-memory database as its reference, and writes the report to w.
func runDurable(w io.Writer, items, cacheMiB, ops, clients int) error {
	if items < itemsPerPartition {
		return fmt.Errorf("--durable-items %d: want at least %d", items, itemsPerPartition)
	}
	dir, err := os.MkdirTemp("", "fdyno-bench-durable-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	start := func(dir string) (string, *exec.Cmd, error) {
		cmd := exec.Command(self, "--serve-dir", dir, "--listen")
		cmd.Env = append(os.Environ(), "FDBLITE_CACHE_BYTES="+strconv.Itoa(cacheMiB<<20), benchMainEnv+"=1")
		url, err := startCmd(cmd)
		return url, cmd, err
	}
	ctx := context.Background()
	type line struct {
		op, keys string
		clients  int
		r        result
	}
	var lines []line
	for _, target := range []string{"durable", "memory"} {
		serveDir := dir
		if target == "memory" {
			serveDir = memoryDir
		}
		url, cmd, err := start(serveDir)
		if err != nil {
			return err
		}
		c := newClient(url, clients)
		if err := createTable(ctx, c); err != nil {
			return err
		}
		loadStart := time.Now()
		if err := loadItems(ctx, c, items, clients); err != nil {
			return err
		}
		loadSecs := time.Since(loadStart).Seconds()
		if target == "durable" {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			restartStart := time.Now()
			if url, cmd, err = start(serveDir); err != nil {
				return err
			}
			c = newClient(url, clients)
			if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: durableItemKey(0)}); err != nil {
				return err
			}
			restartSecs := time.Since(restartStart).Seconds()
			var diskBytes int64
			_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					diskBytes += fi.Size()
				}
				return nil
			})
			fmt.Fprintf(w, "durable: %d items of 1 KB, %.0f MB on disk, cache %d MiB (data %.1fx the cache)\n",
				items, float64(diskBytes)/1e6, cacheMiB, float64(diskBytes)/float64(cacheMiB<<20))
			fmt.Fprintf(w, "durable: load %.1f s (%.0f items/s; BatchWriteItem of 25, %d clients); restart after SIGKILL: first GetItem answered %.2f s after the start\n",
				loadSecs, float64(items)/loadSecs, clients, restartSecs)
		} else {
			fmt.Fprintf(w, "memory: load %.1f s (%.0f items/s)\n", loadSecs, float64(items)/loadSecs)
		}
		// Warm up (the server's runtime, the caches), unmeasured.
		if _, err := measureDurable(ctx, c, "GetItem", "uniform", items, clients, ops); err != nil {
			return err
		}
		for _, wl := range []struct{ op, keys string }{{"GetItem", "uniform"}, {"GetItem", "zipfian"}, {"Query", "uniform"}} {
			for _, n := range []int{1, clients} {
				cpu0 := cpuSeconds(cmd.Process.Pid)
				r, err := measureDurable(ctx, c, wl.op, wl.keys, items, n, ops)
				r.serverCPU = time.Duration((cpuSeconds(cmd.Process.Pid) - cpu0) / float64(ops) * 1e9)
				if err != nil {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					return fmt.Errorf("%s %s %s: %w", target, wl.op, wl.keys, err)
				}
				r.target = target
				lines = append(lines, line{wl.op, wl.keys, n, r})
			}
		}
		m, err := scrapeGauges(url, "process_resident_memory_bytes")
		if err == nil && target == "durable" {
			var d []float64
			if d, err = scrapeGauges(url, "fdyno_storage_cache_used_bytes", "fdyno_storage_window_bytes"); err == nil {
				fmt.Fprintf(w, "durable: server after the reads: RSS %.0f MB, caches %.1f MB of %d MiB, window %.1f MB\n",
					m[0]/1e6, d[0]/1e6, cacheMiB, d[1]/1e6)
			}
		} else if err == nil {
			fmt.Fprintf(w, "memory: server after the reads: RSS %.0f MB\n", m[0]/1e6)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "%-8s %7s  %-8s %-8s %10s %10s %10s %12s\n", "op", "clients", "keys", "server", "ops/s", "p50", "p99", "server CPU")
	slices.SortStableFunc(lines, func(a, b line) int {
		if a.op != b.op {
			return strings.Compare(a.op, b.op) // GetItem, then Query
		}
		if a.keys != b.keys {
			return strings.Compare(a.keys, b.keys) // uniform, then zipfian
		}
		return a.clients - b.clients // then durable before memory: stable
	})
	for _, l := range lines {
		fmt.Fprintf(w, "%-8s %7d  %-8s %-8s %10.0f %10s %10s %9s/op\n", l.op, l.clients, l.keys, l.r.target, l.r.opsPerS,
			l.r.p50.Round(time.Microsecond), l.r.p99.Round(time.Microsecond), l.r.serverCPU.Round(time.Microsecond))
	}
	return nil
}

// benchMainEnv set to 1 makes the test binary run main (main_test.go), so
// that the tests can run the child this binary starts of itself.
const benchMainEnv = "FDYNO_BENCH_MAIN"

// startCmd starts cmd, whose last argument is --listen, with a free
// loopback address, and waits until it accepts connections.
func startCmd(cmd *exec.Cmd) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd.Args = append(cmd.Args, addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", err
	}
	if err := waitListening(addr); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return "", err
	}
	return "http://" + addr, nil
}

// loadItems writes items 0..items-1 with BatchWriteItem from clients
// goroutines, resending what comes back unprocessed.
func loadItems(ctx context.Context, c *dynamodb.Client, items, clients int) error {
	const batch = 25
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				first := int(next.Add(batch)) - batch
				if first >= items {
					return
				}
				var reqs []types.WriteRequest
				for i := first; i < min(first+batch, items); i++ {
					it := durableItemKey(i)
					it["payload"] = &types.AttributeValueMemberS{Value: payload}
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
				}
				for len(reqs) > 0 {
					out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
					if err != nil {
						errs <- err
						return
					}
					reqs = out.UnprocessedItems[table]
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// measureDurable runs ops operations (GetItem of one item, or Query of
// one partition) from n clients, with keys drawn uniformly or Zipfian.
func measureDurable(ctx context.Context, c *dynamodb.Client, op, keys string, items, n, ops int) (result, error) {
	return timeOps(n, ops, func(g int) func(int) error {
		r := rand.New(rand.NewPCG(uint64(g), 36))
		z := rand.NewZipf(r, zipfS, 1, uint64(items-1))
		return func(int) error {
			k := r.IntN(items)
			if keys == "zipfian" {
				// Ranks scattered over the keys (a permutation: the prime
				// does not divide items unless items is a multiple of it).
				k = int((z.Uint64() * 1_000_000_007) % uint64(items))
			}
			if op == "GetItem" {
				out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: durableItemKey(k)})
				if err == nil && out.Item == nil {
					err = fmt.Errorf("item %d missing", k)
				}
				return err
			}
			out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), Limit: aws.Int32(queryLimit),
				KeyConditionExpression:    aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": durableItemKey(k)["pk"]}})
			if err == nil && out.Count == 0 {
				err = fmt.Errorf("partition of item %d empty", k)
			}
			return err
		}
	})
}

// cpuSeconds is the CPU time (user and system) process pid has used, from
// /proc (0 where there is none): on a machine shared with other work it
// says what an operation costs the server better than its latency does.
func cpuSeconds(pid int) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command (in parentheses, which may hold spaces):
	// utime and stime are the 12th and 13th, in clock ticks of 1/100 s.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100
}

// scrapeGauges reads the values of the named gauges from url's /metrics.
func scrapeGauges(url string, names ...string) ([]float64, error) {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	vals := make([]float64, len(names))
	for i, name := range names {
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
		if m == nil {
			return nil, errors.New("/metrics lacks " + name)
		}
		vals[i], _ = strconv.ParseFloat(string(m[1]), 64)
	}
	return vals, nil
}
