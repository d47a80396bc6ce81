package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"

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

// makeLegacyTable turns table name of ts's namespace into a table as an
// fdyno version before exact counts stored it: metadata without Counted,
// of FormatVersion 2, and no counters. It writes the keys of the
// library's layout (keys.go: the metadata at ("m",) and the counters
// under ("n",) of the table's directory), as such a version left them.
func makeLegacyTable(t *testing.T, ts *testServer, name string) {
	t.Helper()
	if _, err := ts.Server.bgConfig.DB.Transact(func(tr fdb.Transaction) (any, error) {
		dir, err := directory.Open(tr, append(slices.Clone(ts.root), name), nil)
		if err != nil {
			return nil, err
		}
		key := dir.Pack(tuple.Tuple{"m"})
		raw, err := tr.Get(key).Get()
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		if m["FormatVersion"] != 4.0 || m["Layout"] != 2.0 || m["Counted"] != true {
			return nil, fmt.Errorf("not a counted table of format 2: %s", raw)
		}
		m["FormatVersion"] = 2
		delete(m, "Layout")
		delete(m, "Counted")
		if raw, err = json.Marshal(m); err != nil {
			return nil, err
		}
		tr.Set(key, raw)
		tr.ClearRange(dir.Sub("n"))
		tr.SetVersionstampedValue(fdb.Key("\xff/metadataVersion"), make([]byte, 14))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A table created before exact counts reports none in DescribeTable
// until a server's count builder has run its counting pass; then its
// ItemCount and sizes are exact, and fdyno_count_builds_total{result=
// "done"} counts the pass.
func TestSDKCountsBuiltInBackground(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	off, c := newTestClient(t, Config{DB: db, CountBuildInterval: -1})
	_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Old"), BillingMode: types.BillingModePayPerRequest,
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
	makeLegacyTable(t, off, "Old")
	// 30 items of pk=kNN and g=x: 7 bytes each by DynamoDB's rule (the
	// names' and the strings' UTF-8 bytes: 2 + 3 and 1 + 1), every one in
	// byG (KEYS_ONLY: the same 7 bytes).
	var reqs []types.WriteRequest
	for i := range 30 {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s(fmt.Sprintf("k%02d", i)), "g": s("x")}}})
		if len(reqs) == 25 || i == 29 {
			if _, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Old": reqs}}); err != nil {
				t.Fatal(err)
			}
			reqs = nil
		}
	}
	describe := func(c *dynamodb.Client) *types.TableDescription {
		t.Helper()
		d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Old")})
		if err != nil {
			t.Fatal(err)
		}
		return d.Table
	}
	if d := describe(c); aws.ToInt64(d.ItemCount) != 0 {
		t.Fatalf("ItemCount of a table without counters = %d, want 0", aws.ToInt64(d.ItemCount))
	}
	on, c2 := newTestClient(t, Config{DB: db, CountBuildInterval: 10 * time.Millisecond})
	deadline := time.Now().Add(20 * time.Second)
	for aws.ToInt64(describe(c2).ItemCount) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the count builder did not count the table in 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	d := describe(c2)
	if aws.ToInt64(d.ItemCount) != 30 || aws.ToInt64(d.TableSizeBytes) != 30*7 {
		t.Errorf("ItemCount, TableSizeBytes = %d, %d; want 30, 210", aws.ToInt64(d.ItemCount), aws.ToInt64(d.TableSizeBytes))
	}
	if g := d.GlobalSecondaryIndexes; len(g) != 1 || aws.ToInt64(g[0].ItemCount) != 30 || aws.ToInt64(g[0].IndexSizeBytes) != 30*7 {
		t.Errorf("byG = %d indexes, want ItemCount 30, IndexSizeBytes 210", len(g))
		for _, x := range g {
			t.Errorf("%s: ItemCount %d, IndexSizeBytes %d", aws.ToString(x.IndexName), aws.ToInt64(x.ItemCount), aws.ToInt64(x.IndexSizeBytes))
		}
	}
	// The server that counted released its lease.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		m := on.scrape(t)
		if value(m, "fdyno_count_builds_total", "result", "done") == 1 && value(m, "fdyno_count_build_items_total") == 30 &&
			value(m, "fdyno_background_leases", "job", "counts") == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics: count_builds_total{done} %v, count_build_items_total %v, background_leases{counts} %v; want 1, 30, 0",
				value(m, "fdyno_count_builds_total", "result", "done"), value(m, "fdyno_count_build_items_total"), value(m, "fdyno_background_leases", "job", "counts"))
		}
	}
}
