package expr

import (
	"sort"
	"strings"
)

// kindProjection is ProjectionExpression's kind.
const kindProjection = "ProjectionExpression"

// Projection is a parsed ProjectionExpression: document paths, none
// overlapping another. It is immutable after parsing and safe for
// concurrent use.
type Projection struct {
	Paths []Path
}

// ParseProjection parses a ProjectionExpression: document paths
// separated by commas, none overlapping another. Placeholders are resolved
// in c and marked used.
func ParseProjection[V any](ops Ops[V], c *Context[V], src string) (*Projection, error) {
	p, err := NewParser(ops, c, kindProjection, src)
	if err != nil {
		return nil, err
	}
	var paths []Path
	for {
		path, err := p.ParsePath()
		if err != nil {
			return nil, err
		}
		paths = append(paths, path)
		if !p.Accept(TokComma) {
			break
		}
	}
	if err := p.Finish(); err != nil {
		return nil, err
	}
	if err := CheckOverlaps(kindProjection, paths); err != nil {
		return nil, err
	}
	return &Projection{Paths: paths}, nil
}

// String returns the projection as an expression without placeholders.
func (p *Projection) String() string {
	s := make([]string, len(p.Paths))
	for i, q := range p.Paths {
		s[i] = q.String()
	}
	return strings.Join(s, ", ")
}

// Project returns the sub-item of it holding just the given paths, as
// DynamoDB returns a projection: a map keeps only the named keys, a list
// keeps only the named elements, in index order and without gaps, and
// paths that do not exist are left out. The result shares scalar values
// and unprojected containers with it but never modifies it.
func Project[V any](ops Ops[V], it map[string]V, paths []Path) map[string]V {
	root := &projNode[V]{}
	for _, p := range paths {
		v := Lookup(ops, it, p)
		if ops.Type(v) == 0 {
			continue
		}
		n := root
		for _, e := range p {
			n = n.child(e)
		}
		n.leaf, n.hasLeaf = v, true
	}
	out := make(map[string]V, len(root.fields))
	for name, n := range root.fields {
		out[name] = n.build(ops)
	}
	return out
}

// projNode is a node of the tree of projected paths.
type projNode[V any] struct {
	leaf    V
	hasLeaf bool
	fields  map[string]*projNode[V]
	elems   map[int]*projNode[V]
}

func (n *projNode[V]) child(e PathElem) *projNode[V] {
	if e.IsIndex {
		return childIn(&n.elems, e.Index)
	}
	return childIn(&n.fields, e.Name)
}

// childIn returns the node at k in *m, adding it (and the map) if absent.
func childIn[K comparable, V any](m *map[K]*projNode[V], k K) *projNode[V] {
	if *m == nil {
		*m = make(map[K]*projNode[V])
	}
	c := (*m)[k]
	if c == nil {
		c = &projNode[V]{}
		(*m)[k] = c
	}
	return c
}

func (n *projNode[V]) build(ops Ops[V]) V {
	if n.hasLeaf {
		// Paths never overlap, so a leaf has no children.
		return n.leaf
	}
	if n.elems != nil {
		idx := make([]int, 0, len(n.elems))
		for i := range n.elems {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		l := make([]V, len(idx))
		for j, i := range idx {
			l[j] = n.elems[i].build(ops)
		}
		return ops.MakeList(l)
	}
	m := make(map[string]V, len(n.fields))
	for name, c := range n.fields {
		m[name] = c.build(ops)
	}
	return ops.MakeMap(m)
}
