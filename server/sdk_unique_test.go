package server

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// A table made through the library with a unique GSI (a library-only
// flag) refuses, through fdyno-server, a PutItem that would give a second
// item the same email with a ConditionalCheckFailedException naming the
// index, and a TransactWriteItems with a ConditionalCheckFailed
// cancellation reason; neither writes anything.
func TestSDKUniqueIndex(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	if _, err := fdyno.Open(db, "Accounts", fdyno.WithSchema(fdyno.TableSchema{
		KeySchema: []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS},
			{AttributeName: "email", AttributeType: fdyno.ScalarAttributeTypeS}},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "byEmail", Unique: true,
			KeySchema:  []fdyno.KeySchemaElement{{AttributeName: "email", KeyType: fdyno.KeyTypeHash}},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly}}},
	})); err != nil {
		t.Fatal(err)
	}
	_, c := newTestClient(t, Config{DB: db})
	table := aws.String("Accounts")
	user := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(pk), "email": s("ann@example.com")}
	}
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: user("a")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: user("b")})
	wantAPIError(t, err, "ConditionalCheckFailedException", "unique index byEmail")
	_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: table, Item: map[string]types.AttributeValue{"pk": s("c")}}},
		{Put: &types.Put{TableName: table, Item: user("d")}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[1].Code) != "ConditionalCheckFailed" {
		t.Errorf("TransactWriteItems claiming ann@ = %v, want ConditionalCheckFailed for the second action", err)
	}
	for _, pk := range []string{"b", "c", "d"} {
		out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: table, Key: map[string]types.AttributeValue{"pk": s(pk)}})
		if err != nil || out.Item != nil {
			t.Errorf("item %s after the refusals = %v, %v; want none", pk, out.Item, err)
		}
	}
}

// accountsInput is CreateTable of Accounts (pk) with GSIs byEmail and
// byName (KEYS_ONLY) and the tags given.
func accountsInput(tags ...types.Tag) *dynamodb.CreateTableInput {
	gsi := func(name, attr string) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{IndexName: aws.String(name),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(attr), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}
	}
	return &dynamodb.CreateTableInput{
		TableName: aws.String("Accounts"), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("email"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("name"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("byEmail", "email"), gsi("byName", "name")},
		Tags:                   tags,
	}
}

func fdynoTag(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }

