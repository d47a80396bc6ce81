package server

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// Multi-attribute keys of global secondary indexes through the wire, with
// the developer guide's model ("Multi-attribute keys pattern": tournament
// matches queried by tournament, region and round). The rules the tests
// state are the guide's ("Multi-attribute key schema"): a partition key
// of up to four attributes and a sort key of up to four; a Query pins
// every partition attribute with "=", gives sort attributes left to right
// without skipping one, a range condition only on the last one given;
// an item missing any key attribute is not in the index; results are in
// the left-to-right order of the sort attributes. The error words are
// DynamoDB's as observed on the service (docs/guide.md lists the
// sources).

// mgsiMatch is one tournament match of the test data.
type mgsiMatch struct {
	ID, Tournament, Region, Bracket string
	Round, Number                   int
	noRegion, noNumber              bool // attributes the item lacks
}

// mgsiMatches are the test data: every combination of two tournaments,
// two regions, three rounds, two brackets and four match numbers, and
// three sparse items (one without region, in neither index; two without
// a match number, only in TournamentRegionIndex).
func mgsiMatches() []mgsiMatch {
	var ms []mgsiMatch
	for _, t := range []string{"WINTER2024", "SPRING2025"} {
		for _, r := range []string{"NA-EAST", "EU-WEST"} {
			for round := 1; round <= 3; round++ {
				for _, b := range []string{"UPPER", "LOWER"} {
					for n := 4; n >= 1; n-- { // written out of order
						ms = append(ms, mgsiMatch{ID: fmt.Sprintf("%s-%s-r%d-%s-m%d", t, r, round, b, n), Tournament: t, Region: r, Round: round, Bracket: b, Number: n})
					}
				}
			}
		}
	}
	return append(ms,
		mgsiMatch{ID: "sparse-no-region", Tournament: "WINTER2024", Round: 1, Bracket: "UPPER", Number: 9, noRegion: true},
		mgsiMatch{ID: "sparse-no-number-1", Tournament: "WINTER2024", Region: "NA-EAST", Round: 2, Bracket: "UPPER", noNumber: true},
		mgsiMatch{ID: "sparse-no-number-2", Tournament: "WINTER2024", Region: "EU-WEST", Round: 2, Bracket: "LOWER", noNumber: true},
	)
}

// attrs is the match as an item: values as Go strings and ints.
func (m mgsiMatch) attrs() map[string]any {
	a := map[string]any{"matchId": m.ID, "tournamentId": m.Tournament, "round": m.Round, "bracket": m.Bracket, "score": "x"}
	if !m.noRegion {
		a["region"] = m.Region
	}
	if !m.noNumber {
		a["matchNumber"] = m.Number
	}
	return a
}

// mgsiIndex is a test index: its partition and sort attributes in key
// schema order.
type mgsiIndex struct {
	name         string
	hash, sort   []string
	numeric      map[string]bool
	attributeDef []types.AttributeDefinition
}

var (
	// TournamentRegionIndex: two partition attributes, three sort
	// attributes, as the guide's example index.
	mgsiByRegion = mgsiIndex{name: "TournamentRegionIndex", hash: []string{"tournamentId", "region"}, sort: []string{"round", "bracket", "matchId"}}
	// ByRound: three partition attributes, two sort attributes.
	mgsiByRound = mgsiIndex{name: "ByRound", hash: []string{"tournamentId", "region", "round"}, sort: []string{"bracket", "matchNumber"}}
	mgsiNumeric = map[string]bool{"round": true, "matchNumber": true}
)

func (ix mgsiIndex) keySchema() []types.KeySchemaElement {
	var ks []types.KeySchemaElement
	for _, h := range ix.hash {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(h), KeyType: types.KeyTypeHash})
	}
	for _, s := range ix.sort {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(s), KeyType: types.KeyTypeRange})
	}
	return ks
}

func mgsiDef(name string) types.AttributeDefinition {
	t := types.ScalarAttributeTypeS
	if mgsiNumeric[name] {
		t = types.ScalarAttributeTypeN
	}
	return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t}
}

// mgsiTableInput creates table name keyed by matchId with both indexes.
func mgsiTableInput(name string) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("matchId"), KeyType: types.KeyTypeHash}},
	}
	for _, a := range []string{"matchId", "tournamentId", "region", "round", "bracket", "matchNumber"} {
		in.AttributeDefinitions = append(in.AttributeDefinitions, mgsiDef(a))
	}
	for _, ix := range []mgsiIndex{mgsiByRegion, mgsiByRound} {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.name), KeySchema: ix.keySchema(), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}})
	}
	return in
}

