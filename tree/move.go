package tree

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// Move moves the object at from and everything under from to the same
// places under to, in one transaction: afterwards nothing is at or under
// from (its emptied ancestors are unlisted as Delete does) and to's
// ancestors list it. Links are moved as they are; their targets are not
// rewritten.
//
// to must be free: an object or anything under to is [ErrExists], to
// under from a [*PathError], nothing at or under from [ErrNotFound], a
// subtree past Options.MaxRows or MaxBytes a [*TooLargeError]; then
// nothing is written. Move reads the source like DeleteTree, so its
// conflicts follow the rule in the package documentation, plus the
// destination's object row and listing, and it lists the destination as
// Put does (only its missing listing rows).
func (t *Tree) Move(tx fdb.Transactor, from, to Path) error {
	if err := t.checkPath("Move", from); err != nil {
		return err
	}
	if err := t.checkPath("Move", to); err != nil {
		return err
	}
	if to.hasPrefix(from) {
		return t.pathError("Move", to, "destination is the source or under it")
	}
	_, err := fdyno.Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		// The destination's object row, read with the rows that list it.
		dest, destRow, err := t.readPath(tr, to, t.objectRowKey(to))
		if err != nil {
			return struct{}{}, err
		}
		busy := destRow[0]
		if !busy {
			if busy, err = t.hasChild(tr, to, "", true); err != nil {
				return struct{}{}, err
			}
		}
		if busy {
			return struct{}{}, errExists("Move", to)
		}
		c := newChange()
		var puts []fdyno.Item
		b := t.newBudget("Move", from)
		obj, err := t.getRow(tr, from, "")
		if err != nil {
			return struct{}{}, err
		}
		if obj != nil {
			if err := b.add(obj); err != nil {
				return struct{}{}, err
			}
			c.clearObject(t, from)
			puts = append(puts, t.movedRow(obj, to))
		}
		found := obj != nil
		err = t.subtree(tr, from, b, true, func(dir Path, name string, o fdyno.Item) {
			found = true
			c.clearListing(t, dir, name)
			moved := to.join(dir[len(from):]...)
			puts = append(puts, t.listingRow(moved, name))
			if o != nil {
				c.clearObject(t, dir.join(name))
				puts = append(puts, t.movedRow(o, moved.join(name)))
			}
		})
		if err != nil {
			return struct{}{}, err
		}
		if !found {
			return struct{}{}, notFound("Move", from)
		}
		if err := t.prune(tr, from, c); err != nil {
			return struct{}{}, err
		}
		c.puts = append(c.puts, puts...)
		c.listPath(t, dest)
		return struct{}{}, t.apply(tr, c)
	})
	return err
}
