package fdyno

import (
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/fdyno/fdyno/internal/avjson"
	"github.com/fdyno/fdyno/internal/number"
	"github.com/fdyno/fdyno/internal/validate"

	"github.com/cockroachdb/apd/v3"
)

// DynamoDB's item limits (the service quotas page); package
// internal/validate checks them.
const (
	// MaxAttributeNameLength is the longest attribute name, in UTF-8
	// bytes; 64 KB itself is rejected.
	MaxAttributeNameLength = validate.MaxNameLength
	// MaxNestingDepth is the deepest level a value may sit at: a top-level
	// attribute's value is at level 1 and each enclosing M or L adds a
	// level, so a scalar may be wrapped in at most 31 maps or lists.
	MaxNestingDepth = validate.MaxNestingDepth
)

// Type is one of DynamoDB's ten attribute types. The zero Type is the type
// of the zero Value, which is no value at all.
type Type uint8

// The DynamoDB attribute types.
const (
	TypeS    Type = iota + 1 // string
	TypeN                    // number
	TypeB                    // binary
	TypeBOOL                 // boolean
	TypeNULL                 // null
	TypeM                    // map
	TypeL                    // list
	TypeSS                   // string set
	TypeNS                   // number set
	TypeBS                   // binary set
)

var typeNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// String returns DynamoDB's name for t, such as "S" or "BOOL".
func (t Type) String() string {
	if int(t) < len(typeNames) && t != 0 {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Item is a DynamoDB item: attribute names mapped to values. The same type
// holds the contents of an M value.
type Item map[string]Value

// Value is one DynamoDB attribute value of any of the ten types. Build
// values with the constructors ([S], [N], [B], [Bool], [Null], [M], [L], [SS],
// [NS], [BS]) and read them with the accessor of the same name. The zero
// Value is no value: its Type is 0, and it is what indexing an Item with a
// missing name returns.
//
// Invariants:
//
//  1. A Value is immutable, except that [M] and [L] share the Item or slice
//     they are given and [Value.M] and [Value.L] return it.
//  2. An N value holds its canonical text (plain notation, no leading zeros,
//     no trailing fractional zeros, "0" for any zero) unless the text it was
//     built from is not a legal DynamoDB number; then it holds that text and
//     [Item.Validate] reports why.
//  3. Set members are kept in canonical order: SS and BS by bytes, NS by
//     numeric value; duplicates are kept so that Validate can reject them.
//
// Values are safe for concurrent reads.
type Value struct {
	_   [0]func() // Values are not comparable with ==; use Equal
	typ Type
	bad bool   // an N or NS that failed to normalise
	b   bool   // BOOL
	s   string // S, N, and B's bytes
	// x holds the contents of a container: Item for M, []Value for L,
	// and []string for the members of SS, NS and BS. One interface field
	// keeps a Value at 40 bytes, which matters for maps of many values.
	x any
}

func (v Value) mapv() Item {
	m, _ := v.x.(Item)
	return m
}

func (v Value) listv() []Value {
	l, _ := v.x.([]Value)
	return l
}

func (v Value) setv() []string {
	s, _ := v.x.([]string)
	return s
}

// S returns a string value.
func S(s string) Value { return Value{typ: TypeS, s: s} }

// N returns a number value from its decimal text, such as "42", "-1.5" or
// "6.02E23". DynamoDB's rules apply: at most 38 significant digits and a
// magnitude from 1E-130 to 9.9999999999999999999999999999999999999E+125.
// The value is normalised the way DynamoDB returns numbers ("1e3" becomes
// "1000"). Illegal text is kept as is, for [Item.Validate] to reject; use
// [ParseN] to get the error at once.
func N(s string) Value {
	c, err := number.Canonical(s)
	if err != nil {
		return Value{typ: TypeN, s: s, bad: true}
	}
	return Value{typ: TypeN, s: c}
}

// ParseN is like [N] but returns a *[ValidationError] for illegal text.
func ParseN(s string) (Value, error) {
	c, err := number.Canonical(s)
	if err != nil {
		return Value{}, &ValidationError{Reason: err.Error()}
	}
	return Value{typ: TypeN, s: c}, nil
}

// NInt returns the number value of i.
func NInt(i int64) Value { return Value{typ: TypeN, s: strconv.FormatInt(i, 10)} }

// NUint returns the number value of u.
func NUint(u uint64) Value { return Value{typ: TypeN, s: strconv.FormatUint(u, 10)} }

// NFloat returns the number value of the shortest decimal that reads back
// as f. NaN, infinities and magnitudes outside DynamoDB's range give a
// value that [Item.Validate] rejects.
func NFloat(f float64) Value {
	c, err := number.FormatFloat(f, 64)
	if err != nil {
		return Value{typ: TypeN, s: strconv.FormatFloat(f, 'g', -1, 64), bad: true}
	}
	return Value{typ: TypeN, s: c}
}

// NDecimal returns the number value of d; see [N] for the rules.
func NDecimal(d *apd.Decimal) Value {
	c, err := number.CanonicalDecimal(d)
	if err != nil {
		return Value{typ: TypeN, s: d.String(), bad: true}
	}
	return Value{typ: TypeN, s: c}
}

// B returns a binary value holding a copy of b.
func B(b []byte) Value { return Value{typ: TypeB, s: string(b)} }

// Bool returns a BOOL value.
func Bool(b bool) Value { return Value{typ: TypeBOOL, b: b} }

// Null returns the NULL value.
func Null() Value { return Value{typ: TypeNULL, b: true} }

// M returns a map value. The Item is shared, not copied; a nil Item is an
// empty map.
func M(it Item) Value { return Value{typ: TypeM, x: it} }

// L returns a list value. The slice is shared, not copied.
func L(vs ...Value) Value { return Value{typ: TypeL, x: vs} }

// SS returns a string set of the members, which it copies and sorts.
// DynamoDB rejects empty sets and duplicate members; [Item.Validate] does
// too.
func SS(members ...string) Value {
	set := slices.Clone(members)
	slices.Sort(set)
	return Value{typ: TypeSS, x: set}
}

// NS returns a number set of the members, each given as decimal text and
// normalised as by [N]; the set is sorted by numeric value, so "1" and
// "1.0" are duplicates, which [Item.Validate] rejects.
func NS(members ...string) Value {
	set := make([]string, len(members))
	bad := false
	for i, m := range members {
		c, err := number.Canonical(m)
		if err != nil {
			bad, c = true, m
		}
		set[i] = c
	}
	if !bad {
		slices.SortFunc(set, number.Compare)
	}
	return Value{typ: TypeNS, x: set, bad: bad}
}

// BS returns a binary set of copies of the members, sorted by bytes.
func BS(members ...[]byte) Value {
	set := make([]string, len(members))
	for i, m := range members {
		set[i] = string(m)
	}
	slices.Sort(set)
	return Value{typ: TypeBS, x: set}
}

// Type returns v's DynamoDB type, or 0 for the zero Value.
func (v Value) Type() Type { return v.typ }

// IsZero reports whether v is the zero Value, which is no value at all.
func (v Value) IsZero() bool { return v.typ == 0 }

// S returns the string of an S value, or "" for any other type.
func (v Value) S() string {
	if v.typ != TypeS {
		return ""
	}
	return v.s
}

// N returns the canonical text of an N value, or "" for any other type.
func (v Value) N() string {
	if v.typ != TypeN {
		return ""
	}
	return v.s
}

// Number returns the canonical text of an N value as a [Number], or "" for
// any other type.
func (v Value) Number() Number { return Number(v.N()) }

// Int64 returns an N value as an int64. It fails if v is not a legal N
// value, is not an integer, or does not fit.
func (v Value) Int64() (int64, error) {
	if v.typ != TypeN || v.bad {
		return 0, &UnmarshalError{Value: v.typ, Type: typeInt64, Reason: "not a number"}
	}
	i, err := strconv.ParseInt(v.s, 10, 64)
	if err != nil {
		return 0, &UnmarshalError{Value: v.typ, Type: typeInt64, Reason: "number " + v.s + " does not fit", Err: err}
	}
	return i, nil
}

// Float64 returns the float64 nearest to an N value. It fails if v is not
// a legal N value or is beyond the float64 range.
func (v Value) Float64() (float64, error) {
	if v.typ != TypeN || v.bad {
		return 0, &UnmarshalError{Value: v.typ, Type: typeFloat64, Reason: "not a number"}
	}
	f, err := strconv.ParseFloat(v.s, 64)
	if err != nil {
		return 0, &UnmarshalError{Value: v.typ, Type: typeFloat64, Reason: "number " + v.s + " does not fit", Err: err}
	}
	return f, nil
}

// Decimal returns an N value as an exact decimal.
func (v Value) Decimal() (*apd.Decimal, error) {
	if v.typ != TypeN || v.bad {
		return nil, &UnmarshalError{Value: v.typ, Type: typeDecimal, Reason: "not a number"}
	}
	d, _, err := apd.NewFromString(v.s)
	return d, err
}

// BigInt returns an integral N value as a big.Int.
func (v Value) BigInt() (*big.Int, error) {
	i, ok := new(big.Int).SetString(v.N(), 10)
	if v.bad || !ok {
		return nil, &UnmarshalError{Value: v.typ, Type: typeBigInt, Reason: "not an integer"}
	}
	return i, nil
}

// B returns a copy of the bytes of a B value, or nil for any other type.
func (v Value) B() []byte {
	if v.typ != TypeB {
		return nil
	}
	return []byte(v.s)
}

// Bool returns the boolean of a BOOL value, or false for any other type.
func (v Value) Bool() bool { return v.typ == TypeBOOL && v.b }

// IsNull reports whether v is the NULL value.
func (v Value) IsNull() bool { return v.typ == TypeNULL }

// M returns the Item of an M value, or nil for any other type. The Item is
// shared with v.
func (v Value) M() Item {
	if v.typ != TypeM {
		return nil
	}
	return v.mapv()
}

// L returns the elements of an L value, or nil for any other type. The
// slice is shared with v.
func (v Value) L() []Value {
	if v.typ != TypeL {
		return nil
	}
	return v.listv()
}

// SS returns a copy of the members of an SS value in byte order, or nil for
// any other type.
func (v Value) SS() []string {
	if v.typ != TypeSS {
		return nil
	}
	return slices.Clone(v.setv())
}

// NS returns a copy of the canonical members of an NS value in numeric
// order, or nil for any other type.
func (v Value) NS() []string {
	if v.typ != TypeNS {
		return nil
	}
	return slices.Clone(v.setv())
}

// BS returns copies of the members of a BS value in byte order, or nil for
// any other type.
func (v Value) BS() [][]byte {
	if v.typ != TypeBS {
		return nil
	}
	out := make([][]byte, len(v.setv()))
	for i, m := range v.setv() {
		out[i] = []byte(m)
	}
	return out
}

// Len returns the number of elements of an M, L or set value, the length
// in bytes of an S or B value, and 0 otherwise: what DynamoDB's size()
// function returns for the types it accepts.
func (v Value) Len() int {
	switch v.typ {
	case TypeS, TypeB:
		return len(v.s)
	case TypeM:
		return len(v.mapv())
	case TypeL:
		return len(v.listv())
	case TypeSS, TypeNS, TypeBS:
		return len(v.setv())
	}
	return 0
}

// Equal reports whether v and w are the same DynamoDB value: numbers are
// equal by value and sets regardless of the order they were built in.
// go-cmp uses this method.
func (v Value) Equal(w Value) bool {
	if v.typ != w.typ || v.bad != w.bad {
		return false
	}
	switch v.typ {
	case TypeS, TypeN, TypeB:
		return v.s == w.s
	case TypeBOOL:
		return v.b == w.b
	case TypeM:
		return v.mapv().Equal(w.mapv())
	case TypeL:
		return slices.EqualFunc(v.listv(), w.listv(), Value.Equal)
	case TypeSS, TypeNS, TypeBS:
		return slices.Equal(v.setv(), w.setv())
	}
	return true
}

// Equal reports whether it and other hold the same attributes with equal
// values.
func (it Item) Equal(other Item) bool {
	if len(it) != len(other) {
		return false
	}
	for k, v := range it {
		w, ok := other[k]
		if !ok || !v.Equal(w) {
			return false
		}
	}
	return true
}

// String returns v in DynamoDB's JSON form, such as {"S":"x"} or
// {"NS":["1","2.5"]}, for debugging and test output.
func (v Value) String() string {
	return string(avjson.AppendValue[Value](valueOps{}, nil, v))
}

// String returns it in DynamoDB's JSON form with the names in byte order.
func (it Item) String() string {
	return string(avjson.AppendItem[Value](valueOps{}, nil, it))
}

// Validate checks it against DynamoDB's rules for item contents: attribute
// names (map keys included) of 1 to 65535 bytes of valid UTF-8, S values
// and SS members of valid UTF-8, legal numbers, non-empty sets without
// duplicates, and nesting at most 32 levels deep. It does not check the
// item size or key attributes, which depend on the table. The error is a
// *[ValidationError] naming the attribute path and the rule.
func (it Item) Validate() error {
	return validationFrom(validate.Item[Value](valueOps{}, it))
}

// Validate checks v on its own as a top-level attribute value; see
// [Item.Validate].
func (v Value) Validate() error {
	return validationFrom(validate.Value[Value](valueOps{}, v))
}

// validationFrom returns err, an error of package internal/validate, as
// a *[ValidationError].
func validationFrom(err error) error {
	if e, ok := err.(*validate.Error); ok {
		return &ValidationError{Path: e.Path, Reason: e.Reason}
	}
	return err
}

// Size returns the size DynamoDB charges for it, the measure of its 400 KB
// item limit: for each attribute, the UTF-8 length of its name plus the size
// of its value. S is its UTF-8 length, B its raw length, N about one byte per
// two significant digits plus one, BOOL and NULL one byte, each set the sum
// of its members, and M and L three bytes plus one byte per element (plus
// each M key's length) plus the elements.
func (it Item) Size() int {
	n := 0
	for k, v := range it {
		n += len(k) + v.Size()
	}
	return n
}

// Size returns the size DynamoDB charges for v alone; see [Item.Size].
func (v Value) Size() int {
	switch v.typ {
	case TypeS, TypeB:
		return len(v.s)
	case TypeN:
		if v.bad {
			return len(v.s)
		}
		return number.Size(v.s)
	case TypeBOOL, TypeNULL:
		return 1
	case TypeSS, TypeBS:
		n := 0
		for _, m := range v.setv() {
			n += len(m)
		}
		return n
	case TypeNS:
		n := 0
		for _, m := range v.setv() {
			if v.bad {
				n += len(m)
			} else {
				n += number.Size(m)
			}
		}
		return n
	case TypeM:
		n := 3
		for k, e := range v.mapv() {
			n += 1 + len(k) + e.Size()
		}
		return n
	case TypeL:
		n := 3
		for _, e := range v.listv() {
			n += 1 + e.Size()
		}
		return n
	}
	return 0
}

// Item size limits.
const (
	// DefaultMaxItemSize is DynamoDB's item size limit, 400 KB, as
	// measured by [Item.Size].
	DefaultMaxItemSize = 400 * 1024
	// MaxItemSizeLimit is the largest item size [WithMaxItemSize] accepts.
	// It keeps an item, its old version's deletion and its chunk keys well
	// inside FoundationDB's 10 MB transaction limit.
	MaxItemSizeLimit = 4 << 20
)

// DynamoDB's key value limits (the service quotas page).
const (
	// MaxPartitionKeyLength is the longest partition key value, in bytes.
	MaxPartitionKeyLength = 2048
	// MaxSortKeyLength is the longest sort key value, in bytes.
	MaxSortKeyLength = 1024
)

// checkKeyValue validates v as the value of key attribute name, declared
// of type want, in the partition key (hash) or sort key position, with
// DynamoDB's messages.
func checkKeyValue(name string, v Value, want Type, hash bool) error {
	fail := func(reason string) error {
		return &ValidationError{Path: name, Reason: reason}
	}
	if v.typ != want {
		return fail("One or more parameter values were invalid: Type mismatch for key " + name + " expected: " + want.String() + " actual: " + v.typ.String())
	}
	switch v.typ {
	case TypeS, TypeB:
		switch {
		case v.s == "":
			return &ValidationError{Path: name, early: true, Reason: "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty " +
				map[Type]string{TypeS: "string", TypeB: "binary"}[v.typ] + " value. Key: " + name}
		case hash && len(v.s) > MaxPartitionKeyLength:
			return fail("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes")
		case !hash && len(v.s) > MaxSortKeyLength:
			return fail("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
		case v.typ == TypeS && !utf8.ValidString(v.s):
			return fail(validate.ReasonInvalidUTF8)
		}
	case TypeN:
		if v.bad {
			_, err := number.Canonical(v.s)
			return fail(err.Error())
		}
	default:
		return fail("key attributes must be S, N or B, not " + v.typ.String())
	}
	return nil
}

// Go types the Value accessors name in their errors.
var (
	typeInt64   = reflect.TypeFor[int64]()
	typeFloat64 = reflect.TypeFor[float64]()
	typeBigInt  = reflect.TypeFor[*big.Int]()
	typeDecimal = reflect.TypeFor[*apd.Decimal]()
)
