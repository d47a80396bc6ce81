package server

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestSDKDescribeEndpointsAndLimits: DescribeEndpoints names the endpoint
// and a cache period of 1440 minutes; DescribeLimits DynamoDB's default
// quotas (80,000 capacity units per account, 40,000 per table).
func TestSDKDescribeEndpointsAndLimits(t *testing.T) {
	ts, c := newTestClient(t, Config{})
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

// TestSDKContinuousBackups: a new table reports continuous backups and
// point-in-time recovery DISABLED; enabling recovery reports both ENABLED
// with the period and a window whose latest restorable time is now;
// disabling returns to DISABLED; RecoveryPeriodInDays keeps DynamoDB's
// 1–35 constraint, and a missing table is TableNotFoundException, as the
// API reference of both operations says.
func TestSDKContinuousBackups(t *testing.T) {
	ts, c := newTestClient(t, Config{})
	createTable(t, c, "Backed", "", "")
	disabled := func(what string, d *types.ContinuousBackupsDescription) {
		t.Helper()
		if d == nil || d.ContinuousBackupsStatus != types.ContinuousBackupsStatusDisabled || d.PointInTimeRecoveryDescription == nil ||
			d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
			t.Errorf("%s: ContinuousBackupsDescription = %+v, want both DISABLED", what, d)
		}
	}
	status := func(what string) {
		t.Helper()
		d, err := c.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Backed")})
		if err != nil {
			t.Fatal(err)
		}
		disabled(what, d.ContinuousBackupsDescription)
	}
	status("new table")
	before := time.Now().Add(-time.Second)
	en, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Backed"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
	if err != nil {
		t.Fatalf("enabling point-in-time recovery: %v", err)
	}
	desc, err := c.DescribeContinuousBackups(ctx(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Backed")})
	if err != nil {
		t.Fatal(err)
	}
	for what, d := range map[string]*types.ContinuousBackupsDescription{"UpdateContinuousBackups": en.ContinuousBackupsDescription, "DescribeContinuousBackups": desc.ContinuousBackupsDescription} {
		p := d.PointInTimeRecoveryDescription
		if d.ContinuousBackupsStatus != types.ContinuousBackupsStatusEnabled || p == nil || p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled ||
			aws.ToInt32(p.RecoveryPeriodInDays) != 7 || p.EarliestRestorableDateTime == nil || p.LatestRestorableDateTime == nil ||
			p.EarliestRestorableDateTime.Before(before) || p.LatestRestorableDateTime.Before(*p.EarliestRestorableDateTime) {
			t.Errorf("%s after enabling: %+v (recovery %+v), want both ENABLED, 7 days, a window from the enabling to now", what, d, p)
		}
	}
	_, err = c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Backed"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(36)}})
	wantAPIErrorExact(t, err, "ValidationException", "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35")
	u, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Backed"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}})
	if err != nil {
		t.Fatalf("disabling: %v", err)
	}
	disabled("UpdateContinuousBackups disabling", u.ContinuousBackupsDescription)
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
