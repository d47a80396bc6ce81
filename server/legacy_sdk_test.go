package server

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The legacy parameters through the AWS SDK for Go v2's legacy fields
// (types.ExpectedAttributeValue, types.Condition,
// types.AttributeValueUpdate), as old SDK code sends them.

func legacyAV() cmp.Option {
	return cmpopts.IgnoreUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{}, types.AttributeValueMemberSS{},
		types.AttributeValueMemberL{}, types.AttributeValueMemberBOOL{})
}

// A PutItem whose Expected fails is a ConditionalCheckFailedException
// and writes nothing; with ReturnValuesOnConditionCheckFailure ALL_OLD it
// carries the item. One that passes writes.
func TestSDKLegacyExpected(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Accounts", "", "")
	tbl := aws.String("Accounts")
	old := map[string]types.AttributeValue{"pk": s("alice"), "balance": n("10"), "status": s("open")}
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: old,
		Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}}); err != nil {
		t.Fatalf("create with Exists false: %v", err)
	}
	_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("alice"), "balance": n("0")},
		Expected: map[string]types.ExpectedAttributeValue{
			"status":  {Value: s("open")},
			"balance": {ComparisonOperator: types.ComparisonOperatorGe, AttributeValueList: []types.AttributeValue{n("11")}},
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("PutItem with a failing Expected: %v, want ConditionalCheckFailedException", err)
	}
	if diff := cmp.Diff(old, ccf.Item, legacyAV()); diff != "" {
		t.Errorf("ConditionalCheckFailedException.Item (-want +got):\n%s", diff)
	}
	got, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("alice")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(old, got.Item, legacyAV()); diff != "" {
		t.Errorf("the failed PutItem wrote (-want +got):\n%s", diff)
	}
	// With OR, one passing condition suffices.
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("alice"), "balance": n("0")},
		Expected: map[string]types.ExpectedAttributeValue{
			"status":  {Value: s("open")},
			"balance": {ComparisonOperator: types.ComparisonOperatorGe, AttributeValueList: []types.AttributeValue{n("11")}},
		},
		ConditionalOperator: types.ConditionalOperatorOr}); err != nil {
		t.Fatalf("PutItem with OR: %v", err)
	}
	// DeleteItem with NOT_NULL on an attribute the item no longer has.
	_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("alice")},
		Expected: map[string]types.ExpectedAttributeValue{"status": {ComparisonOperator: types.ComparisonOperatorNotNull}}})
	if !errors.As(err, &ccf) {
		t.Fatalf("DeleteItem with NOT_NULL on a missing attribute: %v, want ConditionalCheckFailedException", err)
	}
	// The Expected rules of the API reference: Exists false with a Value
	// is an error.
	_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("alice")},
		Expected: map[string]types.ExpectedAttributeValue{"status": {Exists: aws.Bool(false), Value: s("open")}}})
	wantAPIError(t, err, "ValidationException", "Value cannot be used when Exists is false for Attribute: status")
}

// UpdateItem with AttributeUpdates: PUT, ADD to a number, a set and a
// list, DELETE from a set and of an attribute, returning ALL_NEW.
func TestSDKLegacyAttributeUpdates(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Counters", "", "")
	tbl := aws.String("Counters")
	key := map[string]types.AttributeValue{"pk": s("page")}
	upd := func(u map[string]types.AttributeValueUpdate, exp map[string]types.ExpectedAttributeValue) (map[string]types.AttributeValue, error) {
		out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: key, AttributeUpdates: u, Expected: exp, ReturnValues: types.ReturnValueAllNew})
		if err != nil {
			return nil, err
		}
		return out.Attributes, nil
	}
	if _, err := upd(map[string]types.AttributeValueUpdate{
		"views": {Action: types.AttributeActionAdd, Value: n("1")},
		"tags":  {Action: types.AttributeActionAdd, Value: &types.AttributeValueMemberSS{Value: []string{"new", "hot"}}},
		"log":   {Action: types.AttributeActionAdd, Value: &types.AttributeValueMemberL{Value: []types.AttributeValue{s("created")}}},
		"title": {Action: types.AttributeActionPut, Value: s("Home")},
		"draft": {Value: &types.AttributeValueMemberBOOL{Value: true}},
	}, map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}); err != nil {
		t.Fatalf("first update: %v", err)
	}
	got, err := upd(map[string]types.AttributeValueUpdate{
		"views": {Action: types.AttributeActionAdd, Value: n("41")},
		"tags":  {Action: types.AttributeActionDelete, Value: &types.AttributeValueMemberSS{Value: []string{"new"}}},
		"log":   {Action: types.AttributeActionAdd, Value: &types.AttributeValueMemberL{Value: []types.AttributeValue{s("viewed")}}},
		"draft": {Action: types.AttributeActionDelete},
	}, map[string]types.ExpectedAttributeValue{"views": {Value: n("1")}})
	if err != nil {
		t.Fatalf("second update: %v", err)
	}
	want := map[string]types.AttributeValue{"pk": s("page"), "views": n("42"), "tags": &types.AttributeValueMemberSS{Value: []string{"hot"}},
		"log": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("created"), s("viewed")}}, "title": s("Home")}
	if diff := cmp.Diff(want, got, legacyAV()); diff != "" {
		t.Errorf("ALL_NEW (-want +got):\n%s", diff)
	}
	_, err = upd(map[string]types.AttributeValueUpdate{"title": {Action: types.AttributeActionAdd, Value: n("1")}}, nil)
	wantAPIError(t, err, "ValidationException", "Type mismatch for attribute to update")
	_, err = upd(map[string]types.AttributeValueUpdate{"pk": {Action: types.AttributeActionPut, Value: s("other")}}, nil)
	wantAPIError(t, err, "ValidationException", "Cannot update attribute pk. This attribute is part of the key")
}

