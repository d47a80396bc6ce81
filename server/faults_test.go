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
// committed, commits that applied but report commit_unknown_result), the
// server's writes are neither lost nor doubled: acknowledged ADDs sum
// exactly, and each conditional create succeeds exactly once. This rests
// on the server's automatic_idempotency (transactor.go).
func TestWritesUnderFaults(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 11, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.15}); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Config{DB: db})
	createTable(t, ts.client(testCredentials), "Faulty", "", "")
	const clients, ops = 4, 12
	var added, created atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 2*clients*ops)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.client(testCredentials)
			for i := range ops {
				_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String("Faulty"), Key: map[string]types.AttributeValue{"pk": s("counter")},
					UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}})
				if err == nil {
					added.Add(1)
				} else {
					errs <- err
				}
				_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Faulty"), Item: map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i))},
					ConditionExpression: aws.String("attribute_not_exists(pk)")})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case err == nil:
					created.Add(1)
				case !errors.As(err, &ccf):
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if created.Load() != ops {
		t.Errorf("%d conditional creates succeeded for %d keys, want exactly one each", created.Load(), ops)
	}
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{}); err != nil {
		t.Fatal(err)
	}
	got, err := ts.client(testCredentials).GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Faulty"), Key: map[string]types.AttributeValue{"pk": s("counter")}})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint(added.Load()); got.Item["n"].(*types.AttributeValueMemberN).Value != want {
		t.Errorf("counter = %v, want the %s acknowledged ADDs", got.Item["n"], want)
	}
	st, err := fdblitetest.ReadStats(db)
	if err == nil {
		t.Logf("injected %+v", st.Injected)
	}
}
