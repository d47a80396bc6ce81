package tree

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// listing.go: how a write lists a path (Put, PutLink, and Move for its
// destination). It reads, in one wave (one fdyno.TransactGet), the listing
// row of each prefix of the path and, when the tree keeps watch counters,
// the object row of each proper ancestor; then the change writes only the
// listing rows that are missing, and counts a change only in the
// directories whose listing changes. A Put into an existing directory so
// writes its object row and its directory's counter and nothing else: no
// ancestor's row, no partition directory entry of an ancestor's listing
// (fdyno writes one for every blind write), no ancestor's counter. The
// root's rows and counter change only with the root's listing: a
// top-level entry added or removed, or a top-level object written.
//
// Those reads are for conflicts (the rule in doc.go, # Conflicts): a row
// read as present is not written, so the write must abort if a concurrent
// Delete removes it; a row read as missing is written, so a concurrent
// write that creates it too makes one of the two retry, and the retry
// finds the row. An ancestor object read as absent means its entry's kind
// does not change (below), so its creation must abort the write too.

// pathRows is what a write read of the rows that list path p: listed[i]
// says whether p[:i] lists p[i]; object[i], for i ≥ 1 and only on a tree
// with watch counters (nil otherwise), whether p[:i] is an object.
type pathRows struct {
	p      Path
	listed []bool
	object []bool
}

// readPath reads, in tr and in one fdyno.TransactGet together with the
// rows of extra (table keys; whether each exists is returned), the rows
// that list p. The rows are read whole: a projection costs more to plan
// per key than a listing row or a small object costs to decode.
func (t *Tree) readPath(tr fdb.Transaction, p Path, extra ...fdyno.Item) (pathRows, []bool, error) {
	keys := make([]fdyno.Item, 0, len(extra)+2*len(p))
	keys = append(keys, extra...)
	for i := range p {
		keys = append(keys, t.listingRow(p[:i], p[i]))
	}
	if t.watch != nil {
		for i := 1; i < len(p); i++ {
			keys = append(keys, t.objectRowKey(p[:i]))
		}
	}
	in := fdyno.TransactGetInput{TransactItems: make([]fdyno.TransactGetItem, len(keys))}
	for i, k := range keys {
		in.TransactItems[i] = fdyno.TransactGetItem{Table: t.table, Key: k}
	}
	out, err := fdyno.TransactGet(tr, in)
	if err != nil {
		return pathRows{}, nil, err
	}
	found := make([]bool, len(keys))
	for i, r := range out.Responses {
		found[i] = r.Item != nil
	}
	rest := found[len(extra):]
	r := pathRows{p: p, listed: rest[:len(p)]}
	if t.watch != nil {
		r.object = append([]bool{false}, rest[len(p):]...)
	}
	return r, found[:len(extra)], nil
}

// listPath adds to c the listing rows of r.p that r found missing. A row
// found present stays, even if c removes it (Move: an ancestor of the
// source that the move empties but the destination is under). Where a
// new row gives a child to an ancestor that is an object, that object's
// entry may change kind (object to object and directory, if the child is
// its first), so the counter of the object's directory counts it too, at
// least once as Watch promises; an ancestor that is no object was a
// directory already, and a new entry is counted by its own row.
func (c *change) listPath(t *Tree, r pathRows) {
	for i := range r.p {
		row := t.listingRow(r.p[:i], r.p[i])
		if r.listed[i] {
			c.keep(row)
			continue
		}
		c.puts = append(c.puts, row)
		if r.object != nil && r.object[i] {
			c.touch(t, r.p[:i-1])
		}
	}
}
