package tree

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// Limits of one List page.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// ListInput is the request of List. Zero values are the defaults.
type ListInput struct {
	// Limit is the most entries of the page: 0 means DefaultListLimit; at
	// most MaxListLimit.
	Limit int
	// Cursor is the Cursor of the previous page of the same directory.
	Cursor []byte
	// NamesOnly leaves every Kind 0 and reads only the listing rows: the
	// page is then one range read, as a Query is.
	NamesOnly bool
}

// Entry is one child of a directory.
type Entry struct {
	Name string
	// Kind is what is stored at the child's path. A listing row with
	// nothing beneath it, which dynamotree's Delete can leave but this
	// package never does, shows as an empty KindDirectory: List infers a
	// directory from a listing row without an object row.
	Kind Kind
}

// ListOutput is one page of a directory's children, in byte order of
// their names.
type ListOutput struct {
	Entries []Entry
	// Cursor continues the listing after the last entry; nil when the
	// directory has no more children. It is opaque, bound to the
	// directory, and stays valid across transactions and changes.
	Cursor []byte
}

// List returns a page of the direct children of dir (the empty path is the
// root) with their kinds. It reads one range of listing rows, then the
// children's object rows and the first row of each child's own listing,
// all together (one fdyno.QueryBatch): a page with kinds costs a read
// version and two waves of reads. A bad path is a [*PathError], a bad
// cursor a [*CursorError].
//
// rt is the caller's transaction or snapshot, or a database, which runs a
// transaction of its own for the page.
func (t *Tree) List(rt fdb.ReadTransactor, dir Path, in ListInput) (*ListOutput, error) {
	if err := t.checkDir("List", dir); err != nil {
		return nil, err
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = DefaultListLimit
	case limit < 0 || limit > MaxListLimit:
		return nil, &fdyno.ValidationError{Op: "tree.List", Path: "Limit", Reason: "must be between 1 and 1000"}
	}
	// One row more than the page: whether it comes back says whether a
	// next page exists, so a page that ends the directory has no cursor
	// (a DynamoDB Query's LastEvaluatedKey after exactly Limit items does
	// not say that).
	q := t.listQuery(dir, limit+1)
	if in.Cursor != nil {
		last, err := t.decodeCursor(dir, in.Cursor)
		if err != nil {
			return nil, err
		}
		q.ExclusiveStartKey = t.listingRow(dir, last)
	}
	return fdyno.ReadTransact(rt, func(tr fdb.ReadTransaction) (*ListOutput, error) {
		res, err := t.table.Query(tr, q)
		if err != nil {
			return nil, err
		}
		items, more := res.Items, res.LastEvaluatedKey != nil
		if len(items) > limit {
			items, more = items[:limit], true
		}
		out := &ListOutput{Entries: make([]Entry, len(items))}
		for i, it := range items {
			out.Entries[i].Name = it[ChildAttribute].S()
			if why := t.checkComponent(out.Entries[i].Name); why != "" {
				return nil, corrupt(t.dirKey(dir), "listing row names "+why)
			}
		}
		if !in.NamesOnly {
			if err := t.kinds(tr, dir, out.Entries); err != nil {
				return nil, err
			}
		}
		if more && len(out.Entries) > 0 {
			out.Cursor = t.encodeCursor(dir, out.Entries[len(out.Entries)-1].Name)
		}
		return out, nil
	})
}

// kinds fills in the kinds of entries with one fdyno.QueryBatch: for each
// child, the query of its object row and the one-row query of its own
// listing, all in flight together. A child with no object row is a
// directory (a listing row always has something beneath it); a child
// with one is also a directory if it lists a child.
func (t *Tree) kinds(tr fdb.ReadTransaction, dir Path, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	qs := make([]fdyno.QueryBatchInput, 0, 2*len(entries))
	for _, e := range entries {
		p := dir.join(e.Name)
		qs = append(qs, fdyno.QueryBatchInput{Table: t.table, Input: t.objectRowQuery(p)},
			fdyno.QueryBatchInput{Table: t.table, Input: t.listQuery(p, 1)})
	}
	outs, err := fdyno.QueryBatch(tr, qs)
	if err != nil {
		return err
	}
	for i := range entries {
		rows, listed := outs[2*i].Items, len(outs[2*i+1].Items) > 0
		switch {
		case len(rows) == 0:
			entries[i].Kind = KindDirectory
		case rows[0][t.r].IsZero():
			entries[i].Kind = KindObject
		default:
			entries[i].Kind = KindLink
		}
		if len(rows) > 0 && listed {
			entries[i].Kind |= KindDirectory
		}
	}
	return nil
}