// mgsiCond is one key condition of a test query: attribute op values
// (op "=", "<", "<=", ">", ">=", "BETWEEN" or "begins_with").
type mgsiCond struct {
	attr string
	op   string
	vals []any
}

// mgsiQuery is a test query on an index: conditions on every partition
// attribute, then on a prefix of the sort attributes.
type mgsiQuery struct {
	ix    mgsiIndex
	conds []mgsiCond
}

func eq(attr string, v any) mgsiCond { return mgsiCond{attr, "=", []any{v}} }

// expression is the query's KeyConditionExpression with its names and
// values (#k0, :v0, ...).
func (q mgsiQuery) expression() (string, map[string]string, map[string]any) {
	names, values := map[string]string{}, map[string]any{}
	var parts []string
	for i, c := range q.conds {
		n := "#k" + strconv.Itoa(i)
		names[n] = c.attr
		var vs []string
		for j, v := range c.vals {
			p := ":v" + strconv.Itoa(i) + "_" + strconv.Itoa(j)
			values[p] = v
			vs = append(vs, p)
		}
		switch c.op {
		case "BETWEEN":
			parts = append(parts, n+" BETWEEN "+vs[0]+" AND "+vs[1])
		case "begins_with":
			parts = append(parts, "begins_with("+n+", "+vs[0]+")")
		default:
			parts = append(parts, n+" "+c.op+" "+vs[0])
		}
	}
	return strings.Join(parts, " AND "), names, values
}

// legacyOps are the legacy ComparisonOperators of the conditions' ops.
var legacyOps = map[string]types.ComparisonOperator{"=": types.ComparisonOperatorEq, "<": types.ComparisonOperatorLt, "<=": types.ComparisonOperatorLe,
	">": types.ComparisonOperatorGt, ">=": types.ComparisonOperatorGe, "BETWEEN": types.ComparisonOperatorBetween, "begins_with": types.ComparisonOperatorBeginsWith}

// keyConditions is the query as legacy KeyConditions.
func (q mgsiQuery) keyConditions() map[string]types.Condition {
	kc := map[string]types.Condition{}
	for _, cd := range q.conds {
		var vs []types.AttributeValue
		for _, v := range cd.vals {
			vs = append(vs, sdkValue(v))
		}
		kc[cd.attr] = types.Condition{ComparisonOperator: legacyOps[cd.op], AttributeValueList: vs}
	}
	return kc
}

// compareAny orders two key values of one type as DynamoDB orders keys.
func compareAny(a, b any) int {
	switch a := a.(type) {
	case int:
		return cmp.Compare(a, b.(int))
	case string:
		return strings.Compare(a, b.(string))
	}
	panic(fmt.Sprintf("compareAny %T", a))
}

// want is the model's answer: the IDs of the matches in the index that
// satisfy every condition, in index order (the sort attributes left to
// right, then the table key), reversed when backward.
func (q mgsiQuery) want(ms []mgsiMatch, forward bool) []string {
	var in []map[string]any
	for _, m := range ms {
		a := m.attrs()
		ok := true
		for _, k := range append(slices.Clone(q.ix.hash), q.ix.sort...) {
			_, has := a[k]
			ok = ok && has
		}
		for _, c := range q.conds {
			v := a[c.attr]
			switch c.op {
			case "=":
				ok = ok && compareAny(v, c.vals[0]) == 0
			case "<":
				ok = ok && compareAny(v, c.vals[0]) < 0
			case "<=":
				ok = ok && compareAny(v, c.vals[0]) <= 0
			case ">":
				ok = ok && compareAny(v, c.vals[0]) > 0
			case ">=":
				ok = ok && compareAny(v, c.vals[0]) >= 0
			case "BETWEEN":
				ok = ok && compareAny(v, c.vals[0]) >= 0 && compareAny(v, c.vals[1]) <= 0
			case "begins_with":
				ok = ok && strings.HasPrefix(v.(string), c.vals[0].(string))
			}
		}
		if ok {
			in = append(in, a)
		}
	}
	slices.SortFunc(in, func(x, y map[string]any) int {
		for _, k := range append(slices.Clone(q.ix.sort), "matchId") {
			if c := compareAny(x[k], y[k]); c != 0 {
				return c
			}
		}
		return 0
	})
	ids := make([]string, len(in))
	for i, a := range in {
		ids[i] = a["matchId"].(string)
	}
	if !forward {
		slices.Reverse(ids)
	}
	return ids
}

