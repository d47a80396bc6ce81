package fdyno

import (
	"context"
	"errors"
	"github.com/fdyno/fdyno/internal/expr"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// stringSort is a table with a string sort key, for begins_with.
var stringSort = TableSchema{
	KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeS}},
}

// sortKeys returns the sk values of items, as text.
func sortKeys(items []Item) []string {
	out := []string{}
	for _, it := range items {
		v := it["sk"]
		switch v.Type() {
		case TypeN:
			out = append(out, v.N())
		default:
			out = append(out, v.S())
		}
	}
	return out
}

// TestQuery checks Query against the Query page of DynamoDB's developer
// guide and API reference: key conditions in either operand order, sort
// order both ways, filters counted after Limit, projections and Select.
func TestQuery(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashRange)
	for i := 1; i <= 10; i++ {
		mustPut(t, db, tbl, Item{"pk": S("p"), "sk": NInt(int64(i)), "odd": Bool(i%2 == 1), "data": S(strings.Repeat("x", i))})
	}
	mustPut(t, db, tbl, Item{"pk": S("other"), "sk": N("5")})
	mustPut(t, db, tbl, Item{"pk": S("p\x00"), "sk": N("5")}) // shares a byte prefix with "p" before the terminator
	tests := []struct {
		name        string
		in          QueryInput
		want        []string
		count       int // -1: len(want)
		scanned     int // -1: len(want)
		wantLastKey bool
	}{
		{name: "hash only", in: QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: values(":p", S("p"))},
			want: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, count: -1, scanned: -1},
		{name: "swapped hash", in: QueryInput{KeyConditionExpression: ":p = pk", ExpressionAttributeValues: values(":p", S("other"))},
			want: []string{"5"}, count: -1, scanned: -1},
		{name: "eq", in: QueryInput{KeyConditionExpression: "pk = :p AND sk = :s", ExpressionAttributeValues: values(":p", S("p"), ":s", N("3.0"))},
			want: []string{"3"}, count: -1, scanned: -1},
		{name: "lt", in: QueryInput{KeyConditionExpression: "pk = :p AND sk < :s", ExpressionAttributeValues: values(":p", S("p"), ":s", N("3"))},
			want: []string{"1", "2"}, count: -1, scanned: -1},
		{name: "le", in: QueryInput{KeyConditionExpression: "pk = :p AND sk <= :s", ExpressionAttributeValues: values(":p", S("p"), ":s", N("3"))},
			want: []string{"1", "2", "3"}, count: -1, scanned: -1},
		{name: "gt swapped", in: QueryInput{KeyConditionExpression: ":s < sk AND pk = :p", ExpressionAttributeValues: values(":p", S("p"), ":s", N("8"))},
			want: []string{"9", "10"}, count: -1, scanned: -1},
		{name: "ge", in: QueryInput{KeyConditionExpression: "(pk = :p) AND (sk >= :s)", ExpressionAttributeValues: values(":p", S("p"), ":s", N("9.5"))},
			want: []string{"10"}, count: -1, scanned: -1},
		{name: "between", in: QueryInput{KeyConditionExpression: "pk = :p AND sk BETWEEN :a AND :b", ExpressionAttributeValues: values(":p", S("p"), ":a", N("-1"), ":b", N("2"))},
			want: []string{"1", "2"}, count: -1, scanned: -1},
		{name: "descending", in: QueryInput{KeyConditionExpression: "pk = :p AND sk > :s", ScanIndexForward: Forward(false), ExpressionAttributeValues: values(":p", S("p"), ":s", N("7"))},
			want: []string{"10", "9", "8"}, count: -1, scanned: -1},
		{name: "no such partition", in: QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: values(":p", S("q"))},
			want: []string{}, count: -1, scanned: -1},
		{name: "filter after limit", in: QueryInput{KeyConditionExpression: "pk = :p", FilterExpression: "odd = :t", Limit: 4,
			ExpressionAttributeValues: values(":p", S("p"), ":t", Bool(true))},
			want: []string{"1", "3"}, count: -1, scanned: 4, wantLastKey: true},
		{name: "limit reached exactly", in: QueryInput{KeyConditionExpression: "pk = :p AND sk >= :s", Limit: 2, ExpressionAttributeValues: values(":p", S("p"), ":s", N("9"))},
			want: []string{"9", "10"}, count: -1, scanned: -1, wantLastKey: true},
		{name: "projection", in: QueryInput{KeyConditionExpression: "pk = :p AND sk = :s", ProjectionExpression: "#s, odd", ExpressionAttributeNames: map[string]string{"#s": "sk"},
			ExpressionAttributeValues: values(":p", S("p"), ":s", N("1"))},
			want: []string{"1"}, count: -1, scanned: -1},
		{name: "count", in: QueryInput{KeyConditionExpression: "pk = :p", Select: SelectCount, FilterExpression: "size(#d) > :n",
			ExpressionAttributeNames: map[string]string{"#d": "data"}, ExpressionAttributeValues: values(":p", S("p"), ":n", N("7"))},
			want: []string{}, count: 3, scanned: 10},
		{name: "page size", in: QueryInput{KeyConditionExpression: "pk = :p", PageSize: 1, ExpressionAttributeValues: values(":p", S("p"))},
			want: []string{"1"}, count: -1, scanned: -1, wantLastKey: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tbl.Query(db, tc.in)
			if err != nil {
				t.Fatalf("Query: %v", err)
			}
			if diff := cmp.Diff(tc.want, sortKeys(out.Items)); diff != "" {
				t.Errorf("Query() mismatch (-want +got):\n%s", diff)
			}
			if tc.count < 0 {
				tc.count = len(tc.want)
			}
			if tc.scanned < 0 {
				tc.scanned = len(tc.want)
			}
			if out.Count != tc.count || out.ScannedCount != tc.scanned {
				t.Errorf("Count, ScannedCount = %d, %d, want %d, %d", out.Count, out.ScannedCount, tc.count, tc.scanned)
			}
			if (out.LastEvaluatedKey != nil) != tc.wantLastKey || (out.Cursor != nil) != tc.wantLastKey {
				t.Errorf("LastEvaluatedKey = %v, Cursor = %x, want one: %v", out.LastEvaluatedKey, out.Cursor, tc.wantLastKey)
			}
			if tc.in.Select == SelectCount && out.Items != nil {
				t.Errorf("COUNT returned items %v", out.Items)
			}
		})
	}

	t.Run("projection content", func(t *testing.T) {
		out, err := tbl.Query(db, QueryInput{KeyConditionExpression: "pk = :p AND sk = :s", ProjectionExpression: "odd",
			ExpressionAttributeValues: values(":p", S("p"), ":s", N("1"))})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]Item{{"odd": Bool(true)}}, out.Items, itemCmp); diff != "" {
			t.Errorf("Query() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("last evaluated key", func(t *testing.T) {
		in := QueryInput{KeyConditionExpression: "pk = :p", Limit: 3, ExpressionAttributeValues: values(":p", S("p"))}
		out, err := tbl.Query(db, in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Item{"pk": S("p"), "sk": N("3")}, out.LastEvaluatedKey, itemCmp); diff != "" {
			t.Errorf("LastEvaluatedKey mismatch (-want +got):\n%s", diff)
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
		out, err = tbl.Query(db, in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"4", "5", "6"}, sortKeys(out.Items)); diff != "" {
			t.Errorf("second page mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestQueryBeginsWith checks begins_with on S and B sort keys, including
// prefixes ending in 0x00 and 0xff bytes, which the tuple encoding escapes.
func TestQueryBeginsWith(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, stringSort)
	for _, sk := range []string{"a", "ab", "abc", "abd", "ac", "b", "a\x00", "a\x00b", "ab\x00"} {
		mustPut(t, db, tbl, Item{"pk": S("p"), "sk": S(sk)})
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"a", []string{"a", "a\x00", "a\x00b", "ab", "ab\x00", "abc", "abd", "ac"}},
		{"ab", []string{"ab", "ab\x00", "abc", "abd"}},
		{"a\x00", []string{"a\x00", "a\x00b"}},
		{"ab\x00", []string{"ab\x00"}},
		{"abc", []string{"abc"}},
		{"z", []string{}},
	}
	for _, tc := range tests {
		t.Run(fdb.Printable([]byte(tc.prefix)), func(t *testing.T) {
			out, err := tbl.Query(db, QueryInput{KeyConditionExpression: "pk = :p AND begins_with(sk, :b)",
				ExpressionAttributeValues: map[string]Value{":p": S("p"), ":b": S(tc.prefix)}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, sortKeys(out.Items)); diff != "" {
				t.Errorf("Query() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQueryValidation checks the ValidationExceptions DynamoDB documents
// for Query's parameters.
func TestQueryValidation(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashRange)
	other := newTestTable(t, db, hashOnly)
	_ = other
	pv := map[string]Value{":p": S("p")}
	tests := []struct {
		name string
		in   QueryInput
		want string
	}{
		{"no key condition", QueryInput{}, "KeyConditionExpression parameter must be specified"},
		{"index", QueryInput{IndexName: "byX", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: pv}, "does not have the specified index"},
		{"or", QueryInput{KeyConditionExpression: "pk = :p OR sk = :s", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("1")}}, "Invalid operator used in KeyConditionExpression: OR"},
		{"not", QueryInput{KeyConditionExpression: "NOT pk = :p", ExpressionAttributeValues: pv}, "Invalid operator used in KeyConditionExpression: NOT"},
		{"in", QueryInput{KeyConditionExpression: "pk IN (:p)", ExpressionAttributeValues: pv}, "Invalid operator used in KeyConditionExpression: IN"},
		{"ne", QueryInput{KeyConditionExpression: "pk <> :p", ExpressionAttributeValues: pv}, "<>"},
		{"missing hash", QueryInput{KeyConditionExpression: "sk = :s", ExpressionAttributeValues: map[string]Value{":s": N("1")}}, "Query condition missed key schema element: pk"},
		{"hash inequality", QueryInput{KeyConditionExpression: "pk > :p", ExpressionAttributeValues: pv}, "Query key condition not supported"},
		{"non-key attribute alone", QueryInput{KeyConditionExpression: "x = :s", ExpressionAttributeValues: map[string]Value{":s": N("1")}}, "Query condition missed key schema element: pk"},
		{"non-key attribute", QueryInput{KeyConditionExpression: "pk = :p AND x = :s", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("1")}}, "Query key condition not supported"},
		{"two sort conditions", QueryInput{KeyConditionExpression: "pk = :p AND sk > :s AND sk < :t", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("1"), ":t": N("5")}}, "length 1 or 2"},
		{"two hash conditions", QueryInput{KeyConditionExpression: "pk = :p AND pk = :p", ExpressionAttributeValues: pv}, "one condition per key"},
		{"wrong type", QueryInput{KeyConditionExpression: "pk = :p AND sk = :s", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": S("1")}}, "Condition parameter type does not match schema type"},
		{"begins_with on N", QueryInput{KeyConditionExpression: "pk = :p AND begins_with(sk, :s)", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("1")}}, "begins_with"},
		{"other function", QueryInput{KeyConditionExpression: "pk = :p AND attribute_exists(sk)", ExpressionAttributeValues: pv}, "attribute_exists"},
		{"path vs path", QueryInput{KeyConditionExpression: "pk = :p AND sk = pk", ExpressionAttributeValues: pv}, "not supported"},
		{"nested", QueryInput{KeyConditionExpression: "pk.a = :p", ExpressionAttributeValues: pv}, "nested"},
		{"empty hash", QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("")}}, "empty string"},
		{"filter on key", QueryInput{KeyConditionExpression: "pk = :p", FilterExpression: "sk > :s", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("1")}}, "Primary key attribute: sk"},
		{"filter on nested key", QueryInput{KeyConditionExpression: "pk = :p", FilterExpression: "size(pk) > :s", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("1")}}, "Primary key attribute: pk"},
		{"unused value", QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":x": N("1")}}, "unused in expressions: keys: {:x}"},
		{"unused name", QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeNames: map[string]string{"#x": "x"}, ExpressionAttributeValues: pv}, "unused in expressions: keys: {#x}"},
		{"undefined value", QueryInput{KeyConditionExpression: "pk = :q", ExpressionAttributeValues: pv}, "not defined"},
		{"negative limit", QueryInput{KeyConditionExpression: "pk = :p", Limit: -1, ExpressionAttributeValues: pv}, "greater than or equal to 1"},
		{"all projected", QueryInput{KeyConditionExpression: "pk = :p", Select: SelectAllProjectedAttributes, ExpressionAttributeValues: pv}, "IndexName"},
		{"bad select", QueryInput{KeyConditionExpression: "pk = :p", Select: "SOME", ExpressionAttributeValues: pv}, "enum value set"},
		{"specific without projection", QueryInput{KeyConditionExpression: "pk = :p", Select: SelectSpecificAttributes, ExpressionAttributeValues: pv}, "Must specify the ProjectionExpression"},
		{"count with projection", QueryInput{KeyConditionExpression: "pk = :p", Select: SelectCount, ProjectionExpression: "a", ExpressionAttributeValues: pv}, "Cannot specify the ProjectionExpression"},
		{"start key outside", QueryInput{KeyConditionExpression: "pk = :p", ExclusiveStartKey: Item{"pk": S("q"), "sk": N("1")}, ExpressionAttributeValues: pv}, "outside query boundaries"},
		{"start key outside sort range", QueryInput{KeyConditionExpression: "pk = :p AND sk < :s", ExclusiveStartKey: Item{"pk": S("p"), "sk": N("7")}, ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("5")}}, "outside query boundaries"},
		{"start key wrong type", QueryInput{KeyConditionExpression: "pk = :p", ExclusiveStartKey: Item{"pk": S("p"), "sk": S("1")}, ExpressionAttributeValues: pv}, "starting key is invalid"},
		{"start key other schema", QueryInput{KeyConditionExpression: "pk = :p", ExclusiveStartKey: Item{"pk": S("p")}, ExpressionAttributeValues: pv}, "starting key is invalid"},
		{"start key extra attribute", QueryInput{KeyConditionExpression: "pk = :p", ExclusiveStartKey: Item{"pk": S("p"), "sk": N("1"), "x": N("1")}, ExpressionAttributeValues: pv}, "starting key is invalid"},
		{"start key and cursor", QueryInput{KeyConditionExpression: "pk = :p", ExclusiveStartKey: Item{"pk": S("p"), "sk": N("1")}, Cursor: []byte{1}, ExpressionAttributeValues: pv}, "exclusive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tbl.Query(db, tc.in)
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrValidation) {
				t.Fatalf("Query() error = %v, want a *ValidationError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Query() error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestQueryModel checks Query against a brute-force filter-and-sort of a
// model of the table: both directions, every Limit and page size, pages
// resumed by ExclusiveStartKey or by Cursor at random, chunked items, and
// QueryAll walking the same pages.
func TestQueryModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		typ := rapid.SampledFrom([]Type{TypeS, TypeB, TypeN}).Draw(rt, "type")
		hashType := rapid.SampledFrom([]Type{TypeS, TypeB, TypeN}).Draw(rt, "hashType")
		// The queried partition first, then neighbours in key order.
		hashes := map[Type][]Value{
			TypeS: {S("p"), S("p"), S("p"), S("p\x00"), S("pa"), S("o")},
			TypeB: {B([]byte("p")), B([]byte("p")), B([]byte("p")), B([]byte("p\x00")), B([]byte("p\xff")), B([]byte("o"))},
			TypeN: {N("1"), N("1"), N("1"), N("10"), N("1.5"), N("-1")},
		}[hashType]
		schema := TableSchema{
			KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
			AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeType(hashType.String())}, {"sk", ScalarAttributeType(typ.String())}},
		}
		n++
		tbl, err := Open(db, "Query"+strconv.Itoa(n), root, WithSchema(schema), WithChunkThreshold(200))
		if err != nil {
			rt.Fatal(err)
		}
		model := map[string]Item{}
		items := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Item {
			it := Item{
				"pk": rapid.SampledFrom(hashes).Draw(t, "pk"),
				"sk": sortValueGen(typ).Draw(t, "sk"),
				"f":  NInt(int64(rapid.IntRange(0, 3).Draw(t, "f"))),
			}
			if rapid.IntRange(0, 4).Draw(t, "big") == 0 {
				it["pad"] = S(strings.Repeat("z", 300))
			}
			return it
		}), 0, 25).Draw(rt, "items")
		for _, it := range items {
			if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
				rt.Fatal(err)
			}
			kv, _ := packKeyValues(it["pk"], it["sk"])
			model[string(kv)] = it
		}
		kc := keyCondGen(typ).Draw(rt, "kc")
		kc.Hash = []Value{hashes[0]}
		// Bounds equal to stored sort keys (or prefixes of them) are
		// where off-by-one ranges show.
		if len(items) > 0 && kc.Op != expr.SortNone && rapid.Bool().Draw(rt, "storedBound") {
			sk := items[rapid.IntRange(0, len(items)-1).Draw(rt, "boundItem")]["sk"]
			switch kc.Op {
			case expr.SortBeginsWith:
				n := rapid.IntRange(1, len(sk.s)).Draw(rt, "prefixLen")
				for sk.typ == TypeS && !utf8.ValidString(sk.s[:n]) {
					n++ // a prefix of a string is whole characters
				}
				sk.s = sk.s[:n]
				kc.Lo = sk
			case expr.SortBetween:
				if c, _ := compareScalars(sk, kc.Hi); c <= 0 {
					kc.Lo = sk
				} else {
					kc.Hi = sk
				}
			default:
				kc.Lo = sk
			}
		}
		forward := rapid.Bool().Draw(rt, "forward")
		in := QueryInput{
			KeyConditionExpression:    "pk = :p",
			ExpressionAttributeValues: map[string]Value{":p": kc.Hash[0]},
			ScanIndexForward:          Forward(forward),
			Limit:                     rapid.IntRange(0, 8).Draw(rt, "limit"),
			PageSize:                  rapid.SampledFrom([]int{0, 1, 100, 400, 2000}).Draw(rt, "pageSize"),
		}
		switch kc.Op {
		case expr.SortNone:
		case expr.SortBetween:
			in.KeyConditionExpression += " AND sk BETWEEN :lo AND :hi"
			in.ExpressionAttributeValues[":lo"], in.ExpressionAttributeValues[":hi"] = kc.Lo, kc.Hi
		case expr.SortBeginsWith:
			in.KeyConditionExpression += " AND begins_with(sk, :lo)"
			in.ExpressionAttributeValues[":lo"] = kc.Lo
		default:
			in.KeyConditionExpression = ":lo " + expr.Flipped[kc.Op] + " sk AND " + in.KeyConditionExpression
			in.ExpressionAttributeValues[":lo"] = kc.Lo
		}
		filter := rapid.IntRange(-1, 3).Draw(rt, "filter")
		if filter >= 0 {
			in.FilterExpression = "f <> :f"
			in.ExpressionAttributeValues[":f"] = NInt(int64(filter))
		}

		// The model's answer.
		var want, matched []Item
		for _, k := range slices.Sorted(maps.Keys(model)) {
			it := model[k]
			if !it["pk"].Equal(kc.Hash[0]) || !modelKeyCond(kc, it["sk"]) {
				continue
			}
			matched = append(matched, it)
		}
		if !forward {
			slices.Reverse(matched)
		}
		for _, it := range matched {
			if filter < 0 || it["f"].N() != strconv.Itoa(filter) {
				want = append(want, it)
			}
		}

		var got []Item
		scanned := 0
		page := in
		for pages := 0; ; pages++ {
			if pages > len(matched)+2 {
				rt.Fatalf("more than %d pages", pages)
			}
			out, err := tbl.Query(db, page)
			if err != nil {
				rt.Fatalf("Query(%+v): %v", page, err)
			}
			if in.Limit > 0 && out.ScannedCount > in.Limit {
				rt.Fatalf("page scanned %d items, Limit %d", out.ScannedCount, in.Limit)
			}
			got = append(got, out.Items...)
			scanned += out.ScannedCount
			if out.LastEvaluatedKey == nil {
				break
			}
			page.ExclusiveStartKey, page.Cursor = nil, nil
			if rapid.Bool().Draw(rt, "byCursor") {
				page.Cursor = out.Cursor
			} else {
				page.ExclusiveStartKey = out.LastEvaluatedKey
			}
		}
		if diff := cmp.Diff(want, got, itemCmp, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("Query(%s) mismatch (-want +got):\n%s", kc, diff)
		}
		if scanned != len(matched) {
			rt.Fatalf("ScannedCount total %d, want %d", scanned, len(matched))
		}
		var all []Item
		for it, err := range tbl.QueryAll(context.Background(), db, in) {
			if err != nil {
				rt.Fatal(err)
			}
			all = append(all, it)
		}
		if diff := cmp.Diff(want, all, itemCmp, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("QueryAll(%s) mismatch (-want +got):\n%s", kc, diff)
		}
		for _, p := range tableProblems(db, tbl) {
			rt.Errorf("checkTable: %s", p)
		}
	})
}

