package tree

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno"
)

// Defaults of Options.
const (
	// DefaultMaxLinks is how many symbolic links Get follows before it
	// gives up with ErrTooManyLinks: a link to a link to an object is 2.
	DefaultMaxLinks = 16
	// DefaultMaxRows bounds the rows one DeleteTree or Move reads and
	// writes, so that it stays one transaction well inside FoundationDB's
	// limits (10 MB of writes and conflict ranges, 5 seconds).
	DefaultMaxRows = 10000
	// DefaultMaxBytes bounds the bytes of rows (keys and, for Move, items)
	// one DeleteTree or Move writes: half of FoundationDB's 10 MB
	// transaction limit, leaving room for fdyno's own keys and the
	// conflict ranges.
	DefaultMaxBytes = 5 << 20
)

// Options configure a Tree. The zero value is dynamotree's configuration.
type Options struct {
	// Reserved is the one character that delimits paths in the table's
	// keys; no path component may contain it and no attribute name may
	// start with it. Empty means DefaultReserved. Every writer of the
	// table must use the same one.
	Reserved string
	// MaxLinks is the most symbolic links one Get follows; 0 means
	// DefaultMaxLinks, negative means none.
	MaxLinks int
	// MaxRows and MaxBytes bound DeleteTree and Move (0 means
	// DefaultMaxRows and DefaultMaxBytes).
	MaxRows  int
	MaxBytes int
	// Watch, if not nil, is the subspace of the watch counters: every
	// change through this package adds to the counter of each directory
	// whose listing it changes (and no other), and Watch waits on them. Nil turns Watch off (and
	// writes touch no counter). All writers through this package must
	// agree on it.
	Watch subspace.Subspace
}

// Tree is hierarchical storage on one fdyno table, in dynamotree's layout
// (see keys.go, and the package documentation for the guarantees).
//
// A Tree is safe for concurrent use by multiple goroutines.
type Tree struct {
	table    *fdyno.Table
	r        string
	maxLinks int
	maxRows  int
	maxBytes int
	watch    subspace.Subspace
}

// TableSchema returns the key schema a tree's table must have: hash key
// Key and range key Child, both strings. Pass it to [fdyno.WithSchema] to
// create the table. The table keeps no exact counts
// ([fdyno.TableSchema.WithoutCounts]): a counted table's writes read the
// rows they replace, which would cost a tree's writes a read wave per
// row and make concurrent Puts of one row conflict.
func TableSchema() fdyno.TableSchema {
	return fdyno.TableSchema{
		WithoutCounts: true,
		KeySchema: []fdyno.KeySchemaElement{
			{AttributeName: KeyAttribute, KeyType: fdyno.KeyTypeHash},
			{AttributeName: ChildAttribute, KeyType: fdyno.KeyTypeRange},
		},
		AttributeDefinitions: []fdyno.AttributeDefinition{
			{AttributeName: KeyAttribute, AttributeType: fdyno.ScalarAttributeTypeS},
			{AttributeName: ChildAttribute, AttributeType: fdyno.ScalarAttributeTypeS},
		},
	}
}

// Open returns a tree on table, checking in rt that the table's key schema
// is [TableSchema]'s ([ErrSchema] if not) and that opts are valid (an
// error matching [fdyno.ErrValidation] if not).
//
// Concurrent Puts into existing directories never conflict only if the
// table has no secondary index, no stream and no exact counts (as
// [TableSchema]'s table): each makes every fdyno write read the item it
// replaces, so that Puts of one object would conflict.
func Open(rt fdb.ReadTransactor, table *fdyno.Table, opts Options) (*Tree, error) {
	t := &Tree{table: table, r: opts.Reserved, maxLinks: opts.MaxLinks, maxRows: opts.MaxRows, maxBytes: opts.MaxBytes, watch: opts.Watch}
	if t.r == "" {
		t.r = DefaultReserved
	}
	if utf8.RuneCountInString(t.r) != 1 || !utf8.ValidString(t.r) {
		return nil, &fdyno.ValidationError{Op: "tree.Open", Path: "Reserved", Reason: "must be exactly one character"}
	}
	switch {
	case t.maxLinks == 0:
		t.maxLinks = DefaultMaxLinks
	case t.maxLinks < 0:
		t.maxLinks = 0
	}
	if t.maxRows <= 0 {
		t.maxRows = DefaultMaxRows
	}
	if t.maxBytes <= 0 {
		t.maxBytes = DefaultMaxBytes
	}
	d, err := table.Describe(rt)
	if err != nil {
		return nil, err
	}
	if !sameKeys(d.TableSchema, TableSchema()) {
		return nil, ErrSchema
	}
	return t, nil
}

func sameKeys(got, want fdyno.TableSchema) bool {
	if len(got.KeySchema) != len(want.KeySchema) {
		return false
	}
	types := map[string]fdyno.ScalarAttributeType{}
	for _, a := range got.AttributeDefinitions {
		types[a.AttributeName] = a.AttributeType
	}
	for i, k := range want.KeySchema {
		if got.KeySchema[i] != k || types[k.AttributeName] != fdyno.ScalarAttributeTypeS {
			return false
		}
	}
	return true
}

// Table returns the table the tree is stored in.
func (t *Tree) Table() *fdyno.Table { return t.table }

// Reserved returns the tree's reserved character.
func (t *Tree) Reserved() string { return t.r }

// Path names an object or a directory: its components from the root. The
// empty path is the root directory, which is never an object.
type Path []string

// String joins p's components with "/".
func (p Path) String() string { return strings.Join(p, "/") }

// ParsePath splits s at "/" into a path; one leading "/" is allowed, and
// "" or "/" is the root. It returns a [*PathError] for an empty component
// ("a//b", "a/"). It does not know a tree's reserved character: the tree's
// operations check that.
func ParsePath(s string) (Path, error) {
	s = strings.TrimPrefix(s, "/")
	if s == "" {
		return Path{}, nil
	}
	p := Path(strings.Split(s, "/"))
	for _, c := range p {
		if c == "" {
			return nil, &PathError{Op: "parse", Path: p, Reason: "empty component"}
		}
		if !utf8.ValidString(c) {
			return nil, &PathError{Op: "parse", Path: p, Reason: "component is not valid UTF-8"}
		}
	}
	return p, nil
}

func (p Path) parent() Path { return p[:len(p)-1] }
func (p Path) name() string { return p[len(p)-1] }

// join returns p/rel as a new slice.
func (p Path) join(rel ...string) Path {
	return append(append(make(Path, 0, len(p)+len(rel)), p...), rel...)
}

// hasPrefix reports whether q is p or under p.
func (p Path) hasPrefix(q Path) bool {
	return len(q) <= len(p) && slices.Equal(p[:len(q)], q)
}

// Kind says what a directory entry is; an entry may be an object or a link
// and a directory at once.
type Kind uint8

const (
	// KindObject: an object (not a link) is stored at the entry's path.
	KindObject Kind = 1 << iota
	// KindLink: a symbolic link is stored at the entry's path.
	KindLink
	// KindDirectory: something is stored under the entry's path.
	KindDirectory
)

// String names k: "object", "link", "directory", or a "+"-joined pair.
func (k Kind) String() string {
	var parts []string
	if k&KindObject != 0 {
		parts = append(parts, "object")
	}
	if k&KindLink != 0 {
		parts = append(parts, "link")
	}
	if k&KindDirectory != 0 {
		parts = append(parts, "directory")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}
