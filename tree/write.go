package tree

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// write.go is the tree's one write path: every Put, PutLink, Delete,
// DeleteTree and Move collects its rows in a change, after every read and
// check, and apply writes them through the fdyno table in the caller's
// transaction, so an operation is one transaction and an error before
// apply leaves that transaction untouched.
//
// Listing rows are written blind (fdyno writes an item without reading it
// when the table has no index and no stream), which is why concurrent Puts
// under one directory never conflict.

// change is every row one operation removes and writes.
type change struct {
	clears []fdyno.Item // table keys of rows to remove
	puts   []fdyno.Item // rows to write, after the removals
	dirs   map[string]Path
}

func newChange() *change { return &change{dirs: map[string]Path{}} }

// touch records that dir's listing changes, for its watch counter.
func (c *change) touch(t *Tree, dir Path) {
	c.dirs[t.dirKey(dir)] = dir
}

// putObject writes p's object row (or link row) and lists p in every
// ancestor, blind.
func (c *change) putObject(t *Tree, p Path, row fdyno.Item) {
	c.puts = append(c.puts, row)
	c.listPath(t, p)
}

// listPath writes the listing row of every prefix of p: the root lists
// p[0], p[0] lists p[1], and so on.
func (c *change) listPath(t *Tree, p Path) {
	for i := range p {
		c.puts = append(c.puts, t.listingRow(p[:i], p[i]))
		c.touch(t, p[:i])
	}
}

// clearObject removes p's object row.
func (c *change) clearObject(t *Tree, p Path) {
	c.clears = append(c.clears, t.objectRowKey(p))
	c.touch(t, p.parent())
}

// clearListing removes the listing row of name in dir.
func (c *change) clearListing(t *Tree, dir Path, name string) {
	c.clears = append(c.clears, t.listingRow(dir, name))
	c.touch(t, dir)
}

// apply writes c in tr: removals, then rows (so a row removed and written
// again stays), then the watch counters. The first row written is the one
// fdyno may refuse (an object over the item size limit), so a refusal
// leaves tr untouched.
func (t *Tree) apply(tr fdb.Transaction, c *change) error {
	for _, row := range c.puts {
		if err := row.Validate(); err != nil {
			return err
		}
	}
	for _, k := range c.clears {
		if _, err := t.table.Delete(tr, fdyno.DeleteInput{Key: k}); err != nil {
			return err
		}
	}
	for _, row := range c.puts {
		if _, err := t.table.Put(tr, fdyno.PutInput{Item: row}); err != nil {
			return err
		}
	}
	if t.watch != nil {
		for _, dir := range c.dirs {
			tr.Add(t.watchKey(dir), one)
		}
	}
	return nil
}
