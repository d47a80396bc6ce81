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
	_, c := newTestClient(t, Config{})
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
	_, c := newTestClient(t, Config{})
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

// TestSDKItemCapacity checks the ConsumedCapacity of single-item
// operations whose charge is not the size of what the request sends or
// receives, against DynamoDB's developer guide ("DynamoDB read and write
// operations"): a GetItem is charged for the whole item even with a
// ProjectionExpression ("requesting a subset of attributes has no impact
// on the item size calculations"), and so are BatchGetItem's and
// TransactGetItems' reads; an UpdateItem for the larger of the item
// before and after the update, so an item growing past 2 KB costs 3
// write units and one shrinking from there costs 3 as well.
func TestSDKItemCapacity(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "ItemCap", "", "")
	key := map[string]types.AttributeValue{"pk": s("k")}
	// An item of about 5 KB: 2 read units read strongly, 1 eventually.
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("ItemCap"),
		Item: map[string]types.AttributeValue{"pk": s("k"), "small": s("x"), "big": s(strings.Repeat("b", 5000))}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		in        dynamodb.GetItemInput
		wantUnits float64
		wantAttrs int
	}{
		{"consistent, projected", dynamodb.GetItemInput{ProjectionExpression: aws.String("small"), ConsistentRead: aws.Bool(true)}, 2, 1},
		{"eventual, projected", dynamodb.GetItemInput{ProjectionExpression: aws.String("small")}, 1, 1},
		{"consistent, AttributesToGet", dynamodb.GetItemInput{AttributesToGet: []string{"pk"}, ConsistentRead: aws.Bool(true)}, 2, 1},
		{"consistent, whole", dynamodb.GetItemInput{ConsistentRead: aws.Bool(true)}, 2, 3},
		{"missing item", dynamodb.GetItemInput{Key: map[string]types.AttributeValue{"pk": s("none")}, ProjectionExpression: aws.String("small"), ConsistentRead: aws.Bool(true)}, 1, 0},
	} {
		t.Run("GetItem "+tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName, in.ReturnConsumedCapacity = aws.String("ItemCap"), types.ReturnConsumedCapacityTotal
			if in.Key == nil {
				in.Key = key
			}
			out, err := c.GetItem(ctx(t), &in)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Item) != tc.wantAttrs || out.ConsumedCapacity == nil || aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) != tc.wantUnits {
				t.Errorf("GetItem: %d attributes, ConsumedCapacity %+v; want %d attributes, %v units", len(out.Item), out.ConsumedCapacity, tc.wantAttrs, tc.wantUnits)
			}
		})
	}

	// BatchGetItem and TransactGetItems with a projection: the whole
	// item too (2 units strongly, 1 eventually; 4 in a transaction).
	t.Run("BatchGetItem projected", func(t *testing.T) {
		for _, consistent := range []bool{true, false} {
			out, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				RequestItems: map[string]types.KeysAndAttributes{"ItemCap": {Keys: []map[string]types.AttributeValue{key},
					ProjectionExpression: aws.String("small"), ConsistentRead: aws.Bool(consistent)}}})
			if err != nil {
				t.Fatal(err)
			}
			want := 2.0
			if !consistent {
				want = 1
			}
			if len(out.Responses["ItemCap"]) != 1 || len(out.Responses["ItemCap"][0]) != 1 || len(out.ConsumedCapacity) != 1 ||
				aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != want {
				t.Errorf("consistent %t: Responses %v, ConsumedCapacity %+v; want the projected item, %v units", consistent, out.Responses, out.ConsumedCapacity, want)
			}
		}
	})
	t.Run("TransactGetItems projected", func(t *testing.T) {
		out, err := c.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			TransactItems: []types.TransactGetItem{{Get: &types.Get{TableName: aws.String("ItemCap"), Key: key, ProjectionExpression: aws.String("small")}}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Responses) != 1 || len(out.Responses[0].Item) != 1 || len(out.ConsumedCapacity) != 1 || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 4 {
			t.Errorf("Responses %v, ConsumedCapacity %+v; want the projected item, 4 units", out.Responses, out.ConsumedCapacity)
		}
	})

	// UpdateItem: the larger of before and after, in 1 KB write units.
	createTable(t, c, "UpdCap", "", "")
	for _, tc := range []struct {
		name string
		expr string
		vals map[string]types.AttributeValue
		want float64
	}{
		{"new small item", "SET a = :a", map[string]types.AttributeValue{":a": s(strings.Repeat("a", 900))}, 1},
		{"grows past 2 KB", "SET b = :b", map[string]types.AttributeValue{":b": s(strings.Repeat("b", 1500))}, 3},
		{"shrinks from past 2 KB", "REMOVE b", nil, 3},
		{"small change of a small item", "SET c = :c", map[string]types.AttributeValue{":c": s("c")}, 1},
	} {
		t.Run("UpdateItem "+tc.name, func(t *testing.T) {
			out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String("UpdCap"), Key: key,
				UpdateExpression: aws.String(tc.expr), ExpressionAttributeValues: tc.vals, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				t.Fatal(err)
			}
			if out.ConsumedCapacity == nil || aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) != tc.want {
				t.Errorf("UpdateItem %q: ConsumedCapacity %+v, want %v units", tc.expr, out.ConsumedCapacity, tc.want)
			}
		})
	}
}

