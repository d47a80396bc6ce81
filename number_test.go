package fdyno

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/fdyno/fdyno/internal/number"
	"pgregory.net/rapid"
)

// An illegal number is kept by N and rejected by Validate and ParseN with
// DynamoDB's reason (package internal/number's tests hold the reasons to
// DynamoDB's documented rules) at the attribute's path.
func TestNumberValidation(t *testing.T) {
	for _, in := range []string{strings.Repeat("1", 39), "1E+126", "9E-131", "NaN", "", "1.2.3"} {
		_, want := number.Canonical(in)
		if want == nil {
			t.Fatalf("Canonical(%q) accepted it", in)
		}
		verr := Item{"n": N(in)}.Validate()
		var ve *ValidationError
		if !errors.As(verr, &ve) || ve.Reason != want.Error() || ve.Path != "n" || !errors.Is(verr, ErrValidation) {
			t.Errorf("Validate of N(%q) = %v; want reason %q at n", in, verr, want)
		}
		if _, err := ParseN(in); !errors.As(err, &ve) || ve.Reason != want.Error() {
			t.Errorf("ParseN(%q) = %v; want reason %q", in, err, want)
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
		c, err := number.Canonical(s)
		if err != nil {
			t.Fatalf("Canonical(%q): %v", s, err)
		}
		if !number.IsCanonical(c) {
			t.Fatalf("IsCanonical(%q) = false", c)
		}
		if again, _ := number.Canonical(c); again != c {
			t.Fatalf("Canonical not idempotent: %q -> %q", c, again)
		}
		want, _, _ := apd.NewFromString(s)
		got, _, _ := apd.NewFromString(c)
		if want.Cmp(got) != 0 {
			t.Fatalf("Canonical(%q) = %q, a different value", s, c)
		}
	})
}

func TestCompareNumbersMatchesApd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, _ := number.Canonical(numberGen().Draw(t, "a"))
		b := a
		if rapid.IntRange(0, 9).Draw(t, "same") != 0 {
			b, _ = number.Canonical(numberGen().Draw(t, "b"))
		}
		x, _, _ := apd.NewFromString(a)
		y, _, _ := apd.NewFromString(b)
		if got, want := number.Compare(a, b), x.Cmp(y); got != want {
			t.Fatalf("number.Compare(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}
