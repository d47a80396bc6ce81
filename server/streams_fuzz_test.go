package server

import (
	"strings"
	"testing"
	"time"

	"github.com/fdyno/fdyno"
)

// FuzzShardIterator: decodeIterator never panics on any token; a token
// of encodeIterator decodes to what was encoded; and a token changed in
// any one byte, or cut short, is refused.
func FuzzShardIterator(f *testing.F) {
	s := &Server{iterKey: newIteratorKey(), now: time.Now}
	f.Add("Fuzz", "00000000000000000000000000001", "", 0, byte('A'))
	f.Add("a.b-c_d", "", "not a token", 5, byte('x'))
	f.Add("Tbl", "79228162514264337593543950335", "AQAAAZ-_____AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 17, byte('-'))
	f.Fuzz(func(t *testing.T, table, after, raw string, pos int, b byte) {
		if _, err := s.decodeIterator(raw); err == nil && raw != "" {
			// Only a token this server made can verify; raw is random.
			t.Fatalf("random token %q accepted", raw)
		}
		if after != "" && !validSequenceNumber(after) || len(table) < 1 || len(table) > 255 {
			return
		}
		it := shardIterator{table: table, after: after, expires: time.UnixMilli(time.Now().Add(time.Minute).UnixMilli())}
		if pos%2 != 0 {
			// An iterator of a stream named by its label (a time).
			it.label = time.UnixMilli(int64(pos)).UTC().Format(fdyno.StreamLabelLayout)
		}
		tok := s.encodeIterator(it)
		got, err := s.decodeIterator(tok)
		if err != nil || got.table != it.table || got.label != it.label || got.after != it.after || !got.expires.Equal(it.expires) {
			t.Fatalf("round trip of %+v: %+v, %v", it, got, err)
		}
		if len(tok) > 0 {
			p := int(uint(pos) % uint(len(tok)))
			if tok[p] != b {
				mutated := tok[:p] + string([]byte{b}) + tok[p+1:]
				if got, err := s.decodeIterator(mutated); err == nil && (got.table != it.table || got.label != it.label || got.after != it.after || !got.expires.Equal(it.expires)) {
					t.Fatalf("token changed at %d decoded to %+v", p, got)
				}
			}
			if _, err := s.decodeIterator(tok[:p]); err == nil {
				t.Fatalf("token cut at %d accepted", p)
			}
		}
		if strings.ContainsAny(tok, "+/=") {
			t.Fatalf("token %q is not unpadded base64url", tok)
		}
	})
}
