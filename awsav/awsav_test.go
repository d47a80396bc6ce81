package awsav_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/awsav"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// avOpts compares SDK attribute values by their exported fields; the
// member types embed an unexported serde marker.
var avOpts = cmp.Options{
	cmpopts.IgnoreUnexported(
		types.AttributeValueMemberS{}, types.AttributeValueMemberN{}, types.AttributeValueMemberB{},
		types.AttributeValueMemberBOOL{}, types.AttributeValueMemberNULL{}, types.AttributeValueMemberM{},
		types.AttributeValueMemberL{}, types.AttributeValueMemberSS{}, types.AttributeValueMemberNS{},
		types.AttributeValueMemberBS{},
	),
}

// The ten types, each written both ways by hand: the SDK value and the
// fdyno value that DynamoDB treats as the same attribute value.
var tenTypes = []struct {
	name  string
	sdk   types.AttributeValue
	fdyno fdyno.Value
}{
	{"S", &types.AttributeValueMemberS{Value: "héllo"}, fdyno.S("héllo")},
	{"S empty", &types.AttributeValueMemberS{Value: ""}, fdyno.S("")},
	{"N integer", &types.AttributeValueMemberN{Value: "-42"}, fdyno.NInt(-42)},
	{"N 38 digits", &types.AttributeValueMemberN{Value: "12345678901234567890123456789012345678"}, fdyno.N("12345678901234567890123456789012345678")},
	{"N tiny", &types.AttributeValueMemberN{Value: "0.0000000000000000000000000000000000000001"}, fdyno.N("1E-40")},
	{"N beyond float64 precision", &types.AttributeValueMemberN{Value: "0.1000000000000000055511151231257827"}, fdyno.N("0.1000000000000000055511151231257827")},
	{"B", &types.AttributeValueMemberB{Value: []byte{0, 0xff, 'x'}}, fdyno.B([]byte{0, 0xff, 'x'})},
	{"BOOL true", &types.AttributeValueMemberBOOL{Value: true}, fdyno.Bool(true)},
	{"BOOL false", &types.AttributeValueMemberBOOL{Value: false}, fdyno.Bool(false)},
	{"NULL", &types.AttributeValueMemberNULL{Value: true}, fdyno.Null()},
	{"M", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"a": &types.AttributeValueMemberS{Value: "x"},
		"b": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"c": &types.AttributeValueMemberN{Value: "1"}}},
	}}, fdyno.M(fdyno.Item{"a": fdyno.S("x"), "b": fdyno.M(fdyno.Item{"c": fdyno.N("1")})})},
	{"M empty", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}, fdyno.M(fdyno.Item{})},
	{"L", &types.AttributeValueMemberL{Value: []types.AttributeValue{
		&types.AttributeValueMemberN{Value: "1"}, &types.AttributeValueMemberNULL{Value: true},
		&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true}}},
	}}, fdyno.L(fdyno.N("1"), fdyno.Null(), fdyno.L(fdyno.Bool(true)))},
	{"L empty", &types.AttributeValueMemberL{Value: []types.AttributeValue{}}, fdyno.L()},
	{"SS", &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, fdyno.SS("b", "a")},
	{"NS", &types.AttributeValueMemberNS{Value: []string{"-1.5", "2", "10"}}, fdyno.NS("10", "2", "-1.5")},
	{"BS", &types.AttributeValueMemberBS{Value: [][]byte{{0}, {1, 2}}}, fdyno.BS([]byte{1, 2}, []byte{0})},
}

