package dcb

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keys.go is the one file that builds keys: no other file of the package
// imports the tuple layer or calls the key-building bindings.
func TestOnlyKeysBuildsKeys(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if name == "keys.go" || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if strings.HasSuffix(imp.Path.Value, `/tuple"`) {
				t.Errorf("%s imports the tuple layer: build keys in keys.go", name)
			}
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{".Pack(", "PackWithVersionstamp("} {
			if strings.Contains(string(src), call) {
				t.Errorf("%s calls %s: build keys in keys.go", name, call)
			}
		}
	}
}
