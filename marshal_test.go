package fdyno

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

type Base struct {
	ID      string `fdyno:"pk"`
	Version int    `dynamodbav:"ver"`
}

type Audit struct {
	CreatedBy string
}

// celsius has a custom DynamoDB form: "21.5C".
type celsius float64

func (c celsius) MarshalDynamo() (Value, error) {
	return S(json.Number(NFloat(float64(c)).N()).String() + "C"), nil
}

func (c *celsius) UnmarshalDynamo(v Value) error {
	n, err := ParseN(strings.TrimSuffix(v.S(), "C"))
	if err != nil {
		return err
	}
	f, err := n.Float64()
	*c = celsius(f)
	return err
}

type everything struct {
	Base
	*Audit
	Name      string            `fdyno:"name"`
	Nick      string            `fdyno:"nick,omitempty"`
	Age       uint8             `dynamodbav:"age"`
	Balance   float64           `fdyno:"balance"`
	Big       *big.Int          `fdyno:"big"`
	Dec       apd.Decimal       `fdyno:"dec"`
	Exact     Number            `fdyno:"exact"`
	JSONNum   json.Number       `fdyno:"jsonnum"`
	Active    bool              `fdyno:"active"`
	Avatar    []byte            `fdyno:"avatar"`
	Hash      [4]byte           `fdyno:"hash"`
	Tags      []string          `fdyno:"tags,stringset"`
	Lucky     []int             `fdyno:"lucky,numberset"`
	Keys      [][]byte          `fdyno:"keys,binaryset"`
	Roles     map[string]bool   `fdyno:"roles,stringset"`
	Empty     []string          `fdyno:"empty,stringset,omitempty"`
	List      []any             `fdyno:"list"`
	Attrs     map[string]string `fdyno:"attrs"`
	Ptr       *string           `fdyno:"ptr"`
	NilPtr    *string           `fdyno:"nilptr"`
	Created   time.Time         `fdyno:"created"`
	Expires   time.Time         `fdyno:"expires,unixtime"`
	Temp      celsius           `fdyno:"temp"`
	Item      Item              `fdyno:"item"`
	Val       Value             `fdyno:"val"`
	Skipped   string            `fdyno:"-"`
	unexposed int
}

func newEverything() everything {
	s := "pointed"
	return everything{
		Base:    Base{ID: "u#1", Version: 3},
		Audit:   &Audit{CreatedBy: "ada"},
		Name:    "Ada",
		Age:     36,
		Balance: -12.5,
		Big:     new(big.Int).Exp(big.NewInt(10), big.NewInt(37), nil),
		Dec:     *apd.New(15, -1),
		Exact:   "0.1",
		JSONNum: "1e3",
		Active:  true,
		Avatar:  []byte{1, 2},
		Hash:    [4]byte{9, 8, 7, 6},
		Tags:    []string{"b", "a"},
		Lucky:   []int{7, 3},
		Keys:    [][]byte{{2}, {1}},
		Roles:   map[string]bool{"admin": true, "guest": false},
		List:    []any{"x", 1.5, true, nil, map[string]any{"k": "v"}},
		Attrs:   map[string]string{"color": "red"},
		Ptr:     &s,
		Created: time.Date(2024, 6, 1, 12, 0, 0, 5, time.UTC),
		Expires: time.Unix(1_700_000_000, 0),
		Temp:    21.5,
		Item:    Item{"n": NInt(1)},
		Val:     NS("2", "1"),
		Skipped: "no",
	}
}

