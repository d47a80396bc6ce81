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
// ADD counts from zero, GetItem and Scan see exactly the model;
// BatchWriteItem applies every put and delete, TransactWriteItems all or
// nothing, BatchGetItem returns exactly the model's items.
func TestSDKModel(t *testing.T) {
	_, c := newTestClient(t, Config{})
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
			"batchWrite": func(rt *rapid.T) {
				// Distinct keys (DynamoDB refuses a key twice), each put or
				// deleted; resent until nothing is unprocessed.
				keys := rapid.SliceOfNDistinct(pk, 1, 4, rapid.ID[string]).Draw(rt, "keys")
				var reqs []types.WriteRequest
				for _, p := range keys {
					if rapid.Bool().Draw(rt, "put") {
						it := map[string]types.AttributeValue{"pk": s(p), "batch": n(fmt.Sprint(rapid.IntRange(0, 9).Draw(rt, "b")))}
						reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
						model[p] = it
					} else {
						reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(p)}})
						delete(model, p)
					}
				}
				for pending := map[string][]types.WriteRequest{table: reqs}; len(pending) > 0; {
					out, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: pending})
					if err != nil {
						rt.Fatal(err)
					}
					pending = out.UnprocessedItems
				}
			},
			"transact": func(rt *rapid.T) {
				// Create p unless it exists, and delete q (p != q): all or
				// nothing, canceled exactly when p exists.
				p, q := pk.Draw(rt, "p"), pk.Draw(rt, "q")
				if p == q {
					return
				}
				it := map[string]types.AttributeValue{"pk": s(p), "tx": &types.AttributeValueMemberBOOL{Value: true}}
				_, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: tbl, Item: it, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
					{Delete: &types.Delete{TableName: tbl, Key: key(q)}},
				}})
				var tce *types.TransactionCanceledException
				switch _, exists := model[p]; {
				case !exists && err == nil:
					model[p] = it
					delete(model, q)
				case exists && errors.As(err, &tce):
				default:
					rt.Fatalf("transaction create %s (exists %v), delete %s: %v", p, exists, q, err)
				}
			},
			"batchGet": func(rt *rapid.T) {
				keys := rapid.SliceOfNDistinct(pk, 1, 4, rapid.ID[string]).Draw(rt, "keys")
				var req []map[string]types.AttributeValue
				want := map[string]map[string]types.AttributeValue{}
				for _, p := range keys {
					req = append(req, key(p))
					if it, ok := model[p]; ok {
						want[p] = it
					}
				}
				out, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: req}}})
				if err != nil || len(out.UnprocessedKeys) != 0 {
					rt.Fatalf("BatchGetItem: %v, unprocessed %v", err, out)
				}
				got := map[string]map[string]types.AttributeValue{}
				for _, it := range out.Responses[table] {
					got[it["pk"].(*types.AttributeValueMemberS).Value] = it
				}
				if diff := cmp.Diff(want, got, cmpAV); diff != "" {
					rt.Fatalf("BatchGetItem mismatch (-want +got):\n%s", diff)
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
