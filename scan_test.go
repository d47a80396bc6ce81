package fdyno

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestScan checks Scan against DynamoDB's Scan documentation: every item
// once, in key order here; filters (which may name key attributes) after
// Limit; projections; COUNT; pages.
func TestScan(t *testing.T) {
	db, tbl := openTestTable(t, hashRange, WithChunkThreshold(100))
	var keys []string
	for _, pk := range []string{"b", "a", "c"} {
		for i := range 4 {
			it := Item{"pk": S(pk), "sk": NInt(int64(i)), "f": NInt(int64(i % 2))}
			if i == 3 {
				it["pad"] = S(strings.Repeat("x", 500)) // chunked
			}
			mustPut(t, db, tbl, it)
		}
	}
	for _, pk := range []string{"a", "b", "c"} {
		for i := range 4 {
			keys = append(keys, pk+strconv.Itoa(i))
		}
	}
	keyOfItem := func(it Item) string { return it["pk"].S() + it["sk"].N() }
	scanAll := func(in ScanInput) (got []string, scanned int) {
		for {
			out, err := tbl.Scan(db, in)
			if err != nil {
				t.Fatalf("Scan: %v", err)
			}
			for _, it := range out.Items {
				got = append(got, keyOfItem(it))
			}
			scanned += out.ScannedCount
			if out.Cursor == nil {
				return got, scanned
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	t.Run("all", func(t *testing.T) {
		got, scanned := scanAll(ScanInput{})
		if diff := cmp.Diff(keys, got); diff != "" {
			t.Errorf("Scan() mismatch (-want +got):\n%s", diff)
		}
		if scanned != 12 {
			t.Errorf("ScannedCount = %d, want 12", scanned)
		}
	})
	t.Run("pages of 5", func(t *testing.T) {
		got, _ := scanAll(ScanInput{Limit: 5})
		if diff := cmp.Diff(keys, got); diff != "" {
			t.Errorf("Scan() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("filter on key", func(t *testing.T) {
		got, scanned := scanAll(ScanInput{Limit: 5, FilterExpression: "pk = :a AND f = :one",
			ExpressionAttributeValues: map[string]Value{":a": S("a"), ":one": N("1")}})
		if diff := cmp.Diff([]string{"a1", "a3"}, got); diff != "" {
			t.Errorf("Scan() mismatch (-want +got):\n%s", diff)
		}
		if scanned != 12 {
			t.Errorf("ScannedCount = %d, want 12", scanned)
		}
	})
	t.Run("projection and count", func(t *testing.T) {
		out, err := tbl.Scan(db, ScanInput{ProjectionExpression: "f", Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]Item{{"f": N("0")}}, out.Items, itemCmp); diff != "" {
			t.Errorf("Scan() mismatch (-want +got):\n%s", diff)
		}
		out, err = tbl.Scan(db, ScanInput{Select: SelectCount})
		if err != nil {
			t.Fatal(err)
		}
		if out.Count != 12 || out.Items != nil {
			t.Errorf("COUNT = %d, %v; want 12, no items", out.Count, out.Items)
		}
	})
	t.Run("ScanAll", func(t *testing.T) {
		var got []string
		for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{Limit: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, keyOfItem(it))
		}
		if diff := cmp.Diff(keys, got); diff != "" {
			t.Errorf("ScanAll() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("parallel", func(t *testing.T) {
		for _, total := range []int{1, 2, 3, 7, 1000, MaxTotalSegments} {
			var got []string
			segs := []int{0, total - 1}
			if total <= 1000 {
				segs = segs[:0]
				for s := range total {
					segs = append(segs, s)
				}
			}
			for _, seg := range segs {
				for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{Segment: seg, TotalSegments: total, Limit: 3}) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, keyOfItem(it))
				}
			}
			if total > 1000 {
				continue
			}
			sort.Strings(got)
			if diff := cmp.Diff(keys, got); diff != "" {
				t.Errorf("TotalSegments=%d: union of segments mismatch (-want +got):\n%s", total, diff)
			}
		}
	})
}

// TestScanValidation checks Scan's ValidationExceptions (API_Scan).
func TestScanValidation(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	mustPut(t, db, tbl, Item{"pk": S("a")})
	mustPut(t, db, tbl, Item{"pk": S("z")})
	first, err := tbl.Scan(db, ScanInput{Segment: 0, TotalSegments: 2, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   ScanInput
		want string
	}{
		{"segment without total", ScanInput{Segment: 1}, "TotalSegments parameter is required"},
		{"segment too large", ScanInput{Segment: 2, TotalSegments: 2}, "must be less than parameter TotalSegments"},
		{"total too large", ScanInput{TotalSegments: MaxTotalSegments + 1}, "totalSegments"},
		{"negative segment", ScanInput{Segment: -1, TotalSegments: 2}, "segment"},
		{"negative limit", ScanInput{Limit: -2}, "limit"},
		{"index", ScanInput{IndexName: "byX"}, "does not have the specified index"},
		{"names without expression", ScanInput{ExpressionAttributeNames: map[string]string{"#a": "a"}}, "ExpressionAttributeNames can only be specified"},
		{"unused value", ScanInput{FilterExpression: "a = :a", ExpressionAttributeValues: map[string]Value{":a": N("1"), ":b": N("2")}}, "unused"},
		{"start key of other segment", ScanInput{Segment: 1, TotalSegments: 2, ExclusiveStartKey: first.LastEvaluatedKey}, "does not map to the provided Segment"},
		{"cursor of other segment", ScanInput{Segment: 1, TotalSegments: 2, Cursor: first.Cursor}, "cursor is invalid"},
		{"start key of other schema", ScanInput{ExclusiveStartKey: Item{"pk": S("a"), "sk": N("1")}}, "starting key is invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tbl.Scan(db, tc.in)
			if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Scan() error = %v, want ErrValidation containing %q", err, tc.want)
			}
		})
	}
}

// TestSegmentRangesPartition checks that the segments of a parallel scan
// are disjoint, non-empty and cover the whole item subspace, and that
// every key falls in exactly one of them.
func TestSegmentRangesPartition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := rapid.SampledFrom([]Type{TypeS, TypeN, TypeB}).Draw(t, "type")
		total := rapid.OneOf(rapid.IntRange(1, 300), rapid.IntRange(1, MaxTotalSegments)).Draw(t, "total")
		check := func(seg int) ([]byte, []byte) {
			lo, hi := segmentRange(typ, seg, total)
			if string(lo) >= string(hi) {
				t.Fatalf("segment %d/%d is empty: [%x, %x)", seg, total, lo, hi)
			}
			return lo, hi
		}
		if total <= 300 {
			prevHi := []byte{}
			for seg := range total {
				lo, hi := check(seg)
				if string(lo) != string(prevHi) {
					t.Fatalf("segment %d/%d starts at %x, previous ended at %x", seg, total, lo, prevHi)
				}
				prevHi = hi
			}
			if string(prevHi) != "\xff" {
				t.Fatalf("last segment ends at %x, want ff", prevHi)
			}
		}
		// Any key is in exactly the segment that a binary search finds,
		// and its neighbours do not hold it.
		var v Value
		switch typ {
		case TypeS:
			v = S(rapid.StringN(1, 4, -1).Draw(t, "s"))
		case TypeN:
			v = NInt(rapid.Int64().Draw(t, "n"))
		default:
			v = B(rapid.SliceOfN(rapid.Byte(), 1, 4).Draw(t, "b"))
		}
		k, err := packKeyValues(v)
		if err != nil {
			t.Skip(err)
		}
		seg := sort.Search(total, func(i int) bool { _, hi := segmentRange(typ, i, total); return string(k) < string(hi) })
		if seg == total {
			t.Fatalf("key %x is in no segment", k)
		}
		for _, s := range []int{seg - 1, seg, seg + 1} {
			if s < 0 || s >= total {
				continue
			}
			lo, hi := check(s)
			if inRange(k, lo, hi) != (s == seg) {
				t.Fatalf("key %x: in segment %d = %v", k, s, !(s == seg))
			}
		}
	})
}

