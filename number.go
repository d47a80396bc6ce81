package fdyno

import (
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/fdyno/fdyno/internal/number"
)

// DynamoDB's number limits: at most 38 significant digits, and a nonzero
// magnitude from 1E-130 to 9.9999999999999999999999999999999999999E+125. The
// exponents are adjusted exponents (scientific notation, one digit before
// the point). Package internal/number validates, compares, adds and
// encodes numbers under them.
const (
	MaxNumberDigits   = number.MaxDigits
	MaxNumberExponent = number.MaxExponent
	MinNumberExponent = number.MinExponent
)

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

// decodeNumberKey returns the canonical text of a number encoded as a key
// element (see keys.go), or a *[CorruptError] for anything else.
func decodeNumberKey(b []byte) (string, error) {
	s, err := number.DecodeKey(b)
	if err != nil {
		return "", &CorruptError{What: "key", Reason: "number: " + err.Error()}
	}
	return s, nil
}
