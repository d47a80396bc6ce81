package main

import (
	"bytes"
	"strings"
	"testing"
)

// The benchmark runs its whole workload against fdyno-server (small, and
// without dynalite, which make bench-server installs) and reports one
// line per operation and client count.
func TestRunFdynoOnly(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, "", "", 40, 4); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1+3*2 {
		t.Fatalf("report has %d lines, want a header and 6:\n%s", len(lines), out.String())
	}
	for _, want := range []string{"PutItem", "GetItem", "Query"} {
		if strings.Count(out.String(), want) != 2 {
			t.Errorf("report lacks two %s lines:\n%s", want, out.String())
		}
	}
}
