package number

import (
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// Expected values follow DynamoDB's documented number rules: 38 significant
// digits, magnitudes 1E-130 to 9.9999999999999999999999999999999999999E+125,
// and numbers returned without leading or trailing zeros ("1e3" is 1000).
func TestCanonical(t *testing.T) {
	nines := "9." + strings.Repeat("9", 37)
	tests := []struct {
		name, in, want, reason string
	}{
		{name: "integer", in: "42", want: "42"},
		{name: "plus sign", in: "+42", want: "42"},
		{name: "leading zeros", in: "007", want: "7"},
		{name: "trailing fraction zeros", in: "1.500", want: "1.5"},
		{name: "integral fraction", in: "2.000", want: "2"},
		{name: "exponent", in: "1e3", want: "1000"},
		{name: "upper exponent", in: "1.5E+2", want: "150"},
		{name: "negative exponent", in: "15e-3", want: "0.015"},
		{name: "negative", in: "-0.50", want: "-0.5"},
		{name: "negative zero", in: "-0", want: "0"},
		{name: "zero fraction", in: "0.000", want: "0"},
		{name: "zero with big exponent", in: "0e999999999999", want: "0"},
		{name: "leading point", in: ".5", want: "0.5"},
		{name: "trailing point", in: "5.", want: "5"},
		{name: "max", in: nines + "E+125", want: strings.Repeat("9", 38) + strings.Repeat("0", 88)},
		{name: "min positive", in: "1E-130", want: "0." + strings.Repeat("0", 129) + "1"},
		{name: "min negative", in: "-" + nines + "E+125", want: "-" + strings.Repeat("9", 38) + strings.Repeat("0", 88)},
		{name: "38 digits", in: strings.Repeat("1", 38), want: strings.Repeat("1", 38)},
		{name: "38 digits with zeros", in: "1" + strings.Repeat("0", 36) + "1e-60", want: "0." + strings.Repeat("0", 22) + "1" + strings.Repeat("0", 36) + "1"},
		{name: "trailing zeros are not significant", in: "1" + strings.Repeat("0", 45), want: "1" + strings.Repeat("0", 45)},
		{name: "39 digits", in: strings.Repeat("1", 39), reason: ReasonDigits},
		{name: "overflow", in: "1E+126", reason: ReasonOverflow},
		{name: "overflow negative", in: "-1E+126", reason: ReasonOverflow},
		{name: "underflow", in: "9E-131", reason: ReasonUnderflow},
		{name: "huge exponent", in: "1e99999999999999999999", reason: ReasonOverflow},
		{name: "tiny exponent", in: "1e-99999999999999999999", reason: ReasonUnderflow},
		{name: "NaN", in: "NaN", reason: ReasonSyntax},
		{name: "Infinity", in: "Infinity", reason: ReasonSyntax},
		{name: "space", in: " 1", reason: ReasonSyntax},
		{name: "empty", in: "", reason: ReasonSyntax},
		{name: "point only", in: ".", reason: ReasonSyntax},
		{name: "sign only", in: "-", reason: ReasonSyntax},
		{name: "double sign", in: "--1", reason: ReasonSyntax},
		{name: "hex", in: "0x10", reason: ReasonSyntax},
		{name: "bare exponent", in: "1e", reason: ReasonSyntax},
		{name: "two points", in: "1.2.3", reason: ReasonSyntax},
		{name: "underscore", in: "1_000", reason: ReasonSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.in)
			if tc.reason == ReasonSyntax && tc.in != "" {
				// DynamoDB names the text: "The parameter cannot be
				// converted to a numeric value: 1.2.3".
				tc.reason += ": " + tc.in
			}
			if tc.reason != "" {
				if err == nil || err.Error() != tc.reason {
					t.Fatalf("Canonical(%q) = %q, %v; want error %q", tc.in, got, err, tc.reason)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Canonical(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			if !IsCanonical(got) {
				t.Errorf("IsCanonical(%q) = false", got)
			}
		})
	}
}

func TestIsCanonicalRejects(t *testing.T) {
	for _, s := range []string{"", "-", "-0", "00", "01", "1.", "1.0", ".5", "+1", "1e3", "1.50", "0.", "- 1", "1 ", "--1", "0.0", strings.Repeat("1", 39)} {
		if IsCanonical(s) {
			t.Errorf("IsCanonical(%q) = true", s)
		}
	}
}

// The documented size of a number is about one byte per two significant
// digits plus one; exactly, one byte per base-100 digit plus one.
func TestSize(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"0", 1},
		{"1", 2},
		{"12", 2},
		{"123", 3},
		{"1234", 3},
		{"1.2", 3},
		{"0.5", 2},
		{"1000000", 2},
		{strings.Repeat("9", 38), 20},
		{"-1", 3},
	}
	for _, tc := range tests {
		if got := Size(tc.in); got != tc.want {
			t.Errorf("Size(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// DynamoDB rejects arithmetic that overflows or loses precision, such as
// 1E50 + 1, with a ValidationException.
func TestAdd(t *testing.T) {
	tests := []struct {
		a, b, want, reason string
		sub                bool
	}{
		{a: "1", b: "2", want: "3"},
		{a: "1.5", b: "-1.5", want: "0"},
		{a: "0.1", b: "0.2", want: "0.3"},
		{a: "10", b: "3", sub: true, want: "7"},
		{a: "1E50", b: "1", reason: ReasonDigits},
		{a: "1E50", b: "1E50", want: "2" + strings.Repeat("0", 50)},
		{a: strings.Repeat("9", 38), b: "1", want: "1" + strings.Repeat("0", 38)},
		{a: "9.9999999999999999999999999999999999999E+125", b: "1E+125", reason: ReasonOverflow},
		{a: "-9.9999999999999999999999999999999999999E+125", b: "1E+125", sub: true, reason: ReasonOverflow},
	}
	for _, tc := range tests {
		a, _ := Canonical(tc.a)
		b, _ := Canonical(tc.b)
		f, op := Add, "+"
		if tc.sub {
			f, op = Sub, "-"
		}
		got, err := f(a, b)
		if tc.reason != "" {
			if err == nil || err.Error() != tc.reason {
				t.Errorf("%s %s %s = %q, %v; want error %q", tc.a, op, tc.b, got, err, tc.reason)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %s %s = %q, %v; want %q", tc.a, op, tc.b, got, err, tc.want)
		}
	}
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0", "-1.5", "1e3", "1E-130", "9.9999999999999999999999999999999999999E+125", ".5", "NaN", "1e99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Canonical(s)
		if err != nil {
			if IsCanonical(s) {
				t.Fatalf("Canonical(%q) failed but IsCanonical accepts it", s)
			}
			return
		}
		if !IsCanonical(c) {
			t.Fatalf("Canonical(%q) = %q, not canonical", s, c)
		}
		want, _, err := apd.NewFromString(s)
		if err != nil {
			return // exponent beyond apd's int32 but zero digits: value is 0
		}
		got, _, _ := apd.NewFromString(c)
		if want.Cmp(got) != 0 {
			t.Fatalf("Canonical(%q) = %q, a different value", s, c)
		}
	})
}
