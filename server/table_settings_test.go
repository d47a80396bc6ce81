package server

import (
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func throughput(r, w int64) *types.ProvisionedThroughput {
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
}

// describeThroughput returns a table's billing mode and throughputs.
func describeThroughput(t *testing.T, c *dynamodb.Client, name string) (string, [2]int64, map[string][2]int64) {
	t.Helper()
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	tbl := d.Table
	mode := ""
	if tbl.BillingModeSummary != nil {
		mode = string(tbl.BillingModeSummary.BillingMode)
	}
	pt := [2]int64{aws.ToInt64(tbl.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(tbl.ProvisionedThroughput.WriteCapacityUnits)}
	gsis := map[string][2]int64{}
	for _, g := range tbl.GlobalSecondaryIndexes {
		gsis[aws.ToString(g.IndexName)] = [2]int64{aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits)}
	}
	return mode, pt, gsis
}

// TestSDKTableSettings checks the table description's identity and
// billing fields and UpdateTable's billing rules, as DynamoDB's API
// reference states them: a PROVISIONED table reports its throughput and
// each GSI's; UpdateTable changes them, refuses a change to the same
// values, refuses PROVISIONED without throughput (for the table and for
// every GSI), and switches between billing modes; DeletionProtectionEnabled
// makes DeleteTable fail until it is turned off; DeleteTable answers the
// shorter description with status DELETING.
func TestSDKTableSettings(t *testing.T) {
	_, c := newTestClient(t, Config{})
	before := time.Now().Add(-time.Second)
	out, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName:             aws.String("Prov"),
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		ProvisionedThroughput: throughput(5, 6),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("Gsi"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}, ProvisionedThroughput: throughput(3, 4),
		}},
		DeletionProtectionEnabled: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	td := out.TableDescription
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(aws.ToString(td.TableId)) {
		t.Errorf("TableId %q is not a UUID", aws.ToString(td.TableId))
	}
	if td.CreationDateTime == nil || td.CreationDateTime.Before(before) || td.CreationDateTime.After(time.Now().Add(time.Second)) {
		t.Errorf("CreationDateTime %v, want about now", td.CreationDateTime)
	}
	if !aws.ToBool(td.DeletionProtectionEnabled) {
		t.Errorf("DeletionProtectionEnabled false, want true")
	}
	d, _ := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Prov")})
	if aws.ToString(d.Table.TableId) != aws.ToString(td.TableId) || !d.Table.CreationDateTime.Equal(*td.CreationDateTime) {
		t.Errorf("DescribeTable TableId %q at %v, CreateTable said %q at %v", aws.ToString(d.Table.TableId), d.Table.CreationDateTime, aws.ToString(td.TableId), td.CreationDateTime)
	}
	check := func(what, wantMode string, wantPT [2]int64, wantGSI map[string][2]int64) {
		t.Helper()
		mode, pt, gsis := describeThroughput(t, c, "Prov")
		if mode != wantMode || pt != wantPT || len(gsis) != len(wantGSI) || gsis["Gsi"] != wantGSI["Gsi"] {
			t.Errorf("%s: %s %v %v, want %s %v %v", what, mode, pt, gsis, wantMode, wantPT, wantGSI)
		}
	}
	check("created", "PROVISIONED", [2]int64{5, 6}, map[string][2]int64{"Gsi": {3, 4}})

	update := func(in *dynamodb.UpdateTableInput) error {
		in.TableName = aws.String("Prov")
		_, err := c.UpdateTable(ctx(t), in)
		return err
	}
	if err := update(&dynamodb.UpdateTableInput{ProvisionedThroughput: throughput(10, 10)}); err != nil {
		t.Fatal(err)
	}
	check("throughput changed", "PROVISIONED", [2]int64{10, 10}, map[string][2]int64{"Gsi": {3, 4}})
	wantAPIError(t, update(&dynamodb.UpdateTableInput{BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: throughput(10, 10)}),
		"ValidationException", "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 10. Requested ReadCapacityUnits: 10.")
	if err := update(&dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
		Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("Gsi"), ProvisionedThroughput: throughput(7, 8)}}}}); err != nil {
		t.Fatal(err)
	}
	check("GSI throughput changed", "PROVISIONED", [2]int64{10, 10}, map[string][2]int64{"Gsi": {7, 8}})
	wantAPIError(t, update(&dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
		Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("Nope"), ProvisionedThroughput: throughput(7, 8)}}}}),
		"ResourceNotFoundException", "Index: Nope")
	wantAPIError(t, update(&dynamodb.UpdateTableInput{ProvisionedThroughput: throughput(0, 5)}), "ValidationException", "greater than or equal to 1")
	wantAPIError(t, update(&dynamodb.UpdateTableInput{BillingMode: types.BillingModePayPerRequest, ProvisionedThroughput: throughput(5, 5)}),
		"ValidationException", "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")

	// To on demand and back.
	if err := update(&dynamodb.UpdateTableInput{BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	check("on demand", "PAY_PER_REQUEST", [2]int64{0, 0}, map[string][2]int64{"Gsi": {0, 0}})
	if err := update(&dynamodb.UpdateTableInput{BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Errorf("PAY_PER_REQUEST again: %v, want accepted", err)
	}
	wantAPIError(t, update(&dynamodb.UpdateTableInput{ProvisionedThroughput: throughput(5, 5)}), "ValidationException", "PAY_PER_REQUEST")
	wantAPIError(t, update(&dynamodb.UpdateTableInput{BillingMode: types.BillingModeProvisioned}),
		"ValidationException", "ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	wantAPIError(t, update(&dynamodb.UpdateTableInput{BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: throughput(5, 5)}),
		"ValidationException", "ProvisionedThroughput must be specified for index: Gsi")
	check("after refused switches", "PAY_PER_REQUEST", [2]int64{0, 0}, map[string][2]int64{"Gsi": {0, 0}})
	if err := update(&dynamodb.UpdateTableInput{BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: throughput(5, 5),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
			Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("Gsi"), ProvisionedThroughput: throughput(2, 2)}}}}); err != nil {
		t.Fatal(err)
	}
	check("provisioned again", "PROVISIONED", [2]int64{5, 5}, map[string][2]int64{"Gsi": {2, 2}})

	// Deletion protection.
	_, err = c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Prov")})
	wantAPIError(t, err, "ValidationException", "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	if err := update(&dynamodb.UpdateTableInput{DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	del, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Prov")})
	if err != nil {
		t.Fatal(err)
	}
	dd := del.TableDescription
	if dd.TableStatus != types.TableStatusDeleting || aws.ToString(dd.TableId) != aws.ToString(td.TableId) || aws.ToInt64(dd.ProvisionedThroughput.ReadCapacityUnits) != 5 || dd.KeySchema != nil {
		t.Errorf("DeleteTable description: %s %q %v KeySchema %v, want DELETING %q, 5 read units, no key schema",
			dd.TableStatus, aws.ToString(dd.TableId), aws.ToInt64(dd.ProvisionedThroughput.ReadCapacityUnits), dd.KeySchema, aws.ToString(td.TableId))
	}
}

