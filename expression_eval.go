package fdyno

import (
	"bytes"
	"github.com/fdyno/fdyno/internal/expr"
	"slices"
	"strconv"
	"strings"
)

// eval evaluates the condition against it; a nil it means the item does
// not exist, so every path is missing. As in DynamoDB, an operand of the
// wrong type makes its comparison or function false rather than failing:
// "a < :v" is false when a is a string and :v a number, and "a <> :v" is
// true when a is missing. eval returns an error only for a condition that
// could not have been parsed; the error is reserved so that evaluation of
// a FilterExpression can fail later without an API change.
func evalCondition(cd *condition, it Item) (bool, error) {
	return testCondition(cd, it), nil
}

func testCondition(cd *condition, it Item) bool {
	switch cd.Kind {
	case expr.CondOr:
		return testCondition(cd.Left, it) || testCondition(cd.Right, it)
	case expr.CondAnd:
		return testCondition(cd.Left, it) && testCondition(cd.Right, it)
	case expr.CondNot:
		return !testCondition(cd.Left, it)
	case expr.CondCompare:
		return compareOp(cd.Op, operandValue(it, cd.Args[0]), operandValue(it, cd.Args[1]))
	case expr.CondBetween:
		v, lo, hi := operandValue(it, cd.Args[0]), operandValue(it, cd.Args[1]), operandValue(it, cd.Args[2])
		return compareOp(">=", v, lo) && compareOp("<=", v, hi)
	case expr.CondIn:
		v := operandValue(it, cd.Args[0])
		if v.IsZero() {
			return false
		}
		for _, a := range cd.Args[1:] {
			if v.Equal(operandValue(it, a)) {
				return true
			}
		}
		return false
	case expr.CondFunc:
		return testConditionFunction(cd, it)
	}
	return false
}

func testConditionFunction(cd *condition, it Item) bool {
	switch cd.Op {
	case "attribute_exists":
		return !operandValue(it, cd.Args[0]).IsZero()
	case "attribute_not_exists":
		return operandValue(it, cd.Args[0]).IsZero()
	case "attribute_type":
		v := operandValue(it, cd.Args[0])
		return !v.IsZero() && v.typ.String() == cd.Args[1].Value.s
	case "begins_with":
		v, prefix := operandValue(it, cd.Args[0]), operandValue(it, cd.Args[1])
		return (v.typ == TypeS || v.typ == TypeB) && v.typ == prefix.typ && strings.HasPrefix(v.s, prefix.s)
	case "contains":
		return contains(operandValue(it, cd.Args[0]), operandValue(it, cd.Args[1]))
	}
	return false
}

// contains is DynamoDB's contains(path, operand): a substring of an S, a
// member of a set of the operand's type, or an element of a list.
func contains(v, x Value) bool {
	if x.IsZero() {
		return false
	}
	switch v.typ {
	case TypeS:
		return x.typ == TypeS && strings.Contains(v.s, x.s)
	case TypeB:
		// DynamoDB documents contains for S and sets; a B value also
		// holds its bytes, so fdyno answers the same way for B.
		return x.typ == TypeB && bytes.Contains([]byte(v.s), []byte(x.s))
	case TypeSS, TypeBS:
		if v.typ == TypeSS && x.typ != TypeS || v.typ == TypeBS && x.typ != TypeB {
			return false
		}
		_, found := slices.BinarySearch(v.setv(), x.s)
		return found
	case TypeNS:
		if x.typ != TypeN {
			return false
		}
		_, found := slices.BinarySearchFunc(v.setv(), x.s, compareNumbers)
		return found
	case TypeL:
		return slices.ContainsFunc(v.listv(), x.Equal)
	}
	return false
}

// operandValue returns the value of a condition operand, or the zero Value
// if there is none (a missing path, or size of a type without one).
func operandValue(it Item, o operand) Value {
	switch o.Kind {
	case expr.OpPath:
		return lookupPath(it, o.Path)
	case expr.OpValue:
		return o.Value
	case expr.OpCall:
		if o.Fn == "size" {
			return sizeOf(operandValue(it, o.Args[0]))
		}
	}
	return Value{}
}

// sizeOf is DynamoDB's size(): the length of an S in UTF-16 code units
// (what DynamoDB's Java implementation counts: "é" is 1, "𝄞" is 2), the
// length in bytes of a B, and the number of elements of a set, list or
// map. Other types, and a missing attribute, have no size; a comparison
// with it is false.
func sizeOf(v Value) Value {
	switch v.typ {
	case TypeS:
		return Value{typ: TypeN, s: strconv.Itoa(utf16Len(v.s))}
	case TypeB, TypeM, TypeL, TypeSS, TypeNS, TypeBS:
		return Value{typ: TypeN, s: strconv.Itoa(v.Len())}
	}
	return Value{}
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

// compareOp applies a comparator. = and <> take values of any type and
// compare them with [Value.Equal] (a missing operand equals nothing); the
// orderings need two N, two S or two B values and are false otherwise.
func compareOp(op string, a, b Value) bool {
	switch op {
	case "=":
		return !a.IsZero() && !b.IsZero() && a.Equal(b)
	case "<>":
		return !(!a.IsZero() && !b.IsZero() && a.Equal(b))
	}
	c, ok := compareScalars(a, b)
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

// compareScalars orders two N (numerically), S or B (bytewise, which for
// UTF-8 is code point order) values of the same type.
func compareScalars(a, b Value) (int, bool) {
	if a.typ != b.typ || a.bad || b.bad {
		return 0, false
	}
	switch a.typ {
	case TypeN:
		return compareNumbers(a.s, b.s), true
	case TypeS, TypeB:
		return strings.Compare(a.s, b.s), true
	}
	return 0, false
}
