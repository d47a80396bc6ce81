package server

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The legacy parameters through the server's handler as raw JSON, with
// the answers the DynamoDB API reference gives (Condition,
// ExpectedAttributeValue, AttributeValueUpdate, Query's KeyConditions)
// and DynamoDB's validation messages.

// legacyServer returns a server with table "Leg" (hash key pk) and table
// "Qry" (hash key pk, range key sk of type N, and a GSI "byTag" with hash
// key tag of type S).
func legacyServer(t testing.TB) *testServer {
	ts := newTestServer(t, Config{})
	ts.mustCall(t, "CreateTable", `{"TableName":"Leg","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`)
	ts.mustCall(t, "CreateTable", `{"TableName":"Qry","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"tag","AttributeType":"S"}],`+
		`"GlobalSecondaryIndexes":[{"IndexName":"byTag","KeySchema":[{"AttributeName":"tag","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}`)
	return ts
}

// keysOf returns the sorted pk values of a Scan or Query response.
func keysOf(out map[string]any) []string {
	keys := []string{}
	items, _ := out["Items"].([]any)
	for _, it := range items {
		keys = append(keys, it.(map[string]any)["pk"].(map[string]any)["S"].(string))
	}
	sort.Strings(keys)
	return keys
}

// operatorItems are one item per attribute type (and one without the
// attribute) that the ComparisonOperator table filters.
var operatorItems = map[string]string{
	"s":       `{"S":"apple"}`,
	"n":       `{"N":"10"}`,
	"b":       `{"B":"YWJj"}`, // "abc"
	"ss":      `{"SS":["apple","kiwi"]}`,
	"ns":      `{"NS":["1","10"]}`,
	"l":       `{"L":[{"S":"apple"},{"N":"10"}]}`,
	"m":       `{"M":{"apple":{"S":"apple"}}}`,
	"bool":    `{"BOOL":true}`,
	"null":    `{"NULL":true}`,
	"missing": ``,
}

