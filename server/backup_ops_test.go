package server

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// backup_ops_test.go: the on-demand backup operations and the restores
// through aws-sdk-go-v2, their errors, their authorization, and a backup
// taken while writers run.

// scanPKs returns the pk and v of every item of table, by pk.
func scanPKs(t *testing.T, c *dynamodb.Client, table string) map[string]string {
	t.Helper()
	out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("Scan %s: %v", table, err)
	}
	got := map[string]string{}
	for _, it := range out.Items {
		v := ""
		if sv, ok := it["v"].(*types.AttributeValueMemberS); ok {
			v = sv.Value
		}
		got[it["pk"].(*types.AttributeValueMemberS).Value] = v
	}
	return got
}

func putPK(t *testing.T, c *dynamodb.Client, table, pk, v string) {
	t.Helper()
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table),
		Item: map[string]types.AttributeValue{"pk": s(pk), "v": s(v)}}); err != nil {
		t.Fatal(err)
	}
}

func TestBackupOperationsSDK(t *testing.T) {
	_, c := newTestClient(t, Config{})
	in := pkTableInput("Music")
	in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeS})
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byV"),
		KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
	mustCreateTable(t, c, in)
	createTable(t, c, "Other", "", "")
	putPK(t, c, "Music", "a", "1")
	putPK(t, c, "Music", "b", "2")

	before := time.Now().Add(-time.Second)
	cb, err := c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String("Music"), BackupName: aws.String("first")})
	if err != nil {
		t.Fatal(err)
	}
	d := cb.BackupDetails
	arn := aws.ToString(d.BackupArn)
	// CREATING, as DynamoDB answers: the backup is made in the background.
	if !strings.HasPrefix(arn, "arn:aws:dynamodb:us-east-1:"+accountID+":table/Music/backup/") || d.BackupStatus != types.BackupStatusCreating ||
		d.BackupType != types.BackupTypeUser || aws.ToString(d.BackupName) != "first" || d.BackupCreationDateTime == nil {
		t.Fatalf("CreateBackup: %+v", d)
	}
	if d.BackupSizeBytes != nil {
		t.Errorf("BackupSizeBytes of a CREATING backup: %d, want none", *d.BackupSizeBytes)
	}
	if got := waitBackup(t, c, arn).BackupDetails; aws.ToInt64(got.BackupSizeBytes) == 0 {
		t.Errorf("AVAILABLE backup: %+v, want its size", got)
	}
	// Writes after the backup are not in it.
	putPK(t, c, "Music", "a", "changed")
	putPK(t, c, "Music", "c", "3")
	if _, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String("Music"), Key: map[string]types.AttributeValue{"pk": s("b")}}); err != nil {
		t.Fatal(err)
	}
	ob, err := c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String("Other"), BackupName: aws.String("other")})
	if err != nil {
		t.Fatal(err)
	}
	waitBackup(t, c, aws.ToString(ob.BackupDetails.BackupArn))

	db, err := c.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	bd := db.BackupDescription
	if src := bd.SourceTableDetails; aws.ToString(src.TableName) != "Music" || aws.ToInt64(src.ItemCount) != 2 ||
		aws.ToString(src.TableArn) != "arn:aws:dynamodb:us-east-1:"+accountID+":table/Music" || len(src.KeySchema) != 1 {
		t.Errorf("SourceTableDetails: %+v", src)
	}
	if f := bd.SourceTableFeatureDetails; len(f.GlobalSecondaryIndexes) != 1 || aws.ToString(f.GlobalSecondaryIndexes[0].IndexName) != "byV" {
		t.Errorf("SourceTableFeatureDetails: %+v", f)
	}

	// ListBackups: every USER backup, then by table, by time, paged.
	list := func(in *dynamodb.ListBackupsInput) ([]string, string) {
		t.Helper()
		out, err := c.ListBackups(ctx(t), in)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, b := range out.BackupSummaries {
			names = append(names, aws.ToString(b.BackupName))
		}
		return names, aws.ToString(out.LastEvaluatedBackupArn)
	}
	if got, _ := list(&dynamodb.ListBackupsInput{}); !cmp.Equal(got, []string{"first", "other"}) {
		t.Errorf("ListBackups: %v", got)
	}
	if got, _ := list(&dynamodb.ListBackupsInput{TableName: aws.String("Music")}); !cmp.Equal(got, []string{"first"}) {
		t.Errorf("ListBackups(Music): %v", got)
	}
	if got, _ := list(&dynamodb.ListBackupsInput{TimeRangeUpperBound: aws.Time(before)}); len(got) != 0 {
		t.Errorf("ListBackups before both: %v", got)
	}
	if got, _ := list(&dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem}); len(got) != 0 {
		t.Errorf("ListBackups(SYSTEM): %v", got)
	}
	page, last := list(&dynamodb.ListBackupsInput{Limit: aws.Int32(1)})
	if !cmp.Equal(page, []string{"first"}) || last != arn {
		t.Errorf("ListBackups(Limit 1): %v, last %q, want [first], %q", page, last, arn)
	}
	if page, last := list(&dynamodb.ListBackupsInput{Limit: aws.Int32(1), ExclusiveStartBackupArn: aws.String(arn)}); !cmp.Equal(page, []string{"other"}) || last != "" {
		t.Errorf("ListBackups after first: %v, last %q", page, last)
	}

	// RestoreTableFromBackup: the items at the backup's time, the index.
	rt, err := c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String("Music2")})
	if err != nil {
		t.Fatal(err)
	}
	if td := rt.TableDescription; aws.ToString(td.TableName) != "Music2" || td.RestoreSummary == nil || aws.ToString(td.RestoreSummary.SourceBackupArn) != arn ||
		!aws.ToBool(td.RestoreSummary.RestoreInProgress) || td.TableStatus != types.TableStatusCreating || len(td.GlobalSecondaryIndexes) != 1 {
		t.Errorf("RestoreTableFromBackup: %+v", td)
	}
	// Its name is taken while it is restored.
	_, err = c.CreateTable(ctx(t), pkTableInput("Music2"))
	if td := mustRestored(t, c, "Music2"); td.RestoreSummary == nil || aws.ToBool(td.RestoreSummary.RestoreInProgress) ||
		aws.ToString(td.RestoreSummary.SourceBackupArn) != arn {
		t.Errorf("restored table's RestoreSummary: %+v", td.RestoreSummary)
	}
	if err == nil {
		t.Error("CreateTable of a table being restored succeeded")
	}
	if got := scanPKs(t, c, "Music2"); !cmp.Equal(got, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("restored items: %v", got)
	}
	q, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("Music2"), IndexName: aws.String("byV"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("2")}})
	if err != nil || q.Count != 1 {
		t.Errorf("Query byV of the restored table: %v, %v", q, err)
	}
	// Overrides: no GSI, provisioned billing.
	rt, err = c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String("Music3"),
		GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{}, BillingModeOverride: types.BillingModeProvisioned,
		ProvisionedThroughputOverride: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(6)}})
	if err != nil {
		t.Fatal(err)
	}
	if td := rt.TableDescription; len(td.GlobalSecondaryIndexes) != 0 || aws.ToInt64(td.ProvisionedThroughput.WriteCapacityUnits) != 6 {
		t.Errorf("restore with overrides: GSIs %v, throughput %+v", td.GlobalSecondaryIndexes, td.ProvisionedThroughput)
	}
	if td := mustRestored(t, c, "Music3"); aws.ToInt64(td.ProvisionedThroughput.WriteCapacityUnits) != 6 {
		t.Errorf("restored with overrides: throughput %+v", td.ProvisionedThroughput)
	}

	// Errors.
	_, err = c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String("Other")})
	wantAPIError(t, err, "TableAlreadyExistsException", "Other")
	_, err = c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String("Missing"), BackupName: aws.String("xyz")})
	wantAPIError(t, err, "TableNotFoundException", "Missing")
	otherTable := strings.Replace(arn, "table/Music/", "table/Other/", 1)
	_, err = c.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(otherTable)})
	wantAPIError(t, err, "BackupNotFoundException", "")
	_, err = c.ListBackups(ctx(t), &dynamodb.ListBackupsInput{Limit: aws.Int32(101)})
	wantAPIError(t, err, "ValidationException", "less than or equal to 100")

	del, err := c.DeleteBackup(ctx(t), &dynamodb.DeleteBackupInput{BackupArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	if st := del.BackupDescription.BackupDetails.BackupStatus; st != types.BackupStatusDeleted {
		t.Errorf("DeleteBackup status %s, want DELETED", st)
	}
	_, err = c.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	wantAPIError(t, err, "BackupNotFoundException", "")
	_, err = c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String("Music4")})
	wantAPIError(t, err, "BackupNotFoundException", "")
}

