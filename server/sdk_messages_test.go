package server

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// TestSDKMessages checks DynamoDB's wording of request errors that the
// library words: expression syntax, sets, unused placeholders and key
// conditions.
func TestSDKMessages(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Hash", "", "")
	createTable(t, c, "Composite", "sk", types.ScalarAttributeTypeS)
	key := map[string]types.AttributeValue{"pk": s("k")}

	// '!' is a token of DynamoDB's expression grammar that no rule
	// accepts, so "!!!" is a syntax error at the first '!', shown with
	// the token after it.
	const bang = `Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"`
	_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Hash"), Key: key, ProjectionExpression: aws.String("!!! INVALID !!!")})
	wantAPIErrorExact(t, err, "ValidationException", bang)
	_, err = c.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("Hash"), Key: key, ProjectionExpression: aws.String("!!!")}}}})
	wantAPIErrorExact(t, err, "ValidationException", bang)

	// A string set naming a member twice: the members as sent.
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Hash"), Item: map[string]types.AttributeValue{
		"pk": s("k"), "bad": &types.AttributeValueMemberSS{Value: []string{"b", "a", "b"}}}})
	wantAPIErrorExact(t, err, "ValidationException", "One or more parameter values were invalid: Input collection [b, a, b] contains duplicates.")
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Hash"), Item: map[string]types.AttributeValue{
		"pk": s("k"), "m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"ns": &types.AttributeValueMemberNS{Value: []string{"1", "1"}}}}}})
	wantAPIErrorExact(t, err, "ValidationException", "One or more parameter values were invalid: Input collection [1, 1] contains duplicates.")

	// An empty binary set has its own wording; the other empty sets
	// theirs.
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Hash"), Item: map[string]types.AttributeValue{
		"pk": s("k"), "bs": &types.AttributeValueMemberBS{Value: [][]byte{}}}})
	wantAPIErrorExact(t, err, "ValidationException", "One or more parameter values were invalid: Binary sets should not be empty")
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Hash"), Item: map[string]types.AttributeValue{
		"pk": s("k"), "ss": &types.AttributeValueMemberSS{Value: []string{}}}})
	wantAPIErrorExact(t, err, "ValidationException", "One or more parameter values were invalid: An string set  may not be empty")

	// ExpressionAttributeValues with no expression to use them: PutItem
	// and DeleteItem name their ConditionExpression.
	eav := map[string]types.AttributeValue{":v": s("unused")}
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Hash"), Item: key, ExpressionAttributeValues: eav})
	wantAPIErrorExact(t, err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
	_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String("Hash"), Key: key, ExpressionAttributeValues: eav})
	wantAPIErrorExact(t, err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")

	// A key condition on a non-key attribute alone misses the partition
	// key, which DynamoDB names.
	_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Composite"), KeyConditionExpression: aws.String("attr1 = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("val")}})
	wantAPIErrorExact(t, err, "ValidationException", "Query condition missed key schema element: pk")

	// None of them wrote anything.
	out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Hash"), Key: key})
	if err != nil || out.Item != nil {
		t.Errorf("GetItem after rejected writes = %v, %v; want no item", out.Item, err)
	}
}

// TestSDKTransactGetKeyMismatch: DynamoDB checks each TransactGetItems
// key against its table's schema as the transaction runs, so a key that
// does not match cancels the transaction with reason ValidationError
// (the other actions None) instead of failing the request.
func TestSDKTransactGetKeyMismatch(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Hash", "", "")
	_, err := c.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("Hash"), Key: map[string]types.AttributeValue{"pk": s("a")}}},
		{Get: &types.Get{TableName: aws.String("Hash"), Key: map[string]types.AttributeValue{}}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("TransactGetItems with an empty key: %v, want TransactionCanceledException", err)
	}
	if got, want := aws.ToString(tce.Message), "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[0].Code) != "None" ||
		aws.ToString(tce.CancellationReasons[1].Code) != "ValidationError" ||
		!strings.Contains(aws.ToString(tce.CancellationReasons[1].Message), "The provided key element does not match the schema") {
		t.Errorf("CancellationReasons = %+v", tce.CancellationReasons)
	}
}

// TestSDKTransactWriteAggregateSize: the items of one TransactWriteItems
// may total at most 4 MB (DynamoDB's API reference); a request over it is
// a ValidationException and writes nothing. Just under it succeeds.
func TestSDKTransactWriteAggregateSize(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Hash", "", "")
	payload := strings.Repeat("x", 350_000)
	puts := func(prefix string, n int) []types.TransactWriteItem {
		items := make([]types.TransactWriteItem, n)
		for i := range items {
			items[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String("Hash"), Item: map[string]types.AttributeValue{
				"pk": s(prefix + string(rune('a'+i))), "payload": s(payload)}}}
		}
		return items
	}
	// 12 × ~350 KB ≈ 4.2 MB: over.
	_, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: puts("over-", 12)})
	wantAPIErrorExact(t, err, "ValidationException", "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit")
	out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Hash"), Key: map[string]types.AttributeValue{"pk": s("over-a")}})
	if err != nil || out.Item != nil {
		t.Errorf("GetItem after the refused transaction = %v, %v; want no item", out.Item, err)
	}
	// 11 × ~350 KB ≈ 3.85 MB: under.
	if _, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: puts("under-", 11)}); err != nil {
		t.Errorf("TransactWriteItems of 3.85 MB: %v", err)
	}
}

// TestSDKCreateTableIndexName: an index name has a table name's
// constraints (3 to 255 characters of [a-zA-Z0-9_.-]), reported against
// the index's member, not the table's.
func TestSDKCreateTableIndexName(t *testing.T) {
	_, c := newTestClient(t, Config{})
	_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Tbl"), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("ab"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	})
	wantAPIErrorExact(t, err, "ValidationException", "1 validation error detected: Value 'ab' at 'globalSecondaryIndexes.1.member.indexName' failed to satisfy constraint: Member must have length greater than or equal to 3")
	_, err = c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Tbl")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("DescribeTable after the refused CreateTable: %v, want ResourceNotFoundException", err)
	}
}

// TestSDKTransactWriteFirstInvalidOnly: when several TransactWriteItems
// actions are invalid, DynamoDB reports the first one's ValidationError
// and None for every other action, in the reasons and in the message.
func TestSDKTransactWriteFirstInvalidOnly(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Hash", "", "")
	bad := func(v string) types.TransactWriteItem { // a number key on a string key
		return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String("Hash"), Key: map[string]types.AttributeValue{"pk": n(v)}}}
	}
	_, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Hash"), Item: map[string]types.AttributeValue{"pk": s("ok")}}}, bad("1"), bad("2"),
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("TransactWriteItems with two invalid keys: %v, want TransactionCanceledException", err)
	}
	if got, want := aws.ToString(tce.Message), "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError, None]"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if diff := cmp.Diff([]string{"None", "ValidationError", "None"}, codes); diff != "" {
		t.Errorf("CancellationReasons codes (-want +got):\n%s", diff)
	}
}
