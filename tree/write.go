package tree

import (
	"maps"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// write.go is the tree's one write path: every Put, PutLink, Delete,
// DeleteTree and Move collects its rows in a change, after every read and
// check, and apply writes them through the fdyno table in the caller's
// transaction, so an operation is one transaction and an error before
// apply leaves that transaction untouched.
//
// A change holds only rows that change: a write that lists a path writes
// the listing rows it read as missing and no other (listing.go), so a
// write into an existing directory writes no row of its ancestors. The
// watch counters follow from the rows (apply): each directory whose
// listing gains or loses a row, or one of whose entries' object row is
// written or removed, gets one add, plus the directories where an
// entry's kind changes without a row of theirs changing (touch), and no
// other.

// change is every row one operation removes and writes.
type change struct {
	clears []fdyno.Item        // table keys of rows to remove
	puts   []fdyno.Item        // rows to write, after the removals
	kinds  map[string]struct{} // keys of directories an entry of which changes kind
}

func newChange() *change { return &change{kinds: map[string]struct{}{}} }

// touch records that the kind of an entry of dir changes (an object gains
// its first child), which no row of dir's shows.
func (c *change) touch(t *Tree, dir Path) {
	c.kinds[t.dirKey(dir)] = struct{}{}
}

// putObject writes an object row (or link row).
func (c *change) putObject(row fdyno.Item) {
	c.puts = append(c.puts, row)
}

// clearObject removes p's object row.
func (c *change) clearObject(t *Tree, p Path) {
	c.clears = append(c.clears, t.objectRowKey(p))
}

// clearListing removes the listing row of name in dir.
func (c *change) clearListing(t *Tree, dir Path, name string) {
	c.clears = append(c.clears, t.listingRow(dir, name))
}

// keep drops the removal of listing row row, if c removes it, so that the
// row stays as it is.
func (c *change) keep(row fdyno.Item) {
	for i, k := range c.clears {
		if k[KeyAttribute].S() == row[KeyAttribute].S() && k[ChildAttribute].S() == row[ChildAttribute].S() {
			c.clears = append(c.clears[:i], c.clears[i+1:]...)
			return
		}
	}
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
		dirs := maps.Clone(c.kinds)
		for _, rows := range [][]fdyno.Item{c.clears, c.puts} {
			for _, row := range rows {
				dirs[t.rowDir(row)] = struct{}{}
			}
		}
		for dir := range dirs {
			tr.Add(t.watchKey(dir), one)
		}
	}
	return nil
}
