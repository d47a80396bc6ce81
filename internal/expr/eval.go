package expr

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno/internal/number"
)

// Evaluation reads an operand's type and text many times: a BETWEEN
// compares its operand twice, and every comparison checks both types. So
// each operand is resolved once into a val, which holds its Scalar, and
// the comparisons below read that. A path costs one Ops call, a :value
// none (its Scalar is taken at parse time), and numbers are compared by
// package internal/number directly.

// val is an operand's value during evaluation: v, and its Scalar fetched
// once. For a size() result only the Scalar is set (an N; v is the zero
// V): everything that reads an N reads its Scalar.
type val[V any] struct {
	v V
	Scalar
}

// Test evaluates the condition cd against the item it; a nil it means the
// item does not exist, so every path is missing. As in DynamoDB, an
// operand of the wrong type makes its comparison or function false rather
// than failing: "a < :v" is false when a is a string and :v a number, and
// "a <> :v" is true when a is missing.
func Test[V any](ops Ops[V], cd *Condition[V], it map[string]V) bool {
	switch cd.Kind {
	case CondOr:
		return Test(ops, cd.Left, it) || Test(ops, cd.Right, it)
	case CondAnd:
		return Test(ops, cd.Left, it) && Test(ops, cd.Right, it)
	case CondNot:
		return !Test(ops, cd.Left, it)
	case CondCompare:
		return compare(ops, cd.Op, operandValue(ops, it, cd.Args[0]), operandValue(ops, it, cd.Args[1]))
	case CondBetween:
		v, lo, hi := operandValue(ops, it, cd.Args[0]), operandValue(ops, it, cd.Args[1]), operandValue(ops, it, cd.Args[2])
		return compare(ops, ">=", v, lo) && compare(ops, "<=", v, hi)
	case CondIn:
		v := operandValue(ops, it, cd.Args[0])
		if v.Type == 0 {
			return false
		}
		for _, a := range cd.Args[1:] {
			if equal(ops, v, operandValue(ops, it, a)) {
				return true
			}
		}
		return false
	case CondFunc:
		return testFunction(ops, cd, it)
	}
	return false
}

func testFunction[V any](ops Ops[V], cd *Condition[V], it map[string]V) bool {
	switch cd.Op {
	case "attribute_exists":
		return operandValue(ops, it, cd.Args[0]).Type != 0
	case "attribute_not_exists":
		return operandValue(ops, it, cd.Args[0]).Type == 0
	case "attribute_type":
		t := operandValue(ops, it, cd.Args[0]).Type
		return t != 0 && t.String() == cd.Args[1].scalar.Text
	case "begins_with":
		v, prefix := operandValue(ops, it, cd.Args[0]), operandValue(ops, it, cd.Args[1])
		return (v.Type == TypeS || v.Type == TypeB) && v.Type == prefix.Type && strings.HasPrefix(v.Text, prefix.Text)
	case "contains":
		return contains(ops, operandValue(ops, it, cd.Args[0]), operandValue(ops, it, cd.Args[1]))
	}
	return false
}

// contains is DynamoDB's contains(path, operand): a substring of an S, a
// member of a set of the operand's type, or an element of a list.
func contains[V any](ops Ops[V], v, x val[V]) bool {
	xt := x.Type
	if xt == 0 {
		return false
	}
	switch t := v.Type; t {
	case TypeS:
		return xt == TypeS && strings.Contains(v.Text, x.Text)
	case TypeB:
		// DynamoDB documents contains for S and sets; a B value also
		// holds its bytes, so fdyno answers the same way for B.
		return xt == TypeB && strings.Contains(v.Text, x.Text)
	case TypeSS, TypeBS:
		if t == TypeSS && xt != TypeS || t == TypeBS && xt != TypeB {
			return false
		}
		_, found := slices.BinarySearch(ops.Members(v.v), x.Text)
		return found
	case TypeNS:
		if xt != TypeN {
			return false
		}
		_, found := slices.BinarySearchFunc(ops.Members(v.v), x.Text, number.Compare)
		return found
	case TypeL:
		for _, e := range ops.List(v.v) {
			if equal(ops, val[V]{e, ops.Scalar(e)}, x) {
				return true
			}
		}
	}
	return false
}

