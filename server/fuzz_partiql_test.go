package server

import "testing"

// FuzzPartiQLRequest sends arbitrary bodies to the three PartiQL
// operations: every answer is a JSON object, 200 or a 4xx with a
// __type, never a 500 or a crash.
func FuzzPartiQLRequest(f *testing.F) {
	ts := newTestServer(f, Config{})
	create := `{"TableName":"Fuzz","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}]}`
	ts.mustCall(f, "CreateTable", create)
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
		checkWireAnswer(t, ts, targetPrefix+name, body)
	})
}
