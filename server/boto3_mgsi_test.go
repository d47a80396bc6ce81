package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// boto3MGSIScript drives the server with boto3's low-level client from a
// plan on its standard input: create the table, write the items, run
// each query page by page (Limit, ExclusiveStartKey), run the requests
// expected to fail; it prints what came back as JSON.
const boto3MGSIScript = `
import sys, json, boto3
from botocore.exceptions import ClientError
plan = json.load(sys.stdin)
c = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
                 aws_access_key_id="AKIDTEST", aws_secret_access_key="test-secret")
out = {"describe": {}, "queries": {}, "leks": {}, "errors": []}
c.create_table(**plan["table"])
d = c.describe_table(TableName=plan["table"]["TableName"])["Table"]
for g in d["GlobalSecondaryIndexes"]:
    out["describe"][g["IndexName"]] = g["KeySchema"]
for it in plan["items"]:
    c.put_item(TableName=plan["table"]["TableName"], Item=it)
for q in plan["queries"]:
    args = dict(q["args"])
    ids, leks = [], []
    while True:
        r = c.query(**args)
        ids += [i["matchId"]["S"] for i in r["Items"]]
        if "LastEvaluatedKey" not in r:
            break
        leks.append(sorted(r["LastEvaluatedKey"]))
        args["ExclusiveStartKey"] = r["LastEvaluatedKey"]
    out["queries"][q["name"]] = ids
    out["leks"][q["name"]] = leks
for e in plan["errors"]:
    try:
        getattr(c, e["op"])(**e["args"])
        out["errors"].append(["", ""])
    except ClientError as x:
        out["errors"].append([x.response["Error"]["Code"], x.response["Error"]["Message"]])
print(json.dumps(out))
`

// ddbJSON is v in DynamoDB's JSON.
func ddbJSON(v any) map[string]string {
	switch v := v.(type) {
	case int:
		return map[string]string{"N": strconv.Itoa(v)}
	case string:
		return map[string]string{"S": v}
	}
	panic(fmt.Sprintf("ddbJSON %T", v))
}

