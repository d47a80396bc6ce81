package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// BenchmarkLegacy compares each legacy-parameter request with its
// expression twin through the server's handler (the translation is the
// whole difference), beside the raw FoundationDB operation the request
// comes down to: a conditional write is a Get and a Set in one
// transaction, a Query a range read of ten 100-byte values.
func BenchmarkLegacy(b *testing.B) {
	ts, _, _, db := benchSetup(b)
	ts.mustCall(b, "CreateTable", `{"TableName":"BenchQ","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}]}`)
	payload := strings.Repeat("x", 100)
	for i := range 10 {
		ts.mustCall(b, "PutItem", fmt.Sprintf(`{"TableName":"BenchQ","Item":{"pk":{"S":"h"},"sk":{"N":"%d"},"kind":{"S":"k%d"},"payload":{"S":"%s"}}}`, i, i%2, payload))
	}
	item := `{"pk":{"S":"c"},"state":{"S":"open"},"payload":{"S":"` + payload + `"}}`
	ts.mustCall(b, "PutItem", `{"TableName":"Bench","Item":`+item+`}`)
	for _, bc := range []struct{ name, op, body string }{
		{"put-conditional/legacy", "PutItem", `{"TableName":"Bench","Item":` + item + `,"Expected":{"state":{"Value":{"S":"open"}},"gone":{"Exists":false}}}`},
		{"put-conditional/expression", "PutItem", `{"TableName":"Bench","Item":` + item + `,"ConditionExpression":"#s = :s AND attribute_not_exists(#g)","ExpressionAttributeNames":{"#s":"state","#g":"gone"},"ExpressionAttributeValues":{":s":{"S":"open"}}}`},
		{"update/legacy", "UpdateItem", `{"TableName":"Bench","Key":{"pk":{"S":"u"}},"AttributeUpdates":{"n":{"Action":"ADD","Value":{"N":"1"}},"tags":{"Action":"ADD","Value":{"SS":["a"]}},"state":{"Value":{"S":"open"}}}}`},
		{"update/expression", "UpdateItem", `{"TableName":"Bench","Key":{"pk":{"S":"u"}},"UpdateExpression":"ADD n :one, tags :t SET #s = :s","ExpressionAttributeNames":{"#s":"state"},"ExpressionAttributeValues":{":one":{"N":"1"},":t":{"SS":["a"]},":s":{"S":"open"}}}`},
		{"query/legacy", "Query", `{"TableName":"BenchQ","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]},"sk":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"0"},{"N":"9"}]}},"QueryFilter":{"kind":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"k1"}]}}}`},
		{"query/expression", "Query", `{"TableName":"BenchQ","KeyConditionExpression":"pk = :h AND sk BETWEEN :lo AND :hi","FilterExpression":"kind = :k","ExpressionAttributeValues":{":h":{"S":"h"},":lo":{"N":"0"},":hi":{"N":"9"},":k":{"S":"k1"}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchHandler(b, ts, bc.op, func() string { return bc.body })
		})
	}
	b.Run("raw-fdb/get-set", func(b *testing.B) {
		b.ReportAllocs()
		key, v := fdb.Key("server-bench/legacy/c"), []byte(item)
		for b.Loop() {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				if _, err := tr.Get(key).Get(); err != nil {
					return nil, err
				}
				tr.Set(key, v)
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-fdb/range-10", func(b *testing.B) {
		benchRawRange(b, db, "server-bench/legacy/q/", 10, []byte(payload))
	})
}
