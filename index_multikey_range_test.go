package fdyno

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/number"
)

// Every key condition shape on a sort attribute that is not the last one:
// the entries hold later sort attributes, so "a > 5" must leave out every
// (5, …) entry and "a <= 5" take every one of them (the developer guide's
// "Multi-attribute key schema": the sort attributes order the entries left
// to right, and a condition on one applies to its value alone). The
// expected items are the table's items filtered by the condition and
// sorted by the sort attributes, each by its type's order, then by the
// table key; each query is read forward and backward, whole and page by
// page from LastEvaluatedKey.

// rangeGridSchema: table key pk; GSI g with partition (h S, hn N) and sort
// (a N, b S, c B).
var rangeGridSchema = TableSchema{
	KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"h", ScalarAttributeTypeS}, {"hn", ScalarAttributeTypeN},
		{"a", ScalarAttributeTypeN}, {"b", ScalarAttributeTypeS}, {"c", ScalarAttributeTypeB}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{
		{IndexName: "grid", KeySchema: cat(hashes("h", "hn"), ranges("a", "b", "c")), Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
	},
}

// The grid's values of a, b and c, and probes between and around them.
var (
	gridA      = []Value{N("-2.5"), N("0"), N("5"), N("12")}
	gridB      = []Value{S("a"), S("a\x00"), S("ab"), S("b")}
	gridC      = []Value{B([]byte{0}), B([]byte{0, 0xff}), B([]byte{1}), B([]byte{0xff})}
	probeA     = append(slices.Clip(gridA), N("-3"), N("5.5"), N("5.000"), N("-25E-1"), N("100"))
	probeB     = append(slices.Clip(gridB), S("aa"), S("c"))
	probeC     = append(slices.Clip(gridC), B([]byte{0, 0}), B([]byte{0xff, 0xff}))
	gridSorted = []string{"a", "b", "c"}
)

func gridCompare(x, y Value) int {
	if x.typ == TypeN {
		return number.Compare(x.s, y.s)
	}
	return strings.Compare(x.s, y.s)
}

