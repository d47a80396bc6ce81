package server

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// These tests drive the server with the AWS SDK for Go v2, as a user
// would, and state what DynamoDB's API reference says each call returns.

// cmpAV compares SDK AttributeValues (which hold unexported noCopy fields).
var cmpAV = cmpopts.IgnoreUnexported(
	types.AttributeValueMemberS{}, types.AttributeValueMemberN{}, types.AttributeValueMemberB{},
	types.AttributeValueMemberBOOL{}, types.AttributeValueMemberNULL{}, types.AttributeValueMemberM{},
	types.AttributeValueMemberL{}, types.AttributeValueMemberSS{}, types.AttributeValueMemberNS{},
	types.AttributeValueMemberBS{},
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func TestSDKTables(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Music", "sk", types.ScalarAttributeTypeN)

	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Music")})
	if err != nil {
		t.Fatal(err)
	}
	got := d.Table
	if aws.ToString(got.TableName) != "Music" || got.TableStatus != types.TableStatusActive ||
		aws.ToString(got.TableArn) != "arn:aws:dynamodb:us-east-1:000000000000:table/Music" ||
		got.BillingModeSummary == nil || got.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("DescribeTable = %+v", got)
	}
	wantKeys := []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}}
	if diff := cmp.Diff(wantKeys, got.KeySchema, cmpopts.IgnoreUnexported(types.KeySchemaElement{})); diff != "" {
		t.Errorf("KeySchema mismatch (-want +got):\n%s", diff)
	}

	// CreateTable of an existing table: ResourceInUseException.
	_, err = c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Music"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
	})
	var inUse *types.ResourceInUseException
	if !errors.As(err, &inUse) {
		t.Errorf("CreateTable of an existing table: %v, want ResourceInUseException", err)
	}
	// PROVISIONED (the default) needs ProvisionedThroughput.
	_, err = c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName:            aws.String("NoBilling"),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
	})
	wantAPIError(t, err, "ValidationException", "ReadCapacityUnits and WriteCapacityUnits must both be specified")
	_, err = c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName:             aws.String("Provisioned"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
	})
	if err != nil {
		t.Errorf("CreateTable PROVISIONED: %v", err)
	}

	// ListTables pages through names in order.
	for _, name := range []string{"Alpha", "Beta", "Gamma"} {
		createTable(t, c, name, "", "")
	}
	var names []string
	pages := 0
	for p := dynamodb.NewListTablesPaginator(c, &dynamodb.ListTablesInput{Limit: aws.Int32(2)}); p.HasMorePages(); {
		out, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(out.TableNames) > 2 {
			t.Errorf("page of %d names, Limit 2", len(out.TableNames))
		}
		names = append(names, out.TableNames...)
		pages++
	}
	if diff := cmp.Diff([]string{"Alpha", "Beta", "Gamma", "Music", "Provisioned"}, names); diff != "" {
		t.Errorf("ListTables mismatch (-want +got):\n%s", diff)
	}
	if pages != 3 {
		t.Errorf("ListTables took %d pages of 2 for 5 tables, want 3", pages)
	}
	out, err := c.ListTables(ctx(t), &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String("Beta")})
	if err != nil || !cmp.Equal(out.TableNames, []string{"Gamma", "Music", "Provisioned"}) || out.LastEvaluatedTableName != nil {
		t.Errorf("ListTables after Beta = %v, %v, %v", out.TableNames, out.LastEvaluatedTableName, err)
	}
	_, err = c.ListTables(ctx(t), &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
	wantAPIError(t, err, "ValidationException", "less than or equal to 100")

	// DeleteTable returns the description, DELETING; the table is gone.
	del, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Music")})
	if err != nil || del.TableDescription.TableStatus != types.TableStatusDeleting || aws.ToString(del.TableDescription.TableName) != "Music" {
		t.Fatalf("DeleteTable = %+v, %v", del, err)
	}
	_, err = c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Music")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("DescribeTable after DeleteTable: %v, want ResourceNotFoundException", err)
	}
	_, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Music"), Key: map[string]types.AttributeValue{"pk": s("a"), "sk": n("1")}})
	if !errors.As(err, &nf) {
		t.Errorf("GetItem after DeleteTable: %v, want ResourceNotFoundException", err)
	}
	_, err = c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Music")})
	if !errors.As(err, &nf) {
		t.Errorf("DeleteTable twice: %v, want ResourceNotFoundException", err)
	}
	// A recreated table is empty and usable through the same server.
	createTable(t, c, "Music", "sk", types.ScalarAttributeTypeS)
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Music"), Item: map[string]types.AttributeValue{"pk": s("a"), "sk": s("x")}}); err != nil {
		t.Errorf("PutItem in the recreated table (sort key now S): %v", err)
	}
}