// operandValue resolves a condition operand; its Type is 0 if there is
// no value (a missing path, or size of a type without one).
func operandValue[V any](ops Ops[V], it map[string]V, o Operand[V]) val[V] {
	switch o.Kind {
	case OpPath:
		if v, ok := lookup(ops, it, o.Path); ok {
			return val[V]{v, ops.Scalar(v)}
		}
	case OpValue:
		return val[V]{o.Value, o.scalar}
	case OpCall:
		if o.Fn == "size" {
			if n, ok := size(ops, operandValue(ops, it, o.Args[0])); ok {
				return val[V]{Scalar: Scalar{Type: TypeN, Text: strconv.Itoa(n)}}
			}
		}
	}
	return val[V]{}
}

// Lookup returns the value at p in it, or the zero V if there is none: a
// missing name, an index past the end, or an element of the wrong kind
// for its container.
func Lookup[V any](ops Ops[V], it map[string]V, p Path) V {
	v, _ := lookup(ops, it, p)
	return v
}

// lookup is Lookup that also reports whether there is a value.
func lookup[V any](ops Ops[V], it map[string]V, p Path) (v V, ok bool) {
	var zero V
	if len(p) == 0 || it == nil {
		return zero, false
	}
	if v, ok = it[p[0].Name]; !ok {
		return zero, false
	}
	for _, e := range p[1:] {
		switch {
		case e.IsIndex:
			if ops.Type(v) != TypeL {
				return zero, false
			}
			l := ops.List(v)
			if e.Index >= len(l) {
				return zero, false
			}
			v = l[e.Index]
		default:
			if ops.Type(v) != TypeM {
				return zero, false
			}
			if v, ok = ops.Field(v, e.Name); !ok {
				return zero, false
			}
		}
	}
	return v, true
}

// size is DynamoDB's size(): the length of an S in UTF-16 code units
// (what DynamoDB's Java implementation counts: "é" is 1, "𝄞" is 2), the
// length in bytes of a B, and the number of elements of a set, list or
// map. Other types, and a missing attribute, have no size (ok is false),
// and a comparison with it is false.
func size[V any](ops Ops[V], v val[V]) (n int, ok bool) {
	switch {
	case v.Type == TypeS:
		return utf16Len(v.Text), true
	case v.Type.HasSize():
		return ops.Len(v.v), true
	}
	return 0, false
}

// utf16Len returns the number of UTF-16 code units of s: one per code
// point, two for those beyond the Basic Multilingual Plane.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xffff {
			n++
		}
	}
	return n
}

// equal is DynamoDB's = on two operands: values of the same type, a
// missing operand equal to nothing. Scalars are equal when their texts
// are (numbers are canonical); other types are compared by Ops.Equal.
func equal[V any](ops Ops[V], a, b val[V]) bool {
	if a.Type == 0 || a.Type != b.Type || a.Malformed != b.Malformed {
		return false
	}
	switch a.Type {
	case TypeS, TypeN, TypeB:
		return a.Text == b.Text
	}
	return ops.Equal(a.v, b.v)
}

// compare applies a comparator. = and <> take values of any type (see
// equal); the orderings need two N, two S or two B values and are false
// otherwise.
func compare[V any](ops Ops[V], op string, a, b val[V]) bool {
	switch op {
	case "=":
		return equal(ops, a, b)
	case "<>":
		return !equal(ops, a, b)
	}
	c, ok := compareScalars(a.Scalar, b.Scalar)
	if !ok {
		return false
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// CompareScalars orders two N (numerically), S or B (bytewise, which for
// UTF-8 is code point order) values of the same type; ok is false for
// other or mixed types and malformed values.
func CompareScalars[V any](ops Ops[V], a, b V) (c int, ok bool) {
	return compareScalars(ops.Scalar(a), ops.Scalar(b))
}

func compareScalars(a, b Scalar) (c int, ok bool) {
	if a.Type != b.Type || a.Malformed || b.Malformed {
		return 0, false
	}
	switch a.Type {
	case TypeN:
		return number.Compare(a.Text, b.Text), true
	case TypeS, TypeB:
		return strings.Compare(a.Text, b.Text), true
	}
	return 0, false
}
