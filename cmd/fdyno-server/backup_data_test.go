package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// backupDataCmd runs `fdyno-server backup-data args...` and returns its
// combined output and error.
func backupDataCmd(args ...string) (string, error) {
	cmd := exec.Command(os.Args[0], append([]string{"backup-data"}, args...)...)
	cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// backup-data copies a data directory while its server takes writes; a
// server started on the copy (after the first is killed) serves every
// item acknowledged before the copy began, and the items form a prefix of
// the writer's sequence: one moment of the database.
func TestBackupDataWhileServing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cmd, addr, logs := startServer(t, "--data-dir", dir)
	if status, body := call(t, addr, "CreateTable", `{"TableName":"Things","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`); status != 200 {
		t.Fatalf("CreateTable: %d %s", status, body)
	}
	put := func(i int) {
		if status, body := call(t, addr, "PutItem", fmt.Sprintf(`{"TableName":"Things","Item":{"pk":{"S":"item-%06d"}}}`, i)); status != 200 {
			t.Errorf("PutItem %d: %d %s", i, status, body)
		}
	}
	for i := 0; i < 200; i++ {
		put(i)
	}
	var acked atomic.Int64
	acked.Store(200)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 200; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			put(i)
			acked.Store(int64(i + 1))
		}
	}()
	before := acked.Load()
	dest := filepath.Join(t.TempDir(), "copy")
	out, err := backupDataCmd("--data-dir", dir, dest)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("backup-data: %v\n%s", err, out)
	}
	if !strings.Contains(out, "serve it with --data-dir "+dest) {
		t.Errorf("backup-data's output: %q", out)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	<-logs

	_, addr, _ = startServer(t, "--data-dir", dest)
	status, body := call(t, addr, "Scan", `{"TableName":"Things","ProjectionExpression":"pk"}`)
	if status != 200 {
		t.Fatalf("Scan of the copy: %d %s", status, body)
	}
	n := strings.Count(body, `"item-`)
	if int64(n) < before {
		t.Fatalf("the copy holds %d items; %d were acknowledged before backup-data started", n, before)
	}
	for i := 0; i < n; i++ {
		if !strings.Contains(body, fmt.Sprintf(`"item-%06d"`, i)) {
			t.Fatalf("the copy holds %d items but not item %d: not one moment of the database", n, i)
		}
	}
	t.Logf("%d items acknowledged before backup-data, %d in the copy", before, n)
}

func TestBackupDataRefuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	startServer(t, "--data-dir", dir)
	notEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(notEmpty, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no destination", []string{"--data-dir", dir}, "usage: fdyno-server backup-data"},
		{"two destinations", []string{"--data-dir", dir, "a", "b"}, "usage: fdyno-server backup-data"},
		{"destination not empty", []string{"--data-dir", dir, notEmpty}, "is not an empty directory"},
		{"no database", []string{"--data-dir", t.TempDir(), filepath.Join(t.TempDir(), "c")}, "is not a durable fdblite data directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := backupDataCmd(tc.args...)
			if err == nil || !strings.Contains(out, tc.want) {
				t.Fatalf("backup-data %v: %v\n%s\nwant an error saying %q", tc.args, err, out, tc.want)
			}
		})
	}
}
