package server

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// SDK tests of UpdateTable, the batch and transaction operations and
// Time to Live, stating what DynamoDB's API reference says each returns.

type avMap = map[string]types.AttributeValue

// waitIndexActive polls DescribeTable until index is ACTIVE, as a
// DynamoDB client waits for a new GSI.
func waitIndexActive(t *testing.T, c *dynamodb.Client, table, index string) {
	t.Helper()
	testtime.WaitUntil(t, "index "+index+" of "+table+" to be ACTIVE", func() bool {
		d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range d.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == index && g.IndexStatus == types.IndexStatusActive {
				if g.Backfilling != nil {
					t.Errorf("ACTIVE index %s reports Backfilling %v", index, *g.Backfilling)
				}
				return true
			}
		}
		return false
	})
}

func TestSDKUpdateTableGSI(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Orders", "sk", types.ScalarAttributeTypeN)
	tbl := aws.String("Orders")
	put := func(pk string, sk int, status string, amt int) {
		t.Helper()
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: avMap{
			"pk": s(pk), "sk": n(fmt.Sprint(sk)), "status": s(status), "amt": n(fmt.Sprint(amt))}}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{} // pk/sk of the "open" items, by amt
	for i := range 40 {
		status := []string{"open", "closed"}[i%2]
		put("c"+fmt.Sprint(i%5), i, status, 1000-i)
		if status == "open" {
			want = append(want, fmt.Sprintf("c%d/%d", i%5, i))
		}
	}
	// amt falls as i grows: want is in descending amt.

	out, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{
		TableName: tbl,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("status"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("amt"), AttributeType: types.ScalarAttributeTypeN}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byStatus"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("amt"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// As of the UpdateTable, the index is CREATING (DynamoDB's API
	// reference: the index is backfilled after the call returns).
	gs := out.TableDescription.GlobalSecondaryIndexes
	if len(gs) != 1 || aws.ToString(gs[0].IndexName) != "byStatus" || gs[0].IndexStatus != types.IndexStatusCreating {
		t.Fatalf("UpdateTable's GlobalSecondaryIndexes = %+v, want byStatus CREATING", gs)
	}
	put("late", 99, "open", 1) // written during the backfill: indexed too; the smallest amt
	want = append(want, "late/99")
	waitIndexActive(t, c, "Orders", "byStatus")

	var got []string
	for p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String("byStatus"),
		KeyConditionExpression: aws.String("#s = :o"), ExpressionAttributeNames: map[string]string{"#s": "status"},
		ExpressionAttributeValues: avMap{":o": s("open")}, ScanIndexForward: aws.Bool(false), Limit: aws.Int32(7)}); p.HasMorePages(); {
		page, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			got = append(got, it["pk"].(*types.AttributeValueMemberS).Value+"/"+it["sk"].(*types.AttributeValueMemberN).Value)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Query byStatus = open, amt descending (-want +got):\n%s", diff)
	}

	// Errors at the wire and from the library.
	keys := []types.KeySchemaElement{{AttributeName: aws.String("amt"), KeyType: types.KeyTypeHash}}
	_, err = c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
		{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byStatus"), KeySchema: keys, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	wantAPIError(t, err, "ValidationException", "already exists")
	_, err = c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl})
	wantAPIError(t, err, "ValidationException", "At least one of")
	_, err = c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl, StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byStatus")}}}})
	wantAPIError(t, err, "ValidationException", "Only one of the following can be specified in a single UpdateTable request")
	_, err = c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
		{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("byStatus"), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}}}})
	wantAPIError(t, err, "ValidationException", "")
	_, err = c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
		{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("nope")}}}})
	wantAPIError(t, err, "ResourceNotFoundException", "nope")
	_, err = c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("NoSuchTable"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
		{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byStatus")}}}})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl, BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Errorf("UpdateTable of BillingMode alone: %v", err)
	}

	// Delete: the index is gone, and Query on it is refused.
	del, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
		{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byStatus")}}}})
	if err != nil || len(del.TableDescription.GlobalSecondaryIndexes) != 0 {
		t.Fatalf("UpdateTable Delete = %+v, %v", del, err)
	}
	_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String("byStatus"),
		KeyConditionExpression: aws.String("#s = :o"), ExpressionAttributeNames: map[string]string{"#s": "status"}, ExpressionAttributeValues: avMap{":o": s("open")}})
	wantAPIError(t, err, "ValidationException", "byStatus")
}