// mgsiQueries are the test queries: partition only, prefixes of the sort
// attributes by equality, and a range condition on the last one given.
func mgsiQueries() []mgsiQuery {
	w, na, eu := eq("tournamentId", "WINTER2024"), eq("region", "NA-EAST"), eq("region", "EU-WEST")
	return []mgsiQuery{
		{mgsiByRegion, []mgsiCond{w, na}},
		{mgsiByRegion, []mgsiCond{w, na, eq("round", 2)}},
		{mgsiByRegion, []mgsiCond{w, na, eq("round", 2), eq("bracket", "UPPER")}},
		{mgsiByRegion, []mgsiCond{w, na, eq("round", 2), {"bracket", "begins_with", []any{"UP"}}}},
		{mgsiByRegion, []mgsiCond{w, na, {"round", "BETWEEN", []any{2, 3}}}},
		{mgsiByRegion, []mgsiCond{w, na, {"round", ">", []any{1}}}},
		{mgsiByRegion, []mgsiCond{w, na, eq("round", 1), eq("bracket", "LOWER"), {"matchId", ">", []any{"WINTER2024-NA-EAST-r1-LOWER-m2"}}}},
		{mgsiByRegion, []mgsiCond{w, eu, eq("round", 2), eq("bracket", "LOWER"), eq("matchId", "sparse-no-number-2")}},
		{mgsiByRound, []mgsiCond{w, eu, eq("round", 2)}},
		{mgsiByRound, []mgsiCond{w, eu, eq("round", 2), eq("bracket", "UPPER"), {"matchNumber", ">=", []any{3}}}},
		{mgsiByRound, []mgsiCond{w, eu, eq("round", 2), {"bracket", "<", []any{"UPPER"}}}},
		{mgsiByRound, []mgsiCond{w, eu, eq("round", 4)}},
	}
}

// sdkValue is v as an SDK AttributeValue.
func sdkValue(v any) types.AttributeValue {
	switch v := v.(type) {
	case int:
		return n(strconv.Itoa(v))
	case string:
		return s(v)
	}
	panic(fmt.Sprintf("sdkValue %T", v))
}

func sdkItem(a map[string]any) map[string]types.AttributeValue {
	it := make(map[string]types.AttributeValue, len(a))
	for k, v := range a {
		it[k] = sdkValue(v)
	}
	return it
}

