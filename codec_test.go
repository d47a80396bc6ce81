package fdyno

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"github.com/fdyno/fdyno/internal/number"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files in testdata/")

// Generators of valid items, with the edges weighted: empty strings and
// binaries, 38-digit and extreme numbers, deep nesting, every type.

func nameGen() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"pk", "sk", "a", "b", "name", "tags", "é", "a.b", "#x"}),
		rapid.StringN(1, 12, -1),
	)
}

func canonicalNumberGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		c, err := number.Canonical(numberGen().Draw(t, "n"))
		if err != nil {
			t.Fatalf("numberGen: %v", err)
		}
		return c
	})
}

func valueGen(depth int) *rapid.Generator[Value] {
	return rapid.Custom(func(t *rapid.T) Value {
		max := 10
		if depth >= MaxNestingDepth {
			max = 7 // scalars and sets only
		}
		switch rapid.IntRange(0, max).Draw(t, "type") {
		case 0:
			return S(rapid.String().Draw(t, "s"))
		case 1:
			return N(canonicalNumberGen().Draw(t, "n"))
		case 2:
			return B(rapid.SliceOf(rapid.Byte()).Draw(t, "b"))
		case 3:
			return Bool(rapid.Bool().Draw(t, "bool"))
		case 4:
			return Null()
		case 5:
			return SS(rapid.SliceOfNDistinct(rapid.String(), 1, 5, rapid.ID).Draw(t, "ss")...)
		case 6:
			members := rapid.SliceOfNDistinct(canonicalNumberGen(), 1, 5, rapid.ID).Draw(t, "ns")
			return NS(members...)
		case 7:
			bs := rapid.SliceOfNDistinct(rapid.String(), 1, 5, rapid.ID).Draw(t, "bs")
			members := make([][]byte, len(bs))
			for i, b := range bs {
				members[i] = []byte(b)
			}
			return BS(members...)
		case 8:
			// A deep chain now and then, to reach the depth limit.
			if rapid.IntRange(0, 20).Draw(t, "deep") == 0 {
				n := rapid.IntRange(0, MaxNestingDepth-depth).Draw(t, "wrappers")
				return nest(S("deep"), n)
			}
			return M(mapGen(depth+1, 3).Draw(t, "m"))
		default:
			n := rapid.IntRange(0, 3).Draw(t, "len")
			list := make([]Value, n)
			for i := range list {
				list[i] = valueGen(depth+1).Draw(t, "elem")
			}
			return L(list...)
		}
	})
}

// mapGen generates the contents of a map whose values sit at level depth.
func mapGen(depth, maxLen int) *rapid.Generator[Item] {
	return rapid.Custom(func(t *rapid.T) Item {
		names := rapid.SliceOfNDistinct(nameGen(), 0, maxLen, rapid.ID).Draw(t, "names")
		it := make(Item, len(names))
		for _, n := range names {
			it[n] = valueGen(depth).Draw(t, "value")
		}
		return it
	})
}

func itemGen() *rapid.Generator[Item] { return mapGen(1, 8) }

func TestCodecRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		it := itemGen().Draw(t, "item")
		if err := it.Validate(); err != nil {
			t.Fatalf("generated an invalid item: %v", err)
		}
		enc, err := EncodeItem(it)
		if err != nil {
			t.Fatalf("EncodeItem: %v", err)
		}
		dec, err := DecodeItem(enc)
		if err != nil {
			t.Fatalf("DecodeItem: %v", err)
		}
		if diff := cmp.Diff(it, dec); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
		again, err := EncodeItem(dec)
		if err != nil || !bytes.Equal(enc, again) {
			t.Fatalf("re-encoding differs: %x vs %x (%v)", enc, again, err)
		}
		if got, _ := AppendItem([]byte("prefix"), it); !bytes.Equal(got[6:], enc) || string(got[:6]) != "prefix" {
			t.Fatalf("AppendItem does not append the encoding")
		}
	})
}

// rebuild returns a deep copy of it whose maps are filled in an order drawn
// by rapid, and whose sets are rebuilt from shuffled members.
func rebuild(t *rapid.T, it Item) Item {
	names := slices.Sorted(maps.Keys(it))
	names = rapid.Permutation(names).Draw(t, "order")
	out := make(Item, len(names))
	for _, n := range names {
		out[n] = rebuildValue(t, it[n])
	}
	return out
}

func rebuildValue(t *rapid.T, v Value) Value {
	switch v.Type() {
	case TypeM:
		return M(rebuild(t, v.M()))
	case TypeL:
		list := make([]Value, len(v.L()))
		for i, e := range v.L() {
			list[i] = rebuildValue(t, e)
		}
		return L(list...)
	case TypeSS:
		return SS(rapid.Permutation(v.SS()).Draw(t, "ss")...)
	case TypeNS:
		members := rapid.Permutation(v.NS()).Draw(t, "ns")
		for i, m := range members {
			// Non-canonical spellings of the same number.
			if rapid.Bool().Draw(t, "respell") {
				members[i] = m + "e0"
			}
		}
		return NS(members...)
	case TypeBS:
		return BS(rapid.Permutation(v.BS()).Draw(t, "bs")...)
	}
	return v
}

func TestCodecDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		it := itemGen().Draw(t, "item")
		a, err := EncodeItem(it)
		if err != nil {
			t.Fatal(err)
		}
		b, err := EncodeItem(rebuild(t, it))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("same item, different bytes:\n%x\n%x", a, b)
		}
	})
}

// goldenItems freezes the format: any change to these bytes is a format
// change and needs a new version byte.
var goldenItems = []struct {
	name string
	item Item
}{
	{"empty", Item{}},
	{"string", Item{"pk": S("hello")}},
	{"empty string and binary", Item{"s": S(""), "b": B(nil)}},
	{"numbers", Item{"i": NInt(-42), "f": N("3.14"), "big": N("9.9999999999999999999999999999999999999E+125"), "small": N("1E-130"), "zero": N("-0")}},
	{"binary", Item{"b": B([]byte{0, 1, 0xfe, 0xff})}},
	{"bool and null", Item{"t": Bool(true), "f": Bool(false), "n": Null()}},
	{"sets", Item{"ss": SS("b", "a", ""), "ns": NS("10", "9", "-1.5", "0"), "bs": BS([]byte{2}, []byte{1, 0})}},
	{"nested", Item{"m": M(Item{"z": L(N("1"), M(Item{}), L()), "a": Null()})}},
	{"long string", Item{"s": S(strings.Repeat("x", 200))}},
	{"unicode names", Item{"é": S("ü"), "日本": N("1")}},
	{"typical", typicalItem(0)},
}

const goldenFile = "testdata/codec_golden.txt"

func TestCodecGolden(t *testing.T) {
	var out strings.Builder
	out.WriteString("# Item codec golden vectors (format version 1): name, the item in DynamoDB JSON, the encoding in hex.\n")
	out.WriteString("# Regenerate with: go test -run TestCodecGolden -update\n")
	for _, g := range goldenItems {
		enc, err := EncodeItem(g.item)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		fmt.Fprintf(&out, "\n%s\n%s\n%s\n", g.name, g.item.String(), hex.EncodeToString(enc))
	}
	if *updateGolden {
		if err := os.WriteFile(goldenFile, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("encoding changed (-golden +now); a format change needs a new version byte:\n%s", diff)
	}
	// And every golden encoding decodes back to its item.
	for i, hexEnc := range goldenHex(t, want) {
		enc, _ := hex.DecodeString(hexEnc)
		dec, err := DecodeItem(enc)
		if err != nil {
			t.Fatalf("%s: DecodeItem: %v", goldenItems[i].name, err)
		}
		if diff := cmp.Diff(goldenItems[i].item, dec); diff != "" {
			t.Errorf("%s: decode mismatch (-want +got):\n%s", goldenItems[i].name, diff)
		}
	}
}

// goldenHex returns the hex lines of the golden file: every third line of
// each blank-line-separated record.
func goldenHex(t *testing.T, data []byte) []string {
	var hexes []string
	var record []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	flush := func() {
		if len(record) == 3 {
			hexes = append(hexes, record[2])
		}
		record = nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
		case line == "":
			flush()
		default:
			record = append(record, line)
		}
	}
	flush()
	if len(hexes) != len(goldenItems) {
		t.Fatalf("golden file has %d records, want %d", len(hexes), len(goldenItems))
	}
	return hexes
}