// wantAPIError checks that err is the DynamoDB error name whose message
// contains msg.
func wantAPIError(t *testing.T, err error, name, msg string) {
	t.Helper()
	if code, got, ok := sdkAPIError(t, err, name); ok && (code != name || !strings.Contains(got, msg)) {
		t.Errorf("error %s: %q, want %s containing %q", code, got, name, msg)
	}
}

// wantAPIErrorExact checks that err is the API error name with exactly
// the message msg.
func wantAPIErrorExact(t *testing.T, err error, name, msg string) {
	t.Helper()
	if code, got, ok := sdkAPIError(t, err, name); ok && (code != name || got != msg) {
		t.Errorf("error %s: %q\nwant  %s: %q", code, got, name, msg)
	}
}

// sdkAPIError returns the code and message of err, an API error; if err is
// not one it fails t, saying it wanted name, and returns ok false.
func sdkAPIError(t *testing.T, err error, name string) (code, msg string, ok bool) {
	t.Helper()
	var ae interface {
		ErrorCode() string
		ErrorMessage() string
	}
	if !errors.As(err, &ae) {
		t.Errorf("error %v, want %s", err, name)
		return "", "", false
	}
	return ae.ErrorCode(), ae.ErrorMessage(), true
}

func TestSDKItems(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Items", "sk", types.ScalarAttributeTypeN)
	tbl := aws.String("Items")
	key := map[string]types.AttributeValue{"pk": s("p"), "sk": n("1")}
	item := map[string]types.AttributeValue{
		"pk":   s("p"),
		"sk":   n("1"),
		"num":  n("12345678901234567890123456789012345678"), // 38 digits, exact
		"kilo": n("1e3"),                                    // DynamoDB normalises numbers: returned as 1000
		"bin":  &types.AttributeValueMemberB{Value: []byte{0, 1, 0xfe, 0xff}},
		"ok":   &types.AttributeValueMemberBOOL{Value: true},
		"nul":  &types.AttributeValueMemberNULL{Value: true},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"doc": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"list":  &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), n("-0.5"), &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}},
			"empty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
			"quote": s("\"\\\n\u00e9\U0001F600"),
		}},
	}
	put, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if cc := put.ConsumedCapacity; cc == nil || aws.ToString(cc.TableName) != "Items" || aws.ToFloat64(cc.CapacityUnits) != 1 {
		t.Errorf("PutItem ConsumedCapacity = %+v, want 1 write unit of Items (item under 1 KB)", cc)
	}
	got, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(item)
	want["kilo"] = n("1000")
	if diff := cmp.Diff(want, got.Item, cmpAV); diff != "" {
		t.Errorf("GetItem mismatch (-want +got):\n%s", diff)
	}
	// Numbers come back normalised, as DynamoDB returns them; an N key
	// given as 1e0 names the same item.
	got, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("p"), "sk": n("1e0")},
		ProjectionExpression: aws.String("sk, doc.#l[1]"), ExpressionAttributeNames: map[string]string{"#l": "list"}})
	if err != nil {
		t.Fatal(err)
	}
	wantProj := map[string]types.AttributeValue{"sk": n("1"), "doc": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("-0.5")}}}}}
	if diff := cmp.Diff(wantProj, got.Item, cmpAV); diff != "" {
		t.Errorf("GetItem with projection mismatch (-want +got):\n%s", diff)
	}
	// AttributesToGet is mapped to a projection.
	got, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: key, AttributesToGet: []string{"ok", "missing"}})
	if err != nil || !cmp.Equal(map[string]types.AttributeValue{"ok": &types.AttributeValueMemberBOOL{Value: true}}, got.Item, cmpAV) {
		t.Errorf("GetItem AttributesToGet = %v, %v", got.Item, err)
	}
	// An absent item: no Item.
	got, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("p"), "sk": n("2")}})
	if err != nil || got.Item != nil {
		t.Errorf("GetItem of an absent item = %v, %v; want no Item", got.Item, err)
	}

	// UpdateItem: SET and ADD, UPDATED_NEW returns only the updated paths.
	upd, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
		TableName: tbl, Key: key,
		UpdateExpression:          aws.String("SET ok = :f ADD plays :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":f": &types.AttributeValueMemberBOOL{Value: false}, ":one": n("1")},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]types.AttributeValue{"ok": &types.AttributeValueMemberBOOL{Value: false}, "plays": n("1")}, upd.Attributes, cmpAV); diff != "" {
		t.Errorf("UpdateItem UPDATED_NEW mismatch (-want +got):\n%s", diff)
	}
	// Updating a key attribute is a ValidationException.
	_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: aws.String("SET sk = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("3")}})
	wantAPIError(t, err, "ValidationException", "Cannot update attribute sk. This attribute is part of the key")

	// A failed condition with ReturnValuesOnConditionCheckFailure ALL_OLD
	// carries the item as it was, and writes nothing.
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: key,
		ConditionExpression:                 aws.String("attribute_not_exists(pk)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("conditional PutItem: %v, want ConditionalCheckFailedException", err)
	}
	if ccf.Item["plays"] == nil || !cmp.Equal(ccf.Item["plays"], n("1"), cmpAV) || len(ccf.Item) != len(item)+1 {
		t.Errorf("ConditionalCheckFailedException.Item = %v, want the stored item with plays = 1", ccf.Item)
	}
	// Without ALL_OLD, no item.
	_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: key, ConditionExpression: aws.String("plays > :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": n("5")}})
	if !errors.As(err, &ccf) || ccf.Item != nil {
		t.Errorf("conditional DeleteItem: %v (item %v), want ConditionalCheckFailedException without Item", err, ccf)
	}

	// DeleteItem ALL_OLD returns the deleted item; a second delete returns nothing.
	del, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: key, ReturnValues: types.ReturnValueAllOld})
	if err != nil || !cmp.Equal(del.Attributes["plays"], n("1"), cmpAV) {
		t.Fatalf("DeleteItem ALL_OLD = %v, %v", del.Attributes, err)
	}
	del, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: key, ReturnValues: types.ReturnValueAllOld})
	if err != nil || del.Attributes != nil {
		t.Errorf("DeleteItem of an absent item = %v, %v; want no Attributes", del.Attributes, err)
	}
}

