// Package avjson writes attribute values as DynamoDB's JSON text, such as
// {"S":"x"} or {"NS":["1","2.5"]}, with the names of a map in byte order
// so that equal items give equal text. It is generic over the value type
// V, like package internal/expr; the root package's Value.String and
// Item.String use it.
package avjson

import (
	"encoding/base64"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/fdyno/fdyno/internal/expr"
)

// Ops are the operations on values of type V that writing them needs.
type Ops[V any] interface {
	expr.Ops[V]
	// BoolOf returns the value of a BOOL.
	BoolOf(v V) bool
}

// AppendItem appends it as a JSON object of attribute values.
func AppendItem[V any](ops Ops[V], dst []byte, it map[string]V) []byte {
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(it)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		dst = AppendValue(ops, dst, it[k])
	}
	return append(dst, '}')
}

// AppendValue appends v as an attribute value; the zero (absent) V is {}.
func AppendValue[V any](ops Ops[V], dst []byte, v V) []byte {
	sc := ops.Scalar(v)
	if sc.Type == 0 {
		return append(dst, "{}"...)
	}
	dst = append(dst, '{')
	dst = AppendString(dst, sc.Type.String())
	dst = append(dst, ':')
	switch sc.Type {
	case expr.TypeS, expr.TypeN:
		dst = AppendString(dst, sc.Text)
	case expr.TypeB:
		dst = appendBase64(dst, sc.Text)
	case expr.TypeBOOL, expr.TypeNULL:
		dst = strconv.AppendBool(dst, ops.BoolOf(v))
	case expr.TypeM:
		dst = AppendItem(ops, dst, ops.Map(v))
	case expr.TypeL:
		dst = append(dst, '[')
		for i, e := range ops.List(v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendValue(ops, dst, e)
		}
		dst = append(dst, ']')
	case expr.TypeSS, expr.TypeNS, expr.TypeBS:
		dst = append(dst, '[')
		for i, m := range ops.Members(v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			if sc.Type == expr.TypeBS {
				dst = appendBase64(dst, m)
			} else {
				dst = AppendString(dst, m)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendBase64(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, []byte(s))
	return append(dst, '"')
}

// AppendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD,
// as in encoding/json (the wire cannot carry it). Runs of bytes that need
// no escaping are copied at once.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
