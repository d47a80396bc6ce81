package server

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"pgregory.net/rapid"
)

// TestCapacityModel is a state machine over PutItem, UpdateItem (SET and
// REMOVE of attributes of random sizes), GetItem (whole or projected)
// and TransactWriteItems (Update and ConditionCheck) on one item, against
// a model that knows the item and applies DynamoDB's size rules itself
// (the developer guide's "DynamoDB read and write operations" and
// "Capacity management for transactions"): a read costs ceil(size/4 KB)
// units of the whole item, half when eventually consistent; an update
// ceil(max(before, after)/1 KB); a transactional write twice that, a
// ConditionCheck twice the units of the item it reads. The model sizes
// items with its own formula (UTF-8 name and string lengths, numbers by
// digits), not the server's.
func TestCapacityModel(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "CapModel", "", "")
	// lastOther is the size of each item the transactions updated.
	lastOther := map[string]int{}
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		pk := "k" + strconv.Itoa(run) // a fresh item per run
		key := map[string]types.AttributeValue{"pk": s(pk)}
		model := map[string]string{} // attribute name -> S value; nil item when empty and absent
		exists := false
		size := func() int {
			if !exists {
				return 0
			}
			n := len("pk") + len(pk)
			for a, v := range model {
				n += len(a) + len(v)
			}
			return n
		}
		readUnits := func(bytes int, consistent bool) float64 {
			u := math.Max(1, math.Ceil(float64(bytes)/4096))
			if !consistent {
				u /= 2
			}
			return u
		}
		writeUnits := func(bytes int) float64 { return math.Max(1, math.Ceil(float64(bytes)/1024)) }
		attr := rapid.SampledFrom([]string{"a", "bb", "ccc"})
		total := func(cc *types.ConsumedCapacity) float64 {
			if cc == nil {
				rt.Fatalf("no ConsumedCapacity")
			}
			return aws.ToFloat64(cc.CapacityUnits)
		}
		for range rapid.IntRange(1, 12).Draw(rt, "steps") {
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0: // PutItem, replacing the item
				a, v := attr.Draw(rt, "put attr"), strings.Repeat("p", rapid.IntRange(0, 5000).Draw(rt, "put size"))
				before := size()
				model, exists = map[string]string{a: v}, true
				out, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("CapModel"), ReturnValues: types.ReturnValueAllOld,
					Item: map[string]types.AttributeValue{"pk": s(pk), a: s(v)}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
				if err != nil {
					rt.Fatal(err)
				}
				// With ALL_OLD the old item is known: the larger of the two.
				if got, want := total(out.ConsumedCapacity), writeUnits(max(before, size())); got != want {
					rt.Fatalf("PutItem units %v, want %v (before %d, after %d bytes)", got, want, before, size())
				}
			case 1: // UpdateItem SET
				a, v := attr.Draw(rt, "set attr"), strings.Repeat("u", rapid.IntRange(0, 5000).Draw(rt, "set size"))
				before := size()
				model[a], exists = v, true
				out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String("CapModel"), Key: key,
					UpdateExpression: aws.String("SET #a = :v"), ExpressionAttributeNames: map[string]string{"#a": a},
					ExpressionAttributeValues: map[string]types.AttributeValue{":v": s(v)}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
				if err != nil {
					rt.Fatal(err)
				}
				if got, want := total(out.ConsumedCapacity), writeUnits(max(before, size())); got != want {
					rt.Fatalf("UpdateItem SET units %v, want %v (before %d, after %d bytes)", got, want, before, size())
				}
			case 2: // UpdateItem REMOVE of an existing item
				if !exists {
					continue
				}
				a := attr.Draw(rt, "remove attr")
				before := size()
				delete(model, a)
				out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String("CapModel"), Key: key,
					UpdateExpression: aws.String("REMOVE #a"), ExpressionAttributeNames: map[string]string{"#a": a}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
				if err != nil {
					rt.Fatal(err)
				}
				if got, want := total(out.ConsumedCapacity), writeUnits(max(before, size())); got != want {
					rt.Fatalf("UpdateItem REMOVE units %v, want %v (before %d, after %d bytes)", got, want, before, size())
				}
			case 3: // GetItem, whole or projected
				consistent := rapid.Bool().Draw(rt, "consistent")
				in := &dynamodb.GetItemInput{TableName: aws.String("CapModel"), Key: key, ConsistentRead: aws.Bool(consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
				if rapid.Bool().Draw(rt, "projected") {
					in.ProjectionExpression = aws.String(attr.Draw(rt, "projection"))
				}
				out, err := c.GetItem(ctx(t), in)
				if err != nil {
					rt.Fatal(err)
				}
				if got, want := total(out.ConsumedCapacity), readUnits(size(), consistent); got != want {
					rt.Fatalf("GetItem units %v, want %v (%d bytes)", got, want, size())
				}
			case 4: // TransactWriteItems: a ConditionCheck of this item and an Update of another
				other := "o" + pk
				v := strings.Repeat("t", rapid.IntRange(0, 3000).Draw(rt, "tx size"))
				out, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
					TransactItems: []types.TransactWriteItem{
						{ConditionCheck: &types.ConditionCheck{TableName: aws.String("CapModel"), Key: key, ConditionExpression: aws.String("attribute_exists(pk) OR attribute_not_exists(pk)")}},
						{Update: &types.Update{TableName: aws.String("CapModel"), Key: map[string]types.AttributeValue{"pk": s(other)},
							UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s(v)}}},
					}})
				if err != nil {
					rt.Fatal(err)
				}
				otherSize := len("pk") + len(other) + len("v") + len(v) // its larger image: the last write sets v alone
				if len(out.ConsumedCapacity) != 1 {
					rt.Fatalf("ConsumedCapacity %+v, want one table", out.ConsumedCapacity)
				}
				// The other item may have held a larger v before: track it.
				want := 2*writeUnits(size()) + 2*writeUnits(max(otherSize, lastOther[other]))
				lastOther[other] = otherSize
				if got := total(&out.ConsumedCapacity[0]); got != want {
					rt.Fatalf("TransactWriteItems units %v, want %v (checked %d bytes, updated %d bytes)", got, want, size(), otherSize)
				}
			}
		}
	})
}
