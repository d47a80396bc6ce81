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
	// a few bytes of framing). An encoding over [EventPartBytes] is stored
	// in parts of that size (FoundationDB's value limit is 100,000 bytes),
	// the first with the event, the others beside it (keys.go, "c").
	MaxEventBytes = 8_000_000
	// EventPartBytes is the most bytes of an event's encoding one value
	// holds.
	EventPartBytes = 64 * 1024
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

// An event value is either whole (eventCodecVersion) or the first part of
// a chunked encoding: eventChunked, the number of parts as a uvarint, then
// the first EventPartBytes bytes of the whole encoding; parts 1 to n−1 are
// the values of the event's c/ keys, in order.
const eventChunked = 2

// chunkEvent splits a whole encoding into the event's value and its
// further parts (none if it fits one value).
func chunkEvent(enc []byte) (head []byte, parts [][]byte) {
	if len(enc) <= EventPartBytes {
		return enc, nil
	}
	n := (len(enc) + EventPartBytes - 1) / EventPartBytes
	head = binary.AppendUvarint([]byte{eventChunked}, uint64(n))
	head = append(head, enc[:EventPartBytes]...)
	for off := EventPartBytes; off < len(enc); off += EventPartBytes {
		parts = append(parts, enc[off:min(off+EventPartBytes, len(enc))])
	}
	return head, parts
}

// chunkHeader reads a chunked event value: its part count and first part.
// ok is false for a whole value.
func chunkHeader(v []byte) (n int, first []byte, ok bool, err error) {
	if len(v) == 0 || v[0] != eventChunked {
		return 0, nil, false, nil
	}
	c, k := binary.Uvarint(v[1:])
	if k <= 0 || k != uvarintLen(c) || c < 2 || c > MaxEventBytes/EventPartBytes+1 || len(v)-1-k != EventPartBytes {
		return 0, nil, false, fmt.Errorf("%w: chunked event value: bad header", ErrCorrupt)
	}
	return int(c), v[1+k:], true, nil
}

// joinParts rebuilds a chunked encoding from its first part and the
// others: every part but the last is full, the last is not empty.
func joinParts(n int, first []byte, parts [][]byte) ([]byte, error) {
	if len(parts) != n-1 {
		return nil, fmt.Errorf("%w: chunked event of %d parts has %d", ErrCorrupt, n, len(parts)+1)
	}
	out := append(make([]byte, 0, EventPartBytes*n), first...)
	for i, p := range parts {
		if len(p) == 0 || len(p) > EventPartBytes || i < len(parts)-1 && len(p) != EventPartBytes {
			return nil, fmt.Errorf("%w: chunked event part %d of %d bytes", ErrCorrupt, i+1, len(p))
		}
		out = append(out, p...)
	}
	return out, nil
}

// The whole event encoding: a version byte, then the type, the tag count and each
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
