package awsav_test

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/apd/v3"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/awsav"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// canonicalNumber is DynamoDB's spelling of a returned number: plain
// notation, no leading zeros, no trailing fractional zeros, no sign on
// zero.
var canonicalNumber = regexp.MustCompile(`^(0|-?[1-9][0-9]*(\.[0-9]*[1-9])?|-?0\.[0-9]*[1-9])$`)

// genCanonicalNumber draws a number in DynamoDB's spelling, with at most
// 38 significant digits and well inside its magnitude range.
func genCanonicalNumber() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		intPart := rapid.StringMatching(`0|[1-9][0-9]{0,19}`).Draw(t, "int")
		frac := rapid.StringMatching(`([0-9]{0,16}[1-9])?`).Draw(t, "frac")
		s := intPart
		if frac != "" {
			s += "." + frac
		}
		if s != "0" && rapid.Bool().Draw(t, "negative") {
			s = "-" + s
		}
		return s
	})
}

// genSpelledNumber draws a number in any spelling DynamoDB accepts:
// exponents, signs, leading and trailing zeros. At most 30 digits and
// exponents below 90 keep it inside DynamoDB's range (1E-130 to 1E126).
func genSpelledNumber() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		digits := rapid.StringMatching(`[0-9]{1,30}`).Draw(t, "digits")
		point := rapid.IntRange(0, len(digits)).Draw(t, "point")
		s := digits[:point] + "." + digits[point:]
		s = strings.TrimSuffix(strings.TrimPrefix(s, "."), ".")
		if s == "" || strings.HasPrefix(s, ".") && len(s) == 1 {
			s = "0"
		}
		if rapid.Bool().Draw(t, "exp") {
			s += "E" + rapid.SampledFrom([]string{"", "+", "-"}).Draw(t, "expSign") + rapid.StringMatching(`[0-8]?[0-9]`).Draw(t, "expDigits")
		}
		return rapid.SampledFrom([]string{"", "+", "-"}).Draw(t, "sign") + s
	})
}

func cmpNumbers(a, b string) int {
	x, _, err1 := apd.NewFromString(a)
	y, _, err2 := apd.NewFromString(b)
	if err1 != nil || err2 != nil {
		panic("bad number in test: " + a + " " + b)
	}
	return x.Cmp(y)
}

func nameGen() *rapid.Generator[string] { return rapid.StringN(1, 8, -1) }

// genAV draws a valid SDK attribute value at nesting level depth. With
// canonical set, numbers are in DynamoDB's spelling and set members in
// fdyno's canonical order (bytes for SS and BS, value for NS), so the
// round trip must give back exactly the same value.
func genAV(depth int, canonical bool) *rapid.Generator[types.AttributeValue] {
	return rapid.Custom(func(t *rapid.T) types.AttributeValue {
		kinds := []string{"S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS"}
		if depth < 4 {
			kinds = append(kinds, "M", "L")
		}
		num := genCanonicalNumber()
		if !canonical {
			num = genSpelledNumber()
		}
		switch rapid.SampledFrom(kinds).Draw(t, "kind") {
		case "S":
			return &types.AttributeValueMemberS{Value: rapid.String().Draw(t, "s")}
		case "N":
			return &types.AttributeValueMemberN{Value: num.Draw(t, "n")}
		case "B":
			return &types.AttributeValueMemberB{Value: rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "b")}
		case "BOOL":
			return &types.AttributeValueMemberBOOL{Value: rapid.Bool().Draw(t, "bool")}
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: true}
		case "SS":
			ss := rapid.SliceOfNDistinct(rapid.String(), 1, 5, rapid.ID[string]).Draw(t, "ss")
			if canonical {
				slices.Sort(ss)
			}
			return &types.AttributeValueMemberSS{Value: ss}
		case "NS":
			ns := rapid.SliceOfNDistinct(num, 1, 5, func(s string) string {
				d, _, _ := apd.NewFromString(s)
				d.Reduce(d)
				return d.Text('e') // distinct by value
			}).Draw(t, "ns")
			if canonical {
				slices.SortFunc(ns, cmpNumbers)
			}
			return &types.AttributeValueMemberNS{Value: ns}
		case "BS":
			bs := rapid.SliceOfNDistinct(rapid.SliceOfN(rapid.Byte(), 0, 6), 1, 5, func(b []byte) string { return string(b) }).Draw(t, "bs")
			if canonical {
				slices.SortFunc(bs, bytes.Compare)
			}
			return &types.AttributeValueMemberBS{Value: bs}
		case "M":
			m := rapid.MapOfN(nameGen(), genAV(depth+1, canonical), 0, 4).Draw(t, "m")
			return &types.AttributeValueMemberM{Value: m}
		default:
			return &types.AttributeValueMemberL{Value: rapid.SliceOfN(genAV(depth+1, canonical), 0, 4).Draw(t, "l")}
		}
	})
}

func genSDKItem(canonical bool) *rapid.Generator[map[string]types.AttributeValue] {
	return rapid.MapOfN(nameGen(), genAV(1, canonical), 1, 6)
}

