package number

import "strings"

// The order-preserving byte form of a number, the N element of a key:
// the header of the root package's keys.go gives the layout and why it orders numerically.

// Leading bytes of the number encoding.
const (
	keyNegative = 0x01
	keyZero     = 0x02
	keyPositive = 0x03
	keyEnd      = 0xff // terminator of negative numbers
	keyBias     = -MinExponent
)

// AppendKey appends the order-preserving encoding of canonical
// number s to dst.
func AppendKey(dst []byte, s string) []byte {
	if s == "0" {
		return append(dst, keyZero)
	}
	neg, adj, hi, lo := parts(s)
	n := len(hi) + len(lo)
	exp := byte(adj + keyBias)
	if neg {
		dst = append(dst, keyNegative, 255-exp)
	} else {
		dst = append(dst, keyPositive, exp)
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
		dst = append(dst, keyEnd)
	}
	return dst
}

// DecodeKey returns the canonical text of a number encoded by
// AppendKey, accepting nothing else: the error names what is wrong with
// the bytes.
func DecodeKey(b []byte) (string, error) {
	fail := func(reason string) (string, error) {
		return "", Error(reason)
	}
	if len(b) == 0 {
		return fail("empty")
	}
	sign := b[0]
	switch {
	case sign == keyZero && len(b) == 1:
		return "0", nil
	case sign != keyNegative && sign != keyPositive:
		return fail("bad sign byte")
	}
	neg := sign == keyNegative
	if len(b) < 3 {
		return fail("truncated")
	}
	exp, digitBytes := b[1], b[2:]
	if neg {
		exp = 255 - exp
		if digitBytes[len(digitBytes)-1] != keyEnd {
			return fail("missing terminator")
		}
		digitBytes = digitBytes[:len(digitBytes)-1]
	}
	if len(digitBytes) == 0 || len(digitBytes) > (MaxDigits+1)/2 {
		return fail("bad digit count")
	}
	var digits [MaxDigits + 1]byte
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
	if digits[0] == '0' || digits[n-1] == '0' || n > MaxDigits {
		return fail("digits not canonical")
	}
	s := format(neg, int(exp)-keyBias, string(digits[:n]))
	if !IsCanonical(s) {
		return fail("out of range")
	}
	return s, nil
}

// format returns the plain-notation text of ±0.d1d2…dn × 10^(adj+1).
func format(neg bool, adj int, digits string) string {
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