// TestQueryAllBreak checks that QueryAll stops reading when the consumer
// breaks, and yields a validation error once.
func TestQueryAllBreak(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashRange)
	for i := range 10 {
		mustPut(t, db, tbl, Item{"pk": S("p"), "sk": NInt(int64(i))})
	}
	in := QueryInput{KeyConditionExpression: "pk = :p", Limit: 2, ExpressionAttributeValues: map[string]Value{":p": S("p")}}
	var got []string
	for it, err := range tbl.QueryAll(context.Background(), db, in) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it["sk"].N())
		if len(got) == 3 {
			break
		}
	}
	if diff := cmp.Diff([]string{"0", "1", "2"}, got); diff != "" {
		t.Errorf("QueryAll() mismatch (-want +got):\n%s", diff)
	}
	errs := 0
	in.KeyConditionExpression = "pk > :p"
	for it, err := range tbl.QueryAll(context.Background(), db, in) {
		if it != nil || !errors.Is(err, ErrValidation) {
			t.Errorf("QueryAll() = %v, %v; want a validation error", it, err)
		}
		errs++
	}
	if errs != 1 {
		t.Errorf("QueryAll() yielded %d errors, want 1", errs)
	}
}

// TestQueryComposes checks that Query runs in a caller's transaction (and
// sees its uncommitted writes) and in a snapshot of it, and on a table
// without a sort key.
func TestQueryComposes(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashOnly)
	mustPut(t, db, tbl, Item{"pk": S("a"), "x": N("1")})
	in := QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("b")}}
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("b")}}); err != nil {
			return nil, err
		}
		out, err := tbl.Query(tr, in)
		if err != nil {
			return nil, err
		}
		if diff := cmp.Diff([]Item{{"pk": S("b")}}, out.Items, itemCmp); diff != "" {
			t.Errorf("Query() in the writing transaction mismatch (-want +got):\n%s", diff)
		}
		if _, err := tbl.Query(tr.Snapshot(), in); err != nil {
			return nil, err
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tbl.Query(db, QueryInput{KeyConditionExpression: "pk = :p AND sk = :s", ExpressionAttributeValues: map[string]Value{":p": S("a"), ":s": N("1")}})
	if !errors.Is(err, ErrValidation) {
		t.Errorf("sort key condition on a hash-only table: error = %v, want ErrValidation", err)
	}
}

