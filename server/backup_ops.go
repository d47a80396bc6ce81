package server

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/fdyno/fdyno"
)

// backup_ops.go: the on-demand backup operations (CreateBackup,
// DescribeBackup, ListBackups, DeleteBackup, RestoreTableFromBackup) and
// RestoreTableToPointInTime, on the library's backups (backup.go,
// restore.go, pitr.go in the root package). Backups live in the caller's
// namespace: a backup ARN names the caller's own backup only, as a table
// ARN does (checkARNOwner). CreateBackup answers CREATING and the
// restores answer their table CREATING: the work runs in the background
// (backup_jobs.go).

var (
	errBackupNotFound     = errType{nsDynamoDB + "BackupNotFoundException", 400}
	errBackupInUse        = errType{nsDynamoDB + "BackupInUseException", 400}
	errTableAlreadyExists = errType{nsDynamoDB + "TableAlreadyExistsException", 400}
	errPITRUnavailable    = errType{nsDynamoDB + "PointInTimeRecoveryUnavailableException", 400}
	errInvalidRestoreTime = errType{nsDynamoDB + "InvalidRestoreTimeException", 400}
)

// backupError maps the library's backup errors to DynamoDB's; a missing
// table is TableNotFoundException, as the backup operations name it.
func backupError(err error) error {
	var (
		be  *fdyno.BackupError
		te  *fdyno.TableError
		typ errType
	)
	switch {
	case errors.Is(err, fdyno.ErrBackupNotFound):
		typ = errBackupNotFound
	case errors.Is(err, fdyno.ErrBackupInUse):
		typ = errBackupInUse
	case errors.Is(err, fdyno.ErrTableAlreadyExists):
		typ = errTableAlreadyExists
	case errors.Is(err, fdyno.ErrPointInTimeRecoveryUnavailable):
		typ = errPITRUnavailable
	case errors.Is(err, fdyno.ErrInvalidRestoreTime):
		typ = errInvalidRestoreTime
	case errors.Is(err, fdyno.ErrResourceNotFound):
		typ = errTableNotFound
	default:
		return err
	}
	msg := err.Error()
	if errors.As(err, &be) {
		msg = be.Reason
	} else if errors.As(err, &te) {
		msg = te.Reason
	}
	return &apiError{typ: typ, msg: msg}
}

// backupARN is the ARN of backup id of table, DynamoDB's form:
// arn:aws:dynamodb:<region>:<account>:table/<table>/backup/<id>.
func (s *Server) backupARN(table, id string) string {
	return s.tableARN(table) + "/backup/" + id
}

// splitBackupARN splits a backup ARN into its parts; ok is false for
// anything else.
func splitBackupARN(arn string) (region, account, table, id string, ok bool) {
	head, id, found := strings.Cut(arn, "/backup/")
	if !found || id == "" || strings.Contains(id, "/") {
		return "", "", "", "", false
	}
	region, account, table, ok = splitTableARN(head)
	return region, account, table, id, ok
}

// backupOf resolves a BackupArn member: the caller's own backup ARN
// names (table, id); another account's or region's is refused as a table
// ARN is; anything else is a backup not found (the answer of DynamoDB
// for an ARN that names no backup).
func backupOf(c *call, field string, arn *string) (table, id string, err error) {
	if arn == nil {
		return "", "", missing(field)
	}
	if len(*arn) < 37 || len(*arn) > 1024 {
		v := *arn
		var cs constraints
		if len(v) < 37 {
			cs.add(field, &v, "Member must have length greater than or equal to 37")
		} else {
			cs.add(field, nil, "Member must have length less than or equal to 1024")
		}
		return "", "", cs.err()
	}
	region, account, table, id, ok := splitBackupARN(*arn)
	if !ok {
		return "", "", &apiError{typ: errBackupNotFound, msg: "Backup not found: " + *arn}
	}
	if err := checkARNOwner(c, *arn, region, account); err != nil {
		return "", "", err
	}
	return table, id, nil
}