func TestSDKValidation(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Val", "", "")
	tbl := aws.String("Val")
	for _, tc := range []struct {
		name string
		call func() error
		want string // ValidationException message part
	}{
		{"number with 39 digits", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("a"), "x": n("123456789012345678901234567890123456789")}})
			return err
		}, "Attempting to store more than 38 significant digits in a Number"},
		{"empty string set", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("a"), "x": &types.AttributeValueMemberSS{Value: []string{}}}})
			return err
		}, "may not be empty"},
		{"item over 400 KB", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("a"), "x": s(strings.Repeat("x", 400*1024))}})
			return err
		}, "Item size has exceeded the maximum allowed size"},
		{"expression over 4 KB", func() error {
			_, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, FilterExpression: aws.String("x = :v" + strings.Repeat(" ", 4096)),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("a")}})
			return err
		}, "Expression size has exceeded the maximum allowed size"},
		{"missing key", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"x": s("a")}})
			return err
		}, "Missing the key pk in the item"},
		{"wrong key type", func() error {
			_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": n("1")}})
			return err
		}, "The provided key element does not match the schema"}, // a Key's wording (docs/differences.md)
		{"legacy AttributeUpdates", func() error {
			_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("a")},
				AttributeUpdates: map[string]types.AttributeValueUpdate{"x": {Action: types.AttributeActionPut}}})
			return err
		}, "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{"legacy Expected", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("a")},
				Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false), Value: s("a")}}})
			return err
		}, "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: pk"},
		{"legacy KeyConditions", func() error {
			_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl,
				KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{s("a")}}}})
			return err
		}, "Query key condition not supported"},
		{"legacy ScanFilter", func() error {
			_, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl,
				ScanFilter: map[string]types.Condition{"x": {ComparisonOperator: types.ComparisonOperatorNotNull, AttributeValueList: []types.AttributeValue{s("a")}}}})
			return err
		}, "One or more parameter values were invalid: Invalid number of argument(s) for the NOT_NULL ComparisonOperator"},
		{"AttributesToGet mixed with an expression", func() error {
			_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("a")},
				AttributesToGet: []string{"x"}, ProjectionExpression: aws.String("x")})
			return err
		}, "Can not use both expression and non-expression parameters"},
		{"Limit 0", func() error {
			_, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, Limit: aws.Int32(0)})
			return err
		}, "Member must have value greater than or equal to 1"},
		{"bad ReturnConsumedCapacity", func() error {
			_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("a")}, ReturnConsumedCapacity: "ALL"})
			return err
		}, "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"},
		{"Segment without TotalSegments", func() error {
			_, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, Segment: aws.Int32(0)})
			return err
		}, "The TotalSegments parameter is required"},
		{"undefined placeholder", func() error {
			_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p")})
			return err
		}, ":p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantAPIError(t, tc.call(), "ValidationException", tc.want)
		})
	}
	// Nothing was written by any of them.
	out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl})
	if err != nil || out.Count != 0 {
		t.Errorf("Scan after rejected requests: Count %d, %v; want 0", out.Count, err)
	}
	_, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Nope"), Key: map[string]types.AttributeValue{"pk": s("a")}})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("GetItem on a missing table: %v, want ResourceNotFoundException", err)
	}
}

