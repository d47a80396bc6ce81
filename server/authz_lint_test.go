package server

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHandlesAreGuarded fails closed by construction: an operation's
// file that opened a table handle itself (openTable) or ran PartiQL on
// the namespace's unguarded executor would touch data that no guard sees.
// Only the handle cache (tables.go), the guard (authz.go), the checks'
// key schema lookup (policy_request.go), the background work
// (background.go; backup_jobs.go, whose backups and restores the request
// that started them was checked for, whole-table) and the executor's
// construction (partiql.go's newPartiQL) may use them.
func TestHandlesAreGuarded(t *testing.T) {
	allowed := map[string]bool{"tables.go": true, "authz.go": true, "policy_request.go": true, "background.go": true, "backup_jobs.go": true, "partiql.go": true}
	unguarded := regexp.MustCompile(`\.openTable\(|\.pq\.(Execute|BatchExecute)`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := unguarded.FindString(line); m != "" && !(allowed[f] && !strings.Contains(m, ".pq.")) {
				t.Errorf("%s:%d: %s outside the guarded path (tableFor, partiQL)", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestOperationsAuthorize checks that every operation New registers is
// built by handler, the one request path that authorizes (a function
// registered otherwise would run unchecked).
func TestOperationsAuthorize(t *testing.T) {
	src, err := os.ReadFile("server.go")
	if err != nil {
		t.Fatal(err)
	}
	registered := regexp.MustCompile(`(?m)^\s*(targetPrefix|streamsTargetPrefix) \+ "(\w+)":\s*(.*),$`)
	n := 0
	for _, m := range registered.FindAllStringSubmatch(string(src), -1) {
		n++
		if !strings.HasPrefix(m[3], "handler((*Server).") {
			t.Errorf("operation %s is registered as %s, not through handler", m[2], m[3])
		}
	}
	if ts := newTestServer(t, Config{}); n != len(ts.ops) {
		t.Errorf("found %d registrations in server.go, the server has %d operations", n, len(ts.ops))
	}
}
