package fdyno

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// DynamoDB's number limits: at most 38 significant digits, and a nonzero
// magnitude from 1E-130 to 9.9999999999999999999999999999999999999E+125. The
// exponents are adjusted exponents (scientific notation, one digit before
// the point).
const (
	MaxNumberDigits   = 38
	MaxNumberExponent = 125
	MinNumberExponent = -130
)

// Reasons for rejecting a number, in DynamoDB's words.
const (
	reasonNumberSyntax    = "The parameter cannot be converted to a numeric value"
	reasonNumberDigits    = "Attempting to store more than 38 significant digits in a Number"
	reasonNumberOverflow  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	reasonNumberUnderflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
)

// numberContext is the decimal context of DynamoDB arithmetic: 38 digits.
// Callers treat an Inexact result (a nonzero digit rounded away) as an
// error, as DynamoDB rejects 1E50 + 1 rather than rounding it. The exponent
// range is left wide and checked by canonicalDecimal so the errors carry
// DynamoDB's wording.
var numberContext = apd.Context{
	Precision:   MaxNumberDigits,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfEven,
}

// Number is a DynamoDB number in its canonical text form, as [Value.N]
// returns it. Unmarshal stores N values in Number when the target is an
// interface, so no precision is lost; Marshal turns a Number into N.
type Number string

// String returns n's text.
func (n Number) String() string { return string(n) }

// Int64 returns n as an int64, or an error if n is not an integer or does not
// fit.
func (n Number) Int64() (int64, error) {
	return strconv.ParseInt(string(n), 10, 64)
}

// Float64 returns the float64 nearest to n, or an error if n is out of the
// float64 range.
func (n Number) Float64() (float64, error) {
	return strconv.ParseFloat(string(n), 64)
}

// Decimal returns n as an exact decimal.
func (n Number) Decimal() (*apd.Decimal, error) {
	d, _, err := apd.NewFromString(string(n))
	return d, err
}

// numberError is the reason a number text was rejected.
type numberError string

func (e numberError) Error() string { return string(e) }

