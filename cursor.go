package fdyno

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
)

// Cursors: the opaque form of a LastEvaluatedKey. A cursor is
//
//	0x02 (format version) | tag: 16 bytes | packed key values of the last key read
//
// The tag is an HMAC-SHA-256, truncated, keyed with the table's secret
// cursor key (a random key made with the table and kept in its metadata),
// of a digest of what the cursor may resume and of the key. The digest
// covers the table's name and item key prefix (so a cursor dies with its
// table, even if one of the same name is created again), the operation
// (Query or Scan), the index, the key range of the request (its key
// condition, or its parallel scan segment) and the direction. What the
// checks guarantee:
//
//  1. A cursor from another table, index, query or segment, or of another
//     direction, or altered in any byte, is refused with a
//     *ValidationError (unless 2^-128 luck): only fdyno, holding the
//     table's key, makes cursors the table accepts.
//  2. A cursor never makes a page read outside the request's own key
//     range: its key is checked to lie in it, even if the table's key
//     were known.
//  3. Decoding never panics and allocates at most a few times the input's
//     length (FuzzCursor).
const (
	cursorVersion = 0x02
	tagSize       = 16
	cursorKeySize = 32
)

// newCursorKey returns a random cursor key for a new table.
func newCursorKey() ([]byte, error) {
	k := make([]byte, cursorKeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	return k, nil
}

// cursorFingerprint identifies the request a cursor belongs to, with the
// key of the table that authenticates it.
type cursorFingerprint struct {
	digest [sha256.Size]byte
	key    []byte
}

func newCursorFingerprint(key []byte, table string, itemPrefix []byte, op, index string, lo, hi []byte, forward bool) cursorFingerprint {
	h := sha256.New()
	field := func(b []byte) {
		h.Write(binary.AppendUvarint(nil, uint64(len(b))))
		h.Write(b)
	}
	field([]byte("fdyno cursor v2"))
	field([]byte(table))
	field(itemPrefix)
	field([]byte(op))
	field([]byte(index))
	field(lo)
	field(hi)
	if forward {
		field([]byte{1})
	} else {
		field([]byte{0})
	}
	fp := cursorFingerprint{key: key}
	h.Sum(fp.digest[:0])
	return fp
}

// tag returns the tag of the cursor of fp's request that resumes after kv.
func (fp cursorFingerprint) tag(kv []byte) []byte {
	m := hmac.New(sha256.New, fp.key)
	m.Write(fp.digest[:])
	m.Write(kv)
	return m.Sum(nil)[:tagSize]
}

// encodeCursor returns the cursor of the request with fingerprint fp that
// resumes after packed key values kv.
func encodeCursor(fp cursorFingerprint, kv []byte) []byte {
	b := make([]byte, 0, 1+tagSize+len(kv))
	b = append(b, cursorVersion)
	b = append(b, fp.tag(kv)...)
	return append(b, kv...)
}

// decodeCursor returns the packed key values of cursor b, checking that it
// belongs to the request with fingerprint fp, holds a key of table state
// st's key schema, and lies in [lo, hi). Errors are *[ValidationError].
func decodeCursor(b []byte, fp cursorFingerprint, st *tableState, lo, hi []byte) ([]byte, error) {
	return decodeCursorWith(b, fp, func(kv []byte) (Item, error) { return keyItem(st, kv) }, lo, hi)
}

// decodeCursorWith is decodeCursor for keys that keyItem parses: a
// table's packed key values, or an index's (index_read.go).
func decodeCursorWith(b []byte, fp cursorFingerprint, keyItem func([]byte) (Item, error), lo, hi []byte) ([]byte, error) {
	fail := func(reason string) ([]byte, error) {
		return nil, &ValidationError{Path: "Cursor", Reason: "The provided cursor is invalid: " + reason}
	}
	if len(b) < 1+tagSize+1 || b[0] != cursorVersion {
		return fail("unknown format")
	}
	kv := b[1+tagSize:]
	if !hmac.Equal(b[1:1+tagSize], fp.tag(kv)) {
		return fail("it belongs to another table, index or request, or was altered")
	}
	if _, err := keyItem(kv); err != nil {
		return fail("bad key")
	}
	if !inRange(kv, lo, hi) {
		return fail("its key is outside the request's key range")
	}
	return bytes.Clone(kv), nil
}

func inRange(k, lo, hi []byte) bool {
	return string(k) >= string(lo) && string(k) < string(hi)
}

// keyItem returns the item of key attributes whose packed values are kv.
func keyItem(st *tableState, kv []byte) (Item, error) {
	if st.rng.Name == "" {
		vs, err := unpackKeyValues(kv, st.hash.Type)
		if err != nil {
			return nil, err
		}
		return Item{st.hash.Name: vs[0]}, nil
	}
	vs, err := unpackKeyValues(kv, st.hash.Type, st.rng.Type)
	if err != nil {
		return nil, err
	}
	return Item{st.hash.Name: vs[0], st.rng.Name: vs[1]}, nil
}
