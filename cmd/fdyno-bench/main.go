// Command fdyno-bench runs the same AWS SDK for Go v2 workload (PutItem,
// GetItem and Query of 1 KB items, with one client and with many
// concurrent clients) against fdyno-server and, side by side in the same
// run, against dynalite (a DynamoDB-compatible server on Node.js), and
// prints the throughput and p50/p99 latency of both. fdyno-server runs as
// its own process when --fdyno-server names its binary (as dynalite
// does), otherwise inside this one, on an embedded fdblite database.
// `make bench-server` builds fdyno-server, installs dynalite into a
// scratch folder and runs both.
//
// Usage:
//
//	fdyno-bench [--fdyno-server build/fdyno-server] [--dynalite path/to/dynalite/cli.js] [--ops 2000] [--clients 16]
//	fdyno-bench --durable-items 330000 [--cache-mib 16] [--ops 2000] [--clients 16]
//
// The second form measures fdyno-server alone on a durable database larger
// than its cache (durable.go).
//
// A third target, the floor server (floor.go), answers every request with
// a fixed response of a real one's size: its throughput is the ceiling of
// what any server can show through this client on this machine, and the
// report prints it against dynalite's. Without --dynalite, fdyno-server
// and the floor are measured. All traffic stays on loopback, and every
// loop is bounded by --ops.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/server"
)

func main() {
	fdynoBin := flag.String("fdyno-server", "", "fdyno-server binary to run as its own process; empty: serve in this process")
	dynalite := flag.String("dynalite", "", "path to dynalite's cli.js (run with node); empty: fdyno-server only")
	ops := flag.Int("ops", 2000, "operations per line")
	clients := flag.Int("clients", 16, "concurrent clients of the concurrent lines")
	floor := flag.Bool("floor", false, "serve the floor server (fixed answers) on --listen and nothing else")
	listen := flag.String("listen", "", "the floor server's address (with --floor), or the durable server's (with --serve-dir)")
	durableItems := flag.Int("durable-items", 0, "measure fdyno-server on a durable database of this many 1 KB items instead (see durable.go)")
	cacheMiB := flag.Int("cache-mib", 16, "the durable database's cache budget, in MiB (with --durable-items)")
	serveDir := flag.String("serve-dir", "", "serve fdyno-server on the durable database in this directory on --listen and nothing else (the child --durable-items starts)")
	flag.Parse()
	if *serveDir != "" {
		if err := serveDirectory(*serveDir, *listen); err != nil {
			fmt.Fprintln(os.Stderr, "fdyno-bench:", err)
			os.Exit(1)
		}
		return
	}
	if *durableItems > 0 {
		if err := runDurable(os.Stdout, *durableItems, *cacheMiB, *ops, *clients); err != nil {
			fmt.Fprintln(os.Stderr, "fdyno-bench:", err)
			os.Exit(1)
		}
		return
	}
	if *floor {
		ln, err := net.Listen("tcp", *listen)
		if err == nil {
			err = serveFloor(context.Background(), ln)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fdyno-bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Stdout, *fdynoBin, *dynalite, *ops, *clients); err != nil {
		fmt.Fprintln(os.Stderr, "fdyno-bench:", err)
		os.Exit(1)
	}
}

// result is one line of the report.
type result struct {
	workload  string
	clients   int
	target    string
	opsPerS   float64
	p50, p99  time.Duration
	serverCPU time.Duration // per operation, where measured
}

func run(w io.Writer, fdynoBin, dynaliteCLI string, ops, clients int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	targets := []struct{ name, url string }{}
	var fdynoURL string
	if fdynoBin != "" {
		url, stop, err := startProcess(fdynoBin, "--in-memory", "--log-level", "warn", "--listen")
		if err != nil {
			return err
		}
		defer stop()
		fdynoURL = url
	} else {
		url, err := startFdyno(ctx)
		if err != nil {
			return err
		}
		fdynoURL = url
	}
	targets = append(targets, struct{ name, url string }{"fdyno-server", fdynoURL})
	if dynaliteCLI != "" {
		url, stop, err := startProcess("node", dynaliteCLI, "--host", "127.0.0.1", "--port")
		if err != nil {
			return err
		}
		defer stop()
		targets = append(targets, struct{ name, url string }{"dynalite", url})
	}
	// The floor server runs where fdyno-server does: as its own process
	// beside a separate fdyno-server, else in this one.
	var floorURL string
	if fdynoBin != "" {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		url, stop, err := startProcess(self, "--floor", "--listen")
		if err != nil {
			return err
		}
		defer stop()
		floorURL = url
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		go serveFloor(ctx, ln) // ends with ctx
		floorURL = "http://" + ln.Addr().String()
	}
	targets = append(targets, struct{ name, url string }{"floor", floorURL})
	var results []result
	for _, tg := range targets {
		c := newClient(tg.url, clients)
		if err := createTable(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", tg.name, err)
		}
		for _, wl := range []string{"PutItem", "GetItem", "Query"} {
			for _, n := range []int{1, clients} {
				r, err := measure(ctx, c, wl, n, ops)
				if err != nil {
					return fmt.Errorf("%s %s: %w", tg.name, wl, err)
				}
				r.target = tg.name
				results = append(results, r)
			}
		}
	}
	report(w, results)
	return nil
}

// startFdyno serves fdyno-server on a loopback port of this process.
func startFdyno(ctx context.Context) (string, error) {
	if err := fdb.APIVersion(730); err != nil {
		return "", err
	}
	db, err := fdb.OpenDatabase("")
	if err != nil {
		return "", err
	}
	srv, err := server.New(server.Config{DB: db, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go server.Serve(ctx, ln, srv, server.Timeouts{}, slog.New(slog.DiscardHandler))
	return "http://" + ln.Addr().String(), nil
}

// startProcess runs a server, args followed by a free loopback port (a
// port, or host:port for fdyno-server's --listen), and waits until it
// accepts connections.
func startProcess(name string, args ...string) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := ln.Addr().String()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	if args[len(args)-1] == "--listen" {
		args = append(args, addr)
	} else {
		args = append(args, port)
	}
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", name, err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	if err := waitListening(addr); err != nil {
		stop()
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	return "http://" + addr, stop, nil
}

// waitListening waits until addr accepts connections.
func waitListening(addr string) error {
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return nil
		}
	}
	return errors.New("did not start listening within 15 s")
}

