package fdyno

import (
	"encoding/base64"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// export_ion.go writes items in Amazon Ion's text format, as DynamoDB's
// ION exports do ("DynamoDB to Ion datatype conversion"): S a string,
// BOOL a bool, N a decimal, B a blob, SS/NS/BS a list annotated
// $dynamodb_SS/$dynamodb_NS/$dynamodb_BS, L a list, M a struct, NULL null.
// Struct fields are in byte order of their names.

// appendIonItem appends it as an Ion struct.
func appendIonItem(dst []byte, it Item) []byte {
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(it)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendIonFieldName(dst, k)
		dst = append(dst, ':')
		dst = appendIonValue(dst, it[k])
	}
	return append(dst, '}')
}

// appendIonFieldName appends a field name: a bare symbol when it is an
// identifier that is not a keyword, otherwise a string.
func appendIonFieldName(dst []byte, name string) []byte {
	bare := name != "" && name != "null" && name != "true" && name != "false" && name != "nan"
	for i := 0; bare && i < len(name); i++ {
		c := name[i]
		bare = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9'
	}
	if bare {
		return append(dst, name...)
	}
	return appendIonString(dst, name)
}

func appendIonValue(dst []byte, v Value) []byte {
	switch v.Type() {
	case TypeS:
		return appendIonString(dst, v.S())
	case TypeN:
		return appendIonDecimal(dst, v.N())
	case TypeB:
		return appendIonBlob(dst, v.B())
	case TypeBOOL:
		return strconv.AppendBool(dst, v.Bool())
	case TypeNULL:
		return append(dst, "null"...)
	case TypeM:
		return appendIonItem(dst, v.M())
	case TypeL:
		return appendIonList(dst, "", v.L(), appendIonValue)
	case TypeSS:
		return appendIonList(dst, "$dynamodb_SS::", v.SS(), appendIonString)
	case TypeNS:
		return appendIonList(dst, "$dynamodb_NS::", v.NS(), appendIonDecimal)
	case TypeBS:
		return appendIonList(dst, "$dynamodb_BS::", v.BS(), appendIonBlob)
	}
	return append(dst, "null"...)
}

// appendIonList appends elems as an Ion list, annotated with annotation
// (a set's "$dynamodb_SS::", none for a list), each written by appendElem.
func appendIonList[E any](dst []byte, annotation string, elems []E, appendElem func([]byte, E) []byte) []byte {
	dst = append(append(dst, annotation...), '[')
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendElem(dst, e)
	}
	return append(dst, ']')
}

// appendIonDecimal appends a number's text as an Ion decimal: Ion reads
// digits without a point or exponent as an int and an "e" exponent as a
// float, so the point is added, or the exponent written with "d".
func appendIonDecimal(dst []byte, n string) []byte {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		return append(append(append(dst, n[:i]...), 'd'), n[i+1:]...)
	}
	dst = append(dst, n...)
	if !strings.Contains(n, ".") {
		dst = append(dst, '.')
	}
	return dst
}

func appendIonBlob(dst []byte, b []byte) []byte {
	dst = append(dst, "{{"...)
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, "}}"...)
}

// appendIonString appends s as an Ion string: UTF-8, with quotes,
// backslashes and control characters escaped (invalid UTF-8, which no
// valid item holds, becomes U+FFFD).
func appendIonString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
			i++
		case c == '\n':
			dst = append(dst, '\\', 'n')
			i++
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
	return append(dst, '"')
}
