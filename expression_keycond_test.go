package fdyno

import (
	"github.com/fdyno/fdyno/internal/expr"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var (
	keyHash    = keyAttr{Name: "pk", Type: TypeS}
	keyRangeN  = keyAttr{Name: "sk", Type: TypeN}
	keyRangeS  = keyAttr{Name: "sk", Type: TypeS}
	keyCondEAV = map[string]Value{":p": S("p"), ":n": N("1"), ":m": N("2"), ":s": S("x"), ":b": B([]byte{0, 0xff})}
	keyCondEAN = map[string]string{"#p": "pk", "#k": "sk"}
)

// TestParseKeyCondition checks that both operand orders, parentheses and
// placeholders normalize to the same key condition.
func TestParseKeyCondition(t *testing.T) {
	tests := []struct {
		expr string
		rng  keyAttr
		want string
	}{
		{"pk = :p", keyRangeN, `hash = {"S":"p"}`},
		{":p = #p", keyRangeN, `hash = {"S":"p"}`},
		{"pk = :p AND sk = :n", keyRangeN, `hash = {"S":"p"} AND range = {"N":"1"}`},
		{"#k > :n AND :p = pk", keyRangeN, `hash = {"S":"p"} AND range > {"N":"1"}`},
		{":n > #k AND pk = :p", keyRangeN, `hash = {"S":"p"} AND range < {"N":"1"}`},
		{":n <= sk AND pk = :p", keyRangeN, `hash = {"S":"p"} AND range >= {"N":"1"}`},
		{":n >= sk AND pk = :p", keyRangeN, `hash = {"S":"p"} AND range <= {"N":"1"}`},
		{"(pk = :p) AND (sk BETWEEN :n AND :m)", keyRangeN, `hash = {"S":"p"} AND range BETWEEN {"N":"1"} AND {"N":"2"}`},
		{"pk = :p and begins_with(#k, :s)", keyRangeS, `hash = {"S":"p"} AND begins_with(range, {"S":"x"})`},
		// One pair of parentheses around an operand.
		{"(pk) = :p AND (sk) BETWEEN :n AND (:m)", keyRangeN, `hash = {"S":"p"} AND range BETWEEN {"N":"1"} AND {"N":"2"}`},
		{"((pk) = :p) AND :n < (#k)", keyRangeN, `hash = {"S":"p"} AND range > {"N":"1"}`},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			c, err := newExprContext(keyCondEAN, keyCondEAV)
			if err != nil {
				t.Fatal(err)
			}
			kc, err := parseKeyCondition(c, tc.expr, []keyAttr{keyHash}, []keyAttr{tc.rng})
			if err != nil {
				t.Fatalf("parseKeyCondition(%q): %v", tc.expr, err)
			}
			if diff := cmp.Diff(tc.want, keyConditionString(kc)); diff != "" {
				t.Errorf("parseKeyCondition(%q) mismatch (-want +got):\n%s", tc.expr, diff)
			}
		})
	}
}

// sortValueGen draws sort key values of type typ from a small alphabet
// rich in the bytes the tuple encoding escapes (0x00) or that end ranges
// (0xff).
func sortValueGen(typ Type) *rapid.Generator[Value] {
	return rapid.Custom(func(t *rapid.T) Value {
		switch typ {
		case TypeN:
			i := rapid.IntRange(-6, 6).Draw(t, "int")
			if rapid.Bool().Draw(t, "frac") {
				return N(strconv.Itoa(i) + ".5")
			}
			return NInt(int64(i))
		case TypeB:
			b := rapid.SliceOfN(rapid.SampledFrom([]byte{0x00, 0x01, 'a', 0xfe, 0xff}), 1, 3).Draw(t, "b")
			return B(b)
		}
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{"\x00", "a", "b", "é"}), 1, 3).Draw(t, "s")
		return S(strings.Join(parts, ""))
	})
}

// modelKeyCond is the meaning of a key condition on a sort value: the
// oracle of TestKeyConditionRange and the Query model tests.
func modelKeyCond(kc *keyCondition, v Value) bool {
	c, _ := compareScalars(v, kc.Lo)
	switch kc.Op {
	case expr.SortNone:
		return true
	case expr.SortEq:
		return c == 0
	case expr.SortLt:
		return c < 0
	case expr.SortLe:
		return c <= 0
	case expr.SortGt:
		return c > 0
	case expr.SortGe:
		return c >= 0
	case expr.SortBetween:
		d, _ := compareScalars(v, kc.Hi)
		return c >= 0 && d <= 0
	case expr.SortBeginsWith:
		return strings.HasPrefix(v.s, kc.Lo.s)
	}
	panic("unknown op " + kc.Op)
}