// backupResource is the resource of a backup ARN for the checks: the
// caller's backup ARN in its canonical form, or the text itself when it
// names none (the request then fails as backupOf refuses it).
func (s *Server) backupResource(c *call, arn *string) (string, error) {
	if arn == nil {
		return "", nil
	}
	region, account, table, id, ok := splitBackupARN(*arn)
	if !ok {
		return *arn, nil
	}
	if err := checkARNOwner(c, *arn, region, account); err != nil {
		return "", err
	}
	return s.backupARN(table, id), nil
}

// describedBackup reads backup id and checks that it is a backup of
// table (the ARN's table), so an ARN naming another table's id is not
// found. The base of a table's point-in-time recovery (the library's
// backup "pitr-<TableId>") and an export's snapshots ("export-…") are no
// backups at the wire: not found either.
func (s *Server) describedBackup(table, id, arn string) (*fdyno.BackupDescription, error) {
	if strings.HasPrefix(id, "pitr-") || strings.HasPrefix(id, "export-") {
		return nil, &apiError{typ: errBackupNotFound, msg: "Backup not found: " + arn}
	}
	d, err := fdyno.DescribeBackup(s.db, id, s.tableOptions()...)
	if err != nil {
		return nil, backupError(err)
	}
	if d.TableName != table {
		return nil, &apiError{typ: errBackupNotFound, msg: "Backup not found: " + arn}
	}
	return d, nil
}

type backupDetails struct {
	BackupArn              string
	BackupName             string
	BackupSizeBytes        *int64 `json:",omitempty"`
	BackupStatus           string
	BackupType             string
	BackupCreationDateTime *float64
}

func (s *Server) details(d *fdyno.BackupDescription) backupDetails {
	out := backupDetails{BackupArn: s.backupARN(d.TableName, d.BackupID), BackupName: d.BackupName, BackupStatus: string(d.BackupStatus),
		BackupType: string(d.BackupType), BackupCreationDateTime: epochSeconds(d.BackupCreationDateTime)}
	if d.BackupStatus == fdyno.BackupStatusAvailable {
		n := d.BackupSizeBytes
		out.BackupSizeBytes = &n
	}
	return out
}

type sourceTableDetails struct {
	TableName             string
	TableId               string
	TableArn              string
	TableSizeBytes        int64
	KeySchema             []fdyno.KeySchemaElement
	TableCreationDateTime *float64
	ProvisionedThroughput provisionedThroughputOut
	ItemCount             int64
	BillingMode           string
}

// provisionedThroughputOut is a ProvisionedThroughput as DynamoDB sends
// it in a backup's description.
type provisionedThroughputOut struct {
	ReadCapacityUnits  int64
	WriteCapacityUnits int64
}

type backupIndex struct {
	IndexName             string
	KeySchema             []fdyno.KeySchemaElement
	Projection            projection
	ProvisionedThroughput *provisionedThroughputOut `json:",omitempty"`
}

type sourceTableFeatureDetails struct {
	LocalSecondaryIndexes  []backupIndex `json:",omitempty"`
	GlobalSecondaryIndexes []backupIndex `json:",omitempty"`
	StreamDescription      *streamSpecification
	TimeToLiveDescription  *timeToLiveOut `json:",omitempty"`
}

type timeToLiveOut struct {
	AttributeName    string
	TimeToLiveStatus string
}

type backupDescription struct {
	BackupDetails             backupDetails
	SourceTableDetails        sourceTableDetails
	SourceTableFeatureDetails sourceTableFeatureDetails
}