// genValue draws a valid fdyno value, built with fdyno's constructors
// from numbers in any spelling.
func genValue(depth int) *rapid.Generator[fdyno.Value] {
	return rapid.Custom(func(t *rapid.T) fdyno.Value {
		kinds := []string{"S", "N", "NInt", "NFloat", "B", "BOOL", "NULL", "SS", "NS", "BS"}
		if depth < 4 {
			kinds = append(kinds, "M", "L")
		}
		switch rapid.SampledFrom(kinds).Draw(t, "kind") {
		case "S":
			return fdyno.S(rapid.String().Draw(t, "s"))
		case "N":
			return fdyno.N(genSpelledNumber().Draw(t, "n"))
		case "NInt":
			return fdyno.NInt(rapid.Int64().Draw(t, "i"))
		case "NFloat":
			return fdyno.NFloat(rapid.Float64Range(-1e100, 1e100).Draw(t, "f"))
		case "B":
			return fdyno.B(rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "b"))
		case "BOOL":
			return fdyno.Bool(rapid.Bool().Draw(t, "bool"))
		case "NULL":
			return fdyno.Null()
		case "SS":
			return fdyno.SS(rapid.SliceOfNDistinct(rapid.String(), 1, 5, rapid.ID[string]).Draw(t, "ss")...)
		case "NS":
			return fdyno.NS(rapid.SliceOfNDistinct(genCanonicalNumber(), 1, 5, rapid.ID[string]).Draw(t, "ns")...)
		case "BS":
			return fdyno.BS(rapid.SliceOfNDistinct(rapid.SliceOfN(rapid.Byte(), 0, 6), 1, 5, func(b []byte) string { return string(b) }).Draw(t, "bs")...)
		case "M":
			return fdyno.M(rapid.MapOfN(nameGen(), genValue(depth+1), 0, 4).Draw(t, "m"))
		default:
			return fdyno.L(rapid.SliceOfN(genValue(depth+1), 0, 4).Draw(t, "l")...)
		}
	})
}

// fdyno → SDK → fdyno gives back an equal item.
func TestRapidFdynoRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		it := fdyno.Item(rapid.MapOfN(nameGen(), genValue(1), 1, 6).Draw(t, "item"))
		if it.Validate() != nil {
			t.Skip("generated an invalid item") // NFloat beyond DynamoDB's range
		}
		m, err := awsav.AttributeValueMap(it)
		if err != nil {
			t.Fatalf("AttributeValueMap(%v): %v", it, err)
		}
		back, err := awsav.Item(m)
		if err != nil {
			t.Fatalf("Item(AttributeValueMap(%v)): %v", it, err)
		}
		if diff := cmp.Diff(it, back); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}

// SDK → fdyno → SDK gives back exactly the same item when it is spelled
// the way DynamoDB returns items.
func TestRapidSDKRoundTripCanonical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genSDKItem(true).Draw(t, "item")
		it, err := awsav.Item(in)
		if err != nil {
			t.Fatalf("Item: %v", err)
		}
		out, err := awsav.AttributeValueMap(it)
		if err != nil {
			t.Fatalf("AttributeValueMap: %v", err)
		}
		if diff := cmp.Diff(in, out, avOpts, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}

// SDK → fdyno → SDK, for any spelling, gives back the same DynamoDB value:
// numbers equal by value (checked with apd, not fdyno) and spelled
// canonically, sets equal as sets and in canonical order.
func TestRapidSDKRoundTripSpelled(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genSDKItem(false).Draw(t, "item")
		it, err := awsav.Item(in)
		if err != nil {
			t.Fatalf("Item: %v", err)
		}
		out, err := awsav.AttributeValueMap(it)
		if err != nil {
			t.Fatalf("AttributeValueMap: %v", err)
		}
		if len(in) != len(out) {
			t.Fatalf("%d attributes in, %d out", len(in), len(out))
		}
		for k, v := range in {
			sameValue(t, k, v, out[k])
		}
	})
}

func sameValue(t *rapid.T, path string, want, got types.AttributeValue) {
	fail := func() { t.Fatalf("%s: got %#v, want the same value as %#v", path, got, want) }
	switch w := want.(type) {
	case *types.AttributeValueMemberN:
		g, ok := got.(*types.AttributeValueMemberN)
		if !ok || cmpNumbers(w.Value, g.Value) != 0 || !canonicalNumber.MatchString(g.Value) {
			fail()
		}
	case *types.AttributeValueMemberNS:
		g, ok := got.(*types.AttributeValueMemberNS)
		if !ok || len(g.Value) != len(w.Value) {
			fail()
		}
		if !slices.IsSortedFunc(g.Value, cmpNumbers) {
			t.Fatalf("%s: NS %v is not in numeric order", path, g.Value)
		}
		for _, m := range w.Value {
			if !slices.ContainsFunc(g.Value, func(x string) bool { return cmpNumbers(x, m) == 0 && canonicalNumber.MatchString(x) }) {
				fail()
			}
		}
	case *types.AttributeValueMemberSS:
		g, ok := got.(*types.AttributeValueMemberSS)
		want := slices.Sorted(slices.Values(w.Value))
		if !ok || !slices.Equal(want, g.Value) {
			fail()
		}
	case *types.AttributeValueMemberBS:
		g, ok := got.(*types.AttributeValueMemberBS)
		want := slices.SortedFunc(slices.Values(w.Value), bytes.Compare)
		if !ok || !slices.EqualFunc(want, g.Value, bytes.Equal) {
			fail()
		}
	case *types.AttributeValueMemberM:
		g, ok := got.(*types.AttributeValueMemberM)
		if !ok || len(g.Value) != len(w.Value) {
			fail()
		}
		for k, v := range w.Value {
			sameValue(t, path+"."+k, v, g.Value[k])
		}
	case *types.AttributeValueMemberL:
		g, ok := got.(*types.AttributeValueMemberL)
		if !ok || len(g.Value) != len(w.Value) {
			fail()
		}
		for i, v := range w.Value {
			sameValue(t, path+"[]", v, g.Value[i])
		}
	default:
		if diff := cmp.Diff(want, got, avOpts, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s mismatch (-want +got):\n%s", path, diff)
		}
	}
}
