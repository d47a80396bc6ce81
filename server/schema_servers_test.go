package server

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// TestSchemaChangeSeenByOtherServer: of two servers on one database, a
// schema change made through a is seen by b's very next request, though
// b's handle of the table cached the schema before the change (a
// handle's cached state is keyed on FoundationDB's metadata version,
// which every schema change bumps, and every transaction reads it with
// its read version: table_state.go). Neither server's background work
// runs, so nothing but the request itself can refresh b's handle.
func TestSchemaChangeSeenByOtherServer(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	cfg := Config{DB: db, TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1}
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	ca, cb := a.client(testCredentials), b.client(testCredentials)
	createTable(t, ca, "Shared", "", "")
	if _, err := ca.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Shared"),
		Item: map[string]types.AttributeValue{"pk": s("a"), "g": s("g1")}}); err != nil {
		t.Fatal(err)
	}
	// b serves the table: its handle caches the schema.
	if out, err := cb.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Shared"),
		Key: map[string]types.AttributeValue{"pk": s("a")}, ConsistentRead: aws.Bool(true)}); err != nil || out.Item == nil {
		t.Fatalf("GetItem through b: %v, %v; want a's item", out, err)
	}
	// 1. A global secondary index added through a. Once it is ACTIVE,
	// b's next write must give it a string g (an index key's declared
	// type) and maintain its entries, and b's Query reads it.
	if _, err := ca.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Shared"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byG"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}}); err != nil {
		t.Fatal(err)
	}
	waitIndexActive(t, ca, "Shared", "byG") // built by a; b is not asked
	_, err := cb.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Shared"),
		Item: map[string]types.AttributeValue{"pk": s("x"), "g": n("1")}})
	// b's first request after the index: a put with a numeric index key.
	wantAPIError(t, err, "ValidationException", "Type mismatch for Index Key g Expected: S Actual: N IndexName: byG")
	if _, err := cb.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Shared"),
		Item: map[string]types.AttributeValue{"pk": s("b"), "g": s("g1")}}); err != nil {
		t.Fatal(err)
	}
	byG := &dynamodb.QueryInput{TableName: aws.String("Shared"), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("g1")}}
	for name, c := range map[string]*dynamodb.Client{"a": ca, "b": cb} {
		if q, err := c.Query(ctx(t), byG); err != nil || q.Count != 2 {
			t.Errorf("Query of byG through %s: %v, %v; want the 2 items with g1 (a's, and b's written after the index)", name, q, err)
		}
	}

	// 2. Time to Live enabled through a: b describes it at once.
	if _, err := ca.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Shared"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	ttl, err := cb.DescribeTimeToLive(ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Shared")})
	if err != nil {
		t.Fatal(err)
	}
	if d := ttl.TimeToLiveDescription; d.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.AttributeName) != "exp" {
		t.Errorf("b's DescribeTimeToLive after a enabled it: %s %q, want ENABLED exp", d.TimeToLiveStatus, aws.ToString(d.AttributeName))
	}

	// 3. The table deleted and created again through a, with a numeric
	// partition key of another name: b's next put in the old form is
	// refused, one in the new form lands in the new table, and nothing
	// of the old table is served.
	if _, err := ca.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Shared")}); err != nil {
		t.Fatal(err)
	}
	mustCreateTable(t, ca, &dynamodb.CreateTableInput{TableName: aws.String("Shared"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeN}}})
	_, err = cb.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Shared"),
		Item: map[string]types.AttributeValue{"pk": s("c"), "g": s("g1")}})
	// b's first request after the table was created again.
	wantAPIError(t, err, "ValidationException", "Missing the key id in the item")
	if _, err := cb.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Shared"),
		Item: map[string]types.AttributeValue{"id": n("7")}}); err != nil {
		t.Fatalf("b's put with the new key: %v", err)
	}
	for name, c := range map[string]*dynamodb.Client{"a": ca, "b": cb} {
		out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String("Shared"), ConsistentRead: aws.Bool(true)})
		if err != nil || out.Count != 1 || out.Items[0]["id"].(*types.AttributeValueMemberN).Value != "7" {
			t.Errorf("Scan through %s: %v, %v; want only the item {id: 7}", name, out, err)
		}
	}
	d, err := cb.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Shared")})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Table.KeySchema) != 1 || aws.ToString(d.Table.KeySchema[0].AttributeName) != "id" || len(d.Table.GlobalSecondaryIndexes) != 0 {
		t.Errorf("b describes key schema %v with %d indexes, want id alone and none", d.Table.KeySchema, len(d.Table.GlobalSecondaryIndexes))
	}
}

// dynamodb:LeadingKeys is the partition key value of the table as it is
// when the request arrives: a table deleted and created again through
// server a with another partition key is judged under its new key by
// b's very next request, though b's handle had cached the old one.
func TestLeadingKeysAfterRecreateOnOtherServer(t *testing.T) {
	admin := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`
	alice := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:PutItem"],"Resource":"*",
		"Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["alice"]}}}}`
	policies, err := LoadPolicies(strings.NewReader(`{"admin":` + admin + `,"alice":` + alice + `}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{DB: fdblitetest.OpenIsolated(t), TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1,
		Keys: map[string]string{"admin": "secret-of-admin", "alice": "secret-of-alice"}, Policies: policies}
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	ca, cb := a.regionClient("admin", "us-east-1"), b.regionClient("alice", "us-east-1")
	createTable(t, ca, "Owned", "", "")
	put := func(item map[string]types.AttributeValue) error {
		_, err := cb.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Owned"), Item: item})
		return err
	}
	if err := put(map[string]types.AttributeValue{"pk": s("alice")}); err != nil {
		t.Fatalf("alice's put of her partition through b: %v", err)
	}
	if _, err := ca.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Owned")}); err != nil {
		t.Fatal(err)
	}
	mustCreateTable(t, ca, &dynamodb.CreateTableInput{TableName: aws.String("Owned"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("owner"), AttributeType: types.ScalarAttributeTypeS}}})
	if err := put(map[string]types.AttributeValue{"owner": s("alice"), "pk": s("bob")}); err != nil {
		t.Errorf("alice's put of her partition under the new key, b's first request after the change: %v", err)
	}
	err = put(map[string]types.AttributeValue{"owner": s("bob"), "pk": s("alice")})
	wantAPIError(t, err, "AccessDeniedException", "dynamodb:PutItem")
}