// TestBoto3MultiAttributeIndex runs the multi-attribute index tests of
// TestSDKMultiAttributeIndex and some of its refusals with boto3 (Python's
// AWS SDK), which `make test` installs.
func TestBoto3MultiAttributeIndex(t *testing.T) {
	python := boto3Python(t)
	ts := newTestServer(t, Config{})

	type keyElem struct{ AttributeName, KeyType string }
	schema := func(ix mgsiIndex) []keyElem {
		var ks []keyElem
		for _, h := range ix.hash {
			ks = append(ks, keyElem{h, "HASH"})
		}
		for _, s := range ix.sort {
			ks = append(ks, keyElem{s, "RANGE"})
		}
		return ks
	}
	var defs []map[string]string
	for _, a := range []string{"matchId", "tournamentId", "region", "round", "bracket", "matchNumber"} {
		defs = append(defs, map[string]string{"AttributeName": a, "AttributeType": string(mgsiDef(a).AttributeType)})
	}
	var gsis []map[string]any
	for _, ix := range []mgsiIndex{mgsiByRegion, mgsiByRound} {
		gsis = append(gsis, map[string]any{"IndexName": ix.name, "KeySchema": schema(ix), "Projection": map[string]string{"ProjectionType": "ALL"}})
	}
	plan := map[string]any{
		"table": map[string]any{"TableName": "PyMatches", "BillingMode": "PAY_PER_REQUEST",
			"KeySchema": []keyElem{{"matchId", "HASH"}}, "AttributeDefinitions": defs, "GlobalSecondaryIndexes": gsis},
	}
	ms := mgsiMatches()
	var items []map[string]map[string]string
	for _, m := range ms {
		it := map[string]map[string]string{}
		for k, v := range m.attrs() {
			it[k] = ddbJSON(v)
		}
		items = append(items, it)
	}
	plan["items"] = items

	type query struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}
	var queries []query
	want := map[string][]string{}
	wantLEK := map[string][]string{}
	for i, q := range mgsiQueries() {
		kce, names, values := q.expression()
		vals := map[string]map[string]string{}
		for k, v := range values {
			vals[k] = ddbJSON(v)
		}
		for _, forward := range []bool{true, false} {
			name := fmt.Sprintf("%d %s forward=%v", i, kce, forward)
			queries = append(queries, query{name, map[string]any{"TableName": "PyMatches", "IndexName": q.ix.name,
				"KeyConditionExpression": kce, "ExpressionAttributeNames": names, "ExpressionAttributeValues": vals,
				"ScanIndexForward": forward, "Limit": 4}})
			want[name] = q.want(ms, forward)
			wantLEK[name] = slices.Compact(slices.Sorted(slices.Values(append(append(slices.Clone(q.ix.hash), q.ix.sort...), "matchId"))))
		}
	}
	plan["queries"] = queries

	type call struct {
		Op   string         `json:"op"`
		Args map[string]any `json:"args"`
	}
	bad := func(keys ...keyElem) call {
		var ds []map[string]string
		for _, k := range append([]keyElem{{"pk", "HASH"}}, keys...) {
			if !slices.ContainsFunc(ds, func(d map[string]string) bool { return d["AttributeName"] == k.AttributeName }) {
				ds = append(ds, map[string]string{"AttributeName": k.AttributeName, "AttributeType": "S"})
			}
		}
		return call{"create_table", map[string]any{"TableName": "PyBad", "BillingMode": "PAY_PER_REQUEST",
			"KeySchema": []keyElem{{"pk", "HASH"}}, "AttributeDefinitions": ds,
			"GlobalSecondaryIndexes": []map[string]any{{"IndexName": "gsi", "KeySchema": keys, "Projection": map[string]string{"ProjectionType": "ALL"}}}}}
	}
	h := func(n string) keyElem { return keyElem{n, "HASH"} }
	r := func(n string) keyElem { return keyElem{n, "RANGE"} }
	query2 := func(kce string, vals map[string]any) call {
		v := map[string]map[string]string{}
		for k, x := range vals {
			v[k] = ddbJSON(x)
		}
		return call{"query", map[string]any{"TableName": "PyMatches", "IndexName": mgsiByRegion.name, "KeyConditionExpression": kce,
			"ExpressionAttributeNames": map[string]string{"#r": "region", "#rd": "round"}, "ExpressionAttributeValues": v}}
	}
	const (
		invalid  = "One or more parameter values were invalid: "
		rangeGap = "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute bracket"
	)
	errCalls := []struct {
		call
		code, msg string
	}{
		{bad(h("a"), h("b"), h("c"), h("d"), h("e")), "ValidationException", invalid + "The KeySchema exceeds the maximum allowed number of HASH key attributes"},
		{bad(h("a"), r("b"), r("c"), r("d"), r("e"), r("f")), "ValidationException", invalid + "The KeySchema exceeds the maximum allowed number of RANGE key attributes"},
		{bad(h("a"), r("b"), h("c")), "ValidationException", invalid + "All HASH key attributes must precede RANGE key attributes in the KeySchema"},
		{query2("tournamentId = :t AND #rd = :rd", map[string]any{":t": "WINTER2024", ":rd": 1}), "ValidationException", "Query condition missed key schema element: region"},
		{query2("tournamentId = :t AND #r = :r AND bracket = :b", map[string]any{":t": "WINTER2024", ":r": "NA-EAST", ":b": "UPPER"}), "ValidationException", rangeGap},
		{query2("tournamentId = :t AND #r = :r AND #rd > :rd AND bracket = :b", map[string]any{":t": "WINTER2024", ":r": "NA-EAST", ":rd": 1, ":b": "UPPER"}), "ValidationException", rangeGap},
	}
	var calls []call
	for _, e := range errCalls {
		calls = append(calls, e.call)
	}
	plan["errors"] = calls

	in, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Describe map[string][]keyElem  `json:"describe"`
		Queries  map[string][]string   `json:"queries"`
		LEKs     map[string][][]string `json:"leks"`
		Errors   [][2]string           `json:"errors"`
	}
	out := runBoto3(t, python, boto3MGSIScript, ts.URL, in)
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("boto3 printed %q: %v", out, err)
	}
	wantDescribe := map[string][]keyElem{mgsiByRegion.name: schema(mgsiByRegion), mgsiByRound.name: schema(mgsiByRound)}
	if diff := gocmp.Diff(wantDescribe, got.Describe); diff != "" {
		t.Errorf("describe_table key schemas (-want +got):\n%s", diff)
	}
	for _, q := range queries {
		if diff := gocmp.Diff(want[q.Name], got.Queries[q.Name], cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("query %s (-want +got):\n%s", q.Name, diff)
		}
		for _, lek := range got.LEKs[q.Name] {
			if !slices.Equal(lek, wantLEK[q.Name]) {
				t.Errorf("query %s: LastEvaluatedKey attributes %v, want %v", q.Name, lek, wantLEK[q.Name])
			}
		}
	}
	if len(got.Errors) != len(errCalls) {
		t.Fatalf("boto3 reported %d errors, want %d", len(got.Errors), len(errCalls))
	}
	for i, e := range errCalls {
		if got.Errors[i] != [2]string{e.code, e.msg} {
			t.Errorf("%s %v: got %q, want %s %q", e.Op, e.Args, got.Errors[i], e.code, e.msg)
		}
	}
}
