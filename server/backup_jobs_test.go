package server

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// backup_jobs_test.go: backups and restores run in the background, with
// DynamoDB's statuses.

// waitBackup polls DescribeBackup until backup arn is AVAILABLE, and
// fails if it shows any status but CREATING meanwhile.
func waitBackup(t *testing.T, c *dynamodb.Client, arn string) *types.BackupDescription {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		out, err := c.DescribeBackup(ctx(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
		if err != nil {
			t.Fatalf("DescribeBackup while waiting: %v", err)
		}
		switch st := out.BackupDescription.BackupDetails.BackupStatus; st {
		case types.BackupStatusAvailable:
			return out.BackupDescription
		case types.BackupStatusCreating:
		default:
			t.Fatalf("backup %s: status %s while it is made", arn, st)
		}
	}
	t.Fatalf("backup %s not AVAILABLE after 30 s", arn)
	return nil
}

// waitRestored polls DescribeTable until table is ACTIVE and returns its
// description; meanwhile it must be CREATING with a RestoreSummary whose
// RestoreInProgress is true. gone is true if the table disappeared
// instead (a restore that failed).
func waitRestored(t *testing.T, c *dynamodb.Client, table string) (d *types.TableDescription, gone bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		out, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return nil, true
		}
		if err != nil {
			t.Fatalf("DescribeTable while waiting: %v", err)
		}
		td := out.Table
		switch td.TableStatus {
		case types.TableStatusActive:
			return td, false
		case types.TableStatusCreating:
			if td.RestoreSummary == nil || !aws.ToBool(td.RestoreSummary.RestoreInProgress) {
				t.Fatalf("table %s CREATING without RestoreInProgress: %+v", table, td.RestoreSummary)
			}
		default:
			t.Fatalf("table %s: status %s while it is restored", table, td.TableStatus)
		}
	}
	t.Fatalf("table %s not ACTIVE after 30 s", table)
	return nil, false
}

// mustRestored is waitRestored for a restore that must succeed.
func mustRestored(t *testing.T, c *dynamodb.Client, table string) *types.TableDescription {
	t.Helper()
	d, gone := waitRestored(t, c, table)
	if gone {
		t.Fatalf("restore of %s failed: the table is gone", table)
	}
	return d
}
