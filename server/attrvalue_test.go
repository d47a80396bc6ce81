package server

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fdyno/fdyno"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Decoding follows the AttributeValue shape of DynamoDB's API reference
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValue.html).
func TestDecodeValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want fdyno.Value
	}{
		{"S", `{"S":"Hello"}`, fdyno.S("Hello")},
		{"S empty", `{"S":""}`, fdyno.S("")},
		{"S escapes", `{"S":"a\"b\\c\n\u00e9\ud83d\ude00"}`, fdyno.S("a\"b\\c\n\u00e9\U0001F600")},
		{"N exact", `{"N":"123.45678901234567890123456789012345678"}`, fdyno.N("123.45678901234567890123456789012345678")},
		{"N normalised", `{"N":"1e3"}`, fdyno.N("1000")},
		{"B", `{"B":"dGhpcyB0ZXh0IGlzIGJhc2U2NC1lbmNvZGVk"}`, fdyno.B([]byte("this text is base64-encoded"))},
		{"B empty", `{"B":""}`, fdyno.B(nil)},
		{"BOOL", `{"BOOL":false}`, fdyno.Bool(false)},
		{"NULL", `{"NULL":true}`, fdyno.Null()},
		{"M", `{"M":{"Name":{"S":"Joe"},"Age":{"N":"35"}}}`, fdyno.M(fdyno.Item{"Name": fdyno.S("Joe"), "Age": fdyno.N("35")})},
		{"M empty", `{"M":{}}`, fdyno.M(fdyno.Item{})},
		{"L", `{"L":[{"S":"Cookies"},{"S":"Coffee"},{"N":"3.14159"}]}`, fdyno.L(fdyno.S("Cookies"), fdyno.S("Coffee"), fdyno.N("3.14159"))},
		{"L empty", `{"L":[]}`, fdyno.L()},
		{"SS", `{"SS":["Giraffe","Hippo","Zebra"]}`, fdyno.SS("Giraffe", "Hippo", "Zebra")},
		{"NS", `{"NS":["42.2","-19","7.5","3.14"]}`, fdyno.NS("42.2", "-19", "7.5", "3.14")},
		{"BS", `{"BS":["U3Vubnk=","UmFpbnk=","U25vd3k="]}`, fdyno.BS([]byte("Sunny"), []byte("Rainy"), []byte("Snowy"))},
		{"white space", " { \"S\" : \"x\" } ", fdyno.S("x")},
		{"unknown member ignored", `{"X":{"deep":[1,{"a":null}]},"S":"x"}`, fdyno.S("x")},
		{"null member absent", `{"N":null,"S":"x"}`, fdyno.S("x")},
		{"nested 32 levels", strings.Repeat(`{"L":[`, 31) + `{"S":"x"}` + strings.Repeat(`]}`, 31), nested(31, fdyno.S("x"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeValue([]byte(tc.in))
			if err != nil {
				t.Fatalf("decodeValue(%s): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decodeValue(%s) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func nested(levels int, v fdyno.Value) fdyno.Value {
	for range levels {
		v = fdyno.L(v)
	}
	return v
}

// DynamoDB answers a JSON type that does not fit the shape with a
// SerializationException and a well-formed but invalid value with a
// ValidationException.
func TestDecodeValueErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		typ      errType
		msg      string
	}{
		{"empty", `{}`, errValidation, "Supplied AttributeValue is empty"},
		{"only null", `{"S":null}`, errValidation, "Supplied AttributeValue is empty"},
		{"only unknown", `{"s":"lower case is not S"}`, errValidation, "Supplied AttributeValue is empty"},
		{"two types", `{"S":"a","N":"1"}`, errValidation, "more than one datatypes set"},
		{"NULL false", `{"NULL":false}`, errValidation, "Null attribute value types must have the value of true"},
		{"too deep", strings.Repeat(`{"L":[`, 32) + `{"S":"x"}` + strings.Repeat(`]}`, 32), errValidation, "Nesting Levels have exceeded supported limits"},
		{"N as JSON number", `{"N":5}`, errSerialization, "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{"S as number", `{"S":5}`, errSerialization, "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{"BOOL as string", `{"BOOL":"true"}`, errSerialization, "class java.lang.String can not be converted to an Boolean"},
		{"M as array", `{"M":[]}`, errSerialization, "Start of list found where not expected"},
		{"L as object", `{"L":{}}`, errSerialization, "Start of structure or map found where not expected"},
		{"SS of numbers", `{"SS":[1]}`, errSerialization, "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{"value not an object", `"S"`, errSerialization, "class java.lang.String can not be converted to an AttributeValue"},
		{"value a list", `[]`, errSerialization, "Start of list found where not expected"},
		{"bad base64", `{"B":"abc"}`, errSerialization, "Base64"},
		{"bad base64 in BS", `{"BS":["AA==","!!"]}`, errSerialization, "Base64"},
		{"malformed", `{"S":"a"`, errSerialization, "Malformed JSON"},
		{"trailing data", `{"S":"a"} x`, errSerialization, "Malformed JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeValue([]byte(tc.in))
			var ae *apiError
			if !errors.As(err, &ae) || ae.typ != tc.typ || !strings.Contains(ae.msg, tc.msg) {
				t.Errorf("decodeValue(%s) = %v, want %s containing %q", tc.in, err, tc.typ.short(), tc.msg)
			}
		})
	}
}

// An item decodes through encoding/json (wireItem), and the library, not
// the codec, judges values: an empty set decodes and is refused later.
func TestWireItem(t *testing.T) {
	var in struct {
		Item wireItem
		None wireItem
	}
	if err := json.Unmarshal([]byte(`{"Item":{"a":{"SS":[]},"b":{"NS":["1","1.0"]}},"None":null}`), &in); err != nil {
		t.Fatal(err)
	}
	if in.None != nil {
		t.Errorf("null item = %v, want nil", in.None)
	}
	if err := fdyno.Item(in.Item).Validate(); !errors.Is(err, fdyno.ErrValidation) {
		t.Errorf("Validate of an empty set and duplicate numbers = %v, want ErrValidation", err)
	}
	out, err := json.Marshal(in.Item)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":{"SS":[]},"b":{"NS":["1","1"]}}`; string(out) != want {
		t.Errorf("Marshal = %s, want %s", out, want)
	}
}

// valueGen draws DynamoDB values of every type, nested up to depth
// levels.
func valueGen(depth int) *rapid.Generator[fdyno.Value] {
	return rapid.Custom(func(t *rapid.T) fdyno.Value {
		kinds := 8
		if depth > 0 {
			kinds = 10
		}
		str := rapid.StringN(0, 8, 8)
		num := rapid.SampledFrom([]string{"0", "-1", "3.14", "1e3", "12345678901234567890123456789012345678", "-1E-130", "9.9999999999999999999999999999999999999E+125"})
		switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
		case 0:
			return fdyno.S(str.Draw(t, "s"))
		case 1:
			return fdyno.N(num.Draw(t, "n"))
		case 2:
			return fdyno.B(rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "b"))
		case 3:
			return fdyno.Bool(rapid.Bool().Draw(t, "bool"))
		case 4:
			return fdyno.Null()
		case 5:
			return fdyno.SS(rapid.SliceOfNDistinct(str, 1, 4, rapid.ID).Draw(t, "ss")...)
		case 6:
			return fdyno.NS(rapid.SliceOfNDistinct(num, 1, 4, rapid.ID).Draw(t, "ns")...)
		case 7:
			return fdyno.BS(rapid.SliceOfN(rapid.SliceOfN(rapid.Byte(), 0, 4), 1, 3).Draw(t, "bs")...)
		case 8:
			return fdyno.M(rapid.MapOfN(str, valueGen(depth-1), 0, 3).Draw(t, "m"))
		default:
			return fdyno.L(rapid.SliceOfN(valueGen(depth-1), 0, 3).Draw(t, "l")...)
		}
	})
}

// Every value survives encoding and decoding, and encoding is
// deterministic (the same value, the same bytes).
func TestAttributeValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := valueGen(3).Draw(t, "v")
		enc := appendValue(nil, v)
		if !json.Valid(enc) {
			t.Fatalf("appendValue(%v) = %s, not JSON", v, enc)
		}
		got, err := decodeValue(enc)
		if err != nil {
			t.Fatalf("decodeValue(%s): %v", enc, err)
		}
		if !got.Equal(v) {
			t.Fatalf("round trip of %s = %v, want %v", enc, got, v)
		}
		if again := appendValue(nil, got); string(again) != string(enc) {
			t.Fatalf("encoding not deterministic: %s then %s", enc, again)
		}
	})
}

