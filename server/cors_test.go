package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCORS: DynamoDB answers a preflight (OPTIONS with an Origin) 200
// with an empty body, Access-Control-Allow-Origin *, the requested method
// and headers echoed back, and always Access-Control-Max-Age 172800; an
// API answer to a request with an Origin allows any origin and exposes
// the headers the SDK reads. (dynalite's connection tests, checked
// against DynamoDB, pin the same headers.) Both expose DynamoDB's list
// of headers, as dynamodb.us-east-1.amazonaws.com's preflight answer in
// a public survey of AWS endpoints' CORS (October 2020) has it.
// dynamoDBExposeHeaders is DynamoDB's Access-Control-Expose-Headers.
const dynamoDBExposeHeaders = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date"

func TestCORS(t *testing.T) {
	ts := newTestServer(t, Config{})
	preflight := []struct {
		name    string
		headers map[string]string
		want    map[string]string // "" means the header must be absent
	}{
		{
			name:    "origin only",
			headers: map[string]string{"Origin": "whatever"},
			want: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Max-Age": "172800",
				"Access-Control-Allow-Methods": "", "Access-Control-Allow-Headers": "", "Content-Length": "0"},
		},
		{
			name:    "requested headers",
			headers: map[string]string{"Origin": "whatever", "Access-Control-Request-Headers": "a, b, c"},
			want: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Max-Age": "172800",
				"Access-Control-Allow-Headers": "a, b, c", "Access-Control-Allow-Methods": ""},
		},
		{
			name: "requested method echoed",
			headers: map[string]string{"Origin": "http://localhost:3000", "Access-Control-Request-Method": "PUT",
				"Access-Control-Request-Headers": "content-type,x-amz-target,authorization"},
			want: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Max-Age": "172800",
				"Access-Control-Allow-Methods": "PUT", "Access-Control-Allow-Headers": "content-type,x-amz-target,authorization"},
		},
		{
			name:    "any method name",
			headers: map[string]string{"Origin": "whatever", "Access-Control-Request-Method": "d"},
			want:    map[string]string{"Access-Control-Allow-Methods": "d", "Access-Control-Max-Age": "172800"},
		},
	}
	for _, tc := range preflight {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodOptions, ts.URL, nil)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			resp, err := ts.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || len(body) != 0 {
				t.Errorf("preflight = %d %q, want 200 and an empty body", resp.StatusCode, body)
			}
			got := map[string]string{}
			for k := range tc.want {
				got[k] = resp.Header.Get(k)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("preflight headers mismatch (-want +got):\n%s", diff)
			}
			if resp.Header.Get("X-Amzn-Requestid") == "" {
				t.Error("preflight has no x-amzn-RequestId")
			}
			if got := resp.Header.Get("Access-Control-Expose-Headers"); got != dynamoDBExposeHeaders {
				t.Errorf("preflight exposes %q, want %q", got, dynamoDBExposeHeaders)
			}
		})
	}
	t.Run("API call with an Origin", func(t *testing.T) {
		req := ts.request(t, targetPrefix+"ListTables", contentType, strings.NewReader(`{}`))
		req.Header.Set("Origin", "http://localhost:3000")
		resp, err := ts.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Expose-Headers") != dynamoDBExposeHeaders {
			t.Errorf("ListTables with an Origin: %d %v", resp.StatusCode, resp.Header)
		}
	})
}
