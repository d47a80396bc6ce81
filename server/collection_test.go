package server

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// TestSDKItemCollectionMetrics checks ReturnItemCollectionMetrics SIZE as
// DynamoDB documents it: for a table with a local secondary index, each
// write returns the collection's partition key and a two-element size
// range in GB (here a small collection: [0, 1]); a table without one, or
// NONE, returns nothing.
func TestSDKItemCollectionMetrics(t *testing.T) {
	_, c := newTestClient(t, Config{})
	_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName:   aws.String("Coll"),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeS}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("Lsi"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, c, "NoLsi", "", "")
	key := map[string]types.AttributeValue{"pk": s("p"), "sk": s("a")}
	want := &types.ItemCollectionMetrics{ItemCollectionKey: map[string]types.AttributeValue{"pk": s("p")}, SizeEstimateRangeGB: []float64{0, 1}}
	opts := cmp.Options{cmpAV, cmp.AllowUnexported(types.ItemCollectionMetrics{})}

	put, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Coll"), Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("a"), "l": s("x")},
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, put.ItemCollectionMetrics, opts...); diff != "" {
		t.Errorf("PutItem ItemCollectionMetrics (-want +got):\n%s", diff)
	}
	upd, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String("Coll"), Key: key, UpdateExpression: aws.String("SET v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1")}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, upd.ItemCollectionMetrics, opts...); diff != "" {
		t.Errorf("UpdateItem ItemCollectionMetrics (-want +got):\n%s", diff)
	}
	none, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Coll"), Item: key, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsNone})
	if err != nil || none.ItemCollectionMetrics != nil {
		t.Errorf("PutItem with NONE: %v, %+v; want no metrics", err, none.ItemCollectionMetrics)
	}
	del, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String("Coll"), Key: key, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, del.ItemCollectionMetrics, opts...); diff != "" {
		t.Errorf("DeleteItem ItemCollectionMetrics (-want +got):\n%s", diff)
	}
	plain, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("NoLsi"), Item: map[string]types.AttributeValue{"pk": s("p")},
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil || plain.ItemCollectionMetrics != nil {
		t.Errorf("PutItem on a table without LSI: %v, %+v; want no metrics", err, plain.ItemCollectionMetrics)
	}

	// BatchWriteItem and TransactWriteItems list, per table with an LSI,
	// the metrics of each collection their writes touched, once each
	// (API_BatchWriteItem, API_TransactWriteItems: "ItemCollectionMetrics").
	item := func(pk, sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk)}
	}
	wantMany := map[string][]types.ItemCollectionMetrics{"Coll": {
		{ItemCollectionKey: map[string]types.AttributeValue{"pk": s("p")}, SizeEstimateRangeGB: []float64{0, 1}},
		{ItemCollectionKey: map[string]types.AttributeValue{"pk": s("q")}, SizeEstimateRangeGB: []float64{0, 1}},
	}}
	bw, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"Coll": {{PutRequest: &types.PutRequest{Item: item("p", "1")}}, {PutRequest: &types.PutRequest{Item: item("p", "2")}},
			{DeleteRequest: &types.DeleteRequest{Key: item("q", "1")}}},
		"NoLsi": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("x")}}}},
	}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantMany, bw.ItemCollectionMetrics, opts...); diff != "" {
		t.Errorf("BatchWriteItem ItemCollectionMetrics (-want +got):\n%s", diff)
	}
	tw, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Coll"), Item: item("q", "2")}},
		{Update: &types.Update{TableName: aws.String("Coll"), Key: item("p", "1"), UpdateExpression: aws.String("SET v = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("2")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("NoLsi"), Key: map[string]types.AttributeValue{"pk": s("x")},
			ConditionExpression: aws.String("attribute_exists(pk)")}},
	}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil {
		t.Fatal(err)
	}
	wantTx := map[string][]types.ItemCollectionMetrics{"Coll": {wantMany["Coll"][1], wantMany["Coll"][0]}}
	if diff := cmp.Diff(wantTx, tw.ItemCollectionMetrics, opts...); diff != "" {
		t.Errorf("TransactWriteItems ItemCollectionMetrics (-want +got):\n%s", diff)
	}
	bw, err = c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"Coll": {{PutRequest: &types.PutRequest{Item: item("p", "3")}}},
	}})
	if err != nil || bw.ItemCollectionMetrics != nil {
		t.Errorf("BatchWriteItem without ReturnItemCollectionMetrics: %v, %+v; want no metrics", err, bw.ItemCollectionMetrics)
	}
}

// TestSDKBatchConsumedCapacity checks BatchWriteItem's and BatchGetItem's
// ConsumedCapacity: one entry per table; each item rounded up on its own
// (1 KB per write unit, 4 KB per read unit); a key with no item costs a
// read unit; eventually consistent reads cost half.
func TestSDKBatchConsumedCapacity(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "CapA", "", "")
	createTable(t, c, "CapB", "", "")
	big := strings.Repeat("x", 1500) // about 1.5 KB: two write units
	w, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{
			"CapA": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("a1")}}},
				{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("a2")}}}},
			"CapB": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("b1"), "v": s(big)}}}},
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, cc := range w.ConsumedCapacity {
		got[aws.ToString(cc.TableName)] = aws.ToFloat64(cc.CapacityUnits)
	}
	if diff := cmp.Diff(map[string]float64{"CapA": 2, "CapB": 2}, got); diff != "" {
		t.Errorf("BatchWriteItem ConsumedCapacity (-want +got):\n%s", diff)
	}
	for _, consistent := range []bool{false, true} {
		g, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{
			RequestItems: map[string]types.KeysAndAttributes{
				"CapA": {Keys: []map[string]types.AttributeValue{{"pk": s("a1")}, {"pk": s("missing")}}, ConsistentRead: aws.Bool(consistent)},
				"CapB": {Keys: []map[string]types.AttributeValue{{"pk": s("b1")}}, ConsistentRead: aws.Bool(consistent)},
			},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, cc := range g.ConsumedCapacity {
			got[aws.ToString(cc.TableName)] = aws.ToFloat64(cc.CapacityUnits)
		}
		want := map[string]float64{"CapA": 1, "CapB": 0.5}
		if consistent {
			want = map[string]float64{"CapA": 2, "CapB": 1}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("BatchGetItem (consistent %v) ConsumedCapacity (-want +got):\n%s", consistent, diff)
		}
	}
	// Not asked for: absent.
	g, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"CapA": {Keys: []map[string]types.AttributeValue{{"pk": s("a1")}}}}})
	if err != nil || g.ConsumedCapacity != nil {
		t.Errorf("BatchGetItem without ReturnConsumedCapacity: %v, %v; want none", err, g.ConsumedCapacity)
	}
}
