package fdyno

import (
	"bytes"
	"errors"
	"github.com/fdyno/fdyno/internal/expr"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// Index cursors are bound to their index: a cursor of another index, of
// the table, or of another key condition is refused; a byte-flipped one
// is refused or resumes inside the query's own range; ExclusiveStartKeys
// must hold exactly the index and table keys.
func TestIndexCursors(t *testing.T) {
	db, tbl := openTestTable(t, indexed)
	for i := range 6 {
		mustPut(t, db, tbl, Item{"pk": S("a"), "sk": NInt(int64(i)), "g": S("x"), "h": NInt(int64(i % 2)), "l": S("m" + strconv.Itoa(i)), "k": B([]byte{1})})
	}
	byG := QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]Value{":g": S("x")}, Limit: 2}
	byL := QueryInput{IndexName: "byL", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("a")}, Limit: 2}
	table := QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("a")}, Limit: 2}
	page := func(in QueryInput) *QueryOutput {
		t.Helper()
		out, err := tbl.Query(db, in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	gOut, lOut, tOut := page(byG), page(byL), page(table)
	// LastEvaluatedKey of an index page: index keys and table keys.
	if want := (Item{"g": S("x"), "h": NInt(0), "pk": S("a"), "sk": NInt(2)}); !want.Equal(gOut.LastEvaluatedKey) {
		t.Errorf("byG LastEvaluatedKey = %v, want %v", gOut.LastEvaluatedKey, want)
	}
	if want := (Item{"pk": S("a"), "l": S("m1"), "sk": NInt(1)}); !want.Equal(lOut.LastEvaluatedKey) {
		t.Errorf("byL LastEvaluatedKey = %v, want %v", lOut.LastEvaluatedKey, want)
	}
	scanG := ScanInput{IndexName: "byG", Limit: 2}
	sOut, err := tbl.Scan(db, scanG)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		in     QueryInput
		cursor []byte
	}{
		{"byL cursor on byG", byG, lOut.Cursor},
		{"table cursor on byG", byG, tOut.Cursor},
		{"byG cursor on the table", table, gOut.Cursor},
		{"byG cursor on byL", byL, gOut.Cursor},
		{"Scan cursor on a Query", byG, sOut.Cursor},
		{"other direction", func() QueryInput { q := byG; q.ScanIndexForward = Forward(false); return q }(), gOut.Cursor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Cursor = tc.cursor
			if _, err := tbl.Query(db, in); !errors.Is(err, ErrValidation) {
				t.Fatalf("Query = %v, want ErrValidation", err)
			}
		})
	}
	for _, tc := range []struct {
		name string
		esk  Item
	}{
		{"table key only", Item{"pk": S("a"), "sk": NInt(2)}},
		{"index key only", Item{"g": S("x"), "h": NInt(0)}},
		{"extra attribute", Item{"g": S("x"), "h": NInt(0), "pk": S("a"), "sk": NInt(2), "z": S("z")}},
		{"wrong index key type", Item{"g": S("x"), "h": S("0"), "pk": S("a"), "sk": NInt(2)}},
		{"other partition", Item{"g": S("y"), "h": NInt(0), "pk": S("a"), "sk": NInt(2)}},
	} {
		t.Run("ExclusiveStartKey "+tc.name, func(t *testing.T) {
			in := byG
			in.ExclusiveStartKey = tc.esk
			if _, err := tbl.Query(db, in); !errors.Is(err, ErrValidation) {
				t.Fatalf("Query = %v, want ErrValidation", err)
			}
		})
	}
	// The LastEvaluatedKey resumes like the cursor.
	in := byG
	in.ExclusiveStartKey = gOut.LastEvaluatedKey
	byKey := page(in)
	in.ExclusiveStartKey, in.Cursor = nil, gOut.Cursor
	byCursor := page(in)
	if !byKey.LastEvaluatedKey.Equal(byCursor.LastEvaluatedKey) || len(byKey.Items) != 2 {
		t.Errorf("resume by key %v, by cursor %v", byKey.LastEvaluatedKey, byCursor.LastEvaluatedKey)
	}
	// Flipping any byte: refused, or a page of the same query.
	for i := range gOut.Cursor {
		for _, bit := range []byte{0x01, 0x80} {
			c := bytes.Clone(gOut.Cursor)
			c[i] ^= bit
			in := byG
			in.Cursor = c
			out, err := tbl.Query(db, in)
			if err != nil {
				if !errors.Is(err, ErrValidation) {
					t.Fatalf("flipped cursor: %v", err)
				}
				continue
			}
			for _, it := range out.Items {
				if !it["g"].Equal(S("x")) {
					t.Fatalf("flipped cursor read %v outside the query", it)
				}
			}
		}
	}
}

