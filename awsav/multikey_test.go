package awsav_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/awsav"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// The SDK's expression builder writes the key condition of a
// multi-attribute global secondary index key (its KeyAnd takes two or
// more conditions, all equalities but the last); converted by
// FromExpression, the condition queries such an index on fdyno as on
// DynamoDB: every partition attribute pinned, sort attributes left to
// right, a range condition on the last one given (the developer guide's
// "Multi-attribute key schema").
func TestBuiltMultiAttributeKeyCondition(t *testing.T) {
	db := fdblitetest.Open(t)
	root := fdblitetest.UniqueDirectory(t, db)
	key := func(kt fdyno.KeyType, names ...string) []fdyno.KeySchemaElement {
		var ks []fdyno.KeySchemaElement
		for _, n := range names {
			ks = append(ks, fdyno.KeySchemaElement{AttributeName: n, KeyType: kt})
		}
		return ks
	}
	def := func(name string, t fdyno.ScalarAttributeType) fdyno.AttributeDefinition {
		return fdyno.AttributeDefinition{AttributeName: name, AttributeType: t}
	}
	const s, n = fdyno.ScalarAttributeTypeS, fdyno.ScalarAttributeTypeN
	tbl, err := fdyno.Open(db, "Matches", fdyno.WithRoot(root.GetPath()...), fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            key(fdyno.KeyTypeHash, "matchId"),
		AttributeDefinitions: []fdyno.AttributeDefinition{def("matchId", s), def("tournamentId", s), def("region", s), def("round", n), def("bracket", s)},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "TournamentRegionIndex",
			KeySchema:  append(key(fdyno.KeyTypeHash, "tournamentId", "region"), key(fdyno.KeyTypeRange, "round", "bracket")...),
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeAll}}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range []fdyno.Item{
		{"matchId": fdyno.S("m1"), "tournamentId": fdyno.S("W24"), "region": fdyno.S("NA"), "round": fdyno.NInt(1), "bracket": fdyno.S("UPPER")},
		{"matchId": fdyno.S("m2"), "tournamentId": fdyno.S("W24"), "region": fdyno.S("NA"), "round": fdyno.NInt(2), "bracket": fdyno.S("UPPER")},
		{"matchId": fdyno.S("m3"), "tournamentId": fdyno.S("W24"), "region": fdyno.S("NA"), "round": fdyno.NInt(2), "bracket": fdyno.S("LOWER")},
		{"matchId": fdyno.S("m4"), "tournamentId": fdyno.S("W24"), "region": fdyno.S("EU"), "round": fdyno.NInt(2), "bracket": fdyno.S("UPPER")},
		{"matchId": fdyno.S("m5"), "tournamentId": fdyno.S("W24"), "region": fdyno.S("NA"), "round": fdyno.NInt(3)}, // no bracket: not indexed
	} {
		if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	pk := []expression.KeyConditionBuilder{
		expression.Key("tournamentId").Equal(expression.Value("W24")),
		expression.Key("region").Equal(expression.Value("NA")),
	}
	tests := []struct {
		name    string
		cond    expression.KeyConditionBuilder
		forward bool
		want    []string
	}{
		{"partition", expression.KeyAnd(pk...), true, []string{"m1", "m3", "m2"}},
		{"partition backward", expression.KeyAnd(pk...), false, []string{"m2", "m3", "m1"}},
		{"first sort attribute", expression.KeyAnd(append(pk, expression.Key("round").Equal(expression.Value(2)))...), true, []string{"m3", "m2"}},
		{"range on the first", expression.KeyAnd(append(pk, expression.Key("round").GreaterThanEqual(expression.Value(2)))...), true, []string{"m3", "m2"}},
		{"both sort attributes", expression.KeyAnd(append(pk, expression.Key("round").Equal(expression.Value(2)), expression.KeyBeginsWith(expression.Key("bracket"), "UP"))...), true, []string{"m2"}},
		{"chained And", pk[0].And(pk[1]).And(expression.KeyBetween(expression.Key("round"), expression.Value(1), expression.Value(1))), true, []string{"m1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			built, err := expression.NewBuilder().WithKeyCondition(tc.cond).Build()
			if err != nil {
				t.Fatal(err)
			}
			x, err := awsav.FromExpression(built)
			if err != nil {
				t.Fatal(err)
			}
			in, err := x.QueryInput()
			if err != nil {
				t.Fatal(err)
			}
			in.IndexName, in.ScanIndexForward = "TournamentRegionIndex", fdyno.Forward(tc.forward)
			out, err := tbl.Query(db, in)
			if err != nil {
				t.Fatalf("Query %q: %v", x.KeyCondition, err)
			}
			var ids []string
			for _, it := range out.Items {
				ids = append(ids, it["matchId"].S())
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("Query %q = %v, want %v", x.KeyCondition, ids, tc.want)
			}
		})
	}
	// A built condition that skips a sort attribute fails as on DynamoDB.
	skip, err := expression.NewBuilder().WithKeyCondition(expression.KeyAnd(append(pk, expression.Key("bracket").Equal(expression.Value("UPPER")))...)).Build()
	if err != nil {
		t.Fatal(err)
	}
	x, err := awsav.FromExpression(skip)
	if err != nil {
		t.Fatal(err)
	}
	in, err := x.QueryInput()
	if err != nil {
		t.Fatal(err)
	}
	in.IndexName = "TournamentRegionIndex"
	if _, err := tbl.Query(db, in); !errors.Is(err, fdyno.ErrValidation) || !strings.Contains(err.Error(), "round") {
		t.Errorf("Query skipping round: error = %v, want a ValidationError naming round", err)
	}
}
