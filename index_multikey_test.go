package fdyno

import (
	"errors"
	"slices"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
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
	if !errors.As(err, &ve) || ve.Reason != "One or more parameter values were invalid: Type mismatch for Index Key round Expected: S Actual: N IndexName: TournamentRegionIndex" &&
		ve.Reason != "One or more parameter values were invalid: Type mismatch for Index Key round Expected: S Actual: N IndexName: PlayerMatchHistoryIndex" {
		t.Errorf("Put with an N round: %v, want the type mismatch", err)
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
}

func (it Item) with(name string, v Value) Item {
	c := Item{}
	for k, x := range it {
		c[k] = x
	}
	c[name] = v
	return c
}
