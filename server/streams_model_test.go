package server

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// TestSDKStreamsModel drives random puts and deletes through the AWS SDK
// on a NEW_AND_OLD_IMAGES table and checks the stream against the model
// of DynamoDB Streams: one record per change that changes the item
// (INSERT when it was absent, MODIFY when it differed, REMOVE when it
// existed; none for an identical put or a delete of an absent item),
// with the item before and after; GetRecords with a random Limit from
// TRIM_HORIZON, or from AFTER_SEQUENCE_NUMBER / AT_SEQUENCE_NUMBER of a
// random record, returns exactly the model's records from there on.
func TestSDKStreamsModel(t *testing.T) {
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1})
	sc := ts.streamsClient()
	var tables atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		table := fmt.Sprint("StreamModel", tables.Add(1))
		if _, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			BillingMode:          types.BillingModePayPerRequest,
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		}); err != nil {
			rt.Fatal(err)
		}
		arn := ts.streamARN(table)
		items := map[string]string{} // pk -> v
		var want []wireRecord
		img := func(pk, v string) map[string]string { return map[string]string{"pk": "S:" + pk, "v": "N:" + v} }
		for range rapid.IntRange(1, 12).Draw(rt, "writes") {
			pk := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "pk")
			keys := map[string]string{"pk": "S:" + pk}
			old, existed := items[pk]
			if rapid.IntRange(0, 3).Draw(rt, "op") == 0 {
				if _, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: avMap{"pk": s(pk)}}); err != nil {
					rt.Fatal(err)
				}
				if existed {
					want = append(want, wireRecord{EventName: "REMOVE", Keys: keys, Old: img(pk, old), ViewType: "NEW_AND_OLD_IMAGES"})
					delete(items, pk)
				}
				continue
			}
			v := fmt.Sprint(rapid.IntRange(0, 2).Draw(rt, "v"))
			if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: avMap{"pk": s(pk), "v": n(v)}}); err != nil {
				rt.Fatal(err)
			}
			switch {
			case !existed:
				want = append(want, wireRecord{EventName: "INSERT", Keys: keys, New: img(pk, v), ViewType: "NEW_AND_OLD_IMAGES"})
			case old != v:
				want = append(want, wireRecord{EventName: "MODIFY", Keys: keys, New: img(pk, v), Old: img(pk, old), ViewType: "NEW_AND_OLD_IMAGES"})
			}
			items[pk] = v
		}
		limit := int32(rapid.IntRange(1, 5).Draw(rt, "limit"))
		all, _ := readAll(rt, sc, getIterator(rt, sc, arn, st.ShardIteratorTypeTrimHorizon, ""), limit)
		if diff := cmp.Diff(want, toWire(rt, all)); diff != "" {
			rt.Fatalf("TRIM_HORIZON, Limit %d (-want +got):\n%s", limit, diff)
		}
		if len(all) == 0 {
			return
		}
		k := rapid.IntRange(0, len(all)-1).Draw(rt, "from")
		seq := aws.ToString(all[k].Dynamodb.SequenceNumber)
		after, _ := readAll(rt, sc, getIterator(rt, sc, arn, st.ShardIteratorTypeAfterSequenceNumber, seq), limit)
		if diff := cmp.Diff(want[k+1:], toWire(rt, after), cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("AFTER_SEQUENCE_NUMBER of record %d (-want +got):\n%s", k, diff)
		}
		at, _ := readAll(rt, sc, getIterator(rt, sc, arn, st.ShardIteratorTypeAtSequenceNumber, seq), limit)
		if diff := cmp.Diff(want[k:], toWire(rt, at)); diff != "" {
			rt.Fatalf("AT_SEQUENCE_NUMBER of record %d (-want +got):\n%s", k, diff)
		}
	})
}
