package server

import (
	"encoding/json"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// boto3TransferScript drives every export and import operation with
// boto3's low-level client and prints what came back as JSON (times as
// their type's name: boto3 must have parsed them as datetimes).
const boto3TransferScript = `
import sys, json, time, boto3
from botocore.exceptions import ClientError
c = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
                 aws_access_key_id="AKIDTEST", aws_secret_access_key="test-secret")
def wait(f, key, status):
    for _ in range(1500):
        d = f()[key]
        if d[status] != "IN_PROGRESS":
            return d
        time.sleep(0.02)
    return d
def code(f, **args):
    try:
        f(**args)
        return ""
    except ClientError as x:
        return x.response["Error"]["Code"]
out = {}
keys = dict(BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
c.create_table(TableName="Songs", **keys)
for k in ["a", "b", "c"]:
    c.put_item(TableName="Songs", Item={"pk": {"S": k}, "n": {"N": "1.5"}, "ss": {"SS": ["x", "y"]}})
arn = c.describe_table(TableName="Songs")["Table"]["TableArn"]
errors = {"no_pitr": code(c.export_table_to_point_in_time, TableArn=arn, S3Bucket="exports")}
c.update_continuous_backups(TableName="Songs", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
exports = []
for fmt in ["DYNAMODB_JSON", "ION"]:
    e = c.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", S3Prefix="p", ExportFormat=fmt, ClientToken="tok-" + fmt)["ExportDescription"]
    d = wait(lambda: c.describe_export(ExportArn=e["ExportArn"]), "ExportDescription", "ExportStatus")
    exports.append(d)
out["exports"] = [[d["ExportStatus"], d["ExportFormat"], d["ItemCount"], d["S3Prefix"], type(d["ExportTime"]).__name__, type(d["EndTime"]).__name__] for d in exports]
arns, args = [], {"MaxResults": 1, "TableArn": arn}
while True:
    r = c.list_exports(**args)
    arns += [s["ExportArn"] for s in r["ExportSummaries"]]
    if "NextToken" not in r:
        break
    args["NextToken"] = r["NextToken"]
out["list_exports"] = arns == [d["ExportArn"] for d in exports]
imports = []
for d, fmt, name in [(exports[0], "DYNAMODB_JSON", "SongsJSON"), (exports[1], "ION", "SongsION")]:
    prefix = d["ExportManifest"][:-len("manifest-summary.json")]
    i = c.import_table(S3BucketSource={"S3Bucket": "exports", "S3KeyPrefix": prefix}, InputFormat=fmt, InputCompressionType="GZIP",
                       ClientToken="imp-" + fmt, TableCreationParameters=dict(TableName=name, **keys))["ImportTableDescription"]
    d = wait(lambda: c.describe_import(ImportArn=i["ImportArn"]), "ImportTableDescription", "ImportStatus")
    items = sorted((x["pk"]["S"], x["n"]["N"], sorted(x["ss"]["SS"])) for x in c.scan(TableName=name)["Items"])
    imports.append([d["ImportStatus"], d["InputFormat"], d["ImportedItemCount"], d["ErrorCount"], type(d["StartTime"]).__name__, items])
out["imports"] = imports
names, args = [], {"PageSize": 1}
while True:
    r = c.list_imports(**args)
    names += [s["ImportArn"].split("/")[1] for s in r["ImportSummaryList"]]
    if "NextToken" not in r:
        break
    args["NextToken"] = r["NextToken"]
out["list_imports"] = names
errors["export_not_found"] = code(c.describe_export, ExportArn=arn + "/export/01700000000000-abcdef12")
errors["import_not_found"] = code(c.describe_import, ImportArn=arn + "/import/01700000000000-abcdef12")
errors["export_conflict"] = code(c.export_table_to_point_in_time, TableArn=arn, S3Bucket="exports", S3Prefix="other", ClientToken="tok-ION")
errors["import_conflict"] = code(c.import_table, S3BucketSource={"S3Bucket": "exports", "S3KeyPrefix": "other"}, InputFormat="ION",
                                 ClientToken="imp-ION", TableCreationParameters=dict(TableName="Elsewhere", **keys))
errors["table_exists"] = code(c.import_table, S3BucketSource={"S3Bucket": "exports"}, InputFormat="CSV",
                              TableCreationParameters=dict(TableName="Songs", **keys))
errors["no_table"] = code(c.export_table_to_point_in_time, TableArn=arn + "x", S3Bucket="exports")
out["errors"] = errors
print(json.dumps(out))
`

// TestBoto3Transfers runs the export and import operations with boto3
// (Python's AWS SDK), which make test installs: exports in both formats,
// their imports, paging, ClientTokens and DynamoDB's error names.
func TestBoto3Transfers(t *testing.T) {
	python := boto3Python(t)
	ts, _, _ := exportServer(t, Config{})
	var got map[string]any
	raw := runBoto3(t, python, boto3TransferScript, ts.URL, nil)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("boto3 output %q: %v", raw, err)
	}
	items := []any{[]any{"a", "1.5", []any{"x", "y"}}, []any{"b", "1.5", []any{"x", "y"}}, []any{"c", "1.5", []any{"x", "y"}}}
	want := map[string]any{
		"exports": []any{
			[]any{"COMPLETED", "DYNAMODB_JSON", 3.0, "p", "datetime", "datetime"},
			[]any{"COMPLETED", "ION", 3.0, "p", "datetime", "datetime"},
		},
		"list_exports": true,
		"imports": []any{
			[]any{"COMPLETED", "DYNAMODB_JSON", 3.0, 0.0, "datetime", items},
			[]any{"COMPLETED", "ION", 3.0, 0.0, "datetime", items},
		},
		"list_imports": []any{"SongsJSON", "SongsION"},
		"errors": map[string]any{
			"no_pitr":          "PointInTimeRecoveryUnavailableException",
			"export_not_found": "ExportNotFoundException",
			"import_not_found": "ImportNotFoundException",
			"export_conflict":  "ExportConflictException",
			"import_conflict":  "ImportConflictException",
			"table_exists":     "ResourceInUseException",
			"no_table":         "TableNotFoundException",
		},
	}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("boto3 (-want +got):\n%s", strings.TrimSpace(d))
	}
}

// ListImports' NextToken satisfies DynamoDB's ImportNextToken (112 to
// 1024 characters of ([0-9a-f]{16})+) and names the import it came from;
// a token off that pattern is refused.
func TestImportNextToken(t *testing.T) {
	for _, id := range []string{"01795917275212-61d54ba8", strings.Repeat("x", 60)} {
		tok := importNextToken(id)
		if len(tok) < 112 || len(tok) > 1024 || len(tok)%16 != 0 || strings.Trim(tok, "0123456789abcdef") != "" {
			t.Errorf("token %q of %q is not an ImportNextToken", tok, id)
		}
		if got, ok := importIDOfToken(tok); !ok || got != id {
			t.Errorf("token of %q decodes to %q, %v", id, got, ok)
		}
	}
	for _, tok := range []string{"", "01795917275212-61d54ba8", strings.Repeat("0", 96), strings.Repeat("A", 112), strings.Repeat("0", 120), strings.Repeat("g", 112)} {
		if _, ok := importIDOfToken(tok); ok {
			t.Errorf("token %q accepted", tok)
		}
	}
}
