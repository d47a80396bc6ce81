package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// call posts one DynamoDB request and returns the status and body.
func call(t *testing.T, addr, op, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// health returns the health check's status, X-Fdyno-Storage header and body.
func health(t *testing.T, addr string) (int, string, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("X-Fdyno-Storage"), string(b)
}

// With --data-dir, tables and items survive kill -9 and a restart; the
// start-up log and the health check name the mode and the directory.
func TestDataDirSurvivesKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cmd, addr, logs := startServer(t, "--data-dir", dir)
	if status, body := call(t, addr, "CreateTable", `{"TableName":"Things","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`); status != 200 {
		t.Fatalf("CreateTable: %d %s", status, body)
	}
	if status, body := call(t, addr, "PutItem", `{"TableName":"Things","Item":{"pk":{"S":"a"},"n":{"N":"1"}}}`); status != 200 {
		t.Fatalf("PutItem: %d %s", status, body)
	}
	if status, storage, body := health(t, addr); status != 200 || storage != "durable; dir="+dir || body != "healthy: "+addr {
		t.Errorf("health: %d %q %q", status, storage, body)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	<-logs

	_, addr, _ = startServer(t, "--data-dir", dir)
	status, body := call(t, addr, "GetItem", `{"TableName":"Things","Key":{"pk":{"S":"a"}}}`)
	if status != 200 || !strings.Contains(body, `"n":{"N":"1"}`) {
		t.Errorf("GetItem after kill -9 and restart: %d %s", status, body)
	}
}

// A second server on the same directory fails at start with a clear error.
func TestDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	startServer(t, "--data-dir", dir)
	cmd := exec.Command(os.Args[0], "--listen", "127.0.0.1:0", "--data-dir", dir)
	cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("second server on %s started: %s", dir, out)
	}
	for _, want := range []string{"in use by another process", "1529", "choose another --data-dir"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("second server's error lacks %q:\n%s", want, out)
		}
	}
}

// A cluster file that is missing (1515) or malformed (2104) stops the
// server at start-up: FoundationDB opens such a database without complaint
// and fails each of its operations instead.
func TestBrokenClusterFile(t *testing.T) {
	malformed := filepath.Join(t.TempDir(), "fdb.cluster")
	if err := os.WriteFile(malformed, []byte("not a connection string\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, code string }{
		{filepath.Join(t.TempDir(), "missing.cluster"), "1515"},
		{malformed, "2104"},
	} {
		// A server that starts would serve until killed.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "--listen", "127.0.0.1:0", "--cluster-file", c.path)
		cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("server on %s started: %s", c.path, out)
			continue
		}
		if !strings.Contains(string(out), c.code) {
			t.Errorf("server on %s: error lacks %s:\n%s", c.path, c.code, out)
		}
	}
}

// --in-memory says so in the health check; conflicting storage flags are
// refused.
func TestStorageFlags(t *testing.T) {
	_, addr, _ := startServer(t)
	if status, storage, _ := health(t, addr); status != 200 || storage != "memory" {
		t.Errorf("health with --in-memory: %d %q", status, storage)
	}
	for _, args := range [][]string{
		{"--in-memory", "--data-dir", t.TempDir()},
		{"--cluster-file", "x.cluster", "--in-memory"},
		{"--cluster-file", "x.cluster", "--data-dir", t.TempDir()},
		{"--data-dir", ""},
	} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("fdyno-server %v succeeded: %s", args, out)
		}
	}
}

func TestDatabaseName(t *testing.T) {
	name, st, err := databaseName("", "rel/dir", false, map[string]bool{})
	abs, _ := filepath.Abs("rel/dir")
	if err != nil || name != "fdblite-dir:"+abs || st.Mode != "durable" || st.Dir != abs {
		t.Errorf("default: %q %+v %v", name, st, err)
	}
	if name, st, err := databaseName("", DefaultDataDir, true, map[string]bool{"in-memory": true}); err != nil || name != inMemoryDBName || st.Mode != "memory" {
		t.Errorf("--in-memory: %q %+v %v", name, st, err)
	}
	if name, st, err := databaseName("/etc/foundationdb/fdb.cluster", DefaultDataDir, false, map[string]bool{"cluster-file": true}); err != nil || name != "/etc/foundationdb/fdb.cluster" || st.Mode != "cluster" {
		t.Errorf("--cluster-file: %q %+v %v", name, st, err)
	}
}

// When the disk fills up, writes fail with a 500 (InternalServerError),
// reads go on, and the health check answers 503 naming the error, until
// the server is restarted with space; nothing acknowledged is lost.
func TestDiskFullHealth(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("FDBLITE_DURABLE_MAX_PAGES", "300") // SQLite's size cap: fails as a full disk does
	_, addr, _ := startServer(t, "--data-dir", dir)
	if status, body := call(t, addr, "CreateTable", `{"TableName":"Things","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`); status != 200 {
		t.Fatalf("CreateTable: %d %s", status, body)
	}
	big := strings.Repeat("x", 4000)
	acked := 0
	var status int
	var body string
	for acked < 1000 {
		status, body = call(t, addr, "PutItem", `{"TableName":"Things","Item":{"pk":{"S":"k`+strconv.Itoa(acked)+`"},"b":{"S":"`+big+`"}}}`)
		if status != 200 {
			break
		}
		acked++
	}
	if status != 500 || acked == 0 {
		t.Fatalf("PutItem on a full disk after %d: %d %s", acked, status, body)
	}
	if status, body := call(t, addr, "GetItem", `{"TableName":"Things","Key":{"pk":{"S":"k0"}}}`); status != 200 || !strings.Contains(body, big) {
		t.Errorf("GetItem on a full disk: %d", status)
	}
	if status, _, body := health(t, addr); status != 503 || !strings.Contains(body, "1510") || !strings.Contains(body, "disk is full") {
		t.Errorf("health on a full disk: %d %q", status, body)
	}
}
