package tree

import (
	"context"
	"iter"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// WalkEntry is one path Walk visits.
type WalkEntry struct {
	Path Path
	Kind Kind
}

// walkPage is the List page size of Walk.
const walkPage = DefaultListLimit

// Walk yields every path under prefix (not prefix itself), depth first, a
// directory's children in byte order of their names and each before what
// is under it, with its kind. It reads one List page at a time: in rt if
// rt is a transaction, so the walk sees one snapshot, or each page in a
// transaction of its own if rt is a database, so a long walk never meets
// FoundationDB's 5-second limit but sees each page as of its own read.
// It stops at the first error, which it yields, and when ctx is done.
func (t *Tree) Walk(ctx context.Context, rt fdb.ReadTransactor, prefix Path) iter.Seq2[WalkEntry, error] {
	return func(yield func(WalkEntry, error) bool) {
		if err := t.checkDir("Walk", prefix); err != nil {
			yield(WalkEntry{}, err)
			return
		}
		t.walk(ctx, rt, prefix, yield)
	}
}

func (t *Tree) walk(ctx context.Context, rt fdb.ReadTransactor, dir Path, yield func(WalkEntry, error) bool) bool {
	in := ListInput{Limit: walkPage}
	for {
		if err := ctx.Err(); err != nil {
			return yield(WalkEntry{}, err) && false
		}
		out, err := t.List(rt, dir, in)
		if err != nil {
			return yield(WalkEntry{}, err) && false
		}
		for _, e := range out.Entries {
			p := dir.join(e.Name)
			if !yield(WalkEntry{Path: p, Kind: e.Kind}, nil) {
				return false
			}
			if e.Kind&KindDirectory != 0 && !t.walk(ctx, rt, p, yield) {
				return false
			}
		}
		if out.Cursor == nil {
			return true
		}
		in.Cursor = out.Cursor
	}
}