func TestValue(t *testing.T) {
	for _, tc := range tenTypes {
		t.Run(tc.name, func(t *testing.T) {
			got, err := awsav.Value(tc.sdk)
			if err != nil {
				t.Fatalf("Value(%v): %v", tc.sdk, err)
			}
			if diff := cmp.Diff(tc.fdyno, got); diff != "" {
				t.Errorf("Value() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAttributeValue(t *testing.T) {
	for _, tc := range tenTypes {
		t.Run(tc.name, func(t *testing.T) {
			got, err := awsav.AttributeValue(tc.fdyno)
			if err != nil {
				t.Fatalf("AttributeValue(%v): %v", tc.fdyno, err)
			}
			if diff := cmp.Diff(tc.sdk, got, avOpts); diff != "" {
				t.Errorf("AttributeValue() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// DynamoDB normalises numbers and sets have no order: the SDK value that
// comes back is DynamoDB's spelling of the same value.
func TestValueNormalises(t *testing.T) {
	tests := []struct {
		name string
		in   types.AttributeValue
		want types.AttributeValue
	}{
		{"exponent", &types.AttributeValueMemberN{Value: "1e3"}, &types.AttributeValueMemberN{Value: "1000"}},
		{"leading and trailing zeros", &types.AttributeValueMemberN{Value: "007.50"}, &types.AttributeValueMemberN{Value: "7.5"}},
		{"negative zero", &types.AttributeValueMemberN{Value: "-0.0"}, &types.AttributeValueMemberN{Value: "0"}},
		{"plus sign", &types.AttributeValueMemberN{Value: "+12"}, &types.AttributeValueMemberN{Value: "12"}},
		{"NS order and spelling", &types.AttributeValueMemberNS{Value: []string{"1E1", "-3", "2.50"}}, &types.AttributeValueMemberNS{Value: []string{"-3", "2.5", "10"}}},
		{"SS order", &types.AttributeValueMemberSS{Value: []string{"b", "B", "a"}}, &types.AttributeValueMemberSS{Value: []string{"B", "a", "b"}}},
		{"nil B", &types.AttributeValueMemberB{}, &types.AttributeValueMemberB{Value: []byte{}}},
		{"nil M", &types.AttributeValueMemberM{}, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}},
		{"nil L", &types.AttributeValueMemberL{}, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := awsav.Value(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := awsav.AttributeValue(v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, avOpts); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestItemRoundTrip(t *testing.T) {
	sdk := map[string]types.AttributeValue{}
	want := fdyno.Item{}
	for _, tc := range tenTypes {
		sdk[tc.name] = tc.sdk
		want[tc.name] = tc.fdyno
	}
	it, err := awsav.Item(sdk)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, it); diff != "" {
		t.Errorf("Item() mismatch (-want +got):\n%s", diff)
	}
	back, err := awsav.AttributeValueMap(it)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sdk, back, avOpts); diff != "" {
		t.Errorf("AttributeValueMap() mismatch (-want +got):\n%s", diff)
	}

	its, err := awsav.Items([]map[string]types.AttributeValue{sdk, {"k": &types.AttributeValueMemberS{Value: "v"}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]fdyno.Item{want, {"k": fdyno.S("v")}}, its); diff != "" {
		t.Errorf("Items() mismatch (-want +got):\n%s", diff)
	}
	maps, err := awsav.AttributeValueMaps(its)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]map[string]types.AttributeValue{sdk, {"k": &types.AttributeValueMemberS{Value: "v"}}}, maps, avOpts); diff != "" {
		t.Errorf("AttributeValueMaps() mismatch (-want +got):\n%s", diff)
	}
}

func TestNil(t *testing.T) {
	if it, err := awsav.Item(nil); it != nil || err != nil {
		t.Errorf("Item(nil) = %v, %v; want nil, nil", it, err)
	}
	if m, err := awsav.AttributeValueMap(nil); m != nil || err != nil {
		t.Errorf("AttributeValueMap(nil) = %v, %v; want nil, nil", m, err)
	}
	if its, err := awsav.Items(nil); its != nil || err != nil {
		t.Errorf("Items(nil) = %v, %v; want nil, nil", its, err)
	}
	if ms, err := awsav.AttributeValueMaps(nil); ms != nil || err != nil {
		t.Errorf("AttributeValueMaps(nil) = %v, %v; want nil, nil", ms, err)
	}
}

// nested wraps v in n lists.
func nested(v types.AttributeValue, n int) types.AttributeValue {
	for range n {
		v = &types.AttributeValueMemberL{Value: []types.AttributeValue{v}}
	}
	return v
}

func TestItemErrors(t *testing.T) {
	cyclic := map[string]types.AttributeValue{}
	cyclic["self"] = &types.AttributeValueMemberM{Value: cyclic}
	var nilS *types.AttributeValueMemberS
	tests := []struct {
		name     string
		in       map[string]types.AttributeValue
		path     string
		contains string
	}{
		{"nil value", map[string]types.AttributeValue{"a": nil}, "a", "Supplied AttributeValue is empty"},
		{"nil member pointer", map[string]types.AttributeValue{"a": nilS}, "a", "Supplied AttributeValue is empty"},
		{"unknown member", map[string]types.AttributeValue{"a": &types.UnknownUnionMember{Tag: "X"}}, "a", `unknown datatype "X"`},
		{"NULL false", map[string]types.AttributeValue{"a": &types.AttributeValueMemberNULL{}}, "a", "Null attribute value types must have the value of true"},
		{"bad number", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "1x"}}, "n", ""},
		{"empty number", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{}}, "n", ""},
		{"39 digits", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "123456789012345678901234567890123456789"}}, "n", "38 significant digits"},
		{"too large", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "1E126"}}, "n", ""},
		{"empty SS", map[string]types.AttributeValue{"s": &types.AttributeValueMemberSS{}}, "s", "may not be empty"},
		{"empty NS", map[string]types.AttributeValue{"s": &types.AttributeValueMemberNS{Value: []string{}}}, "s", "may not be empty"},
		{"empty BS", map[string]types.AttributeValue{"s": &types.AttributeValueMemberBS{}}, "s", "Binary sets should not be empty"}, // DynamoDB words the empty binary set its own way
		{"duplicate SS", map[string]types.AttributeValue{"s": &types.AttributeValueMemberSS{Value: []string{"a", "a"}}}, "s", "contains duplicates"},
		{"duplicate NS by value", map[string]types.AttributeValue{"s": &types.AttributeValueMemberNS{Value: []string{"1", "1.0"}}}, "s", "contains duplicates"},
		{"duplicate BS", map[string]types.AttributeValue{"s": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {1}}}}, "s", "contains duplicates"},
		{"bad NS member", map[string]types.AttributeValue{"s": &types.AttributeValueMemberNS{Value: []string{"1", "x"}}}, "s", ""},
		{"empty name", map[string]types.AttributeValue{"": &types.AttributeValueMemberS{Value: "x"}}, "", "Empty attribute name"},
		{"name too long", map[string]types.AttributeValue{strings.Repeat("n", 65536): &types.AttributeValueMemberS{Value: "x"}}, strings.Repeat("n", 65536), "Attribute name is too large"},
		{"nested in map and list", map[string]types.AttributeValue{"a": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"b": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{}, &types.AttributeValueMemberNULL{}}}}}}, "a.b[1]", "Null attribute value"},
		{"list in list", map[string]types.AttributeValue{"a": nested(&types.AttributeValueMemberNULL{}, 2)}, "a[0][0]", "Null attribute value"},
		{"33 levels", map[string]types.AttributeValue{"a": nested(&types.AttributeValueMemberS{}, 32)}, "", "Nesting Levels have exceeded"},
		{"map that contains itself", map[string]types.AttributeValue{"a": &types.AttributeValueMemberM{Value: cyclic}}, "", "Nesting Levels have exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it, err := awsav.Item(tc.in)
			if err == nil {
				t.Fatalf("Item() = %v, want an error", it)
			}
			var ve *fdyno.ValidationError
			if !errors.Is(err, fdyno.ErrValidation) || !errors.As(err, &ve) {
				t.Fatalf("Item() error %v (%T) is not a *fdyno.ValidationError", err, err)
			}
			if tc.path != "" && ve.Path != tc.path {
				t.Errorf("error path = %q, want %q", ve.Path, tc.path)
			}
			if !strings.Contains(ve.Reason, tc.contains) {
				t.Errorf("error reason = %q, want it to contain %q", ve.Reason, tc.contains)
			}
		})
	}
}

