package fdyno_test

import (
	"fmt"

	"github.com/fdyno/fdyno"
)

// A global secondary index may have a partition key of up to four
// attributes and a sort key of up to four more (DynamoDB's multi-attribute
// keys): here matches by tournament and region, ordered by round, then
// bracket. A query gives every partition attribute with =, and the sort
// attributes from the left, only the last one given with a range
// condition; it reads one key range.
func ExampleTable_Query_multiAttributeKey() {
	db, root := exampleDB("QueryMultiAttributeKey")
	s := func(name string) fdyno.AttributeDefinition {
		return fdyno.AttributeDefinition{AttributeName: name, AttributeType: fdyno.ScalarAttributeTypeS}
	}
	schema := fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "matchId", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{s("matchId"), s("tournamentId"), s("region"), s("round"), s("bracket")},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{
			IndexName: "TournamentRegionIndex",
			KeySchema: []fdyno.KeySchemaElement{
				{AttributeName: "tournamentId", KeyType: fdyno.KeyTypeHash},
				{AttributeName: "region", KeyType: fdyno.KeyTypeHash},
				{AttributeName: "round", KeyType: fdyno.KeyTypeRange},
				{AttributeName: "bracket", KeyType: fdyno.KeyTypeRange},
			},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly},
		}},
	}
	matches, err := fdyno.Open(db, "TournamentMatches", root, fdyno.WithSchema(schema))
	if err != nil {
		panic(err)
	}
	for _, m := range [][5]string{
		{"match-001", "WINTER2024", "NA-EAST", "SEMIFINALS", "UPPER"},
		{"match-002", "WINTER2024", "NA-EAST", "SEMIFINALS", "LOWER"},
		{"match-003", "WINTER2024", "NA-EAST", "FINALS", "CHAMPIONSHIP"},
		{"match-004", "WINTER2024", "NA-WEST", "SEMIFINALS", "UPPER"},
	} {
		it := fdyno.Item{"matchId": fdyno.S(m[0]), "tournamentId": fdyno.S(m[1]), "region": fdyno.S(m[2]), "round": fdyno.S(m[3]), "bracket": fdyno.S(m[4])}
		if _, err := matches.Put(db, fdyno.PutInput{Item: it}); err != nil {
			panic(err)
		}
	}
	out, err := matches.Query(db, fdyno.QueryInput{
		IndexName:                 "TournamentRegionIndex",
		KeyConditionExpression:    "tournamentId = :t AND #region = :r AND round = :round",
		ExpressionAttributeNames:  map[string]string{"#region": "region"},
		ExpressionAttributeValues: map[string]fdyno.Value{":t": fdyno.S("WINTER2024"), ":r": fdyno.S("NA-EAST"), ":round": fdyno.S("SEMIFINALS")},
	})
	if err != nil {
		panic(err)
	}
	for _, it := range out.Items {
		fmt.Println(it["matchId"].S(), it["bracket"].S())
	}
	// A sort attribute skipped is refused, in DynamoDB's words.
	_, err = matches.Query(db, fdyno.QueryInput{
		IndexName:                 "TournamentRegionIndex",
		KeyConditionExpression:    "tournamentId = :t AND #region = :r AND bracket = :b",
		ExpressionAttributeNames:  map[string]string{"#region": "region"},
		ExpressionAttributeValues: map[string]fdyno.Value{":t": fdyno.S("WINTER2024"), ":r": fdyno.S("NA-EAST"), ":b": fdyno.S("UPPER")},
	})
	fmt.Println(err)
	// Output:
	// match-002 LOWER
	// match-001 UPPER
	// fdyno: ValidationException: Query: RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute bracket
}
