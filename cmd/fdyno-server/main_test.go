package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the command itself when the test re-executes its own
// binary with FDYNO_SERVER_MAIN=1, so the tests drive the real main
// (flags, signals, exit status) without building another binary.
func TestMain(m *testing.M) {
	if os.Getenv("FDYNO_SERVER_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startServer runs fdyno-server with args (and --in-memory unless args
// name a --data-dir) and returns the process, its address (from the
// "listening" log record) and its log, read to the end once the process
// exits.
func startServer(t *testing.T, args ...string) (*exec.Cmd, string, <-chan string) {
	t.Helper()
	if !slices.Contains(args, "--data-dir") {
		args = append(args, "--in-memory")
	}
	cmd := exec.Command(os.Args[0], append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	r := bufio.NewReader(stderr)
	// Warnings at start-up (see namespace.go) come before "listening".
	var before strings.Builder
	var rec struct{ Msg, Level, Addr string }
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no \"listening\" log line: %v\n%s", err, before.String())
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Msg != "listening" && rec.Level != "WARN" {
			t.Fatalf("log line %q before \"listening\": %v", line, err)
		}
		if rec.Msg == "listening" {
			break
		}
		before.WriteString(line)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		rest <- before.String() + string(b)
	}()
	return cmd, rec.Addr, rest
}

func listTables(t *testing.T, addr string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The command serves, logs each request, and on SIGTERM shuts down and
// exits 0.
func TestServeAndSIGTERM(t *testing.T) {
	cmd, addr, logs := startServer(t)
	if status := listTables(t, addr); status != http.StatusOK {
		t.Errorf("ListTables: status %d", status)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit 10 s after SIGTERM")
	}
	log := <-logs
	for _, want := range []string{`"op":"ListTables"`, `"status":200`, `"msg":"shutting down"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
}

// With --auth, unsigned requests are refused; a bad key file or flag is
// an error at start.
func TestAuthFlag(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keys, []byte("AKID secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr, _ := startServer(t, "--auth", keys)
	if status := listTables(t, addr); status != http.StatusBadRequest {
		t.Errorf("unsigned ListTables with --auth: status %d, want 400", status)
	}
	for _, args := range [][]string{{"--auth", filepath.Join(t.TempDir(), "missing")}, {"--log-level", "loud"}} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("fdyno-server %v succeeded: %s", args, out)
		}
	}
}

// GET /metrics answers Prometheus text, unsigned even with --auth (like
// the health check), and counts the requests served; --stream-retention
// takes a duration.
func TestMetricsEndpoint(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keys, []byte("AKID secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr, _ := startServer(t, "--auth", keys, "--stream-retention", "1h")
	if status := listTables(t, addr); status != http.StatusBadRequest {
		t.Errorf("unsigned ListTables with --auth: status %d, want 400", status)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	want := `fdyno_requests_total{operation="ListTables",result="MissingAuthenticationTokenException"} 1`
	if !strings.Contains(string(body), want) {
		t.Errorf("GET /metrics lacks %s:\n%s", want, body)
	}
	cmd := exec.Command(os.Args[0], "--stream-retention", "soon")
	cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("fdyno-server --stream-retention soon succeeded: %s", out)
	}
}
