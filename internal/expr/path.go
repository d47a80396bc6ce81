package expr

import (
	"slices"
	"strconv"
	"strings"
)

// PathElem is one element of a document path: an attribute or map key
// name, or a list index.
type PathElem struct {
	Name    string // the attribute or map key, if !IsIndex
	Index   int    // the list index, if IsIndex
	IsIndex bool
}

// Path is a parsed document path: an attribute name followed by .name and
// [index] elements, with placeholders already substituted.
//
// Invariants, for a Path a parser returns:
//
//  1. A Path has 1 to 32 elements (DynamoDB's nesting limit).
//  2. The first element is a name, never an index.
type Path []PathElem

// String returns p as it would be written without placeholders, such as
// "a.b[2]".
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e.IsIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e.Name)
		}
	}
	return b.String()
}

// ListString returns p as DynamoDB prints it in overlap messages:
// "[a, b, [2]]".
func (p Path) ListString() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		if e.IsIndex {
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
		} else {
			b.WriteString(e.Name)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// Equal reports whether p and q name the same element.
func (p Path) Equal(q Path) bool { return slices.Equal(p, q) }

// How two paths relate; see [Relation].
const (
	// Disjoint paths name separate elements.
	Disjoint = iota
	// Overlapping paths are equal, or one is an ancestor of the other.
	Overlap
	// Conflicting paths take, at some level, one a map key and the other
	// a list index, as a.b and a[0].
	Conflict
)

// Relation says how two paths relate: [Disjoint], [Overlap] or
// [Conflict].
func Relation(p, q Path) int {
	for i := 0; i < len(p) && i < len(q); i++ {
		a, b := p[i], q[i]
		if a.IsIndex != b.IsIndex {
			return Conflict
		}
		if a != b {
			return Disjoint
		}
	}
	return Overlap
}

// Reasons of [CheckOverlaps], in DynamoDB's words.
const (
	reasonPathsOverlap  = "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: "
	reasonPathsConflict = "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: "
)

// CheckOverlaps rejects two paths of an expression of the given kind that
// overlap or conflict, naming the first such pair in the order they were
// written. The error is an [*Error].
func CheckOverlaps(kind string, paths []Path) error {
	// Quadratic, but an expression holds at most a few hundred paths.
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			switch Relation(paths[i], paths[j]) {
			case Overlap:
				return &Error{Kind: kind, Reason: reasonPathsOverlap + paths[i].ListString() + ", path two: " + paths[j].ListString()}
			case Conflict:
				return &Error{Kind: kind, Reason: reasonPathsConflict + paths[i].ListString() + ", path two: " + paths[j].ListString()}
			}
		}
	}
	return nil
}

// PathNode is one element of a document path being walked, kept on the
// stack with a link to its parent and turned into text only for an error
// (validating and marshalling items walk their values this way). A nil
// *PathNode is the top level.
type PathNode struct {
	Parent *PathNode
	PathElem
}

// String returns the path from the top level to n, as [Path.String]
// writes it; "" for nil.
func (n *PathNode) String() string {
	var p Path
	for ; n != nil; n = n.Parent {
		p = append(p, n.PathElem)
	}
	slices.Reverse(p)
	return p.String()
}
