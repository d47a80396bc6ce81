package server

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// At --log-level debug a request's record carries its request and
// response bodies, cut at 4 KB; at info it carries neither; at no level
// is a header (a signature, a credential) or a secret logged.
func TestDebugLog(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		logs := &syncBuffer{}
		keys := map[string]string{testCredentials.AccessKeyID: testCredentials.SecretAccessKey}
		ts := newTestServer(t, Config{Keys: keys, Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: level}))})
		c := ts.client(testCredentials)
		createTable(t, c, "Logged", "", "")
		big := strings.Repeat("é", 3000) // 6000 bytes: cut
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Logged"),
			Item: map[string]types.AttributeValue{"pk": s("k"), "big": s(big)}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Logged"), Key: map[string]types.AttributeValue{"pk": s("absent")}}); err != nil {
			t.Fatal(err)
		}
		var put, get map[string]any
		for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			switch rec["op"] {
			case "PutItem":
				put = rec
			case "GetItem":
				get = rec
			}
		}
		if put == nil || get == nil {
			t.Fatalf("level %v: no PutItem or GetItem record in\n%s", level, logs)
		}
		if level == slog.LevelInfo {
			if _, ok := put["request"]; ok {
				t.Errorf("info level logs the request body: %v", put)
			}
			continue
		}
		req, _ := put["request"].(string)
		if !strings.HasPrefix(req, `{"Item":{`) || !strings.HasSuffix(req, " bytes)") {
			t.Errorf("debug PutItem request: %.120q…, want the body cut with its size", req)
		}
		if len(req) > maxDebugBody+32 {
			t.Errorf("debug PutItem request is %d bytes, want at most about %d", len(req), maxDebugBody)
		}
		if get["request"] != `{"Key":{"pk":{"S":"absent"}},"TableName":"Logged"}` || get["response"] != `{}` {
			t.Errorf("debug GetItem record: request %q response %q", get["request"], get["response"])
		}
		for _, secret := range []string{testCredentials.SecretAccessKey, "Signature=", "Credential="} {
			if strings.Contains(logs.String(), secret) {
				t.Errorf("the debug log holds %q", secret)
			}
		}
	}
}
