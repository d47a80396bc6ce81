package fdyno

import (
	"bytes"
	"errors"
	"github.com/fdyno/fdyno/internal/streamrec"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
)

// FuzzSequenceNumber: parsing never panics; what parses is 29 digits and
// formats back to itself; anything else is a *ValidationError.
func FuzzSequenceNumber(f *testing.F) {
	for _, s := range []string{"", "0", "00000000000000000000000000000", "79228162514264337593543950335", "79228162514264337593543950336", "0000000000000000000000000000a", "-0000000000000000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seq, err := parseSequenceNumber("Cursor", s)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			return
		}
		if got := seq.String(); got != s {
			t.Fatalf("%q parses to %x, which formats as %q", s, seq, got)
		}
	})
}

// FuzzStreamRecord: decoding stored record bytes never panics, fails
// only with a *CorruptError, and what decodes re-encodes to its input.
func FuzzStreamRecord(f *testing.F) {
	keys := Item{"pk": S("a"), "sk": N("1")}
	for _, r := range []struct {
		event  byte
		ttl    bool
		view   StreamViewType
		nw, od Item
	}{
		{streamrec.EventInsert, false, StreamViewTypeKeysOnly, nil, nil},
		{streamrec.EventModify, false, StreamViewTypeNewAndOldImages, Item{"pk": S("a"), "sk": N("1"), "x": L(S("y"), Null())}, keys},
		{streamrec.EventRemove, true, StreamViewTypeOldImage, nil, keys},
		{streamrec.EventModify, false, StreamViewTypeNewAndOldImages, Item{"pk": S("a"), "sk": N("1"), "x": S("y"), "n": N("1")}, Item{"pk": S("a"), "sk": N("1"), "x": S("z"), "m": Bool(true)}},
	} {
		b, err := encodeRecord(r.event, r.ttl, r.view, time.UnixMicro(1700000000123456), keys, r.nw, r.od)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord("T", seqNo{}, b)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CorruptError", err)
			}
			return
		}
		event := map[EventName]byte{EventNameInsert: streamrec.EventInsert, EventNameModify: streamrec.EventModify, EventNameRemove: streamrec.EventRemove}[r.EventName]
		again, err := encodeRecord(event, r.UserIdentity != nil, r.StreamViewType, r.ApproximateCreationDateTime, r.Keys, r.NewImage, r.OldImage)
		if err != nil {
			t.Fatalf("re-encoding %+v: %v", r, err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("decoded record re-encodes to %x, input %x", again, b)
		}
	})
}

// FuzzFeedCursor: decoding a feed cursor never panics; what decodes
// re-encodes to its input; anything else is a *ValidationError.
func FuzzFeedCursor(f *testing.F) {
	feed := &Feed{tables: make([]*Table, 3), fp: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}}
	f.Add(feed.encodeCursor(streamPos{seq: seqNo{0: 9, 11: 1}, table: 2, set: true}))
	f.Add(feed.encodeCursor(streamPos{table: 3, set: true}))
	f.Add([]byte{})
	f.Add([]byte{0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := feed.decodeCursor(b)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			return
		}
		if !p.set {
			if b != nil {
				t.Fatalf("%x decodes to the start", b)
			}
			return
		}
		if again := feed.encodeCursor(p); !bytes.Equal(again, b) {
			t.Fatalf("%x decodes to %+v, which encodes as %x", b, p, again)
		}
	})
}

// FuzzStreamKey: splitting a record key never panics, and a key it
// accepts is exactly the key of the record and part it names (shard
// prefix, versionstamp, packed part number), so no two keys split alike.
func FuzzStreamKey(f *testing.F) {
	keys := newTableKeys(subspace.Sub("fuzz"))
	f.Add(append([]byte(keys.streamKeyAt(2, seqNo{3: 7})), 0x14))
	f.Add(append([]byte(keys.streamKeyAt(2, seqNo{})), 0x15, 0x01))
	f.Add([]byte(keys.streamShardPrefix(2)))
	f.Fuzz(func(t *testing.T, b []byte) {
		seq, part, err := keys.splitStreamKey(2, b)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CorruptError", err)
			}
			return
		}
		want := append([]byte(keys.streamKeyAt(2, seq)), tuple.Tuple{int64(part)}.Pack()...)
		if !bytes.Equal(want, b) {
			t.Fatalf("%x splits to %x/%d, whose key is %x", b, seq, part, want)
		}
	})
}
