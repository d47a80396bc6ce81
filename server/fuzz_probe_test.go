package server

import "testing"

// FuzzProbeRequest sends arbitrary bodies to the operations clients probe
// (backups, endpoints, limits), on a table that exists: never a panic or
// a 500, every refusal DynamoDB's error body, every answer a JSON object.
func FuzzProbeRequest(f *testing.F) {
	ts := newTestServer(f, Config{})
	create := `{"TableName":"Fuzz","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`
	ts.mustCall(f, "CreateTable", create)
	ops := []string{"DescribeContinuousBackups", "UpdateContinuousBackups", "DescribeEndpoints", "DescribeLimits"}
	for i, body := range []string{
		`{"TableName":"Fuzz"}`,
		`{"TableName":"Fuzz","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":7}}`,
		`{}`,
		`{}`,
		`{"TableName":"Missing","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":false}}`,
		`{"TableName":"Fuzz","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":"yes","RecoveryPeriodInDays":99}}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		name := ops[int(op)%len(ops)]
		checkWireAnswer(t, ts, targetPrefix+name, body)
	})
}