func TestSDKQueryScan(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Songs", "sk", types.ScalarAttributeTypeN)
	tbl := aws.String("Songs")
	const perPartition = 23
	for _, p := range []string{"a", "b"} {
		for i := range perPartition {
			if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{
				"pk": s(p), "sk": n(fmt.Sprint(i)), "odd": &types.AttributeValueMemberBOOL{Value: i%2 == 1}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Query paginator, Limit 5: every item of partition a in sort-key
	// order, each page at most 5 items, pages resumed by LastEvaluatedKey.
	for _, forward := range []bool{true, false} {
		var sks []string
		pages := 0
		for p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: tbl, Limit: aws.Int32(5), ScanIndexForward: aws.Bool(forward),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("a")}}); p.HasMorePages(); {
			out, err := p.NextPage(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if out.Count > 5 || out.ScannedCount != out.Count {
				t.Errorf("page Count %d ScannedCount %d, Limit 5 and no filter", out.Count, out.ScannedCount)
			}
			for _, it := range out.Items {
				sks = append(sks, it["sk"].(*types.AttributeValueMemberN).Value)
			}
			pages++
		}
		var want []string
		for i := range perPartition {
			want = append(want, fmt.Sprint(i))
		}
		if !forward {
			for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
				want[i], want[j] = want[j], want[i]
			}
		}
		if diff := cmp.Diff(want, sks); diff != "" {
			t.Errorf("Query forward=%v mismatch (-want +got):\n%s", forward, diff)
		}
		if pages < perPartition/5+1 {
			t.Errorf("Query forward=%v took %d pages, want at least %d", forward, pages, perPartition/5+1)
		}
	}
	// Key condition on the sort key, filter, COUNT.
	out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl, Select: types.SelectCount,
		KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :lo AND :hi"), FilterExpression: aws.String("odd = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("b"), ":lo": n("10"), ":hi": n("19"), ":t": &types.AttributeValueMemberBOOL{Value: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 5 || out.ScannedCount != 10 || out.Items != nil {
		t.Errorf("Query COUNT sk in [10,19] odd: Count %d ScannedCount %d Items %v; want 5, 10, none", out.Count, out.ScannedCount, out.Items)
	}
	// Scan paginator with a filter: Limit counts items read, not returned.
	total, scanned := 0, 0
	for p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: tbl, Limit: aws.Int32(7), FilterExpression: aws.String("odd = :f"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":f": &types.AttributeValueMemberBOOL{Value: false}}}); p.HasMorePages(); {
		out, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if out.ScannedCount > 7 {
			t.Errorf("Scan page read %d items, Limit 7", out.ScannedCount)
		}
		total += int(out.Count)
		scanned += int(out.ScannedCount)
	}
	if total != 2*12 || scanned != 2*perPartition {
		t.Errorf("Scan with filter: %d returned of %d read, want 24 of 46", total, scanned)
	}
	// Parallel scan: three segments read every item exactly once.
	seen := map[string]int{}
	for seg := range 3 {
		for p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: tbl, Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(3)}); p.HasMorePages(); {
			out, err := p.NextPage(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				seen[it["pk"].(*types.AttributeValueMemberS).Value+"/"+it["sk"].(*types.AttributeValueMemberN).Value]++
			}
		}
	}
	if len(seen) != 2*perPartition {
		t.Errorf("parallel scan saw %d items, want %d", len(seen), 2*perPartition)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("parallel scan read %s %d times", k, n)
		}
	}
	// ConsumedCapacity of a query: 46 small items are under 4 KB, one
	// unit strongly consistent, half eventually consistent.
	for _, consistent := range []bool{true, false} {
		out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, ConsistentRead: aws.Bool(consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.5
		if consistent {
			want = 1
		}
		if cc := out.ConsumedCapacity; cc == nil || aws.ToFloat64(cc.CapacityUnits) != want || cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != want {
			t.Errorf("Scan ConsistentRead=%v ConsumedCapacity = %+v, want %v units with a Table entry", consistent, cc, want)
		}
	}
}

