package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestInvalidUTF8Refused sends bodies whose strings are not UTF-8 (a raw
// 0xff, a sequence cut short after 0xc3) or hold a \u escape of a lone
// UTF-16 surrogate, in every kind of place a request carries a string:
// items and their nested names, keys, expressions and their names and
// values, legacy conditions and updates, PartiQL statements and
// parameters, table names and ARNs. DynamoDB answers such a body with a
// SerializationException; nothing is written. The table holds an item
// whose key is U+FFFD, the character a rewrite of the bad bytes would make:
// no request may overwrite it, as "\xc3" and "\xff" would have.
func TestInvalidUTF8Refused(t *testing.T) {
	ts := legacyServer(t)
	const key = `"Key":{"pk":{"S":"k"}}`
	const kept = `{"pk":{"S":"\ufffd"},"v":{"S":"kept"}}`
	ts.mustCall(t, "PutItem", `{"TableName":"Leg","Item":`+kept+`}`)
	for _, tc := range []struct {
		name, op, body string
	}{
		{"key 0xff", "PutItem", "{\"TableName\":\"Leg\",\"Item\":{\"pk\":{\"S\":\"\xff\"}}}"},
		{"key 0xc3", "PutItem", "{\"TableName\":\"Leg\",\"Item\":{\"pk\":{\"S\":\"\xc3\"}}}"},
		{"S value", "PutItem", "{\"TableName\":\"Leg\",\"Item\":{\"pk\":{\"S\":\"k\"},\"s\":{\"S\":\"a\xffb\"}}}"},
		{"SS member", "PutItem", "{\"TableName\":\"Leg\",\"Item\":{\"pk\":{\"S\":\"k\"},\"s\":{\"SS\":[\"a\",\"\xc3\"]}}}"},
		{"attribute name", "PutItem", "{\"TableName\":\"Leg\",\"Item\":{\"pk\":{\"S\":\"k\"},\"\xff\":{\"N\":\"1\"}}}"},
		{"nested map key", "PutItem", "{\"TableName\":\"Leg\",\"Item\":{\"pk\":{\"S\":\"k\"},\"m\":{\"M\":{\"\xc3\":{\"N\":\"1\"}}}}}"},
		{"lone low surrogate escape", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"k"},"s":{"S":"\udc80"}}}`},
		{"lone high surrogate escape", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"\ud800x"}}}`},
		{"high surrogate at the end", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"k"},"s":{"S":"\ud83d"}}}`},
		{"surrogate escape in a name", "PutItem", `{"TableName":"Leg","Item":{"pk":{"S":"k"},"\udfff":{"S":"x"}}}`},
		{"UpdateExpression value", "UpdateItem", "{\"TableName\":\"Leg\"," + key + ",\"UpdateExpression\":\"SET a = :v\",\"ExpressionAttributeValues\":{\":v\":{\"S\":\"\xff\"}}}"},
		{"ExpressionAttributeNames value", "UpdateItem", "{\"TableName\":\"Leg\"," + key + ",\"UpdateExpression\":\"SET #n = :v\",\"ExpressionAttributeNames\":{\"#n\":\"\xc3\"},\"ExpressionAttributeValues\":{\":v\":{\"N\":\"1\"}}}"},
		{"expression text", "UpdateItem", "{\"TableName\":\"Leg\"," + key + ",\"UpdateExpression\":\"SET a\xff = :v\",\"ExpressionAttributeValues\":{\":v\":{\"N\":\"1\"}}}"},
		{"legacy AttributeUpdates", "UpdateItem", "{\"TableName\":\"Leg\"," + key + ",\"AttributeUpdates\":{\"\xff\":{\"Action\":\"PUT\",\"Value\":{\"S\":\"x\"}}}}"},
		{"legacy Expected", "PutItem", "{\"TableName\":\"Leg\",\"Item\":{\"pk\":{\"S\":\"k\"}},\"Expected\":{\"a\":{\"Value\":{\"S\":\"\xc3\"}}}}"},
		{"BatchWriteItem", "BatchWriteItem", "{\"RequestItems\":{\"Leg\":[{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"\xff\"}}}}]}}"},
		{"TransactWriteItems", "TransactWriteItems", "{\"TransactItems\":[{\"Put\":{\"TableName\":\"Leg\",\"Item\":{\"pk\":{\"S\":\"k\"},\"s\":{\"S\":\"\xc3\"}}}}]}"},
		{"PartiQL statement", "ExecuteStatement", "{\"Statement\":\"INSERT INTO Leg VALUE {'pk':'\xff'}\"}"},
		{"PartiQL parameter", "ExecuteStatement", "{\"Statement\":\"INSERT INTO Leg VALUE {'pk':?}\",\"Parameters\":[{\"S\":\"\xc3\"}]}"},
		{"PartiQL surrogate escape", "ExecuteStatement", `{"Statement":"INSERT INTO Leg VALUE {'pk':'\udc00'}"}`},
		{"table name", "PutItem", "{\"TableName\":\"Le\xffg\",\"Item\":{\"pk\":{\"S\":\"k\"}}}"},
		{"tag ARN", "TagResource", "{\"ResourceArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/Leg\xff\",\"Tags\":[{\"Key\":\"k\",\"Value\":\"v\"}]}"},
		{"tag value", "TagResource", "{\"ResourceArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/Leg\",\"Tags\":[{\"Key\":\"k\",\"Value\":\"\xc3\"}]}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, name, msg := ts.call(t, tc.op, tc.body)
			if code != http.StatusBadRequest || name != "SerializationException" {
				t.Fatalf("%d %s: %s; want 400 SerializationException", code, name, msg)
			}
			out := ts.mustCall(t, "Scan", `{"TableName":"Leg"}`)
			if diff := cmp.Diff(mustJSON(t, "["+kept+"]"), out["Items"]); diff != "" {
				t.Fatalf("table changed (-want +got):\n%s", diff)
			}
			tags := ts.mustCall(t, "ListTagsOfResource", `{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Leg"}`)
			if got, _ := tags["Tags"].([]any); len(got) != 0 {
				t.Fatalf("tagged %v", got)
			}
		})
	}
}