func allKeysBut(except ...string) []string {
	var out []string
	for k := range operatorItems {
		if !strings.Contains(" "+strings.Join(except, " ")+" ", " "+k+" ") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestLegacyComparisonOperators filters one item of each type with every
// ComparisonOperator, as ScanFilter, and the same condition as Expected
// of a PutItem on each item. The expected matches are the API reference's
// Condition rules: a value of another type than the argument does not
// match ({"S":"6"} is not {"N":"6"}); EQ and NE take every type,
// "including lists and maps"; NE matches a missing attribute but
// NOT_CONTAINS does not; CONTAINS is a substring of an S, a subsequence of a B, a
// member of a set or an element of a list; BEGINS_WITH takes an S or a B.
func TestLegacyComparisonOperators(t *testing.T) {
	ts := legacyServer(t)
	for k, v := range operatorItems {
		item := `{"pk":{"S":"` + k + `"}`
		if v != "" {
			item += `,"v":` + v
		}
		ts.mustCall(t, "PutItem", `{"TableName":"Leg","Item":`+item+`}}`)
	}
	for _, tc := range []struct {
		name string
		cond string // a Condition
		want []string
	}{
		{"EQ S", `{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"apple"}]}`, []string{"s"}},
		{"EQ N is not a member of NS or L", `{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"10.0"}]}`, []string{"n"}},
		{"EQ S does not match N", `{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"10"}]}`, []string{}},
		{"EQ SS in another order", `{"ComparisonOperator":"EQ","AttributeValueList":[{"SS":["kiwi","apple"]}]}`, []string{"ss"}},
		{"EQ B", `{"ComparisonOperator":"EQ","AttributeValueList":[{"B":"YWJj"}]}`, []string{"b"}},
		{"NE matches other types and a missing attribute", `{"ComparisonOperator":"NE","AttributeValueList":[{"S":"apple"}]}`, allKeysBut("s")},
		{"NE NS", `{"ComparisonOperator":"NE","AttributeValueList":[{"NS":["10","1"]}]}`, allKeysBut("ns")},
		{"EQ L", `{"ComparisonOperator":"EQ","AttributeValueList":[{"L":[{"S":"apple"},{"N":"10"}]}]}`, []string{"l"}},
		{"EQ L is ordered", `{"ComparisonOperator":"EQ","AttributeValueList":[{"L":[{"N":"10"},{"S":"apple"}]}]}`, []string{}},
		{"EQ M", `{"ComparisonOperator":"EQ","AttributeValueList":[{"M":{"apple":{"S":"apple"}}}]}`, []string{"m"}},
		{"EQ M with another value", `{"ComparisonOperator":"EQ","AttributeValueList":[{"M":{"apple":{"S":"kiwi"}}}]}`, []string{}},
		{"EQ BOOL", `{"ComparisonOperator":"EQ","AttributeValueList":[{"BOOL":true}]}`, []string{"bool"}},
		{"EQ BOOL false", `{"ComparisonOperator":"EQ","AttributeValueList":[{"BOOL":false}]}`, []string{}},
		{"EQ NULL", `{"ComparisonOperator":"EQ","AttributeValueList":[{"NULL":true}]}`, []string{"null"}},
		{"NE L", `{"ComparisonOperator":"NE","AttributeValueList":[{"L":[{"S":"apple"},{"N":"10"}]}]}`, allKeysBut("l")},
		{"NE M", `{"ComparisonOperator":"NE","AttributeValueList":[{"M":{"apple":{"S":"apple"}}}]}`, allKeysBut("m")},
		{"NE BOOL", `{"ComparisonOperator":"NE","AttributeValueList":[{"BOOL":true}]}`, allKeysBut("bool")},
		{"NE NULL", `{"ComparisonOperator":"NE","AttributeValueList":[{"NULL":true}]}`, allKeysBut("null")},
		{"LT N", `{"ComparisonOperator":"LT","AttributeValueList":[{"N":"11"}]}`, []string{"n"}},
		{"LT N equal", `{"ComparisonOperator":"LT","AttributeValueList":[{"N":"10"}]}`, []string{}},
		{"LE N", `{"ComparisonOperator":"LE","AttributeValueList":[{"N":"10"}]}`, []string{"n"}},
		{"LT S", `{"ComparisonOperator":"LT","AttributeValueList":[{"S":"b"}]}`, []string{"s"}},
		{"GE S", `{"ComparisonOperator":"GE","AttributeValueList":[{"S":"apple"}]}`, []string{"s"}},
		{"GT S", `{"ComparisonOperator":"GT","AttributeValueList":[{"S":"apple"}]}`, []string{}},
		{"GT B", `{"ComparisonOperator":"GT","AttributeValueList":[{"B":"YWI="}]}`, []string{"b"}},
		{"GE N numeric not textual", `{"ComparisonOperator":"GE","AttributeValueList":[{"N":"9"}]}`, []string{"n"}},
		{"NOT_NULL", `{"ComparisonOperator":"NOT_NULL"}`, allKeysBut("missing")},
		{"NULL", `{"ComparisonOperator":"NULL"}`, []string{"missing"}},
		{"CONTAINS substring", `{"ComparisonOperator":"CONTAINS","AttributeValueList":[{"S":"ppl"}]}`, []string{"s"}},
		{"CONTAINS S in S, SS and L", `{"ComparisonOperator":"CONTAINS","AttributeValueList":[{"S":"apple"}]}`, []string{"l", "s", "ss"}},
		{"CONTAINS N in NS and L", `{"ComparisonOperator":"CONTAINS","AttributeValueList":[{"N":"10"}]}`, []string{"l", "ns"}},
		{"CONTAINS B subsequence", `{"ComparisonOperator":"CONTAINS","AttributeValueList":[{"B":"Yg=="}]}`, []string{"b"}},
		{"NOT_CONTAINS matches other types but not a missing attribute", `{"ComparisonOperator":"NOT_CONTAINS","AttributeValueList":[{"S":"apple"}]}`, allKeysBut("s", "ss", "l", "missing")},
		{"NOT_CONTAINS N", `{"ComparisonOperator":"NOT_CONTAINS","AttributeValueList":[{"N":"1"}]}`, allKeysBut("ns", "missing")},
		{"BEGINS_WITH S", `{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"S":"app"}]}`, []string{"s"}},
		{"BEGINS_WITH B", `{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"B":"YWI="}]}`, []string{"b"}},
		{"IN scalars of one type", `{"ComparisonOperator":"IN","AttributeValueList":[{"S":"kiwi"},{"S":"apple"}]}`, []string{"s"}},
		{"IN N", `{"ComparisonOperator":"IN","AttributeValueList":[{"N":"1e1"}]}`, []string{"n"}},
		{"IN with more values than an expression takes", `{"ComparisonOperator":"IN","AttributeValueList":[` + manyNumbers(150) + `]}`, []string{"n"}},
		{"BETWEEN N inclusive", `{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"5"},{"N":"10"}]}`, []string{"n"}},
		{"BETWEEN S", `{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"S":"a"},{"S":"b"}]}`, []string{"s"}},
		{"BETWEEN B", `{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"B":"YQ=="},{"B":"Yg=="}]}`, []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := ts.mustCall(t, "Scan", `{"TableName":"Leg","ScanFilter":{"v":`+tc.cond+`}}`)
			if diff := cmp.Diff(tc.want, keysOf(out)); diff != "" {
				t.Errorf("ScanFilter mismatch (-want +got):\n%s", diff)
			}
			// The same Condition in Expected passes exactly on those items.
			var passed []string
			for k := range operatorItems {
				code, _, name, msg := ts.call(t, "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"`+k+`"},"v":{"S":"unused"}},"Expected":{"w":{"ComparisonOperator":"NULL"},"v":`+tc.cond+`}}`)
				switch {
				case code == http.StatusOK:
					passed = append(passed, k)
					ts.mustCall(t, "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"`+k+`"}`+itemTail(k)+`}}`) // restore
				case name != "ConditionalCheckFailedException":
					t.Fatalf("PutItem with Expected: %s: %s", name, msg)
				}
			}
			sort.Strings(passed)
			if passed == nil {
				passed = []string{}
			}
			if diff := cmp.Diff(tc.want, passed); diff != "" {
				t.Errorf("Expected mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLegacyOperatorsOnMissingAttribute applies each of the 13
// ComparisonOperators to an attribute the item does not have, as
// ScanFilter, QueryFilter, and Expected of PutItem, UpdateItem and
// DeleteItem. Only NE and NULL hold: the Condition page has a value of
// another type fail every operator but NE, and NOT_CONTAINS fails on a
// missing attribute, so that both CONTAINS and NOT_CONTAINS are false
// there (as ScyllaDB's Alternator tests, run against DynamoDB, record).
func TestLegacyOperatorsOnMissingAttribute(t *testing.T) {
	ts := legacyServer(t)
	const item = `{"pk":{"S":"m"},"sk":{"N":"1"},"a":{"S":"x"}}`
	ts.mustCall(t, "PutItem", `{"TableName":"Qry","Item":`+item+`}`)
	for _, tc := range []struct {
		op, args string
		want     bool
	}{
		{"EQ", `[{"N":"1"}]`, false},
		{"NE", `[{"N":"1"}]`, true},
		{"LE", `[{"N":"1"}]`, false},
		{"LT", `[{"N":"1"}]`, false},
		{"GE", `[{"N":"1"}]`, false},
		{"GT", `[{"N":"1"}]`, false},
		{"NOT_NULL", ``, false},
		{"NULL", ``, true},
		{"CONTAINS", `[{"S":"x"}]`, false},
		{"NOT_CONTAINS", `[{"S":"x"}]`, false},
		{"BEGINS_WITH", `[{"S":"x"}]`, false},
		{"IN", `[{"N":"1"},{"N":"2"}]`, false},
		{"BETWEEN", `[{"N":"1"},{"N":"2"}]`, false},
	} {
		t.Run(tc.op, func(t *testing.T) {
			cond := `{"q":{"ComparisonOperator":"` + tc.op + `"`
			if tc.args != "" {
				cond += `,"AttributeValueList":` + tc.args
			}
			cond += `}}`
			want := 0
			if tc.want {
				want = 1
			}
			for _, req := range []struct{ op, body string }{
				{"Scan", `{"TableName":"Qry","ScanFilter":` + cond + `}`},
				{"Query", `{"TableName":"Qry","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"m"}]}},"QueryFilter":` + cond + `}`},
			} {
				out := ts.mustCall(t, req.op, req.body)
				if got := len(out["Items"].([]any)); got != want {
					t.Errorf("%s: %d items, want %d", req.body, got, want)
				}
			}
			key := `{"pk":{"S":"m"},"sk":{"N":"1"}}`
			for _, req := range []struct{ op, body string }{
				{"PutItem", `{"TableName":"Qry","Item":{"pk":{"S":"m"},"sk":{"N":"1"},"a":{"S":"put"}},"Expected":` + cond + `}`},
				{"UpdateItem", `{"TableName":"Qry","Key":` + key + `,"AttributeUpdates":{"a":{"Action":"PUT","Value":{"S":"updated"}}},"Expected":` + cond + `}`},
				{"DeleteItem", `{"TableName":"Qry","Key":` + key + `,"Expected":` + cond + `}`},
			} {
				code, _, name, msg := ts.call(t, req.op, req.body)
				switch {
				case code == http.StatusOK && tc.want:
				case code != http.StatusOK && !tc.want && name == "ConditionalCheckFailedException":
					got := ts.mustCall(t, "GetItem", `{"TableName":"Qry","Key":`+key+`,"ConsistentRead":true}`)
					if diff := cmp.Diff(mustJSON(t, item), got["Item"]); diff != "" {
						t.Errorf("%s failed its condition but wrote (-want +got):\n%s", req.op, diff)
					}
				default:
					t.Errorf("%s %s: %d %s: %s, want success=%v", req.op, req.body, code, name, msg, tc.want)
				}
				ts.mustCall(t, "PutItem", `{"TableName":"Qry","Item":`+item+`}`) // restore
			}
		})
	}
}

// manyNumbers returns the AttributeValues {"N":"100"} to {"N":"<99+count>"}
// and {"N":"10"} last.
func manyNumbers(count int) string {
	var vs []string
	for i := range count - 1 {
		vs = append(vs, `{"N":"`+strconv.Itoa(100+i)+`"}`)
	}
	return strings.Join(append(vs, `{"N":"10"}`), ",")
}

func itemTail(k string) string {
	if v := operatorItems[k]; v != "" {
		return `,"v":` + v
	}
	return ""
}

// TestLegacyExpected checks Expected's Exists and Value forms and
// ConditionalOperator on PutItem, UpdateItem and DeleteItem: a failed
// condition is a ConditionalCheckFailedException that writes nothing.
func TestLegacyExpected(t *testing.T) {
	ts := legacyServer(t)
	const stored = `{"pk":{"S":"k"},"a":{"S":"x"},"n":{"N":"5"}}`
	for _, tc := range []struct {
		name     string
		expected string
		op       string // ConditionalOperator, "" for none
		pass     bool
	}{
		{"Value alone is EQ", `{"a":{"Value":{"S":"x"}}}`, "", true},
		{"Value alone mismatched", `{"a":{"Value":{"S":"y"}}}`, "", false},
		{"Exists true with Value", `{"a":{"Exists":true,"Value":{"S":"x"}}}`, "", true},
		{"Exists true with a Value of another type", `{"n":{"Exists":true,"Value":{"S":"5"}}}`, "", false},
		{"Exists false on a missing attribute", `{"zz":{"Exists":false}}`, "", true},
		{"Exists false on a present attribute", `{"a":{"Exists":false}}`, "", false},
		{"Value on a missing attribute", `{"zz":{"Value":{"S":"x"}}}`, "", false},
		{"ComparisonOperator with Value", `{"n":{"ComparisonOperator":"GT","Value":{"N":"4"}}}`, "", true},
		{"AND: all must pass", `{"a":{"Value":{"S":"x"}},"n":{"ComparisonOperator":"LT","AttributeValueList":[{"N":"5"}]}}`, "AND", false},
		{"AND is the default", `{"a":{"Value":{"S":"x"}},"n":{"ComparisonOperator":"LT","AttributeValueList":[{"N":"5"}]}}`, "", false},
		{"OR: one suffices", `{"a":{"Value":{"S":"x"}},"n":{"ComparisonOperator":"LT","AttributeValueList":[{"N":"5"}]}}`, "OR", true},
		{"OR: none passes", `{"a":{"Value":{"S":"y"}},"n":{"ComparisonOperator":"LT","AttributeValueList":[{"N":"5"}]}}`, "OR", false},
		{"empty Expected is no condition", `{}`, "", true},
	} {
		for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem"} {
			t.Run(tc.name+"/"+op, func(t *testing.T) {
				ts.mustCall(t, "PutItem", `{"TableName":"Leg","Item":`+stored+`}`)
				body := `{"TableName":"Leg","Expected":` + tc.expected
				if tc.op != "" {
					body += `,"ConditionalOperator":"` + tc.op + `"`
				}
				switch op {
				case "PutItem":
					body += `,"Item":{"pk":{"S":"k"},"a":{"S":"new"}}}`
				case "UpdateItem":
					body += `,"Key":{"pk":{"S":"k"}},"AttributeUpdates":{"a":{"Action":"PUT","Value":{"S":"new"}}}}`
				default:
					body += `,"Key":{"pk":{"S":"k"}}}`
				}
				code, _, name, msg := ts.call(t, op, body)
				got := ts.mustCall(t, "GetItem", `{"TableName":"Leg","Key":{"pk":{"S":"k"}},"ConsistentRead":true}`)
				unchanged := cmp.Equal(got["Item"], mustJSON(t, stored))
				switch {
				case tc.pass && code != http.StatusOK:
					t.Fatalf("%s: %d %s: %s, want success", op, code, name, msg)
				case tc.pass && unchanged:
					t.Errorf("%s succeeded but the item is unchanged", op)
				case !tc.pass && name != "ConditionalCheckFailedException":
					t.Fatalf("%s: %d %s: %s, want ConditionalCheckFailedException", op, code, name, msg)
				case !tc.pass && !unchanged:
					t.Errorf("%s failed its condition but the item is now %v", op, got["Item"])
				}
			})
		}
	}
}

func mustJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestLegacyAttributeUpdates applies each AttributeValueUpdate action to
// an item, with the results the API reference's AttributeValueUpdate page
// gives: PUT replaces; DELETE without a value removes, with a set value
// subtracts (and removes an emptied set); ADD adds to a number, unions a
// set, appends to a list, and creates a missing attribute (a number from
// 0, a set or list as given). Action defaults to PUT.
func TestLegacyAttributeUpdates(t *testing.T) {
	ts := legacyServer(t)
	const start = `{"pk":{"S":"u"},"n":{"N":"5"},"s":{"S":"x"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]}}`
	for _, tc := range []struct {
		name    string
		updates string
		want    string // the item after, or "" when the update must fail
		err     string // the ValidationException message when want is ""
	}{
		{"PUT replaces", `{"s":{"Action":"PUT","Value":{"N":"1"}}}`,
			`{"pk":{"S":"u"},"n":{"N":"5"},"s":{"N":"1"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]}}`, ""},
		{"PUT is the default action", `{"new":{"Value":{"BOOL":true}}}`,
			`{"pk":{"S":"u"},"n":{"N":"5"},"s":{"S":"x"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]},"new":{"BOOL":true}}`, ""},
		{"DELETE without a value removes", `{"s":{"Action":"DELETE"},"nothing":{"Action":"DELETE"}}`,
			`{"pk":{"S":"u"},"n":{"N":"5"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]}}`, ""},
		{"DELETE a set subtracts", `{"ss":{"Action":"DELETE","Value":{"SS":["a","z"]}}}`,
			`{"pk":{"S":"u"},"n":{"N":"5"},"s":{"S":"x"},"ss":{"SS":["b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]}}`, ""},
		{"DELETE every member removes the set", `{"ns":{"Action":"DELETE","Value":{"NS":["2","1"]}}}`,
			`{"pk":{"S":"u"},"n":{"N":"5"},"s":{"S":"x"},"ss":{"SS":["a","b"]},"l":{"L":[{"S":"a"}]}}`, ""},
		{"DELETE from a missing set does nothing", `{"gone":{"Action":"DELETE","Value":{"SS":["a"]}}}`, start, ""},
		{"ADD a number adds", `{"n":{"Action":"ADD","Value":{"N":"-7.5"}}}`,
			`{"pk":{"S":"u"},"n":{"N":"-2.5"},"s":{"S":"x"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]}}`, ""},
		{"ADD a set unions", `{"ss":{"Action":"ADD","Value":{"SS":["b","c"]}}}`,
			`{"pk":{"S":"u"},"n":{"N":"5"},"s":{"S":"x"},"ss":{"SS":["a","b","c"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]}}`, ""},
		{"ADD a list appends", `{"l":{"Action":"ADD","Value":{"L":[{"N":"1"},{"S":"a"}]}}}`,
			`{"pk":{"S":"u"},"n":{"N":"5"},"s":{"S":"x"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"},{"N":"1"},{"S":"a"}]}}`, ""},
		{"ADD creates a missing number, set and list", `{"n2":{"Action":"ADD","Value":{"N":"3"}},"bs":{"Action":"ADD","Value":{"BS":["AQ=="]}},"l2":{"Action":"ADD","Value":{"L":[{"S":"z"}]}}}`,
			`{"pk":{"S":"u"},"n":{"N":"5"},"s":{"S":"x"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]},"n2":{"N":"3"},"bs":{"BS":["AQ=="]},"l2":{"L":[{"S":"z"}]}}`, ""},
		{"several actions at once", `{"n":{"Action":"ADD","Value":{"N":"1"}},"s":{"Action":"DELETE"},"ss":{"Action":"DELETE","Value":{"SS":["a"]}},"t":{"Action":"PUT","Value":{"S":"y"}}}`,
			`{"pk":{"S":"u"},"n":{"N":"6"},"ss":{"SS":["b"]},"ns":{"NS":["1","2"]},"l":{"L":[{"S":"a"}]},"t":{"S":"y"}}`, ""},
		{"ADD a number to a string", `{"s":{"Action":"ADD","Value":{"N":"1"}}}`, "", "Type mismatch for attribute to update"},
		{"ADD a string set to a number set", `{"ns":{"Action":"ADD","Value":{"SS":["1"]}}}`, "", "Type mismatch for attribute to update"},
		{"ADD a list to a number", `{"n":{"Action":"ADD","Value":{"L":[]}}}`, "", "Type mismatch for attribute to update"},
		{"DELETE a number set from a string set", `{"ss":{"Action":"DELETE","Value":{"NS":["1"]}}}`, "", "Type mismatch for attribute to update"},
		{"ADD a string", `{"s":{"Action":"ADD","Value":{"S":"y"}}}`, "", "One or more parameter values were invalid: ADD action is not supported for the type S"},
		{"ADD a map", `{"s":{"Action":"ADD","Value":{"M":{}}}}`, "", "One or more parameter values were invalid: ADD action is not supported for the type M"},
		{"DELETE with a scalar", `{"n":{"Action":"DELETE","Value":{"N":"5"}}}`, "", "One or more parameter values were invalid: DELETE action with value is not supported for the type N"},
		{"PUT without a value", `{"s":{"Action":"PUT"}}`, "", "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{"ADD without a value", `{"n":{"Action":"ADD"}}`, "", "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{"unknown action", `{"n":{"Action":"INCREMENT","Value":{"N":"1"}}}`, "", "1 validation error detected: Value 'INCREMENT' at 'attributeUpdates.n.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"},
		{"PUT the key", `{"pk":{"Action":"PUT","Value":{"S":"v"}}}`, "", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"DELETE the key", `{"pk":{"Action":"DELETE"}}`, "", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"an invalid value", `{"ss":{"Action":"ADD","Value":{"SS":[]}}}`, "", "One or more parameter values were invalid: An string set  may not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts.mustCall(t, "PutItem", `{"TableName":"Leg","Item":`+start+`}`)
			code, _, name, msg := ts.call(t, "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"u"}},"AttributeUpdates":`+tc.updates+`}`)
			got := ts.mustCall(t, "GetItem", `{"TableName":"Leg","Key":{"pk":{"S":"u"}},"ConsistentRead":true}`)["Item"]
			if tc.want == "" {
				if code != http.StatusBadRequest || name != "ValidationException" || msg != tc.err {
					t.Errorf("UpdateItem: %d %s: %q, want ValidationException: %q", code, name, msg, tc.err)
				}
				if diff := cmp.Diff(mustJSON(t, start), got); diff != "" {
					t.Errorf("a rejected update changed the item (-want +got):\n%s", diff)
				}
				return
			}
			if code != http.StatusOK {
				t.Fatalf("UpdateItem: %d %s: %s", code, name, msg)
			}
			if diff := cmp.Diff(mustJSON(t, tc.want), got, sortSets); diff != "" {
				t.Errorf("item after UpdateItem (-want +got):\n%s", diff)
			}
		})
	}
	// On a missing item, the updates create it with the key.
	ts.mustCall(t, "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"fresh"}},"AttributeUpdates":{"c":{"Action":"ADD","Value":{"N":"2"}},"gone":{"Action":"DELETE"}},"ReturnValues":"ALL_NEW"}`)
	got := ts.mustCall(t, "GetItem", `{"TableName":"Leg","Key":{"pk":{"S":"fresh"}},"ConsistentRead":true}`)["Item"]
	if diff := cmp.Diff(mustJSON(t, `{"pk":{"S":"fresh"},"c":{"N":"2"}}`), got); diff != "" {
		t.Errorf("UpdateItem on a missing item (-want +got):\n%s", diff)
	}
	// ReturnValues UPDATED_OLD names the updated attributes whole.
	out := ts.mustCall(t, "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"fresh"}},"AttributeUpdates":{"c":{"Action":"ADD","Value":{"N":"1"}}},"ReturnValues":"UPDATED_OLD"}`)
	if diff := cmp.Diff(mustJSON(t, `{"c":{"N":"2"}}`), out["Attributes"]); diff != "" {
		t.Errorf("UPDATED_OLD (-want +got):\n%s", diff)
	}
}

// sortSets compares sets in any member order.
var sortSets = cmp.Transformer("sortSets", func(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if l, ok := v.([]any); ok && (k == "SS" || k == "NS" || k == "BS") {
			c := append([]any(nil), l...)
			sort.Slice(c, func(i, j int) bool { return c[i].(string) < c[j].(string) })
			v = c
		}
		out[k] = v
	}
	return out
})

// TestLegacyQuery queries table Qry (pk S, sk N) with KeyConditions on
// every operator the range key takes, with a QueryFilter, and with
// AttributesToGet.
func TestLegacyQuery(t *testing.T) {
	ts := legacyServer(t)
	for i, sk := range []string{"1", "2", "3", "10", "20"} {
		ts.mustCall(t, "PutItem", `{"TableName":"Qry","Item":{"pk":{"S":"h"},"sk":{"N":"`+sk+`"},"odd":{"BOOL":`+map[bool]string{true: "true", false: "false"}[i%2 == 0]+`},"tag":{"S":"t`+sk+`"}}}`)
	}
	ts.mustCall(t, "PutItem", `{"TableName":"Qry","Item":{"pk":{"S":"other"},"sk":{"N":"1"}}}`)
	sks := func(out map[string]any) []string {
		got := []string{}
		for _, it := range out["Items"].([]any) {
			got = append(got, it.(map[string]any)["sk"].(map[string]any)["N"].(string))
		}
		return got
	}
	for _, tc := range []struct {
		name string
		body string // members after TableName
		want []string
	}{
		{"hash only", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}}`, []string{"1", "2", "3", "10", "20"}},
		{"EQ", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]},"sk":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"3"}]}}`, []string{"3"}},
		{"LT", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]},"sk":{"ComparisonOperator":"LT","AttributeValueList":[{"N":"3"}]}}`, []string{"1", "2"}},
		{"LE", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]},"sk":{"ComparisonOperator":"LE","AttributeValueList":[{"N":"3"}]}}`, []string{"1", "2", "3"}},
		{"GT numeric order", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]},"sk":{"ComparisonOperator":"GT","AttributeValueList":[{"N":"3"}]}}`, []string{"10", "20"}},
		{"GE", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]},"sk":{"ComparisonOperator":"GE","AttributeValueList":[{"N":"10"}]}}`, []string{"10", "20"}},
		{"BETWEEN", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]},"sk":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"2"},{"N":"10"}]}}`, []string{"2", "3", "10"}},
		{"backwards", `"ScanIndexForward":false,"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}}`, []string{"20", "10", "3", "2", "1"}},
		{"QueryFilter", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"QueryFilter":{"tag":{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"S":"t1"}]}}`, []string{"1", "10"}},
		{"QueryFilter OR", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"ConditionalOperator":"OR","QueryFilter":{"tag":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"t2"}]},"x":{"ComparisonOperator":"NOT_NULL"}}`, []string{"2"}},
		{"QueryFilter EQ BOOL", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"QueryFilter":{"odd":{"ComparisonOperator":"EQ","AttributeValueList":[{"BOOL":true}]}}`, []string{"1", "3", "20"}},
		{"QueryFilter NE BOOL", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"QueryFilter":{"odd":{"ComparisonOperator":"NE","AttributeValueList":[{"BOOL":true}]}}`, []string{"2", "10"}},
		{"QueryFilter EQ L matches no BOOL", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"QueryFilter":{"odd":{"ComparisonOperator":"EQ","AttributeValueList":[{"L":[{"BOOL":true}]}]}}`, []string{}},
		{"QueryFilter NE M matches every item", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"QueryFilter":{"odd":{"ComparisonOperator":"NE","AttributeValueList":[{"M":{}}]}}`, []string{"1", "2", "3", "10", "20"}},
		{"QueryFilter NOT_CONTAINS", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"QueryFilter":{"tag":{"ComparisonOperator":"NOT_CONTAINS","AttributeValueList":[{"S":"1"}]}}`, []string{"2", "3", "20"}},
		{"a GSI's hash key", `"IndexName":"byTag","KeyConditions":{"tag":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"t2"}]}}`, []string{"2"}},
		{"a GSI's hash key with a QueryFilter on the table's range key", `"IndexName":"byTag","KeyConditions":{"tag":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"t2"}]}},"QueryFilter":{"sk":{"ComparisonOperator":"LT","AttributeValueList":[{"N":"3"}]}}`, []string{"2"}},
		{"KeyConditions with a FilterExpression", `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"FilterExpression":"#l0 = :l0","ExpressionAttributeNames":{"#l0":"tag"},"ExpressionAttributeValues":{":l0":{"S":"t3"}}`, []string{"3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := ts.mustCall(t, "Query", `{"TableName":"Qry",`+tc.body+`}`)
			if diff := cmp.Diff(tc.want, sks(out)); diff != "" {
				t.Errorf("Query mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// AttributesToGet with Select SPECIFIC_ATTRIBUTES projects.
	out := ts.mustCall(t, "Scan", `{"TableName":"Qry","ScanFilter":{"sk":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"2"}]}},"AttributesToGet":["tag"],"Select":"SPECIFIC_ATTRIBUTES"}`)
	if diff := cmp.Diff(mustJSON(t, `[{"tag":{"S":"t2"}}]`), out["Items"]); diff != "" {
		t.Errorf("Select SPECIFIC_ATTRIBUTES with AttributesToGet (-want +got):\n%s", diff)
	}
	// AttributesToGet with KeyConditions projects.
	out = ts.mustCall(t, "Query", `{"TableName":"Qry","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]},"sk":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]}},"AttributesToGet":["tag"]}`)
	if diff := cmp.Diff(mustJSON(t, `[{"tag":{"S":"t1"}}]`), out["Items"]); diff != "" {
		t.Errorf("AttributesToGet (-want +got):\n%s", diff)
	}
}

