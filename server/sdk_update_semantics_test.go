package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// Update and condition semantics through the wire, with the AWS SDK for
// Go v2, as DynamoDB's API reference and developer guide state them.

// "SET c[4] = :x, c[2] = :y" on c = [1, 3]: both indexes are past the end
// and refer to the original list, so both values are appended, in index
// order (developer guide, "Adding elements to a list"); REMOVE of several
// elements names the original elements.
func TestSDKUpdateListIndexes(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Lists", "", "")
	tbl := aws.String("Lists")
	key := map[string]types.AttributeValue{"pk": s("k")}
	list := func(vs ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: vs} }
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{
		"pk": s("k"), "c": list(n("1"), n("3")), "r": list(n("0"), n("1"), n("2"), n("3"), n("4")),
	}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: key,
		UpdateExpression:          aws.String("SET c[4] = :x, c[2] = :y REMOVE r[3], r[1]"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":x": s("x"), ":y": s("y")},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]types.AttributeValue{"pk": s("k"), "c": list(n("1"), n("3"), s("y"), s("x")), "r": list(n("0"), n("2"), n("4"))}
	if diff := cmp.Diff(want, out.Attributes, cmpAV); diff != "" {
		t.Errorf("ALL_NEW mismatch (-want +got):\n%s", diff)
	}
}

// An UpdateItem of only REMOVE or DELETE actions on a missing item
// creates nothing and returns no attributes for ALL_NEW.
func TestSDKUpdateRemoveCreatesNothing(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Phantom", "", "")
	tbl := aws.String("Phantom")
	key := map[string]types.AttributeValue{"pk": s("missing")}
	for _, expr := range []string{"REMOVE a", "REMOVE a.b, c[0]", "DELETE ss :s"} {
		in := &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: aws.String(expr), ReturnValues: types.ReturnValueAllNew}
		if strings.Contains(expr, ":s") {
			in.ExpressionAttributeValues = map[string]types.AttributeValue{":s": &types.AttributeValueMemberSS{Value: []string{"x"}}}
		}
		out, err := c.UpdateItem(ctx(t), in)
		if err != nil {
			t.Fatalf("UpdateItem %q: %v", expr, err)
		}
		if len(out.Attributes) != 0 {
			t.Errorf("UpdateItem %q ALL_NEW = %v, want no attributes", expr, out.Attributes)
		}
	}
	got, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Item != nil {
		t.Errorf("GetItem after REMOVE-only updates = %v, want no item", got.Item)
	}
	sc, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Count != 0 {
		t.Errorf("Scan Count = %d, want 0", sc.Count)
	}
}