// FuzzIndexCursor: decoding untrusted bytes as a cursor of a query on a
// GSI with a sort key never panics, accepts only keys of the index inside
// the query's range, and round-trips what it accepts.
func FuzzIndexCursor(f *testing.F) {
	st := newTableState(nil, tableKeys{}, indexed)
	var seeds [][]Value
	for _, h := range []string{"1", "-3.5", "10", "11"} {
		seeds = append(seeds, []Value{S("x"), N(h), S("a"), N("2")})
	}
	fuzzIndexCursor(f, st, "byG", &keyCondition{Hash: []Value{S("x")}, Op: expr.SortLt, Lo: N("10")}, seeds)
}

// fuzzIndexCursor fuzzes the cursors of a query on index ixName with key
// condition kc: decoding untrusted bytes never panics, accepts only entry
// keys of the index inside the query's range (every index key attribute,
// then the table key: as many values as each seed has), and round-trips
// what it accepts. Each seed is an entry's key values.
func fuzzIndexCursor(f *testing.F, st *tableState, ixName string, kc *keyCondition, seeds [][]Value) {
	rows := &indexRows{st: st, ix: st.index(ixName)}
	lo, hi, err := rows.keyRange(kc)
	if err != nil {
		f.Fatal(err)
	}
	fp := newCursorFingerprint([]byte("key"), "Test", []byte("prefix"), "Query", ixName, lo, hi, true)
	for _, vs := range seeds {
		kv, err := packKeyValues(vs...)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(encodeCursor(fp, kv))
	}
	f.Add([]byte{cursorVersion})
	keyValues := len(seeds[0])
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := decodeCursorWith(b, fp, rows.keyItem, lo, hi)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("decodeCursorWith(%x) error %T, want *ValidationError", b, err)
			}
			return
		}
		if !inRange(k, lo, hi) {
			t.Fatalf("decodeCursorWith(%x) = %x, outside [%x, %x)", b, k, lo, hi)
		}
		it, err := rows.keyItem(k)
		if err != nil || len(it) != keyValues {
			t.Fatalf("decodeCursorWith(%x) = %x, not an index key: %v %v", b, k, it, err)
		}
		if got := encodeCursor(fp, k); !bytes.Equal(got, b) {
			t.Fatalf("decodeCursorWith(%x) = %x, which encodes to %x", b, k, got)
		}
	})
}

// TestIndexKeyConditionRange is TestKeyConditionRange for index entries:
// an entry key (index key values followed by a base key) lies in
// indexKeyRange exactly when its index key satisfies the condition, for
// every base key, including ones whose values hold 0x00 and 0xff bytes.
func TestIndexKeyConditionRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := rapid.SampledFrom([]Type{TypeS, TypeB, TypeN}).Draw(t, "type")
		kc := keyCondGen(typ).Draw(t, "kc")
		lo, hi, err := indexKeyRange(kc, 1)
		if err != nil {
			t.Fatalf("indexKeyRange(%s): %v", kc, err)
		}
		bases := [][]Value{{S("a")}, {S("\x00")}, {S("\xff\xff"), N("-1")}, {B([]byte{0}), N("0")}}
		for i, v := range rapid.SliceOfN(sortValueGen(typ), 1, 30).Draw(t, "values") {
			for _, h := range []string{"p", "p\x00", "pa", "o", "q"} {
				ikv, err := packKeyValues(S(h), v)
				if err != nil {
					t.Fatal(err)
				}
				for _, base := range bases {
					kv, _ := packKeyValues(base...)
					k := append(bytes.Clone(ikv), kv...)
					want := h == "p" && modelKeyCond(kc, v)
					if got := inRange(k, lo, hi); got != want {
						t.Fatalf("value %d: %s with base %v in range of %s = %v, want %v", i, v, base, kc, got, want)
					}
				}
			}
		}
		// Without a sort key: every base key of the one index key.
		lo, hi, _ = indexKeyRange(&keyCondition{Hash: kc.Hash}, 0)
		for _, base := range bases {
			kv, _ := packKeyValues(base...)
			p, _ := packKeyValues(S("p"))
			p2, _ := packKeyValues(S("p\x00"))
			if !inRange(append(p, kv...), lo, hi) || inRange(append(p2, kv...), lo, hi) {
				t.Fatalf("hash-only index range [%x, %x) is wrong", lo, hi)
			}
		}
	})
}
