package fdyno

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMETour checks what a newcomer does first: paste the README's
// tour into a function and run it. The ```go blocks under "A five-minute
// tour", in order, become the body of a func() error in a main package
// inside this module (so no download is needed), which must build, run,
// and print what Example_tour's output says it prints.
func TestREADMETour(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	blocks, err := goBlocks("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(readme), "## A five-minute tour")
	end := start + strings.Index(string(readme[start+1:]), "\n## ") + 1
	first, last := lineOf(readme, start), lineOf(readme, end)
	var body []string
	for _, b := range blocks {
		if b.line > first && b.line < last {
			body = append(body, b.lines...)
		}
	}
	if len(body) == 0 {
		t.Fatal("no go blocks under the README's tour heading")
	}
	src := `package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

func tour() error {
` + strings.Join(body, "\n") + `
	return nil
}

func main() {
	if err := tour(); err != nil {
		panic(err)
	}
}
`
	if err := os.MkdirAll("build", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("build", "readme-tour-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "tour")
	if out, err := exec.Command("go", "build", "-o", bin, "./"+filepath.ToSlash(dir)).CombinedOutput(); err != nil {
		t.Fatalf("the README's tour does not build:\n%s\n%s", out, numbered(src))
	}
	cmd := exec.Command(bin)
	// fdblite's in-memory default, also when the tests run on a durable
	// default database (make durable-fdyno-test), which this process holds.
	cmd.Env = append(os.Environ(), "FDB_CLUSTER_FILE=", "FDBLITE_DATA_DIR=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's tour fails: %v\n%s", err, out)
	}
	const want = "{\"Plays\":{\"N\":\"1\"}}\n{\"Plays\":{\"N\":\"1\"}}\nCall Me Today\nCall Me Tonight\ntrue true\n"
	if string(out) != want {
		t.Errorf("the README's tour printed\n%s\nwant (Example_tour's output)\n%s", out, want)
	}
}

// lineOf is the 1-based line number of byte offset i of b.
func lineOf(b []byte, i int) int { return strings.Count(string(b[:i]), "\n") + 1 }

// numbered is src with line numbers, for a build error's report.
func numbered(src string) string {
	lines := strings.Split(src, "\n")
	for i := range lines {
		lines[i] = fmt.Sprintf("%3d  %s", i+1, lines[i])
	}
	return strings.Join(lines, "\n")
}
