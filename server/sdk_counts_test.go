package server

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DescribeTable's ItemCount, TableSizeBytes and each index's ItemCount
// and IndexSizeBytes are exact right after the writes (a documented
// difference: DynamoDB refreshes them about every six hours), whichever
// operation wrote: PutItem, BatchWriteItem, TransactWriteItems, PartiQL,
// DeleteItem.
func TestSDKDescribeTableCounts(t *testing.T) {
	_, c := newTestClient(t, Config{})
	_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Counted"), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	table := aws.String("Counted")
	// Sizes, by DynamoDB's rule (name bytes + string bytes): pk=a 3,
	// pk=b,g=x 5, pk=c 3, pk=d 3; byG holds b's keys, 5 bytes.
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: map[string]types.AttributeValue{"pk": s("a")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Counted": {
		{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("b"), "g": s("x")}}},
		{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("z")}}},
	}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: table, Item: map[string]types.AttributeValue{"pk": s("c")}}},
		{Delete: &types.Delete{TableName: table, Key: map[string]types.AttributeValue{"pk": s("z")}}},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "Counted" VALUE {'pk': 'd'}`)}); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: table})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Table; aws.ToInt64(got.ItemCount) != 4 || aws.ToInt64(got.TableSizeBytes) != 14 {
		t.Errorf("ItemCount, TableSizeBytes = %d, %d; want 4, 14", aws.ToInt64(got.ItemCount), aws.ToInt64(got.TableSizeBytes))
	}
	if g := d.Table.GlobalSecondaryIndexes; len(g) != 1 || aws.ToInt64(g[0].ItemCount) != 1 || aws.ToInt64(g[0].IndexSizeBytes) != 5 {
		t.Errorf("byG = %+v, want ItemCount 1, IndexSizeBytes 5", g)
	}
}
