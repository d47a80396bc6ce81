// Package number holds DynamoDB's numbers as fdyno keeps them: canonical
// decimal text. It validates and normalises number text under DynamoDB's
// limits, compares and adds canonical numbers, measures them as DynamoDB
// charges for them, and gives them the order-preserving byte form of a
// key element. The root package's N values, its item codec, the key
// packing and package internal/expr all build on it; errors are [Error],
// DynamoDB's reason, which the root package turns into its
// *ValidationError or *CorruptError.
package number

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// DynamoDB's number limits: at most 38 significant digits, and a nonzero
// magnitude from 1E-130 to 9.9999999999999999999999999999999999999E+125. The
// exponents are adjusted exponents (scientific notation, one digit before
// the point).
const (
	MaxDigits   = 38
	MaxExponent = 125
	MinExponent = -130
)

// Reasons for rejecting a number, in DynamoDB's words.
const (
	ReasonSyntax    = "The parameter cannot be converted to a numeric value"
	ReasonDigits    = "Attempting to store more than 38 significant digits in a Number"
	ReasonOverflow  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	ReasonUnderflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
)

// arithContext is the decimal context of DynamoDB arithmetic: 38 digits.
// Callers treat an Inexact result (a nonzero digit rounded away) as an
// error, as DynamoDB rejects 1E50 + 1 rather than rounding it. The exponent
// range is left wide and checked by CanonicalDecimal so the errors carry
// DynamoDB's wording.
var arithContext = apd.Context{
	Precision:   MaxDigits,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfEven,
}

// Error is the reason a number text was rejected, in DynamoDB's words.
type Error string

func (e Error) Error() string { return string(e) }

// lex scans s under the grammar DynamoDB accepts for N values:
// an optional sign, digits with an optional decimal point (at least one
// digit), and an optional exponent. It reports whether the value is zero,
// the count of significant digits and the adjusted exponent of the value
// (saturating far outside the legal range, so any input length is safe).
func lex(s string) (zero bool, digits int, adj int64, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	// first and last significant digit, counted as positions in the
	// mantissa's digit sequence; point is the number of digits before '.'.
	first, last, n, point := -1, -1, 0, -1
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if c != '0' {
				if first < 0 {
					first = n
				}
				last = n
			}
			n++
		case c == '.' && point < 0:
			point = n
		default:
			goto exponent
		}
	}
exponent:
	if n == 0 {
		return false, 0, 0, false
	}
	if point < 0 {
		point = n
	}
	var exp int64
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return false, 0, 0, false
		}
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return false, 0, 0, false
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return false, 0, 0, false
			}
			if exp < 1<<40 {
				exp = exp*10 + int64(c-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	if first < 0 {
		return true, 0, 0, true
	}
	// The first significant digit has weight 10^(point-1-first) before
	// the exponent is applied.
	return false, last - first + 1, exp + int64(point-1-first), true
}

// Canonical validates s as a DynamoDB number and returns its
// canonical text: plain notation, no leading zeros, no trailing fractional
// zeros, "0" for every zero. The error is a Error carrying
// DynamoDB's reason.
func Canonical(s string) (string, error) {
	if IsCanonical(s) {
		return s, nil
	}
	zero, digits, adj, ok := lex(s)
	switch {
	case !ok:
		return "", syntaxError(s)
	case zero:
		return "0", nil
	}
	if err := checkLimits(int64(digits), adj); err != nil {
		return "", err
	}
	var d apd.Decimal
	if _, _, err := d.SetString(s); err != nil {
		// lex accepted s, so only an exponent beyond int32 that
		// leading or trailing zeros brought back into range gets here.
		return "", syntaxError(s)
	}
	return CanonicalDecimal(&d)
}

// syntaxError is DynamoDB's error for text s that is not a number:
// the reason followed by the text, or the reason alone for empty text.
func syntaxError(s string) Error {
	if s == "" {
		return Error(ReasonSyntax)
	}
	return Error(ReasonSyntax + ": " + s)
}

// CanonicalDecimal checks d against DynamoDB's limits and formats it
// canonically.
func CanonicalDecimal(d *apd.Decimal) (string, error) {
	if d.Form != apd.Finite {
		return "", Error(ReasonSyntax)
	}
	if d.IsZero() {
		return "0", nil
	}
	var r apd.Decimal
	r.Reduce(d)
	nd := r.NumDigits()
	if err := checkLimits(nd, int64(r.Exponent)+nd-1); err != nil {
		return "", err
	}
	return r.Text('f'), nil
}

// checkLimits applies DynamoDB's limits to a nonzero number of digits
// significant digits and adjusted exponent adj (that of its first digit).
func checkLimits(digits, adj int64) error {
	switch {
	case digits > MaxDigits:
		return Error(ReasonDigits)
	case adj > MaxExponent:
		return Error(ReasonOverflow)
	case adj < MinExponent:
		return Error(ReasonUnderflow)
	}
	return nil
}

// parts splits a canonical number into its sign, its adjusted
// exponent and its significant digits, which are the concatenation hi+lo
// (no leading or trailing zeros overall). It does not allocate.
func parts(s string) (neg bool, adj int, hi, lo string) {
	if s == "0" {
		return false, 0, "", ""
	}
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i+1:]
			break
		}
	}
	if intPart != "0" {
		hi, lo = intPart, frac
		if lo == "" {
			for len(hi) > 1 && hi[len(hi)-1] == '0' {
				hi = hi[:len(hi)-1]
			}
		}
		return neg, len(intPart) - 1, hi, lo
	}
	k := 0
	for k < len(frac) && frac[k] == '0' {
		k++
	}
	return neg, -(k + 1), frac[k:], ""
}