func TestSDKMultiAttributeIndex(t *testing.T) {
	_, c := newTestClient(t, Config{})
	in := mgsiTableInput("Matches")
	mustCreateTable(t, c, in)

	// DescribeTable returns each index's KeySchema whole, in the order
	// given.
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Matches")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]types.KeySchemaElement{}
	for _, g := range d.Table.GlobalSecondaryIndexes {
		got[aws.ToString(g.IndexName)] = g.KeySchema
	}
	want := map[string][]types.KeySchemaElement{mgsiByRegion.name: mgsiByRegion.keySchema(), mgsiByRound.name: mgsiByRound.keySchema()}
	if diff := gocmp.Diff(want, got, cmpopts.IgnoreUnexported(types.KeySchemaElement{})); diff != "" {
		t.Errorf("DescribeTable index key schemas (-want +got):\n%s", diff)
	}

	ms := mgsiMatches()
	for _, m := range ms {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Matches"), Item: sdkItem(m.attrs())}); err != nil {
			t.Fatalf("PutItem %s: %v", m.ID, err)
		}
	}

	for _, q := range mgsiQueries() {
		kce, names, values := q.expression()
		for _, forward := range []bool{true, false} {
			for _, limit := range []int32{0, 3} {
				name := fmt.Sprintf("%s %s forward=%v limit=%d", q.ix.name, kce, forward, limit)
				vals := map[string]types.AttributeValue{}
				for k, v := range values {
					vals[k] = sdkValue(v)
				}
				qi := &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(q.ix.name),
					KeyConditionExpression: aws.String(kce), ExpressionAttributeNames: names, ExpressionAttributeValues: vals,
					ScanIndexForward: aws.Bool(forward)}
				if limit > 0 {
					qi.Limit = aws.Int32(limit)
				}
				var ids []string
				for page := 0; ; page++ {
					out, err := c.Query(ctx(t), qi)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if limit > 0 && len(out.Items) > int(limit) {
						t.Errorf("%s: page of %d items, Limit %d", name, len(out.Items), limit)
					}
					for _, it := range out.Items {
						ids = append(ids, it["matchId"].(*types.AttributeValueMemberS).Value)
					}
					if out.LastEvaluatedKey == nil {
						break
					}
					// LastEvaluatedKey: every index key attribute and the
					// table key.
					wantKeys := slices.Sorted(slices.Values(append(append(slices.Clone(q.ix.hash), q.ix.sort...), "matchId")))
					wantKeys = slices.Compact(wantKeys)
					if gotKeys := slices.Sorted(maps.Keys(out.LastEvaluatedKey)); !slices.Equal(gotKeys, wantKeys) {
						t.Errorf("%s: LastEvaluatedKey attributes %v, want %v", name, gotKeys, wantKeys)
					}
					if page > 100 {
						t.Fatalf("%s: no end of pages", name)
					}
					qi.ExclusiveStartKey = out.LastEvaluatedKey
				}
				if diff := gocmp.Diff(q.want(ms, forward), ids, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
		}
	}

	// Select, ProjectionExpression and a FilterExpression on a non-key
	// attribute behave as on any index: COUNT counts the items the
	// filter keeps, of those the key condition read.
	cnt, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(mgsiByRound.name),
		KeyConditionExpression: aws.String("tournamentId = :t AND #r = :r AND #n = :n"), FilterExpression: aws.String("score = :x"),
		ExpressionAttributeNames:  map[string]string{"#r": "region", "#n": "round"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": s("WINTER2024"), ":r": s("EU-WEST"), ":n": n("2"), ":x": s("x")},
		Select:                    types.SelectCount})
	if err != nil || cnt.Count != 8 || cnt.ScannedCount != 8 || cnt.Items != nil {
		t.Errorf("Query Select COUNT: %+v, %v; want Count and ScannedCount 8", cnt, err)
	}
	proj, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(mgsiByRound.name),
		KeyConditionExpression: aws.String("tournamentId = :t AND #r = :r AND #n = :n AND bracket = :b"), ProjectionExpression: aws.String("matchNumber"),
		FilterExpression:          aws.String("score <> :x"),
		ExpressionAttributeNames:  map[string]string{"#r": "region", "#n": "round"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": s("WINTER2024"), ":r": s("EU-WEST"), ":n": n("2"), ":b": s("UPPER"), ":x": s("x")}})
	if err != nil || proj.Count != 0 || proj.ScannedCount != 4 {
		t.Errorf("Query with a filter keeping nothing: %+v, %v; want Count 0 of ScannedCount 4", proj, err)
	}

	// Scan of an index: every item with all its key attributes, no
	// other.
	for _, ix := range []mgsiIndex{mgsiByRegion, mgsiByRound} {
		out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String("Matches"), IndexName: aws.String(ix.name)})
		if err != nil {
			t.Fatal(err)
		}
		var wantIDs []string
		for _, m := range ms {
			if !m.noRegion && (!m.noNumber || ix.name == mgsiByRegion.name) {
				wantIDs = append(wantIDs, m.ID)
			}
		}
		var ids []string
		for _, it := range out.Items {
			ids = append(ids, it["matchId"].(*types.AttributeValueMemberS).Value)
		}
		slices.Sort(ids)
		slices.Sort(wantIDs)
		if diff := gocmp.Diff(wantIDs, ids); diff != "" {
			t.Errorf("Scan %s (-want +got):\n%s", ix.name, diff)
		}
	}

	// A write that gives an index key attribute another type than its
	// definition fails, and writes nothing.
	bad := mgsiMatch{ID: "bad", Tournament: "WINTER2024", Region: "NA-EAST", Round: 1, Bracket: "UPPER", Number: 1}.attrs()
	badItem := sdkItem(bad)
	badItem["round"] = s("one")
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Matches"), Item: badItem})
	wantAPIError(t, err, "ValidationException", "Type mismatch")
	g, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Matches"), Key: map[string]types.AttributeValue{"matchId": s("bad")}})
	if err != nil || g.Item != nil {
		t.Errorf("GetItem after the refused write: %v %v", g.Item, err)
	}
}

