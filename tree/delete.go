package tree

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// The conflict rule is stated in doc.go (# Conflicts); hasChild below is
// where its third point is made.

// Delete removes the object (or link) at p and, if nothing remains under
// p, p's listing row and every ancestor's that has nothing left beneath it,
// all in one transaction. Objects under p stay. Nothing at p is
// [ErrNotFound]; a bad path a [*PathError]; then nothing is written. See
// the conflict rule in the package documentation.
func (t *Tree) Delete(tx fdb.Transactor, p Path) error {
	if err := t.checkPath("Delete", p); err != nil {
		return err
	}
	_, err := fdyno.Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		row, err := t.getRow(tr, p, "#c")
		if err != nil {
			return struct{}{}, err
		}
		if row == nil {
			return struct{}{}, notFound("Delete", p)
		}
		c := newChange()
		c.clearObject(t, p)
		keep, err := t.hasChild(tr, p, "", true)
		if err != nil {
			return struct{}{}, err
		}
		if !keep {
			if err := t.prune(tr, p, c); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, t.apply(tr, c)
	})
	return err
}

// DeleteTree removes the object at p and everything under p, and the
// listing rows of p and of the ancestors left with nothing beneath them,
// in one transaction; p empty is the whole tree. It reads every listing
// row under p first and writes nothing if they pass Options.MaxRows or
// Options.MaxBytes ([*TooLargeError]) or if there is nothing at or under p
// ([ErrNotFound]). It reads level by level: each level's listings
// together, then its children's object rows together.
func (t *Tree) DeleteTree(tx fdb.Transactor, p Path) error {
	if err := t.checkDir("DeleteTree", p); err != nil {
		return err
	}
	_, err := fdyno.Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		c := newChange()
		b := t.newBudget("DeleteTree", p)
		found := false
		if len(p) > 0 {
			row, err := t.getRow(tr, p, "#c")
			if err != nil {
				return struct{}{}, err
			}
			if row != nil {
				found = true
				c.clearObject(t, p)
				if err := b.add(row); err != nil {
					return struct{}{}, err
				}
			}
		}
		err := t.subtree(tr, p, b, false, func(dir Path, name string, obj fdyno.Item) {
			found = true
			c.clearListing(t, dir, name)
			if obj != nil {
				c.clearObject(t, dir.join(name))
			}
		})
		if err != nil {
			return struct{}{}, err
		}
		if !found {
			return struct{}{}, notFound("DeleteTree", p)
		}
		if len(p) > 0 {
			if err := t.prune(tr, p, c); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, t.apply(tr, c)
	})
	return err
}

// prune adds to c the removal of p's listing row and then of each
// ancestor's that is not an object and has no child but the one being
// removed. Precondition: once c applies, nothing is at or under p.
//
// The ancestor it stops at because it is an object loses a child; if it
// is left with none, its entry changes kind (object and directory to
// object), which no row of its parent's listing shows: on a tree with
// watch counters prune looks for another child (hasChild, but with no
// conflict on an empty listing: a concurrent Put into it counts the same
// counter) and counts the parent's counter if there is none.
func (t *Tree) prune(tr fdb.Transaction, p Path, c *change) error {
	c.clearListing(t, p.parent(), p.name())
	for q := p.parent(); len(q) > 0; q = q.parent() {
		row, err := t.getRow(tr, q, "#c")
		if err != nil {
			return err
		}
		if row != nil {
			if t.watch == nil {
				return nil
			}
			keep, err := t.hasChild(tr, q, p[len(q)], false)
			if err == nil && !keep {
				c.touch(t, q.parent())
			}
			return err
		}
		keep, err := t.hasChild(tr, q, p[len(q)], true)
		if err != nil || keep {
			return err
		}
		c.clearListing(t, q.parent(), q.name())
	}
	return nil
}

// hasChild reports whether directory dir lists a child other than except
// (none if empty). Its read conflicts follow the rule above: a snapshot
// read finds a witness, and then only the witness's row is read for
// conflicts; if there is none, the whole listing is, if emptied says
// that the caller removes dir's listing row then.
func (t *Tree) hasChild(tr fdb.Transaction, dir Path, except string, emptied bool) (bool, error) {
	in := t.listQuery(dir, 2)
	out, err := t.table.Query(tr.Snapshot(), in)
	if err != nil {
		return false, err
	}
	for _, it := range out.Items {
		if name := it[ChildAttribute].S(); name != except {
			_, err := t.table.Get(tr, fdyno.GetInput{Key: t.listingRow(dir, name)})
			return true, err
		}
	}
	if emptied {
		_, err = t.table.Query(tr, in)
	}
	return false, err
}

