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
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %s: status %d, body %q is not a JSON object: %v", r.op, body, rec.Code, rec.Body, err)
		}
		if rec.Code == http.StatusOK {
			return
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %s: status %d %s", r.op, body, rec.Code, rec.Body)
		}
		msg, _ := out["message"].(string)
		if m := placeholderRE.FindString(msg); m != "" && !strings.Contains(string(member), m) {
			t.Fatalf("%s %s: the message names a placeholder of the translation: %s", r.op, body, msg)
		}
		if strings.HasPrefix(msg, "Invalid ") && strings.Contains(msg, "Expression: ") &&
			!strings.Contains(msg, "Expression size has exceeded") && !strings.Contains(msg, "too many operators") && !strings.Contains(msg, "too many operands") {
			t.Fatalf("%s %s: the translation was refused: %s", r.op, body, msg)
		}
	})
}
