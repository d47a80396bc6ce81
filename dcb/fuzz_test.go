package dcb

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// ParsePosition is a decoder of untrusted text: it never panics, accepts
// exactly the canonical form (so parse and format are inverse), and text
// order is position order.
func FuzzParsePosition(f *testing.F) {
	f.Add("000000000000000000000000", "0000000005f5e21a00000000")
	f.Add("0000000005f5e21a00010002", "ffffffffffffffffffffffff")
	f.Add("0000000005F5E21A00010002", "")
	f.Add("0x00000005f5e21a00010002", "0000000005f5e21a0001000")
	f.Fuzz(func(t *testing.T, a, b string) {
		pa, errA := ParsePosition(a)
		if errA != nil {
			if !errors.Is(errA, ErrInvalidPosition) {
				t.Fatalf("ParsePosition(%q) error %v does not wrap ErrInvalidPosition", a, errA)
			}
		} else if pa.String() != a {
			t.Fatalf("ParsePosition(%q).String() = %q", a, pa.String())
		}
		var q Position
		copy(q[:], a)
		if r, err := ParsePosition(q.String()); err != nil || r != q {
			t.Fatalf("round trip of %x: %v, %v", q[:], r, err)
		}
		pb, errB := ParsePosition(b)
		if errA == nil && errB == nil {
			if got, want := pa.Compare(pb), strings.Compare(a, b); got != want {
				t.Fatalf("Compare(%s, %s) = %d, text order %d", a, b, got, want)
			}
		}
	})
}

// decodeEvent reads stored bytes: it never panics, errors wrap
// ErrCorrupt, and what it accepts re-encodes to the same bytes.
func FuzzDecodeEvent(f *testing.F) {
	f.Add(encodeEvent("CourseDefined", []string{"course:c1"}, []byte(`{"capacity":10}`)))
	f.Add(encodeEvent("T", []string{"a", "b", "c"}, nil))
	f.Add(encodeEvent("T", nil, []byte{0, 1, 2}))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{1, 1, 'T', 9, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 1, 'T', 2, 1, 'b', 1, 'a'})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		typ, tags, data, err := decodeEvent(v)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decodeEvent error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if got := encodeEvent(typ, tags, data); !bytes.Equal(got, v) {
			t.Fatalf("re-encoded %x, decoded from %x", got, v)
		}
	})
}

// positionOf reads index keys: it never panics, and accepts only keys of
// exactly the prefix, the versionstamp code and 12 bytes.
func FuzzPositionOf(f *testing.F) {
	k := newKeys([]byte("ns"))
	f.Add([]byte(k.eventKey(Position{1})))
	f.Add(append(append([]byte{}, k.events...), 0x33, 1, 2, 3))
	f.Add([]byte("ns"))
	f.Fuzz(func(t *testing.T, key []byte) {
		p, err := positionOf(key, k.events)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("positionOf error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if got := k.eventKey(p); !bytes.Equal(got, key) {
			t.Fatalf("eventKey(positionOf(%s)) = %s", fdb.Printable(key), fdb.Printable(got))
		}
	})
}

// The chunk header and part joining read stored bytes: they never panic,
// errors wrap ErrCorrupt, and a split encoding joins back to itself.
func FuzzChunks(f *testing.F) {
	head, parts := chunkEvent(encodeEvent("T", nil, make([]byte, 2*EventPartBytes+5)))
	f.Add(head, parts[0], parts[1], 2*EventPartBytes)
	f.Add([]byte{eventChunked, 3, 1}, []byte{1}, []byte{}, 10)
	f.Add([]byte{eventChunked, 0x80, 0}, []byte(nil), []byte(nil), 0)
	f.Fuzz(func(t *testing.T, v, p1, p2 []byte, size int) {
		n, first, ok, err := chunkHeader(v)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("chunkHeader error %v does not wrap ErrCorrupt", err)
		}
		if ok {
			if _, err := joinParts(n, first, [][]byte{p1, p2}); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("joinParts error %v does not wrap ErrCorrupt", err)
			}
		}
		size = min(max(size, 0), 4*EventPartBytes)
		enc := make([]byte, size)
		for i := range enc {
			enc[i] = byte(i)
		}
		h, ps := chunkEvent(enc)
		n, first, ok, err = chunkHeader(h)
		if err != nil || ok != (len(ps) > 0) {
			t.Fatalf("chunkHeader of a %d-byte encoding: ok %v, err %v", size, ok, err)
		}
		if ok {
			got, err := joinParts(n, first, ps)
			if err != nil || !bytes.Equal(got, enc) {
				t.Fatalf("joinParts of a %d-byte encoding: %v", size, err)
			}
		}
	})
}