func TestDecodeCorrupt(t *testing.T) {
	valid, err := EncodeItem(Item{"a": L(S("x"), N("1")), "b": SS("p", "q")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"unknown version", []byte{2, 0}},
		{"no count", []byte{1}},
		{"trailing bytes", []byte{1, 0, 0}},
		{"hostile map count", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"hostile list count", []byte{1, 1, 1, 'a', tagL, 0xff, 0xff, 0xff, 0x7f}},
		{"hostile set count", []byte{1, 1, 1, 'a', tagSS, 0xff, 0xff, 0xff, 0x7f}},
		{"hostile string length", []byte{1, 1, 1, 'a', tagS, 0xff, 0xff, 0xff, 0x7f}},
		{"varint too long", []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"varint not shortest", []byte{1, 0x80, 0x00}},
		{"unknown tag", []byte{1, 1, 1, 'a', 0x0c}},
		{"tag zero", []byte{1, 1, 1, 'a', 0x00}},
		{"empty top-level name", []byte{1, 1, 0, tagNULL}},
		{"names out of order", []byte{1, 2, 1, 'b', tagNULL, 1, 'a', tagNULL}},
		{"duplicate names", []byte{1, 2, 1, 'a', tagNULL, 1, 'a', tagNULL}},
		{"non-canonical number", []byte{1, 1, 1, 'a', tagN, 2, '0', '1'}},
		{"negative zero", []byte{1, 1, 1, 'a', tagN, 2, '-', '0'}},
		{"number with exponent", []byte{1, 1, 1, 'a', tagN, 3, '1', 'e', '3'}},
		{"empty set", []byte{1, 1, 1, 'a', tagSS, 0}},
		{"set out of order", []byte{1, 1, 1, 'a', tagSS, 2, 1, 'b', 1, 'a'}},
		{"set duplicate", []byte{1, 1, 1, 'a', tagBS, 2, 1, 'a', 1, 'a'}},
		{"number set out of order", []byte{1, 1, 1, 'a', tagNS, 2, 2, '1', '0', 1, '9'}},
		{"truncated", valid[:len(valid)-1]},
		{"too deep", func() []byte {
			b := []byte{1, 1, 1, 'a'}
			for range MaxNestingDepth {
				b = append(b, tagL, 1)
			}
			return append(b, tagNULL)
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it, err := DecodeItem(tc.data)
			var ce *CorruptError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("DecodeItem(%x) = %v, %v; want a *CorruptError", tc.data, it, err)
			}
			if !strings.HasPrefix(err.Error(), "fdyno: corrupt item") {
				t.Errorf("error %q lacks the fdyno: prefix", err)
			}
		})
	}
	// Every truncation of a valid encoding is an error, never a panic.
	for i := range valid {
		if _, err := DecodeItem(valid[:i]); err == nil {
			t.Errorf("DecodeItem of %d-byte prefix succeeded", i)
		}
	}
}

// A hostile count must not make the decoder allocate for elements that the
// input cannot hold.
func TestDecodeHostileCountAllocations(t *testing.T) {
	data := append([]byte{1, 1, 1, 'a', tagL, 0xff, 0xff, 0xff, 0x7f}, make([]byte, 64)...)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := DecodeItem(data); err == nil {
			t.Fatal("hostile input decoded")
		}
	})
	if allocs > 8 {
		t.Errorf("DecodeItem of hostile input: %v allocations", allocs)
	}
}

// Decoding allocates per attribute, not per byte: a 100 KB item of a few
// attributes decodes in a handful of allocations.
func TestDecodeAllocationsPerAttribute(t *testing.T) {
	it := Item{"pk": S("k"), "blob": S(strings.Repeat("x", 100<<10)), "n": N("1.5")}
	enc, err := EncodeItem(it)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := DecodeItem(enc); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 4 {
		t.Errorf("DecodeItem: %v allocations for 3 attributes", allocs)
	}
}

func FuzzDecode(f *testing.F) {
	for _, g := range goldenItems {
		enc, err := EncodeItem(g.item)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := DecodeItem(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("DecodeItem error %v is not ErrCorrupt", err)
			}
			return
		}
		// Whatever decodes is a valid item that re-encodes to the input.
		if err := it.Validate(); err != nil {
			t.Fatalf("decoded an invalid item: %v", err)
		}
		enc, err := EncodeItem(it)
		if err != nil {
			t.Fatalf("EncodeItem of decoded item: %v", err)
		}
		if !bytes.Equal(enc, data) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", data, enc)
		}
	})
}

// TestFuzzCorpusPresent keeps the checked-in seed corpora from vanishing.
func TestFuzzCorpusPresent(t *testing.T) {
	for _, target := range []string{"FuzzDecode", "FuzzDecodeKey", "internal/number/testdata/fuzz/FuzzParseNumber"} {
		dir := filepath.Join("testdata", "fuzz", target)
		if strings.Contains(target, "/") {
			dir = target
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		if len(files) == 0 {
			t.Errorf("no seed corpus in %s", dir)
		}
	}
}

// Maps larger than smallMap take the heap-scratch path of the encoder,
// including a large map nested in a large map.
func TestCodecLargeMaps(t *testing.T) {
	build := func(n int, reverse bool) Item {
		it := make(Item, n)
		for i := range n {
			j := i
			if reverse {
				j = n - 1 - i
			}
			name := fmt.Sprintf("attr%03d", j)
			if j%10 == 0 {
				inner := make(Item, 40)
				for k := range 40 {
					inner[fmt.Sprintf("k%02d", (k*7)%40)] = NInt(int64(k))
				}
				it[name] = M(inner)
			} else {
				it[name] = S(name)
			}
		}
		return it
	}
	for _, n := range []int{smallMap - 1, smallMap, smallMap + 1, 100, 1000} {
		a, err := EncodeItem(build(n, false))
		if err != nil {
			t.Fatal(err)
		}
		b, err := EncodeItem(build(n, true))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("n=%d: insertion order changed the encoding", n)
		}
		dec, err := DecodeItem(a)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if diff := cmp.Diff(build(n, false), dec); diff != "" {
			t.Fatalf("n=%d: round trip mismatch (-want +got):\n%s", n, diff)
		}
	}
}
