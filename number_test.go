package fdyno

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"pgregory.net/rapid"
)

// Expected values follow DynamoDB's documented number rules: 38 significant
// digits, magnitudes 1E-130 to 9.9999999999999999999999999999999999999E+125,
// and numbers returned without leading or trailing zeros ("1e3" is 1000).
func TestCanonicalNumber(t *testing.T) {
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
		{name: "39 digits", in: strings.Repeat("1", 39), reason: reasonNumberDigits},
		{name: "overflow", in: "1E+126", reason: reasonNumberOverflow},
		{name: "overflow negative", in: "-1E+126", reason: reasonNumberOverflow},
		{name: "underflow", in: "9E-131", reason: reasonNumberUnderflow},
		{name: "huge exponent", in: "1e99999999999999999999", reason: reasonNumberOverflow},
		{name: "tiny exponent", in: "1e-99999999999999999999", reason: reasonNumberUnderflow},
		{name: "NaN", in: "NaN", reason: reasonNumberSyntax},
		{name: "Infinity", in: "Infinity", reason: reasonNumberSyntax},
		{name: "space", in: " 1", reason: reasonNumberSyntax},
		{name: "empty", in: "", reason: reasonNumberSyntax},
		{name: "point only", in: ".", reason: reasonNumberSyntax},
		{name: "sign only", in: "-", reason: reasonNumberSyntax},
		{name: "double sign", in: "--1", reason: reasonNumberSyntax},
		{name: "hex", in: "0x10", reason: reasonNumberSyntax},
		{name: "bare exponent", in: "1e", reason: reasonNumberSyntax},
		{name: "two points", in: "1.2.3", reason: reasonNumberSyntax},
		{name: "underscore", in: "1_000", reason: reasonNumberSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := canonicalNumber(tc.in)
			if tc.reason == reasonNumberSyntax && tc.in != "" {
				// DynamoDB names the text: "The parameter cannot be
				// converted to a numeric value: 1.2.3".
				tc.reason += ": " + tc.in
			}
			if tc.reason != "" {
				if err == nil || err.Error() != tc.reason {
					t.Fatalf("canonicalNumber(%q) = %q, %v; want error %q", tc.in, got, err, tc.reason)
				}
				v := N(tc.in)
				verr := Item{"n": v}.Validate()
				var ve *ValidationError
				if !errors.As(verr, &ve) || ve.Reason != tc.reason || ve.Path != "n" {
					t.Fatalf("Validate of N(%q) = %v; want reason %q at n", tc.in, verr, tc.reason)
				}
				if !errors.Is(verr, ErrValidation) {
					t.Fatalf("Validate error %v is not ErrValidation", verr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("canonicalNumber(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			if !isCanonicalNumber(got) {
				t.Errorf("isCanonicalNumber(%q) = false", got)
			}
		})
	}
}

func TestIsCanonicalNumberRejects(t *testing.T) {
	for _, s := range []string{"", "-", "-0", "00", "01", "1.", "1.0", ".5", "+1", "1e3", "1.50", "0.", "- 1", "1 ", "--1", "0.0", strings.Repeat("1", 39)} {
		if isCanonicalNumber(s) {
			t.Errorf("isCanonicalNumber(%q) = true", s)
		}
	}
}

// numberGen generates legal DynamoDB numbers as arbitrary (non-canonical)
// text, concentrating on the edges: 38 digits and extreme exponents.
func numberGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.IntRange(0, 20).Draw(t, "zero") == 0 {
			return rapid.SampledFrom([]string{"0", "-0", "0.000", "0e5"}).Draw(t, "z")
		}
		nd := rapid.IntRange(1, MaxNumberDigits).Draw(t, "digits")
		var b strings.Builder
		if rapid.Bool().Draw(t, "neg") {
			b.WriteByte('-')
		}
		b.WriteByte(byte('1' + rapid.IntRange(0, 8).Draw(t, "lead")))
		for i := 1; i < nd; i++ {
			b.WriteByte(byte('0' + rapid.IntRange(0, 9).Draw(t, "d")))
		}
		adj := rapid.OneOf(
			rapid.IntRange(MinNumberExponent, MaxNumberExponent),
			rapid.IntRange(-3, 20),
			rapid.SampledFrom([]int{MinNumberExponent, MinNumberExponent + 1, MaxNumberExponent - 1, MaxNumberExponent}),
		).Draw(t, "adj")
		// The digits are read as d.ddd × 10^adj.
		b.WriteString("e")
		b.WriteString(strconv.Itoa(adj - (nd - 1)))
		return b.String()
	})
}

