package avjson

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// AppendString agrees with encoding/json on every string, invalid UTF-8
// included (each bad byte becomes U+FFFD).
func TestAppendString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOfN(rapid.SampledFrom([]byte("a\"\\\n\r\t\x00\x1f\x7f\xc3\xa9\xe2\x82\xac\xff\xf0\x9f\x98\x80<>&")), 0, 24).Draw(t, "s"))
		var got, want string
		if err := json.Unmarshal(AppendString(nil, s), &got); err != nil {
			t.Fatalf("AppendString(%q) = %s: %v", s, AppendString(nil, s), err)
		}
		ref, _ := json.Marshal(s)
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("AppendString(%q) decodes to %q, encoding/json's to %q", s, got, want)
		}
	})
}
