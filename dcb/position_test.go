package dcb

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePosition(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Position
		err  bool
	}{
		{"zero", "000000000000000000000000", Position{}, false},
		{"commit version, batch, order", "0000000005f5e21a00010002", Position{0, 0, 0, 0, 0x05, 0xf5, 0xe2, 0x1a, 0, 1, 0, 2}, false},
		{"all ones", "ffffffffffffffffffffffff", Position{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, false},
		{"uppercase is not canonical", "0000000005F5E21A00010002", Position{}, true},
		{"too short", "0000000005f5e21a0001000", Position{}, true},
		{"too long", "0000000005f5e21a000100020", Position{}, true},
		{"not hex", "0000000005f5e21a0001000g", Position{}, true},
		{"prefix", "0x000000005f5e21a00010002", Position{}, true},
		{"empty", "", Position{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePosition(tc.in)
			if tc.err {
				if !errors.Is(err, ErrInvalidPosition) {
					t.Errorf("ParsePosition(%q) error = %v, want ErrInvalidPosition", tc.in, err)
				}
				return
			}
			if err != nil || got != tc.want || got.String() != tc.in {
				t.Errorf("ParsePosition(%q) = %v (%s), %v; want %v", tc.in, got[:], got, err, tc.want[:])
			}
		})
	}
}

// Positions travel as JSON strings in their text form.
func TestPositionJSON(t *testing.T) {
	type cursor struct {
		After Position `json:"after"`
	}
	in := cursor{After: Position{0, 0, 0, 0, 0x05, 0xf5, 0xe2, 0x1a, 0, 1, 0, 2}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"after":"0000000005f5e21a00010002"}` {
		t.Errorf("json.Marshal = %s", b)
	}
	var out cursor
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"after":"xyz"}`), &out); !errors.Is(err, ErrInvalidPosition) {
		t.Errorf("json.Unmarshal of a bad position: %v, want ErrInvalidPosition", err)
	}
	if a, b := (Position{1}), (Position{0, 0xff}); a.Compare(b) != 1 || b.Compare(a) != -1 || a.Compare(a) != 0 || !(Position{}).IsZero() || a.IsZero() {
		t.Error("Compare/IsZero disagree with byte order")
	}
}
