package server

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestSDKReadCapacity checks Query's and Scan's ConsumedCapacity against
// DynamoDB's developer guide: the sizes of the items read are summed
// before rounding up to 4 KB per unit; the filter and the projection do
// not lower it ("the amount of data returned ... does not change the
// capacity consumed"); eventually consistent reads cost half; a secondary
// index's reads are charged to the index.
func TestSDKReadCapacity(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := ts.client(testCredentials)
	_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Cap"), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}, {AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byPkG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("g"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Four items of about 1.5 KB: about 6 KB together, 2 units summed
	// (4 if each were rounded on its own).
	payload := strings.Repeat("x", 1500)
	for i := 1; i <= 4; i++ {
		_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Cap"), Item: map[string]types.AttributeValue{
			"pk": s("p"), "sk": n(strconv.Itoa(i)), "g": s("G"), "payload": s(payload)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	vals := map[string]types.AttributeValue{":p": s("p"), ":no": s("no such payload")}
	q, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Cap"), KeyConditionExpression: aws.String("pk = :p"),
		FilterExpression: aws.String("payload = :no"), ProjectionExpression: aws.String("sk"), ExpressionAttributeValues: vals,
		ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != 0 || q.ConsumedCapacity == nil || aws.ToFloat64(q.ConsumedCapacity.CapacityUnits) != 2 {
		t.Errorf("consistent filtered Query: Count %d, ConsumedCapacity %+v; want 0 items, 2 units", q.Count, q.ConsumedCapacity)
	}
	sc, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String("Cap"), ProjectionExpression: aws.String("sk"),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	if cc := sc.ConsumedCapacity; cc == nil || aws.ToFloat64(cc.CapacityUnits) != 1 || cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != 1 || cc.GlobalSecondaryIndexes != nil {
		t.Errorf("eventually consistent Scan INDEXES: %+v; want 1 unit, charged to the table", cc)
	}
	// A GSI Query (eventually consistent): the index is charged, not the
	// table.
	g, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Cap"), IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("G")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	if cc := g.ConsumedCapacity; cc == nil || aws.ToFloat64(cc.CapacityUnits) != 1 || cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != 0 ||
		aws.ToFloat64(cc.GlobalSecondaryIndexes["byG"].CapacityUnits) != 1 || cc.LocalSecondaryIndexes != nil {
		t.Errorf("GSI Query INDEXES: %+v; want 1 unit charged to byG", cc)
	}
	l, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Cap"), IndexName: aws.String("byPkG"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}, ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	if cc := l.ConsumedCapacity; cc == nil || aws.ToFloat64(cc.CapacityUnits) != 2 || aws.ToFloat64(cc.LocalSecondaryIndexes["byPkG"].CapacityUnits) != 2 || cc.GlobalSecondaryIndexes != nil {
		t.Errorf("LSI Query INDEXES: %+v; want 2 units charged to byPkG", cc)
	}
}

// TestSDKTransactionCapacity: transactional reads and writes cost twice
// the units of the same operations outside a transaction (DynamoDB's
// developer guide, "Capacity management for transactions"), reported per
// table.
func TestSDKTransactionCapacity(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := ts.client(testCredentials)
	createTable(t, c, "TxA", "", "")
	createTable(t, c, "TxB", "", "")
	big := strings.Repeat("x", 1500) // 2 write units, 1 read unit
	w, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("TxA"), Item: map[string]types.AttributeValue{"pk": s("small")}}},
			{Put: &types.Put{TableName: aws.String("TxA"), Item: map[string]types.AttributeValue{"pk": s("big"), "v": s(big)}}},
			{Put: &types.Put{TableName: aws.String("TxB"), Item: map[string]types.AttributeValue{"pk": s("b")}}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, cc := range w.ConsumedCapacity {
		got[aws.ToString(cc.TableName)] = aws.ToFloat64(cc.CapacityUnits)
	}
	if len(got) != 2 || got["TxA"] != 2*(1+2) || got["TxB"] != 2*1 {
		t.Errorf("TransactWriteItems ConsumedCapacity per table = %v, want TxA 6, TxB 2", got)
	}
	r, err := c.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String("TxA"), Key: map[string]types.AttributeValue{"pk": s("big")}}},
			{Get: &types.Get{TableName: aws.String("TxA"), Key: map[string]types.AttributeValue{"pk": s("small")}}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ConsumedCapacity) != 1 || aws.ToString(r.ConsumedCapacity[0].TableName) != "TxA" || aws.ToFloat64(r.ConsumedCapacity[0].CapacityUnits) != 4 {
		t.Errorf("TransactGetItems ConsumedCapacity = %+v, want 4 units of TxA", r.ConsumedCapacity)
	}
	// Not asked, not sent.
	w, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String("TxB"), Key: map[string]types.AttributeValue{"pk": s("b")}}}}})
	if err != nil || w.ConsumedCapacity != nil {
		t.Errorf("TransactWriteItems without ReturnConsumedCapacity: %v, %+v", err, w.ConsumedCapacity)
	}
}
