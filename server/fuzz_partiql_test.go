package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzPartiQLRequest sends arbitrary bodies to the three PartiQL
// operations: every answer is a JSON object, 200 or a 4xx with a
// __type, never a 500 or a crash.
func FuzzPartiQLRequest(f *testing.F) {
	ts := newTestServer(f, Config{})
	create := `{"TableName":"Fuzz","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}]}`
	if status, name, msg := ts.post(f, targetPrefix+"CreateTable", contentType, strings.NewReader(create)); status != 200 {
		f.Fatalf("CreateTable: %d %s %s", status, name, msg)
	}
	ops := []string{"ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction"}
	for i, body := range []string{
		`{"Statement":"INSERT INTO \"Fuzz\" VALUE {'pk': ?, 'sk': 1, 'l': [1, <<'a'>>, {'m': NULL}]}","Parameters":[{"S":"a"}]}`,
		`{"Statements":[{"Statement":"SELECT * FROM \"Fuzz\" WHERE pk = 'a' AND sk = 1"},{"Statement":"SELECT * FROM Nope WHERE pk = 'a'"}]}`,
		`{"TransactStatements":[{"Statement":"UPDATE \"Fuzz\" SET n = n + 1 REMOVE l WHERE pk = ? AND sk = 1","Parameters":[{"S":"a"}]}],"ClientRequestToken":"t"}`,
		`{"Statement":"SELECT pk, l[0] FROM \"Fuzz\" WHERE pk IN ['a', 'b'] AND sk BETWEEN 0 AND 9 ORDER BY sk DESC","Limit":1,"ReturnConsumedCapacity":"TOTAL"}`,
		`{"Statements":[{"Statement":"DELETE FROM \"Fuzz\" WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}]}`,
		`{"TransactStatements":[{"Statement":"EXISTS(SELECT * FROM \"Fuzz\" WHERE pk = 'a' AND sk = 1)"}]}`,
		`{"Statement":"SELECT * FROM \"Fuzz\" WHERE pk = 'a'","NextToken":"AQA"}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		name := ops[int(op)%len(ops)]
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("X-Amz-Target", targetPrefix+name)
		rec := httptest.NewRecorder()
		ts.Server.ServeHTTP(rec, req)
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %q: status %d, body %q is not a JSON object: %v", name, body, rec.Code, rec.Body, err)
		}
		switch {
		case rec.Code == http.StatusOK:
		case rec.Code >= 400 && rec.Code < 500:
			if typ, _ := out["__type"].(string); !strings.Contains(typ, "#") {
				t.Fatalf("%s %q: status %d without a __type: %s", name, body, rec.Code, rec.Body)
			}
		default:
			t.Fatalf("%s %q: status %d: %s\n%s", name, body, rec.Code, rec.Body, ts.logs.String())
		}
	})
}