// Concurrent clients are served in parallel, and their updates of one
// item are serialized: no ADD is lost.
func TestSDKConcurrentClients(t *testing.T) {
	ts := newTestServer(t, Config{})
	createTable(t, ts.client(testCredentials), "Counters", "", "")
	const clients, adds = 8, 10
	ts.eachClient(clients, func(_ int, c *dynamodb.Client) {
		for range adds {
			if err := addOne(t, c, "Counters", "counter"); err != nil {
				t.Error(err)
			}
		}
	})
	if got, want := counter(t, ts.client(testCredentials), "Counters", "counter"), fmt.Sprint(clients*adds); got != want {
		t.Errorf("counter = %s, want %s", got, want)
	}
}

// Index definitions and stream settings are stored and described, in
// DynamoDB's shapes; a GSI under PROVISIONED billing needs its own
// throughput.
func TestSDKCreateTableIndexesAndStream(t *testing.T) {
	_, c := newTestClient(t, Config{})
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String("Indexed"),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeN},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x"}}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byPkG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("g"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	}
	if _, err := c.CreateTable(ctx(t), in); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Indexed")})
	if err != nil {
		t.Fatal(err)
	}
	tbl := d.Table
	if len(tbl.GlobalSecondaryIndexes) != 1 || aws.ToString(tbl.GlobalSecondaryIndexes[0].IndexName) != "byG" ||
		tbl.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive ||
		tbl.GlobalSecondaryIndexes[0].Projection.ProjectionType != types.ProjectionTypeInclude ||
		!cmp.Equal(tbl.GlobalSecondaryIndexes[0].Projection.NonKeyAttributes, []string{"x"}) ||
		aws.ToString(tbl.GlobalSecondaryIndexes[0].IndexArn) != "arn:aws:dynamodb:us-east-1:000000000000:table/Indexed/index/byG" {
		t.Errorf("GlobalSecondaryIndexes = %+v", tbl.GlobalSecondaryIndexes)
	}
	if len(tbl.LocalSecondaryIndexes) != 1 || aws.ToString(tbl.LocalSecondaryIndexes[0].IndexName) != "byPkG" {
		t.Errorf("LocalSecondaryIndexes = %+v", tbl.LocalSecondaryIndexes)
	}
	if ss := tbl.StreamSpecification; ss == nil || !aws.ToBool(ss.StreamEnabled) || ss.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Errorf("StreamSpecification = %+v", ss)
	}
	// The library's own validation applies: a non-key attribute that is
	// an index key must have its declared type.
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Indexed"), Item: map[string]types.AttributeValue{"pk": s("a"), "sk": s("b"), "g": s("not a number")}})
	wantAPIError(t, err, "ValidationException", "Type mismatch for Index Key g")

	in.TableName, in.BillingMode, in.StreamSpecification = aws.String("Provisioned"), "", nil
	in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
	_, err = c.CreateTable(ctx(t), in)
	wantAPIError(t, err, "ValidationException", "ProvisionedThroughput must be specified for index: byG")
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true)}
	in.GlobalSecondaryIndexes = nil
	_, err = c.CreateTable(ctx(t), in)
	wantAPIError(t, err, "ValidationException", "StreamViewType")
}

