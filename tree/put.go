package tree

import (
	"strings"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// Put stores it as the object at p, replacing whatever object or link was
// there, and lists p in each of its ancestors, all in one transaction. It
// reads the listing rows of p's path in one wave and writes only those
// that are missing (listing.go), so a Put into an existing directory
// writes its object row alone. Concurrent Puts conflict only when both
// create the same listing row (the retry finds it); a Put conflicts with a
// concurrent Delete that removes a listing row of its path (the retry
// lists the path again). Two Puts of the same path leave the one that
// commits last. See the conflict rule in the package documentation.
//
// A bad path is a [*PathError], an item with an attribute named Key or
// Child or starting with the reserved character an [*ItemError], and an
// item fdyno refuses (over its size limit, an empty set) fdyno's
// ValidationError; then nothing is written. tx is the caller's transaction,
// or a database, which runs (and may retry) a transaction of its own.
func (t *Tree) Put(tx fdb.Transactor, p Path, it fdyno.Item) error {
	if err := t.checkPath("Put", p); err != nil {
		return err
	}
	if err := t.checkItem("Put", it); err != nil {
		return err
	}
	row := t.objectRow(p, it)
	if err := row.Validate(); err != nil {
		return err
	}
	return t.putRow(tx, p, row)
}

// putRow writes the object row (or link row) row at p and lists p.
func (t *Tree) putRow(tx fdb.Transactor, p Path, row fdyno.Item) error {
	_, err := fdyno.Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		rows, _, err := t.readPath(tr, p)
		if err != nil {
			return struct{}{}, err
		}
		c := newChange()
		c.putObject(row)
		c.listPath(t, rows)
		return struct{}{}, t.apply(tr, c)
	})
	return err
}

// PutLink stores at p a symbolic link to target, replacing whatever object
// or link was there, as Put does (one transaction, one wave of reads). The
// target need not exist; Get follows the link when it is read.
func (t *Tree) PutLink(tx fdb.Transactor, p, target Path) error {
	if err := t.checkPath("PutLink", p); err != nil {
		return err
	}
	if err := t.checkPath("PutLink", target); err != nil {
		return err
	}
	return t.putRow(tx, p, t.linkRow(p, target))
}

// checkItem refuses attributes the layout reserves.
func (t *Tree) checkItem(op string, it fdyno.Item) error {
	for name := range it {
		switch {
		case name == KeyAttribute || name == ChildAttribute:
			return &ItemError{Op: op, Attribute: name, Reason: "is a key attribute of the tree's table"}
		case strings.HasPrefix(name, t.r):
			return &ItemError{Op: op, Attribute: name, Reason: "starts with the reserved character"}
		}
	}
	return nil
}
