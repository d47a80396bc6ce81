package tree

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// Get returns the attributes of the object at p, without the table's key
// attributes. If p is a symbolic link Get follows it, and the links it
// leads to, at most Options.MaxLinks of them (DefaultMaxLinks, 16): a
// chain that comes back to a path it visited is a [*LinkError] wrapping
// [ErrLinkCycle], a longer one wraps [ErrTooManyLinks]. A missing object,
// or a link to one, is [ErrNotFound].
//
// Get is one point read, plus one per link followed, in rt: a transaction
// (or snapshot) of the caller's, or a database, which runs a transaction of
// its own.
func (t *Tree) Get(rt fdb.ReadTransactor, p Path) (fdyno.Item, error) {
	if err := t.checkPath("Get", p); err != nil {
		return nil, err
	}
	return fdyno.ReadTransact(rt, func(tr fdb.ReadTransaction) (fdyno.Item, error) {
		chain := []Path{p}
		cur := p
		for {
			row, err := t.getRow(tr, cur, "")
			if err != nil {
				return nil, err
			}
			if row == nil {
				return nil, notFound("Get", cur)
			}
			target, isLink, err := t.linkTarget(row)
			if err != nil {
				return nil, err
			}
			if !isLink {
				return t.attributes(row), nil
			}
			for _, seen := range chain {
				if slices.Equal(seen, target) {
					return nil, &LinkError{Chain: append(chain, target), Err: ErrLinkCycle}
				}
			}
			if len(chain) > t.maxLinks {
				return nil, &LinkError{Chain: append(chain, target), Err: ErrTooManyLinks}
			}
			chain = append(chain, target)
			cur = target
		}
	})
}

// GetLink returns the target of the symbolic link at p, whether or not the
// target exists: [ErrNotFound] if nothing is at p, [ErrNotLink] if an
// object is. One point read.
func (t *Tree) GetLink(rt fdb.ReadTransactor, p Path) (Path, error) {
	if err := t.checkPath("GetLink", p); err != nil {
		return nil, err
	}
	return fdyno.ReadTransact(rt, func(tr fdb.ReadTransaction) (Path, error) {
		row, err := t.getRow(tr, p, "#r")
		if err != nil {
			return nil, err
		}
		if row == nil {
			return nil, notFound("GetLink", p)
		}
		target, isLink, err := t.linkTarget(row)
		if err != nil {
			return nil, err
		}
		if !isLink {
			return nil, fmt.Errorf("tree: GetLink %q: %w", p.String(), ErrNotLink)
		}
		return target, nil
	})
}

// getRow reads p's object row, nil if there is none; projection, if not
// empty, is a projection expression over #k, #c and #r (Key, Child and the
// reserved attribute), and Key is always read so that an existing row is
// never empty.
func (t *Tree) getRow(rt fdb.ReadTransactor, p Path, projection string) (fdyno.Item, error) {
	in := fdyno.GetInput{Key: t.objectRowKey(p)}
	if projection != "" {
		in.ProjectionExpression = "#k, " + projection
		in.ExpressionAttributeNames = t.names(projection)
	}
	out, err := t.table.Get(rt, in)
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// names returns the expression attribute names an expression over #k, #c
// and #r uses.
func (t *Tree) names(expr string) map[string]string {
	m := map[string]string{"#k": KeyAttribute}
	for _, n := range []struct{ ph, name string }{{"#c", ChildAttribute}, {"#r", t.r}} {
		if strings.Contains(expr, n.ph) {
			m[n.ph] = n.name
		}
	}
	return m
}

// linkTarget returns the target of an object row if it is a link.
func (t *Tree) linkTarget(row fdyno.Item) (Path, bool, error) {
	v, ok := row[t.r]
	if !ok {
		return nil, false, nil
	}
	key := row[KeyAttribute].S()
	if v.Type() != fdyno.TypeS {
		return nil, false, corrupt(key, "link target is not a string")
	}
	target, err := t.parseObjectKey(v.S())
	if err != nil {
		return nil, false, corrupt(key, "link target is not an object key")
	}
	return target, true, nil
}

// attributes is an object row without the table's key attributes.
func (t *Tree) attributes(row fdyno.Item) fdyno.Item {
	it := make(fdyno.Item, len(row))
	for k, v := range row {
		if k != KeyAttribute && k != ChildAttribute {
			it[k] = v
		}
	}
	return it
}
