package server

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestSDKModel drives random item operations through the AWS SDK and the
// server and checks every answer against a plain map, the model of a
// DynamoDB table: PutItem replaces, a conditional create succeeds only
// when the key is absent, DeleteItem ALL_OLD returns what was there,
// ADD counts from zero, GetItem and Scan see exactly the model.
func TestSDKModel(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := ts.client(testCredentials)
	var tables atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		table := fmt.Sprint("Model", tables.Add(1))
		createTable(t, c, table, "", "")
		tbl := aws.String(table)
		model := map[string]map[string]types.AttributeValue{}
		pk := rapid.SampledFrom([]string{"a", "b", "c", "d"})
		key := func(p string) map[string]types.AttributeValue { return map[string]types.AttributeValue{"pk": s(p)} }
		rt.Repeat(map[string]func(*rapid.T){
			"put": func(rt *rapid.T) {
				p := pk.Draw(rt, "pk")
				it := map[string]types.AttributeValue{"pk": s(p), "v": n(fmt.Sprint(rapid.IntRange(-5, 5).Draw(rt, "v")))}
				if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: it}); err != nil {
					rt.Fatal(err)
				}
				model[p] = it
			},
			"create": func(rt *rapid.T) {
				p := pk.Draw(rt, "pk")
				it := map[string]types.AttributeValue{"pk": s(p), "created": &types.AttributeValueMemberBOOL{Value: true}}
				_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: it, ConditionExpression: aws.String("attribute_not_exists(pk)"),
					ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
				var ccf *types.ConditionalCheckFailedException
				switch old, exists := model[p]; {
				case !exists && err == nil:
					model[p] = it
				case exists && errors.As(err, &ccf):
					if diff := cmp.Diff(old, ccf.Item, cmpAV); diff != "" {
						rt.Fatalf("ConditionalCheckFailedException.Item mismatch (-want +got):\n%s", diff)
					}
				default:
					rt.Fatalf("conditional create of %s (exists %v): %v", p, exists, err)
				}
			},
			"add": func(rt *rapid.T) {
				p := pk.Draw(rt, "pk")
				out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: key(p), UpdateExpression: aws.String("ADD hits :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}, ReturnValues: types.ReturnValueAllNew})
				if err != nil {
					rt.Fatal(err)
				}
				it := map[string]types.AttributeValue{"pk": s(p), "hits": n("1")}
				if old, ok := model[p]; ok {
					it = map[string]types.AttributeValue{}
					for k, v := range old {
						it[k] = v
					}
					hits := 1
					if h, ok := old["hits"]; ok {
						fmt.Sscan(h.(*types.AttributeValueMemberN).Value, &hits)
						hits++
					}
					it["hits"] = n(fmt.Sprint(hits))
				}
				if diff := cmp.Diff(it, out.Attributes, cmpAV); diff != "" {
					rt.Fatalf("UpdateItem ALL_NEW mismatch (-want +got):\n%s", diff)
				}
				model[p] = it
			},
			"delete": func(rt *rapid.T) {
				p := pk.Draw(rt, "pk")
				out, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: key(p), ReturnValues: types.ReturnValueAllOld})
				if err != nil {
					rt.Fatal(err)
				}
				if diff := cmp.Diff(model[p], out.Attributes, cmpAV, cmpEmptyMaps); diff != "" {
					rt.Fatalf("DeleteItem ALL_OLD mismatch (-want +got):\n%s", diff)
				}
				delete(model, p)
			},
			"get": func(rt *rapid.T) {
				p := pk.Draw(rt, "pk")
				out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: key(p)})
				if err != nil {
					rt.Fatal(err)
				}
				if diff := cmp.Diff(model[p], out.Item, cmpAV, cmpEmptyMaps); diff != "" {
					rt.Fatalf("GetItem mismatch (-want +got):\n%s", diff)
				}
			},
			"": func(rt *rapid.T) {
				out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, Select: types.SelectCount})
				if err != nil {
					rt.Fatal(err)
				}
				if int(out.Count) != len(model) {
					rt.Fatalf("Scan Count %d, model holds %d items", out.Count, len(model))
				}
			},
		})
	})
}

// cmpEmptyMaps treats a nil and an empty item alike (an absent item).
var cmpEmptyMaps = cmp.FilterValues(func(a, b map[string]types.AttributeValue) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())