// subtree calls f for every listing row under directory p, with the
// object row of the child it lists (nil if none; all attributes if full,
// else only the keys), reading both for conflicts and counting them in b.
// It goes one level at a time, and each level is one wave of reads (one
// fdyno.QueryBatch): the listings of the level's directories together
// with the object rows of those same directories, whose names the
// previous level's listings gave. A listing longer than a page adds a
// wave for its next page. So a subtree of d levels costs d+1 waves
// whatever its width (issue 35: Move of 1,000 objects read their rows 10
// at a time, one batch after another). The callback sees a parent's row
// before its children's.
func (t *Tree) subtree(tr fdb.Transaction, p Path, b *budget, full bool, f func(dir Path, name string, obj fdyno.Item)) error {
	// parents[i] lists level[i]; p, at the top, is no one's child here
	// (its caller reads its row).
	level, parents, top := []Path{p}, []Path{nil}, true
	for len(level) > 0 {
		listings, objs, err := t.readLevel(tr, level, !top, full)
		if err != nil {
			return err
		}
		var next, nextParents []Path
		for i, q := range level {
			if !top {
				if objs[i] != nil {
					if err := b.add(objs[i]); err != nil {
						return err
					}
				}
				f(parents[i], q.name(), objs[i])
			}
			for _, it := range listings[i] {
				name := it[ChildAttribute].S()
				if why := t.checkComponent(name); why != "" {
					return corrupt(t.dirKey(q), "listing row names "+why)
				}
				if err := b.add(it); err != nil {
					return err
				}
				next, nextParents = append(next, q.join(name)), append(nextParents, q)
			}
		}
		level, parents, top = next, nextParents, false
	}
	return nil
}

// readLevel reads, for conflicts, all the listing rows of dirs and, if
// rows, their object rows (whole if full, else the keys), in one
// fdyno.QueryBatch, then further pages of the listings longer than one,
// each wave holding every listing's next page.
func (t *Tree) readLevel(tr fdb.Transaction, dirs []Path, rows, full bool) ([][]fdyno.Item, []fdyno.Item, error) {
	listings := make([][]fdyno.Item, len(dirs))
	objs := make([]fdyno.Item, len(dirs))
	qs := make([]fdyno.QueryBatchInput, 0, 2*len(dirs))
	var of []int // the directory of each listing query of qs, -1 - i for the object row of dirs[i]
	for i, dir := range dirs {
		qs, of = append(qs, fdyno.QueryBatchInput{Table: t.table, Input: t.listQuery(dir, 0)}), append(of, i)
		if rows {
			in := t.objectRowQuery(dir)
			if full {
				in.ProjectionExpression = ""
				delete(in.ExpressionAttributeNames, "#r")
			}
			qs, of = append(qs, fdyno.QueryBatchInput{Table: t.table, Input: in}), append(of, -1-i)
		}
	}
	for len(qs) > 0 {
		outs, err := fdyno.QueryBatch(tr, qs)
		if err != nil {
			return nil, nil, err
		}
		var next []fdyno.QueryBatchInput
		var nextOf []int
		for j, out := range outs {
			if of[j] < 0 {
				if len(out.Items) > 0 {
					objs[-1-of[j]] = out.Items[0]
				}
				continue
			}
			listings[of[j]] = append(listings[of[j]], out.Items...)
			if out.LastEvaluatedKey != nil {
				q := qs[j]
				q.Input.ExclusiveStartKey = out.LastEvaluatedKey
				next, nextOf = append(next, q), append(nextOf, of[j])
			}
		}
		qs, of = next, nextOf
	}
	return listings, objs, nil
}

// budget counts the rows and bytes of a DeleteTree or Move against the
// tree's bounds.
type budget struct {
	t          *Tree
	op         string
	p          Path
	rows, size int
}

// rowOverhead is what a row costs beyond its attributes: fdyno's key
// prefixes, its partition directory entry and a conflict range (an
// estimate, on the safe side, for the byte bound).
const rowOverhead = 100

func (t *Tree) newBudget(op string, p Path) *budget { return &budget{t: t, op: op, p: p} }

func (b *budget) add(row fdyno.Item) error {
	b.rows++
	b.size += row.Size() + rowOverhead
	if b.rows > b.t.maxRows || b.size > b.t.maxBytes {
		return &TooLargeError{Op: b.op, Path: append(Path(nil), b.p...), Rows: b.rows, Bytes: b.size, MaxRows: b.t.maxRows, MaxBytes: b.t.maxBytes}
	}
	return nil
}
