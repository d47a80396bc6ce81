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

// listParallel bounds the reads List has in flight for the kinds of one
// page.
const listParallel = 32

// List returns a page of the direct children of dir (the empty path is the
// root) with their kinds. It reads one range of listing rows, then the
// children's object rows together (one TransactGet per 100), then, for
// each child that is an object or link, the first row of its own listing,
// those reads issued together. A
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
		if !in.NamesOnly {
			if err := t.kinds(tr, dir, out.Entries); err != nil {
				return nil, err
			}
		}
		if res.LastEvaluatedKey != nil && len(out.Entries) > 0 {
			out.Cursor = t.encodeCursor(dir, out.Entries[len(out.Entries)-1].Name)
		}
		return out, nil
	})
}

// kinds fills in the kinds of entries. The object rows of the page are
// read together, with TransactGet (one wave per 100). A child with no
// object row is a directory (a listing row always has something beneath
// it); a child with one needs a one-row read of its own listing to tell.
// fdyno's Query returns values, not futures, so issuing those reads
// together takes goroutines; all of them end before kinds returns and none
// has an effect outside tr, so a retried transaction is safe
// (FoundationDB transactions are safe for concurrent use).
func (t *Tree) kinds(tr fdb.ReadTransaction, dir Path, entries []Entry) error {
	for start := 0; start < len(entries); start += maxTransactGet {
		chunk := entries[start:min(start+maxTransactGet, len(entries))]
		in := fdyno.TransactGetInput{TransactItems: make([]fdyno.TransactGetItem, len(chunk))}
		for i, e := range chunk {
			in.TransactItems[i] = fdyno.TransactGetItem{
				Table:                    t.table,
				Key:                      t.objectRowKey(dir.join(e.Name)),
				ProjectionExpression:     "#k, #r",
				ExpressionAttributeNames: map[string]string{"#k": KeyAttribute, "#r": t.r},
			}
		}
		out, err := fdyno.TransactGet(tr, in)
		if err != nil {
			return err
		}
		for i, res := range out.Responses {
			switch {
			case res.Item == nil:
				chunk[i].Kind = KindDirectory
			case res.Item[t.r].IsZero():
				chunk[i].Kind = KindObject
			default:
				chunk[i].Kind = KindLink
			}
		}
	}
	errs := make([]error, len(entries))
	sem := make(chan struct{}, listParallel)
	var wg sync.WaitGroup
	for i := range entries {
		if entries[i].Kind == KindDirectory {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var k Kind
			k, errs[i] = t.dirKind(tr, dir.join(entries[i].Name))
			entries[i].Kind |= k
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

// maxTransactGet is the most items one TransactGet reads (DynamoDB's
// TransactGetItems limit).
const maxTransactGet = 100

// dirKind is KindDirectory if p lists a child.
func (t *Tree) dirKind(tr fdb.ReadTransaction, p Path) (Kind, error) {
	sub, err := t.table.Query(tr, t.listQuery(p, 1))
	if err != nil || len(sub.Items) == 0 {
		return 0, err
	}
	return KindDirectory, nil
}
