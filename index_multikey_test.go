package fdyno

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/expr"
)

// Multi-attribute GSI keys on the developer guide's example ("Multi-attribute
// keys pattern": tournament matches indexed by tournament and region, then
// round, bracket and match; and by player, then date and round). The
// expected orders follow the guide's rule that the sort attributes order
// the entries left to right, each by its type's order (strings by bytes);
// the expected error texts are DynamoDB's as observed from the service.

// tournamentSchema is the guide's TournamentMatches table.
func tournamentSchema() TableSchema {
	return TableSchema{
		KeySchema: []KeySchemaElement{{"matchId", KeyTypeHash}},
		AttributeDefinitions: []AttributeDefinition{{"matchId", ScalarAttributeTypeS}, {"tournamentId", ScalarAttributeTypeS},
			{"region", ScalarAttributeTypeS}, {"round", ScalarAttributeTypeS}, {"bracket", ScalarAttributeTypeS},
			{"player1Id", ScalarAttributeTypeS}, {"matchDate", ScalarAttributeTypeS}},
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{
			{IndexName: "TournamentRegionIndex", KeySchema: cat(hashes("tournamentId", "region"), ranges("round", "bracket", "matchId")),
				Projection: Projection{ProjectionType: ProjectionTypeAll}},
			{IndexName: "PlayerMatchHistoryIndex", KeySchema: cat(hashes("player1Id"), ranges("matchDate", "round")),
				Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
		},
	}
}

// tournamentMatches are the matches of the tests; match-007 has no
// bracket, so it is not in TournamentRegionIndex.
var tournamentMatches = []Item{
	match("match-001", "WINTER2024", "NA-EAST", "SEMIFINALS", "UPPER", "101", "2024-01-18"),
	match("match-002", "WINTER2024", "NA-EAST", "SEMIFINALS", "LOWER", "103", "2024-01-18"),
	match("match-003", "WINTER2024", "NA-EAST", "FINALS", "CHAMPIONSHIP", "101", "2024-01-20"),
	match("match-004", "WINTER2024", "NA-WEST", "SEMIFINALS", "UPPER", "102", "2024-01-18"),
	match("match-005", "SPRING2024", "NA-EAST", "QUARTERFINALS", "UPPER", "101", "2024-03-15"),
	match("match-006", "WINTER2024", "NA-EAST", "QUARTERFINALS", "LOWER", "104", "2024-01-15"),
	match("match-007", "WINTER2024", "NA-EAST", "FINALS", "", "101", "2024-01-18"),
}

func match(id, tournament, region, round, bracket, player, date string) Item {
	it := Item{"matchId": S(id), "tournamentId": S(tournament), "region": S(region), "round": S(round),
		"player1Id": S(player), "matchDate": S(date), "score": S(id + " score")}
	if bracket != "" {
		it["bracket"] = S(bracket)
	}
	return it
}

func newTournamentTable(t *testing.T) (*Table, fdb.Database, func(QueryInput) (*QueryOutput, error)) {
	t.Helper()
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, tournamentSchema())
	for _, it := range tournamentMatches {
		if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	return tbl, db, func(in QueryInput) (*QueryOutput, error) { return tbl.Query(db, in) }
}

func matchIDs(items []Item) []string {
	ids := []string{}
	for _, it := range items {
		ids = append(ids, it["matchId"].S())
	}
	return ids
}

// TestMultiKeyQuery queries the guide's two indexes with every shape of
// key condition the guide allows, in both directions.
func TestMultiKeyQuery(t *testing.T) {
	_, _, query := newTournamentTable(t)
	region := func(cond string, vals map[string]Value) QueryInput {
		v := map[string]Value{":t": S("WINTER2024"), ":r": S("NA-EAST")}
		for k, x := range vals {
			v[k] = x
		}
		return QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: "tournamentId = :t AND #region = :r" + cond,
			ExpressionAttributeNames: map[string]string{"#region": "region"}, ExpressionAttributeValues: v}
	}
	player := func(cond string, vals map[string]Value) QueryInput {
		v := map[string]Value{":p": S("101")}
		for k, x := range vals {
			v[k] = x
		}
		return QueryInput{IndexName: "PlayerMatchHistoryIndex", KeyConditionExpression: "player1Id = :p" + cond, ExpressionAttributeValues: v}
	}
	tests := []struct {
		name string
		in   QueryInput
		want []string // forward; the reverse is checked too
	}{
		{"partition", region("", nil), []string{"match-003", "match-006", "match-002", "match-001"}},
		{"round =", region(" AND round = :x", values(":x", S("SEMIFINALS"))), []string{"match-002", "match-001"}},
		{"round = bracket =", region(" AND round = :x AND bracket = :y", values(":x", S("SEMIFINALS"), ":y", S("UPPER"))), []string{"match-001"}},
		{"all three =", region(" AND round = :x AND bracket = :y AND matchId = :z", values(":x", S("SEMIFINALS"), ":y", S("UPPER"), ":z", S("match-001"))), []string{"match-001"}},
		{"round >=", region(" AND round >= :x", values(":x", S("QUARTERFINALS"))), []string{"match-006", "match-002", "match-001"}},
		{"round <", region(" AND round < :x", values(":x", S("QUARTERFINALS"))), []string{"match-003"}},
		{"begins_with round", region(" AND begins_with(round, :x)", values(":x", S("SEMI"))), []string{"match-002", "match-001"}},
		{"round = bracket >", region(" AND round = :x AND bracket > :y", values(":x", S("SEMIFINALS"), ":y", S("LOWER"))), []string{"match-001"}},
		{"round = bracket <=", region(" AND round = :x AND bracket <= :y", values(":x", S("SEMIFINALS"), ":y", S("LOWER"))), []string{"match-002"}},
		{"round = bracket BETWEEN", region(" AND round = :x AND bracket BETWEEN :y AND :z", values(":x", S("SEMIFINALS"), ":y", S("A"), ":z", S("M"))), []string{"match-002"}},
		{"terms in any order", QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: "bracket = :y AND round = :x AND #region = :r AND tournamentId = :t",
			ExpressionAttributeNames: map[string]string{"#region": "region"}, ExpressionAttributeValues: values(":t", S("WINTER2024"), ":r", S("NA-EAST"), ":x", S("SEMIFINALS"), ":y", S("LOWER"))}, []string{"match-002"}},
		{"other partition", QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: "tournamentId = :t AND #region = :r",
			ExpressionAttributeNames: map[string]string{"#region": "region"}, ExpressionAttributeValues: values(":t", S("WINTER2024"), ":r", S("NA-WEST"))}, []string{"match-004"}},
		{"player", player("", nil), []string{"match-007", "match-001", "match-003", "match-005"}},
		{"player date BETWEEN", player(" AND matchDate BETWEEN :a AND :b", values(":a", S("2024-01-01"), ":b", S("2024-01-31"))), []string{"match-007", "match-001", "match-003"}},
		{"player date = round >", player(" AND matchDate = :d AND round > :x", values(":d", S("2024-01-18"), ":x", S("FINALS"))), []string{"match-001"}},
		{"player date = round =", player(" AND matchDate = :d AND round = :x", values(":d", S("2024-01-18"), ":x", S("FINALS"))), []string{"match-007"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, forward := range []bool{true, false} {
				in := tc.in
				in.ScanIndexForward = Forward(forward)
				out, err := query(in)
				if err != nil {
					t.Fatalf("Query(%s, forward %v): %v", in.KeyConditionExpression, forward, err)
				}
				want := slices.Clone(tc.want)
				if !forward {
					slices.Reverse(want)
				}
				if diff := cmp.Diff(want, matchIDs(out.Items)); diff != "" {
					t.Errorf("Query(%s, forward %v) mismatch (-want +got):\n%s", in.KeyConditionExpression, forward, diff)
				}
			}
		})
	}
	t.Run("KEYS_ONLY projection", func(t *testing.T) {
		out, err := query(player(" AND matchDate = :d AND round = :x", values(":d", S("2024-01-18"), ":x", S("FINALS"))))
		if err != nil {
			t.Fatal(err)
		}
		want := []Item{{"matchId": S("match-007"), "player1Id": S("101"), "matchDate": S("2024-01-18"), "round": S("FINALS")}}
		if !slices.EqualFunc(want, out.Items, Item.Equal) {
			t.Errorf("Items = %v, want %v", out.Items, want)
		}
	})
	t.Run("filter on a non-key attribute", func(t *testing.T) {
		in := region("", values(":s", S("match-002 score")))
		in.FilterExpression = "score = :s"
		out, err := query(in)
		if err != nil || !slices.Equal(matchIDs(out.Items), []string{"match-002"}) || out.ScannedCount != 4 {
			t.Errorf("Query with filter: %v, %v; want match-002 of 4 scanned", out, err)
		}
	})
}

