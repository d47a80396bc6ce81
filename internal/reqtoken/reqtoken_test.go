package reqtoken

import (
	"errors"
	"testing"
)

func FuzzDecodeTokenRecord(f *testing.F) {
	f.Add(Record{Expiry: 1_800_000_000_000_000_000, Digest: [32]byte{1, 2, 3}}.Encode())
	f.Add([]byte{})
	f.Add([]byte{0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRecord(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("DecodeRecord error %v is not ErrCorrupt", err)
			}
			return
		}
		if got := r.Encode(); string(got) != string(b) {
			t.Fatalf("round trip: %x → %+v → %x", b, r, got)
		}
	})
}