// FuzzAttributeValue: decoding never panics; an error is typed; an
// accepted value re-encodes to JSON that decodes to an equal value and
// encodes to the same bytes again; and the type decoded is the one
// encoding/json (the reference) sees as the only non-null known member.
func FuzzAttributeValue(f *testing.F) {
	for _, s := range []string{
		`{"S":"x"}`, `{"N":"-1.5e-3"}`, `{"B":"AAE="}`, `{"BOOL":true}`, `{"NULL":true}`,
		`{"M":{"a":{"L":[{"SS":["x","y"]},{"NS":["1","2"]},{"BS":["AA=="]}]}}}`,
		`{"S":"a","S":null}`, `{"X":[{"y":[1,2,{"z":null}]}],"N":"7"}`, `{"S":"\ud800"}`, `{}`,
		"{\"S\":\"\xff\"}", "{\"M\":{\"\xc3\":{\"N\":\"1\"}}}", `{"SS":["\udc80"]}`, `{"S":"\ud83d\ude00"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeValue(data)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		// Bytes that are not UTF-8 are refused, never rewritten.
		if !utf8.Valid(data) {
			t.Fatalf("accepted %q, which is not UTF-8, as %v", data, v)
		}
		var ref map[string]any
		if err := json.Unmarshal(data, &ref); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", data, err)
		}
		var known []string
		for k, x := range ref {
			if _, ok := attrValueNames[k]; ok && x != nil {
				known = append(known, k)
			}
		}
		if len(known) != 1 || known[0] != v.Type().String() {
			t.Fatalf("decoded %q as %s; encoding/json sees members %v", data, v.Type(), known)
		}
		enc := appendValue(nil, v)
		got, err := decodeValue(enc)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		if !got.Equal(v) {
			t.Fatalf("round trip of %s = %v, want %v", enc, got, v)
		}
		if again := appendValue(nil, got); string(again) != string(enc) {
			t.Fatalf("encoding not deterministic: %s then %s", enc, again)
		}
	})
}

// The responses that encode themselves (encode.go) produce what
// encoding/json makes of the same structs.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	it := wireItem{"pk": fdyno.S("a\n"), "n": fdyno.N("1.5"), "l": fdyno.L(fdyno.B([]byte{1}), fdyno.Null())}
	items := []wireItem{it, {}}
	cc := &consumedCapacity{TableName: "T", CapacityUnits: 0.5, ReadCapacityUnits: 0.5}
	for _, out := range []appender{
		getItemOutput{}, getItemOutput{Item: &it, ConsumedCapacity: cc}, getItemOutput{Item: &wireItem{}},
		writeOutput{}, writeOutput{Attributes: it, ConsumedCapacity: cc},
		readOutput{}, readOutput{Items: &items, Count: 2, ScannedCount: 3, LastEvaluatedKey: it, ConsumedCapacity: cc},
		batchGetItemOutput{}, batchGetItemOutput{Responses: map[string][]wireItem{"b": items, "a": {}, "c": nil},
			UnprocessedKeys: map[string]keysAndAttributes{"b": {Keys: []wireItem{it}, ProjectionExpression: "#p", ExpressionAttributeNames: map[string]string{"#p": "pk"}}}},
		transactGetItemsOutput{}, transactGetItemsOutput{Responses: []itemResponse{{Item: &it}, {}, {Item: &wireItem{}}}},
		transactGetItemsOutput{Responses: []itemResponse{{Item: &it}}, ConsumedCapacity: []consumedCapacity{*cc}},
		readOutput{Items: &items, ConsumedCapacity: &consumedCapacity{TableName: "T", CapacityUnits: 1, Table: &capacityUnits{},
			GlobalSecondaryIndexes: map[string]capacityUnits{"g": {CapacityUnits: 1, ReadCapacityUnits: 1}}}},
	} {
		want, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.appendJSON(nil); string(got) != string(want) {
			t.Errorf("%T.appendJSON = %s, encoding/json says %s", out, got, want)
		}
	}
}