// TestQuerySchemaChanged checks that a handle whose cached schema is stale
// plans the query again with the table's current schema, inside the
// transaction, before reading.
func TestQuerySchemaChanged(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	stale, err := Open(db, "Music", root, WithSchema(hashRange))
	if err != nil {
		t.Fatal(err)
	}
	if err := DeleteTable(db, "Music", root); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(db, "Music", root, WithSchema(stringSort))
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, fresh, Item{"pk": S("p"), "sk": S("a")})
	// Planned against the stale schema (sk is N), refused against the
	// current one (sk is S).
	_, err = stale.Query(db, QueryInput{KeyConditionExpression: "pk = :p AND sk > :s", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("1")}})
	if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "Condition parameter type does not match schema type") {
		t.Errorf("Query() with a stale schema: error = %v, want the current schema's type error", err)
	}
	// The same handle then queries the current table.
	out, err := stale.Query(db, QueryInput{KeyConditionExpression: "pk = :p AND sk > :s", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": S("0")}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a"}, sortKeys(out.Items)); diff != "" {
		t.Errorf("Query() mismatch (-want +got):\n%s", diff)
	}
}

// TestQueryPagesTwice checks that ranging over one QueryPages or ScanAll
// iterator twice walks the same pages twice.
func TestQueryPagesTwice(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashRange)
	for i := range 5 {
		mustPut(t, db, tbl, Item{"pk": S("p"), "sk": NInt(int64(i))})
	}
	pages := tbl.QueryPages(context.Background(), db, QueryInput{KeyConditionExpression: "pk = :p", Limit: 2, ExpressionAttributeValues: map[string]Value{":p": S("p")}})
	items := tbl.ScanAll(context.Background(), db, ScanInput{Limit: 2})
	for round := range 2 {
		n, m := 0, 0
		for _, err := range pages {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		for _, err := range items {
			if err != nil {
				t.Fatal(err)
			}
			m++
		}
		if n != 3 || m != 5 {
			t.Errorf("round %d: %d pages, %d items; want 3, 5", round, n, m)
		}
	}
}

// TestQueryChunkedPages checks that chunked items of several chunks come
// back whole, and that their full size counts toward the 1 MB page bound
// (DynamoDB: "A single Query operation will read up to a maximum of 1 MB
// of data").
func TestQueryChunkedPages(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashRange)
	var want []Item
	for i := range 8 {
		it := Item{"pk": S("big"), "sk": NInt(int64(i)), "pad": S(strings.Repeat(string(rune('a'+i)), 150_000))}
		mustPut(t, db, tbl, it)
		want = append(want, it)
	}
	in := QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("big")}}
	var got []Item
	var sizes []int
	for page, err := range tbl.QueryPages(context.Background(), db, in) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.Items...)
		sizes = append(sizes, page.ScannedCount)
	}
	if diff := cmp.Diff(want, got, itemCmp); diff != "" {
		t.Errorf("QueryPages() mismatch (-want +got):\n%s", diff)
	}
	// 150 KB items: the seventh crosses 1 MB and ends the first page.
	if diff := cmp.Diff([]int{7, 1}, sizes); diff != "" {
		t.Errorf("page sizes mismatch (-want +got):\n%s", diff)
	}
}