func TestMultiKeyRangeOnEarlierSortAttribute(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, rangeGridSchema)
	var items []Item
	n := 0
	for _, h := range []Value{S("x"), S("x\x00")} {
		for _, av := range gridA {
			for _, bv := range gridB {
				for _, cv := range gridC {
					n++
					it := Item{"pk": S("p" + strconv.Itoa(n)), "h": h, "hn": N("7"), "a": av, "b": bv, "c": cv}
					// Some items share the whole index key: the table key
					// orders them.
					items = append(items, it)
				}
			}
		}
	}
	// Duplicates of a few index keys under other table keys.
	for _, i := range []int{0, 5, 21} {
		items = append(items, items[i].with("pk", S("q"+strconv.Itoa(i))))
	}
	for _, it := range items {
		mustPut(t, db, tbl, it)
	}
	slices.SortFunc(items, func(x, y Item) int {
		for _, k := range gridSorted {
			if c := gridCompare(x[k], y[k]); c != 0 {
				return c
			}
		}
		return strings.Compare(x["pk"].s, y["pk"].s)
	})
	probes := map[string][]Value{"a": probeA, "b": probeB, "c": probeC}
	domain := map[string][]Value{"a": gridA, "b": gridB, "c": gridC}
	type check struct {
		cond string
		eav  map[string]Value
		keep func(Item) bool
	}
	var checks []check
	for k, attr := range gridSorted {
		// The equality prefix: every combination of grid values of the
		// attributes before attr (and one value outside the grid).
		prefixes := [][]Value{{}}
		for _, prev := range gridSorted[:k] {
			var next [][]Value
			for _, p := range prefixes {
				for _, v := range append(slices.Clip(domain[prev][1:3]), probes[prev][len(probes[prev])-1]) {
					next = append(next, append(slices.Clip(p), v))
				}
			}
			prefixes = next
		}
		for _, prefix := range prefixes {
			base := "h = :h AND hn = :hn"
			eav := values(":h", S("x"), ":hn", N("7"))
			for i, v := range prefix {
				base += " AND " + gridSorted[i] + " = :e" + strconv.Itoa(i)
				eav[":e"+strconv.Itoa(i)] = v
			}
			prefixOK := func(it Item) bool {
				if it["h"].s != "x" {
					return false
				}
				for i, v := range prefix {
					if gridCompare(it[gridSorted[i]], v) != 0 {
						return false
					}
				}
				return true
			}
			add := func(cond string, extra map[string]Value, keep func(Value) bool) {
				m := map[string]Value{}
				for kk, vv := range eav {
					m[kk] = vv
				}
				for kk, vv := range extra {
					m[kk] = vv
				}
				checks = append(checks, check{cond: base + cond, eav: m, keep: func(it Item) bool { return prefixOK(it) && keep(it[attr]) }})
			}
			if k > 0 {
				add("", nil, func(Value) bool { return true })
			}
			for _, v := range probes[attr] {
				for _, op := range []string{"=", "<", "<=", ">", ">="} {
					add(" AND "+attr+" "+op+" :v", values(":v", v), func(x Value) bool {
						c := gridCompare(x, v)
						return map[string]bool{"=": c == 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
					})
				}
				if attr != "a" {
					add(" AND begins_with("+attr+", :v)", values(":v", v), func(x Value) bool { return strings.HasPrefix(x.s, v.s) })
				}
				for _, hi := range probes[attr] {
					if gridCompare(v, hi) > 0 {
						continue
					}
					add(" AND "+attr+" BETWEEN :v AND :w", values(":v", v, ":w", hi), func(x Value) bool {
						return gridCompare(x, v) >= 0 && gridCompare(x, hi) <= 0
					})
				}
			}
		}
	}
	t.Logf("%d key conditions", len(checks))
	for _, c := range checks {
		var want []string
		for _, it := range items {
			if c.keep(it) {
				want = append(want, it["pk"].s)
			}
		}
		for _, forward := range []bool{true, false} {
			w := slices.Clone(want)
			if !forward {
				slices.Reverse(w)
			}
			for _, limit := range []int{0, 3} {
				in := QueryInput{IndexName: "grid", KeyConditionExpression: c.cond, ExpressionAttributeValues: c.eav, ScanIndexForward: Forward(forward), Limit: limit}
				var got []string
				for page := 0; ; page++ {
					out, err := tbl.Query(db, in)
					if err != nil {
						t.Fatalf("Query(%s, %v): %v", c.cond, c.eav, err)
					}
					for _, it := range out.Items {
						got = append(got, it["pk"].s)
					}
					if out.LastEvaluatedKey == nil || page > 100 {
						break
					}
					in.ExclusiveStartKey = out.LastEvaluatedKey
				}
				if diff := cmp.Diff(w, got); diff != "" {
					t.Fatalf("Query(%s, %s) forward=%v limit=%d (-want +got):\n%s", c.cond, fmtValues(c.eav), forward, limit, diff)
				}
			}
		}
	}
}

func fmtValues(m map[string]Value) string {
	var b bytes.Buffer
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k + "=" + m[k].String() + " ")
	}
	return b.String()
}

// begins_with on a number sort attribute, before the last one or the last,
// with a string operand, is refused with DynamoDB's operand-type text, as
// on a one-attribute number sort key ("operand type: N").
func TestMultiKeyBeginsWithNumber(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, rangeGridSchema)
	const want = "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"
	for _, cond := range []string{
		"h = :h AND hn = :hn AND begins_with(a, :s)",
		"begins_with(a, :s) AND h = :h AND hn = :hn",
	} {
		_, err := tbl.Query(db, QueryInput{IndexName: "grid", KeyConditionExpression: cond,
			ExpressionAttributeValues: values(":h", S("x"), ":hn", N("7"), ":s", S("1"))})
		var ve *ValidationError
		if !errors.As(err, &ve) || !strings.HasSuffix(ve.Reason, want) {
			t.Errorf("Query(%s) error = %v, want a ValidationException ending %q", cond, err, want)
		}
	}
}

