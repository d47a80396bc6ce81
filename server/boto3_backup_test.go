package server

import (
	"encoding/json"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// boto3BackupScript drives every backup operation with boto3's low-level
// client and prints what came back as JSON (times as their type's name:
// boto3 must have parsed them as datetimes).
const boto3BackupScript = `
import sys, json, time, boto3
from botocore.exceptions import ClientError
c = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
                 aws_access_key_id="AKIDTEST", aws_secret_access_key="test-secret")
out = {}
def available(arn):
    for _ in range(3000):
        s = c.describe_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"]["BackupStatus"]
        if s != "CREATING":
            return s
        time.sleep(0.01)
def active(name):
    seen = set()
    for _ in range(3000):
        t = c.describe_table(TableName=name)["Table"]
        seen.add((t["TableStatus"], t["RestoreSummary"]["RestoreInProgress"]))
        if t["TableStatus"] != "CREATING":
            return sorted(seen)
        time.sleep(0.01)
c.create_table(TableName="Songs", BillingMode="PAY_PER_REQUEST",
               KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
c.put_item(TableName="Songs", Item={"pk": {"S": "a"}})
b1 = c.create_backup(TableName="Songs", BackupName="one")["BackupDetails"]
out["create"] = [b1["BackupStatus"], b1["BackupType"], type(b1["BackupCreationDateTime"]).__name__, available(b1["BackupArn"])]
c.put_item(TableName="Songs", Item={"pk": {"S": "b"}})
b2 = c.create_backup(TableName="Songs", BackupName="two")["BackupDetails"]
available(b2["BackupArn"])
d = c.describe_backup(BackupArn=b1["BackupArn"])["BackupDescription"]
out["describe"] = [d["SourceTableDetails"]["TableName"], d["SourceTableDetails"]["ItemCount"], d["BackupDetails"]["BackupName"]]
names, args = [], {"Limit": 1}
while True:
    r = c.list_backups(**args)
    names += [s["BackupName"] for s in r["BackupSummaries"]]
    if "LastEvaluatedBackupArn" not in r:
        break
    args["ExclusiveStartBackupArn"] = r["LastEvaluatedBackupArn"]
out["list"] = names
t = c.restore_table_from_backup(TargetTableName="SongsOne", BackupArn=b1["BackupArn"])["TableDescription"]
out["restore"] = [t["TableName"], t["RestoreSummary"]["SourceBackupArn"] == b1["BackupArn"], t["TableStatus"], t["RestoreSummary"]["RestoreInProgress"]]
out["restoring"] = active("SongsOne")
out["restored"] = sorted(i["pk"]["S"] for i in c.scan(TableName="SongsOne")["Items"])
c.update_continuous_backups(TableName="Songs", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
c.put_item(TableName="Songs", Item={"pk": {"S": "c"}})
c.restore_table_to_point_in_time(SourceTableName="Songs", TargetTableName="SongsNow", UseLatestRestorableTime=True)
active("SongsNow")
out["pitr"] = sorted(i["pk"]["S"] for i in c.scan(TableName="SongsNow")["Items"])
out["delete"] = c.delete_backup(BackupArn=b2["BackupArn"])["BackupDescription"]["BackupDetails"]["BackupStatus"]
out["errors"] = []
for op, args in [("describe_backup", {"BackupArn": b2["BackupArn"]}),
                 ("restore_table_from_backup", {"TargetTableName": "Songs", "BackupArn": b1["BackupArn"]}),
                 ("restore_table_to_point_in_time", {"SourceTableName": "SongsOne", "TargetTableName": "Other", "UseLatestRestorableTime": True})]:
    try:
        getattr(c, op)(**args)
        out["errors"].append("")
    except ClientError as x:
        out["errors"].append(x.response["Error"]["Code"])
print(json.dumps(out))
`

// TestBoto3Backups runs the backup operations with boto3 (Python's AWS
// SDK), which make test installs.
func TestBoto3Backups(t *testing.T) {
	python := boto3Python(t)
	ts := newTestServer(t, Config{})
	var got map[string]any
	raw := runBoto3(t, python, boto3BackupScript, ts.URL, nil)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("boto3 output %q: %v", raw, err)
	}
	// DescribeTable while restored: CREATING, in progress (unless the
	// first poll came after the end), then ACTIVE, done.
	seen := got["restoring"]
	if d := gocmp.Diff([]any{[]any{"ACTIVE", false}, []any{"CREATING", true}}, seen); d != "" {
		if d2 := gocmp.Diff([]any{[]any{"ACTIVE", false}}, seen); d2 != "" {
			t.Errorf("DescribeTable's (TableStatus, RestoreInProgress) while restored (-want +got):\n%s", d)
		}
	}
	delete(got, "restoring")
	want := map[string]any{
		"create":   []any{"CREATING", "USER", "datetime", "AVAILABLE"},
		"describe": []any{"Songs", 1.0, "one"},
		"list":     []any{"one", "two"},
		"restore":  []any{"SongsOne", true, "CREATING", true},
		"restored": []any{"a"},
		"pitr":     []any{"a", "b", "c"},
		"delete":   "DELETED",
		"errors":   []any{"BackupNotFoundException", "TableAlreadyExistsException", "PointInTimeRecoveryUnavailableException"},
	}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("boto3 (-want +got):\n%s", strings.TrimSpace(d))
	}
}