// A server resumes the backfill of an index left CREATING (here, created
// through the library, as by a server that stopped before finishing).
func TestSDKBackfillResumesAtStart(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tbl, err := fdyno.Open(db, "Resume", fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if _, err := tbl.Put(db, fdyno.PutInput{Item: fdyno.Item{"pk": fdyno.S(fmt.Sprint(i)), "g": fdyno.S("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tbl.UpdateTable(db, fdyno.UpdateTableInput{
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "g", AttributeType: fdyno.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []fdyno.GlobalSecondaryIndexUpdate{{Create: &fdyno.CreateGlobalSecondaryIndexAction{
			IndexName: "byG", KeySchema: []fdyno.KeySchemaElement{{AttributeName: "g", KeyType: fdyno.KeyTypeHash}},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly}}}},
	}); err != nil {
		t.Fatal(err)
	}
	_, c := newTestClient(t, Config{DB: db})
	waitIndexActive(t, c, "Resume", "byG")
	out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Resume"), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :x"), ExpressionAttributeValues: avMap{":x": s("x")}, Select: types.SelectCount})
	if err != nil || out.Count != 30 {
		t.Errorf("Query of the resumed index: Count %d, %v; want 30", out.Count, err)
	}
}

// BatchWriteItem of 25 items of 390 KB (about 10 MB, more than one
// FoundationDB transaction takes) comes back with UnprocessedItems, which
// resent until none is left write everything; BatchGetItem of 44 such
// items (over DynamoDB's 16 MB response) comes back with UnprocessedKeys.
// With -short (about 10 s less under -race), 14 items: 5.5 MB of writes,
// still more than one BatchWrite transaction, and no UnprocessedKeys.
func TestSDKBatchUnprocessed(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Big", "sk", types.ScalarAttributeTypeN)
	blob := strings.Repeat("z", 390*1024)
	total := 44
	if testing.Short() {
		total = 14
	}
	overResponseLimit := total*len(blob) > fdyno.MaxBatchGetBytes
	rounds := 0
	for start := 0; start < total; start += 25 {
		var reqs []types.WriteRequest
		for i := start; i < min(start+25, total); i++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: avMap{"pk": s("p"), "sk": n(fmt.Sprint(i)), "v": s(blob)}}})
		}
		pending := map[string][]types.WriteRequest{"Big": reqs}
		for len(pending) > 0 {
			out, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				t.Fatal(err)
			}
			pending = out.UnprocessedItems
			rounds++
		}
	}
	if rounds < 2+total/25 {
		t.Errorf("%d BatchWriteItem calls for %d items of 390 KB; want UnprocessedItems from the first batch", rounds, total)
	}
	keys := make([]avMap, total)
	for i := range keys {
		keys[i] = avMap{"pk": s("p"), "sk": n(fmt.Sprint(i))}
	}
	pending := map[string]types.KeysAndAttributes{"Big": {Keys: keys, ProjectionExpression: aws.String("sk, #v"), ExpressionAttributeNames: map[string]string{"#v": "v"}}}
	var got []string
	calls := 0
	for len(pending) > 0 {
		out, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: pending})
		if err != nil {
			t.Fatal(err)
		}
		calls++
		for _, it := range out.Responses["Big"] {
			if v := it["v"].(*types.AttributeValueMemberS).Value; v != blob || it["pk"] != nil {
				t.Fatalf("item %v: projection of sk, v not applied", it["sk"])
			}
			got = append(got, it["sk"].(*types.AttributeValueMemberN).Value)
		}
		pending = out.UnprocessedKeys
		if ka, ok := pending["Big"]; ok && aws.ToString(ka.ProjectionExpression) != "sk, #v" {
			t.Errorf("UnprocessedKeys lost the projection: %+v", ka)
		}
	}
	if len(got) != total || overResponseLimit && calls < 2 {
		t.Errorf("BatchGetItem of %d items of 390 KB: %d items in %d calls; want all, in 2 calls or more past 16 MB", total, len(got), calls)
	}
}