// A valid 32-level value converts both ways; DynamoDB's limit is 32.
func TestNestingLimit(t *testing.T) {
	in := map[string]types.AttributeValue{"a": nested(&types.AttributeValueMemberS{Value: "deep"}, 31)}
	it, err := awsav.Item(in)
	if err != nil {
		t.Fatalf("Item(31 lists deep): %v", err)
	}
	back, err := awsav.AttributeValueMap(it)
	if err != nil {
		t.Fatalf("AttributeValueMap: %v", err)
	}
	// cmp.Diff takes exponential time on deeply nested one-element
	// slices, so the value is unwrapped by hand.
	v := back["a"]
	for i := range 31 {
		l, ok := v.(*types.AttributeValueMemberL)
		if !ok || len(l.Value) != 1 {
			t.Fatalf("level %d: got %#v, want a one-element L", i+1, v)
		}
		v = l.Value[0]
	}
	if s, ok := v.(*types.AttributeValueMemberS); !ok || s.Value != "deep" {
		t.Errorf("level 32: got %#v, want S deep", v)
	}
}

func TestAttributeValueErrors(t *testing.T) {
	cyclic := fdyno.Item{}
	cyclic["self"] = fdyno.M(cyclic)
	tests := []struct {
		name string
		in   fdyno.Item
		path string
	}{
		{"zero Value", fdyno.Item{"a": {}}, "a"},
		{"bad number", fdyno.Item{"n": fdyno.N("12abc")}, "n"},
		{"NaN", fdyno.Item{"n": fdyno.M(fdyno.Item{"f": fdyno.NFloat(nan())})}, "n.f"},
		{"empty set", fdyno.Item{"s": fdyno.SS()}, "s"},
		{"duplicates", fdyno.Item{"s": fdyno.NS("2", "2.0")}, "s"},
		{"empty name", fdyno.Item{"": fdyno.S("x")}, ""},
		{"cycle", fdyno.Item{"a": fdyno.M(cyclic)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := awsav.AttributeValueMap(tc.in)
			var ve *fdyno.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("AttributeValueMap() = %v, %v; want a *fdyno.ValidationError", m, err)
			}
			if tc.path != "" && ve.Path != tc.path {
				t.Errorf("error path = %q, want %q", ve.Path, tc.path)
			}
			if _, err := awsav.AttributeValueMaps([]fdyno.Item{{"ok": fdyno.S("x")}, tc.in}); !errors.Is(err, fdyno.ErrValidation) || !strings.Contains(err.Error(), "item 1") {
				t.Errorf("AttributeValueMaps() error = %v; want a validation error naming item 1", err)
			}
		})
	}
	if _, err := awsav.AttributeValue(fdyno.Value{}); !errors.Is(err, fdyno.ErrValidation) {
		t.Errorf("AttributeValue(zero Value) error = %v, want ErrValidation", err)
	}
	if _, err := awsav.Items([]map[string]types.AttributeValue{{"a": nil}}); !errors.Is(err, fdyno.ErrValidation) || !strings.Contains(err.Error(), "item 0") {
		t.Errorf("Items() error = %v; want a validation error naming item 0", err)
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

// The SDK value and the fdyno value share no memory: changing the one
// after the conversion leaves the other as it was.
func TestNoSharing(t *testing.T) {
	b := []byte{1, 2, 3}
	ss := []string{"a", "b"}
	inner := map[string]types.AttributeValue{"x": &types.AttributeValueMemberB{Value: b}}
	in := map[string]types.AttributeValue{"m": &types.AttributeValueMemberM{Value: inner}, "ss": &types.AttributeValueMemberSS{Value: ss}}
	it, err := awsav.Item(in)
	if err != nil {
		t.Fatal(err)
	}
	b[0], ss[0] = 9, "z"
	inner["y"] = &types.AttributeValueMemberS{Value: "added"}
	want := fdyno.Item{"m": fdyno.M(fdyno.Item{"x": fdyno.B([]byte{1, 2, 3})}), "ss": fdyno.SS("a", "b")}
	if diff := cmp.Diff(want, it); diff != "" {
		t.Errorf("fdyno item changed with the SDK value (-want +got):\n%s", diff)
	}

	out, err := awsav.AttributeValueMap(want)
	if err != nil {
		t.Fatal(err)
	}
	out["m"].(*types.AttributeValueMemberM).Value["x"].(*types.AttributeValueMemberB).Value[0] = 7
	out["ss"].(*types.AttributeValueMemberSS).Value[0] = "q"
	if diff := cmp.Diff(fdyno.Item{"m": fdyno.M(fdyno.Item{"x": fdyno.B([]byte{1, 2, 3})}), "ss": fdyno.SS("a", "b")}, want); diff != "" {
		t.Errorf("fdyno item changed with the SDK value (-want +got):\n%s", diff)
	}
}
