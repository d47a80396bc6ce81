package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Malformed requests, sent as raw HTTP: each gets DynamoDB's error and
// status, never a crash, and the server keeps serving.
func TestMalformedRequests(t *testing.T) {
	ts := newTestServer(t, Config{})
	const ct = "application/x-amz-json-1.0"
	create := `{"TableName":"Raw","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`
	ts.mustCall(t, "CreateTable", create)
	deep := `{"TableName":"Raw","Item":{"pk":{"S":"a"},"x":` + strings.Repeat(`{"L":[`, 40) + `{"S":"x"}` + strings.Repeat(`]}`, 40) + `}}`
	for _, tc := range []struct {
		name, target, contentType, body string
		status                          int
		errName, msg                    string
	}{
		{"unknown operation", "DynamoDB_20120810.FlyToTheMoon", ct, `{}`, 400, "UnknownOperationException", "FlyToTheMoon"},
		{"no target", "", ct, `{}`, 400, "UnknownOperationException", ""},
		{"another service", "Kinesis_20131202.ListStreams", ct, `{}`, 400, "UnknownOperationException", ""},
		{"unknown streams operation", streamsTargetPrefix + "DescribeShard", ct, `{}`, 400, "UnknownOperationException", "DescribeShard"},
		{"GetRecords without iterator", streamsTargetPrefix + "GetRecords", ct, `{}`, 400, "ValidationException", "'shardIterator' failed to satisfy constraint: Member must not be null"},
		{"GetRecords iterator a number", streamsTargetPrefix + "GetRecords", ct, `{"ShardIterator":5}`, 400, "SerializationException", "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{"DescribeStream without ARN", streamsTargetPrefix + "DescribeStream", ct, `{}`, 400, "ValidationException", "'streamArn' failed to satisfy constraint"},
		{"ListStreams Limit 0", streamsTargetPrefix + "ListStreams", ct, `{"Limit":0}`, 400, "ValidationException", "between 1 and 100"},
		{"wrong content type", targetPrefix + "ListTables", "text/plain", `{}`, 400, "UnknownOperationException", "Content-Type"},
		{"no content type", targetPrefix + "ListTables", "", `{}`, 400, "UnknownOperationException", "Content-Type"},
		{"malformed JSON", targetPrefix + "PutItem", ct, `{"TableName":`, 400, "SerializationException", ""},
		{"empty body", targetPrefix + "GetItem", ct, ``, 400, "SerializationException", ""},
		{"body not an object", targetPrefix + "GetItem", ct, `[1,2]`, 400, "SerializationException", "Start of list found where not expected"},
		{"TableName a number", targetPrefix + "DescribeTable", ct, `{"TableName":5}`, 400, "SerializationException", "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{"TableName a boolean", targetPrefix + "DescribeTable", ct, `{"TableName":true}`, 400, "SerializationException", "class java.lang.Boolean can not be converted to an String"},
		{"TableName an object", targetPrefix + "DescribeTable", ct, `{"TableName":{}}`, 400, "SerializationException", "Start of structure or map found where not expected"},
		{"ConsistentRead a string", targetPrefix + "GetItem", ct, `{"TableName":"Raw","Key":{"pk":{"S":"a"}},"ConsistentRead":"yes"}`, 400, "SerializationException", "class java.lang.String can not be converted to an Boolean"},
		{"Limit a string", targetPrefix + "Scan", ct, `{"TableName":"Raw","Limit":"5"}`, 400, "SerializationException", "class java.lang.String can not be converted to an Integer"},
		{"Item an array", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":[]}`, 400, "SerializationException", "Start of list found where not expected"},
		{"M an array", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":{"pk":{"S":"a"},"m":{"M":[]}}}`, 400, "SerializationException", "Start of list found where not expected"},
		{"L an object", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":{"pk":{"S":"a"},"l":{"L":{}}}}`, 400, "SerializationException", "Start of structure or map found where not expected"},
		{"BOOL a string", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":{"pk":{"S":"a"},"b":{"BOOL":"true"}}}`, 400, "SerializationException", "class java.lang.String can not be converted to an Boolean"},
		{"N a JSON number", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":{"pk":{"S":"a"},"n":{"N":1}}}`, 400, "SerializationException", "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{"empty AttributeValue", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":{"pk":{}}}`, 400, "ValidationException", "Supplied AttributeValue is empty"},
		{"two types", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":{"pk":{"S":"a","N":"1"}}}`, 400, "ValidationException", "more than one datatypes"},
		{"NULL false", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":{"pk":{"S":"a"},"z":{"NULL":false}}}`, 400, "ValidationException", "Null attribute value"},
		{"bad base64", targetPrefix + "PutItem", ct, `{"TableName":"Raw","Item":{"pk":{"S":"a"},"b":{"B":"%%%"}}}`, 400, "SerializationException", "Base64"},
		{"nested too deep", targetPrefix + "PutItem", ct, deep, 400, "ValidationException", "Nesting Levels"},
		{"no TableName", targetPrefix + "GetItem", ct, `{"Key":{"pk":{"S":"a"}}}`, 400, "ValidationException", "'tableName' failed to satisfy constraint: Member must not be null"},
		{"no Key", targetPrefix + "GetItem", ct, `{"TableName":"Raw"}`, 400, "ValidationException", "'key' failed to satisfy constraint"},
		{"no Item", targetPrefix + "PutItem", ct, `{"TableName":"Raw"}`, 400, "ValidationException", "'item' failed to satisfy constraint"},
		{"bad table name", targetPrefix + "DescribeTable", ct, `{"TableName":"a b"}`, 400, "ValidationException", ""},
		{"missing table", targetPrefix + "DescribeTable", ct, `{"TableName":"Nope"}`, 400, "ResourceNotFoundException", "Nope"},
		{"application/json accepted", targetPrefix + "ListTables", "application/json", `{}`, 200, "", ""},
		{"table ARN accepted", targetPrefix + "DescribeTable", ct, `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/Raw"}`, 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, name, msg := ts.post(t, tc.target, tc.contentType, strings.NewReader(tc.body))
			if status != tc.status || name != tc.errName || !strings.Contains(msg, tc.msg) {
				t.Errorf("got %d %s %q, want %d %s containing %q", status, name, msg, tc.status, tc.errName, tc.msg)
			}
		})
	}
	t.Run("GET health check", func(t *testing.T) {
		resp, err := ts.http.Client().Get(ts.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := "healthy: " + strings.TrimPrefix(ts.URL, "http://"); resp.StatusCode != 200 || string(body) != want {
			t.Errorf("GET /: %d %q", resp.StatusCode, body)
		}
	})
	t.Run("PUT", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPut, ts.URL, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("X-Amz-Target", targetPrefix+"ListTables")
		status, name, _ := doRaw(t, ts.http.Client(), req)
		if status != 400 || name != "UnknownOperationException" {
			t.Errorf("PUT: %d %s", status, name)
		}
	})
	t.Run("body over 16 MB", func(t *testing.T) {
		// A body that declares its size is refused before it is read; one
		// streamed without a length is cut at the limit.
		big := bytes.Repeat([]byte(" "), MaxRequestBodySize+1)
		status, name, _ := ts.post(t, targetPrefix+"ListTables", ct, bytes.NewReader(big))
		if status != 413 || name != "RequestEntityTooLargeException" {
			t.Errorf("declared 16 MB + 1: %d %s", status, name)
		}
		status, name, _ = ts.post(t, targetPrefix+"ListTables", ct, io.MultiReader(bytes.NewReader(big)))
		if status != 413 || name != "RequestEntityTooLargeException" {
			t.Errorf("streamed 16 MB + 1: %d %s", status, name)
		}
	})
	// Still serving.
	if status, name, msg := ts.post(t, targetPrefix+"ListTables", ct, strings.NewReader(`{}`)); status != 200 {
		t.Errorf("ListTables after malformed requests: %d %s %s", status, name, msg)
	}
}

// Each request is logged once with its operation, table, status and
// latency; a failure adds its DynamoDB error name.
func TestRequestLog(t *testing.T) {
	ts := newTestServer(t, Config{})
	ts.post(t, targetPrefix+"DescribeTable", contentType, strings.NewReader(`{"TableName":"Missing"}`))
	var rec map[string]any
	line, _, _ := strings.Cut(ts.logs.String(), "\n")
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("log line %q: %v", line, err)
	}
	for k, want := range map[string]any{"msg": "request", "op": "DescribeTable", "table": "Missing", "status": float64(400), "error": "ResourceNotFoundException"} {
		if rec[k] != want {
			t.Errorf("log %s = %v, want %v (record %v)", k, rec[k], want, rec)
		}
	}
	if _, ok := rec["latency"].(float64); !ok {
		t.Errorf("log has no latency: %v", rec)
	}
}

// A graceful shutdown lets a request in flight finish: a client that has
// sent half its body when shutdown starts still gets its answer, and
// Serve returns only after it.
func TestGracefulShutdown(t *testing.T) {
	ts := newTestServer(t, Config{})
	inHand := make(chan struct{}) // closed when the handler has the request
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(inHand)
		ts.Server.ServeHTTP(w, r)
	})
	addr, shutdown, served := ts.serveLoopback(t, h, Timeouts{Shutdown: 10 * time.Second})

	finish := halfSentRequest(t, addr)
	<-inHand
	shutdown()
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	if status := finish(); status != 200 {
		t.Errorf("in-flight request: status %d", status)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v, want nil after a graceful shutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the last request")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("still accepting connections after shutdown")
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// A client that stalls while sending its request is cut off by the read
// timeouts, and does not hold the server.
func TestSlowClientTimeout(t *testing.T) {
	ts := newTestServer(t, Config{})
	addr, _, _ := ts.serveLoopback(t, ts.Server, Timeouts{ReadHeader: 100 * time.Millisecond, Read: 300 * time.Millisecond})
	for _, partial := range []string{
		"POST / HTTP/1.1\r\nHost: x\r\n", // headers never finished
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: " + contentType + "\r\nX-Amz-Target: " + targetPrefix + "ListTables\r\nContent-Length: 10\r\n\r\n{", // body never finished
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, partial); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.ReadAll(conn) // ends when the server closes the connection
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("stalled request %q held the connection for %v", partial, d)
		}
		conn.Close()
	}
}

// A handler that panics (a bug) answers 500 InternalServerError, which
// SDKs retry, logs the cause, and leaves the server serving.
func TestPanicIsInternalServerError(t *testing.T) {
	ts := newTestServer(t, Config{})
	ts.ops[targetPrefix+"Explode"] = func(*Server, *call, []byte) (any, error) { panic("boom") }
	status, name, msg := ts.post(t, targetPrefix+"Explode", contentType, strings.NewReader(`{}`))
	if status != 500 || name != "InternalServerError" || strings.Contains(msg, "boom") {
		t.Errorf("panicking handler: %d %s %q, want 500 InternalServerError without the cause", status, name, msg)
	}
	if !strings.Contains(ts.logs.String(), "boom") {
		t.Errorf("the log lacks the panic's cause:\n%s", ts.logs.String())
	}
	if status, _, _ := ts.post(t, targetPrefix+"ListTables", contentType, strings.NewReader(`{}`)); status != 200 {
		t.Errorf("ListTables after a panic: %d", status)
	}
}
