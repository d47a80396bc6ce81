package expr

// Type is a DynamoDB attribute type. Its numbering is the root package's
// Type, so that the two convert with a plain conversion; a test of the
// root package pins them together.
type Type uint8

// The attribute types, in the root package's order.
const (
	TypeS Type = iota + 1
	TypeN
	TypeB
	TypeBOOL
	TypeNULL
	TypeM
	TypeL
	TypeSS
	TypeNS
	TypeBS
)

var typeNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// String returns DynamoDB's name of t ("S", "NS", ...), or "" for 0 and
// out-of-range types.
func (t Type) String() string {
	if t != 0 && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return ""
}

// TypeByName returns the Type DynamoDB names s, or 0.
func TypeByName(s string) Type {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i)
		}
	}
	return 0
}

// HasSize reports whether DynamoDB's size function takes a value of type
// t: a string, binary, set, list or map.
func (t Type) HasSize() bool {
	switch t {
	case TypeS, TypeB, TypeM, TypeL, TypeSS, TypeNS, TypeBS:
		return true
	}
	return false
}

// Scalar is what comparisons read of a value, in one Ops call: its type
// (0 for the zero, absent, V), its text (that of an S or N, the bytes of a
// B, "" for any other type) and whether it is malformed (a value that
// failed to decode or normalise, which no comparison accepts).
type Scalar struct {
	Type      Type
	Text      string
	Malformed bool
}

// Ops are the operations on values of type V the expression language
// needs; the root package supplies them for its Value. Numbers are
// canonical texts, which package internal/number compares and adds.
type Ops[V any] interface {
	// Type returns the type of v, or 0 for the zero (absent) V.
	Type(v V) Type
	// Scalar returns v's type, text and whether it is malformed.
	Scalar(v V) Scalar
	// Equal reports whether a and b are the same value, as DynamoDB
	// compares values with =.
	Equal(a, b V) bool
	// Len returns the number of bytes of a B, and the number of elements
	// of a set, list or map.
	Len(v V) int
	// Members returns the members of a set value, sorted as the set
	// stores them (numerically for NS).
	Members(v V) []string
	// List returns the elements of an L value.
	List(v V) []V
	// Field returns the named element of an M value.
	Field(v V, name string) (V, bool)
	// Number returns the N value of the canonical number text s.
	Number(s string) V
	// Map returns the elements of an M value; the caller must not modify
	// them.
	Map(v V) map[string]V
	// MakeMap, MakeList and MakeSet build an M, an L, and a set of type t
	// (TypeSS, TypeNS or TypeBS) from sorted, distinct members.
	MakeMap(m map[string]V) V
	MakeList(l []V) V
	MakeSet(t Type, members []string) V
}

// isZero reports whether v is the zero (absent) V.
func (p *Parser[V]) isZero(v V) bool { return p.vals.Type(v) == 0 }

// typ returns the type of v.
func (p *Parser[V]) typ(v V) Type { return p.vals.Type(v) }