// IsCanonical reports whether s is exactly the canonical text of a
// legal DynamoDB number. It does not allocate; the codec uses it to check
// stored numbers.
func IsCanonical(s string) bool {
	t := s
	if len(t) > 0 && t[0] == '-' {
		t = t[1:]
		if t == "0" {
			return false
		}
	}
	if t == "" {
		return false
	}
	intEnd := 0
	for intEnd < len(t) && t[intEnd] >= '0' && t[intEnd] <= '9' {
		intEnd++
	}
	if intEnd == 0 || (intEnd > 1 && t[0] == '0') {
		return false
	}
	if intEnd < len(t) {
		if t[intEnd] != '.' || intEnd+1 == len(t) || t[len(t)-1] == '0' {
			return false
		}
		for i := intEnd + 1; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return false
			}
		}
	} else if t == "0" {
		return true
	}
	_, adj, hi, lo := parts(s)
	return len(hi)+len(lo) <= MaxDigits && adj >= MinExponent && adj <= MaxExponent
}

// Compare compares two canonical numbers by value and returns -1, 0
// or +1. It does not allocate.
func Compare(a, b string) int {
	if a == b {
		return 0
	}
	sa, sb := sign(a), sign(b)
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	_, ea, ha, la := parts(a)
	_, eb, hb, lb := parts(b)
	c := 0
	switch {
	case ea < eb:
		c = -1
	case ea > eb:
		c = 1
	default:
		c = compareDigits(ha, la, hb, lb)
	}
	return c * sa
}

func sign(s string) int {
	switch {
	case s == "0":
		return 0
	case s[0] == '-':
		return -1
	}
	return 1
}

// compareDigits compares the digit sequences ha+la and hb+lb
// lexicographically, a proper prefix sorting first.
func compareDigits(ha, la, hb, lb string) int {
	na, nb := len(ha)+len(la), len(hb)+len(lb)
	for i := 0; i < na && i < nb; i++ {
		x, y := digitAt(ha, la, i), digitAt(hb, lb, i)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case na < nb:
		return -1
	case na > nb:
		return 1
	}
	return 0
}

func digitAt(hi, lo string, i int) byte {
	if i < len(hi) {
		return hi[i]
	}
	return lo[i-len(hi)]
}

// Size is the size DynamoDB charges for a number: DynamoDB stores
// numbers as base-100 digits aligned on the decimal point plus an exponent
// byte, which is the "1 byte per two significant digits, plus 1" of its
// documentation; negative numbers carry one more byte (a terminator), as
// measured by DynamoDB-compatible implementations.
func Size(s string) int {
	if s == "0" {
		return 1
	}
	neg, adj, hi, lo := parts(s)
	// Digit i of the significant digits has weight 10^(adj-i).
	last := adj - (len(hi) + len(lo) - 1)
	size := 1 + floorDiv2(adj) - floorDiv2(last) + 1
	if neg {
		size++
	}
	return size
}

func floorDiv2(x int) int {
	if x < 0 {
		return -((-x + 1) / 2)
	}
	return x / 2
}

// Add returns a+b for canonical numbers, failing like DynamoDB's
// update arithmetic on overflow or on a result that needs more than 38
// digits.
func Add(a, b string) (string, error) {
	return arith(a, b, false)
}

// Sub returns a-b for canonical numbers; see Add.
func Sub(a, b string) (string, error) {
	return arith(a, b, true)
}

func arith(a, b string, sub bool) (string, error) {
	var x, y, z apd.Decimal
	if _, _, err := x.SetString(a); err != nil {
		return "", Error(ReasonSyntax)
	}
	if _, _, err := y.SetString(b); err != nil {
		return "", Error(ReasonSyntax)
	}
	var (
		res apd.Condition
		err error
	)
	if sub {
		res, err = arithContext.Sub(&z, &x, &y)
	} else {
		res, err = arithContext.Add(&z, &x, &y)
	}
	if err != nil {
		return "", Error(ReasonSyntax)
	}
	// Range first: a sum past the maximum is an overflow even though it
	// also needs a 39th digit.
	c, err := CanonicalDecimal(&z)
	if err != nil {
		return "", err
	}
	if res.Inexact() {
		return "", Error(ReasonDigits)
	}
	return c, nil
}

// FormatFloat returns the shortest decimal text that reads back as f.
func FormatFloat(f float64, bits int) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", Error(ReasonSyntax)
	}
	return Canonical(strconv.FormatFloat(f, 'g', -1, bits))
}