// The fdyno:unique-indexes tag makes GSIs unique at the wire (CreateTable
// and, for an index created later, UpdateTable): a PutItem that would
// give a second item an email is refused with ConditionalCheckFailed
// naming the index, while byName, not listed, takes duplicates. The tag
// keeps saying the truth: TagResource or UntagResource that would change
// an existing index's uniqueness is a ValidationException, a misspelt
// fdyno tag too, and an index named in advance is created unique.
func TestSDKUniqueIndexTag(t *testing.T) {
	ts, c := newTestClient(t, Config{})
	for _, bad := range []types.Tag{fdynoTag("fdyno:unique-index", "byEmail"), fdynoTag("fdyno:unique-indexes", "by/Email"), fdynoTag("FDYNO:counts", "off")} {
		_, err := c.CreateTable(ctx(t), accountsInput(bad))
		wantAPIError(t, err, "ValidationException", "fdyno")
	}
	if _, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Accounts")}); err == nil {
		t.Fatal("a refused CreateTable created the table")
	}
	if _, err := c.CreateTable(ctx(t), accountsInput(fdynoTag("fdyno:unique-indexes", "byEmail"), fdynoTag("team", "id"))); err != nil {
		t.Fatal(err)
	}
	table := aws.String("Accounts")
	put := func(pk, attr, v string) error {
		_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: map[string]types.AttributeValue{"pk": s(pk), attr: s(v)}})
		return err
	}
	for _, p := range [][3]string{{"a", "email", "ann@example.com"}, {"a2", "name", "Ann"}, {"b2", "name", "Ann"}} {
		if err := put(p[0], p[1], p[2]); err != nil {
			t.Fatal(err)
		}
	}
	wantAPIError(t, put("b", "email", "ann@example.com"), "ConditionalCheckFailedException", "unique index byEmail")

	arn := aws.String("arn:aws:dynamodb:us-east-1:" + accountID + ":table/Accounts")
	tag := func(k, v string) error {
		_, err := c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{fdynoTag(k, v)}})
		return err
	}
	untag := func(k string) error {
		_, err := c.UntagResource(ctx(t), &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{k}})
		return err
	}
	wantAPIError(t, tag("fdyno:unique-indexes", "byEmail byName"), "ValidationException", "cannot change index byName")
	wantAPIError(t, tag("fdyno:unique-indexes", ""), "ValidationException", "cannot change index byEmail")
	wantAPIError(t, untag("fdyno:unique-indexes"), "ValidationException", "cannot change index byEmail")
	wantAPIError(t, tag("fdyno:counts", "off"), "ValidationException", "cannot change")
	wantAPIError(t, tag("fdyno:uniq", "x"), "ValidationException", "unknown fdyno tag")
	if err := tag("fdyno:counts", "on"); err != nil { // what the table keeps
		t.Errorf("TagResource fdyno:counts=on of a counted table: %v", err)
	}
	// byHandle, named before it exists, is created unique.
	if err := tag("fdyno:unique-indexes", "byEmail  byHandle"); err != nil {
		t.Fatal(err)
	}
	lt, err := c.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range lt.Tags {
		got = append(got, aws.ToString(tg.Key)+"="+aws.ToString(tg.Value))
	}
	if want := []string{"fdyno:counts=on", "fdyno:unique-indexes=byEmail  byHandle", "team=id"}; !slices.Equal(got, want) {
		t.Errorf("tags = %q, want %q", got, want)
	}
	if err := put("h1", "handle", "ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: table,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("handle"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byHandle"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("handle"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	waitIndexActive(t, c, "Accounts", "byHandle")
	wantAPIError(t, put("h2", "handle", "ann"), "ConditionalCheckFailedException", "unique index byHandle")
	if err := put("n3", "name", "Ann"); err != nil {
		t.Errorf("a third Ann in byName, not unique: %v", err)
	}
	// The library sees what the tags said.
	tbl, err := ts.tableFor(nil, "Accounts")
	if err != nil {
		t.Fatal(err)
	}
	d, err := tbl.Describe(ts.db)
	if err != nil {
		t.Fatal(err)
	}
	unique := map[string]bool{}
	for _, g := range d.GlobalSecondaryIndexes {
		unique[g.IndexName] = g.Unique
	}
	if want := map[string]bool{"byEmail": true, "byName": false, "byHandle": true}; !maps.Equal(unique, want) {
		t.Errorf("unique GSIs = %v, want %v", unique, want)
	}
}

// A GSI member "Unique", the library's field, is not DynamoDB's: a raw
// CreateTable carrying it makes no unique index (fdyno_tags.go,
// invariant 3).
func TestUniqueMemberIgnored(t *testing.T) {
	ts := newTestServer(t, Config{})
	rawCall(t, ts, "CreateTable", `{"TableName":"Raw","BillingMode":"PAY_PER_REQUEST",
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"e","AttributeType":"S"}],
		"GlobalSecondaryIndexes":[{"IndexName":"byE","Unique":true,"KeySchema":[{"AttributeName":"e","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	for _, pk := range []string{"a", "b"} {
		rawCall(t, ts, "PutItem", `{"TableName":"Raw","Item":{"pk":{"S":"`+pk+`"},"e":{"S":"same"}}}`)
	}
}

// The fdyno:counts tag: "off" creates a table without exact counts,
// whose DescribeTable reports 0 items, and which no tag change turns on.
func TestSDKCountsTag(t *testing.T) {
	_, c := newTestClient(t, Config{})
	wantAPIError(t, ignoreOut(c.CreateTable(ctx(t), accountsInput(fdynoTag("fdyno:counts", "maybe")))), "ValidationException", "fdyno:counts must be on or off")
	if _, err := c.CreateTable(ctx(t), accountsInput(fdynoTag("fdyno:counts", "off"))); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Accounts"), Item: map[string]types.AttributeValue{"pk": s("a")}}); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Accounts")})
	if err != nil {
		t.Fatal(err)
	}
	if n := aws.ToInt64(d.Table.ItemCount); n != 0 {
		t.Errorf("ItemCount of a table without counts = %d, want 0", n)
	}
	arn := aws.String("arn:aws:dynamodb:us-east-1:" + accountID + ":table/Accounts")
	_, err = c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{fdynoTag("fdyno:counts", "on")}})
	wantAPIError(t, err, "ValidationException", "the table keeps exact counts off")
	_, err = c.UntagResource(ctx(t), &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"fdyno:counts"}})
	wantAPIError(t, err, "ValidationException", "the table keeps exact counts off")
}

// ignoreOut drops an SDK call's output.
func ignoreOut[T any](_ T, err error) error { return err }

// A restore never makes a table that breaks a unique index: a point in
// time after the index was deleted and a duplicate written, restored
// with the recovery base's schema (which has the index), is a
// ValidationException naming the index, and creates no table; without
// the index (GlobalSecondaryIndexOverride) it restores.
func TestSDKRestoreUnique(t *testing.T) {
	_, c := newTestClient(t, Config{})
	if _, err := c.CreateTable(ctx(t), accountsInput(fdynoTag("fdyno:unique-indexes", "byEmail"))); err != nil {
		t.Fatal(err)
	}
	table := aws.String("Accounts")
	if _, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: table,
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: table, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
		{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byEmail")}}}}); err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"a", "b"} {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: table, Item: map[string]types.AttributeValue{"pk": s(pk), "email": s("ann@example.com")}}); err != nil {
			t.Fatal(err)
		}
	}
	// The restore runs in the background: it answers CREATING, finds the
	// duplicates before the table appears, and removes it (the server
	// logs why); the table is never ACTIVE.
	if _, err := c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: table, TargetTableName: aws.String("Copy"),
		UseLatestRestorableTime: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if _, gone := waitRestored(t, c, "Copy"); !gone {
		t.Error("the restore over duplicates of a unique index made its table")
	}
	if _, err := c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: table, TargetTableName: aws.String("Copy"),
		UseLatestRestorableTime: aws.Bool(true), GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{}}); err != nil {
		t.Errorf("restore without the unique index: %v", err)
	}
	mustRestored(t, c, "Copy")
	// A backup's unique index kept by an override stays unique.
	if _, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: table, Key: map[string]types.AttributeValue{"pk": s("b")}}); err != nil {
		t.Fatal(err)
	}
	b, err := c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: table, TargetTableName: aws.String("Kept"),
		UseLatestRestorableTime: aws.Bool(true), GlobalSecondaryIndexOverride: accountsInput().GlobalSecondaryIndexes[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if g := b.TableDescription.GlobalSecondaryIndexes; len(g) != 1 || aws.ToString(g[0].IndexName) != "byEmail" {
		t.Fatalf("restored GSIs = %d, want byEmail", len(g))
	}
	mustRestored(t, c, "Kept")
	_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Kept"), Item: map[string]types.AttributeValue{"pk": s("c"), "email": s("ann@example.com")}})
	wantAPIError(t, err, "ConditionalCheckFailedException", "unique index byEmail")
}
