package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestSerializationWireShape checks the bytes of DynamoDB's error bodies:
// a SerializationException, the service framework's, carries its text as
// "Message"; a ValidationException as "message".
func TestSerializationWireShape(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, tc := range []struct {
		name, target, body, want string
	}{
		{"list for a structure", targetPrefix + "ListTables", `[]`,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"Start of list found where not expected"}`},
		{"number for a string", targetPrefix + "DescribeTable", `{"TableName":12}`,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"}`},
		{"string for an integer", targetPrefix + "ListTables", `{"Limit":"3"}`,
			`{"__type":"com.amazon.coral.service#SerializationException","Message":"class java.lang.String can not be converted to an Integer"}`},
		{"validation", targetPrefix + "CreateTable", `{"TableName":"ab"}`,
			`{"__type":"com.amazon.coral.validate#ValidationException","message":"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := ts.request(t, tc.target, contentType, strings.NewReader(tc.body))
			resp, err := ts.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || string(body) != tc.want {
				t.Errorf("got %d %s\nwant 400 %s", resp.StatusCode, body, tc.want)
			}
		})
	}
}
