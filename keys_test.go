package fdyno

import (
	"bytes"
	"errors"
	"go/ast"
	gotoken "go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/cockroachdb/apd/v3"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// Numbers in increasing order, from DynamoDB's documented extremes inwards:
// the packed keys must sort the same way.
func TestNumberKeyOrderTable(t *testing.T) {
	max := "9.9999999999999999999999999999999999999E+125"
	ordered := []string{
		"-" + max,
		"-1E+125",
		"-123456789012345678901234567890.12345678",
		"-1000",
		"-999.99",
		"-10",
		"-2",
		"-1.05",
		"-1",
		"-0.99999999999999999999999999999999999999",
		"-0.5",
		"-1E-129",
		"-1.1E-130",
		"-1E-130",
		"0",
		"1E-130",
		"1.1E-130",
		"1E-129",
		"0.5",
		"0.99999999999999999999999999999999999999",
		"1",
		"1.05",
		"1.1",
		"2",
		"10",
		"99",
		"100",
		"101",
		"12345678901234567890123456789012345678",
		"1E+125",
		max,
	}
	var keys [][]byte
	for _, s := range ordered {
		k, err := packKeyValues(N(s))
		if err != nil {
			t.Fatalf("packKeyValues(N(%s)): %v", s, err)
		}
		keys = append(keys, k)
		got, err := unpackKeyValues(k, TypeN)
		if err != nil {
			t.Fatalf("unpackKeyValues(%s): %v", tuple.Tuple{k}, err)
		}
		if !got[0].Equal(N(s)) {
			t.Errorf("N(%s) round trips to %v", s, got[0])
		}
	}
	for i := 1; i < len(keys); i++ {
		if bytes.Compare(keys[i-1], keys[i]) >= 0 {
			t.Errorf("key of %s does not sort before key of %s", ordered[i-1], ordered[i])
		}
	}
}

// The N key encoding orders exactly as an arbitrary-precision comparison.
func TestNumberKeyOrderMatchesApd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := canonicalNumberGen().Draw(t, "a")
		b := a
		if rapid.IntRange(0, 9).Draw(t, "same") != 0 {
			b = canonicalNumberGen().Draw(t, "b")
		}
		ka, err := packKeyValues(N(a))
		if err != nil {
			t.Fatal(err)
		}
		kb, err := packKeyValues(N(b))
		if err != nil {
			t.Fatal(err)
		}
		x, _, _ := apd.NewFromString(a)
		y, _, _ := apd.NewFromString(b)
		if got, want := bytes.Compare(ka, kb), x.Cmp(y); got != want {
			t.Fatalf("key order of %s vs %s is %d, want %d", a, b, got, want)
		}
		for _, pair := range [][2]any{{a, ka}, {b, kb}} {
			vs, err := unpackKeyValues(pair[1].([]byte), TypeN)
			if err != nil || vs[0].N() != pair[0].(string) {
				t.Fatalf("unpack of N(%s) = %v, %v", pair[0], vs, err)
			}
		}
	})
}

// S and B keys order by bytes.Compare, including bytes 0x00 and 0xff that
// the tuple layer escapes, and as the leading element of a composite key.
func TestStringAndBinaryKeyOrder(t *testing.T) {
	raw := rapid.SliceOfN(rapid.SampledFrom([]byte{0x00, 0x01, 0xfe, 0xff, 'a', 'b'}), 1, 6)
	rapid.Check(t, func(t *rapid.T) {
		a, b := raw.Draw(t, "a"), raw.Draw(t, "b")
		typ := rapid.SampledFrom([]Type{TypeS, TypeB}).Draw(t, "type")
		mk := func(x []byte) Value {
			if typ == TypeS {
				return S(string(x))
			}
			return B(x)
		}
		sort := NInt(rapid.Int64Range(-3, 3).Draw(t, "sort"))
		ka, err := packKeyValues(mk(a), sort)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := packKeyValues(mk(b), sort)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := bytes.Compare(ka, kb), bytes.Compare(a, b); got != want {
			t.Fatalf("key order of %q vs %q is %d, want %d", a, b, got, want)
		}
		vs, err := unpackKeyValues(ka, typ, TypeN)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]Value{mk(a), sort}, vs); diff != "" {
			t.Fatalf("unpack mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestUnpackKeyCorrupt(t *testing.T) {
	good, _ := packKeyValues(S("a"), N("1.5"))
	tests := []struct {
		name  string
		key   []byte
		types []Type
	}{
		{"unterminated string", []byte{0x02, 'a'}, []Type{TypeS}},
		{"truncated", good[:len(good)-1], []Type{TypeS, TypeN}},
		{"integer element", tuple.Tuple{int64(5)}.Pack(), []Type{TypeN}},
		{"nested tuple", []byte{0x05, 0x00}, []Type{TypeS}},
		{"wrong element count", good, []Type{TypeS}},
		{"string for binary", tuple.Tuple{"a"}.Pack(), []Type{TypeB}},
		{"empty string", tuple.Tuple{""}.Pack(), []Type{TypeS}},
		{"empty number", tuple.Tuple{[]byte{}}.Pack(), []Type{TypeN}},
		{"number bad sign", tuple.Tuple{[]byte{0x04, 130, 2}}.Pack(), []Type{TypeN}},
		{"number zero with digits", tuple.Tuple{[]byte{0x02, 1}}.Pack(), []Type{TypeN}},
		{"number no digits", tuple.Tuple{[]byte{0x03, 130}}.Pack(), []Type{TypeN}},
		{"number digit byte 0", tuple.Tuple{[]byte{0x03, 130, 0}}.Pack(), []Type{TypeN}},
		{"number digit byte 101", tuple.Tuple{[]byte{0x03, 130, 101}}.Pack(), []Type{TypeN}},
		{"number leading zero", tuple.Tuple{[]byte{0x03, 130, 6}}.Pack(), []Type{TypeN}},
		{"number trailing zeros", tuple.Tuple{[]byte{0x03, 130, 11, 1}}.Pack(), []Type{TypeN}},
		{"negative without terminator", tuple.Tuple{[]byte{0x01, 125, 90}}.Pack(), []Type{TypeN}},
		{"too many digits", tuple.Tuple{append([]byte{0x03, 130}, slices.Repeat([]byte{12}, 20)...)}.Pack(), []Type{TypeN}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := unpackKeyValues(tc.key, tc.types...)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("unpackKeyValues(%x) = %v, %v; want ErrCorrupt", tc.key, vs, err)
			}
		})
	}
}