// TestMultiKeyQueryErrors checks the key condition rules of the guide
// ("Multi-attribute key schema") with DynamoDB's texts.
func TestMultiKeyQueryErrors(t *testing.T) {
	_, _, query := newTournamentTable(t)
	gapText := func(a, b string) string {
		return "RANGE key attributes " + a + " must have equality conditions specified in the query because a condition is present on key attribute " + b
	}
	vals := values(":t", S("WINTER2024"), ":r", S("NA-EAST"), ":x", S("SEMIFINALS"), ":y", S("UPPER"), ":z", S("match-001"), ":n", N("1"))
	tests := []struct {
		name, cond, filter, want string
	}{
		{"a partition attribute missing", "tournamentId = :t", "", "Query condition missed key schema element: region"},
		{"the first partition attribute missing", "#region = :r AND round = :x", "", "Query condition missed key schema element: tournamentId"},
		{"range condition on a partition attribute", "tournamentId = :t AND #region > :r", "", "Query key condition not supported"},
		{"begins_with on a partition attribute", "tournamentId = :t AND begins_with(#region, :r)", "", "Query key condition not supported"},
		{"skipping the first sort attribute", "tournamentId = :t AND #region = :r AND bracket = :y", "", gapText("round", "bracket")},
		{"a gap", "tournamentId = :t AND #region = :r AND round = :x AND matchId = :z", "", gapText("bracket", "matchId")},
		{"range condition before the last", "tournamentId = :t AND #region = :r AND round > :x AND bracket = :y", "", gapText("round", "bracket")},
		{"begins_with before the last", "tournamentId = :t AND #region = :r AND begins_with(round, :x) AND bracket = :y", "", gapText("round", "bracket")},
		{"two conditions on one attribute", "tournamentId = :t AND #region = :r AND round > :x AND round < :y", "", "KeyConditionExpressions must only contain one condition per key"},
		{"a non-key attribute", "tournamentId = :t AND #region = :r AND score = :x", "", "Query key condition not supported"},
		{"wrong type", "tournamentId = :t AND #region = :r AND round = :n", "", "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"filter on a partition attribute", "tournamentId = :t AND #region = :r", "#region = :x", "Filter Expression can only contain non-primary key attributes: Primary key attribute: region"},
		{"filter on a sort attribute", "tournamentId = :t AND #region = :r", "bracket = :y", "Filter Expression can only contain non-primary key attributes: Primary key attribute: bracket"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			used := map[string]Value{}
			for k, v := range vals {
				if containsToken(tc.cond+" "+tc.filter, k) {
					used[k] = v
				}
			}
			in := QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: tc.cond, FilterExpression: tc.filter,
				ExpressionAttributeValues: used}
			if containsToken(tc.cond+" "+tc.filter, "#region") {
				in.ExpressionAttributeNames = map[string]string{"#region": "region"}
			}
			_, err := query(in)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Reason != tc.want {
				t.Errorf("Query(%s) error = %v, want ValidationException %q", tc.cond, err, tc.want)
			}
		})
	}
}