func TestSDKBatchItems(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "TblA", "", "")
	createTable(t, c, "TblB", "sk", types.ScalarAttributeTypeN)
	_, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"TblA": {{PutRequest: &types.PutRequest{Item: avMap{"pk": s("a1"), "x": n("1")}}}, {PutRequest: &types.PutRequest{Item: avMap{"pk": s("a2"), "x": n("2")}}}},
		"TblB": {{PutRequest: &types.PutRequest{Item: avMap{"pk": s("b"), "sk": n("1"), "y": s("one")}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"arn:aws:dynamodb:us-east-1:000000000000:table/TblA": {{DeleteRequest: &types.DeleteRequest{Key: avMap{"pk": s("a2")}}}},
	}})
	if err != nil || len(out.UnprocessedItems) != 0 {
		t.Fatalf("BatchWriteItem delete by ARN = %+v, %v", out, err)
	}

	got, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"TblA": {Keys: []avMap{{"pk": s("a1")}, {"pk": s("a2")}}},
		"TblB": {Keys: []avMap{{"pk": s("b"), "sk": n("1")}, {"pk": s("b"), "sk": n("2")}}, ProjectionExpression: aws.String("#y"), ExpressionAttributeNames: map[string]string{"#y": "y"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]avMap{"TblA": {{"pk": s("a1"), "x": n("1")}}, "TblB": {{"y": s("one")}}}
	if diff := cmp.Diff(want, got.Responses, cmpAV); diff != "" {
		t.Errorf("BatchGetItem Responses (-want +got):\n%s", diff)
	}
	if len(got.UnprocessedKeys) != 0 {
		t.Errorf("UnprocessedKeys = %v, want none", got.UnprocessedKeys)
	}

	// DynamoDB's limits and rules at the wire.
	many := make([]avMap, 101)
	for i := range many {
		many[i] = avMap{"pk": s(fmt.Sprint(i))}
	}
	// Over 100 keys for one table is a constraint violation naming the
	// table's Keys; over 100 in all, a limit of the call.
	_, err = c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"TblA": {Keys: many}}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value at 'RequestItems.TblA.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100")
	_, err = c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"TblA": {Keys: many[:60]}, "TblB": {Keys: many[:60]}}})
	wantAPIError(t, err, "ValidationException", "Too many items requested for the BatchGetItem call")
	_, err = c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"TblA": {Keys: []avMap{{"pk": s("a1")}, {"pk": s("a1")}}}}})
	wantAPIError(t, err, "ValidationException", "duplicates")
	_, err = c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"Nope": {Keys: []avMap{{"pk": s("a1")}}}}})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"TblA": {Keys: []avMap{{"pk": s("a1")}}}, "arn:aws:dynamodb:us-east-1:000000000000:table/TblA": {Keys: []avMap{{"pk": s("a2")}}}}})
	wantAPIError(t, err, "ValidationException", "twice")

	puts := make([]types.WriteRequest, 26)
	for i := range puts {
		puts[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: avMap{"pk": s(fmt.Sprint("n", i))}}}
	}
	_, err = c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"TblA": puts}})
	wantAPIError(t, err, "ValidationException", "at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
	if err != nil && !strings.HasPrefix(apiMessage(err), "1 validation error detected: Value '{TblA=[") {
		t.Errorf("26 writes to TblA: message %q does not show the request map", apiMessage(err))
	}
	_, err = c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"TblA": puts[:13], "TblB": puts[13:]}})
	wantAPIError(t, err, "ValidationException", "Too many items requested for the BatchWriteItem call")
	_, err = c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"TblA": {
		{PutRequest: &types.PutRequest{Item: avMap{"pk": s("new")}}}, {DeleteRequest: &types.DeleteRequest{Key: avMap{"pk": s("new")}}}}}})
	wantAPIError(t, err, "ValidationException", "duplicates")
	_, err = c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"TblA": {
		{PutRequest: &types.PutRequest{Item: avMap{"pk": s("new")}}}, {PutRequest: &types.PutRequest{Item: avMap{"nokey": s("x")}}}}}})
	wantAPIError(t, err, "ValidationException", "")
	// A refused batch writes nothing.
	g, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("TblA"), Key: avMap{"pk": s("new")}})
	if err != nil || g.Item != nil {
		t.Errorf("an item of a refused batch was written: %v, %v", g.Item, err)
	}
	_, err = c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}})
	wantAPIError(t, err, "ValidationException", "")
}

