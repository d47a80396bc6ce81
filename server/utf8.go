package server

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// utf8.go: a request body must be UTF-8 text. DynamoDB answers a body
// whose bytes are not UTF-8 with a SerializationException; encoding/json
// would instead replace each bad byte with U+FFFD, silently changing the
// data and making distinct keys ("\xc3" and "\xff") one. The same goes for
// a \u escape of a lone UTF-16 surrogate, which encoding/json also turns
// into U+FFFD: its code unit has no UTF-8 form to store, so fdyno refuses
// it rather than store something else.

// checkJSONText returns a SerializationException unless body is valid
// UTF-8 whose \u escapes pair every surrogate. It reads body once at
// memory speed (utf8.Valid and bytes.IndexByte) and allocates nothing on
// success.
func checkJSONText(body []byte) error {
	if !utf8.Valid(body) {
		i := 0
		for i < len(body) {
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return serialization("Malformed JSON: invalid UTF-8 byte 0x" + strconv.FormatUint(uint64(body[i]), 16) + " at byte " + strconv.Itoa(i))
	}
	// Outside strings, a backslash is a syntax error that encoding/json
	// reports; inside them, each escape is two bytes or, for \u, six.
	for i := 0; i < len(body); {
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			return nil
		}
		i += j
		r, ok := escapedUnit(body, i)
		switch {
		case !ok:
			i += 2 // not a \u escape (or a malformed one, left to the JSON decoder)
		case r >= 0xd800 && r < 0xdc00:
			if low, ok := escapedUnit(body, i+6); ok && low >= 0xdc00 && low < 0xe000 {
				i += 12
				continue
			}
			return loneSurrogate(i)
		case r >= 0xdc00 && r < 0xe000:
			return loneSurrogate(i)
		default:
			i += 6
		}
	}
	return nil
}

func loneSurrogate(at int) error {
	return serialization("Malformed JSON: unpaired UTF-16 surrogate escape at byte " + strconv.Itoa(at))
}

// escapedUnit returns the code unit of the \uXXXX escape at b[i:], if
// there is one.
func escapedUnit(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
