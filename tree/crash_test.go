package tree

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// The writer crash test: a child process makes random tree changes (Put,
// PutLink, Delete, DeleteTree) in a durable fdblite database and is killed
// with SIGKILL at a random moment; the next child, on reopening, checks the
// tree's invariants (treeProblems: every object listed in its ancestors,
// every listing row with something beneath it), so no kill leaves a
// half-written path or a listing that lies. FDYNO_TREE_CRASH_ROUNDS=N sets
// the number of kills.
const (
	envTreeCrashDir   = "FDYNO_TREE_CRASHTEST_DIR"
	envTreeCrashRound = "FDYNO_TREE_CRASHTEST_ROUND"
)

// TestWriterCrashChild is the child's body; it is skipped unless
// TestWriterCrash runs it.
func TestWriterCrashChild(t *testing.T) {
	dir := os.Getenv(envTreeCrashDir)
	if dir == "" {
		t.Skip("the child of TestWriterCrash")
	}
	round, _ := strconv.Atoi(os.Getenv(envTreeCrashRound))
	db, err := fdblitetest.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fdyno.Open(db, "Tree", fdyno.WithRoot("crash"), fdyno.WithSchema(TableSchema()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Open(db, tbl, Options{Watch: subspace.Sub("crash-watch")})
	if err != nil {
		t.Fatal(err)
	}
	problems := treeProblems(t, db, tr)
	fmt.Printf("ROWS %d\n", len(allRows(t, db, tr)))
	for _, p := range problems {
		fmt.Println("PROBLEM", p)
	}
	fmt.Println("READY")
	if round < 0 {
		return // the last check
	}
	r := rand.New(rand.NewPCG(uint64(round), 7))
	for {
		if _, err := randomOp(tr, db, r, nil); err != nil && !errors.Is(err, ErrNotFound) {
			fmt.Println("ERROR", err)
			return
		}
	}
}

func TestWriterCrash(t *testing.T) {
	rounds := 8
	if s := os.Getenv("FDYNO_TREE_CRASH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	sawRows := false
	for round := 0; round <= rounds; round++ {
		if round == rounds {
			round = -1 // a last child only checks
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envTreeCrashDir+"="+dir, envTreeCrashRound+"="+strconv.Itoa(round))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		ready := false
		for !ready && sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "PROBLEM"), strings.HasPrefix(line, "ERROR"):
				t.Errorf("round %d: %s", round, line)
			case strings.HasPrefix(line, "ROWS "):
				sawRows = sawRows || line != "ROWS 0"
			case line == "READY":
				ready = true
			}
		}
		if !ready {
			_ = cmd.Wait()
			t.Fatalf("round %d: the child ended before it was ready", round)
		}
		if round < 0 {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("last check: %v", err)
			}
			break
		}
		time.Sleep(time.Duration(20+r.IntN(80)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() { // the rest of its output, until the pipe closes
			if line := sc.Text(); strings.HasPrefix(line, "ERROR") {
				t.Errorf("round %d: %s", round, line)
			}
		}
		_ = cmd.Wait()
	}
	if !sawRows {
		t.Error("no child found any row: the writers wrote nothing")
	}
}