// TestSDKMultiAttributeQueryErrors checks the Query rules of a
// multi-attribute key: each refusal is a ValidationException.
func TestSDKMultiAttributeQueryErrors(t *testing.T) {
	_, c := newTestClient(t, Config{})
	mustCreateTable(t, c, mgsiTableInput("Matches"))
	w, na := eq("tournamentId", "WINTER2024"), eq("region", "NA-EAST")
	for _, tc := range []struct {
		name string
		q    mgsiQuery
		msg  string
	}{
		// "you must specify all partition key attributes using equality
		// conditions"
		{"partition attribute missing", mgsiQuery{mgsiByRegion, []mgsiCond{w}}, "Query condition missed key schema element: region"},
		{"partition attribute missing, sort given", mgsiQuery{mgsiByRegion, []mgsiCond{w, eq("round", 1)}}, "Query condition missed key schema element: region"},
		{"range on a partition attribute", mgsiQuery{mgsiByRegion, []mgsiCond{w, {"region", ">", []any{"A"}}}}, "Query key condition not supported"},
		{"begins_with on a partition attribute", mgsiQuery{mgsiByRegion, []mgsiCond{w, {"region", "begins_with", []any{"NA"}}}}, "Query key condition not supported"},
		// "you cannot skip attributes in the middle"; "Inequality
		// conditions ... must be the last condition": DynamoDB names the
		// attribute lacking its equality and the later one that has a
		// condition (observed on the service).
		{"first sort attribute skipped", mgsiQuery{mgsiByRegion, []mgsiCond{w, na, eq("bracket", "UPPER")}}, "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute bracket"},
		{"middle sort attribute skipped", mgsiQuery{mgsiByRegion, []mgsiCond{w, na, eq("round", 1), {"matchId", ">", []any{"a"}}}}, "RANGE key attributes bracket must have equality conditions specified in the query because a condition is present on key attribute matchId"},
		{"range before an equality", mgsiQuery{mgsiByRegion, []mgsiCond{w, na, {"round", ">", []any{1}}, eq("bracket", "UPPER")}}, "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute bracket"},
		{"between before an equality", mgsiQuery{mgsiByRound, []mgsiCond{w, na, eq("round", 1), {"bracket", "BETWEEN", []any{"A", "Z"}}, eq("matchNumber", 1)}}, "RANGE key attributes bracket must have equality conditions specified in the query because a condition is present on key attribute matchNumber"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kce, names, values := tc.q.expression()
			vals := map[string]types.AttributeValue{}
			for k, v := range values {
				vals[k] = sdkValue(v)
			}
			_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(tc.q.ix.name),
				KeyConditionExpression: aws.String(kce), ExpressionAttributeNames: names, ExpressionAttributeValues: vals})
			wantAPIError(t, err, "ValidationException", tc.msg)
		})
	}
	// An ExclusiveStartKey without one of the index key attributes is
	// refused.
	_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(mgsiByRegion.name),
		KeyConditionExpression: aws.String("tournamentId = :t AND #r = :r"), ExpressionAttributeNames: map[string]string{"#r": "region"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": s("WINTER2024"), ":r": s("NA-EAST")},
		ExclusiveStartKey:         map[string]types.AttributeValue{"matchId": s("m"), "tournamentId": s("WINTER2024"), "region": s("NA-EAST"), "round": n("1"), "matchNumber": n("1")}})
	wantAPIErrorExact(t, err, "ValidationException", "The provided starting key is invalid")
	// FilterExpression may not name any key attribute of the index.
	_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(mgsiByRegion.name),
		KeyConditionExpression: aws.String("tournamentId = :t AND #r = :r"), FilterExpression: aws.String("bracket = :b"),
		ExpressionAttributeNames:  map[string]string{"#r": "region"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": s("WINTER2024"), ":r": s("NA-EAST"), ":b": s("UPPER")}})
	wantAPIError(t, err, "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: bracket")
}

