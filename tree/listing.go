package tree

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// listing.go: how a write lists a path (Put, PutLink, and Move for its
// destination). It reads, in one wave (one fdyno.QueryBatch), the listing
// row of each prefix of the path and, when the tree keeps watch counters,
// the object row of each proper ancestor; then the change writes only the
// listing rows that are missing, and counts a change only in the
// directories whose listing changes. A Put into an existing directory so
// writes its object row and nothing else: no ancestor's row, no
// partition directory entry of an ancestor's listing (fdyno writes one
// for every blind write), no ancestor's counter. The root is written only
// by a write that adds a top-level entry.
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

// readPath reads, in tr and in one fdyno.QueryBatch together with extra
// (whose outputs it returns), the rows that list p.
func (t *Tree) readPath(tr fdb.Transaction, p Path, extra ...fdyno.QueryBatchInput) (pathRows, []*fdyno.QueryOutput, error) {
	qs := make([]fdyno.QueryBatchInput, 0, len(extra)+2*len(p))
	qs = append(qs, extra...)
	for i := range p {
		qs = append(qs, fdyno.QueryBatchInput{Table: t.table, Input: t.listingRowQuery(p[:i], p[i])})
	}
	if t.watch != nil {
		for i := 1; i < len(p); i++ {
			qs = append(qs, fdyno.QueryBatchInput{Table: t.table, Input: t.objectRowQuery(p[:i])})
		}
	}
	outs, err := fdyno.QueryBatch(tr, qs)
	if err != nil {
		return pathRows{}, nil, err
	}
	r := pathRows{p: p, listed: make([]bool, len(p))}
	rest := outs[len(extra):]
	for i := range p {
		r.listed[i] = len(rest[i].Items) > 0
	}
	if t.watch != nil {
		r.object = make([]bool, len(p))
		for i := 1; i < len(p); i++ {
			r.object[i] = len(rest[len(p)+i-1].Items) > 0
		}
	}
	return r, outs[:len(extra)], nil
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
