package server

import (
	"encoding/json"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// boto3UniqueScript creates, with boto3's low-level client, a table whose
// byEmail GSI the fdyno:unique-indexes tag makes unique and one that
// fdyno:counts=off creates without counts, and prints what came back as
// JSON: the error codes of a duplicate email and of tag changes that
// would contradict the tables, the tags listed, and the counts
// DescribeTable reports.
const boto3UniqueScript = `
import sys, json, boto3
from botocore.exceptions import ClientError
c = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
                 aws_access_key_id="AKIDTEST", aws_secret_access_key="test-secret")
def table(name, tags):
    c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "email", "AttributeType": "S"}],
                   GlobalSecondaryIndexes=[{"IndexName": "byEmail", "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
                                            "Projection": {"ProjectionType": "KEYS_ONLY"}}],
                   Tags=tags)
    return "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
def code(f, **args):
    try:
        f(**args)
        return ""
    except ClientError as x:
        return x.response["Error"]["Code"]
out = {}
users = table("Users", [{"Key": "fdyno:unique-indexes", "Value": "byEmail"}])
blind = table("Blind", [{"Key": "fdyno:counts", "Value": "off"}])
for t in ["Users", "Blind"]:
    c.put_item(TableName=t, Item={"pk": {"S": "a"}, "email": {"S": "ann@example.com"}})
out["duplicate"] = [code(c.put_item, TableName=t, Item={"pk": {"S": "b"}, "email": {"S": "ann@example.com"}}) for t in ["Users", "Blind"]]
out["retag"] = [code(c.tag_resource, ResourceArn=users, Tags=[{"Key": "fdyno:unique-indexes", "Value": ""}]),
                code(c.untag_resource, ResourceArn=blind, TagKeys=["fdyno:counts"]),
                code(c.create_table, TableName="Typo", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     Tags=[{"Key": "fdyno:count", "Value": "off"}])]
out["tags"] = c.list_tags_of_resource(ResourceArn=users)["Tags"]
out["counts"] = [c.describe_table(TableName=t)["Table"]["ItemCount"] for t in ["Users", "Blind"]]
print(json.dumps(out))
`

// TestBoto3FdynoTags runs the fdyno tags with boto3 (Python's AWS SDK),
// which make test installs: boto3 sends them as any tag.
func TestBoto3FdynoTags(t *testing.T) {
	python := boto3Python(t)
	ts := newTestServer(t, Config{})
	var got map[string]any
	raw := runBoto3(t, python, boto3UniqueScript, ts.URL, nil)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("boto3 output %q: %v", raw, err)
	}
	want := map[string]any{
		"duplicate": []any{"ConditionalCheckFailedException", ""},
		"retag":     []any{"ValidationException", "ValidationException", "ValidationException"},
		"tags":      []any{map[string]any{"Key": "fdyno:unique-indexes", "Value": "byEmail"}},
		"counts":    []any{1.0, 0.0},
	}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("boto3 (-want +got):\n%s", strings.TrimSpace(d))
	}
}