// TestLegacyValidation sends malformed legacy requests; each is a
// ValidationException with DynamoDB's message, and none writes anything.
func TestLegacyValidation(t *testing.T) {
	ts := legacyServer(t)
	const hashEQ = `"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}`
	for _, tc := range []struct {
		name, op, body, want string
	}{
		// Mixing legacy and expression parameters.
		{"Expected with ConditionExpression", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"pk":{"Exists":false}},"ConditionExpression":"attribute_not_exists(pk)"}`,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{"AttributeUpdates and Expected with both expressions", "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"x":{"Value":{"S":"v"}}},"Expected":{"x":{"Exists":false}},"UpdateExpression":"SET x = :v","ConditionExpression":"attribute_exists(x)","ExpressionAttributeValues":{":v":{"S":"v"}}}`,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}"},
		{"ConditionalOperator with ConditionExpression", "DeleteItem", `{"TableName":"Leg","Key":{"pk":{"S":"a"}},"ConditionalOperator":"OR","ConditionExpression":"attribute_exists(x)"}`,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ConditionalOperator} Expression parameters: {ConditionExpression}"},
		{"Query: every legacy with every expression", "Query", `{"TableName":"Qry","AttributesToGet":["a"],"QueryFilter":{"a":{"ComparisonOperator":"NULL"}},"ConditionalOperator":"OR","KeyConditions":{` + hashEQ + `},"ProjectionExpression":"a","FilterExpression":"a = :a","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":a":{"S":"a"},":p":{"S":"h"}}}`,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, QueryFilter, ConditionalOperator, KeyConditions} Expression parameters: {ProjectionExpression, FilterExpression, KeyConditionExpression}"},
		{"Query: KeyConditions may stand beside a FilterExpression, QueryFilter may not", "Query", `{"TableName":"Qry","QueryFilter":{"a":{"ComparisonOperator":"NULL"}},"KeyConditions":{` + hashEQ + `},"FilterExpression":"attribute_exists(b)"}`,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter} Expression parameters: {FilterExpression}"},
		{"Scan: ScanFilter with FilterExpression", "Scan", `{"TableName":"Leg","ScanFilter":{"a":{"ComparisonOperator":"NULL"}},"FilterExpression":"attribute_exists(b)"}`,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ScanFilter} Expression parameters: {FilterExpression}"},
		{"Expected with ExpressionAttributeNames", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"pk":{"Exists":false}},"ExpressionAttributeNames":{"#p":"pk"}}`,
			"ExpressionAttributeNames can only be specified when using expressions"},
		{"AttributeUpdates with ExpressionAttributeValues", "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"x":{"Value":{"S":"v"}}},"ExpressionAttributeValues":{":v":{"S":"v"}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null"},
		{"ExpressionAttributeValues without an expression", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":v":{"S":"v"}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"},
		{"ExpressionAttributeValues with only a ProjectionExpression", "Query", `{"TableName":"Qry","KeyConditions":{` + hashEQ + `},"ProjectionExpression":"a","ExpressionAttributeValues":{":v":{"S":"v"}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null"},
		{"ScanFilter with ExpressionAttributeValues", "Scan", `{"TableName":"Leg","ScanFilter":{"a":{"ComparisonOperator":"NULL"}},"ExpressionAttributeValues":{":v":{"S":"v"}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"},

		// Expected's forms.
		{"Exists false with Value", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Exists":false,"Value":{"S":"v"}}}}`,
			"One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: x"},
		{"Exists true without Value", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Exists":true}}}`,
			"One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: x"},
		{"nothing at all", "DeleteItem", `{"TableName":"Leg","Key":{"pk":{"S":"a"}},"Expected":{"x":{}}}`,
			"One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: x"},
		{"Value with AttributeValueList", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"ComparisonOperator":"EQ","Value":{"S":"v"},"AttributeValueList":[{"S":"v"}]}}}`,
			"One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: x"},
		{"Exists with ComparisonOperator", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"ComparisonOperator":"NULL","Exists":false}}}`,
			"One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: x"},
		{"ComparisonOperator without arguments", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"ComparisonOperator":"LT"}}}`,
			"One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: LT for Attribute: x"},
		{"AttributeValueList without ComparisonOperator", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"AttributeValueList":[{"S":"v"}]}}}`,
			"One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: x"},
		{"Value with BETWEEN", "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"a"}},"Expected":{"x":{"ComparisonOperator":"BETWEEN","Value":{"N":"1"}}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
		{"Value with NULL", "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"a"}},"Expected":{"x":{"ComparisonOperator":"NULL","Value":{"N":"1"}}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
		{"unknown ComparisonOperator", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"ComparisonOperator":"LIKE","AttributeValueList":[{"S":"v"}]}}}`,
			"1 validation error detected: Value 'LIKE' at 'expected.x.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		{"invalid value in Expected", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Value":{"NS":[]}}}}`,
			"One or more parameter values were invalid: An number set  may not be empty"},

		{"empty attribute name", "Scan", `{"TableName":"Leg","ScanFilter":{"":{"ComparisonOperator":"NULL"}}}`,
			"One or more parameter values were invalid: Empty attribute name"},
		{"empty attribute name in AttributeUpdates", "UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"":{"Action":"DELETE"}}}`,
			"One or more parameter values were invalid: Empty attribute name"},

		// ConditionalOperator.
		{"ConditionalOperator not AND or OR", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Exists":false},"y":{"Exists":false}},"ConditionalOperator":"XOR"}`,
			"1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"},
		{"ConditionalOperator without Expected", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"ConditionalOperator":"AND"}`,
			"ConditionalOperator cannot be used without Filter or Expected"},
		{"ConditionalOperator with one condition", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Exists":false}},"ConditionalOperator":"OR"}`,
			"ConditionalOperator can only be used when Filter or Expected has two or more elements"},
		{"ConditionalOperator with one filter", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"NULL"}},"ConditionalOperator":"AND"}`,
			"ConditionalOperator can only be used when Filter or Expected has two or more elements"},
		{"ConditionalOperator on a Query without QueryFilter", "Query", `{"TableName":"Qry","KeyConditions":{` + hashEQ + `},"ConditionalOperator":"AND"}`,
			"ConditionalOperator cannot be used without Filter or Expected"},

		// Conditions' arguments.
		{"EQ with two arguments", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"},{"S":"b"}]}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"},
		{"IN without arguments", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"IN","AttributeValueList":[]}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator"},
		{"NOT_NULL with an argument", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"NOT_NULL","AttributeValueList":[{"S":"a"}]}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the NOT_NULL ComparisonOperator"},
		{"missing ComparisonOperator", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"AttributeValueList":[{"S":"a"}]}}}`,
			"1 validation error detected: Value null at 'scanFilter.x.member.comparisonOperator' failed to satisfy constraint: Member must not be null"},
		{"IN mixed types", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"IN","AttributeValueList":[{"S":"a"},{"N":"1"}]}}}`,
			"One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"},
		{"IN with a set", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"IN","AttributeValueList":[{"SS":["a"]}]}}}`,
			"One or more parameter values were invalid: ComparisonOperator IN is not valid for SS AttributeValue type"},
		{"LT with a BOOL", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"LT","AttributeValueList":[{"BOOL":true}]}}}`,
			"One or more parameter values were invalid: ComparisonOperator LT is not valid for BOOL AttributeValue type"},
		{"CONTAINS with a set", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"CONTAINS","AttributeValueList":[{"NS":["1"]}]}}}`,
			"One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for NS AttributeValue type"},
		{"BEGINS_WITH a number", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"N":"1"}]}}}`,
			"One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"},
		{"NOT_CONTAINS with a list", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"NOT_CONTAINS","AttributeValueList":[{"L":[]}]}}}`,
			"One or more parameter values were invalid: ComparisonOperator NOT_CONTAINS is not valid for L AttributeValue type"},
		{"IN with a map", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"IN","AttributeValueList":[{"M":{}}]}}}`,
			"One or more parameter values were invalid: ComparisonOperator IN is not valid for M AttributeValue type"},
		{"BETWEEN mixed types", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"1"},{"S":"2"}]}}}`,
			"One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"},
		{"BETWEEN bounds reversed", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"10"},{"N":"9"}]}}}`,
			"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},

		// KeyConditions and QueryFilter against the key schema.
		{"no key condition", "Query", `{"TableName":"Qry"}`,
			"Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."},
		{"three KeyConditions", "Query", `{"TableName":"Qry","KeyConditions":{` + hashEQ + `,"sk":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]},"x":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]}}}`,
			"Conditions can be of length 1 or 2 only"},
		{"hash key missing", "Query", `{"TableName":"Qry","KeyConditions":{"sk":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]}}}`,
			"Query condition missed key schema element: pk"},
		{"range key misnamed", "Query", `{"TableName":"Qry","KeyConditions":{` + hashEQ + `,"x":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]}}}`,
			"Query condition missed key schema element: sk"},
		{"two conditions on a hash-only table", "Query", `{"TableName":"Leg","KeyConditions":{` + hashEQ + `,"x":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]}}}`,
			"Query key condition not supported"},
		{"hash key not EQ", "Query", `{"TableName":"Qry","KeyConditions":{"pk":{"ComparisonOperator":"GT","AttributeValueList":[{"S":"h"}]}}}`,
			"Query key condition not supported"},
		{"not indexable", "Query", `{"TableName":"Qry","KeyConditions":{` + hashEQ + `,"sk":{"ComparisonOperator":"NE","AttributeValueList":[{"N":"1"}]}}}`,
			"Attempted conditional constraint is not an indexable operation"},
		{"key type mismatch", "Query", `{"TableName":"Qry","KeyConditions":{` + hashEQ + `,"sk":{"ComparisonOperator":"GT","AttributeValueList":[{"S":"1"}]}}}`,
			"One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"QueryFilter on a key", "Query", `{"TableName":"Qry","KeyConditions":{` + hashEQ + `},"QueryFilter":{"sk":{"ComparisonOperator":"GT","AttributeValueList":[{"N":"1"}]}}}`,
			"QueryFilter can only contain non-primary key attributes: Primary key attribute: sk"},
		{"GSI: the table's hash key is not the index's", "Query", `{"TableName":"Qry","IndexName":"byTag","KeyConditions":{` + hashEQ + `}}`,
			"Query condition missed key schema element: tag"},
		{"GSI: QueryFilter on the index key", "Query", `{"TableName":"Qry","IndexName":"byTag","KeyConditions":{"tag":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"t"}]}},"QueryFilter":{"tag":{"ComparisonOperator":"NOT_NULL"}}}`,
			"QueryFilter can only contain non-primary key attributes: Primary key attribute: tag"},
		{"AttributesToGet with Select COUNT", "Scan", `{"TableName":"Leg","AttributesToGet":["a"],"Select":"COUNT"}`,
			"Cannot specify the AttributesToGet when choosing to get only the Count"},
		{"AttributesToGet with Select ALL_ATTRIBUTES", "Query", `{"TableName":"Qry","KeyConditions":{` + hashEQ + `},"AttributesToGet":["a"],"Select":"ALL_ATTRIBUTES"}`,
			"1 validation error detected: Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES"},
		{"AttributesToGet with Select ALL_PROJECTED_ATTRIBUTES", "Query", `{"TableName":"Qry","IndexName":"byTag","KeyConditions":{"tag":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"t"}]}},"AttributesToGet":["a"],"Select":"ALL_PROJECTED_ATTRIBUTES"}`,
			"1 validation error detected: Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES"},
		{"AttributesToGet duplicated", "Scan", `{"TableName":"Leg","ScanFilter":{"x":{"ComparisonOperator":"NULL"}},"AttributesToGet":["a","a"]}`,
			"One or more parameter values were invalid: Duplicate value in attribute name: a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, name, msg := ts.call(t, tc.op, tc.body)
			if code != http.StatusBadRequest || name != "ValidationException" || msg != tc.want {
				t.Errorf("%s: %d %s: %q\nwant ValidationException: %q", tc.op, code, name, msg, tc.want)
			}
		})
	}
	if out := ts.mustCall(t, "Scan", `{"TableName":"Leg"}`); len(keysOf(out)) != 0 {
		t.Errorf("rejected requests wrote %v", keysOf(out))
	}
	// Wrong JSON shapes are SerializationExceptions.
	for _, body := range []string{
		`{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":[]}`,
		`{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Exists":"yes"}}}`,
		`{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Value":{"S":1}}}}`,
		`{"TableName":"Leg","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Exists":false},"y":{"Exists":false}},"ConditionalOperator":1}`,
	} {
		if code, _, name, msg := ts.call(t, "PutItem", body); code != http.StatusBadRequest || name != "SerializationException" {
			t.Errorf("PutItem %s: %d %s: %s, want SerializationException", body, code, name, msg)
		}
	}
}