// TestParallelScanModel checks that the segments of a parallel scan,
// each walked page by page, return every item of the table exactly once,
// for random binary partition keys (which spread over the key bytes) and
// random segment counts and limits.
func TestParallelScanModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	schema := TableSchema{
		KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}},
		AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeB}},
	}
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		tbl, err := Open(db, "Scan"+strconv.Itoa(n), root, WithSchema(schema))
		if err != nil {
			rt.Fatal(err)
		}
		want := map[string]bool{}
		for _, k := range rapid.SliceOfN(rapid.SliceOfN(rapid.Byte(), 1, 4), 0, 30).Draw(rt, "keys") {
			if _, err := tbl.Put(db, PutInput{Item: Item{"pk": B(k)}}); err != nil {
				rt.Fatal(err)
			}
			want[string(k)] = true
		}
		total := rapid.OneOf(rapid.IntRange(1, 20), rapid.IntRange(1, 300)).Draw(rt, "total")
		limit := rapid.IntRange(0, 4).Draw(rt, "limit")
		got := map[string]int{}
		for seg := range total {
			for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{Segment: seg, TotalSegments: total, Limit: limit}) {
				if err != nil {
					rt.Fatal(err)
				}
				got[string(it["pk"].B())]++
			}
		}
		for k, c := range got {
			if c != 1 || !want[k] {
				rt.Fatalf("key %x read %d times (stored: %v)", k, c, want[k])
			}
		}
		if len(got) != len(want) {
			rt.Fatalf("read %d items, stored %d", len(got), len(want))
		}
	})
}