// TestSDKMultiAttributeSchemaErrors checks CreateTable's and UpdateTable's
// rules for a multi-attribute key schema, in DynamoDB's words as observed
// on the service.
func TestSDKMultiAttributeSchemaErrors(t *testing.T) {
	_, c := newTestClient(t, Config{})
	defs := func(names ...string) []types.AttributeDefinition {
		var ds []types.AttributeDefinition
		for _, n := range names {
			ds = append(ds, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS})
		}
		return ds
	}
	keys := func(spec ...string) []types.KeySchemaElement {
		var ks []types.KeySchemaElement
		for _, s := range spec {
			name, kind, _ := strings.Cut(s, ":")
			kt := types.KeyTypeHash
			if kind == "R" {
				kt = types.KeyTypeRange
			}
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(name), KeyType: kt})
		}
		return ks
	}
	create := func(name string, gsiKeys []types.KeySchemaElement, attrs ...string) error {
		_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
			TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			KeySchema:            keys("pk:H"),
			AttributeDefinitions: defs(append([]string{"pk"}, attrs...)...),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: gsiKeys,
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		})
		return err
	}
	const invalid = "One or more parameter values were invalid: "
	for _, tc := range []struct {
		name  string
		keys  []types.KeySchemaElement
		attrs []string
		msg   string
	}{
		{"five HASH", keys("a:H", "b:H", "c:H", "d:H", "e:H"), []string{"a", "b", "c", "d", "e"},
			invalid + "The KeySchema exceeds the maximum allowed number of HASH key attributes"},
		{"five RANGE", keys("a:H", "b:R", "c:R", "d:R", "e:R", "f:R"), []string{"a", "b", "c", "d", "e", "f"},
			invalid + "The KeySchema exceeds the maximum allowed number of RANGE key attributes"},
		{"HASH after RANGE", keys("a:H", "b:R", "c:H"), []string{"a", "b", "c"},
			invalid + "All HASH key attributes must precede RANGE key attributes in the KeySchema"},
		{"RANGE first", keys("a:R", "b:H"), []string{"a", "b"},
			"Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"attribute twice", keys("a:H", "b:H", "a:R"), []string{"a", "b"},
			"The KeySchema contains multiple key attributes with the same name"},
		{"attribute not defined", keys("a:H", "b:H", "c:R"), []string{"a", "c"},
			invalid + "Some index key attributes are not defined in AttributeDefinitions."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantAPIError(t, create("Bad", tc.keys, tc.attrs...), "ValidationException", tc.msg)
		})
	}
	// Four of each is the most, and UpdateTable creates such an index on
	// a table with items, which it then holds.
	all := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	if err := create("Eight", keys("a:H", "b:H", "c:H", "d:H", "e:R", "f:R", "g:R", "h:R"), all...); err != nil {
		t.Fatalf("CreateTable with 4+4 key attributes: %v", err)
	}
	mustCreateTable(t, c, pkTableInput("Later"))
	for i, m := range []string{"x", "y", "z"} {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Later"),
			Item: map[string]types.AttributeValue{"pk": s(m), "a": s("A"), "b": s("B"), "c": n(strconv.Itoa(3 - i))}}); err != nil {
			t.Fatal(err)
		}
	}
	update := func(ks []types.KeySchemaElement, ds []types.AttributeDefinition) error {
		_, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Later"), AttributeDefinitions: ds,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("later"), KeySchema: ks, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
		return err
	}
	wantAPIError(t, update(keys("a:H", "b:H", "c:H", "d:H", "e:H"), defs("a", "b", "c", "d", "e")),
		"ValidationException", invalid+"The KeySchema exceeds the maximum allowed number of HASH key attributes")
	cDef := []types.AttributeDefinition{{AttributeName: aws.String("c"), AttributeType: types.ScalarAttributeTypeN}}
	if err := update(keys("a:H", "b:H", "c:R"), append(defs("a", "b"), cDef...)); err != nil {
		t.Fatalf("UpdateTable creating a 2+1 index: %v", err)
	}
	waitIndexActive(t, c, "Later", "later")
	out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Later"), IndexName: aws.String("later"),
		KeyConditionExpression:    aws.String("a = :a AND b = :b"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":a": s("A"), ":b": s("B")}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range out.Items {
		ids = append(ids, it["pk"].(*types.AttributeValueMemberS).Value)
	}
	if want := []string{"z", "y", "x"}; !slices.Equal(ids, want) {
		t.Errorf("Query of the backfilled index: %v, want %v (by c, 1 2 3)", ids, want)
	}
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Later")})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Table.GlobalSecondaryIndexes) != 1 || !gocmp.Equal(d.Table.GlobalSecondaryIndexes[0].KeySchema, keys("a:H", "b:H", "c:R"), cmpopts.IgnoreUnexported(types.KeySchemaElement{})) {
		t.Errorf("DescribeTable after UpdateTable: %+v", d.Table.GlobalSecondaryIndexes)
	}
}

// TestSDKMultiAttributeKeyConditions: the legacy KeyConditions of a Query
// work on a multi-attribute index as DynamoDB's do (observed: EQ on every
// partition attribute, sort attributes left to right, GT on the last),
// under the same rules as a KeyConditionExpression.
func TestSDKMultiAttributeKeyConditions(t *testing.T) {
	_, c := newTestClient(t, Config{})
	ms := putMatches(t, c)
	query := func(q mgsiQuery, forward bool) ([]string, error) {
		out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(q.ix.name),
			KeyConditions: q.keyConditions(), ScanIndexForward: aws.Bool(forward)})
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, it := range out.Items {
			ids = append(ids, it["matchId"].(*types.AttributeValueMemberS).Value)
		}
		return ids, nil
	}
	for _, q := range mgsiQueries() {
		for _, forward := range []bool{true, false} {
			ids, err := query(q, forward)
			if err != nil {
				t.Fatalf("%s %v: %v", q.ix.name, q.conds, err)
			}
			if diff := gocmp.Diff(q.want(ms, forward), ids, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s %v forward=%v (-want +got):\n%s", q.ix.name, q.conds, forward, diff)
			}
		}
	}
	w, na := eq("tournamentId", "WINTER2024"), eq("region", "NA-EAST")
	for _, tc := range []struct {
		name string
		q    mgsiQuery
		msg  string
	}{
		{"partition attribute missing", mgsiQuery{mgsiByRegion, []mgsiCond{w, eq("round", 1)}}, "Query condition missed key schema element: region"},
		{"range on a partition attribute", mgsiQuery{mgsiByRegion, []mgsiCond{w, {"region", "begins_with", []any{"NA"}}}}, "Query key condition not supported"},
		{"sort attribute skipped", mgsiQuery{mgsiByRegion, []mgsiCond{w, na, eq("bracket", "UPPER")}}, "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute bracket"},
		{"range before an equality", mgsiQuery{mgsiByRegion, []mgsiCond{w, na, {"round", ">", []any{1}}, eq("bracket", "UPPER")}}, "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute bracket"},
		{"a condition on no key attribute", mgsiQuery{mgsiByRound, []mgsiCond{w, na, eq("round", 1), eq("bracket", "A"), eq("matchNumber", 1), eq("score", "x")}}, "Query key condition not supported"},
	} {
		_, err := query(tc.q, true)
		wantAPIErrorExact(t, err, "ValidationException", tc.msg)
	}
	// More conditions than a key has attributes: DynamoDB's words for a
	// one-attribute key, kept for any key.
	nine := map[string]types.Condition{}
	for i := range 9 {
		nine["a"+strconv.Itoa(i)] = types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("x")}}
	}
	_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(mgsiByRegion.name), KeyConditions: nine})
	wantAPIErrorExact(t, err, "ValidationException", "Conditions can be of length 1 or 2 only")
	three := map[string]types.Condition{"matchId": nine["a0"], "round": nine["a1"], "bracket": nine["a2"]}
	_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), KeyConditions: three})
	wantAPIErrorExact(t, err, "ValidationException", "Conditions can be of length 1 or 2 only")
}

