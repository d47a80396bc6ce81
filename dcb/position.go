package dcb

import (
	"bytes"
	"encoding/hex"
	"fmt"
)

// PositionLen is the length of a [Position] in bytes, and PositionTextLen
// the length of its text form.
const (
	PositionLen     = 12
	PositionTextLen = 2 * PositionLen
)

// Position is an event's sequence position: the FoundationDB versionstamp
// its append committed with (10 bytes: the commit version and the batch
// order) followed by the event's 2-byte order within its transaction.
//
// Positions are unique in a store and increase in commit order, and within
// one transaction in append order; they have gaps. Compare them with
// [Position.Compare]; their byte order is their order. The zero Position
// precedes every event: as ReadOptions.After or AppendCondition.After it
// means "from the beginning".
//
// The text form, [Position.String], is 24 lowercase hexadecimal digits; it
// is stable (it will not change between versions) and sorts as the
// positions do. [ParsePosition] reads it back.
type Position [PositionLen]byte

// String returns p's text form: 24 lowercase hexadecimal digits.
func (p Position) String() string { return hex.EncodeToString(p[:]) }

// IsZero reports whether p is the zero Position.
func (p Position) IsZero() bool { return p == Position{} }

// Compare returns -1, 0 or +1 as p is before, equal to or after q.
func (p Position) Compare(q Position) int { return bytes.Compare(p[:], q[:]) }

// MarshalText returns p's text form.
func (p Position) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText sets p from its text form; see [ParsePosition].
func (p *Position) UnmarshalText(b []byte) error {
	q, err := parsePosition(b)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// ParsePosition reads a Position's text form: exactly 24 lowercase
// hexadecimal digits, as [Position.String] writes them. Anything else is
// an error wrapping [ErrInvalidPosition].
func ParsePosition(s string) (Position, error) { return parsePosition([]byte(s)) }

func parsePosition(b []byte) (Position, error) {
	var p Position
	if len(b) != PositionTextLen {
		return p, fmt.Errorf("%w: want %d hexadecimal digits, got %d bytes", ErrInvalidPosition, PositionTextLen, len(b))
	}
	for i, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return p, fmt.Errorf("%w: byte %d (%q) is not a lowercase hexadecimal digit", ErrInvalidPosition, i, c)
		}
	}
	if _, err := hex.Decode(p[:], b); err != nil {
		return p, fmt.Errorf("%w: %v", ErrInvalidPosition, err)
	}
	return p, nil
}