func TestSDKTransactions(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Acct", "", "")
	createTable(t, c, "Log", "sk", types.ScalarAttributeTypeN)
	acct := aws.String("Acct")
	for _, it := range []avMap{{"pk": s("alice"), "bal": n("100")}, {"pk": s("bob"), "bal": n("5")}, {"pk": s("carol"), "bal": n("0")}} {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: acct, Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	transfer := func(from, to, amt string, token *string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{ClientRequestToken: token, TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: acct, Key: avMap{"pk": s(from)}, UpdateExpression: aws.String("SET bal = bal - :a"),
				ConditionExpression: aws.String("bal >= :a"), ExpressionAttributeValues: avMap{":a": n(amt)},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			{Update: &types.Update{TableName: acct, Key: avMap{"pk": s(to)}, UpdateExpression: aws.String("SET bal = bal + :a"), ExpressionAttributeValues: avMap{":a": n(amt)}}},
			{Put: &types.Put{TableName: aws.String("Log"), Item: avMap{"pk": s(from), "sk": n(amt), "to": s(to)}}},
			{ConditionCheck: &types.ConditionCheck{TableName: acct, Key: avMap{"pk": s("carol")}, ConditionExpression: aws.String("attribute_exists(pk)")}},
		}}
	}
	bal := func(pk string) string {
		t.Helper()
		g, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: acct, Key: avMap{"pk": s(pk)}})
		if err != nil {
			t.Fatal(err)
		}
		return g.Item["bal"].(*types.AttributeValueMemberN).Value
	}

	token := aws.String("transfer-1")
	if _, err := c.TransactWriteItems(ctx(t), transfer("alice", "bob", "30", token)); err != nil {
		t.Fatal(err)
	}
	// The same token and request again: success, and nothing applied twice
	// (DynamoDB: an idempotent retry within 10 minutes).
	if _, err := c.TransactWriteItems(ctx(t), transfer("alice", "bob", "30", token)); err != nil {
		t.Errorf("retry with the same ClientRequestToken: %v", err)
	}
	if a, b := bal("alice"), bal("bob"); a != "70" || b != "35" {
		t.Errorf("after a transfer of 30 and its retry: alice %s bob %s, want 70 and 35", a, b)
	}
	_, err := c.TransactWriteItems(ctx(t), transfer("alice", "bob", "31", token))
	var mismatch *types.IdempotentParameterMismatchException
	if !errors.As(err, &mismatch) {
		t.Errorf("the same token for another request: %v, want IdempotentParameterMismatchException", err)
	}

	// A failed condition cancels everything; its reason carries the old
	// item (ALL_OLD), the other actions' reasons are None.
	_, err = c.TransactWriteItems(ctx(t), transfer("bob", "alice", "1000", nil))
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("overdraft: %v, want TransactionCanceledException", err)
	}
	if !strings.Contains(tce.ErrorMessage(), "[ConditionalCheckFailed, None, None, None]") {
		t.Errorf("message %q does not list the reasons' codes", tce.ErrorMessage())
	}
	codes := []string{}
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if diff := cmp.Diff([]string{"ConditionalCheckFailed", "None", "None", "None"}, codes); diff != "" {
		t.Errorf("CancellationReasons codes (-want +got):\n%s", diff)
	}
	if len(tce.CancellationReasons) == 4 {
		if diff := cmp.Diff(avMap{"pk": s("bob"), "bal": n("35")}, tce.CancellationReasons[0].Item, cmpAV); diff != "" {
			t.Errorf("ALL_OLD Item of the failed condition (-want +got):\n%s", diff)
		}
		if tce.CancellationReasons[0].Message == nil || tce.CancellationReasons[1].Item != nil {
			t.Errorf("reasons = %+v", tce.CancellationReasons)
		}
	}
	if a, b := bal("alice"), bal("bob"); a != "70" || b != "35" {
		t.Errorf("a canceled transaction wrote: alice %s bob %s", a, b)
	}

	// TransactGetItems: in request order, projected, {} for no item.
	tg, err := c.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: acct, Key: avMap{"pk": s("bob")}}},
		{Get: &types.Get{TableName: aws.String("Log"), Key: avMap{"pk": s("alice"), "sk": n("30")}, ProjectionExpression: aws.String("#t"), ExpressionAttributeNames: map[string]string{"#t": "to"}}},
		{Get: &types.Get{TableName: acct, Key: avMap{"pk": s("dave")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var items []avMap
	for _, r := range tg.Responses {
		items = append(items, r.Item)
	}
	if diff := cmp.Diff([]avMap{{"pk": s("bob"), "bal": n("35")}, {"to": s("bob")}, nil}, items, cmpAV); diff != "" {
		t.Errorf("TransactGetItems Responses (-want +got):\n%s", diff)
	}

	// Limits and rules.
	many := make([]types.TransactWriteItem, 101)
	gets := make([]types.TransactGetItem, 101)
	for i := range many {
		many[i] = types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: acct, Key: avMap{"pk": s(fmt.Sprint(i))}, ConditionExpression: aws.String("attribute_not_exists(pk)")}}
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: acct, Key: avMap{"pk": s(fmt.Sprint(i))}}}
	}
	_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: many})
	wantAPIError(t, err, "ValidationException", "less than or equal to 100")
	_, err = c.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: gets})
	wantAPIError(t, err, "ValidationException", "less than or equal to 100")
	if _, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: many[:100]}); err != nil {
		t.Errorf("100 actions: %v", err)
	}
	_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: acct, Item: avMap{"pk": s("x")}}}, {Delete: &types.Delete{TableName: acct, Key: avMap{"pk": s("x")}}}}})
	wantAPIError(t, err, "ValidationException", "multiple operations on one item")
	_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Nope"), Item: avMap{"pk": s("x")}}}}})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(strings.Repeat("t", 37)),
		TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: acct, Item: avMap{"pk": s("x")}}}}})
	wantAPIError(t, err, "ValidationException", "clientRequestToken")
}

