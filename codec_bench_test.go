package fdyno

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// typicalItem returns a deterministic item of mixed types with a nested
// map and a list, about 1 KB in the codec. With history > 0 it appends a
// list of that many event maps and a 70 KB binary, for the 100 KB case.
func typicalItem(history int) Item {
	it := Item{
		"pk":        S("USER#8d5c2a1e-7b4f-4f3a-9d2e-1c6b5a4f3e2d"),
		"sk":        S("PROFILE#2024-06-01T12:00:00Z"),
		"name":      S("Ada Lovelace"),
		"email":     S("ada.lovelace@example.com"),
		"age":       NInt(36),
		"balance":   N("12345.6789"),
		"score":     N("0.000125"),
		"visits":    NInt(1_234_567_890),
		"verified":  Bool(true),
		"suspended": Bool(false),
		"deletedAt": Null(),
		"avatar":    B([]byte(strings.Repeat("\x89PNG\r\n\x1a\n", 16))),
		"bio":       S(strings.Repeat("Mathematician and writer, chiefly known for work on the Analytical Engine. ", 4)),
		"address": M(Item{
			"street":  S("12 St James's Square"),
			"city":    S("London"),
			"zip":     S("SW1Y 4JH"),
			"country": S("GB"),
			"geo":     M(Item{"lat": N("51.5072"), "lon": N("-0.1344")}),
		}),
		"tags":  SS("admin", "beta", "math", "poetry", "engine"),
		"lucky": NS("3", "7", "13", "42", "1.5"),
		"keys":  BS([]byte{1, 2, 3}, []byte{4, 5, 6}),
		"orders": L(
			M(Item{"id": S("o-1001"), "total": N("99.95"), "items": NInt(3), "shipped": Bool(true)}),
			M(Item{"id": S("o-1002"), "total": N("12.5"), "items": NInt(1), "shipped": Bool(false)}),
			M(Item{"id": S("o-1003"), "total": N("250"), "items": NInt(7), "shipped": Bool(true)}),
		),
		"prefs": M(Item{"theme": S("dark"), "lang": S("en-GB"), "notify": Bool(true), "limits": L(NInt(10), NInt(20), NInt(30))}),
	}
	if history > 0 {
		events := make([]Value, history)
		for i := range events {
			events[i] = M(Item{
				"ts":     NInt(1_700_000_000 + int64(i)*37),
				"kind":   S([]string{"login", "purchase", "logout", "view"}[i%4]),
				"detail": S(fmt.Sprintf("event %d: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 8))),
				"amount": N(strconv.Itoa(i*7) + ".25"),
				"ok":     Bool(i%3 != 0),
			})
		}
		it["history"] = L(events...)
		blob := make([]byte, 70<<10)
		for i := range blob {
			blob[i] = byte(i * 31)
		}
		it["blob"] = B(blob)
	}
	return it
}

// ddbJSON is an attribute value in DynamoDB's JSON wire form, shaped so that
// encoding/json handles it natively (as the AWS SDKs' types are).
type ddbJSON struct {
	S    *string              `json:"S,omitempty"`
	N    *string              `json:"N,omitempty"`
	B    *[]byte              `json:"B,omitempty"`
	BOOL *bool                `json:"BOOL,omitempty"`
	NULL *bool                `json:"NULL,omitempty"`
	M    *map[string]*ddbJSON `json:"M,omitempty"`
	L    *[]*ddbJSON          `json:"L,omitempty"`
	SS   []string             `json:"SS,omitempty"`
	NS   []string             `json:"NS,omitempty"`
	BS   [][]byte             `json:"BS,omitempty"`
}

func toDDBJSON(it Item) map[string]*ddbJSON {
	out := make(map[string]*ddbJSON, len(it))
	for k, v := range it {
		out[k] = valueToDDBJSON(v)
	}
	return out
}

func valueToDDBJSON(v Value) *ddbJSON {
	var j ddbJSON
	switch v.Type() {
	case TypeS:
		s := v.S()
		j.S = &s
	case TypeN:
		s := v.N()
		j.N = &s
	case TypeB:
		b := v.B()
		j.B = &b
	case TypeBOOL:
		b := v.Bool()
		j.BOOL = &b
	case TypeNULL:
		t := true
		j.NULL = &t
	case TypeM:
		m := toDDBJSON(v.M())
		j.M = &m
	case TypeL:
		l := make([]*ddbJSON, len(v.L()))
		for i, e := range v.L() {
			l[i] = valueToDDBJSON(e)
		}
		j.L = &l
	case TypeSS:
		j.SS = v.SS()
	case TypeNS:
		j.NS = v.NS()
	case TypeBS:
		j.BS = v.BS()
	}
	return &j
}

func fromDDBJSON(m map[string]*ddbJSON) Item {
	it := make(Item, len(m))
	for k, j := range m {
		it[k] = valueFromDDBJSON(j)
	}
	return it
}

func valueFromDDBJSON(j *ddbJSON) Value {
	switch {
	case j.S != nil:
		return S(*j.S)
	case j.N != nil:
		return N(*j.N)
	case j.B != nil:
		return B(*j.B)
	case j.BOOL != nil:
		return Bool(*j.BOOL)
	case j.NULL != nil:
		return Null()
	case j.M != nil:
		return M(fromDDBJSON(*j.M))
	case j.L != nil:
		l := make([]Value, len(*j.L))
		for i, e := range *j.L {
			l[i] = valueFromDDBJSON(e)
		}
		return L(l...)
	case j.SS != nil:
		return SS(j.SS...)
	case j.NS != nil:
		return NS(j.NS...)
	case j.BS != nil:
		return BS(j.BS...)
	}
	return Value{}
}

var benchItems = []struct {
	name string
	item Item
}{
	{"1KB", typicalItem(0)},
	{"100KB", typicalItem(100)},
}

// TestBenchItems checks that the benchmark items have the intended sizes and
// that the JSON comparison encodes the same item.
func TestBenchItems(t *testing.T) {
	for _, bi := range benchItems {
		enc, err := EncodeItem(bi.item)
		if err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(toDDBJSON(bi.item))
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]*ddbJSON
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(bi.item, fromDDBJSON(back)); diff != "" {
			t.Fatalf("%s: JSON round trip mismatch (-want +got):\n%s", bi.name, diff)
		}
		if len(enc) >= len(js) {
			t.Errorf("%s: codec %d bytes, not smaller than DynamoDB JSON %d bytes", bi.name, len(enc), len(js))
		}
		t.Logf("%s: codec %d bytes, DynamoDB JSON %d bytes, DynamoDB size %d", bi.name, len(enc), len(js), bi.item.Size())
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, bi := range benchItems {
		enc, _ := EncodeItem(bi.item)
		b.Run(bi.name+"/fdyno", func(b *testing.B) {
			benchItemBytes(b, len(enc), func() error {
				_, err := EncodeItem(bi.item)
				return err
			})
		})
		// AppendItem into a reused buffer: the same encoding without the
		// garbage of a fresh buffer per item, which dominates at 100 KB.
		b.Run(bi.name+"/fdyno-append", func(b *testing.B) {
			b.ReportAllocs()
			buf, _ := EncodeItem(bi.item)
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				var err error
				if buf, err = AppendItem(buf[:0], bi.item); err != nil {
					b.Fatal(err)
				}
			}
		})
		tree := toDDBJSON(bi.item)
		js, _ := json.Marshal(tree)
		b.Run(bi.name+"/json", func(b *testing.B) {
			benchItemBytes(b, len(js), func() error {
				_, err := json.Marshal(tree)
				return err
			})
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, bi := range benchItems {
		enc, _ := EncodeItem(bi.item)
		b.Run(bi.name+"/fdyno", func(b *testing.B) {
			benchItemBytes(b, len(enc), func() error {
				_, err := DecodeItem(enc)
				return err
			})
		})
		js, _ := json.Marshal(toDDBJSON(bi.item))
		b.Run(bi.name+"/json", func(b *testing.B) {
			benchItemBytes(b, len(js), func() error {
				var tree map[string]*ddbJSON
				return json.Unmarshal(js, &tree)
			})
		})
	}
}

// benchItemBytes runs op, which handles one item of n encoded bytes, in
// b's loop, reporting allocations, throughput and the size per item.
func benchItemBytes(b *testing.B, n int, op func() error) {
	b.ReportAllocs()
	b.SetBytes(int64(n))
	b.ReportMetric(float64(n), "bytes/item")
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
}
