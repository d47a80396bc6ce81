package server

import (
	"errors"
	"strconv"

	"github.com/fdyno/fdyno"
)

// backups.go: DescribeContinuousBackups and UpdateContinuousBackups, on
// the library's point-in-time recovery (pitr.go in the root package).
// Enabling scans a base copy of the table before it answers (in the
// request, not yet in the background). RestoreTableToPointInTime and the
// on-demand backup operations are in backup_ops.go.

type describeContinuousBackupsInput struct {
	TableName *string
}

type updateContinuousBackupsInput struct {
	TableName                        *string
	PointInTimeRecoverySpecification *struct {
		PointInTimeRecoveryEnabled *bool
		RecoveryPeriodInDays       *int
	}
}

type pointInTimeRecoveryDescription struct {
	PointInTimeRecoveryStatus  string
	RecoveryPeriodInDays       int      `json:",omitempty"`
	EarliestRestorableDateTime *float64 `json:",omitempty"`
	LatestRestorableDateTime   *float64 `json:",omitempty"`
}

type continuousBackupsDescription struct {
	ContinuousBackupsStatus        string
	PointInTimeRecoveryDescription pointInTimeRecoveryDescription
}

type continuousBackupsOutput struct {
	ContinuousBackupsDescription continuousBackupsDescription
}

// errTableNotFound is the error of the backup operations for a missing
// table (their API reference names TableNotFoundException, not
// ResourceNotFoundException).
var errTableNotFound = errType{nsDynamoDB + "TableNotFoundException", 400}

// backupTable resolves the table of a backup operation and checks that
// it exists, mapping a missing table to TableNotFoundException.
func (s *Server) backupTable(c *call, name *string) (*fdyno.Table, error) {
	n, err := tableName(c, name)
	if err != nil {
		return nil, err
	}
	t, err := s.tableFor(c, n)
	if err == nil {
		_, err = t.Describe(s.db)
	}
	if errors.Is(err, fdyno.ErrResourceNotFound) {
		return nil, &apiError{typ: errTableNotFound, msg: "Table not found: " + n}
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// disabledBackups is the answer of both operations for every table.
var disabledBackups = continuousBackupsOutput{ContinuousBackupsDescription: continuousBackupsDescription{
	ContinuousBackupsStatus:        "DISABLED",
	PointInTimeRecoveryDescription: pointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "DISABLED"}}}

// maxRecoveryPeriodInDays is DynamoDB's longest point-in-time recovery
// period, the bound of RecoveryPeriodInDays.
const maxRecoveryPeriodInDays = 35

// prepare leaves the table to backupTable, which answers a missing one
// with TableNotFoundException.
func (in *describeContinuousBackupsInput) prepare(*call) (string, error) { return "", nil }

func (s *Server) describeContinuousBackups(c *call, in *describeContinuousBackupsInput, _ *fdyno.Table) (any, error) {
	t, err := s.backupTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	d, err := t.DescribeContinuousBackups(s.db)
	if err != nil {
		return nil, err
	}
	return continuousBackups(d), nil
}

// continuousBackups is the wire form of d.
func continuousBackups(d *fdyno.ContinuousBackupsDescription) continuousBackupsOutput {
	if d.PointInTimeRecoveryStatus != "ENABLED" {
		return disabledBackups
	}
	return continuousBackupsOutput{ContinuousBackupsDescription: continuousBackupsDescription{
		ContinuousBackupsStatus: "ENABLED",
		PointInTimeRecoveryDescription: pointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "ENABLED", RecoveryPeriodInDays: d.RecoveryPeriodInDays,
			EarliestRestorableDateTime: epochSeconds(d.EarliestRestorableDateTime), LatestRestorableDateTime: epochSeconds(d.LatestRestorableDateTime)}}}
}

// prepare checks the members' constraints; the table is left to
// backupTable, which answers a missing one with TableNotFoundException.
func (in *updateContinuousBackupsInput) prepare(*call) (string, error) {
	spec := in.PointInTimeRecoverySpecification
	var v constraints
	if in.TableName == nil {
		v.add("tableName", nil, "Member must not be null")
	}
	if spec == nil {
		v.add("pointInTimeRecoverySpecification", nil, "Member must not be null")
	} else {
		if spec.PointInTimeRecoveryEnabled == nil {
			v.add("pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled", nil, "Member must not be null")
		}
		if d := spec.RecoveryPeriodInDays; d != nil && (*d < 1 || *d > maxRecoveryPeriodInDays) {
			ds := strconv.Itoa(*d)
			if *d < 1 {
				v.add("pointInTimeRecoverySpecification.recoveryPeriodInDays", &ds, "Member must have value greater than or equal to 1")
			} else {
				v.add("pointInTimeRecoverySpecification.recoveryPeriodInDays", &ds, "Member must have value less than or equal to "+strconv.Itoa(maxRecoveryPeriodInDays))
			}
		}
	}
	return "", v.err()
}

func (s *Server) updateContinuousBackups(c *call, in *updateContinuousBackupsInput, _ *fdyno.Table) (any, error) {
	t, err := s.backupTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	days := 0
	if d := in.PointInTimeRecoverySpecification.RecoveryPeriodInDays; d != nil {
		days = *d
	}
	d, err := t.UpdateContinuousBackups(s.db, *in.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled, days)
	if err != nil {
		return nil, err
	}
	return continuousBackups(d), nil
}
