package server

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// TestRoundTripBudgets checks that a request through the server costs the
// FoundationDB round trips of the library operation it serves and no more
// (the library's budgets: fdyno's roundtrips_test.go): the server adds no
// read of its own once a table's handle is open.
func TestRoundTripBudgets(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	// The counts are the database's: no background work may read
	// meanwhile (the TTL sweeper and the stream trimmer walk the tables).
	ts, c := newTestClient(t, Config{DB: db, TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1})
	createTable(t, c, "Budget", "sk", types.ScalarAttributeTypeN)
	// A table with a stream: every write reads the old item and records
	// the change, in one wave (fdyno owns the server's transactions as it
	// owns an fdb.Database's: transactor.go).
	createStreamTable(t, c, "BudgetStream", types.StreamViewTypeNewAndOldImages)
	// A table with a multi-attribute global secondary index (two
	// partition, three sort attributes). Every table is created before
	// any is warmed: a creation makes the handles reload their schema.
	mustCreateTable(t, c, mgsiTableInput("BudgetMatches"))
	matches := aws.String("BudgetMatches")
	match := sdkItem(mgsiMatches()[0].attrs())
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: matches, Item: match}); err != nil {
		t.Fatal(err)
	}
	streamed := aws.String("BudgetStream")
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: streamed, Item: map[string]types.AttributeValue{"pk": s("warm")}}); err != nil {
		t.Fatal(err)
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	key := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s("p"), "sk": n(sk)}
	}
	item := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s("p"), "sk": n(sk), "a": s("v")}
	}
	table := aws.String("Budget")
	// Warm the server's handle on the table (its schema load is a
	// directory open, once).
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: item("1")}); err != nil {
		t.Fatal(err)
	}
	// The first TransactWriteItems (the SDK always sends a
	// ClientRequestToken) opens the root directory the token lives under,
	// once per table schema.
	if _, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: table, Key: key("1"), ConditionExpression: aws.String("attribute_exists(pk)")}},
	}}); err != nil {
		t.Fatal(err)
	}
	rt := func(rv, waves, commits int64) fdblitetest.RoundTrips {
		return fdblitetest.RoundTrips{ReadVersions: rv, ReadWaves: waves, Commits: commits}
	}
	tests := []struct {
		name string
		fn   func() error
		want fdblitetest.RoundTrips
	}{
		{"PutItem", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: item("2")})
			return err
		}, rt(1, 1, 1)}, // the old item's read keeps the counts exact (counts.go)
		{"PutItem with condition", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: item("3"), ConditionExpression: aws.String("attribute_not_exists(pk)")})
			return err
		}, rt(1, 1, 1)},
		{"GetItem", func() error {
			_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: table, Key: key("1")})
			return err
		}, rt(1, 1, 0)},
		{"UpdateItem", func() error {
			_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: table, Key: key("1"), UpdateExpression: aws.String("SET a = :a"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":a": s("u")}})
			return err
		}, rt(1, 1, 1)},
		{"DeleteItem", func() error {
			_, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: table, Key: key("3")})
			return err
		}, rt(1, 1, 1)},
		{"Query", func() error {
			_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: table, KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}})
			return err
		}, rt(1, 1, 0)},
		{"Scan", func() error {
			_, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: table})
			return err
		}, rt(1, 1, 0)},
		{"BatchGetItem", func() error {
			_, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				"Budget": {Keys: []map[string]types.AttributeValue{key("1"), key("2"), key("9")}}}})
			return err
		}, rt(1, 1, 0)},
		{"PutItem with a stream", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: streamed, Item: map[string]types.AttributeValue{"pk": s("p"), "a": s("v")}})
			return err
		}, rt(1, 1, 1)},
		{"UpdateItem with a stream", func() error {
			_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: streamed, Key: map[string]types.AttributeValue{"pk": s("p")},
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}})
			return err
		}, rt(1, 1, 1)},
		{"DeleteItem with a stream", func() error {
			_, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: streamed, Key: map[string]types.AttributeValue{"pk": s("p")}})
			return err
		}, rt(1, 1, 1)},
		// An index with a multi-attribute key costs what any index
		// costs: a write reads the old item to move its entries, a Query
		// page is one range read.
		{"PutItem with a multi-attribute index", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: matches, Item: match})
			return err
		}, rt(1, 1, 1)},
		{"Query of a multi-attribute index", func() error {
			_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: matches, IndexName: aws.String(mgsiByRegion.name),
				KeyConditionExpression:    aws.String("tournamentId = :t AND #r = :r AND #n = :n AND begins_with(bracket, :b)"),
				ExpressionAttributeNames:  map[string]string{"#r": "region", "#n": "round"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":t": s("WINTER2024"), ":r": s("NA-EAST"), ":n": n("1"), ":b": s("UP")}})
			return err
		}, rt(1, 1, 0)},
		{"TransactWriteItems", func() error {
			_, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: table, Item: item("4")}},
				{Put: &types.Put{TableName: table, Item: item("5"), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
				{ConditionCheck: &types.ConditionCheck{TableName: table, Key: key("1"), ConditionExpression: aws.String("attribute_exists(pk)")}},
			}})
			return err
		}, rt(1, 1, 1)},
	}
	// The background work the server starts with (its first walk resuming
	// backfills; the sweeper, trimmer and count builder are off) reads the tables too:
	// wait for it to end before counting, or a slow machine counts its
	// reads as a request's. The next walk is a minute away.
	testtime.WaitUntil(t, "the first backfill resume", func() bool { return ts.bg.resumes.Load() > 0 })
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fdblitetest.CountRoundTrips(db, tc.fn)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-20s %v", tc.name, got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: round trips over budget (-budget +got):\n%s", tc.name, diff)
			}
		})
	}
}
