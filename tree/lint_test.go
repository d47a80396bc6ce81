package tree

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// keys.go is the only file that makes the table's Key and Child values or
// splits them: no other file wraps a key of the layout in a value or
// joins or splits at the reserved character.
func TestOnlyKeysGoBuildsRows(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := regexp.MustCompile(`fdyno\.S\(t\.|t\.r \+|\+ t\.r|Split\([^)]*t\.r`)
	for _, f := range files {
		if f == "keys.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if forbidden.MatchString(line) {
				t.Errorf("%s:%d builds or parses a row key outside keys.go: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
