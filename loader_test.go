package fdyno

import (
	"go/ast"
	gotoken "go/token"
	"slices"
	"testing"
)

// TestLoaderOnlyDecodes is a lint: the item loader (loader.go) is the one
// place that follows a manifest to its chunks and decodes a stored item.
// It fails if any other non-test file of the package calls the functions
// that do either, beyond the exceptions below, or reads an item head by
// its key.
func TestLoaderOnlyDecodes(t *testing.T) {
	// watched are the functions that read chunks or decode items.
	watched := []string{"isManifest", "decodeManifest", "startChunks", "joinChunks", "chunkKey", "DecodeItem"}
	// allowed lists, per file, the watched calls it may make, and why.
	allowed := map[string][]string{
		"loader.go": watched,
		// chunk.go defines the chunk format: it tells a manifest apart
		// and names the chunk keys it writes and startChunks reads.
		"chunk.go": {"isManifest", "chunkKey"},
		// Item.UnmarshalBinary is DecodeItem under another name.
		"codec.go": {"DecodeItem"},
		// A change record's images are items inside the record's own
		// format, never chunked and never an item head.
		"stream.go": {"DecodeItem"},
		// A backup's items and log records are whole encodings in the
		// backup's own parts (backup_log.go), never an item head.
		"restore.go": {"DecodeItem"},
		// An export's snapshot holds whole encodings in a backup's parts,
		// as restore.go's.
		"export_run.go": {"DecodeItem"},
	}
	fset := gotoken.NewFileSet()
	seen := map[string]bool{} // watched calls found in loader.go
	for _, src := range parseSources(t, fset) {
		name := src.name
		ast.Inspect(src.f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := callName(call)
			// A point read of an item head is the loader's too.
			if fn == "Get" && len(call.Args) == 1 && name != "loader.go" {
				if arg, ok := call.Args[0].(*ast.CallExpr); ok && callName(arg) == "itemKey" {
					t.Errorf("%s reads an item head: only the item loader (loader.go) does", fset.Position(call.Pos()))
				}
			}
			if !slices.Contains(watched, fn) {
				return true
			}
			if name == "loader.go" {
				seen[fn] = true
			}
			if !slices.Contains(allowed[name], fn) {
				t.Errorf("%s calls %s: only the item loader (loader.go) follows chunks and decodes items", fset.Position(call.Pos()), fn)
			}
			return true
		})
	}
	// The lint must see the loader's own calls, or it checks nothing.
	for _, fn := range []string{"decodeManifest", "startChunks", "joinChunks", "DecodeItem"} {
		if !seen[fn] {
			t.Errorf("loader.go does not call %s: the lint's list of watched functions is stale", fn)
		}
	}
}

// callName returns the name of the function call calls, or "".
func callName(call *ast.CallExpr) string {
	switch e := call.Fun.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}