// TestUpdateRemoveNestedPath: on an existing item, REMOVE of a nested path
// whose parent is missing or not a document (REMOVE c.c without c, a.c
// with a a string, b[0] with b missing or not a list) is a
// ValidationException, exactly as SET of the path is; REMOVE of a missing
// element of an existing map or list (a map's missing key, an index past
// the end) does nothing; on an item that does not exist every REMOVE is
// ignored. The same holds in TransactWriteItems, where the failure is the
// action's ValidationError.
func TestUpdateRemoveNestedPath(t *testing.T) {
	ts := legacyServer(t)
	const stored = `{"pk":{"S":"k"},"a":{"S":"x"},"m":{"M":{"x":{"N":"1"}}},"l":{"L":[{"N":"1"}]}}`
	const invalid = "The document path provided in the update expression is invalid for update"
	for _, tc := range []struct {
		expr    string
		invalid bool
	}{
		{"REMOVE c.c", true},
		{"REMOVE a.c", true},
		{"REMOVE b[0]", true},
		{"REMOVE a[0]", true},
		{"REMOVE m[0]", true},
		{"REMOVE l.c", true},
		{"REMOVE m.y.z", true},
		{"REMOVE l[7].c", true},
		{"SET c.c = :v", true},
		{"REMOVE m.y", false},
		{"REMOVE l[7]", false},
		{"REMOVE c", false},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			ts.mustCall(t, "PutItem", `{"TableName":"Leg","Item":`+stored+`}`)
			values := ""
			if strings.Contains(tc.expr, ":v") {
				values = `,"ExpressionAttributeValues":{":v":{"N":"1"}}`
			}
			code, _, name, msg := ts.call(t, "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"k"}},"UpdateExpression":"`+tc.expr+`"`+values+`}`)
			got := ts.mustCall(t, "GetItem", `{"TableName":"Leg","Key":{"pk":{"S":"k"}},"ConsistentRead":true}`)["Item"]
			switch {
			case tc.invalid && (code != http.StatusBadRequest || name != "ValidationException" || msg != invalid):
				t.Fatalf("existing item: %d %s: %q, want ValidationException %q", code, name, msg, invalid)
			case !tc.invalid && code != http.StatusOK:
				t.Fatalf("existing item: %d %s: %s, want success", code, name, msg)
			case tc.invalid || tc.expr != "REMOVE c":
				if diff := cmp.Diff(mustJSON(t, stored), got); diff != "" {
					t.Errorf("item changed (-want +got):\n%s", diff)
				}
			}
			code, _, name, msg = ts.call(t, "TransactWriteItems", `{"TransactItems":[{"Update":{"TableName":"Leg","Key":{"pk":{"S":"k"}},"UpdateExpression":"`+tc.expr+`"`+values+`}}]}`)
			if tc.invalid != (code != http.StatusOK) || tc.invalid && (name != "TransactionCanceledException" || !strings.Contains(msg, "ValidationError")) {
				t.Errorf("TransactWriteItems: %d %s: %s", code, name, msg)
			}
			// On an item that does not exist, a REMOVE is ignored and
			// nothing is created; a SET of the path is still invalid.
			code, _, name, msg = ts.call(t, "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"gone"}},"UpdateExpression":"`+tc.expr+`"`+values+`}`)
			setsPath := strings.HasPrefix(tc.expr, "SET")
			if setsPath != (code != http.StatusOK) || setsPath && msg != invalid {
				t.Errorf("missing item: %d %s: %s", code, name, msg)
			}
			if got := ts.mustCall(t, "GetItem", `{"TableName":"Leg","Key":{"pk":{"S":"gone"}},"ConsistentRead":true}`); got["Item"] != nil {
				t.Errorf("missing item created: %v", got["Item"])
			}
		})
	}
}

// An action whose key does not match its table's key schema cancels
// TransactWriteItems with a ValidationError reason for that action and
// None for the others (API_TransactWriteItems, CancellationReasons).
func TestSDKTransactWriteValidationReason(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "TxTable", "", "")
	tbl := aws.String("TxTable")
	_, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("written")}}},
		{Put: &types.Put{TableName: tbl, Item: map[string]types.AttributeValue{"pk": n("1")}}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("TransactWriteItems = %v, want TransactionCanceledException", err)
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if diff := cmp.Diff([]string{"None", "ValidationError"}, codes); diff != "" {
		t.Errorf("cancellation codes mismatch (-want +got):\n%s", diff)
	}
	got, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("written")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Item != nil {
		t.Errorf("canceled transaction wrote %v", got.Item)
	}
}

