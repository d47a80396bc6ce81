package server

import (
	"errors"
	"strconv"

	"github.com/fdyno/fdyno"
)

// backups.go: DescribeContinuousBackups and UpdateContinuousBackups.
// DynamoDB keeps continuous backups (ContinuousBackupsStatus ENABLED) for
// every table and point-in-time recovery when asked. fdyno stores the
// point-in-time recovery setting with the table's properties and reports
// it, but keeps no restorable history (there is no
// RestoreTableToPointInTime; FoundationDB's backup covers the database):
// the setting lets tools that manage it (infrastructure as code) work,
// and is documented as stored only.

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

// backupTable resolves the table of a backup operation, mapping a
// missing table to TableNotFoundException.
func (s *Server) backupTable(c *call, name *string) (*fdyno.Table, error) {
	n, err := tableName(c, name)
	if err != nil {
		return nil, err
	}
	t, err := s.table(n)
	if errors.Is(err, fdyno.ErrResourceNotFound) {
		return nil, &apiError{typ: errTableNotFound, msg: "Table not found: " + n}
	}
	return t, err
}

func continuousBackups(p fdyno.TableProperties) continuousBackupsOutput {
	pitr := pointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "DISABLED"}
	if p.PointInTimeRecoveryEnabled {
		pitr = pointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "ENABLED", RecoveryPeriodInDays: p.RecoveryPeriodInDays}
		if pitr.RecoveryPeriodInDays == 0 {
			pitr.RecoveryPeriodInDays = fdyno.MaxRecoveryPeriodInDays
		}
	}
	return continuousBackupsOutput{ContinuousBackupsDescription: continuousBackupsDescription{
		ContinuousBackupsStatus: "ENABLED", PointInTimeRecoveryDescription: pitr}}
}

// prepare leaves the table to backupTable, which answers a missing one
// with TableNotFoundException.
func (in *describeContinuousBackupsInput) prepare(*call) (string, error) { return "", nil }

func (s *Server) describeContinuousBackups(c *call, in *describeContinuousBackupsInput, _ *fdyno.Table) (any, error) {
	t, err := s.backupTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	d, err := t.Describe(s.db)
	if errors.Is(err, fdyno.ErrResourceNotFound) {
		return nil, &apiError{typ: errTableNotFound, msg: "Table not found: " + t.Name()}
	}
	if err != nil {
		return nil, err
	}
	return continuousBackups(d.Properties), nil
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
		if d := spec.RecoveryPeriodInDays; d != nil && (*d < 1 || *d > fdyno.MaxRecoveryPeriodInDays) {
			ds := strconv.Itoa(*d)
			if *d < 1 {
				v.add("pointInTimeRecoverySpecification.recoveryPeriodInDays", &ds, "Member must have value greater than or equal to 1")
			} else {
				v.add("pointInTimeRecoverySpecification.recoveryPeriodInDays", &ds, "Member must have value less than or equal to "+strconv.Itoa(fdyno.MaxRecoveryPeriodInDays))
			}
		}
	}
	return "", v.err()
}

func (s *Server) updateContinuousBackups(c *call, in *updateContinuousBackupsInput, _ *fdyno.Table) (any, error) {
	spec := in.PointInTimeRecoverySpecification
	t, err := s.backupTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	d, err := t.UpdateProperties(s.db, func(p *fdyno.TableProperties) error {
		p.PointInTimeRecoveryEnabled = *spec.PointInTimeRecoveryEnabled
		p.RecoveryPeriodInDays = 0
		if p.PointInTimeRecoveryEnabled && spec.RecoveryPeriodInDays != nil {
			p.RecoveryPeriodInDays = *spec.RecoveryPeriodInDays
		}
		return nil
	})
	if errors.Is(err, fdyno.ErrResourceNotFound) {
		return nil, &apiError{typ: errTableNotFound, msg: "Table not found: " + t.Name()}
	}
	if err != nil {
		return nil, err
	}
	return continuousBackups(d.Properties), nil
}
