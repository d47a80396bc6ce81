package expr

import (
	"slices"
	"strconv"
	"strings"
)

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
		return Compare(ops, cd.Op, operandValue(ops, it, cd.Args[0]), operandValue(ops, it, cd.Args[1]))
	case CondBetween:
		v, lo, hi := operandValue(ops, it, cd.Args[0]), operandValue(ops, it, cd.Args[1]), operandValue(ops, it, cd.Args[2])
		return Compare(ops, ">=", v, lo) && Compare(ops, "<=", v, hi)
	case CondIn:
		v := operandValue(ops, it, cd.Args[0])
		if ops.Type(v) == 0 {
			return false
		}
		for _, a := range cd.Args[1:] {
			if ops.Equal(v, operandValue(ops, it, a)) {
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
		return ops.Type(operandValue(ops, it, cd.Args[0])) != 0
	case "attribute_not_exists":
		return ops.Type(operandValue(ops, it, cd.Args[0])) == 0
	case "attribute_type":
		t := ops.Type(operandValue(ops, it, cd.Args[0]))
		return t != 0 && t.String() == ops.Text(cd.Args[1].Value)
	case "begins_with":
		v, prefix := operandValue(ops, it, cd.Args[0]), operandValue(ops, it, cd.Args[1])
		t := ops.Type(v)
		return (t == TypeS || t == TypeB) && t == ops.Type(prefix) && strings.HasPrefix(ops.Text(v), ops.Text(prefix))
	case "contains":
		return contains(ops, operandValue(ops, it, cd.Args[0]), operandValue(ops, it, cd.Args[1]))
	}
	return false
}

// contains is DynamoDB's contains(path, operand): a substring of an S, a
// member of a set of the operand's type, or an element of a list.
func contains[V any](ops Ops[V], v, x V) bool {
	xt := ops.Type(x)
	if xt == 0 {
		return false
	}
	switch t := ops.Type(v); t {
	case TypeS:
		return xt == TypeS && strings.Contains(ops.Text(v), ops.Text(x))
	case TypeB:
		// DynamoDB documents contains for S and sets; a B value also
		// holds its bytes, so fdyno answers the same way for B.
		return xt == TypeB && strings.Contains(ops.Text(v), ops.Text(x))
	case TypeSS, TypeBS:
		if t == TypeSS && xt != TypeS || t == TypeBS && xt != TypeB {
			return false
		}
		_, found := slices.BinarySearch(ops.Members(v), ops.Text(x))
		return found
	case TypeNS:
		if xt != TypeN {
			return false
		}
		_, found := slices.BinarySearchFunc(ops.Members(v), ops.Text(x), ops.CompareNumbers)
		return found
	case TypeL:
		for _, e := range ops.List(v) {
			if ops.Equal(e, x) {
				return true
			}
		}
	}
	return false
}

// operandValue returns the value of a condition operand, or the zero V if
// there is none (a missing path, or size of a type without one).
func operandValue[V any](ops Ops[V], it map[string]V, o Operand[V]) V {
	switch o.Kind {
	case OpPath:
		return Lookup(ops, it, o.Path)
	case OpValue:
		return o.Value
	case OpCall:
		if o.Fn == "size" {
			return SizeOf(ops, operandValue(ops, it, o.Args[0]))
		}
	}
	var zero V
	return zero
}

// Lookup returns the value at p in it, or the zero V if there is none: a
// missing name, an index past the end, or an element of the wrong kind
// for its container.
func Lookup[V any](ops Ops[V], it map[string]V, p Path) V {
	var zero V
	if len(p) == 0 || it == nil {
		return zero
	}
	v, ok := it[p[0].Name]
	if !ok {
		return zero
	}
	for _, e := range p[1:] {
		switch {
		case e.IsIndex:
			if ops.Type(v) != TypeL {
				return zero
			}
			l := ops.List(v)
			if e.Index >= len(l) {
				return zero
			}
			v = l[e.Index]
		default:
			if ops.Type(v) != TypeM {
				return zero
			}
			w, ok := ops.Field(v, e.Name)
			if !ok {
				return zero
			}
			v = w
		}
	}
	return v
}

// SizeOf is DynamoDB's size(): the length of an S in UTF-16 code units
// (what DynamoDB's Java implementation counts: "é" is 1, "𝄞" is 2), the
// length in bytes of a B, and the number of elements of a set, list or
// map, as an N. Other types, and a missing attribute, have no size: the
// zero V, with which a comparison is false.
func SizeOf[V any](ops Ops[V], v V) V {
	switch t := ops.Type(v); {
	case t == TypeS:
		return ops.Number(strconv.Itoa(utf16Len(ops.Text(v))))
	case t.HasSize():
		return ops.Number(strconv.Itoa(ops.Len(v)))
	}
	var zero V
	return zero
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

// Compare applies a comparator. = and <> take values of any type and
// compare them with Ops.Equal (a missing operand equals nothing); the
// orderings need two N, two S or two B values and are false otherwise.
func Compare[V any](ops Ops[V], op string, a, b V) bool {
	switch op {
	case "=":
		return ops.Type(a) != 0 && ops.Type(b) != 0 && ops.Equal(a, b)
	case "<>":
		return !(ops.Type(a) != 0 && ops.Type(b) != 0 && ops.Equal(a, b))
	}
	c, ok := CompareScalars(ops, a, b)
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
	t := ops.Type(a)
	if t != ops.Type(b) || ops.Malformed(a) || ops.Malformed(b) {
		return 0, false
	}
	switch t {
	case TypeN:
		return ops.CompareNumbers(ops.Text(a), ops.Text(b)), true
	case TypeS, TypeB:
		return strings.Compare(ops.Text(a), ops.Text(b)), true
	}
	return 0, false
}