// bufferedBodies is an http.RoundTripper that hands the transport an
// in-memory copy of each request body. It works around a race in the AWS
// SDK for Go v2 (smithy-go v1.28): the SDK closes its request body
// wrapper as soon as the response headers arrive, after which the
// wrapper's WriteTo returns io.EOF; if net/http's transport is still
// making its final read of the body (it checks that no bytes follow the
// Content-Length), it takes that io.EOF for a body read error and closes
// the connection while the response body is being read ("use of closed
// network connection"). Only a server that answers faster than the
// client finishes writing (a fast one on loopback) triggers it.
type bufferedBodies struct{ next http.RoundTripper }

func (b bufferedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	return b.next.RoundTrip(req)
}

func newClient(url string, conns int) *dynamodb.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "bench", SecretAccessKey: "bench"}, nil
		}),
		HTTPClient: &http.Client{Transport: bufferedBodies{tr}},
		Retryer:    aws.NopRetryer{},
	})
}

const (
	table      = "Bench"
	partitions = 100
	queryLimit = 10
)

var payload = strings.Repeat("x", 1000)

// createTable creates the benchmark's table, replacing one left by an
// earlier run on the same database.
func createTable(ctx context.Context, c *dynamodb.Client) error {
	err := createTableOnce(ctx, c)
	if inUse := (*types.ResourceInUseException)(nil); errors.As(err, &inUse) {
		if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
			return err
		}
		err = createTableOnce(ctx, c)
	}
	return err
}

func createTableOnce(ctx context.Context, c *dynamodb.Client) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
	})
	if err != nil {
		return err
	}
	// dynalite creates tables asynchronously: wait until ACTIVE.
	for range 100 {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return err
		}
		if d.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("table not ACTIVE")
}

func key(i int) (string, string) {
	return "p" + strconv.Itoa(i%partitions), strconv.Itoa(i / partitions)
}

// op runs operation i of workload wl.
func op(ctx context.Context, c *dynamodb.Client, wl string, i int) error {
	pk, sk := key(i)
	k := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: sk}}
	switch wl {
	case "PutItem":
		k["payload"] = &types.AttributeValueMemberS{Value: payload}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: k})
		return err
	case "GetItem":
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: k})
		if err == nil && out.Item == nil {
			err = fmt.Errorf("item %s/%s missing", pk, sk)
		}
		return err
	default:
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), Limit: aws.Int32(queryLimit),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: pk}}})
		if err == nil && out.Count == 0 {
			err = fmt.Errorf("partition %s empty", pk)
		}
		return err
	}
}

// measure runs ops operations of wl from n clients and returns the
// throughput and latency percentiles. PutItem writes keys 0..ops-1, which
// GetItem and Query then read.
func measure(ctx context.Context, c *dynamodb.Client, wl string, n, ops int) (result, error) {
	r, err := timeOps(n, ops, func(int) func(int) error {
		return func(i int) error { return op(ctx, c, wl, i) }
	})
	r.workload, r.clients = wl, n
	return r, err
}

// timeOps runs operations 0..ops-1 from n clients, each taking the next
// one until none is left, and returns the throughput and latency
// percentiles, or the first error. client(g) returns client g's
// operation, called with the operation's number.
func timeOps(n, ops int, client func(g int) func(i int) error) (result, error) {
	lat := make([]time.Duration, ops)
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do := client(g)
			for {
				i := int(next.Add(1)) - 1
				if i >= ops {
					return
				}
				t0 := time.Now()
				if err := do(i); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return result{}, firstErr
	}
	slices.Sort(lat)
	return result{opsPerS: float64(ops) / elapsed.Seconds(), p50: lat[len(lat)/2], p99: lat[len(lat)*99/100]}, nil
}

// report prints one line per target, operation and client count. The
// last column compares throughput with dynalite's on the same line: for
// fdyno-server, the measured ratio; for the floor server, the ceiling,
// the highest ratio any server could reach through this client here.
func report(w io.Writer, rs []result) {
	fmt.Fprintf(w, "%-8s %7s  %-13s %10s %10s %10s  %s\n", "op", "clients", "server", "ops/s", "p50", "p99", "vs dynalite")
	for _, r := range rs {
		ratio := ""
		for _, o := range rs {
			if o.target == "dynalite" && r.target != "dynalite" && o.workload == r.workload && o.clients == r.clients {
				ratio = fmt.Sprintf("%.1fx", r.opsPerS/o.opsPerS)
				if r.target == "floor" {
					ratio += " (ceiling)"
				}
			}
		}
		fmt.Fprintf(w, "%-8s %7d  %-13s %10.0f %10s %10s  %s\n", r.workload, r.clients, r.target, r.opsPerS,
			r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), ratio)
	}
}
