package server

import (
	"errors"
	"strconv"

	"github.com/fdyno/fdyno"
)

// backups.go: DescribeContinuousBackups and UpdateContinuousBackups,
// answered honestly: fdyno keeps no backups and no restorable history of
// a table (there is no RestoreTableToPointInTime; FoundationDB's own
// backup covers the whole database), so both continuous backups and
// point-in-time recovery are DISABLED, and enabling point-in-time
// recovery is refused with the operation's documented
// ContinuousBackupsUnavailableException. Disabling it is accepted: it is
// what the table already has.

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
	PointInTimeRecoveryStatus string
	RecoveryPeriodInDays      int `json:",omitempty"`
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

// errBackupsUnavailable is UpdateContinuousBackups' error when backups
// cannot be enabled for the table.
var errBackupsUnavailable = errType{nsDynamoDB + "ContinuousBackupsUnavailableException", 400}

// maxRecoveryPeriodInDays is DynamoDB's longest point-in-time recovery
// period, the bound of RecoveryPeriodInDays.
const maxRecoveryPeriodInDays = 35

// prepare leaves the table to backupTable, which answers a missing one
// with TableNotFoundException.
func (in *describeContinuousBackupsInput) prepare(*call) (string, error) { return "", nil }

func (s *Server) describeContinuousBackups(c *call, in *describeContinuousBackupsInput, _ *fdyno.Table) (any, error) {
	if _, err := s.backupTable(c, in.TableName); err != nil {
		return nil, err
	}
	return disabledBackups, nil
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
	if *in.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled {
		return nil, &apiError{typ: errBackupsUnavailable, msg: "Point-in-time recovery cannot be enabled: fdyno keeps no backups of " + t.Name() + " (back up the FoundationDB database instead)"}
	}
	return disabledBackups, nil
}