// described is DynamoDB's BackupDescription of d. The billing mode is
// PAY_PER_REQUEST: a backup keeps the schema, not the server's settings.
func (s *Server) described(d *fdyno.BackupDescription) backupDescription {
	sc := d.Schema
	out := backupDescription{BackupDetails: s.details(d),
		SourceTableDetails: sourceTableDetails{TableName: d.TableName, TableId: d.TableID, TableArn: s.tableARN(d.TableName),
			TableSizeBytes: d.BackupSizeBytes, KeySchema: sc.KeySchema, TableCreationDateTime: epochSeconds(d.TableCreationDateTime),
			ItemCount: d.ItemCount, BillingMode: billingPayPerRequest}}
	f := &out.SourceTableFeatureDetails
	for _, l := range sc.LocalSecondaryIndexes {
		f.LocalSecondaryIndexes = append(f.LocalSecondaryIndexes, backupIndex{IndexName: l.IndexName, KeySchema: l.KeySchema, Projection: projectionOf(l.Projection)})
	}
	for _, g := range sc.GlobalSecondaryIndexes {
		f.GlobalSecondaryIndexes = append(f.GlobalSecondaryIndexes, backupIndex{IndexName: g.IndexName, KeySchema: g.KeySchema,
			Projection: projectionOf(g.Projection), ProvisionedThroughput: &provisionedThroughputOut{}})
	}
	enabled := sc.StreamViewType != ""
	f.StreamDescription = &streamSpecification{StreamEnabled: &enabled, StreamViewType: string(sc.StreamViewType)}
	if sc.TimeToLiveAttribute != "" {
		f.TimeToLiveDescription = &timeToLiveOut{AttributeName: sc.TimeToLiveAttribute, TimeToLiveStatus: "ENABLED"}
	}
	return out
}

// CreateBackup.

type createBackupInput struct {
	TableName  *string
	BackupName *string
}

// prepare checks BackupName; the table is left to backupTable, which
// answers a missing one with TableNotFoundException.
func (in *createBackupInput) prepare(c *call) (string, error) {
	if in.BackupName == nil {
		return "", missing("backupName")
	}
	if err := checkTableNameMember("backupName", *in.BackupName, false); err != nil {
		return "", err
	}
	return "", nil
}

type createBackupOutput struct {
	BackupDetails backupDetails
}

func (s *Server) createBackup(c *call, in *createBackupInput, _ *fdyno.Table) (any, error) {
	t, err := s.backupTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	d, err := t.StartBackup(s.db, *in.BackupName)
	if err != nil {
		return nil, backupError(err)
	}
	s.runBackupInBackground(d.TableName, d.BackupID)
	return createBackupOutput{BackupDetails: s.details(d)}, nil
}

// DescribeBackup.

type backupArnInput struct {
	BackupArn *string
}

type describeBackupInput backupArnInput

func (in *describeBackupInput) prepare(c *call) (string, error) {
	_, _, err := backupOf(c, "backupArn", in.BackupArn)
	return "", err
}

type describeBackupOutput struct {
	BackupDescription backupDescription
}

func (s *Server) describeBackup(c *call, in *describeBackupInput, _ *fdyno.Table) (any, error) {
	table, id, err := backupOf(c, "backupArn", in.BackupArn)
	if err != nil {
		return nil, err
	}
	d, err := s.describedBackup(table, id, *in.BackupArn)
	if err != nil {
		return nil, err
	}
	return describeBackupOutput{BackupDescription: s.described(d)}, nil
}

// DeleteBackup.

type deleteBackupInput backupArnInput

func (in *deleteBackupInput) prepare(c *call) (string, error) {
	_, _, err := backupOf(c, "backupArn", in.BackupArn)
	return "", err
}

func (s *Server) deleteBackup(c *call, in *deleteBackupInput, _ *fdyno.Table) (any, error) {
	table, id, err := backupOf(c, "backupArn", in.BackupArn)
	if err != nil {
		return nil, err
	}
	if _, err := s.describedBackup(table, id, *in.BackupArn); err != nil {
		return nil, err
	}
	d, err := fdyno.DeleteBackup(s.db, id, s.tableOptions()...)
	if err != nil {
		return nil, backupError(err)
	}
	return describeBackupOutput{BackupDescription: s.described(d)}, nil
}

// ListBackups.

type listBackupsInput struct {
	TableName               *string
	Limit                   *int
	TimeRangeLowerBound     *float64
	TimeRangeUpperBound     *float64
	ExclusiveStartBackupArn *string
	BackupType              *string
}

// maxListBackupsLimit is the bound of ListBackups' Limit.
const maxListBackupsLimit = 100

