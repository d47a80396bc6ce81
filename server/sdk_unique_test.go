package server

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// A table made through the library with a unique GSI (a library-only
// flag) refuses, through fdyno-server, a PutItem that would give a second
// item the same email with a ConditionalCheckFailedException naming the
// index, and a TransactWriteItems with a ConditionalCheckFailed
// cancellation reason; neither writes anything.
func TestSDKUniqueIndex(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	if _, err := fdyno.Open(db, "Accounts", fdyno.WithSchema(fdyno.TableSchema{
		KeySchema: []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS},
			{AttributeName: "email", AttributeType: fdyno.ScalarAttributeTypeS}},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "byEmail", Unique: true,
			KeySchema:  []fdyno.KeySchemaElement{{AttributeName: "email", KeyType: fdyno.KeyTypeHash}},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly}}},
	})); err != nil {
		t.Fatal(err)
	}
	_, c := newTestClient(t, Config{DB: db})
	table := aws.String("Accounts")
	user := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(pk), "email": s("ann@example.com")}
	}
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: user("a")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: user("b")})
	wantAPIError(t, err, "ConditionalCheckFailedException", "unique index byEmail")
	_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: table, Item: map[string]types.AttributeValue{"pk": s("c")}}},
		{Put: &types.Put{TableName: table, Item: user("d")}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[1].Code) != "ConditionalCheckFailed" {
		t.Errorf("TransactWriteItems claiming ann@ = %v, want ConditionalCheckFailed for the second action", err)
	}
	for _, pk := range []string{"b", "c", "d"} {
		out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: table, Key: map[string]types.AttributeValue{"pk": s(pk)}})
		if err != nil || out.Item != nil {
			t.Errorf("item %s after the refusals = %v, %v; want none", pk, out.Item, err)
		}
	}
}