func TestMarshalEverything(t *testing.T) {
	in := newEverything()
	it, err := Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	want := Item{
		"pk": S("u#1"), "ver": NInt(3), "CreatedBy": S("ada"),
		"name": S("Ada"), "age": NInt(36), "balance": N("-12.5"),
		"big": N("1" + strings.Repeat("0", 37)),
		"dec": N("1.5"), "exact": N("0.1"), "jsonnum": N("1000"), "active": Bool(true),
		"avatar": B([]byte{1, 2}), "hash": B([]byte{9, 8, 7, 6}),
		"tags": SS("a", "b"), "lucky": NS("3", "7"), "keys": BS([]byte{1}, []byte{2}), "roles": SS("admin"),
		"list":    L(S("x"), N("1.5"), Bool(true), Null(), M(Item{"k": S("v")})),
		"attrs":   M(Item{"color": S("red")}),
		"ptr":     S("pointed"),
		"nilptr":  Null(),
		"created": S("2024-06-01T12:00:00.000000005Z"),
		"expires": NInt(1_700_000_000),
		"temp":    S("21.5C"),
		"item":    M(Item{"n": NInt(1)}),
		"val":     NS("1", "2"),
	}
	if diff := cmp.Diff(want, it); diff != "" {
		t.Fatalf("Marshal() mismatch (-want +got):\n%s", diff)
	}
	if err := it.Validate(); err != nil {
		t.Fatalf("Validate(): %v", err)
	}

	var out everything
	if err := Unmarshal(it, &out); err != nil {
		t.Fatal(err)
	}
	in.Skipped = ""
	in.Roles = map[string]bool{"admin": true}
	in.List = []any{"x", Number("1.5"), true, nil, map[string]any{"k": "v"}}
	in.Tags = []string{"a", "b"}
	in.Lucky = []int{3, 7}
	in.Keys = [][]byte{{1}, {2}}
	in.Expires = in.Expires.Local()
	in.JSONNum = "1000"
	opts := []cmp.Option{
		cmp.AllowUnexported(everything{}),
		cmp.Comparer(func(a, b *big.Int) bool { return a.Cmp(b) == 0 }),
		cmp.Comparer(func(a, b apd.Decimal) bool { return a.Cmp(&b) == 0 }),
	}
	if diff := cmp.Diff(in, out, opts...); diff != "" {
		t.Fatalf("Unmarshal() mismatch (-want +got):\n%s", diff)
	}
}

func TestMarshalOmitEmpty(t *testing.T) {
	type s struct {
		A string         `fdyno:",omitempty"`
		B int            `dynamodbav:",omitempty"`
		C *int           `fdyno:",omitempty"`
		D []int          `fdyno:",omitempty"`
		E map[string]int `fdyno:",omitempty"`
		F time.Time      `fdyno:",omitempty"`
		G []string       `fdyno:",stringset,omitempty"`
		H bool           `fdyno:",omitempty"`
		I []string       `fdyno:",stringset"`
		J []int
		K Value
		L Value `fdyno:",omitempty"`
	}
	it, err := Marshal(s{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Item{"I": Null(), "J": Null(), "K": Null()}, it); diff != "" {
		t.Errorf("Marshal() mismatch (-want +got):\n%s", diff)
	}
}

// Go's embedding rules: the shallower field wins; at equal depth a tagged
// field wins; otherwise the name is dropped.
func TestMarshalEmbeddingConflicts(t *testing.T) {
	type A struct{ X, Y, Z string }
	type B struct {
		X string
		Y string `fdyno:"Y"`
	}
	type outer struct {
		A
		B
		Z string
	}
	it, err := Marshal(outer{A: A{X: "ax", Y: "ay", Z: "az"}, B: B{X: "bx", Y: "by"}, Z: "oz"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Item{"Y": S("by"), "Z": S("oz")}, it); diff != "" {
		t.Errorf("Marshal() mismatch (-want +got):\n%s", diff)
	}
}

func TestMarshalErrors(t *testing.T) {
	type cyclic struct{ Next *cyclic }
	loop := &cyclic{}
	loop.Next = loop
	tooBig := new(big.Int).Exp(big.NewInt(10), big.NewInt(40), nil)
	tooBig.Add(tooBig, big.NewInt(1))
	tests := []struct {
		name string
		v    any
		path string
	}{
		{"NaN", map[string]float64{"f": math.NaN()}, "f"},
		{"infinity", struct{ F float32 }{float32(math.Inf(1))}, "F"},
		{"channel", struct{ C chan int }{make(chan int)}, "C"},
		{"func", map[string]any{"f": func() {}}, "f"},
		{"int map keys", map[string]any{"m": map[int]string{1: "a"}}, "m"},
		{"41-digit integer", struct{ B *big.Int }{tooBig}, "B"},
		{"bad Number", struct{ N Number }{"12abc"}, "N"},
		{"set duplicates", struct {
			S []string `fdyno:"s,stringset"`
		}{[]string{"a", "a"}}, "s"},
		{"number set of strings", struct {
			S []string `fdyno:"s,numberset"`
		}{[]string{"1", "x"}}, "s"},
		{"number set duplicates by value", struct {
			S []string `fdyno:"s,numberset"`
		}{[]string{"1", "1.0"}}, "s"},
		{"cycle", loop, strings.TrimPrefix(strings.Repeat(".Next", MaxNestingDepth+1), ".")},
		{"not an item", 42, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it, err := Marshal(tc.v)
			var me *MarshalError
			if !errors.As(err, &me) {
				t.Fatalf("Marshal() = %v, %v; want a *MarshalError", it, err)
			}
			if me.Path != tc.path {
				t.Errorf("error path %q, want %q (%v)", me.Path, tc.path, err)
			}
			if !strings.HasPrefix(err.Error(), "fdyno: ") {
				t.Errorf("error %q lacks the fdyno: prefix", err)
			}
		})
	}
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name   string
		val    Value
		target any
	}{
		{"fraction into int", N("1.5"), new(int)},
		{"overflow int8", N("300"), new(int8)},
		{"negative into uint", N("-1"), new(uint)},
		{"beyond float32", N("1E+100"), new(float32)},
		{"S into int", S("1"), new(int)},
		{"N into string", N("1"), new(string)},
		{"BOOL into string", Bool(true), new(string)},
		{"list too long for array", L(NInt(1), NInt(2), NInt(3)), new([2]int)},
		{"bytes too long for array", B([]byte{1, 2, 3}), new([2]byte)},
		{"M into slice", M(Item{}), new([]int)},
		{"fraction into big.Int", N("1.5"), new(big.Int)},
		{"bad time", S("yesterday"), new(time.Time)},
		{"non-empty interface", S("x"), new(error)},
		{"nested", M(Item{"a": L(S("x"), N("1.5"))}), new(map[string][]string)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := UnmarshalValue(tc.val, tc.target)
			var ue *UnmarshalError
			if !errors.As(err, &ue) {
				t.Fatalf("UnmarshalValue(%v) = %v; want an *UnmarshalError", tc.val, err)
			}
		})
	}
	if err := Unmarshal(Item{}, struct{}{}); err == nil {
		t.Error("Unmarshal into a non-pointer succeeded")
	}
	var ue *UnmarshalError
	err := UnmarshalValue(M(Item{"a": L(S("x"), N("1.5"))}), new(map[string][]string))
	if !errors.As(err, &ue) || ue.Path != "a[1]" {
		t.Errorf("error %v, want path a[1]", err)
	}
}