// DynamoDB validates a request before it looks the table up: a legacy
// request that breaks a rule is a ValidationException even on a table
// that does not exist.
func TestLegacyValidationBeforeTable(t *testing.T) {
	ts := legacyServer(t)
	for _, tc := range []struct{ op, body, want string }{
		{"PutItem", `{"TableName":"Nope","Item":{"pk":{"S":"a"}},"Expected":{"x":{"Exists":true}}}`,
			"One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: x"},
		{"UpdateItem", `{"TableName":"Nope","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"x":{"Action":"ADD","Value":{"S":"s"}}}}`,
			"One or more parameter values were invalid: ADD action is not supported for the type S"},
		{"Scan", `{"TableName":"Nope","ScanFilter":{"x":{"ComparisonOperator":"EQ"}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"},
		{"Query", `{"TableName":"Nope","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"ConditionalOperator":"OR"}`,
			"ConditionalOperator cannot be used without Filter or Expected"},
		{"DeleteItem", `{"TableName":"Nope","Key":{"pk":{"S":"a"}},"Expected":{"x":{"Exists":false}},"ConditionExpression":"attribute_exists(x)"}`,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
	} {
		if code, _, name, msg := ts.call(t, tc.op, tc.body); code != http.StatusBadRequest || name != "ValidationException" || msg != tc.want {
			t.Errorf("%s: %d %s: %q\nwant ValidationException: %q", tc.op, code, name, msg, tc.want)
		}
	}
}

// TestLegacyQueryStringRange queries a string sort key with BEGINS_WITH
// and the orderings, which compare strings bytewise.
func TestLegacyQueryStringRange(t *testing.T) {
	ts := legacyServer(t)
	ts.mustCall(t, "CreateTable", `{"TableName":"Str","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}]}`)
	for _, sk := range []string{"a1", "a10", "a2", "B", "b1"} {
		ts.mustCall(t, "PutItem", `{"TableName":"Str","Item":{"pk":{"S":"h"},"sk":{"S":"`+sk+`"}}}`)
	}
	const hash = `"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}`
	for _, tc := range []struct {
		name, cond string
		want       []string
	}{
		{"BEGINS_WITH", `{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"S":"a1"}]}`, []string{"a1", "a10"}},
		{"LT is bytewise", `{"ComparisonOperator":"LT","AttributeValueList":[{"S":"a2"}]}`, []string{"B", "a1", "a10"}},
		{"GT", `{"ComparisonOperator":"GT","AttributeValueList":[{"S":"a2"}]}`, []string{"b1"}},
		{"BETWEEN", `{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"S":"a10"},{"S":"b"}]}`, []string{"a10", "a2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := ts.mustCall(t, "Query", `{"TableName":"Str","KeyConditions":{`+hash+`,"sk":`+tc.cond+`}}`)
			got := []string{}
			for _, it := range out["Items"].([]any) {
				got = append(got, it.(map[string]any)["sk"].(map[string]any)["S"].(string))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Query mismatch (-want +got):\n%s", diff)
			}
		})
	}
	code, _, name, msg := ts.call(t, "Query", `{"TableName":"Str","KeyConditions":{`+hash+`,"sk":{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"B":"YQ=="}]}}}`)
	if code != http.StatusBadRequest || msg != "One or more parameter values were invalid: Condition parameter type does not match schema type" {
		t.Errorf("BEGINS_WITH a B on an S sort key: %d %s: %s", code, name, msg)
	}
}