// Operations the server does not serve yet answer with DynamoDB's
// UnknownOperationException.
func TestSDKUnsupportedOperations(t *testing.T) {
	_, c := newTestClient(t, Config{})
	for name, call := range map[string]func() error{
		"ListGlobalTables": func() error {
			_, err := c.ListGlobalTables(ctx(t), &dynamodb.ListGlobalTablesInput{})
			return err
		},
		"DescribeKinesisStreamingDestination": func() error {
			_, err := c.DescribeKinesisStreamingDestination(ctx(t), &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("Tab")})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			wantAPIError(t, call(), "UnknownOperationException", name)
		})
	}
}

// GetItem of an item that has none of the projected attributes returns
// an empty Item; of an absent item, no Item.
func TestSDKGetItemEmptyProjection(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Proj", "", "")
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Proj"), Item: map[string]types.AttributeValue{"pk": s("a")}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pk        string
		wantEmpty bool
	}{{"a", true}, {"b", false}} {
		out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Proj"), Key: map[string]types.AttributeValue{"pk": s(tc.pk)}, ProjectionExpression: aws.String("nothere")})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Item != nil; got != tc.wantEmpty || len(out.Item) != 0 {
			t.Errorf("GetItem %s projecting a missing attribute: Item %v (present %v), want present=%v and empty", tc.pk, out.Item, got, tc.wantEmpty)
		}
	}
}

// Large items (stored in chunks by the library) come back whole, and a
// Query stops its page at DynamoDB's 1 MB, so three items of 390 KB take
// two pages without any Limit.
func TestSDKLargeItems(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Large", "sk", types.ScalarAttributeTypeN)
	blob := make([]byte, 390*1024)
	for i := range blob {
		blob[i] = byte(i * 7)
	}
	for i := range 3 {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Large"), Item: map[string]types.AttributeValue{
			"pk": s("p"), "sk": n(fmt.Sprint(i)), "blob": &types.AttributeValueMemberB{Value: blob}}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Large"), Key: map[string]types.AttributeValue{"pk": s("p"), "sk": n("1")}})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := got.Item["blob"].(*types.AttributeValueMemberB); !ok || !bytes.Equal(b.Value, blob) {
		t.Errorf("GetItem of a 390 KB item did not return its bytes")
	}
	pages, items := 0, 0
	for p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: aws.String("Large"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}}); p.HasMorePages(); {
		out, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		items += len(out.Items)
	}
	if pages < 2 || items != 3 {
		t.Errorf("Query of 3 items of 390 KB: %d items in %d pages, want 3 in at least 2 (1 MB pages)", items, pages)
	}
}
