package server

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// Under injected FoundationDB faults (reads too old, commits not
// committed, commits that applied but report commit_unknown_result), the
// server's writes are neither lost nor doubled: acknowledged ADDs sum
// exactly, and each conditional create succeeds exactly once. This rests
// on fdyno's automatic_idempotency (transactor.go).
func TestWritesUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.Faults{Seed: 11, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.15})
	ts := newTestServer(t, Config{DB: db})
	createTable(t, ts.client(testCredentials), "Faulty", "", "")
	const clients, ops = 4, 12
	var added, created atomic.Int64
	ts.eachClient(clients, func(_ int, c *dynamodb.Client) {
		for i := range ops {
			if err := addOne(t, c, "Faulty", "counter"); err == nil {
				added.Add(1)
			} else {
				t.Error(err)
			}
			_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Faulty"), Item: map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i))},
				ConditionExpression: aws.String("attribute_not_exists(pk)")})
			countCreate(t, err, &created)
		}
	})
	if created.Load() != ops {
		t.Errorf("%d conditional creates succeeded for %d keys, want exactly one each", created.Load(), ops)
	}
	stopFaults(t, db)
	if got, want := counter(t, ts.client(testCredentials), "Faulty", "counter"), fmt.Sprint(added.Load()); got != want {
		t.Errorf("counter = %s, want the %s acknowledged ADDs", got, want)
	}
}

// countCreate counts a conditional create that succeeded; one whose
// condition failed is expected, any other error fails t.
func countCreate(t testing.TB, err error, created *atomic.Int64) {
	var ccf *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		created.Add(1)
	case !errors.As(err, &ccf):
		t.Error(err)
	}
}

// Under injected faults, TransactWriteItems and BatchWriteItem are
// neither lost nor doubled (every acknowledged transaction moved one unit
// from one counter to the other, and the two always sum to zero), and the
// server's background backfill retries until the index is ACTIVE and
// complete.
func TestBatchesAndBackfillUnderFaults(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	_, c := newTestClient(t, Config{DB: db})
	createTable(t, c, "FaultyTx", "", "")
	tbl := aws.String("FaultyTx")
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 12, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.15}); err != nil {
		t.Fatal(err)
	}
	const rounds = 15
	moved := 0
	for i := range rounds {
		_, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("from")}, UpdateExpression: aws.String("ADD n :m"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":m": n("-1")}}},
			{Update: &types.Update{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("to")}, UpdateExpression: aws.String("ADD n :one"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}}},
		}})
		if err == nil {
			moved++
		} else {
			t.Logf("TransactWriteItems %d: %v", i, err)
		}
		var reqs []types.WriteRequest
		for j := range 5 {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": s(fmt.Sprint("item", i, "-", j)), "g": s("all")}}})
		}
		for pending := map[string][]types.WriteRequest{"FaultyTx": reqs}; len(pending) > 0; {
			out, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				t.Logf("BatchWriteItem %d: %v (resent)", i, err)
				continue
			}
			pending = out.UnprocessedItems
		}
	}
	// A GSI built while faults are injected.
	for resent := false; ; resent = true { // an UpdateTable whose commit failed is resent
		_, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byG"),
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
		if err == nil || resent && strings.Contains(err.Error(), "already exists") {
			break // created, now or by an earlier attempt that committed
		}
		var rnf *types.ResourceNotFoundException
		if errors.As(err, &rnf) {
			t.Fatal(err)
		}
	}
	waitIndexActive(t, c, "FaultyTx", "byG")
	stopFaults(t, db)
	if from, to := counter(t, c, "FaultyTx", "from"), counter(t, c, "FaultyTx", "to"); from != fmt.Sprint(-moved) || to != fmt.Sprint(moved) {
		t.Errorf("counters from %s, to %s; want -%d and %d (the acknowledged transactions)", from, to, moved, moved)
	}
	out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :a"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":a": s("all")}, Select: types.SelectCount})
	if err != nil || out.Count != rounds*5 {
		t.Errorf("index built under faults: Count %d, %v; want %d", out.Count, err, rounds*5)
	}
}

// With every commit reporting commit_unknown_result after it applied, a
// table with a stream is created once and each write applies once, with
// one change record: the transactions the server runs, its own and
// fdyno's, set automatic_idempotency (transactor.go), so FoundationDB
// tells the retry the commit applied. Without it, each request would
// apply three times and fail (the retry limit is 2).
func TestStreamedWritesIdempotent(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	if err := db.Options().SetTransactionRetryLimit(2); err != nil {
		t.Fatal(err)
	}
	ts, c := newTestClient(t, Config{DB: db, TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1})
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 5, CommitUnknownResult: 1}); err != nil {
		t.Fatal(err)
	}
	tbl := aws.String("Once")
	createStreamTable(t, c, "Once", types.StreamViewTypeNewAndOldImages)
	for range 3 {
		if err := addOne(t, c, "Once", "counter"); err != nil {
			t.Fatalf("UpdateItem: %v", err)
		}
	}
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("new")},
		ConditionExpression: aws.String("attribute_not_exists(pk)")}); err != nil {
		t.Fatalf("conditional PutItem: %v", err)
	}
	if _, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s("new")}}); err != nil {
		t.Fatalf("DeleteItem: %v", err)
	}
	st, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := fdblitetest.ClearFaults(db); err != nil {
		t.Fatal(err)
	}
	if st.Injected.CommitUnknownResult < 5 {
		t.Fatalf("fdblite injected %d commit_unknown_result, want one per write (5 or more)", st.Injected.CommitUnknownResult)
	}
	if v := counter(t, c, "Once", "counter"); v != "3" {
		t.Errorf("counter = %s after 3 ADDs, want 3", v)
	}
	lib, err := ts.openTable("Once")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := lib.GetRecords(db, fdyno.GetRecordsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, r := range recs.Records {
		events = append(events, string(r.EventName)+" "+r.Keys["pk"].S())
	}
	want := []string{"INSERT counter", "MODIFY counter", "MODIFY counter", "INSERT new", "REMOVE new"}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("change records mismatch (-want +got):\n%s", diff)
	}
}

// stopFaults ends fault injection on db, failing t if none was injected
// (a faults test that injected nothing tested nothing).
func stopFaults(t *testing.T, db fdb.Database) {
	t.Helper()
	if st, err := fdblitetest.ReadStats(db); err != nil || st.Injected == (fdblitetest.Injected{}) {
		t.Errorf("no fault was injected: %+v, %v", st, err)
	} else {
		t.Logf("injected %+v", st.Injected)
	}
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{}); err != nil {
		t.Fatal(err)
	}
}