func TestRestoreTableToPointInTimeSDK(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Tab", "", "")
	_, err := c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Tab"),
		TargetTableName: aws.String("Rst0"), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "PointInTimeRecoveryUnavailableException", "")

	if _, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Tab"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	putPK(t, c, "Tab", "a", "1")
	time.Sleep(5 * time.Millisecond)
	at := time.Now()
	time.Sleep(5 * time.Millisecond)
	putPK(t, c, "Tab", "a", "2")
	putPK(t, c, "Tab", "b", "3")

	rt, err := c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Tab"),
		TargetTableName: aws.String("Rst1"), RestoreDateTime: aws.Time(at)})
	if err != nil {
		t.Fatal(err)
	}
	if s := rt.TableDescription.RestoreSummary; s == nil || aws.ToString(s.SourceTableArn) != "arn:aws:dynamodb:us-east-1:"+accountID+":table/Tab" {
		t.Errorf("RestoreSummary: %+v", s)
	}
	mustRestored(t, c, "Rst1")
	if got := scanPKs(t, c, "Rst1"); !cmp.Equal(got, map[string]string{"a": "1"}) {
		t.Errorf("restored at %v: %v", at, got)
	}
	tableArn := "arn:aws:dynamodb:us-east-1:" + accountID + ":table/Tab"
	// The recovery base is no backup at the wire.
	desc, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Tab")})
	if err != nil {
		t.Fatal(err)
	}
	base := tableArn + "/backup/pitr-" + aws.ToString(desc.Table.TableId)
	_, err = c.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(base)})
	wantAPIError(t, err, "BackupNotFoundException", "")
	_, err = c.DeleteBackup(ctx(t), &dynamodb.DeleteBackupInput{BackupArn: aws.String(base)})
	wantAPIError(t, err, "BackupNotFoundException", "")
	_, err = c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(base), TargetTableName: aws.String("FromBase")})
	wantAPIError(t, err, "BackupNotFoundException", "")
	if _, err := c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableArn: aws.String(tableArn),
		TargetTableName: aws.String("Rst2"), UseLatestRestorableTime: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	mustRestored(t, c, "Rst2")
	if got := scanPKs(t, c, "Rst2"); !cmp.Equal(got, map[string]string{"a": "2", "b": "3"}) {
		t.Errorf("restored at the latest time: %v", got)
	}
	_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Tab"),
		TargetTableName: aws.String("Rst3"), RestoreDateTime: aws.Time(at.Add(-time.Hour))})
	wantAPIError(t, err, "InvalidRestoreTimeException", "")
	_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Tab"),
		TargetTableName: aws.String("Rst1"), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "TableAlreadyExistsException", "")
	_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Missing"),
		TargetTableName: aws.String("Rst4"), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "TableNotFoundException", "")
	_, err = c.RestoreTableToPointInTime(ctx(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Tab"),
		TargetTableName: aws.String("Rst5")})
	wantAPIError(t, err, "ValidationException", "")
}

