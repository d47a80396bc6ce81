package server

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Under injected FoundationDB faults (reads too old, commits not
// committed, commits that applied but report commit_unknown_result),
// legacy writes are neither lost nor doubled, as their expression twins
// are not: AttributeUpdates ADDs to a counter sum to the acknowledged
// ones, every acknowledged ADD of a set member is in the set, each
// PutItem with Expected Exists false creates its item exactly once, and a
// DeleteItem whose Expected fails leaves the item.
func TestLegacyWritesUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.Faults{Seed: 14, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.15})
	ts := newTestServer(t, Config{DB: db})
	createTable(t, ts.client(testCredentials), "LegacyFaulty", "", "")
	tbl := aws.String("LegacyFaulty")
	const clients, ops = 4, 10
	var added, created atomic.Int64
	var members sync.Map
	ts.eachClient(clients, func(w int, c *dynamodb.Client) {
		for i := range ops {
			member := fmt.Sprint("m", w, "-", i)
			_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("counter")},
				AttributeUpdates: map[string]types.AttributeValueUpdate{
					"n":       {Action: types.AttributeActionAdd, Value: n("1")},
					"members": {Action: types.AttributeActionAdd, Value: &types.AttributeValueMemberSS{Value: []string{member}}},
				}})
			if err == nil {
				added.Add(1)
				members.Store(member, true)
			} else {
				t.Error(err)
			}
			_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i)), "by": n(fmt.Sprint(w))},
				Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}})
			countCreate(t, err, &created)
			_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i))},
				Expected: map[string]types.ExpectedAttributeValue{"by": {ComparisonOperator: types.ComparisonOperatorGt, AttributeValueList: []types.AttributeValue{n("100")}}}})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				t.Errorf("DeleteItem with a failing Expected: %v, want ConditionalCheckFailedException", err)
			}
		}
	})
	if created.Load() != ops {
		t.Errorf("%d conditional creates succeeded for %d keys, want exactly one each", created.Load(), ops)
	}
	stopFaults(t, db)
	c := ts.client(testCredentials)
	got, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("counter")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint(added.Load()); got.Item["n"].(*types.AttributeValueMemberN).Value != want {
		t.Errorf("counter = %v, want the %s acknowledged ADDs", got.Item["n"], want)
	}
	inSet := map[string]bool{}
	for _, m := range got.Item["members"].(*types.AttributeValueMemberSS).Value {
		inSet[m] = true
	}
	members.Range(func(k, _ any) bool {
		if !inSet[k.(string)] {
			t.Errorf("acknowledged member %s is not in the set", k)
		}
		return true
	})
	if int64(len(inSet)) != added.Load() {
		t.Errorf("set has %d members, want the %d acknowledged ADDs", len(inSet), added.Load())
	}
	out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: tbl, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != ops+1 {
		t.Errorf("Scan found %d items, want the %d created and the counter", out.Count, ops+1)
	}
}