// An ExclusiveStartKey that does not hold exactly the key attributes of
// the table and index read: a Query answers DynamoDB's bare "The provided
// starting key is invalid", a Scan adds "The provided key element does
// not match the schema" (as observed from the service and reported by
// users of both). A key attribute of another type is refused too.
func TestMultiKeyStartKeyMismatch(t *testing.T) {
	tbl, db, query := newTournamentTable(t)
	in := QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: "tournamentId = :t AND #region = :r",
		ExpressionAttributeNames: map[string]string{"#region": "region"}, ExpressionAttributeValues: values(":t", S("WINTER2024"), ":r", S("NA-EAST")), Limit: 1}
	first, err := query(in)
	if err != nil || first.LastEvaluatedKey == nil {
		t.Fatalf("first page: %v, %v", first, err)
	}
	full := first.LastEvaluatedKey
	missing := full.with("matchId", full["matchId"])
	delete(missing, "bracket")
	other, err := query(QueryInput{IndexName: "PlayerMatchHistoryIndex", KeyConditionExpression: "player1Id = :p",
		ExpressionAttributeValues: values(":p", S("101")), Limit: 1})
	if err != nil || other.LastEvaluatedKey == nil {
		t.Fatalf("other index's page: %v, %v", other, err)
	}
	const bare = "The provided starting key is invalid"
	const scanText = bare + ": The provided key element does not match the schema"
	for _, tc := range []struct {
		name string
		esk  Item
	}{
		{"an index key attribute missing", missing},
		{"an extra attribute", full.with("score", S("x"))},
		{"another index's LastEvaluatedKey", other.LastEvaluatedKey},
	} {
		in.ExclusiveStartKey = tc.esk
		_, err := query(in)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Reason != bare {
			t.Errorf("Query with %s: %v, want ValidationException %q", tc.name, err, bare)
		}
		_, err = tbl.Scan(db, ScanInput{IndexName: "TournamentRegionIndex", ExclusiveStartKey: tc.esk})
		if !errors.As(err, &ve) || ve.Reason != scanText {
			t.Errorf("Scan with %s: %v, want ValidationException %q", tc.name, err, scanText)
		}
	}
	// The table's own key, on a Query of the table.
	_, err = query(QueryInput{KeyConditionExpression: "matchId = :m", ExpressionAttributeValues: values(":m", S("match-001")),
		ExclusiveStartKey: Item{"matchId": S("match-001"), "round": S("FINALS")}})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Reason != bare {
		t.Errorf("Query of the table with an extra attribute: %v, want ValidationException %q", err, bare)
	}
	// A cursor of one index on another: refused by its fingerprint.
	if _, err := query(QueryInput{IndexName: "PlayerMatchHistoryIndex", KeyConditionExpression: "player1Id = :p",
		ExpressionAttributeValues: values(":p", S("101")), Cursor: first.Cursor}); !errors.As(err, &ve) || ve.Path != "Cursor" {
		t.Errorf("Query with another index's Cursor: %v, want a ValidationException on Cursor", err)
	}
	in.ExclusiveStartKey = full.with("round", N("1"))
	if _, err := query(in); !errors.As(err, &ve) || !strings.HasPrefix(ve.Reason, bare) {
		t.Errorf("Query with a sort attribute of another type: %v, want ValidationException %q…", err, bare)
	}
}

// Refused values on a sort attribute before the last: BETWEEN bounds out
// of order, an empty S or B (also as begins_with's prefix), each with
// DynamoDB's text for a one-attribute sort key.
func TestMultiKeyRefusedSortValues(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, rangeGridSchema)
	const base = "h = :h AND hn = :hn AND "
	for _, tc := range []struct {
		cond string
		eav  map[string]Value
		want string
	}{
		{"a BETWEEN :lo AND :hi", values(":lo", N("5"), ":hi", N("-1")), "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:-1}"},
		{"a = :a AND b BETWEEN :lo AND :hi", values(":a", N("1"), ":lo", S("b"), ":hi", S("a")), "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"},
		{"a = :a AND b = :e AND c = :c", values(":a", N("1"), ":e", S(""), ":c", B([]byte{1})), "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: b"},
		{"a = :a AND begins_with(b, :e)", values(":a", N("1"), ":e", S("")), "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: b"},
		{"a = :a AND b = :b AND c < :e", values(":a", N("1"), ":b", S("x"), ":e", B(nil)), "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: c"},
	} {
		eav := values(":h", S("x"), ":hn", N("7"))
		for k, v := range tc.eav {
			eav[k] = v
		}
		_, err := tbl.Query(db, QueryInput{IndexName: "grid", KeyConditionExpression: base + tc.cond, ExpressionAttributeValues: eav})
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Reason != tc.want {
			t.Errorf("Query(%s): %v\nwant ValidationException %q", tc.cond, err, tc.want)
		}
	}
}