func (in *listBackupsInput) prepare(c *call) (string, error) {
	var v constraints
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > maxListBackupsLimit) {
		l := strconv.Itoa(*in.Limit)
		if *in.Limit < 1 {
			v.add("limit", &l, "Member must have value greater than or equal to 1")
		} else {
			v.add("limit", &l, "Member must have value less than or equal to 100")
		}
	}
	if in.BackupType != nil {
		switch *in.BackupType {
		case "USER", "SYSTEM", "AWS_BACKUP", "ALL":
		default:
			v.add("backupType", in.BackupType, "Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]")
		}
	}
	if err := v.err(); err != nil {
		return "", err
	}
	if in.TableName != nil {
		if _, err := tableName(c, in.TableName); err != nil {
			return "", err
		}
	}
	if in.ExclusiveStartBackupArn != nil {
		if _, _, err := backupOf(c, "exclusiveStartBackupArn", in.ExclusiveStartBackupArn); err != nil {
			return "", err
		}
	}
	return "", nil
}

type backupSummary struct {
	TableName              string
	TableId                string
	TableArn               string
	BackupArn              string
	BackupName             string
	BackupCreationDateTime *float64
	BackupStatus           string
	BackupType             string
	BackupSizeBytes        *int64 `json:",omitempty"`
}

type listBackupsOutput struct {
	BackupSummaries        []backupSummary
	LastEvaluatedBackupArn string `json:",omitempty"`
}

// epochTime is a wire time (epoch seconds) as a time.
func epochTime(sec float64) time.Time {
	return time.UnixMilli(int64(sec * 1000))
}

func (s *Server) listBackups(c *call, in *listBackupsInput, _ *fdyno.Table) (any, error) {
	q := fdyno.ListBackupsInput{}
	if in.TableName != nil {
		q.TableName = c.table
	}
	if in.Limit != nil {
		q.Limit = *in.Limit
	}
	if in.TimeRangeLowerBound != nil {
		q.TimeRangeLowerBound = epochTime(*in.TimeRangeLowerBound)
	}
	if in.TimeRangeUpperBound != nil {
		q.TimeRangeUpperBound = epochTime(*in.TimeRangeUpperBound)
	}
	if in.BackupType != nil {
		q.BackupType = *in.BackupType
		if q.BackupType == "AWS_BACKUP" {
			// No AWS Backup here: none of that type exists.
			return listBackupsOutput{BackupSummaries: []backupSummary{}}, nil
		}
	}
	if in.ExclusiveStartBackupArn != nil {
		_, id, _ := backupOf(c, "exclusiveStartBackupArn", in.ExclusiveStartBackupArn)
		q.ExclusiveStartBackupID = id
	}
	l, err := fdyno.ListBackups(s.db, q, s.tableOptions()...)
	if err != nil {
		return nil, backupError(err)
	}
	out := listBackupsOutput{BackupSummaries: make([]backupSummary, 0, len(l.BackupSummaries))}
	for i := range l.BackupSummaries {
		d := &l.BackupSummaries[i]
		det := s.details(d)
		out.BackupSummaries = append(out.BackupSummaries, backupSummary{TableName: d.TableName, TableId: d.TableID, TableArn: s.tableARN(d.TableName),
			BackupArn: det.BackupArn, BackupName: d.BackupName, BackupCreationDateTime: det.BackupCreationDateTime, BackupStatus: det.BackupStatus,
			BackupType: det.BackupType, BackupSizeBytes: det.BackupSizeBytes})
	}
	if l.LastEvaluatedBackupID != "" {
		last := out.BackupSummaries[len(out.BackupSummaries)-1]
		out.LastEvaluatedBackupArn = last.BackupArn
	}
	return out, nil
}

// The restores.

// restoreOverrides are the members both restores share.
type restoreOverrides struct {
	TargetTableName               *string
	GlobalSecondaryIndexOverride  []globalSecondaryIndexInput
	LocalSecondaryIndexOverride   []fdyno.LocalSecondaryIndex
	BillingModeOverride           string
	ProvisionedThroughputOverride *provisionedThroughput
}

