package fdyno

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
)

// Cursors: the opaque form of a LastEvaluatedKey. A cursor is
//
//	0x01 (format version) | fingerprint: 16 bytes | packed key values of the last key read
//
// The fingerprint is a SHA-256 digest, truncated, of what the cursor may
// resume: the table's name and item key prefix (so a cursor dies with its
// table, even if one of the same name is created again), the operation
// (Query or Scan), the index, the key range of the request (its key
// condition, or its parallel scan segment) and the direction.
//
// A cursor carries no MAC: the per-table secret one would need belongs in
// the table metadata, which is table.go's, and it would buy little, since
// decodeCursor resumes only inside the range of the request decoding it,
// and the request could name any key of that range as its
// ExclusiveStartKey anyway. What the checks guarantee:
//
//  1. A cursor from another table, index, query or segment, or of another
//     direction, is refused with a *ValidationError (unless 2^-128 luck).
//  2. A cursor, even forged, never makes a page read outside the request's
//     own key range: its key is checked to lie in it.
//  3. Decoding never panics and allocates at most a few times the input's
//     length (FuzzCursor).
const (
	cursorVersion   = 0x01
	fingerprintSize = 16
)

// cursorFingerprint identifies the request a cursor belongs to.
type cursorFingerprint [fingerprintSize]byte

func newCursorFingerprint(table string, itemPrefix []byte, op, index string, lo, hi []byte, forward bool) cursorFingerprint {
	h := sha256.New()
	field := func(b []byte) {
		h.Write(binary.AppendUvarint(nil, uint64(len(b))))
		h.Write(b)
	}
	field([]byte("fdyno cursor v1"))
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
	var fp cursorFingerprint
	copy(fp[:], h.Sum(nil))
	return fp
}

// encodeCursor returns the cursor of the request with fingerprint fp that
// resumes after packed key values kv.
func encodeCursor(fp cursorFingerprint, kv []byte) []byte {
	b := make([]byte, 0, 1+fingerprintSize+len(kv))
	b = append(b, cursorVersion)
	b = append(b, fp[:]...)
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
	if len(b) < 1+fingerprintSize+1 || b[0] != cursorVersion {
		return fail("unknown format")
	}
	if !bytes.Equal(b[1:1+fingerprintSize], fp[:]) {
		return fail("it belongs to another table, index or request")
	}
	kv := b[1+fingerprintSize:]
	if _, err := keyItem(kv); err != nil {
		return fail("bad key")
	}
	if !inRange(kv, lo, hi) {
		return fail("its key is outside the request's key range")
	}
	return bytes.Clone(kv), nil
}
