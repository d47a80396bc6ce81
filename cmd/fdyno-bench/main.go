// Command fdyno-bench runs the same AWS SDK for Go v2 workload (PutItem,
// GetItem and Query of 1 KB items, with one client and with many
// concurrent clients) against fdyno-server, started in this process on an
// embedded fdblite database, and, side by side in the same run, against
// dynalite (a DynamoDB-compatible server on Node.js), and prints the
// throughput and p50/p99 latency of both. `make bench-server` installs
// dynalite into a scratch folder and runs it.
//
// Usage:
//
//	fdyno-bench [--dynalite path/to/dynalite/cli.js] [--ops 2000] [--clients 16]
//
// Without --dynalite, only fdyno-server is measured. All traffic stays on
// loopback, and every loop is bounded by --ops.
package main

import (
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
	dynalite := flag.String("dynalite", "", "path to dynalite's cli.js (run with node); empty: fdyno-server only")
	ops := flag.Int("ops", 2000, "operations per line")
	clients := flag.Int("clients", 16, "concurrent clients of the concurrent lines")
	flag.Parse()
	if err := run(os.Stdout, *dynalite, *ops, *clients); err != nil {
		fmt.Fprintln(os.Stderr, "fdyno-bench:", err)
		os.Exit(1)
	}
}

// result is one line of the report.
type result struct {
	workload string
	clients  int
	target   string
	opsPerS  float64
	p50, p99 time.Duration
}

func run(w io.Writer, dynaliteCLI string, ops, clients int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	targets := []struct{ name, url string }{}
	fdynoURL, err := startFdyno(ctx)
	if err != nil {
		return err
	}
	targets = append(targets, struct{ name, url string }{"fdyno-server", fdynoURL})
	if dynaliteCLI != "" {
		url, stop, err := startDynalite(dynaliteCLI)
		if err != nil {
			return err
		}
		defer stop()
		targets = append(targets, struct{ name, url string }{"dynalite", url})
	}
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

// startDynalite runs dynalite (in memory) on a free loopback port and
// waits until it answers.
func startDynalite(cli string) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("node", cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start dynalite: %w", err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			conn.Close()
			return url, stop, nil
		}
	}
	stop()
	return "", nil, errors.New("dynalite did not start listening within 15 s")
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
		HTTPClient: &http.Client{Transport: tr},
		Retryer:    aws.NopRetryer{},
	})
}

const (
	table      = "Bench"
	partitions = 100
	queryLimit = 10
)

var payload = strings.Repeat("x", 1000)

func createTable(ctx context.Context, c *dynamodb.Client) error {
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
	lat := make([]time.Duration, ops)
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= ops {
					return
				}
				t0 := time.Now()
				if err := op(ctx, c, wl, i); err != nil {
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
	return result{workload: wl, clients: n, opsPerS: float64(ops) / elapsed.Seconds(),
		p50: lat[len(lat)/2], p99: lat[len(lat)*99/100]}, nil
}

func report(w io.Writer, rs []result) {
	fmt.Fprintf(w, "%-8s %7s  %-13s %10s %10s %10s  %s\n", "op", "clients", "server", "ops/s", "p50", "p99", "fdyno/dynalite")
	for _, r := range rs {
		ratio := ""
		if r.target == "fdyno-server" {
			for _, o := range rs {
				if o.target == "dynalite" && o.workload == r.workload && o.clients == r.clients {
					ratio = fmt.Sprintf("%.1fx", r.opsPerS/o.opsPerS)
				}
			}
		}
		fmt.Fprintf(w, "%-8s %7d  %-13s %10.0f %10s %10s  %s\n", r.workload, r.clients, r.target, r.opsPerS,
			r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), ratio)
	}
}
