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
// them, and inside each layer in order, lowest first too. A file may use
// what the files before it declare, in its own layer or a lower one; a
// reference to a file after it is an arrow running back up. Every
// non-test file of the package must be named here, and only those, so a
// new file is placed on purpose.
var packageLayers = []struct {
	name  string
	files []string
}{
	{"model", []string{"doc.go", "value_ops.go", "errors.go", "number.go", "item.go", "marshal.go"}},
	{"stored formats", []string{"keys.go", "codec.go", "chunk.go"}},
	{"expressions", []string{"expression.go", "expression_keycond.go"}},
	{"table", []string{"schema.go", "index_keys.go", "transactor.go", "table_meta.go", "schema_validate.go", "table_state.go",
		"options.go", "index_def.go", "cursor.go", "counters.go", "table.go", "table_properties.go", "ttl.go", "access.go"}},
	{"core", []string{"change.go", "stream.go", "segment.go", "index.go", "counts.go", "unique.go", "stream_disabled.go", "loader.go",
		"backup_log.go", "item_ops.go", "backfill.go", "index_capacity.go", "write.go", "decide.go", "lease.go",
		"read_plan.go", "table_read.go", "index_read.go", "segment_read.go"}},
	{"operations", []string{"get.go", "batch_get.go", "batch_write.go", "transact_write.go", "transact_get.go", "delete.go",
		"query.go", "stream_read.go", "scan.go", "item_collection.go", "backup.go",
		"layer_api.go", "put.go", "stream_tail.go", "stream_consumer.go", "updatetable.go", "restore.go", "stream_trim.go",
		"update.go", "query_batch.go", "ttl_sweep.go", "stream_merge.go", "pitr.go", "pitr_trim.go", "counts_read.go",
		"delete_table.go", "counts_build.go",
		"bucket.go", "transfer_record.go", "export_ion.go", "import_json.go", "import_ion.go", "import_csv.go", "export.go", "export_files.go", "export_snapshot.go",
		"export_run.go", "import.go", "restore_run.go"}},
}

// upwardArrows are the file-to-file arrows allowed to run back up, each a
// pair of files that use each other, as a reader sees them: a type and
// the methods that file's concept adds to it. No other is allowed: place
// a new function in the file it belongs to, or say here why not.
var upwardArrows = map[fileRef]string{
	{"value_ops.go", "item.go"}:        "Value's operations on the Value type item.go declares and uses",
	{"value_ops.go", "marshal.go"}:     "a Value's own MarshalDynamo, which marshal.go's encoder calls",
	{"errors.go", "item.go"}:           "ConditionalCheckFailedError carries an Item; Item's errors are ValidationErrors",
	{"table_state.go", "table.go"}:     "the state cache is the Table's; the Table holds its state",
	{"table_state.go", "index_def.go"}: "a state's indexes; index_def.go adds their methods to the state",
	{"table.go", "access.go"}:          "the Table holds its guard; access.go adds the guard's checks to it",
	{"options.go", "access.go"}:        "WithGuard's option holds the guard access.go declares, as the Table does",
	{"change.go", "stream.go"}:         "a change carries its stream order prefetches",
	{"item_ops.go", "decide.go"}:       "the item fetch revalidates with its write action",
}

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

// TestLayers counts the file-to-file references that run from a file up
// to a file after it (docs/design.md, "Layers"), and fails on any not in
// upwardArrows, or when a file has no place. With -v it lists them.
func TestLayers(t *testing.T) {
	type place struct{ layer, index int }
	placeOf := map[string]place{}
	for i, l := range packageLayers {
		for j, f := range l.files {
			placeOf[f] = place{i, j}
		}
	}
	files, refs := fileReferences(t, ".")
	for _, f := range files {
		if _, ok := placeOf[f]; !ok {
			t.Errorf("%s has no place in packageLayers", f)
		}
	}
	for f := range placeOf {
		if !slices.Contains(files, f) {
			t.Errorf("packageLayers names %s, which is not a file of the package", f)
		}
	}
	below := func(a, b place) bool { return a.layer < b.layer || a.layer == b.layer && a.index < b.index }
	var up []fileRef
	for r := range refs {
		if below(placeOf[r.from], placeOf[r.to]) {
			up = append(up, r)
		}
	}
	slices.SortFunc(up, func(a, b fileRef) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
	})
	for _, r := range up {
		why, ok := upwardArrows[r]
		if !ok {
			t.Errorf("%s (%s) → %s (%s) runs back up: %s", r.from, packageLayers[placeOf[r.from].layer].name,
				r.to, packageLayers[placeOf[r.to].layer].name, strings.Join(refs[r], " "))
			continue
		}
		t.Logf("%s → %s: %s (%s)", r.from, r.to, strings.Join(refs[r], " "), why)
	}
	for r := range upwardArrows {
		if !slices.Contains(up, r) {
			t.Errorf("upwardArrows allows %s → %s, which no longer runs back up: remove it", r.from, r.to)
		}
	}
	t.Logf("%d file-to-file arrows, %d of them running back up", len(refs), len(up))
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
