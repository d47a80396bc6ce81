package server

import "testing"

// FuzzTagRequest sends arbitrary bodies to the tagging operations and to
// CreateTable with Tags and UpdateTable's settings, through ServeHTTP, on
// a table that exists: the server never panics and never answers 500, a
// refusal is a 4xx with DynamoDB's error body, and a 200 answer is a JSON
// object.
func FuzzTagRequest(f *testing.F) {
	ts := newTestServer(f, Config{})
	create := `{"TableName":"Fuzz","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"Tags":[{"Key":"env","Value":"fuzz"}]}`
	ts.mustCall(f, "CreateTable", create)
	arn := ts.tableARN("Fuzz")
	ops := []string{"TagResource", "UntagResource", "ListTagsOfResource", "CreateTable", "UpdateTable"}
	for i, body := range []string{
		`{"ResourceArn":"` + arn + `","Tags":[{"Key":"team","Value":"db"},{"Key":"env","Value":""}]}`,
		`{"ResourceArn":"` + arn + `","TagKeys":["team","absent"]}`,
		`{"ResourceArn":"` + arn + `","NextToken":"ZW52"}`,
		`{"TableName":"Other","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1},"Tags":[{"Key":"a","Value":"b"}],"DeletionProtectionEnabled":true}`,
		`{"TableName":"Fuzz","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":2,"WriteCapacityUnits":3},"DeletionProtectionEnabled":false}`,
		`{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Fuzz/index/x","Tags":[]}`,
		`{"ResourceArn":"` + arn + `","Tags":[{"Key":"aws:x","Value":"y"}]}`,
		`{"ResourceArn":"` + arn + `","NextToken":"%%%"}`,
		`{"ResourceArn":"` + arn + `","Tags":[{"Key":"fdyno:unique-indexes","Value":"byX byY"},{"Key":"fdyno:counts","Value":"on"}]}`,
		`{"ResourceArn":"` + arn + `","TagKeys":["fdyno:counts","fdyno:unique-indexes"]}`,
		`{"TableName":"Other","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"e","AttributeType":"S"}],"GlobalSecondaryIndexes":[{"IndexName":"byE","Unique":true,"KeySchema":[{"AttributeName":"e","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"Tags":[{"Key":"fdyno:unique-indexes","Value":"byE"},{"Key":"fdyno:counts","Value":"off"}]}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		name := ops[int(op)%len(ops)]
		checkWireAnswer(t, ts, targetPrefix+name, body)
	})
}