func FuzzDecodeKey(f *testing.F) {
	for _, vs := range [][]Value{
		{S("user#1")}, {B([]byte{0, 0xff})}, {N("0")}, {N("-1.5")}, {N("1E-130")},
		{N("9.9999999999999999999999999999999999999E+125")}, {S("a"), N("42")}, {B([]byte{1}), S("\x00")},
	} {
		k, err := packKeyValues(vs...)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(k, uint8(0))
	}
	f.Fuzz(func(t *testing.T, key []byte, typeBits uint8) {
		// typeBits picks the schema: up to two elements of S, N or B.
		all := []Type{TypeS, TypeN, TypeB}
		types := []Type{all[int(typeBits)%3]}
		if typeBits&0x80 != 0 {
			types = append(types, all[int(typeBits>>2)%3])
		}
		vs, err := unpackKeyValues(key, types...)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		// What decodes re-encodes to the same key.
		again, err := packKeyValues(vs...)
		if err != nil {
			t.Fatalf("packKeyValues(%v): %v", vs, err)
		}
		if !bytes.Equal(again, key) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", key, again)
		}
	})
}

// packKeyValues builds tuple bytes directly; the tuple layer is its
// oracle.
func TestPackKeyValuesMatchesTuple(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3).Draw(t, "n")
		values := make([]Value, n)
		want := make(tuple.Tuple, n)
		for i := range values {
			switch rapid.IntRange(0, 2).Draw(t, "type") {
			case 0:
				values[i] = S(rapid.StringOf(rapid.RuneFrom([]rune{0, 'a', 0xff, 'é'})).Draw(t, "s"))
			case 1:
				values[i] = B(rapid.SliceOf(rapid.Byte()).Draw(t, "b"))
			case 2:
				values[i] = NInt(rapid.Int64().Draw(t, "n"))
				if rapid.Bool().Draw(t, "tiny") {
					values[i] = N(strconv.FormatInt(rapid.Int64Range(1, 99).Draw(t, "m"), 10) + "e-130")
				}
			}
			el, err := keyElement(values[i])
			if err != nil {
				t.Fatal(err)
			}
			want[i] = el
		}
		got, err := packKeyValues(values...)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Pack()) {
			t.Fatalf("packKeyValues(%v) = %x, tuple packs %x", values, got, want.Pack())
		}
	})
}

// TestOnlyKeysGoPacksTuples is the lint of style.md §6: keys.go is the only
// file that builds or parses keys. No other non-test file imports the
// tuple or subspace packages, and no other file using the bindings calls
// Pack, Unpack, Sub or PackWithVersionstamp.
func TestOnlyKeysGoPacksTuples(t *testing.T) {
	fset := gotoken.NewFileSet()
	for _, src := range parseSources(t, fset) {
		name, f := src.name, src.f
		if name == "keys.go" {
			continue
		}
		usesFDB := false
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if strings.HasSuffix(p, "/fdb/tuple") || strings.HasSuffix(p, "/fdb/subspace") {
				t.Errorf("%s imports %s; only keys.go builds keys", name, p)
			}
			usesFDB = usesFDB || strings.Contains(p, "foundationdb/bindings/go")
		}
		if !usesFDB {
			continue // Sub and friends are then someone else's (apd's Context.Sub)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "Pack", "Unpack", "Sub", "PackWithVersionstamp":
					t.Errorf("%s: %s calls %s; only keys.go builds keys", fset.Position(call.Pos()), name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
