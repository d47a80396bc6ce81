package server

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestSDKDescribeEndpointsAndLimits: DescribeEndpoints names the endpoint
// and a cache period of 1440 minutes; DescribeLimits DynamoDB's default
// quotas (80,000 capacity units per account, 40,000 per table).
func TestSDKDescribeEndpointsAndLimits(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := ts.client(testCredentials)
	e, err := c.DescribeEndpoints(ctx(t), &dynamodb.DescribeEndpointsInput{})
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(ts.URL, "http://")
	if len(e.Endpoints) != 1 || aws.ToString(e.Endpoints[0].Address) != host || e.Endpoints[0].CachePeriodInMinutes != 1440 {
		t.Errorf("DescribeEndpoints = %+v, want [%s, 1440]", e.Endpoints, host)
	}
	l, err := c.DescribeLimits(ctx(t), &dynamodb.DescribeLimitsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToInt64(l.AccountMaxReadCapacityUnits) != 80000 || aws.ToInt64(l.AccountMaxWriteCapacityUnits) != 80000 ||
		aws.ToInt64(l.TableMaxReadCapacityUnits) != 40000 || aws.ToInt64(l.TableMaxWriteCapacityUnits) != 40000 {
		t.Errorf("DescribeLimits = %+v", l)
	}
}

// TestSDKContinuousBackups: continuous backups are ENABLED and
// point-in-time recovery DISABLED until UpdateContinuousBackups enables
// it (RecoveryPeriodInDays 1 to 35, default 35); the setting is the
// table's and goes with it. A missing table is TableNotFoundException, as
// the API reference of both operations says.
func TestSDKContinuousBackups(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := ts.client(testCredentials)
	createTable(t, c, "Backed", "", "")
	status := func() (string, int32) {
		t.Helper()
		d, err := c.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Backed")})
		if err != nil {
			t.Fatal(err)
		}
		cb := d.ContinuousBackupsDescription
		if cb.ContinuousBackupsStatus != types.ContinuousBackupsStatusEnabled || cb.PointInTimeRecoveryDescription == nil {
			t.Fatalf("ContinuousBackupsDescription = %+v", cb)
		}
		return string(cb.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus), aws.ToInt32(cb.PointInTimeRecoveryDescription.RecoveryPeriodInDays)
	}
	if s, _ := status(); s != "DISABLED" {
		t.Errorf("new table: point-in-time recovery %s, want DISABLED", s)
	}
	u, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Backed"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := u.ContinuousBackupsDescription.PointInTimeRecoveryDescription; got.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled || aws.ToInt32(got.RecoveryPeriodInDays) != 7 {
		t.Errorf("UpdateContinuousBackups = %+v", got)
	}
	if s, d := status(); s != "ENABLED" || d != 7 {
		t.Errorf("after enabling for 7 days: %s, %d", s, d)
	}
	_, err = c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Backed"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	if s, d := status(); err != nil || s != "ENABLED" || d != 35 {
		t.Errorf("enabled without a period: %v, %s, %d; want ENABLED, 35", err, s, d)
	}
	_, err = c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Backed"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(36)}})
	wantAPIErrorExact(t, err, "ValidationException", "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35")
	_, err = c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Backed"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}})
	if s, _ := status(); err != nil || s != "DISABLED" {
		t.Errorf("after disabling: %v, %s", err, s)
	}
	// The SDK refuses to send a request without the specification; the
	// server's answer to one, sent raw:
	st, name, msg := ts.post(t, targetPrefix+"UpdateContinuousBackups", contentType, strings.NewReader(`{"TableName":"Backed"}`))
	if st != 400 || name != "ValidationException" || msg != "1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: Member must not be null" {
		t.Errorf("UpdateContinuousBackups without a specification: %d %s %q", st, name, msg)
	}

	_, err = c.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Missing")})
	var tnf *types.TableNotFoundException
	if !errors.As(err, &tnf) {
		t.Errorf("DescribeContinuousBackups of a missing table: %v, want TableNotFoundException", err)
	}
	_, err = c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Missing"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	if !errors.As(err, &tnf) {
		t.Errorf("UpdateContinuousBackups of a missing table: %v, want TableNotFoundException", err)
	}
}

// TestCORS: a browser's preflight is answered 200 with the asked headers
// allowed, and an API answer to a request with an Origin allows any
// origin and exposes the headers the SDK reads.
func TestCORS(t *testing.T) {
	ts := newTestServer(t, Config{})
	req, _ := http.NewRequest(http.MethodOptions, ts.URL, nil)
	req.Header.Set("Origin", "http://localhost:3000")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-amz-target,authorization")
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := resp.Header
	if resp.StatusCode != 200 || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Headers") != "content-type,x-amz-target,authorization" ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") || h.Get("Access-Control-Max-Age") == "" {
		t.Errorf("preflight: %d %v", resp.StatusCode, h)
	}
	req, _ = http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{}`))
	req.Header.Set("Origin", "http://localhost:3000")
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", targetPrefix+"ListTables")
	resp, err = ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "x-amz-crc32") {
		t.Errorf("ListTables with an Origin: %d %v", resp.StatusCode, resp.Header)
	}
}
