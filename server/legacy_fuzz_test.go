package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// placeholderRE matches the translation's placeholders (legacy.go).
var placeholderRE = regexp.MustCompile(`[#:]l_*[0-9]+`)

// FuzzLegacy sends arbitrary JSON as one legacy member of a request
// (which member is chosen by kind) through ServeHTTP, on tables that
// exist. The legacy decoder, validator and translation never panic and
// never answer 500; a request they accept never fails in a way that
// shows the translation: no ValidationException names a placeholder of
// it, and none is an "Invalid ...Expression" message other than the
// expression limits a very large legacy request can reach (see
// docs/differences.md). Seeds are in testdata/fuzz/FuzzLegacy.
func FuzzLegacy(f *testing.F) {
	ts := legacyServer(f)
	ts.mustCall(f, "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"},"n":{"N":"1"},"ss":{"SS":["x"]},"l":{"L":[]}}}`)
	ts.mustCall(f, "PutItem", `{"TableName":"Qry","Item":{"pk":{"S":"h"},"sk":{"N":"1"},"a":{"S":"x"}}}`)
	requests := []struct{ op, template string }{
		{"Scan", `{"TableName":"Leg","ScanFilter":%s}`},
		{"Scan", `{"TableName":"Leg","ConditionalOperator":"OR","AttributesToGet":["n","l"],"ScanFilter":%s}`},
		{"PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"a"},"n":{"N":"1"}},"Expected":%s}`},
		{"DeleteItem", `{"TableName":"Leg","Key":{"pk":{"S":"zz"}},"ConditionalOperator":"OR","Expected":%s}`},
		{"UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"a"}},"AttributeUpdates":%s}`},
		{"UpdateItem", `{"TableName":"Leg","Key":{"pk":{"S":"b"}},"Expected":{"pk":{"Exists":false}},"ReturnValues":"ALL_NEW","AttributeUpdates":%s}`},
		{"Query", `{"TableName":"Qry","KeyConditions":%s}`},
		{"Query", `{"TableName":"Qry","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}},"QueryFilter":%s}`},
	}
	f.Fuzz(func(t *testing.T, kind uint8, member []byte) {
		r := requests[int(kind)%len(requests)]
		body := strings.Replace(r.template, "%s", string(member), 1)
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("X-Amz-Target", targetPrefix+r.op)
		rec := httptest.NewRecorder()
		ts.Server.ServeHTTP(rec, req)
		checkLegacyAnswer(t, r.op, body, member, rec)
	})
}

// FuzzLegacyMultiKey sends arbitrary JSON as the KeyConditions of a Query
// of a global secondary index with a multi-attribute key (two partition
// and two sort attributes), with FuzzLegacy's checks. Seeds are in
// testdata/fuzz/FuzzLegacyMultiKey.
func FuzzLegacyMultiKey(f *testing.F) {
	ts := newTestServer(f, Config{})
	ts.mustCall(f, "CreateTable", `{"TableName":"Multi","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"a","AttributeType":"S"},{"AttributeName":"b","AttributeType":"N"},{"AttributeName":"c","AttributeType":"S"},{"AttributeName":"d","AttributeType":"B"}],`+
		`"GlobalSecondaryIndexes":[{"IndexName":"byABCD","KeySchema":[{"AttributeName":"a","KeyType":"HASH"},{"AttributeName":"b","KeyType":"HASH"},{"AttributeName":"c","KeyType":"RANGE"},{"AttributeName":"d","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}`)
	ts.mustCall(f, "PutItem", `{"TableName":"Multi","Item":{"pk":{"S":"p"},"a":{"S":"x"},"b":{"N":"1"},"c":{"S":"c"},"d":{"B":"AQ=="}}}`)
	f.Fuzz(func(t *testing.T, member []byte) {
		body := `{"TableName":"Multi","IndexName":"byABCD","KeyConditions":` + string(member) + `}`
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("X-Amz-Target", targetPrefix+"Query")
		rec := httptest.NewRecorder()
		ts.Server.ServeHTTP(rec, req)
		checkLegacyAnswer(t, "Query", body, member, rec)
	})
}

// checkLegacyAnswer applies FuzzLegacy's checks to the answer rec to a
// request body of operation op whose legacy member is member.
func checkLegacyAnswer(t *testing.T, op, body string, member []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: status %d, body %q is not a JSON object: %v", op, body, rec.Code, rec.Body, err)
	}
	if rec.Code == http.StatusOK {
		return
	}
	if rec.Code >= 500 {
		t.Fatalf("%s %s: status %d %s", op, body, rec.Code, rec.Body)
	}
	msg, _ := out["message"].(string)
	if m := placeholderRE.FindString(msg); m != "" && !strings.Contains(string(member), m) {
		t.Fatalf("%s %s: the message names a placeholder of the translation: %s", op, body, msg)
	}
	if strings.HasPrefix(msg, "Invalid ") && strings.Contains(msg, "Expression: ") &&
		!strings.Contains(msg, "Expression size has exceeded") && !strings.Contains(msg, "too many operators") && !strings.Contains(msg, "too many operands") {
		t.Fatalf("%s %s: the translation was refused: %s", op, body, msg)
	}
}