// Query with KeyConditions pages through a partition with Limit and
// ExclusiveStartKey (the SDK's paginator), in both directions, with a
// QueryFilter and AttributesToGet; Scan with ScanFilter and
// ConditionalOperator; GetItem and BatchGetItem with AttributesToGet.
func TestSDKLegacyQueryScan(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Events", "seq", types.ScalarAttributeTypeN)
	tbl := aws.String("Events")
	for i := range 25 {
		kind := "view"
		if i%5 == 0 {
			kind = "buy"
		}
		for _, pk := range []string{"u1", "u2"} {
			if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{
				"pk": s(pk), "seq": n(fmt.Sprint(i)), "kind": s(kind), "note": s("n" + fmt.Sprint(i))}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	query := func(forward bool, filter map[string]types.Condition, attrs []string) ([]string, int) {
		t.Helper()
		p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: tbl, Limit: aws.Int32(4), ScanIndexForward: aws.Bool(forward),
			KeyConditions: map[string]types.Condition{
				"pk":  {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("u1")}},
				"seq": {ComparisonOperator: types.ComparisonOperatorBetween, AttributeValueList: []types.AttributeValue{n("3"), n("21")}},
			},
			QueryFilter: filter, AttributesToGet: attrs})
		var got []string
		pages := 0
		for p.HasMorePages() {
			out, err := p.NextPage(ctx(t))
			if err != nil {
				t.Fatalf("Query page %d: %v", pages, err)
			}
			pages++
			for _, it := range out.Items {
				if v, ok := it["seq"]; ok {
					got = append(got, v.(*types.AttributeValueMemberN).Value)
				} else {
					got = append(got, it["note"].(*types.AttributeValueMemberS).Value)
				}
			}
		}
		return got, pages
	}
	var want []string
	for i := 3; i <= 21; i++ {
		want = append(want, fmt.Sprint(i))
	}
	got, pages := query(true, nil, nil)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paginated Query (-want +got):\n%s", diff)
	}
	if pages < 5 {
		t.Errorf("%d pages for 19 items at Limit 4, want at least 5", pages)
	}
	got, _ = query(false, nil, nil)
	for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
		want[i], want[j] = want[j], want[i]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backward paginated Query (-want +got):\n%s", diff)
	}
	got, _ = query(true, map[string]types.Condition{"kind": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("buy")}}}, []string{"note"})
	if diff := cmp.Diff([]string{"n5", "n10", "n15", "n20"}, got); diff != "" {
		t.Errorf("Query with QueryFilter and AttributesToGet (-want +got):\n%s", diff)
	}

	out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, ConditionalOperator: types.ConditionalOperatorOr,
		ScanFilter: map[string]types.Condition{
			"seq":  {ComparisonOperator: types.ComparisonOperatorLt, AttributeValueList: []types.AttributeValue{n("2")}},
			"note": {ComparisonOperator: types.ComparisonOperatorIn, AttributeValueList: []types.AttributeValue{s("n24"), s("n99")}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 6 || out.ScannedCount != 50 {
		t.Errorf("Scan with ScanFilter OR: Count %d ScannedCount %d, want 6 (seq 0, 1, 24 of two users) and 50", out.Count, out.ScannedCount)
	}

	key := map[string]types.AttributeValue{"pk": s("u2"), "seq": n("7")}
	g, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: key, AttributesToGet: []string{"kind", "absent"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]types.AttributeValue{"kind": s("view")}, g.Item, legacyAV()); diff != "" {
		t.Errorf("GetItem AttributesToGet (-want +got):\n%s", diff)
	}
	bg, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"Events": {Keys: []map[string]types.AttributeValue{key}, AttributesToGet: []string{"note"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]map[string]types.AttributeValue{{"note": s("n7")}}, bg.Responses["Events"], legacyAV()); diff != "" {
		t.Errorf("BatchGetItem AttributesToGet (-want +got):\n%s", diff)
	}
}