// containsToken reports whether s holds placeholder tok not followed by
// another name character.
func containsToken(s, tok string) bool {
	for i := 0; i+len(tok) <= len(s); i++ {
		if s[i:i+len(tok)] == tok && (i+len(tok) == len(s) || !isNameByte(s[i+len(tok)])) {
			return true
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// TestMultiKeyPaging walks the index a page of one item at a time: each
// LastEvaluatedKey holds the table key and every index key attribute (the
// guide's pagination), and resumes where the page ended; an
// ExclusiveStartKey missing one of them is refused.
func TestMultiKeyPaging(t *testing.T) {
	_, _, query := newTournamentTable(t)
	in := QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: "tournamentId = :t AND #region = :r",
		ExpressionAttributeNames: map[string]string{"#region": "region"}, ExpressionAttributeValues: values(":t", S("WINTER2024"), ":r", S("NA-EAST")), Limit: 1}
	var got []string
	for range 10 {
		out, err := query(in)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, matchIDs(out.Items)...)
		if out.LastEvaluatedKey == nil {
			break
		}
		last := out.Items[len(out.Items)-1]
		want := Item{}
		for _, a := range []string{"matchId", "tournamentId", "region", "round", "bracket"} {
			want[a] = last[a]
		}
		if !want.Equal(out.LastEvaluatedKey) {
			t.Errorf("LastEvaluatedKey = %v, want %v", out.LastEvaluatedKey, want)
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if diff := cmp.Diff([]string{"match-003", "match-006", "match-002", "match-001"}, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	esk := Item{"matchId": S("match-006"), "tournamentId": S("WINTER2024"), "region": S("NA-EAST"), "round": S("QUARTERFINALS")}
	in.ExclusiveStartKey = esk
	if _, err := query(in); !errors.Is(err, ErrValidation) {
		t.Errorf("Query with ExclusiveStartKey %v (no bracket) error = %v, want ValidationException", esk, err)
	}
}

// TestMultiKeyWrites checks rule 2: an item is in the index exactly when
// it has every key attribute; a write giving one another type is refused
// and writes nothing; updates move the entry; deletes remove it. Scan of
// the index reads the entries in key order.
func TestMultiKeyWrites(t *testing.T) {
	tbl, db, query := newTournamentTable(t)
	_, err := tbl.Put(db, PutInput{Item: match("match-008", "WINTER2024", "NA-EAST", "FINALS", "UPPER", "105", "2024-01-21").
		with("round", N("7"))})
	var ve *ValidationError
	// round is a key of both indexes: the refusal names the first in the
	// table's index order (by name).
	if !errors.As(err, &ve) || ve.Reason != "One or more parameter values were invalid: Type mismatch for Index Key round Expected: S Actual: N IndexName: PlayerMatchHistoryIndex" {
		t.Errorf("Put with an N round: %v, want the type mismatch", err)
	}
	// An empty string, or a sort attribute over 1024 bytes (each attribute
	// has the limit of its kind, index_keys.go rule 4), is refused too.
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{S(""), "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: "},
		{S(strings.Repeat("r", 1025)), "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes IndexName: "},
	} {
		_, err := tbl.Put(db, PutInput{Item: match("match-008", "WINTER2024", "NA-EAST", "FINALS", "UPPER", "105", "2024-01-21").with("bracket", tc.v)})
		if !errors.As(err, &ve) || !strings.HasPrefix(ve.Reason, tc.want) {
			t.Errorf("Put with bracket of %d bytes: %v, want %q…", len(tc.v.s), err, tc.want)
		}
	}
	if _, err := tbl.Put(db, PutInput{Item: match("match-008", "WINTER2024", "NA-EAST", "FINALS", "UPPER", "105", "2024-01-21").
		with("bracket", S(strings.Repeat("r", 1024)))}); err != nil {
		t.Errorf("Put with a bracket of 1024 bytes: %v", err)
	}
	if _, err := tbl.Delete(db, DeleteInput{Key: Item{"matchId": S("match-008")}}); err != nil {
		t.Fatal(err)
	}
	regionIDs := func() []string {
		out, err := query(QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: "tournamentId = :t AND #region = :r",
			ExpressionAttributeNames: map[string]string{"#region": "region"}, ExpressionAttributeValues: values(":t", S("WINTER2024"), ":r", S("NA-EAST"))})
		if err != nil {
			t.Fatal(err)
		}
		return matchIDs(out.Items)
	}
	if got := regionIDs(); !slices.Equal(got, []string{"match-003", "match-006", "match-002", "match-001"}) {
		t.Fatalf("the refused Put changed the index: %v", got)
	}
	// match-007 gets its bracket: it joins the index.
	if _, err := tbl.Update(db, UpdateInput{Key: Item{"matchId": S("match-007")}, UpdateExpression: "SET bracket = :b",
		ExpressionAttributeValues: values(":b", S("LOWER"))}); err != nil {
		t.Fatal(err)
	}
	if got := regionIDs(); !slices.Equal(got, []string{"match-003", "match-007", "match-006", "match-002", "match-001"}) {
		t.Errorf("after adding match-007's bracket: %v", got)
	}
	// match-002 moves to the finals; match-006 loses its region.
	if _, err := tbl.Update(db, UpdateInput{Key: Item{"matchId": S("match-002")}, UpdateExpression: "SET round = :r",
		ExpressionAttributeValues: values(":r", S("FINALS"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Update(db, UpdateInput{Key: Item{"matchId": S("match-006")}, UpdateExpression: "REMOVE #region",
		ExpressionAttributeNames: map[string]string{"#region": "region"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Delete(db, DeleteInput{Key: Item{"matchId": S("match-001")}}); err != nil {
		t.Fatal(err)
	}
	if got := regionIDs(); !slices.Equal(got, []string{"match-003", "match-002", "match-007"}) {
		t.Errorf("after the updates and delete: %v", got)
	}
	// Scan of the index: partitions, then their entries in key order.
	var scanned []string
	for it, err := range tbl.ScanAll(t.Context(), db, ScanInput{IndexName: "TournamentRegionIndex"}) {
		if err != nil {
			t.Fatal(err)
		}
		scanned = append(scanned, it["matchId"].S())
	}
	if diff := cmp.Diff([]string{"match-005", "match-003", "match-002", "match-007", "match-004"}, scanned); diff != "" {
		t.Errorf("Scan of the index (-want +got):\n%s", diff)
	}
	hash, sort, ok := tbl.KeySchemaAttributes("TournamentRegionIndex")
	wantHash := []AttributeDefinition{{"tournamentId", ScalarAttributeTypeS}, {"region", ScalarAttributeTypeS}}
	wantSort := []AttributeDefinition{{"round", ScalarAttributeTypeS}, {"bracket", ScalarAttributeTypeS}, {"matchId", ScalarAttributeTypeS}}
	if !ok || !slices.Equal(hash, wantHash) || !slices.Equal(sort, wantSort) {
		t.Errorf("KeySchemaAttributes = %v %v %v", hash, sort, ok)
	}
	if h, r, ok := tbl.KeyAttributes("TournamentRegionIndex"); !ok || h != wantHash[0] || r != wantSort[0] {
		t.Errorf("KeyAttributes = %v %v %v, want the first of each", h, r, ok)
	}
}

func (it Item) with(name string, v Value) Item {
	c := Item{}
	for k, x := range it {
		c[k] = x
	}
	c[name] = v
	return c
}

// FuzzMultiKeyCondition: key conditions on a key of partition attributes
// a (S), b (N) and sort attributes c (S), d (N), e (B), built from bytes
// as a list of terms (an attribute among those and a non-key z, an
// operator among =, <, <=, >, >=, BETWEEN, begins_with), are accepted or
// refused exactly as a plain restatement of the rules says (index_keys.go,
// rule 5), with its text; and an accepted condition's one key range holds
// exactly the entries whose values satisfy the terms.
func FuzzMultiKeyCondition(f *testing.F) {
	for _, seed := range [][]byte{{0, 1}, {0, 1, 2}, {0, 1, 2, 3, 4}, {1, 0, 8}, {0, 1, 3}, {0, 1, 20, 3}, {0, 1, 2, 33},
		{0, 7}, {0}, {0, 1, 5}, {0, 1, 2, 3, 40}, {0, 1, 2, 2}, {0, 1, 39}, {6, 0, 1}} {
		f.Add(seed)
	}
	hash := []keyAttr{{"a", TypeS}, {"b", TypeN}}
	rng := []keyAttr{{"c", TypeS}, {"d", TypeN}, {"e", TypeB}}
	attrs := []keyAttr{hash[0], hash[1], rng[0], rng[1], rng[2], {"z", TypeS}}
	ops := []string{"=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"}
	eav := map[string]Value{":a": S("x"), ":b": N("1"), ":c": S("m"), ":d": N("2"), ":e": B([]byte{0}), ":z": S("m")}
	type term struct {
		attr keyAttr
		op   string
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 8 {
			b = b[:8]
		}
		if len(b) == 0 {
			return
		}
		var terms []term
		var parts []string
		used := map[string]Value{}
		for _, x := range b {
			tm := term{attrs[int(x)%len(attrs)], ops[int(x)/len(attrs)%len(ops)]}
			terms = append(terms, tm)
			p := ":" + tm.attr.Name
			used[p] = eav[p]
			switch tm.op {
			case "BETWEEN":
				parts = append(parts, tm.attr.Name+" BETWEEN "+p+" AND "+p)
			case "begins_with":
				parts = append(parts, "begins_with("+tm.attr.Name+", "+p+")")
			default:
				parts = append(parts, tm.attr.Name+" "+tm.op+" "+p)
			}
		}
		src := parts[0]
		for _, p := range parts[1:] {
			src += " AND " + p
		}
		// The restatement: per term in order, then the partition, the
		// non-key terms, the left-to-right rule.
		want, wantAny := "", false
		for _, tm := range terms {
			// The condition parser refuses begins_with of a number first.
			wantAny = wantAny || tm.op == "begins_with" && eav[":"+tm.attr.Name].typ == TypeN
		}
		seen := map[string]string{}
		nonKey := false
		for _, tm := range terms {
			if want != "" || wantAny {
				break
			}
			isHash := tm.attr.Name == "a" || tm.attr.Name == "b"
			isRange := tm.attr.Name == "c" || tm.attr.Name == "d" || tm.attr.Name == "e"
			switch {
			case (isHash || isRange) && seen[tm.attr.Name] != "":
				want = "KeyConditionExpressions must only contain one condition per key"
			case isHash && tm.op != "=":
				want = "Query key condition not supported"
			case !isHash && !isRange:
				nonKey = true
			}
			seen[tm.attr.Name] = tm.op
		}
		if want == "" && !wantAny {
			switch {
			case seen["a"] == "":
				want = "Query condition missed key schema element: a"
			case seen["b"] == "":
				want = "Query condition missed key schema element: b"
			case nonKey:
				want = "Query key condition not supported"
			}
		}
		if want == "" && !wantAny {
		gap:
			for later := 1; later < len(rng); later++ {
				if seen[rng[later].Name] == "" {
					continue
				}
				for prior := range later {
					if seen[rng[prior].Name] != "=" {
						want = "RANGE key attributes " + rng[prior].Name + " must have equality conditions specified in the query because a condition is present on key attribute " + rng[later].Name
						break gap
					}
				}
			}
		}
		c, err := newExprContext(nil, used)
		if err != nil {
			t.Fatal(err)
		}
		kc, err := parseKeyCondition(c, src, hash, rng)
		var ve *ValidationError
		switch {
		case wantAny:
			if !errors.As(err, &ve) {
				t.Fatalf("parseKeyCondition(%q) = %v, want a ValidationException", src, err)
			}
			return
		case want != "":
			if !errors.As(err, &ve) || ve.Reason != want {
				t.Fatalf("parseKeyCondition(%q) error %v, want %q", src, err, want)
			}
			return
		case err != nil:
			t.Fatalf("parseKeyCondition(%q): %v, want accepted", src, err)
		}
		lo, hi, err := indexKeyRange(kc, len(rng))
		if err != nil {
			t.Fatal(err)
		}
		// Every entry of a small space of values: in the range exactly when
		// every term holds.
		base, _ := packKeyValues(S("k"))
		for _, av := range []Value{S("x"), S("x\x00")} {
			for _, bv := range []Value{N("1"), N("2")} {
				for _, cv := range []Value{S("l"), S("m"), S("m\x00"), S("ma"), S("n")} {
					for _, dv := range []Value{N("1"), N("2"), N("3")} {
						for _, ev := range []Value{B([]byte{0}), B([]byte{0, 0}), B([]byte{1})} {
							vals := map[string]Value{"a": av, "b": bv, "c": cv, "d": dv, "e": ev}
							match := true
							for _, tm := range terms {
								v, x := vals[tm.attr.Name], eav[":"+tm.attr.Name]
								cmp := compareModelValues(v, x)
								switch tm.op {
								case "=", "BETWEEN":
									match = match && cmp == 0
								case "<":
									match = match && cmp < 0
								case "<=":
									match = match && cmp <= 0
								case ">":
									match = match && cmp > 0
								case ">=":
									match = match && cmp >= 0
								case "begins_with":
									match = match && bytes.HasPrefix([]byte(v.s), []byte(x.s))
								}
							}
							k, err := packKeyValues(av, bv, cv, dv, ev)
							if err != nil {
								t.Fatal(err)
							}
							k = append(k, base...)
							if got := inRange(k, lo, hi); got != match {
								t.Fatalf("%q: entry %v in range = %v, want %v", src, vals, got, match)
							}
						}
					}
				}
			}
		}
	})
}

// TestMultiKeyLifecycle adds a multi-attribute GSI by UpdateTable to a
// table holding items (some chunked, some lacking a key attribute, one
// with a key attribute of another type, written before the index
// existed), backfills it, expires items by Time to Live, checks that the
// stream records the writes as for any table, and deletes the index; the
// table's invariants hold throughout (checked at cleanup and after each
// step).
func TestMultiKeyLifecycle(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	s := TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}}, AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}},
		StreamViewType: StreamViewTypeKeysOnly, TimeToLiveAttribute: "exp"}
	tbl := newTestTable(t, db, s, WithClock(clock.Now), WithChunkThreshold(300))
	now := clock.Now().Unix()
	put := func(pk, t1 string, n int64, exp int64, big bool) Item {
		it := Item{"pk": S(pk), "t": S(t1), "n": NInt(n)}
		if exp != 0 {
			it["exp"] = NInt(exp)
		}
		if big {
			it["pad"] = S(strings.Repeat("z", 5000))
		}
		mustPut(t, db, tbl, it)
		return it
	}
	put("a", "T", 2, 0, true)
	put("b", "T", 1, now-10, false) // expired
	put("c", "T", 3, 0, false)
	put("d", "U", 1, now-5, true)                                     // expired, chunked
	mustPut(t, db, tbl, Item{"pk": S("e"), "t": S("T")})              // no n: not indexed
	mustPut(t, db, tbl, Item{"pk": S("f"), "t": S("T"), "n": S("x")}) // n of another type: skipped
	_, err := tbl.UpdateTable(db, UpdateTableInput{
		AttributeDefinitions: []AttributeDefinition{{"t", ScalarAttributeTypeS}, {"pk", ScalarAttributeTypeS}, {"n", ScalarAttributeTypeN}},
		GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "byTN",
			KeySchema: cat(hashes("t"), ranges("n", "pk")), Projection: Projection{ProjectionType: ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Backfill(t.Context(), db, BackfillInput{IndexName: "byTN", BatchSize: 2}); err != nil {
		t.Fatal(err)
	}
	checkTable(t, db, tbl)
	ids := func(h string) []string {
		var out []string
		for it, err := range tbl.QueryAll(t.Context(), db, QueryInput{IndexName: "byTN", KeyConditionExpression: "t = :t",
			ExpressionAttributeValues: values(":t", S(h))}) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, it["pk"].S())
		}
		return out
	}
	if diff := cmp.Diff([]string{"b", "a", "c"}, ids("T")); diff != "" {
		t.Errorf("backfilled partition T (-want +got):\n%s", diff)
	}
	if stats, err := tbl.SweepExpiredOnce(t.Context(), db, SweepOptions{}); err != nil || stats.Deleted != 2 {
		t.Fatalf("sweep = %+v, %v; want b and d deleted", stats, err)
	}
	checkTable(t, db, tbl)
	if diff := cmp.Diff([]string{"a", "c"}, ids("T")); diff != "" {
		t.Errorf("partition T after the sweep (-want +got):\n%s", diff)
	}
	if got := ids("U"); len(got) != 0 {
		t.Errorf("partition U after the sweep: %v", got)
	}
	recs, err := tbl.GetRecords(db, GetRecordsInput{})
	if err != nil || len(recs.Records) != 8 {
		t.Fatalf("GetRecords: %d records, %v; want 6 inserts and 2 TTL deletions", len(recs.Records), err)
	}
	if _, err := tbl.UpdateTable(db, UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byTN"}}}}); err != nil {
		t.Fatal(err)
	}
	checkTable(t, db, tbl) // invariant 3: no entry of a deleted index
}

// FuzzMultiKeyConditionText: any KeyConditionExpression text on the
// multi-attribute key of byM (multiModelSchema: h1 S, h2 N | r1 S, r2 N,
// r3 B) never panics, is refused with a *ValidationError, or has one key
// range inside the partition its = terms name.
func FuzzMultiKeyConditionText(f *testing.F) {
	for _, s := range []string{"h1 = :s AND h2 = :n", "h2 = :n AND h1 = :s AND r1 = :s AND r2 > :n", "h1 = :s AND h2 = :n AND begins_with(r1, :s)",
		"h1 = :s AND h2 = :n AND r1 = :s AND r2 = :n AND r3 BETWEEN :b AND :b", "h1 = :s AND r1 = :s", "h1 = :s AND h2 = :n AND r2 = :n",
		"(h1 = :s) AND (h2 = :n) AND (r1 < :s)", "h1 = :s OR h2 = :n", "h1 = :s AND h2 = :n AND r1 = r2"} {
		f.Add(s)
	}
	st := newTableState(nil, tableKeys{}, multiModelSchema)
	ix := st.index("byM")
	eav := map[string]Value{":s": S("x"), ":n": N("1"), ":b": B([]byte{0, 0xff})}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := newExprContext(nil, eav)
		if err != nil {
			t.Fatal(err)
		}
		kc, err := parseKeyCondition(c, src, ix.hash, ix.rng)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("parseKeyCondition(%q) error %T %v, want *ValidationError", src, err, err)
			}
			return
		}
		if len(kc.Hash) != 2 || len(kc.Eq) >= len(ix.rng) || kc.Op == "" && len(kc.Eq) > 0 {
			t.Fatalf("parseKeyCondition(%q) = %s: not a prefix of the key", src, keyConditionString(kc))
		}
		lo, hi, err := indexKeyRange(kc, len(ix.rng))
		if err != nil {
			t.Fatalf("indexKeyRange(%s): %v", keyConditionString(kc), err)
		}
		p, _ := packKeyValues(kc.Hash...)
		if string(lo) > string(hi) || !strings.HasPrefix(string(lo), string(p)) || string(hi) > string(p)+"\xff" {
			t.Fatalf("%q: range [%x, %x) outside partition %x", src, lo, hi, p)
		}
	})
}

// FuzzMultiKeyCursor: decoding untrusted bytes as the cursor of a query
// on a multi-attribute index never panics, accepts only entry keys of the
// index (every key attribute and the table key) inside the query's range,
// and round-trips what it accepts.
func FuzzMultiKeyCursor(f *testing.F) {
	st := newTableState(nil, tableKeys{}, multiModelSchema)
	var seeds [][]Value
	for _, r2 := range []string{"1", "-3.5", "10", "11"} {
		seeds = append(seeds, []Value{S("a"), N("2"), S("b"), N(r2), B([]byte{0}), S("p1")})
	}
	kc := &keyCondition{Hash: []Value{S("a"), N("2")}, Eq: []Value{S("b")}, Op: expr.SortLt, Lo: N("10")}
	fuzzIndexCursor(f, st, "byM", kc, seeds)
}
