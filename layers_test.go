package fdyno

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/importer"
	goparser "go/parser"
	gotoken "go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The package's files in layers, lowest first, as docs/design.md draws
// them. A file may use what files of its own layer or of lower layers
// declare; a reference to a higher layer is an arrow running back up.
// Every non-test file of the package must be named here, and only those,
// so a new file is placed on purpose.
var packageLayers = []struct {
	name  string
	files []string
}{
	{"model", []string{"doc.go", "errors.go", "item.go", "number.go", "value_ops.go", "marshal.go"}},
	{"stored formats", []string{"codec.go", "keys.go", "chunk.go"}},
	{"expressions", []string{"expression.go",
		"expression_keycond.go"}},
	{"table", []string{"transactor.go", "schema.go", "schema_validate.go", "options.go", "table_state.go", "table.go", "table_meta.go", "table_properties.go", "index_def.go", "index_keys.go", "ttl.go",
		"cursor.go", "access.go", "counters.go"}},
	{"core", []string{"loader.go", "decide.go", "write.go", "item_ops.go", "index.go", "backfill.go", "segment.go", "counts.go", "unique.go",
		"stream.go", "stream_disabled.go", "backup_log.go"}},
	{"operations", []string{"put.go", "get.go", "update.go", "delete.go", "query.go", "query_batch.go", "scan.go", "segment_read.go",
		"index_read.go", "batch_get.go", "batch_write.go", "transact_get.go", "transact_write.go", "ttl_sweep.go",
		"updatetable.go", "item_collection.go", "stream_read.go", "stream_tail.go", "stream_consumer.go",
		"stream_trim.go", "stream_merge.go", "layer_api.go", "backup.go", "restore.go", "pitr.go", "counts_read.go"}},
}

// maxUpwardArrows is the most file-to-file arrows allowed to run back up
// the layers: none. Move a function to the layer it belongs to rather
// than raise it.
const maxUpwardArrows = 0

// fileRef is one file's use of something another file of the package
// declares.
type fileRef struct{ from, to string }

// fileReferences type-checks the non-test files of the package in dir and
// returns their names and, for every pair of distinct files, the names
// the first uses that the second declares (package-level names, methods
// and struct fields).
func fileReferences(t *testing.T, dir string) (files []string, refs map[fileRef][]string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	var parsed []*ast.File
	imports := map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, goparser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		files = append(files, filepath.Base(name))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			imports[p] = true
		}
	}
	conf := types.Config{Importer: exportDataImporter(t, fset, imports)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check("github.com/fdyno/fdyno", fset, parsed, info)
	if err != nil {
		t.Fatal(err)
	}
	refs = map[fileRef][]string{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to {
			continue
		}
		r := fileRef{from, to}
		if !slices.Contains(refs[r], obj.Name()) {
			refs[r] = append(refs[r], obj.Name())
		}
	}
	for _, names := range refs {
		slices.Sort(names)
	}
	return files, refs
}

// exportDataImporter imports the packages the package imports from the
// export data the go command builds for them.
func exportDataImporter(t *testing.T, fset *gotoken.FileSet, imports map[string]bool) types.Importer {
	t.Helper()
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}
	for p := range imports {
		args = append(args, p)
	}
	var stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// TestLayers counts the file-to-file references that run from a lower
// layer up to a higher one (docs/design.md, "Layers"), and fails when
// there are more than maxUpwardArrows or a file has no layer. With -v it
// lists them.
func TestLayers(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range packageLayers {
		for _, f := range l.files {
			layerOf[f] = i
		}
	}
	files, refs := fileReferences(t, ".")
	for _, f := range files {
		if _, ok := layerOf[f]; !ok {
			t.Errorf("%s has no layer in packageLayers", f)
		}
	}
	for f := range layerOf {
		if !slices.Contains(files, f) {
			t.Errorf("packageLayers names %s, which is not a file of the package", f)
		}
	}
	var up []fileRef
	for r := range refs {
		if layerOf[r.from] < layerOf[r.to] {
			up = append(up, r)
		}
	}
	slices.SortFunc(up, func(a, b fileRef) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
	})
	for _, r := range up {
		t.Logf("%s (%s) → %s (%s): %s", r.from, packageLayers[layerOf[r.from]].name,
			r.to, packageLayers[layerOf[r.to]].name, strings.Join(refs[r], " "))
	}
	t.Logf("%d file-to-file arrows, %d of them running back up the layers", len(refs), len(up))
	if len(up) > maxUpwardArrows {
		t.Errorf("%d arrows run back up the layers, want at most %d", len(up), maxUpwardArrows)
	}
}

// TestFileReferences checks the measure on testdata/layers, whose low.go
// reaches up to high.go through a method, a struct field and a
// package-level name, and whose high.go uses low.go.
func TestFileReferences(t *testing.T) {
	files, refs := fileReferences(t, filepath.Join("testdata", "layers"))
	if want := []string{"high.go", "low.go"}; !slices.Equal(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
	want := map[fileRef][]string{
		{"low.go", "high.go"}: {"Greeting", "limit", "name", "upper"},
		{"high.go", "low.go"}: {"base", "lower"},
	}
	if len(refs) != len(want) {
		t.Errorf("refs = %v, want %v", refs, want)
	}
	for r, names := range want {
		if !slices.Equal(refs[r], names) {
			t.Errorf("%s → %s uses %v, want %v", r.from, r.to, refs[r], names)
		}
	}
}
