package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzRequest sends arbitrary bodies to every operation, the streams API
// included (seeds in the order of ops), through
// ServeHTTP, on a table that exists: the server never panics and never
// answers 500 (every bad input is the client's error, 4xx, with
// DynamoDB's error body), and a 200 answer is a JSON object.
func FuzzRequest(f *testing.F) {
	ts := newTestServer(f, Config{})
	create := `{"TableName":"Fuzz","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}]}`
	ts.mustCall(f, "CreateTable", create)
	// The table has a stream, and the GetRecords seed a valid iterator.
	enable := `{"TableName":"Fuzz","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`
	ts.mustCall(f, "UpdateTable", enable)
	streamARN := ts.streamARN("Fuzz")
	iter := ts.encodeIterator(shardIterator{table: "Fuzz", expires: time.Now().Add(time.Hour)})
	ops := []string{"CreateTable", "DeleteTable", "DescribeTable", "ListTables", "PutItem", "GetItem", "UpdateItem", "DeleteItem", "Query", "Scan",
		"UpdateTable", "BatchGetItem", "BatchWriteItem", "TransactWriteItems", "TransactGetItems", "UpdateTimeToLive", "DescribeTimeToLive",
		streamsTargetPrefix + "ListStreams", streamsTargetPrefix + "DescribeStream", streamsTargetPrefix + "GetShardIterator", streamsTargetPrefix + "GetRecords",
		"UpdateTable"}
	for i, body := range []string{
		create,
		`{"TableName":"Gone"}`,
		`{"TableName":"Fuzz"}`,
		`{"Limit":1,"ExclusiveStartTableName":"A"}`,
		`{"TableName":"Fuzz","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"l":{"L":[{"M":{"x":{"NS":["1","2"]}}}]}},"ConditionExpression":"attribute_not_exists(pk)","ReturnValues":"ALL_OLD"}`,
		`{"TableName":"Fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ProjectionExpression":"l[0].x","ReturnConsumedCapacity":"TOTAL"}`,
		`{"TableName":"Fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"ADD n :one SET s = :s","ExpressionAttributeValues":{":one":{"N":"1"},":s":{"SS":["x"]}},"ReturnValues":"UPDATED_NEW"}`,
		`{"TableName":"Fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConditionExpression":"n > :z","ExpressionAttributeValues":{":z":{"N":"5"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`,
		`{"TableName":"Fuzz","KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","ExpressionAttributeValues":{":p":{"S":"a"},":a":{"N":"0"},":b":{"N":"9"}},"Limit":1,"ScanIndexForward":false}`,
		`{"TableName":"Fuzz","Segment":0,"TotalSegments":2,"FilterExpression":"attribute_exists(n)","Select":"COUNT","ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"1"}}}`,
		`{"TableName":"Fuzz","AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["n"]}}}]}`,
		`{"RequestItems":{"Fuzz":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"b"},"sk":{"N":"2"}}],"ProjectionExpression":"#n","ExpressionAttributeNames":{"#n":"n"}}}}`,
		`{"RequestItems":{"Fuzz":[{"PutRequest":{"Item":{"pk":{"S":"b"},"sk":{"N":"2"},"g":{"S":"x"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"c"},"sk":{"N":"3"}}}}]}}`,
		`{"ClientRequestToken":"tok","TransactItems":[{"ConditionCheck":{"TableName":"Fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConditionExpression":"attribute_exists(pk)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},{"Update":{"TableName":"Fuzz","Key":{"pk":{"S":"b"},"sk":{"N":"2"}},"UpdateExpression":"ADD n :one","ExpressionAttributeValues":{":one":{"N":"1"}}}}]}`,
		`{"TransactItems":[{"Get":{"TableName":"Fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ProjectionExpression":"l"}}]}`,
		`{"TableName":"Fuzz","TimeToLiveSpecification":{"AttributeName":"exp","Enabled":true}}`,
		`{"TableName":"Fuzz"}`,
		`{"TableName":"Fuzz","Limit":1,"ExclusiveStartStreamArn":"` + streamARN + `"}`,
		`{"StreamArn":"` + streamARN + `","Limit":1,"ExclusiveStartShardId":"shardId-0"}`,
		`{"StreamArn":"` + streamARN + `","ShardId":"` + shardID + `","ShardIteratorType":"AT_SEQUENCE_NUMBER","SequenceNumber":"00000000000000000000000000001"}`,
		`{"ShardIterator":"` + iter + `","Limit":2}`,
		`{"TableName":"Fuzz","StreamSpecification":{"StreamEnabled":false}}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	// Bodies that are not UTF-8 text, for PutItem and GetItem.
	f.Add(uint8(4), []byte("{\"TableName\":\"Fuzz\",\"Item\":{\"pk\":{\"S\":\"\xc3\"},\"sk\":{\"N\":\"1\"}}}"))
	f.Add(uint8(5), []byte(`{"TableName":"Fuzz","Key":{"pk":{"S":"\udc80"},"sk":{"N":"1"}}}`))
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		name := ops[int(op)%len(ops)]
		if name == "DeleteTable" && strings.Contains(string(body), `"Fuzz"`) {
			return // keep the table the other inputs use
		}
		target := targetPrefix + name
		if strings.HasPrefix(name, streamsTargetPrefix) {
			target = name
		}
		checkWireAnswer(t, ts, target, body)
	})
}

// checkWireAnswer posts body to ts as operation target and fails t unless
// the answer is a JSON object with status 200 (an empty body for the
// operations whose output has no members, TagResource and UntagResource),
// or a 4xx carrying DynamoDB's __type: whatever the bytes, never a 500 or
// a broken answer.
func checkWireAnswer(t *testing.T, ts *testServer, target string, body []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", target)
	rec := httptest.NewRecorder()
	ts.Server.ServeHTTP(rec, req)
	if rec.Code == http.StatusOK && rec.Body.Len() == 0 &&
		(target == targetPrefix+"TagResource" || target == targetPrefix+"UntagResource") {
		return
	}
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %q: status %d, body %q is not a JSON object: %v", target, body, rec.Code, rec.Body, err)
	}
	typ, _ := out["__type"].(string)
	if !utf8.Valid(body) && (rec.Code != http.StatusBadRequest || !strings.HasSuffix(typ, "#SerializationException")) {
		// DynamoDB refuses a body that is not UTF-8; rewriting it would
		// change the data.
		t.Fatalf("%s %q is not UTF-8 but answered %d %s", target, body, rec.Code, rec.Body)
	}
	switch {
	case rec.Code == http.StatusOK:
	case rec.Code >= 400 && rec.Code < 500:
		if typ, _ := out["__type"].(string); !strings.Contains(typ, "#") {
			t.Fatalf("%s %q: status %d without a __type: %s", target, body, rec.Code, rec.Body)
		}
	default:
		t.Fatalf("%s %q: status %d: %s\n%s", target, body, rec.Code, rec.Body, ts.logs.String())
	}
}