// TestSDKTransactionItemCapacity checks what a TransactWriteItems action
// is charged for, at two write units per 1 KB: a ConditionCheck, which
// writes nothing, for the item it reads (a 3 KB item 6 units, a missing
// one 2, as other implementations captured from DynamoDB); an Update for
// the larger of the item before and after; a conditional Put replacing a
// larger item for the larger item. A request replayed with the
// ClientRequestToken of a committed one writes nothing and reports read
// units instead ("subsequent TransactWriteItems calls with the same
// client token return the number of read capacity units consumed in
// reading the item", DynamoDB's API reference): two per 4 KB of each
// action's item.
func TestSDKTransactionItemCapacity(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "TxCap", "", "")
	put := func(pk string, size int) {
		t.Helper()
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("TxCap"),
			Item: map[string]types.AttributeValue{"pk": s(pk), "v": s(strings.Repeat("v", size))}}); err != nil {
			t.Fatal(err)
		}
	}
	put("checked", 3000)  // about 3 KB: 3 write units
	put("updated", 1800)  // about 2 KB before the update
	put("replaced", 2500) // about 2.5 KB: 3 write units
	exists := aws.String("attribute_exists(pk)")
	notExists := aws.String("attribute_not_exists(pk)")
	for _, tc := range []struct {
		name   string
		action types.TransactWriteItem
		want   float64
	}{
		{"ConditionCheck of a 3 KB item", types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String("TxCap"),
			Key: map[string]types.AttributeValue{"pk": s("checked")}, ConditionExpression: exists}}, 6},
		{"ConditionCheck of a missing item", types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String("TxCap"),
			Key: map[string]types.AttributeValue{"pk": s("absent")}, ConditionExpression: notExists}}, 2},
		{"Update shrinking a 2 KB item", types.TransactWriteItem{Update: &types.Update{TableName: aws.String("TxCap"),
			Key: map[string]types.AttributeValue{"pk": s("updated")}, UpdateExpression: aws.String("REMOVE v")}}, 4},
		{"Update growing an item past 2 KB", types.TransactWriteItem{Update: &types.Update{TableName: aws.String("TxCap"),
			Key: map[string]types.AttributeValue{"pk": s("updated")}, UpdateExpression: aws.String("SET v = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": s(strings.Repeat("w", 2100))}}}, 6},
		{"conditional Put replacing a larger item", types.TransactWriteItem{Put: &types.Put{TableName: aws.String("TxCap"),
			Item: map[string]types.AttributeValue{"pk": s("replaced")}, ConditionExpression: exists}}, 6},
		{"Delete of a 3 KB item", types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String("TxCap"),
			Key: map[string]types.AttributeValue{"pk": s("checked")}, ConditionExpression: exists}}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				TransactItems: []types.TransactWriteItem{tc.action}})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.ConsumedCapacity) != 1 || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != tc.want ||
				aws.ToFloat64(out.ConsumedCapacity[0].WriteCapacityUnits) != tc.want {
				t.Errorf("ConsumedCapacity = %+v, want %v write units", out.ConsumedCapacity, tc.want)
			}
		})
	}

	// The same request twice with one token: write units, then read units.
	req := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("replay-token"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("TxCap"), Item: map[string]types.AttributeValue{"pk": s("r1"), "v": s(strings.Repeat("r", 5000))}}},
			{Put: &types.Put{TableName: aws.String("TxCap"), Item: map[string]types.AttributeValue{"pk": s("r2")}}},
		}}
	for i, want := range []struct{ units, read, write float64 }{
		{2*5 + 2*1, 0, 2*5 + 2*1}, // 5 KB and a few bytes, in 1 KB write units
		{2*2 + 2*1, 2*2 + 2*1, 0}, // the same, in 4 KB read units
	} {
		out, err := c.TransactWriteItems(ctx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.ConsumedCapacity) != 1 {
			t.Fatalf("call %d: ConsumedCapacity = %+v, want one table", i+1, out.ConsumedCapacity)
		}
		cc := out.ConsumedCapacity[0]
		if aws.ToFloat64(cc.CapacityUnits) != want.units || aws.ToFloat64(cc.ReadCapacityUnits) != want.read || aws.ToFloat64(cc.WriteCapacityUnits) != want.write {
			t.Errorf("call %d: ConsumedCapacity units %v read %v write %v, want %v, %v, %v", i+1,
				aws.ToFloat64(cc.CapacityUnits), aws.ToFloat64(cc.ReadCapacityUnits), aws.ToFloat64(cc.WriteCapacityUnits), want.units, want.read, want.write)
		}
	}
}