func TestSDKTimeToLive(t *testing.T) {
	_, c := newTestClient(t, Config{TTLSweepInterval: 20 * time.Millisecond})
	createTable(t, c, "Sessions", "", "")
	tbl := aws.String("Sessions")
	describe := func() types.TimeToLiveDescription {
		t.Helper()
		d, err := c.DescribeTimeToLive(ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: tbl})
		if err != nil {
			t.Fatal(err)
		}
		return *d.TimeToLiveDescription
	}
	if d := describe(); d.TimeToLiveStatus != types.TimeToLiveStatusDisabled || d.AttributeName != nil {
		t.Errorf("DescribeTimeToLive of a new table = %+v, want DISABLED", d)
	}
	now := time.Now().Unix()
	for _, it := range []avMap{
		{"pk": s("expired"), "exp": n(fmt.Sprint(now - 60))},
		{"pk": s("live"), "exp": n(fmt.Sprint(now + 3600))},
		{"pk": s("forever")},
	} {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	up, err := c.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: tbl,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	if err != nil || aws.ToString(up.TimeToLiveSpecification.AttributeName) != "exp" || !aws.ToBool(up.TimeToLiveSpecification.Enabled) {
		t.Fatalf("UpdateTimeToLive = %+v, %v", up, err)
	}
	if d := describe(); d.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.AttributeName) != "exp" {
		t.Errorf("DescribeTimeToLive = %+v, want ENABLED exp", d)
	}
	_, err = c.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: tbl,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("other"), Enabled: aws.Bool(true)}})
	wantAPIError(t, err, "ValidationException", "TimeToLive is active on a different AttributeName")

	// The server's sweeper deletes the expired item, and only it.
	testtime.WaitUntil(t, "the sweeper to leave [forever live]", func() bool {
		sc, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, ProjectionExpression: aws.String("pk")})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, it := range sc.Items {
			keys = append(keys, it["pk"].(*types.AttributeValueMemberS).Value)
		}
		slices.Sort(keys)
		return cmp.Equal(keys, []string{"forever", "live"})
	})

	if _, err := c.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: tbl,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	if d := describe(); d.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Errorf("DescribeTimeToLive after disabling = %+v", d)
	}
	_, err = c.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: tbl,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(false)}})
	wantAPIError(t, err, "ValidationException", "already disabled")
	_, err = c.DescribeTimeToLive(ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
}