func TestUnmarshalNullAndArrays(t *testing.T) {
	type s struct {
		P   *int
		Arr [3]int
		Sl  []int
		M   map[string]int
	}
	one := 1
	v := s{P: &one, Arr: [3]int{7, 7, 7}, Sl: []int{1}, M: map[string]int{"a": 1}}
	if err := Unmarshal(Item{"P": Null(), "Arr": L(NInt(1)), "Sl": Null(), "M": Null()}, &v); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s{Arr: [3]int{1, 0, 0}}, v); diff != "" {
		t.Errorf("Unmarshal() mismatch (-want +got):\n%s", diff)
	}
}

type numbers struct {
	I8  int8
	I64 int64
	U64 uint64
	F32 float32
	F64 float64
	S   string
	B   []byte
	L   []int32
	P   *int16
	M   map[string]uint16
}

// Integers and floats survive a round trip exactly: integers are exact
// decimals and floats are stored as their shortest round-tripping text.
func TestMarshalRoundTripNumbers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := numbers{
			I8:  rapid.Int8().Draw(t, "i8"),
			I64: rapid.Int64().Draw(t, "i64"),
			U64: rapid.Uint64().Draw(t, "u64"),
			F32: rapid.Float32().Draw(t, "f32"),
			F64: rapid.Float64Range(-1e100, 1e100).Draw(t, "f64"),
			S:   rapid.String().Draw(t, "s"),
			B:   rapid.SliceOfN(rapid.Byte(), 1, 8).Draw(t, "b"),
			L:   rapid.SliceOfN(rapid.Int32(), 1, 4).Draw(t, "l"),
			P:   rapid.Ptr(rapid.Int16(), true).Draw(t, "p"),
			M:   rapid.MapOfN(rapid.String(), rapid.Uint16(), 1, 3).Draw(t, "m"),
		}
		if in.F64 != 0 && math.Abs(in.F64) < 1e-130 {
			in.F64 = 0
		}
		it, err := Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := EncodeItem(it)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := DecodeItem(enc)
		if err != nil {
			t.Fatal(err)
		}
		var out numbers
		if err := Unmarshal(dec, &out); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(in, out); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}