// A present but empty expression is a ValidationException ("The
// expression can not be empty;") and writes nothing; an absent one is
// not.
func TestSDKEmptyExpressions(t *testing.T) {
	ts, c := newTestClient(t, Config{})
	createTable(t, c, "Empty", "sk", types.ScalarAttributeTypeN)
	tbl := aws.String("Empty")
	key := map[string]types.AttributeValue{"pk": s("p"), "sk": n("1")}
	empty := aws.String("")
	calls := []struct {
		name, member string
		call         func() error
	}{
		{"UpdateItem UpdateExpression", "UpdateExpression", func() error {
			_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: empty})
			return err
		}},
		{"UpdateItem ConditionExpression", "ConditionExpression", func() error {
			_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: key, ConditionExpression: empty,
				UpdateExpression: aws.String("SET a = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1")}})
			return err
		}},
		{"PutItem ConditionExpression", "ConditionExpression", func() error {
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: key, ConditionExpression: empty})
			return err
		}},
		{"DeleteItem ConditionExpression", "ConditionExpression", func() error {
			_, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: key, ConditionExpression: empty})
			return err
		}},
		{"GetItem ProjectionExpression", "ProjectionExpression", func() error {
			_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: key, ProjectionExpression: empty})
			return err
		}},
		{"Query KeyConditionExpression", "KeyConditionExpression", func() error {
			_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: empty})
			return err
		}},
		{"Query FilterExpression", "FilterExpression", func() error {
			_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"), FilterExpression: empty,
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}})
			return err
		}},
		{"Scan FilterExpression", "FilterExpression", func() error {
			_, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, FilterExpression: empty})
			return err
		}},
		{"TransactWriteItems ConditionExpression", "ConditionExpression", func() error {
			_, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: tbl, Item: key, ConditionExpression: empty}}}})
			return err
		}},
	}
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			wantAPIError(t, tc.call(), "ValidationException", "Invalid "+tc.member+": The expression can not be empty;")
		})
	}
	got, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Item != nil {
		t.Errorf("requests with empty expressions wrote %v", got.Item)
	}
	// Absent expressions are fine.
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: key}); err != nil {
		t.Errorf("PutItem without a condition: %v", err)
	}
	// Whitespace in the JSON does not hide an empty member.
	status, typ, msg := ts.post(t, targetPrefix+"PutItem", contentType,
		strings.NewReader(`{"TableName":"Empty","Item":{"pk":{"S":"q"},"sk":{"N":"2"}},"ConditionExpression" :  ""}`))
	if status != 400 || typ != "ValidationException" || msg != "Invalid ConditionExpression: The expression can not be empty;" {
		t.Errorf("raw PutItem with an empty condition: %d %s %q", status, typ, msg)
	}
}

// ListTables with no tables answers "TableNames": [], not null.
func TestListTablesEmptyIsArray(t *testing.T) {
	ts := newTestServer(t, Config{})
	body := rawCall(t, ts, "ListTables", `{}`)
	if !strings.Contains(body, `"TableNames":[]`) {
		t.Errorf("ListTables body = %s, want \"TableNames\":[]", body)
	}
	out, err := ts.client(testCredentials).ListTables(ctx(t), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if out.TableNames == nil || len(out.TableNames) != 0 {
		t.Errorf("SDK TableNames = %#v, want an empty, non-nil list", out.TableNames)
	}
}

// rawCall sends operation op with body and returns the response body of a
// 200 answer.
func rawCall(t *testing.T, ts *testServer, op, body string) string {
	t.Helper()
	status, raw := doRawBody(t, ts.http.Client(), ts.request(t, targetPrefix+op, contentType, strings.NewReader(body)))
	if status != http.StatusOK {
		t.Fatalf("%s: %d %s", op, status, raw)
	}
	return string(raw)
}

// A parallel Scan's segments share the items fairly whatever the keys
// look like, and read each exactly once: DynamoDB assigns items to
// segments by a hash of the partition key (developer guide, "Parallel
// scan"). 1,000 keys k0000..k0999 share their first bytes.
func TestSDKParallelScanFair(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Segments", "", "")
	tbl := aws.String("Segments")
	const items, total = 1000, 4
	for i := 0; i < items; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < i+25; j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s(fmt.Sprintf("k%04d", j))}}})
		}
		if _, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Segments": reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for seg := range int32(total) {
		in := &dynamodb.ScanInput{TableName: tbl, Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(90)}
		count := 0
		for {
			out, err := c.Scan(ctx(t), in)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				seen[it["pk"].(*types.AttributeValueMemberS).Value]++
			}
			count += len(out.Items)
			if out.LastEvaluatedKey == nil {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
		if count > 2*items/total {
			t.Errorf("segment %d read %d items, over twice the mean %d", seg, count, items/total)
		}
	}
	if len(seen) != items {
		t.Fatalf("segments read %d distinct items, want %d", len(seen), items)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("item %s read %d times", k, n)
		}
	}
}
