package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestMain runs the command itself when the test re-executes its own
// binary with FDYNO_BENCH_MAIN=1: --durable-items's server child.
func TestMain(m *testing.M) {
	if os.Getenv(benchMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The durable benchmark loads its items, restarts its server after
// SIGKILL on the same directory (every item is read back from there), and
// reports the load, the restart, one line per operation, key choice,
// client count and server (durable, and in memory for reference), and the
// servers' memory.
func TestRunDurable(t *testing.T) {
	var out bytes.Buffer
	if err := runDurable(&out, 300, 1, 30, 3); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	report := out.String()
	for _, want := range []string{"durable: 300 items of 1 KB", "durable: load ", "restart after SIGKILL",
		"durable: server after the reads: RSS", "memory: load ", "memory: server after the reads: RSS"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	for _, want := range []string{"GetItem        1  uniform  durable", "GetItem        3  zipfian  memory",
		"Query          3  uniform  durable", "Query          3  uniform  memory"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks a line %q:\n%s", want, report)
		}
	}
}

// The benchmark runs its whole workload against fdyno-server (small, and
// without dynalite, which make bench-server installs) and reports one
// line per operation and client count, for fdyno-server and the floor
// server.
func TestRunFdynoOnly(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, "", "", 40, 4); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1+2*3*2 {
		t.Fatalf("report has %d lines, want a header and 12:\n%s", len(lines), out.String())
	}
	for _, want := range []string{"PutItem", "GetItem", "Query"} {
		if strings.Count(out.String(), want) != 4 {
			t.Errorf("report lacks four %s lines (fdyno-server and floor, 1 and 4 clients):\n%s", want, out.String())
		}
	}
}

// The floor server's answers are as large as fdyno-server's for the same
// requests (within 5%), so that it costs the client what a real answer
// does; an operation outside the workload is refused.
func TestFloorAnswersLikeAServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fdynoURL, err := startFdyno(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(fdynoURL, 1)
	if err := createTable(ctx, c); err != nil {
		t.Fatal(err)
	}
	for i := range partitions * queryLimit {
		if err := op(ctx, c, "PutItem", i); err != nil {
			t.Fatal(err)
		}
	}
	floor := httptest.NewServer(floorHandler())
	defer floor.Close()
	post := func(url, op, body string) (int, []byte) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, tc := range []struct{ op, body string }{
		{"GetItem", `{"TableName":"Bench","Key":{"pk":{"S":"p0"},"sk":{"N":"0"}}}`},
		{"Query", `{"TableName":"Bench","Limit":10,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p0"}}}`},
	} {
		status, real := post(fdynoURL, tc.op, tc.body)
		if status != http.StatusOK {
			t.Fatalf("fdyno-server %s: status %d: %s", tc.op, status, real)
		}
		status, fixed := post(floor.URL, tc.op, tc.body)
		if status != http.StatusOK {
			t.Fatalf("floor %s: status %d", tc.op, status)
		}
		if d := len(fixed) - len(real); d*20 > len(real) || -d*20 > len(real) {
			t.Errorf("%s: floor answers %d bytes, fdyno-server %d:\n%s\n%s", tc.op, len(fixed), len(real), fixed, real)
		}
	}
	if status, body := post(floor.URL, "Scan", `{}`); status != http.StatusBadRequest || !strings.Contains(string(body), "UnknownOperationException") {
		t.Errorf("floor Scan: %d %s, want 400 UnknownOperationException", status, body)
	}
}