// lexNumber scans s under the grammar DynamoDB accepts for N values:
// an optional sign, digits with an optional decimal point (at least one
// digit), and an optional exponent. It reports whether the value is zero,
// the count of significant digits and the adjusted exponent of the value
// (saturating far outside the legal range, so any input length is safe).
func lexNumber(s string) (zero bool, digits int, adj int64, ok bool) {
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

// canonicalNumber validates s as a DynamoDB number and returns its
// canonical text: plain notation, no leading zeros, no trailing fractional
// zeros, "0" for every zero. The error is a numberError carrying
// DynamoDB's reason.
func canonicalNumber(s string) (string, error) {
	if isCanonicalNumber(s) {
		return s, nil
	}
	zero, digits, adj, ok := lexNumber(s)
	switch {
	case !ok:
		return "", numberSyntaxError(s)
	case zero:
		return "0", nil
	case digits > MaxNumberDigits:
		return "", numberError(reasonNumberDigits)
	case adj > MaxNumberExponent:
		return "", numberError(reasonNumberOverflow)
	case adj < MinNumberExponent:
		return "", numberError(reasonNumberUnderflow)
	}
	var d apd.Decimal
	if _, _, err := d.SetString(s); err != nil {
		// lexNumber accepted s, so only an exponent beyond int32 that
		// leading or trailing zeros brought back into range gets here.
		return "", numberSyntaxError(s)
	}
	return canonicalDecimal(&d)
}

// numberSyntaxError is DynamoDB's error for text s that is not a number:
// the reason followed by the text, or the reason alone for empty text.
func numberSyntaxError(s string) numberError {
	if s == "" {
		return numberError(reasonNumberSyntax)
	}
	return numberError(reasonNumberSyntax + ": " + s)
}

// canonicalDecimal checks d against DynamoDB's limits and formats it
// canonically.
func canonicalDecimal(d *apd.Decimal) (string, error) {
	if d.Form != apd.Finite {
		return "", numberError(reasonNumberSyntax)
	}
	if d.IsZero() {
		return "0", nil
	}
	var r apd.Decimal
	r.Reduce(d)
	nd := r.NumDigits()
	adj := int64(r.Exponent) + nd - 1
	switch {
	case nd > MaxNumberDigits:
		return "", numberError(reasonNumberDigits)
	case adj > MaxNumberExponent:
		return "", numberError(reasonNumberOverflow)
	case adj < MinNumberExponent:
		return "", numberError(reasonNumberUnderflow)
	}
	return r.Text('f'), nil
}

// numberParts splits a canonical number into its sign, its adjusted
// exponent and its significant digits, which are the concatenation hi+lo
// (no leading or trailing zeros overall). It does not allocate.
func numberParts(s string) (neg bool, adj int, hi, lo string) {
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

// isCanonicalNumber reports whether s is exactly the canonical text of a
// legal DynamoDB number. It does not allocate; the codec uses it to check
// stored numbers.
func isCanonicalNumber(s string) bool {
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
	_, adj, hi, lo := numberParts(s)
	return len(hi)+len(lo) <= MaxNumberDigits && adj >= MinNumberExponent && adj <= MaxNumberExponent
}

// compareNumbers compares two canonical numbers by value and returns -1, 0
// or +1. It does not allocate.
func compareNumbers(a, b string) int {
	if a == b {
		return 0
	}
	sa, sb := numberSign(a), numberSign(b)
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	_, ea, ha, la := numberParts(a)
	_, eb, hb, lb := numberParts(b)
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

func numberSign(s string) int {
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

// numberSize is the size DynamoDB charges for a number: DynamoDB stores
// numbers as base-100 digits aligned on the decimal point plus an exponent
// byte, which is the "1 byte per two significant digits, plus 1" of its
// documentation; negative numbers carry one more byte (a terminator), as
// measured by DynamoDB-compatible implementations.
func numberSize(s string) int {
	if s == "0" {
		return 1
	}
	neg, adj, hi, lo := numberParts(s)
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

// addNumbers returns a+b for canonical numbers, failing like DynamoDB's
// update arithmetic on overflow or on a result that needs more than 38
// digits.
func addNumbers(a, b string) (string, error) {
	return arith(a, b, false)
}

// subNumbers returns a-b for canonical numbers; see addNumbers.
func subNumbers(a, b string) (string, error) {
	return arith(a, b, true)
}

func arith(a, b string, sub bool) (string, error) {
	var x, y, z apd.Decimal
	if _, _, err := x.SetString(a); err != nil {
		return "", numberError(reasonNumberSyntax)
	}
	if _, _, err := y.SetString(b); err != nil {
		return "", numberError(reasonNumberSyntax)
	}
	var (
		res apd.Condition
		err error
	)
	if sub {
		res, err = numberContext.Sub(&z, &x, &y)
	} else {
		res, err = numberContext.Add(&z, &x, &y)
	}
	if err != nil {
		return "", numberError(reasonNumberSyntax)
	}
	// Range first: a sum past the maximum is an overflow even though it
	// also needs a 39th digit.
	c, err := canonicalDecimal(&z)
	if err != nil {
		return "", err
	}
	if res.Inexact() {
		return "", numberError(reasonNumberDigits)
	}
	return c, nil
}

// formatFloat returns the shortest decimal text that reads back as f.
func formatFloat(f float64, bits int) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", numberError(reasonNumberSyntax)
	}
	return canonicalNumber(strconv.FormatFloat(f, 'g', -1, bits))
}

// The order-preserving byte form of a number, the N element of a key:
// keys.go's header gives the layout and why it orders numerically.

// Leading bytes of the number encoding.
const (
	numberKeyNegative = 0x01
	numberKeyZero     = 0x02
	numberKeyPositive = 0x03
	numberKeyEnd      = 0xff // terminator of negative numbers
	numberKeyBias     = -MinNumberExponent
)

// appendNumberKey appends the order-preserving encoding of canonical
// number s to dst.
func appendNumberKey(dst []byte, s string) []byte {
	if s == "0" {
		return append(dst, numberKeyZero)
	}
	neg, adj, hi, lo := numberParts(s)
	n := len(hi) + len(lo)
	exp := byte(adj + numberKeyBias)
	if neg {
		dst = append(dst, numberKeyNegative, 255-exp)
	} else {
		dst = append(dst, numberKeyPositive, exp)
	}
	for i := 0; i < n; i += 2 {
		pair := (digitAt(hi, lo, i) - '0') * 10
		if i+1 < n {
			pair += digitAt(hi, lo, i+1) - '0'
		}
		if neg {
			dst = append(dst, 100-pair)
		} else {
			dst = append(dst, pair+1)
		}
	}
	if neg {
		dst = append(dst, numberKeyEnd)
	}
	return dst
}

// decodeNumberKey returns the canonical text of a number encoded by
// appendNumberKey, accepting nothing else.
func decodeNumberKey(b []byte) (string, error) {
	fail := func(reason string) (string, error) {
		return "", &CorruptError{What: "key", Reason: "number: " + reason}
	}
	if len(b) == 0 {
		return fail("empty")
	}
	sign := b[0]
	switch {
	case sign == numberKeyZero && len(b) == 1:
		return "0", nil
	case sign != numberKeyNegative && sign != numberKeyPositive:
		return fail("bad sign byte")
	}
	neg := sign == numberKeyNegative
	if len(b) < 3 {
		return fail("truncated")
	}
	exp, digitBytes := b[1], b[2:]
	if neg {
		exp = 255 - exp
		if digitBytes[len(digitBytes)-1] != numberKeyEnd {
			return fail("missing terminator")
		}
		digitBytes = digitBytes[:len(digitBytes)-1]
	}
	if len(digitBytes) == 0 || len(digitBytes) > (MaxNumberDigits+1)/2 {
		return fail("bad digit count")
	}
	var digits [MaxNumberDigits + 1]byte
	n := 0
	for _, d := range digitBytes {
		if d < 1 || d > 100 {
			return fail("bad digit byte")
		}
		pair := d - 1
		if neg {
			pair = 100 - d
		}
		digits[n], digits[n+1] = '0'+pair/10, '0'+pair%10
		n += 2
	}
	if digits[n-1] == '0' {
		n-- // a lone last digit, padded
	}
	if digits[0] == '0' || digits[n-1] == '0' || n > MaxNumberDigits {
		return fail("digits not canonical")
	}
	s := formatNumber(neg, int(exp)-numberKeyBias, string(digits[:n]))
	if !isCanonicalNumber(s) {
		return fail("out of range")
	}
	return s, nil
}

// formatNumber returns the plain-notation text of ±0.d1d2…dn × 10^(adj+1).
func formatNumber(neg bool, adj int, digits string) string {
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case adj < 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -adj-1))
		b.WriteString(digits)
	case adj+1 >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", adj+1-len(digits)))
	default:
		b.WriteString(digits[:adj+1])
		b.WriteByte('.')
		b.WriteString(digits[adj+1:])
	}
	return b.String()
}