// TestBackupRequestChecks: the raw protocol's members, table-driven.
func TestBackupRequestChecks(t *testing.T) {
	ts := newTestServer(t, Config{})
	ts.mustCall(t, "CreateTable", `{"TableName":"Tab","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	foreign := "arn:aws:dynamodb:us-east-1:999999999999:table/Tab/backup/01700000000000-abcdef12"
	for _, tc := range []struct{ op, body, typ, msg string }{
		{"CreateBackup", `{"TableName":"Tab"}`, "ValidationException", "backupName"},
		{"CreateBackup", `{"TableName":"Tab","BackupName":"a"}`, "ValidationException", "backupName"},
		{"DescribeBackup", `{}`, "ValidationException", "backupArn"},
		{"DescribeBackup", `{"BackupArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Tab/x/y/z/q"}`, "BackupNotFoundException", ""},
		{"DescribeBackup", `{"BackupArn":"` + foreign + `"}`, "AccessDeniedException", "no resource-based policy allows the dynamodb:DescribeBackup"},
		{"DeleteBackup", `{"BackupArn":"` + foreign + `"}`, "AccessDeniedException", "dynamodb:DeleteBackup"},
		{"RestoreTableFromBackup", `{"BackupArn":"` + foreign + `","TargetTableName":"New"}`, "AccessDeniedException", "dynamodb:RestoreTableFromBackup"},
		{"RestoreTableFromBackup", `{"BackupArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Tab/backup/01700000000000-abcdef12","TargetTableName":"New"}`, "BackupNotFoundException", ""},
		{"RestoreTableFromBackup", `{"BackupArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Tab/backup/01700000000000-abcdef12","TargetTableName":"New","BillingModeOverride":"FREE"}`, "ValidationException", "billingModeOverride"},
		{"ListBackups", `{"BackupType":"MINE"}`, "ValidationException", "backupType"},
		{"ListBackups", `{"Limit":0}`, "ValidationException", "greater than or equal to 1"},
		{"RestoreTableToPointInTime", `{"TargetTableName":"New","UseLatestRestorableTime":true}`, "ValidationException", "SourceTableName"},
		{"RestoreTableToPointInTime", `{"SourceTableName":"Tab","TargetTableName":"New","UseLatestRestorableTime":true,"RestoreDateTime":1}`, "ValidationException", "RestoreDateTime"},
		{"RestoreTableToPointInTime", `{"SourceTableArn":"arn:aws:dynamodb:us-east-1:999999999999:table/Tab","TargetTableName":"New","UseLatestRestorableTime":true}`,
			"AccessDeniedException", "dynamodb:RestoreTableToPointInTime"},
	} {
		code, _, typ, msg := ts.call(t, tc.op, tc.body)
		if code != 400 || typ != tc.typ || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s %s: %d %s %q, want %s containing %q", tc.op, tc.body, code, typ, msg, tc.typ, tc.msg)
		}
	}
	if code, out, _, _ := ts.call(t, "ListTables", `{}`); code != 200 || len(out["TableNames"].([]any)) != 1 {
		t.Errorf("tables after the refused restores: %v", out)
	}
}

// TestAttackBackupPolicies: a policy that denies restore refuses it and
// creates nothing; restore needs the target's write actions; another
// account's backup ARN is refused.
func TestAttackBackupPolicies(t *testing.T) {
	as := newAttackServer(t)
	cb, err := as.admin.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String("GameScores"), BackupName: aws.String("games")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(cb.BackupDetails.BackupArn)
	waitBackup(t, as.admin, arn)
	if !strings.HasPrefix(arn, gamesARN+"/backup/") {
		t.Fatalf("backup ARN %s, want it under %s", arn, gamesARN)
	}
	foreign := strings.Replace(arn, attackAccount, "999999999999", 1)
	for _, tc := range []struct{ key, op, body, want string }{
		// reader may only GetItem.
		{"reader", "CreateBackup", `{"TableName":"GameScores","BackupName":"mine"}`, "dynamodb:CreateBackup on resource: " + gamesARN},
		{"reader", "RestoreTableFromBackup", `{"BackupArn":"` + arn + `","TargetTableName":"Copy"}`, "dynamodb:RestoreTableFromBackup on resource: " + arn},
		{"reader", "ListBackups", `{}`, "dynamodb:ListBackups on resource: *"},
		// locked is denied everything on table/Locked: the restore's
		// target writes included.
		{"locked", "RestoreTableFromBackup", `{"BackupArn":"` + arn + `","TargetTableName":"Locked"}`, "dynamodb:PutItem on resource: arn:aws:dynamodb:" + attackRegion + ":" + attackAccount + ":table/Locked with an explicit deny"},
		{"locked", "RestoreTableToPointInTime", `{"SourceTableName":"GameScores","TargetTableName":"Locked","UseLatestRestorableTime":true}`, "with an explicit deny"},
		{"locked", "DescribeBackup", `{"BackupArn":"` + foreign + `"}`, "because no resource-based policy allows the dynamodb:DescribeBackup action"},
		{"locked", "DeleteBackup", `{"BackupArn":"` + foreign + `"}`, "because no resource-based policy allows the dynamodb:DeleteBackup action"},
		{"locked", "RestoreTableFromBackup", `{"BackupArn":"` + foreign + `","TargetTableName":"Copy"}`, "because no resource-based policy allows"},
	} {
		status, typ, msg := as.raw(t, tc.key, tc.op, tc.body, nil)
		if status != 400 || typ != "AccessDeniedException" || !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s %s: %d %s %q, want AccessDeniedException containing %q", tc.key, tc.op, tc.body, status, typ, msg, tc.want)
		}
	}
	if _, err := as.admin.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)}); err != nil {
		t.Errorf("the backup after the refused requests: %v", err)
	}
	if _, err := as.admin.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Copy")}); err == nil {
		t.Errorf("a refused restore created Copy")
	}
	// locked may restore to a table its policy does not deny.
	status, typ, msg := as.raw(t, "locked", "RestoreTableFromBackup", `{"BackupArn":"`+arn+`","TargetTableName":"Copy"}`, nil)
	if status != 200 {
		t.Errorf("locked's restore to Copy: %d %s %s", status, typ, msg)
	}
	as.checkBob(t)
}

// TestBackupWhileWriting: writers move units between two items in
// transactions, keeping their sum; a backup taken meanwhile restores a
// table whose sum is that sum, at the one version it holds.
func TestBackupWhileWriting(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Bank", "", "")
	const total = 1000
	for i, pk := range []string{"x", "y"} {
		n := 0
		if i == 0 {
			n = total
		}
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Bank"),
			Item: map[string]types.AttributeValue{"pk": s(pk), "n": &types.AttributeValueMemberN{Value: strconv.Itoa(n)}}}); err != nil {
			t.Fatal(err)
		}
	}
	// Enough other items that a backup takes several transactions
	// (the library copies 200 items per transaction).
	const filler = 500
	for i := 0; i < filler; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < i+25; j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("f" + strconv.Itoa(j))}}})
		}
		if _, err := c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Bank": reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var moved atomic.Int64
	move := func(from, to string) *dynamodb.TransactWriteItemsInput {
		upd := func(pk, expr string) types.TransactWriteItem {
			return types.TransactWriteItem{Update: &types.Update{TableName: aws.String("Bank"), Key: map[string]types.AttributeValue{"pk": s(pk)},
				UpdateExpression: aws.String(expr), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}}
		}
		return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{upd(from, "SET n = n - :one"), upd(to, "SET n = n + :one")}}
	}
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from, to := "x", "y"
			if w == 1 {
				from, to = to, from
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := c.TransactWriteItems(ctx(t), move(from, to)); err == nil { // conflicts are expected
					moved.Add(1)
				}
			}
		}()
	}
	for moved.Load() < 10 {
		time.Sleep(time.Millisecond)
	}
	var arns []string
	for i := range 3 {
		cb, err := c.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String("Bank"), BackupName: aws.String("bak" + strconv.Itoa(i))})
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatal(err)
		}
		arns = append(arns, aws.ToString(cb.BackupDetails.BackupArn))
	}
	for _, arn := range arns {
		waitBackup(t, c, arn) // made while the writers run
	}
	close(stop)
	wg.Wait()
	t.Logf("%d transactions committed", moved.Load())
	for i, arn := range arns {
		target := "Copy" + strconv.Itoa(i)
		if _, err := c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(target)}); err != nil {
			t.Fatal(err)
		}
		mustRestored(t, c, target)
		out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(target), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, it := range out.Items {
			if n, ok := it["n"].(*types.AttributeValueMemberN); ok {
				v, _ := strconv.Atoi(n.Value)
				sum += v
			}
		}
		if out.Count != filler+2 || sum != total {
			t.Errorf("backup %s restores %d items summing to %d, want %d summing to %d", arn, out.Count, sum, filler+2, total)
		}
	}
}

// FuzzSplitBackupARN: splitBackupARN never panics, and what it accepts
// is a backup ARN that backupARN writes back from its parts (for the aws
// partition) and that names a table splitTableARN accepts.
func FuzzSplitBackupARN(f *testing.F) {
	for _, seed := range []string{
		"arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/01489602797149-73d8d5bc",
		"arn:aws-cn:dynamodb:cn-north-1:123456789012:table/Music/backup/01489602797149-73d8d5bc",
		"arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/",
		"arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/a/b",
		"arn:aws:dynamodb:us-east-1:123456789012:table//backup/x",
		"arn:aws:dynamodb:us-east-1:123456789012:table/Music/stream/2024",
		"/backup/x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, arn string) {
		region, account, table, id, ok := splitBackupARN(arn)
		if !ok {
			return
		}
		if id == "" || strings.Contains(id, "/") || table == "" || strings.Contains(table, "/") {
			t.Fatalf("%q split into table %q, id %q", arn, table, id)
		}
		s := &Server{region: region, account: account}
		if back := s.backupARN(table, id); strings.HasPrefix(arn, "arn:aws:") && back != arn {
			t.Fatalf("%q split and joined is %q", arn, back)
		}
	})
}

// TestAttackRestorePartitionPolicy: a policy that allows the target's
// item actions only on some partitions (DynamoDB's fine-grained access
// control) allows no restore: a restore writes every partition.
func TestAttackRestorePartitionPolicy(t *testing.T) {
	partial := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["dynamodb:RestoreTableFromBackup","dynamodb:RestoreTableToPointInTime"],"Resource":"*"},
		{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:Query","dynamodb:Scan","dynamodb:PutItem","dynamodb:UpdateItem","dynamodb:DeleteItem","dynamodb:BatchWriteItem"],
		 "Resource":"*","Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:userid}"]}}}]}`
	as := newAttackServer(t, func(cfg *Config) {
		p, err := LoadPolicies(strings.NewReader(`{"partial":` + partial + `}`))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range p {
			cfg.Policies[k] = v
		}
		cfg.Keys["partial"], cfg.Accounts["partial"] = "secret-of-partial", attackAccount
	})
	cb, err := as.admin.CreateBackup(ctx(t), &dynamodb.CreateBackupInput{TableName: aws.String("GameScores"), BackupName: aws.String("games")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(cb.BackupDetails.BackupArn)
	waitBackup(t, as.admin, arn)
	if _, err := as.admin.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("GameScores"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ op, body string }{
		{"RestoreTableFromBackup", `{"BackupArn":"` + arn + `","TargetTableName":"Copy"}`},
		{"RestoreTableToPointInTime", `{"SourceTableName":"GameScores","TargetTableName":"Copy","UseLatestRestorableTime":true}`},
	} {
		status, typ, msg := as.raw(t, "partial", tc.op, tc.body, nil)
		if status != 400 || typ != "AccessDeniedException" || !strings.Contains(msg, "dynamodb:PutItem on resource: arn:aws:dynamodb:"+attackRegion+":"+attackAccount+":table/Copy") {
			t.Errorf("%s: %d %s %q, want AccessDeniedException on Copy's PutItem", tc.op, status, typ, msg)
		}
	}
	if _, err := as.admin.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Copy")}); err == nil {
		t.Errorf("a refused restore created Copy")
	}
}

// TestDeleteTableSystemBackupSDK: deleting a table with point-in-time
// recovery enabled leaves a SYSTEM backup named
// <table>$DeletedTableBackup (DynamoDB's developer guide), listed with
// BackupType SYSTEM or ALL and not USER, which restores the table as it
// was just before deletion; a table without recovery leaves none, and a
// protected table is neither deleted nor backed up.
func TestDeleteTableSystemBackupSDK(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Kept", "", "")
	createTable(t, c, "Plain", "", "")
	if _, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Kept"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	putPK(t, c, "Kept", "a", "1")
	putPK(t, c, "Kept", "b", "2")
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Kept"), DeletionProtectionEnabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	_, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Kept")})
	wantAPIError(t, err, "ValidationException", "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	list := func(typ types.BackupTypeFilter) []string {
		out, err := c.ListBackups(ctx(t), &dynamodb.ListBackupsInput{BackupType: typ})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range out.BackupSummaries {
			names = append(names, aws.ToString(s.BackupName)+" "+string(s.BackupType))
		}
		return names
	}
	if got := list(types.BackupTypeFilterAll); len(got) != 0 {
		t.Fatalf("backups after a refused deletion: %q, want none", got)
	}
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Kept"), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Kept", "Plain"} {
		if _, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"Kept$DeletedTableBackup SYSTEM"}
	if got := list(types.BackupTypeFilterSystem); !cmp.Equal(got, want) {
		t.Errorf("SYSTEM backups: %q, want %q", got, want)
	}
	if got := list(types.BackupTypeFilterAll); !cmp.Equal(got, want) {
		t.Errorf("ALL backups: %q, want %q", got, want)
	}
	if got := list(types.BackupTypeFilterUser); len(got) != 0 {
		t.Errorf("USER backups: %q, want none", got)
	}
	out, err := c.ListBackups(ctx(t), &dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RestoreTableFromBackup(ctx(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: out.BackupSummaries[0].BackupArn,
		TargetTableName: aws.String("Back")}); err != nil {
		t.Fatal(err)
	}
	mustRestored(t, c, "Back")
	if got := scanPKs(t, c, "Back"); !cmp.Equal(got, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("restored from the system backup: %v", got)
	}
}

