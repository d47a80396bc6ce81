package fdyno

import (
	"errors"
	"github.com/fdyno/fdyno/internal/number"
	"github.com/fdyno/fdyno/internal/validate"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nest wraps v in n maps: {"a": {"M": {"a": ...}}}.
func nest(v Value, n int) Value {
	for range n {
		v = M(Item{"a": v})
	}
	return v
}

// Expected outcomes come from DynamoDB's documented rules:
// names 1..65535 bytes, nesting depth 32 (31 wrappers accepted, 32
// rejected, as observed), empty sets and duplicate members rejected (NS
// numerically), empty strings, binaries, lists and maps allowed.
func TestItemValidate(t *testing.T) {
	tests := []struct {
		name   string
		item   Item
		path   string // expected ValidationError path; "" with reason "" means valid
		reason string
	}{
		{name: "all types", item: Item{
			"s": S("x"), "n": N("1"), "b": B([]byte{1}), "t": Bool(true), "f": Bool(false), "z": Null(),
			"m": M(Item{"k": S("v")}), "l": L(S("a"), N("2")), "ss": SS("a", "b"), "ns": NS("1", "2"), "bs": BS([]byte("a"), []byte("b")),
		}},
		{name: "empty string", item: Item{"s": S("")}},
		{name: "empty binary", item: Item{"b": B(nil)}},
		{name: "empty list", item: Item{"l": L()}},
		{name: "empty map", item: Item{"m": M(Item{})}},
		{name: "nil map", item: Item{"m": M(nil)}},
		{name: "empty string in set", item: Item{"ss": SS("")}},
		{name: "empty nested name", item: Item{"m": M(Item{"": S("x")})}},
		{name: "name 65535 bytes", item: Item{strings.Repeat("a", 65535): S("x")}},
		{name: "31 wrappers", item: Item{"a": nest(S("x"), 31)}},
		{name: "32 wrappers empty", item: Item{"a": nest(M(nil), 31)}},
		{name: "32 wrappers", item: Item{"a": nest(S("x"), 32)}, path: "a" + strings.Repeat(".a", 32), reason: validate.ReasonNesting},
		{name: "32 list wrappers", item: Item{"l": func() Value {
			v := S("x")
			for range 32 {
				v = L(v)
			}
			return v
		}()}, path: "l" + strings.Repeat("[0]", 32), reason: validate.ReasonNesting},
		{name: "empty name", item: Item{"": S("x")}, reason: validate.ReasonEmptyName},
		{name: "name 65536 bytes", item: Item{strings.Repeat("a", 65536): S("x")}, path: strings.Repeat("a", 65536), reason: validate.ReasonNameTooLong},
		{name: "nested name 65536 bytes", item: Item{"m": M(Item{strings.Repeat("a", 65536): S("x")})}, path: "m." + strings.Repeat("a", 65536), reason: validate.ReasonNameTooLong},
		{name: "empty SS", item: Item{"ss": SS()}, path: "ss", reason: "One or more parameter values were invalid: An string set  may not be empty"},
		{name: "empty NS", item: Item{"ns": NS()}, path: "ns", reason: "One or more parameter values were invalid: An number set  may not be empty"},
		{name: "empty BS", item: Item{"bs": BS()}, path: "bs", reason: "One or more parameter values were invalid: Binary sets should not be empty"},
		{name: "duplicate SS", item: Item{"ss": SS("a", "b", "a")}, path: "ss", reason: validate.ReasonDuplicates},
		{name: "duplicate NS by value", item: Item{"ns": NS("1", "1.0")}, path: "ns", reason: validate.ReasonDuplicates},
		{name: "duplicate NS by exponent", item: Item{"ns": NS("1e3", "1000")}, path: "ns", reason: validate.ReasonDuplicates},
		{name: "duplicate BS", item: Item{"bs": BS([]byte{1}, []byte{1})}, path: "bs", reason: validate.ReasonDuplicates},
		{name: "bad NS member", item: Item{"ns": NS("1", "x")}, path: "ns", reason: number.ReasonSyntax + ": x"},
		{name: "bad number in list", item: Item{"l": L(S("a"), N("1E+126"))}, path: "l[1]", reason: number.ReasonOverflow},
		{name: "zero value", item: Item{"m": M(Item{"k": {}})}, path: "m.k", reason: validate.ReasonEmptyValue},
		{name: "NaN float", item: Item{"f": NFloat(nan())}, path: "f", reason: number.ReasonSyntax + ": NaN"},
		// Strings are UTF-8: DynamoDB's wire refuses other bytes, so what
		// the library stores must be valid UTF-8 to come back unchanged.
		{name: "UTF-8 S, SS and names", item: Item{"é": S("\u00e9𝄞"), "ss": SS("ü", "\U0010ffff"), "m": M(Item{"ñ": S("x")})}},
		{name: "B and BS hold any bytes", item: Item{"b": B([]byte{0xff, 0xc3}), "bs": BS([]byte{0xff}, []byte{0xc3})}},
		{name: "S with a raw 0xff", item: Item{"s": S("a\xffb")}, path: "s", reason: validate.ReasonInvalidUTF8},
		{name: "S truncated sequence", item: Item{"s": S("\xc3")}, path: "s", reason: validate.ReasonInvalidUTF8},
		{name: "S encoded surrogate", item: Item{"s": S("\xed\xa0\x80")}, path: "s", reason: validate.ReasonInvalidUTF8},
		{name: "S in a list", item: Item{"l": L(S("ok"), S("\xff"))}, path: "l[1]", reason: validate.ReasonInvalidUTF8},
		{name: "SS member", item: Item{"ss": SS("a", "\xff")}, path: "ss", reason: validate.ReasonInvalidUTF8},
		{name: "name", item: Item{"\xff": S("x")}, path: "\xff", reason: validate.ReasonInvalidUTF8Name},
		{name: "nested map key", item: Item{"m": M(Item{"k": M(Item{"\xc3": N("1")})})}, path: "m.k.\xc3", reason: validate.ReasonInvalidUTF8Name},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.item.Validate()
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				if _, err := EncodeItem(tc.item); err != nil {
					t.Fatalf("EncodeItem() = %v, want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v, want a *ValidationError", err)
			}
			if !errors.Is(err, ErrValidation) {
				t.Errorf("errors.Is(%v, ErrValidation) = false", err)
			}
			if ve.Path != tc.path || ve.Reason != tc.reason {
				t.Errorf("Validate() = path %.40q reason %q, want path %.40q reason %q", ve.Path, ve.Reason, tc.path, tc.reason)
			}
			// The encoder refuses the same items, with the same error.
			_, encErr := EncodeItem(tc.item)
			if diff := cmp.Diff(err.Error(), encErr.Error()); diff != "" {
				t.Errorf("EncodeItem() error mismatch (-Validate +EncodeItem):\n%s", diff)
			}
		})
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestValidationErrorMessage(t *testing.T) {
	err := &ValidationError{Op: "PutItem", Path: "a.b[1]", Reason: "bad"}
	if got, want := err.Error(), "fdyno: ValidationException: PutItem: a.b[1]: bad"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// DynamoDB's item size: names' UTF-8 length; S UTF-8 bytes; B raw bytes; N
// about one byte per two significant digits plus one; BOOL and NULL one
// byte; L and M three bytes plus one per element.
func TestItemSize(t *testing.T) {
	tests := []struct {
		name string
		item Item
		want int
	}{
		{"string", Item{"name": S("héllo")}, 4 + 6},
		{"binary", Item{"b": B([]byte{1, 2, 3})}, 1 + 3},
		{"number", Item{"n": N("12345")}, 1 + 4},
		{"bool and null", Item{"t": Bool(true), "z": Null()}, 2 + 2},
		{"list", Item{"l": L(S("ab"), N("1"))}, 1 + 3 + (1 + 2) + (1 + 2)},
		{"map", Item{"m": M(Item{"k": S("v")})}, 1 + 3 + (1 + 1 + 1)},
		{"empty list", Item{"l": L()}, 1 + 3},
		{"string set", Item{"ss": SS("a", "bc")}, 2 + 3},
		{"number set", Item{"ns": NS("1", "12345")}, 2 + 2 + 4},
		{"binary set", Item{"bs": BS([]byte{1}, []byte{2, 3})}, 2 + 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.item.Size(); got != tc.want {
				t.Errorf("Size() = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestValueAccessors(t *testing.T) {
	it := Item{
		"s": S("x"), "n": N("1e3"), "b": B([]byte("hi")), "t": Bool(true), "z": Null(),
		"m": M(Item{"k": S("v")}), "l": L(S("a")), "ss": SS("b", "a"), "ns": NS("10", "9", "-1.50"), "bs": BS([]byte("b"), []byte("a")),
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"S", it["s"].S(), "x"},
		{"S of N", it["n"].S(), ""},
		{"N", it["n"].N(), "1000"},
		{"Number", it["n"].Number(), Number("1000")},
		{"B", it["b"].B(), []byte("hi")},
		{"Bool", it["t"].Bool(), true},
		{"IsNull", it["z"].IsNull(), true},
		{"M", it["m"].M()["k"].S(), "v"},
		{"L", it["l"].L()[0].S(), "a"},
		{"SS", it["ss"].SS(), []string{"a", "b"}},
		{"NS numeric order", it["ns"].NS(), []string{"-1.5", "9", "10"}},
		{"BS", it["bs"].BS(), [][]byte{[]byte("a"), []byte("b")}},
		{"missing", it["nope"].Type(), Type(0)},
		{"Len", it["ns"].Len(), 3},
		{"Type", it["bs"].Type().String(), "BS"},
		{"String", it["ns"].String(), `{"NS":["-1.5","9","10"]}`},
		{"Item String", Item{"b": B([]byte{0xff}), "a": S("q\"\n")}.String(), `{"a":{"S":"q\"\n"},"b":{"B":"/w=="}}`},
		// Every type, in DynamoDB's JSON: names in byte order, BS members
		// in base64, invalid UTF-8 as U+FFFD, control bytes escaped.
		{"String of every type", Item{"m": M(Item{"z": Null(), "t": Bool(false)}), "l": L(N("1"), S("\x01\xff")), "ss": SS("b", "a"), "bs": BS([]byte{1}), "zero": {}}.String(),
			`{"bs":{"BS":["AQ=="]},"l":{"L":[{"N":"1"},{"S":"\u0001\ufffd"}]},"m":{"M":{"t":{"BOOL":false},"z":{"NULL":true}}},"ss":{"SS":["a","b"]},"zero":{}}`},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", c.name, diff)
		}
	}
	if i, err := it["n"].Int64(); err != nil || i != 1000 {
		t.Errorf("Int64() = %d, %v", i, err)
	}
	if _, err := N("1.5").Int64(); err == nil {
		t.Error("Int64() of 1.5 succeeded")
	}
	if f, err := N("-2.5").Float64(); err != nil || f != -2.5 {
		t.Errorf("Float64() = %v, %v", f, err)
	}
	if d, err := N("0.1").Decimal(); err != nil || d.String() != "0.1" {
		t.Errorf("Decimal() = %v, %v", d, err)
	}
	if !NS("1", "2").Equal(NS("2.0", "1")) {
		t.Error("NS equality is not by value and regardless of order")
	}
	if S("1").Equal(N("1")) {
		t.Error("S(1) equals N(1)")
	}
}

func TestCheckKeyValue(t *testing.T) {
	tests := []struct {
		name   string
		v      Value
		want   Type
		hash   bool
		reason string
	}{
		{name: "string", v: S("x"), want: TypeS, hash: true},
		{name: "number", v: N("-1.5"), want: TypeN, hash: true},
		{name: "binary", v: B([]byte{0}), want: TypeB},
		{name: "partition key 2048 bytes", v: S(strings.Repeat("x", 2048)), want: TypeS, hash: true},
		{name: "sort key 1024 bytes", v: B(make([]byte, 1024)), want: TypeB},
		{name: "type mismatch", v: N("1"), want: TypeS, hash: true,
			reason: "One or more parameter values were invalid: Type mismatch for key k expected: S actual: N"},
		{name: "empty string", v: S(""), want: TypeS, hash: true,
			reason: "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: k"},
		{name: "empty binary", v: B(nil), want: TypeB,
			reason: "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: k"},
		{name: "partition key 2049 bytes", v: S(strings.Repeat("x", 2049)), want: TypeS, hash: true,
			reason: "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		{name: "sort key 1025 bytes", v: S(strings.Repeat("x", 1025)), want: TypeS,
			reason: "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"},
		{name: "bad number", v: N("1e999"), want: TypeN, reason: number.ReasonOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkKeyValue("k", tc.v, tc.want, tc.hash)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("checkKeyValue() = %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Reason != tc.reason || ve.Path != "k" {
				t.Fatalf("checkKeyValue() = %v, want reason %q", err, tc.reason)
			}
		})
	}
}
