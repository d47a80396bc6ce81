package server

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Under injected FoundationDB faults, a multi-attribute index created by
// UpdateTable on a table with items, and written while the server's
// background backfill builds it, ends with exactly the entries of the
// items that hold every key attribute, no entry without its item and no
// item without its entry: every index Scan and Query agrees with a model
// of the acknowledged writes (each retried until acknowledged, which is
// safe: they set values or delete, so applying twice changes nothing).
func TestMultiAttributeIndexUnderFaults(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	_, c := newTestClient(t, Config{DB: db})
	in := mgsiTableInput("FaultyMatches")
	in.GlobalSecondaryIndexes = nil
	in.AttributeDefinitions = in.AttributeDefinitions[:1]
	mustCreateTable(t, c, in)
	tbl := aws.String("FaultyMatches")
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 25, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.15}); err != nil {
		t.Fatal(err)
	}
	retry := func(what string, f func() error) {
		t.Helper()
		for i := 0; ; i++ {
			err := f()
			if err == nil {
				return
			}
			if i > 50 {
				t.Fatalf("%s: %v", what, err)
			}
			t.Logf("%s: %v (retried)", what, err)
		}
	}
	model := map[string]mgsiMatch{}
	ms := mgsiMatches()
	for i := 0; i < len(ms); i += 25 {
		var reqs []types.WriteRequest
		for _, m := range ms[i:min(i+25, len(ms))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: sdkItem(m.attrs())}})
			model[m.ID] = m
		}
		for pending := map[string][]types.WriteRequest{"FaultyMatches": reqs}; len(pending) > 0; {
			out, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				t.Logf("BatchWriteItem: %v (resent)", err)
				continue
			}
			pending = out.UnprocessedItems
		}
	}
	create := func() error {
		_, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: tbl,
			AttributeDefinitions: []types.AttributeDefinition{mgsiDef("tournamentId"), mgsiDef("region"), mgsiDef("round"), mgsiDef("bracket"), mgsiDef("matchId")},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String(mgsiByRegion.name), KeySchema: mgsiByRegion.keySchema(), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
		if err != nil && strings.Contains(err.Error(), "already exists") {
			return nil // an earlier attempt committed
		}
		return err
	}
	retry("UpdateTable", create)
	// Writes while the backfill runs: entries move (another bracket,
	// another region), leave (region removed) and go (items deleted).
	for i, m := range ms {
		key := map[string]types.AttributeValue{"matchId": s(m.ID)}
		switch i % 4 {
		case 0:
			retry("UpdateItem "+m.ID, func() error {
				_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: aws.String("SET bracket = :b"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":b": s("FINAL")}})
				return err
			})
			m.Bracket = "FINAL"
			model[m.ID] = m
		case 1:
			retry("UpdateItem "+m.ID, func() error {
				_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: tbl, Key: key, UpdateExpression: aws.String("REMOVE #r"),
					ExpressionAttributeNames: map[string]string{"#r": "region"}})
				return err
			})
			m.noRegion = true
			model[m.ID] = m
		case 2:
			if i%8 == 2 {
				retry("DeleteItem "+m.ID, func() error {
					_, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: key})
					return err
				})
				delete(model, m.ID)
			}
		}
	}
	waitIndexActive(t, c, "FaultyMatches", mgsiByRegion.name)
	stopFaults(t, db)
	final := make([]mgsiMatch, 0, len(model))
	var want []string
	for _, m := range model {
		final = append(final, m)
		if !m.noRegion {
			want = append(want, m.ID)
		}
	}
	var got []string
	scan := &dynamodb.ScanInput{TableName: tbl, IndexName: aws.String(mgsiByRegion.name)}
	for {
		out, err := c.Scan(ctx(t), scan)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got = append(got, it["matchId"].(*types.AttributeValueMemberS).Value)
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		scan.ExclusiveStartKey = out.LastEvaluatedKey
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("index Scan after the faults (-want +got):\n%s", diff)
	}
	for _, tour := range []string{"WINTER2024", "SPRING2025"} {
		for _, region := range []string{"NA-EAST", "EU-WEST"} {
			q := mgsiQuery{mgsiByRegion, []mgsiCond{eq("tournamentId", tour), eq("region", region)}}
			kce, names, values := q.expression()
			vals := map[string]types.AttributeValue{}
			for k, v := range values {
				vals[k] = sdkValue(v)
			}
			out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String(mgsiByRegion.name),
				KeyConditionExpression: aws.String(kce), ExpressionAttributeNames: names, ExpressionAttributeValues: vals})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, it := range out.Items {
				ids = append(ids, it["matchId"].(*types.AttributeValueMemberS).Value)
			}
			if diff := gocmp.Diff(q.want(final, true), ids, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Query %s/%s after the faults (-want +got):\n%s", tour, region, diff)
			}
		}
	}
}