// check validates the overrides and returns the target table's name.
func (o *restoreOverrides) check(c *call) (string, error) {
	if o.TargetTableName == nil {
		return "", missing("targetTableName")
	}
	if err := checkTableNameMember("targetTableName", *o.TargetTableName, false); err != nil {
		return "", err
	}
	switch o.BillingModeOverride {
	case "", billingPayPerRequest:
		if o.ProvisionedThroughputOverride != nil && o.BillingModeOverride != "" {
			return "", validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
	case billingProvisioned:
		if o.ProvisionedThroughputOverride == nil {
			return "", validation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
		}
	default:
		return "", enumError("billingModeOverride", o.BillingModeOverride, billingProvisioned, billingPayPerRequest)
	}
	if pt := o.ProvisionedThroughputOverride; pt != nil {
		if err := checkThroughput(pt); err != nil {
			return "", err
		}
	}
	c.table = *o.TargetTableName
	return *o.TargetTableName, nil
}

// indexes returns the overrides as the library takes them: nil for an
// absent override, an empty slice for an empty one.
func (o *restoreOverrides) indexes() ([]fdyno.GlobalSecondaryIndex, []fdyno.LocalSecondaryIndex) {
	var gsi []fdyno.GlobalSecondaryIndex
	if o.GlobalSecondaryIndexOverride != nil {
		gsi = make([]fdyno.GlobalSecondaryIndex, 0, len(o.GlobalSecondaryIndexOverride))
		for _, g := range o.GlobalSecondaryIndexOverride {
			g.Unique = false // not DynamoDB's member (fdyno_tags.go, invariant 3); a kept index keeps the backup's
			gsi = append(gsi, g.GlobalSecondaryIndex)
		}
	}
	return gsi, o.LocalSecondaryIndexOverride
}

// settings is the settings record of a restore's new table: the
// billing overrides, if any, and its RestoreSummary (DescribeTable shows
// it once the table is ACTIVE, as DynamoDB's).
func (o *restoreOverrides) settings(summary restoreSummary) ([]byte, error) {
	p := tableSettings{BillingMode: o.BillingModeOverride, Restore: &summary}
	if o.BillingModeOverride == billingProvisioned {
		p.ProvisionedThroughput = o.ProvisionedThroughputOverride.units()
		for _, g := range o.GlobalSecondaryIndexOverride {
			if u := g.ProvisionedThroughput.units(); u != nil {
				if p.IndexThroughput == nil {
					p.IndexThroughput = map[string]provisioned{}
				}
				p.IndexThroughput[g.IndexName] = *u
			}
		}
	}
	return p.encode()
}

// started runs restore d in the background and answers its table,
// CREATING.
func (s *Server) started(d *fdyno.RestoreDescription) (any, error) {
	s.runRestoreInBackground(d.RestoreID, d.TargetTableName)
	td, err := s.restoring(d)
	if err != nil {
		return nil, err
	}
	return restoreOutput{TableDescription: td}, nil
}

// restoring is the description of the table of restore d, CREATING,
// with the items written so far.
func (s *Server) restoring(d *fdyno.RestoreDescription) (tableDescription, error) {
	td, err := s.describe(&fdyno.TableDescription{TableName: d.TargetTableName, TableSchema: d.Schema, TableID: d.TableID,
		CreationDateTime: d.StartDateTime, Settings: d.Settings}, "CREATING")
	if err != nil {
		return td, err
	}
	td.ItemCount, td.TableSizeBytes = d.ItemsRestored, d.BytesRestored
	for i := range td.GlobalSecondaryIndexes {
		td.GlobalSecondaryIndexes[i].IndexStatus = "CREATING"
	}
	if td.RestoreSummary != nil {
		td.RestoreSummary.RestoreInProgress = true
	}
	return td, nil
}

type restoreSummary struct {
	SourceBackupArn   string `json:",omitempty"`
	SourceTableArn    string `json:",omitempty"`
	RestoreDateTime   *float64
	RestoreInProgress bool
}

type restoreOutput struct {
	TableDescription tableDescription
}

// RestoreTableFromBackup.

type restoreTableFromBackupInput struct {
	BackupArn *string
	restoreOverrides
}

func (in *restoreTableFromBackupInput) prepare(c *call) (string, error) {
	if _, _, err := backupOf(c, "backupArn", in.BackupArn); err != nil {
		return "", err
	}
	_, err := in.check(c)
	return "", err
}

func (s *Server) restoreTableFromBackup(c *call, in *restoreTableFromBackupInput, _ *fdyno.Table) (any, error) {
	table, id, err := backupOf(c, "backupArn", in.BackupArn)
	if err != nil {
		return nil, err
	}
	target, err := in.check(c)
	if err != nil {
		return nil, err
	}
	b, err := s.describedBackup(table, id, *in.BackupArn)
	if err != nil {
		return nil, err
	}
	gsi, lsi := in.indexes()
	settings, err := in.settings(restoreSummary{SourceBackupArn: s.backupARN(table, id), SourceTableArn: s.tableARN(b.TableName),
		RestoreDateTime: epochSeconds(b.BackupCreationDateTime)})
	if err != nil {
		return nil, err
	}
	d, err := fdyno.StartRestoreTableFromBackup(s.db, fdyno.RestoreTableFromBackupInput{BackupID: id, TargetTableName: target,
		GlobalSecondaryIndexOverride: gsi, LocalSecondaryIndexOverride: lsi, Settings: settings}, s.guardedOptions(c)...)
	if err != nil {
		return nil, backupError(err)
	}
	return s.started(d)
}

// RestoreTableToPointInTime.

type restoreTableToPointInTimeInput struct {
	SourceTableName         *string
	SourceTableArn          *string
	RestoreDateTime         *float64
	UseLatestRestorableTime *bool
	restoreOverrides
}

// source resolves SourceTableName or SourceTableArn (exactly one).
func (in *restoreTableToPointInTimeInput) source(c *call) (string, error) {
	switch {
	case in.SourceTableName != nil && in.SourceTableArn != nil:
		return "", validation("One of the parameters 'SourceTableName' or 'SourceTableArn' is required, but not both")
	case in.SourceTableName == nil && in.SourceTableArn == nil:
		return "", validation("One of the parameters 'SourceTableName' or 'SourceTableArn' is required")
	case in.SourceTableArn != nil:
		region, account, name, ok := splitTableARN(*in.SourceTableArn)
		if !ok {
			return "", validation("Invalid TableArn: " + *in.SourceTableArn)
		}
		if err := checkARNOwner(c, *in.SourceTableArn, region, account); err != nil {
			return "", err
		}
		return name, nil
	}
	if err := checkTableNameMember("sourceTableName", *in.SourceTableName, false); err != nil {
		return "", err
	}
	return *in.SourceTableName, nil
}

func (in *restoreTableToPointInTimeInput) prepare(c *call) (string, error) {
	if _, err := in.source(c); err != nil {
		return "", err
	}
	latest := in.UseLatestRestorableTime != nil && *in.UseLatestRestorableTime
	if latest && in.RestoreDateTime != nil {
		return "", validation("Only one of the parameters 'RestoreDateTime' or 'UseLatestRestorableTime' can be specified")
	}
	if !latest && in.RestoreDateTime == nil {
		return "", validation("Either the parameter 'RestoreDateTime' or 'UseLatestRestorableTime' must be specified")
	}
	_, err := in.check(c)
	return "", err
}

func (s *Server) restoreTableToPointInTime(c *call, in *restoreTableToPointInTimeInput, _ *fdyno.Table) (any, error) {
	source, err := in.source(c)
	if err != nil {
		return nil, err
	}
	target, err := in.check(c)
	if err != nil {
		return nil, err
	}
	gsi, lsi := in.indexes()
	q := fdyno.RestoreTableToPointInTimeInput{SourceTableName: source, TargetTableName: target,
		GlobalSecondaryIndexOverride: gsi, LocalSecondaryIndexOverride: lsi}
	at := s.now()
	if in.RestoreDateTime != nil {
		q.RestoreDateTime = epochTime(*in.RestoreDateTime)
		at = q.RestoreDateTime
	} else {
		q.UseLatestRestorableTime = true
	}
	if q.Settings, err = in.settings(restoreSummary{SourceTableArn: s.tableARN(source), RestoreDateTime: epochSeconds(at)}); err != nil {
		return nil, err
	}
	d, err := fdyno.StartRestoreTableToPointInTime(s.db, q, s.guardedOptions(c)...)
	if err != nil {
		return nil, backupError(err)
	}
	return s.started(d)
}
