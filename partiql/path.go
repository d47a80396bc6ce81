package partiql

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno"
)

// path.go holds a statement's document paths: what a projection, a SET
// or a REMOVE names, and a WHERE clause compares. They reach the table
// only as DynamoDB expression text (plan.go), except that a projection
// is applied here to the items read.

// Limits a path obeys, DynamoDB's as the expression language enforces
// them, so that a statement is refused before it is planned.
const (
	// maxPathDepth is the most elements of a document path, the item
	// nesting limit.
	maxPathDepth = fdyno.MaxNestingDepth
	// maxListIndex bounds a list index literal, keeping it an int on
	// every platform.
	maxListIndex = 1<<31 - 1
	// maxInOperands is the most values an IN takes.
	maxInOperands = 100

	reasonPathTooDeep = "The document path has too many nesting levels; nesting levels: "
	reasonEmptyName   = "Empty attribute name"
	reasonTooManyIn   = "The IN operator is provided with too many operands; number of operands: "
)

// pathElem is one element of a document path: a name, or a list index.
type pathElem struct {
	name    string
	index   int
	isIndex bool
}

// docPath is a document path: an attribute name followed by .name and
// [index] elements.
type docPath []pathElem

// String returns p as written, such as "a.b[2]".
func (p docPath) String() string {
	return p.format(func(name string) string { return name })
}

// format writes p with each name as name writes it: as written
// (String), quoted (print.go) or as a placeholder (plan.go).
func (p docPath) format(name func(string) string) string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e.isIndex:
			b.WriteString("[" + strconv.Itoa(e.index) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(name(e.name))
		}
	}
	return b.String()
}

func (p docPath) equal(q docPath) bool { return slices.Equal(p, q) }

// isAttr reports whether p is the top-level attribute name.
func (p docPath) isAttr(name string) bool {
	return len(p) == 1 && !p[0].isIndex && p[0].name == name
}

// lookupPath returns the value at p in it, or the zero Value if there is
// none.
func lookupPath(it fdyno.Item, p docPath) fdyno.Value {
	if len(p) == 0 || it == nil {
		return fdyno.Value{}
	}
	v, ok := it[p[0].name]
	if !ok {
		return fdyno.Value{}
	}
	for _, e := range p[1:] {
		switch {
		case e.isIndex:
			l := v.L()
			if v.Type() != fdyno.TypeL || e.index >= len(l) {
				return fdyno.Value{}
			}
			v = l[e.index]
		default:
			if v.Type() != fdyno.TypeM {
				return fdyno.Value{}
			}
			w, ok := v.M()[e.name]
			if !ok {
				return fdyno.Value{}
			}
			v = w
		}
	}
	return v
}