// TestBillingModeSummaryLastUpdate checks BillingModeSummary's
// LastUpdateToPayPerRequestDateTime, "the time when PAY_PER_REQUEST was
// last set as the read/write capacity mode" (DynamoDB's API reference):
// a table created PAY_PER_REQUEST carries its creation time, in
// CreateTable's, DescribeTable's and DeleteTable's answers; a table
// switched to PAY_PER_REQUEST by UpdateTable carries the time of the
// switch; a table switched back to PROVISIONED keeps the last time; a
// table PROVISIONED since its creation has none.
func TestBillingModeSummaryLastUpdate(t *testing.T) {
	var mu sync.Mutex
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d) }
	_, c := newTestClient(t, Config{Now: now})
	last := func(s *types.BillingModeSummary) (types.BillingMode, *time.Time) {
		if s == nil {
			return "", nil
		}
		return s.BillingMode, s.LastUpdateToPayPerRequestDateTime
	}
	describe := func(name string) *types.TableDescription {
		t.Helper()
		d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return d.Table
	}
	type summary struct {
		Mode types.BillingMode
		At   *time.Time
	}
	check := func(what string, s *types.BillingModeSummary, want summary) {
		t.Helper()
		mode, at := last(s)
		got := summary{mode, at}
		if got.Mode != want.Mode || (got.At == nil) != (want.At == nil) || got.At != nil && !got.At.Equal(*want.At) {
			t.Errorf("%s: BillingModeSummary = %v %v, want %v %v", what, got.Mode, got.At, want.Mode, want.At)
		}
	}

	// Created PAY_PER_REQUEST: the creation time, in every answer.
	created, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName: aws.String("OnDemand"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
	})
	if err != nil {
		t.Fatal(err)
	}
	createdAt := aws.ToTime(created.TableDescription.CreationDateTime)
	if createdAt.IsZero() {
		t.Fatal("CreateTable answered no CreationDateTime")
	}
	check("CreateTable", created.TableDescription.BillingModeSummary, summary{types.BillingModePayPerRequest, &createdAt})
	check("DescribeTable", describe("OnDemand").BillingModeSummary, summary{types.BillingModePayPerRequest, &createdAt})

	// To PROVISIONED: the last time stays the creation.
	advance(time.Hour)
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("OnDemand"),
		BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: throughput(1, 1)}); err != nil {
		t.Fatal(err)
	}
	check("after PROVISIONED", describe("OnDemand").BillingModeSummary, summary{types.BillingModeProvisioned, &createdAt})

	// Back to PAY_PER_REQUEST: the time of the switch.
	advance(time.Hour)
	switched := clock
	up, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("OnDemand"), BillingMode: types.BillingModePayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	check("UpdateTable", up.TableDescription.BillingModeSummary, summary{types.BillingModePayPerRequest, &switched})
	check("after PAY_PER_REQUEST", describe("OnDemand").BillingModeSummary, summary{types.BillingModePayPerRequest, &switched})

	// Another update that leaves the mode as it is keeps the time.
	advance(time.Hour)
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("OnDemand"), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	check("after another update", describe("OnDemand").BillingModeSummary, summary{types.BillingModePayPerRequest, &switched})
	del, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("OnDemand")})
	if err != nil {
		t.Fatal(err)
	}
	check("DeleteTable", del.TableDescription.BillingModeSummary, summary{types.BillingModePayPerRequest, &switched})

	// PROVISIONED since creation: no PAY_PER_REQUEST time.
	if _, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Prov"), ProvisionedThroughput: throughput(1, 1),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, at := last(describe("Prov").BillingModeSummary); at != nil {
		t.Errorf("a table PROVISIONED since creation reports LastUpdateToPayPerRequestDateTime %v", at)
	}
}