// TestUTF8Kept checks the other side: valid UTF-8, escaped surrogate
// pairs, and U+FFFD itself are stored and returned unchanged, and the two
// keys that a rewrite of bad bytes would have merged stay two items when
// written validly.
func TestUTF8Kept(t *testing.T) {
	ts := legacyServer(t)
	for _, tc := range []struct {
		name, sent, want string
	}{
		{"two-byte", `"é"`, "é"},
		{"escaped pair", `"\ud83d\ude00"`, "😀"},
		{"raw four-byte", `"😀"`, "😀"},
		{"replacement character", `"\ufffd"`, "\ufffd"},
		{"escaped backslash before u", `"\\ud800"`, `\ud800`},
		{"U+00C3", `"\u00c3"`, "\u00c3"},
		{"U+00FF", `"\u00ff"`, "\u00ff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts.mustCall(t, "PutItem", `{"TableName":"Leg","Item":{"pk":`+`{"S":`+tc.sent+`},"v":{"S":`+tc.sent+`},`+tc.sent+`:{"N":"1"}}}`)
			got := ts.mustCall(t, "GetItem", `{"TableName":"Leg","Key":{"pk":{"S":`+tc.sent+`}},"ConsistentRead":true}`)
			want := map[string]any{"pk": map[string]any{"S": tc.want}, "v": map[string]any{"S": tc.want}, tc.want: map[string]any{"N": "1"}}
			if diff := cmp.Diff(want, got["Item"]); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
	// U+00C3 and U+00FF are the characters Latin-1 bytes 0xc3 and 0xff
	// stand for; sent as UTF-8 they are distinct keys.
	keys := keysOf(ts.mustCall(t, "Scan", `{"TableName":"Leg"}`))
	for _, k := range []string{"\u00c3", "\u00ff", "\ufffd"} {
		if !strings.Contains(strings.Join(keys, "\x00")+"\x00", k+"\x00") {
			t.Errorf("key %q missing from %q", k, keys)
		}
	}
}

// TestCheckJSONText covers the escape scanner's edges.
func TestCheckJSONText(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"a":"plain"}`, true},
		{`"\ud83d\ude00"`, true},
		{`"\uD83D\uDE00"`, true},
		{`"\\ud800"`, true},   // an escaped backslash, then text
		{`"\\\ud800"`, false}, // an escaped backslash, then a lone surrogate
		{`"\ud800"`, false},
		{`"\udc00\ud800"`, false},
		{`"\ud800\u0041"`, false},
		{`"\ud800\\udc00"`, false},
		{`"\ud83d`, false}, // cut short: no low half
		{`"\u12"`, true},   // malformed escape: the JSON decoder's to refuse
		{`"\u00e9"`, true},
		{"\"\xe2\x82\xac\"", true},
		{"\"\xe2\x82\"", false},
		{"\"\xc0\xaf\"", false}, // overlong
		{"\"\xed\xa0\x80\"", false},
		{"\xff", false},
		{`"\`, true}, // a trailing backslash: the JSON decoder's to refuse
		{`\`, true},
	} {
		if err := checkJSONText([]byte(tc.in)); (err == nil) != tc.ok {
			t.Errorf("checkJSONText(%q) = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

// FuzzJSONText checks checkJSONText against encoding/json, which writes
// U+FFFD for every bad byte and unpaired surrogate: on JSON text that
// holds no U+FFFD of its own (neither the character nor an escape of it),
// checkJSONText accepts exactly what encoding/json decodes without one.
func FuzzJSONText(f *testing.F) {
	for _, s := range []string{`{"a":["b",{"c":"\u00e9"}]}`, `"\ud800"`, `"\\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", "{\"\xc3\":1}", `"\udc00x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := checkJSONText(b)
		if err == nil && !utf8.Valid(b) {
			t.Fatalf("accepted %q, which is not UTF-8", b)
		}
		var doc any
		if json.Unmarshal(b, &doc) != nil || bytes.Contains(b, []byte("\ufffd")) || bytes.Contains(bytes.ToLower(b), []byte("fffd")) {
			return
		}
		replaced := false
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				replaced = replaced || strings.ContainsRune(v, utf8.RuneError)
			case []any:
				for _, w := range v {
					walk(w)
				}
			case map[string]any:
				for k, w := range v {
					walk(k)
					walk(w)
				}
			}
		}
		walk(doc)
		if replaced != (err != nil) {
			t.Fatalf("checkJSONText(%q) = %v, but encoding/json replaced characters: %v", b, err, replaced)
		}
	})
}

// BenchmarkCheckJSONText measures the UTF-8 check beside the decode it
// guards, on a PutItem body of about 64 KB: the check must stay a small
// fraction of decoding.
func BenchmarkCheckJSONText(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"TableName":"T","Item":{"pk":{"S":"k"}`)
	for i := 0; sb.Len() < 64<<10; i++ {
		sb.WriteString(`,"attribute` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `":{"S":"une valeur \u00e9 \ud83d\ude00 ` + strings.Repeat("é", i%5) + `"}`)
	}
	sb.WriteString(`}}`)
	body := []byte(sb.String())
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if err := checkJSONText(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var in putItemInput
			if err := json.Unmarshal(body, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