func TestNumberNormalisationMatchesApd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := numberGen().Draw(t, "n")
		c, err := canonicalNumber(s)
		if err != nil {
			t.Fatalf("canonicalNumber(%q): %v", s, err)
		}
		if !isCanonicalNumber(c) {
			t.Fatalf("isCanonicalNumber(%q) = false", c)
		}
		if again, _ := canonicalNumber(c); again != c {
			t.Fatalf("canonicalNumber not idempotent: %q -> %q", c, again)
		}
		want, _, _ := apd.NewFromString(s)
		got, _, _ := apd.NewFromString(c)
		if want.Cmp(got) != 0 {
			t.Fatalf("canonicalNumber(%q) = %q, a different value", s, c)
		}
	})
}

func TestCompareNumbersMatchesApd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, _ := canonicalNumber(numberGen().Draw(t, "a"))
		b := a
		if rapid.IntRange(0, 9).Draw(t, "same") != 0 {
			b, _ = canonicalNumber(numberGen().Draw(t, "b"))
		}
		x, _, _ := apd.NewFromString(a)
		y, _, _ := apd.NewFromString(b)
		if got, want := compareNumbers(a, b), x.Cmp(y); got != want {
			t.Fatalf("compareNumbers(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

// The documented size of a number is about one byte per two significant
// digits plus one; exactly, one byte per base-100 digit plus one.
func TestNumberSize(t *testing.T) {
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
		if got := numberSize(tc.in); got != tc.want {
			t.Errorf("numberSize(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// DynamoDB rejects arithmetic that overflows or loses precision, such as
// 1E50 + 1, with a ValidationException.
func TestAddNumbers(t *testing.T) {
	tests := []struct {
		a, b, want, reason string
		sub                bool
	}{
		{a: "1", b: "2", want: "3"},
		{a: "1.5", b: "-1.5", want: "0"},
		{a: "0.1", b: "0.2", want: "0.3"},
		{a: "10", b: "3", sub: true, want: "7"},
		{a: "1E50", b: "1", reason: reasonNumberDigits},
		{a: "1E50", b: "1E50", want: "2" + strings.Repeat("0", 50)},
		{a: strings.Repeat("9", 38), b: "1", want: "1" + strings.Repeat("0", 38)},
		{a: "9.9999999999999999999999999999999999999E+125", b: "1E+125", reason: reasonNumberOverflow},
		{a: "-9.9999999999999999999999999999999999999E+125", b: "1E+125", sub: true, reason: reasonNumberOverflow},
	}
	for _, tc := range tests {
		a, _ := canonicalNumber(tc.a)
		b, _ := canonicalNumber(tc.b)
		f, op := addNumbers, "+"
		if tc.sub {
			f, op = subNumbers, "-"
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
		c, err := canonicalNumber(s)
		if err != nil {
			if isCanonicalNumber(s) {
				t.Fatalf("canonicalNumber(%q) failed but isCanonicalNumber accepts it", s)
			}
			return
		}
		if !isCanonicalNumber(c) {
			t.Fatalf("canonicalNumber(%q) = %q, not canonical", s, c)
		}
		want, _, err := apd.NewFromString(s)
		if err != nil {
			return // exponent beyond apd's int32 but zero digits: value is 0
		}
		got, _, _ := apd.NewFromString(c)
		if want.Cmp(got) != 0 {
			t.Fatalf("canonicalNumber(%q) = %q, a different value", s, c)
		}
	})
}