// TestMultiAttributeKeyConditionsModel draws random key conditions on
// the two test indexes, legal and not, and checks the legacy
// KeyConditions and the KeyConditionExpression a user would write for
// them against the guide's rules ("Multi-attribute key schema") and the
// model: a legal condition (every partition attribute with =, sort
// attributes a prefix whose conditions are = but the last) returns the
// model's items in the model's order, both ways; an illegal one is a
// ValidationException, with the same message both ways.
func TestMultiAttributeKeyConditionsModel(t *testing.T) {
	_, c := newTestClient(t, Config{})
	ms := putMatches(t, c)
	domain := map[string][]any{
		"tournamentId": {"WINTER2024", "SPRING2025", "X"}, "region": {"NA-EAST", "EU-WEST"},
		"round": {0, 1, 2, 3, 4}, "bracket": {"LOWER", "UPPER", "M", "UP", "L"}, "matchNumber": {0, 1, 2, 3, 4, 5},
		"matchId": {"WINTER2024-NA-EAST-r2-UPPER-m3", "SPRING2025", "W", "sparse-no-number-1"},
	}
	legal, illegal := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		ix := rapid.SampledFrom([]mgsiIndex{mgsiByRegion, mgsiByRound}).Draw(rt, "index")
		q := mgsiQuery{ix: ix}
		valid, rangeSeen, gap := true, false, false
		for i, a := range append(slices.Clone(ix.hash), ix.sort...) {
			isHash := i < len(ix.hash)
			// Partition attributes are given nine times in ten, sort
			// attributes six in ten.
			if rapid.IntRange(0, 9).Draw(rt, "has "+a) >= map[bool]int{true: 9, false: 6}[isHash] {
				valid = valid && !isHash
				gap = gap || !isHash
				continue
			}
			// Mostly equalities (nine in ten on a partition attribute, one
			// in two on a sort attribute), so that legal conditions are
			// common.
			ops := []string{"<", "<=", ">", ">=", "BETWEEN"}
			if !mgsiNumeric[a] {
				ops = append(ops, "begins_with")
			}
			op := "="
			if rapid.IntRange(0, 9).Draw(rt, "eq "+a) >= map[bool]int{true: 9, false: 5}[isHash] {
				op = rapid.SampledFrom(ops).Draw(rt, "op "+a)
			}
			v := rapid.SampledFrom(domain[a]).Draw(rt, "value "+a)
			vals := []any{v}
			if op == "BETWEEN" {
				w := rapid.SampledFrom(domain[a]).Draw(rt, "upper "+a)
				if compareAny(v, w) > 0 {
					v, w = w, v
				}
				vals = []any{v, w}
			}
			q.conds = append(q.conds, mgsiCond{a, op, vals})
			switch {
			case isHash:
				valid = valid && op == "="
			case gap || rangeSeen:
				valid = false
			default:
				rangeSeen = op != "="
			}
		}
		if len(q.conds) == 0 {
			return
		}
		forward := rapid.Bool().Draw(rt, "forward")
		kce, names, values := q.expression()
		vals := map[string]types.AttributeValue{}
		for k, v := range values {
			vals[k] = sdkValue(v)
		}
		ids := func(out *dynamodb.QueryOutput) []string {
			var ids []string
			for _, it := range out.Items {
				ids = append(ids, it["matchId"].(*types.AttributeValueMemberS).Value)
			}
			return ids
		}
		exprOut, exprErr := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(ix.name),
			KeyConditionExpression: aws.String(kce), ExpressionAttributeNames: names, ExpressionAttributeValues: vals, ScanIndexForward: aws.Bool(forward)})
		legacyOut, legacyErr := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Matches"), IndexName: aws.String(ix.name),
			KeyConditions: q.keyConditions(), ScanIndexForward: aws.Bool(forward)})
		if !valid {
			illegal++
			var msgs []string
			for what, err := range map[string]error{"KeyConditionExpression " + kce: exprErr, "KeyConditions": legacyErr} {
				var ae smithy.APIError
				if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" {
					rt.Fatalf("%s on %s: %v, want a ValidationException", what, ix.name, err)
				}
				msgs = append(msgs, ae.ErrorMessage())
			}
			if msgs[0] != msgs[1] {
				rt.Fatalf("%s on %s: the refusals differ:\n %q\n %q", kce, ix.name, msgs[0], msgs[1])
			}
			return
		}
		if exprErr != nil || legacyErr != nil {
			rt.Fatalf("legal condition %s on %s: expression %v, legacy %v", kce, ix.name, exprErr, legacyErr)
		}
		legal++
		want := q.want(ms, forward)
		if diff := gocmp.Diff(want, ids(exprOut), cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("KeyConditionExpression %s on %s (-want +got):\n%s", kce, ix.name, diff)
		}
		if diff := gocmp.Diff(want, ids(legacyOut), cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("KeyConditions %v on %s (-want +got):\n%s", q.conds, ix.name, diff)
		}
	})
	// Both kinds are drawn often enough to test something.
	if legal*10 < legal+illegal || illegal*10 < legal+illegal {
		t.Errorf("%d legal and %d illegal conditions drawn: the generator is lopsided", legal, illegal)
	}
}

