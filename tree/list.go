package tree

import (
	"sync"

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
}

// Entry is one child of a directory.
type Entry struct {
	Name string
	// Kind is what is stored at the child's path. A listing row with
	// nothing beneath it, which dynamotree's Delete can leave but this
	// package never does, has Kind 0.
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

// listParallel bounds the reads List has in flight for the kinds of one
// page.
const listParallel = 32

// List returns a page of the direct children of dir (the empty path is the
// root) with their kinds. It reads one range of listing rows, then, all at
// once, each child's object row and the first row of its own listing. A
// bad path is a [*PathError], a bad cursor a [*CursorError].
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
	q := t.listQuery(dir, limit)
	if in.Cursor != nil {
		last, err := t.decodeCursor(dir, in.Cursor)
		if err != nil {
			return nil, err
		}
		q.ExclusiveStartKey = t.listingRow(dir, last)
	}
	return readTransact(rt, func(tr fdb.ReadTransaction) (*ListOutput, error) {
		res, err := t.table.Query(tr, q)
		if err != nil {
			return nil, err
		}
		out := &ListOutput{Entries: make([]Entry, len(res.Items))}
		for i, it := range res.Items {
			out.Entries[i].Name = it[ChildAttribute].S()
			if why := t.checkComponent(out.Entries[i].Name); why != "" {
				return nil, corrupt(t.dirKey(dir), "listing row names "+why)
			}
		}
		if err := t.kinds(tr, dir, out.Entries); err != nil {
			return nil, err
		}
		if res.LastEvaluatedKey != nil && len(out.Entries) > 0 {
			out.Cursor = t.encodeCursor(dir, out.Entries[len(out.Entries)-1].Name)
		}
		return out, nil
	})
}

// kinds fills in the kinds of entries. fdyno's reads return values, not
// futures, so reading them together takes goroutines; all of them end
// before kinds returns and none has a side effect outside tr, so a retried
// transaction is safe (FoundationDB transactions are safe for concurrent
// use).
func (t *Tree) kinds(tr fdb.ReadTransaction, dir Path, entries []Entry) error {
	errs := make([]error, len(entries))
	sem := make(chan struct{}, listParallel)
	var wg sync.WaitGroup
	for i := range entries {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			entries[i].Kind, errs[i] = t.kind(tr, dir.join(entries[i].Name))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// kind reads what is stored at p.
func (t *Tree) kind(tr fdb.ReadTransaction, p Path) (Kind, error) {
	var k Kind
	row, err := t.getRow(tr, p, "#r")
	if err != nil {
		return 0, err
	}
	if row != nil {
		k = KindObject
		if _, ok := row[t.r]; ok {
			k = KindLink
		}
	}
	sub, err := t.table.Query(tr, t.listQuery(p, 1))
	if err != nil {
		return 0, err
	}
	if len(sub.Items) > 0 {
		k |= KindDirectory
	}
	return k, nil
}
