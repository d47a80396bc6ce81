package dcb

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Limits of events and appends, checked before an append touches its
// transaction.
const (
	// MaxTags is the most distinct tags an event may carry: each
	// non-empty subset of an event's tags is indexed twice (keys.go), so
	// an event with n tags writes 2 + 2·(2ⁿ − 1) keys; at 8 tags, 512.
	MaxTags = 8
	// MaxTypeBytes and MaxTagBytes bound an event type and one tag, so
	// that every index key fits FoundationDB's 10,000-byte key limit.
	MaxTypeBytes = 1024
	MaxTagBytes  = 1024
	// MaxEventBytes bounds one event's encoding (type, tags and data plus
	// a few bytes of framing): FoundationDB's value limit, 100,000 bytes.
	MaxEventBytes = 100_000
	// MaxAppendBytes bounds the keys and values one append writes,
	// inside FoundationDB's 10,000,000-byte transaction limit (the rest
	// is left for conflict ranges and the caller's own writes).
	MaxAppendBytes = 9_000_000
	// MaxEventsPerTransaction is the most events one transaction can
	// append to one store: an event's order in its transaction is 16 bits.
	MaxEventsPerTransaction = 1<<16 - 1
)

// Event is an event to append.
//
//  1. Type is required (the specification: an Event MUST contain an Event
//     Type), at most [MaxTypeBytes] bytes.
//  2. Tags are a set: order does not matter and duplicates count once
//     (the specification: Tags SHOULD not contain the same value twice).
//     At most [MaxTags] distinct tags, each at most [MaxTagBytes] bytes.
//     They are stored sorted and read back sorted.
//  3. Data is opaque; nil and empty read back as empty.
type Event struct {
	Type string
	Tags []string
	Data []byte
}

// StoredEvent is an event read back from a store, with its position.
type StoredEvent struct {
	Position Position
	Type     string
	Tags     []string // sorted, distinct; nil for none
	Data     []byte
}

// normalTags returns tags sorted and without duplicates, in a new slice
// (nil for none).
func normalTags(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	out := slices.Clone(tags)
	slices.Sort(out)
	return slices.Compact(out)
}

// validate checks e against the limits and returns its sorted, distinct
// tags.
func (e Event) validate(i int) ([]string, error) {
	if e.Type == "" {
		return nil, fmt.Errorf("%w: event %d has no type", ErrInvalidEvent, i)
	}
	if len(e.Type) > MaxTypeBytes {
		return nil, fmt.Errorf("%w: event %d: type of %d bytes > %d", ErrInvalidEvent, i, len(e.Type), MaxTypeBytes)
	}
	tags := normalTags(e.Tags)
	if len(tags) > MaxTags {
		return nil, fmt.Errorf("%w: event %d has %d distinct tags > %d (MaxTags)", ErrInvalidEvent, i, len(tags), MaxTags)
	}
	for _, t := range tags {
		if len(t) > MaxTagBytes {
			return nil, fmt.Errorf("%w: event %d: tag of %d bytes > %d", ErrInvalidEvent, i, len(t), MaxTagBytes)
		}
	}
	return tags, nil
}

// The event value: a version byte, then the type, the tag count and each
// tag as uvarint-length-prefixed bytes, then the data to the end.
const eventCodecVersion = 1

// encodedLen is the length of encodeEvent's output.
func encodedLen(typ string, tags []string, data []byte) int {
	n := 1 + uvarintLen(len(typ)) + len(typ) + uvarintLen(len(tags)) + len(data)
	for _, t := range tags {
		n += uvarintLen(len(t)) + len(t)
	}
	return n
}

func uvarintLen[T int | uint64](n T) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(n))
}

func encodeEvent(typ string, tags []string, data []byte) []byte {
	b := make([]byte, 0, encodedLen(typ, tags, data))
	b = append(b, eventCodecVersion)
	b = binary.AppendUvarint(b, uint64(len(typ)))
	b = append(b, typ...)
	b = binary.AppendUvarint(b, uint64(len(tags)))
	for _, t := range tags {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	return append(b, data...)
}

// decodeEvent decodes a stored event value. Malformed input is an error
// wrapping [ErrCorrupt]; it never panics and allocates no more than the
// input's length justifies.
func decodeEvent(v []byte) (typ string, tags []string, data []byte, err error) {
	bad := func(what string) error { return fmt.Errorf("%w: event value: %s", ErrCorrupt, what) }
	if len(v) == 0 || v[0] != eventCodecVersion {
		return "", nil, nil, bad("unknown version")
	}
	rest := v[1:]
	// uvarint reads a length in its shortest form (one encoding per value).
	uvarint := func() (uint64, int) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || k != uvarintLen(n) {
			return 0, -1
		}
		return n, k
	}
	str := func() (string, bool) {
		n, k := uvarint()
		if k <= 0 || n > uint64(len(rest)-k) {
			return "", false
		}
		s := string(rest[k : k+int(n)])
		rest = rest[k+int(n):]
		return s, true
	}
	typ, ok := str()
	if !ok || typ == "" {
		return "", nil, nil, bad("bad type")
	}
	n, k := uvarint()
	// Each tag takes at least one byte (its length), which bounds n.
	if k <= 0 || n > MaxTags || n > uint64(len(rest)-k) {
		return "", nil, nil, bad("bad tag count")
	}
	rest = rest[k:]
	if n > 0 {
		tags = make([]string, 0, n)
	}
	for range n {
		t, ok := str()
		if !ok {
			return "", nil, nil, bad("bad tag")
		}
		if len(tags) > 0 && t <= tags[len(tags)-1] {
			return "", nil, nil, bad("tags not sorted and distinct")
		}
		tags = append(tags, t)
	}
	return typ, tags, append([]byte{}, rest...), nil
}