// TestAttackBackupLeadingKeys: a backup and the start of point-in-time
// recovery read the whole table, and the library asks the request's guard
// for that read: a policy allowing them only on the caller's partition
// (a dynamodb:LeadingKeys condition, which these actions never satisfy)
// allows neither, and nothing is created; the same actions allowed
// without a condition work.
func TestAttackBackupLeadingKeys(t *testing.T) {
	policy := func(cond string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:CreateBackup","dynamodb:UpdateContinuousBackups"],"Resource":"*"` + cond + `}]}`
	}
	as := newAttackServer(t, func(cfg *Config) {
		p, err := LoadPolicies(strings.NewReader(`{"mine":` + policy(`,"Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:userid}"]}}`) +
			`,"all":` + policy("") + `}`))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range p {
			cfg.Policies[k] = v
		}
		for _, k := range []string{"mine", "all"} {
			cfg.Keys[k], cfg.Accounts[k] = "secret-of-"+k, attackAccount
		}
	})
	pitr := `{"TableName":"GameScores","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`
	for _, tc := range []struct{ op, body string }{
		{"CreateBackup", `{"TableName":"GameScores","BackupName":"mine"}`},
		{"UpdateContinuousBackups", pitr},
	} {
		status, typ, msg := as.raw(t, "mine", tc.op, tc.body, nil)
		if status != 400 || typ != "AccessDeniedException" {
			t.Errorf("mine's %s: %d %s %q, want AccessDeniedException", tc.op, status, typ, msg)
		}
	}
	l, err := as.admin.ListBackups(ctx(t), &dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterAll})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.BackupSummaries) != 0 {
		t.Errorf("backups after the refusals: %d, want none", len(l.BackupSummaries))
	}
	d, err := as.admin.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("GameScores")})
	if err != nil {
		t.Fatal(err)
	}
	if s := d.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus; s != types.PointInTimeRecoveryStatusDisabled {
		t.Errorf("recovery after the refusal: %s, want DISABLED", s)
	}
	for _, tc := range []struct{ op, body string }{
		{"CreateBackup", `{"TableName":"GameScores","BackupName":"all"}`},
		{"UpdateContinuousBackups", pitr},
	} {
		if status, typ, msg := as.raw(t, "all", tc.op, tc.body, nil); status != 200 {
			t.Errorf("all's %s: %d %s %q, want 200", tc.op, status, typ, msg)
		}
	}
	as.checkBob(t)
}