// keyCondGen draws a key condition with hash "p" on a sort key of type typ.
func keyCondGen(typ Type) *rapid.Generator[*keyCondition] {
	return rapid.Custom(func(t *rapid.T) *keyCondition {
		ops := []string{expr.SortNone, expr.SortEq, expr.SortLt, expr.SortLe, expr.SortGt, expr.SortGe, expr.SortBetween}
		if typ != TypeN {
			ops = append(ops, expr.SortBeginsWith)
		}
		kc := &keyCondition{Hash: []Value{S("p")}, Op: rapid.SampledFrom(ops).Draw(t, "op")}
		if kc.Op != expr.SortNone {
			kc.Lo = sortValueGen(typ).Draw(t, "lo")
		}
		if kc.Op == expr.SortBetween {
			kc.Hi = sortValueGen(typ).Draw(t, "hi")
			if c, _ := compareScalars(kc.Lo, kc.Hi); c > 0 {
				kc.Lo, kc.Hi = kc.Hi, kc.Lo
			}
		}
		return kc
	})
}

// TestKeyConditionRange checks kvRange against brute force: a packed key
// is in the range exactly when its hash is the condition's and its sort
// value satisfies the condition, for neighbouring hashes ("p\x00", "pa",
// "o", "q") and sort values full of escaped bytes.
func TestKeyConditionRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := rapid.SampledFrom([]Type{TypeS, TypeB, TypeN}).Draw(t, "type")
		kc := keyCondGen(typ).Draw(t, "kc")
		lo, hi, err := kvRange(kc, true)
		if err != nil {
			t.Fatalf("kvRange(%s): %v", keyConditionString(kc), err)
		}
		for i, v := range rapid.SliceOfN(sortValueGen(typ), 1, 30).Draw(t, "values") {
			for _, h := range []string{"p", "p\x00", "pa", "o", "q"} {
				k, err := packKeyValues(S(h), v)
				if err != nil {
					t.Fatal(err)
				}
				want := h == "p" && modelKeyCond(kc, v)
				if got := inRange(k, lo, hi); got != want {
					t.Fatalf("value %d: %s in range of %s = %v, want %v (range [%x, %x), key %x)", i, v, kc, got, want, lo, hi, k)
				}
			}
		}
		// Without a sort key the range is the one key.
		lo, hi, _ = kvRange(&keyCondition{Hash: kc.Hash}, false)
		k, _ := packKeyValues(S("p"))
		k2, _ := packKeyValues(S("p\x00"))
		if !inRange(k, lo, hi) || inRange(k2, lo, hi) {
			t.Fatalf("hash-only range [%x, %x) is wrong", lo, hi)
		}
	})
}

// FuzzParseKeyCondition checks that the parser never panics and that
// every condition it accepts has a well-formed key range inside its
// partition, and prints to a condition that parses the same.
func FuzzParseKeyCondition(f *testing.F) {
	for _, s := range []string{"pk = :p", ":p = pk AND sk < :n", "pk = :p AND sk BETWEEN :n AND :m", "pk = :p AND begins_with(sk, :s)",
		"(#p = :p) AND (#k >= :n)", "pk = :p OR sk = :n", "NOT pk = :p", "pk IN (:p)", "sk = :n", "pk = :p AND sk = pk", "pk = :p AND size(sk) > :n"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, expr string, stringSort bool) {
		rng := keyRangeN
		if stringSort {
			rng = keyRangeS
		}
		c, err := newExprContext(keyCondEAN, keyCondEAV)
		if err != nil {
			t.Fatal(err)
		}
		kc, err := parseKeyCondition(c, expr, []keyAttr{keyHash}, []keyAttr{rng})
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("parseKeyCondition(%q) error %T %v, want *ValidationError", expr, err, err)
			}
			return
		}
		lo, hi, err := kvRange(kc, true)
		if err != nil {
			t.Fatalf("kvRange(%s): %v", keyConditionString(kc), err)
		}
		p, _ := packKeyValues(kc.Hash...)
		if string(lo) > string(hi) || !strings.HasPrefix(string(lo), string(p)) || string(hi) > string(p)+"\xff" {
			t.Fatalf("%q: range [%x, %x) outside partition %x", expr, lo, hi, p)
		}
	})
}
