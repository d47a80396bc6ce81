package server

import (
	"errors"
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

// TestSDKContinuousBackups: fdyno keeps no backups, so both operations
// report continuous backups and point-in-time recovery DISABLED, enabling
// point-in-time recovery is refused with UpdateContinuousBackups'
// documented ContinuousBackupsUnavailableException (and changes nothing),
// disabling it is accepted, RecoveryPeriodInDays keeps DynamoDB's 1–35
// constraint, and a missing table is TableNotFoundException, as the API
// reference of both operations says.
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
	_, err := c.UpdateContinuousBackups(ctx(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Backed"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
	var cbu *types.ContinuousBackupsUnavailableException
	if !errors.As(err, &cbu) {
		t.Errorf("enabling point-in-time recovery: %v, want ContinuousBackupsUnavailableException", err)
	}
	status("after a refused enabling")
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
