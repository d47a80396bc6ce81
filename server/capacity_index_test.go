package server

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSDKWriteCapacityIndexes checks a write's ConsumedCapacity with
// INDEXES against the rules of DynamoDB's developer guide ("Provisioned
// throughput considerations for Global Secondary Indexes", and the same
// for local ones): an entry put into or removed from an index is one write
// per KB of the entry; an index key changed is two; only projected
// attributes changed is one; an item in an index neither before nor after
// costs it nothing. The totals include the indexes; TOTAL gives only them.
func TestSDKWriteCapacityIndexes(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createCapsTable(t, c)
	key := map[string]types.AttributeValue{"pk": s("p"), "sk": s("1")}
	units := func(n float64) types.Capacity {
		return types.Capacity{CapacityUnits: aws.Float64(n), WriteCapacityUnits: aws.Float64(n)}
	}
	want := func(table float64, gsi, lsi float64) *types.ConsumedCapacity {
		cc := &types.ConsumedCapacity{TableName: aws.String("Caps"), CapacityUnits: aws.Float64(table + gsi + lsi),
			WriteCapacityUnits: aws.Float64(table + gsi + lsi), Table: &types.Capacity{CapacityUnits: aws.Float64(table), WriteCapacityUnits: aws.Float64(table)}}
		if gsi > 0 {
			cc.GlobalSecondaryIndexes = map[string]types.Capacity{"Gsi": units(gsi)}
		}
		if lsi > 0 {
			cc.LocalSecondaryIndexes = map[string]types.Capacity{"Lsi": units(lsi)}
		}
		return cc
	}
	update := func(expr string, v string) (*types.ConsumedCapacity, error) {
		out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String("Caps"), Key: key, UpdateExpression: aws.String(expr),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": s(v)}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			return nil, err
		}
		return out.ConsumedCapacity, nil
	}
	steps := []struct {
		name string
		do   func() (*types.ConsumedCapacity, error)
		want *types.ConsumedCapacity
	}{
		{"put a new item in both indexes", func() (*types.ConsumedCapacity, error) {
			out, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Caps"),
				Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("1"), "g": s("a"), "l": s("x")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}, want(1, 1, 1)},
		{"change the GSI's key", func() (*types.ConsumedCapacity, error) { return update("SET g = :v", "b") }, want(1, 2, 1)},
		{"change an attribute only the LSI projects", func() (*types.ConsumedCapacity, error) { return update("SET extra = :v", "o") }, want(1, 0, 1)},
		{"delete the item", func() (*types.ConsumedCapacity, error) {
			out, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String("Caps"), Key: key, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}, want(1, 1, 1)},
		{"put an item in no index", func() (*types.ConsumedCapacity, error) {
			out, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Caps"), Item: key, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}, want(1, 0, 0)},
	}
	for _, st := range steps {
		got, err := st.do()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if diff := cmp.Diff(st.want, got, cmpopts.IgnoreUnexported(types.ConsumedCapacity{}, types.Capacity{})); diff != "" {
			t.Errorf("%s: ConsumedCapacity (-want +got):\n%s", st.name, diff)
		}
	}
	// TOTAL: the same total, without the breakdown.
	out, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Caps"),
		Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("2"), "g": s("a")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.ConsumedCapacity; aws.ToFloat64(got.CapacityUnits) != 2 || got.Table != nil || got.GlobalSecondaryIndexes != nil {
		t.Errorf("TOTAL: %+v, want CapacityUnits 2 (table and GSI) and no breakdown", got)
	}
}

// TestSDKBatchTransactCapacityIndexes checks the index entries of
// BatchWriteItem and TransactWriteItems under INDEXES, by the rules
// above, summed per table and index: each request or action costs its
// indexes what the same write costs alone. A transaction charges its
// items twice (DynamoDB's prepare and commit) and its index entries once
// (transact_capacity.go says why).
func TestSDKBatchTransactCapacityIndexes(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createCapsTable(t, c)
	units := func(n float64) types.Capacity {
		return types.Capacity{CapacityUnits: aws.Float64(n), WriteCapacityUnits: aws.Float64(n)}
	}
	want := func(table, gsi, lsi float64) []types.ConsumedCapacity {
		cc := types.ConsumedCapacity{TableName: aws.String("Caps"), CapacityUnits: aws.Float64(table + gsi + lsi),
			WriteCapacityUnits: aws.Float64(table + gsi + lsi), Table: &types.Capacity{CapacityUnits: aws.Float64(table)},
			GlobalSecondaryIndexes: map[string]types.Capacity{"Gsi": units(gsi)}}
		if lsi > 0 {
			cc.LocalSecondaryIndexes = map[string]types.Capacity{"Lsi": units(lsi)}
		}
		return []types.ConsumedCapacity{cc}
	}
	ignore := cmpopts.IgnoreUnexported(types.ConsumedCapacity{}, types.Capacity{})
	a := map[string]types.AttributeValue{"pk": s("p"), "sk": s("a"), "g": s("x"), "l": s("y")}
	b := map[string]types.AttributeValue{"pk": s("p"), "sk": s("b"), "g": s("x")}
	// Two new items: a in both indexes, b in the GSI only.
	bw, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		RequestItems: map[string][]types.WriteRequest{"Caps": {{PutRequest: &types.PutRequest{Item: a}}, {PutRequest: &types.PutRequest{Item: b}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want(2, 2, 1), bw.ConsumedCapacity, ignore); diff != "" {
		t.Errorf("BatchWriteItem: ConsumedCapacity (-want +got):\n%s", diff)
	}
	// a's GSI key changes (2 to the GSI; its LSI entry, projecting all,
	// changes: 1); b is deleted (1 to the GSI).
	tw, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String("Caps"), Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("a")},
				UpdateExpression: aws.String("SET g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("z")}}},
			{Delete: &types.Delete{TableName: aws.String("Caps"), Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("b")}}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want(4, 3, 1), tw.ConsumedCapacity, ignore); diff != "" {
		t.Errorf("TransactWriteItems: ConsumedCapacity (-want +got):\n%s", diff)
	}
}

// createCapsTable creates the capacity tests' table Caps: keys pk and sk,
// a KEYS_ONLY GSI Gsi on g and an ALL LSI Lsi on l.
func createCapsTable(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ks := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	attr := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	if _, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Caps"), BillingMode: types.BillingModePayPerRequest, KeySchema: ks("pk", "sk"),
		AttributeDefinitions: []types.AttributeDefinition{attr("pk"), attr("sk"), attr("g"), attr("l")},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("Gsi"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("Lsi"), KeySchema: ks("pk", "l"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}); err != nil {
		t.Fatal(err)
	}
}