// TestSDKMultiAttributePartiQL: ExecuteStatement's SELECT on a
// multi-attribute index, a Query of the partition its WHERE pins (the
// sort attributes' conditions in its key condition), paged by Limit and
// NextToken, in index order.
func TestSDKMultiAttributePartiQL(t *testing.T) {
	_, c := newTestClient(t, Config{})
	ms := putMatches(t, c)
	w, eu := eq("tournamentId", "WINTER2024"), eq("region", "EU-WEST")
	for _, tc := range []struct {
		stmt string
		q    mgsiQuery
	}{
		{`SELECT * FROM "Matches"."ByRound" WHERE tournamentId = 'WINTER2024' AND region = 'EU-WEST' AND round = 2`,
			mgsiQuery{mgsiByRound, []mgsiCond{w, eu, eq("round", 2)}}},
		{`SELECT * FROM "Matches"."ByRound" WHERE round = 2 AND region = 'EU-WEST' AND tournamentId = 'WINTER2024' AND bracket = 'UPPER' AND matchNumber >= 2`,
			mgsiQuery{mgsiByRound, []mgsiCond{w, eu, eq("round", 2), eq("bracket", "UPPER"), {"matchNumber", ">=", []any{2}}}}},
		{`SELECT * FROM "Matches"."TournamentRegionIndex" WHERE tournamentId = 'WINTER2024' AND region = 'EU-WEST' AND round BETWEEN 2 AND 3`,
			mgsiQuery{mgsiByRegion, []mgsiCond{w, eu, {"round", "BETWEEN", []any{2, 3}}}}},
	} {
		var ids []string
		in := &dynamodb.ExecuteStatementInput{Statement: aws.String(tc.stmt), Limit: aws.Int32(3)}
		for page := 0; page < 50; page++ {
			out, err := c.ExecuteStatement(ctx(t), in)
			if err != nil {
				t.Fatalf("%s: %v", tc.stmt, err)
			}
			for _, it := range out.Items {
				ids = append(ids, it["matchId"].(*types.AttributeValueMemberS).Value)
			}
			if out.NextToken == nil {
				break
			}
			in.NextToken = out.NextToken
		}
		if diff := gocmp.Diff(tc.q.want(ms, true), ids, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.stmt, diff)
		}
	}
}

// putMatches creates the table Matches (mgsiTableInput) and puts
// mgsiMatches into it, returning them.
func putMatches(t *testing.T, c *dynamodb.Client) []mgsiMatch {
	t.Helper()
	mustCreateTable(t, c, mgsiTableInput("Matches"))
	ms := mgsiMatches()
	for _, m := range ms {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Matches"), Item: sdkItem(m.attrs())}); err != nil {
			t.Fatal(err)
		}
	}
	return ms
}