// Malformed requests to the new operations: DynamoDB's
// SerializationException for a wrong JSON type, ValidationException for a
// missing member.
func TestMalformedBatchRequests(t *testing.T) {
	ts := newTestServer(t, Config{})
	create := `{"TableName":"Raw","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`
	ts.mustCall(t, "CreateTable", create)
	for _, tc := range []struct {
		name, op, body string
		errName, msg   string
	}{
		{"BatchGetItem without RequestItems", "BatchGetItem", `{}`, "ValidationException", "The requestItems parameter is required for BatchGetItem"},
		{"BatchGetItem RequestItems an array", "BatchGetItem", `{"RequestItems":[]}`, "SerializationException", ""},
		{"BatchGetItem Keys an object", "BatchGetItem", `{"RequestItems":{"Raw":{"Keys":{}}}}`, "SerializationException", ""},
		{"BatchGetItem no keys", "BatchGetItem", `{"RequestItems":{"Raw":{"Keys":[]}}}`, "ValidationException", ""},
		{"BatchGetItem null key", "BatchGetItem", `{"RequestItems":{"Raw":{"Keys":[null]}}}`, "ValidationException", ""},
		{"BatchGetItem empty", "BatchGetItem", `{"RequestItems":{}}`, "ValidationException", "The requestItems parameter is required for BatchGetItem"},
		{"BatchWriteItem without RequestItems", "BatchWriteItem", `{}`, "ValidationException", "The requestItems parameter is required for BatchWriteItem"},
		{"BatchWriteItem neither put nor delete", "BatchWriteItem", `{"RequestItems":{"Raw":[{}]}}`, "ValidationException", ""},
		{"BatchWriteItem put without item", "BatchWriteItem", `{"RequestItems":{"Raw":[{"PutRequest":{}}]}}`, "ValidationException", "putRequest.item"},
		{"BatchWriteItem both", "BatchWriteItem", `{"RequestItems":{"Raw":[{"PutRequest":{"Item":{"pk":{"S":"a"}}},"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]}}`, "ValidationException", ""},
		{"TransactWriteItems without items", "TransactWriteItems", `{}`, "ValidationException", "'transactItems'"},
		{"TransactWriteItems empty", "TransactWriteItems", `{"TransactItems":[]}`, "ValidationException", ""},
		{"TransactWriteItems empty action", "TransactWriteItems", `{"TransactItems":[{}]}`, "ValidationException", "one of"},
		{"TransactWriteItems two kinds", "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"Raw","Item":{"pk":{"S":"a"}}},"Delete":{"TableName":"Raw","Key":{"pk":{"S":"a"}}}}]}`, "ValidationException", "one of"},
		{"TransactWriteItems no table", "TransactWriteItems", `{"TransactItems":[{"Put":{"Item":{"pk":{"S":"a"}}}}]}`, "ValidationException", "tableName"},
		{"TransactWriteItems update without expression", "TransactWriteItems", `{"TransactItems":[{"Update":{"TableName":"Raw","Key":{"pk":{"S":"a"}}}}]}`, "ValidationException", "updateExpression"},
		{"TransactWriteItems token a number", "TransactWriteItems", `{"TransactItems":[],"ClientRequestToken":5}`, "SerializationException", ""},
		{"TransactGetItems no Get", "TransactGetItems", `{"TransactItems":[{}]}`, "ValidationException", "get"},
		{"TransactGetItems no key", "TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"Raw"}}]}`, "ValidationException", "key"},
		{"UpdateTimeToLive no spec", "UpdateTimeToLive", `{"TableName":"Raw"}`, "ValidationException", "timeToLiveSpecification"},
		{"UpdateTimeToLive no Enabled", "UpdateTimeToLive", `{"TableName":"Raw","TimeToLiveSpecification":{"AttributeName":"e"}}`, "ValidationException", "enabled"},
		{"UpdateTimeToLive Enabled a string", "UpdateTimeToLive", `{"TableName":"Raw","TimeToLiveSpecification":{"AttributeName":"e","Enabled":"yes"}}`, "SerializationException", ""},
		{"DescribeTimeToLive no table", "DescribeTimeToLive", `{}`, "ValidationException", "tableName"},
		{"UpdateTable updates an object", "UpdateTable", `{"TableName":"Raw","GlobalSecondaryIndexUpdates":{}}`, "SerializationException", ""},
		{"UpdateTable empty update", "UpdateTable", `{"TableName":"Raw","GlobalSecondaryIndexUpdates":[{}]}`, "ValidationException", ""},
		{"UpdateTable two updates", "UpdateTable", `{"TableName":"Raw","GlobalSecondaryIndexUpdates":[{"Delete":{"IndexName":"a"}},{"Delete":{"IndexName":"b"}}]}`, "LimitExceededException", "Only 1 online index can be created or deleted simultaneously per table"},
		{"UpdateTable create without definitions", "UpdateTable", `{"TableName":"Raw","GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"g","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`, "ValidationException", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, name, msg := ts.post(t, targetPrefix+tc.op, contentType, strings.NewReader(tc.body))
			if status != 400 || name != tc.errName || !strings.Contains(msg, tc.msg) {
				t.Errorf("got %d %s %q, want 400 %s containing %q", status, name, msg, tc.errName, tc.msg)
			}
		})
	}
	// Nothing was written by any of them.
	status, _, _ := ts.post(t, targetPrefix+"Scan", contentType, strings.NewReader(`{"TableName":"Raw","Select":"COUNT"}`))
	if status != 200 {
		t.Fatalf("Scan: %d", status)
	}
}

// A closed server starts no backfill (its index stays CREATING, and Query
// refuses it); the next server on the database builds it.
func TestSDKBackfillAfterClose(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	first := newTestServer(t, Config{DB: db})
	c := first.client(testCredentials)
	createTable(t, c, "Closed", "", "")
	for i := range 10 {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Closed"), Item: avMap{"pk": s(fmt.Sprint(i)), "g": s("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Closed"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byG"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if g := out.TableDescription.GlobalSecondaryIndexes; len(g) != 1 || g[0].IndexStatus != types.IndexStatusCreating || !aws.ToBool(g[0].Backfilling) {
		t.Fatalf("UpdateTable GSIs = %+v, want byG CREATING, Backfilling", g)
	}
	query := &dynamodb.QueryInput{TableName: aws.String("Closed"), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :x"), ExpressionAttributeValues: avMap{":x": s("x")}, Select: types.SelectCount}
	first.bg.wg.Wait() // a backfill, had the closed server started one, has ended
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Closed")})
	if err != nil || d.Table.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusCreating {
		t.Fatalf("after Close, the index is %+v, %v; want CREATING", d.Table.GlobalSecondaryIndexes, err)
	}
	_, err = c.Query(ctx(t), query)
	wantAPIError(t, err, "ValidationException", "")

	second := newTestServer(t, Config{DB: db})
	c2 := second.client(testCredentials)
	waitIndexActive(t, c2, "Closed", "byG")
	if q, err := c2.Query(ctx(t), query); err != nil || q.Count != 10 {
		t.Errorf("Query of the index built by the second server: %v, %v; want Count 10", q, err)
	}
}
