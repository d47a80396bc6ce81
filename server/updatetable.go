package server

import (
	"slices"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// updatetable.go: UpdateTable, through fdyno's Table.UpdateTable: one
// global secondary index created or deleted per request. A created index
// is CREATING until the server's background backfill (background.go) has
// indexed the items written before it, then ACTIVE, as DescribeTable
// shows. BillingMode, ProvisionedThroughput (also per index, the Update
// action) and DeletionProtectionEnabled change the table's stored
// settings (table_settings.go), in the transaction of the index or
// stream change. A
// StreamSpecification enables or disables the table's stream at once
// (the library's rules; streams.go serves the stream).

type createGSIAction struct {
	fdyno.CreateGlobalSecondaryIndexAction
	ProvisionedThroughput *provisionedThroughput
}

type gsiUpdate struct {
	Create *createGSIAction
	Delete *fdyno.DeleteGlobalSecondaryIndexAction
	Update *gsiThroughputUpdate
}

type updateTableInput struct {
	TableName                   *string
	AttributeDefinitions        []fdyno.AttributeDefinition
	GlobalSecondaryIndexUpdates []gsiUpdate
	BillingMode                 string
	ProvisionedThroughput       *provisionedThroughput
	StreamSpecification         *streamSpecification
	DeletionProtectionEnabled   *bool
	// ReplicaUpdates, SSESpecification, TableClass and the like are
	// accepted and ignored.

	// What prepare derives: the settings to change, the index change,
	// and the index it deletes.
	change  settingsChange
	up      fdyno.UpdateTableInput
	deleted string
}

type updateTableOutput struct {
	TableDescription tableDescription
}

var errLimitExceeded = errType{nsDynamoDB + "LimitExceededException", 400}

// prepare checks the request and sorts its changes into settings and
// the one index change.
func (in *updateTableInput) prepare(c *call) (string, error) {
	name, err := tableName(c, in.TableName)
	if err != nil {
		return "", err
	}
	var v constraints
	v.enum("billingMode", in.BillingMode, "PROVISIONED", "PAY_PER_REQUEST")
	for i, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil {
			at := "globalSecondaryIndexUpdates." + strconv.Itoa(i+1) + ".member.create."
			checkNameMember(&v, at+"indexName", u.Create.IndexName)
			checkKeySchemaMember(&v, at+"keySchema", u.Create.KeySchema, true, 0)
		}
	}
	if err := v.err(); err != nil {
		return "", err
	}
	if in.BillingMode == "PAY_PER_REQUEST" && in.ProvisionedThroughput != nil {
		return "", validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	}
	if pt := in.ProvisionedThroughput; pt != nil {
		if err := checkThroughput(pt); err != nil {
			return "", err
		}
	}
	in.change = settingsChange{BillingMode: in.BillingMode, ProvisionedThroughput: in.ProvisionedThroughput, DeletionProtectionEnabled: in.DeletionProtectionEnabled}
	// The index changes: throughput Updates are settings; at most one
	// Create or Delete, as DynamoDB allows one online index change per
	// table at a time.
	change, up := &in.change, &in.up
	up.AttributeDefinitions = in.AttributeDefinitions
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Update != nil && u.Create == nil && u.Delete == nil {
			change.indexUpdates = append(change.indexUpdates, *u.Update)
			continue
		}
		g := fdyno.GlobalSecondaryIndexUpdate{Delete: u.Delete}
		if u.Create != nil {
			g.Create = &u.Create.CreateGlobalSecondaryIndexAction
			change.created = u.Create
		}
		if u.Delete != nil {
			in.deleted = u.Delete.IndexName
		}
		up.GlobalSecondaryIndexUpdates = append(up.GlobalSecondaryIndexUpdates, g)
	}
	if len(up.GlobalSecondaryIndexUpdates) > 1 {
		return "", &apiError{typ: errLimitExceeded, msg: "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"}
	}
	if len(up.GlobalSecondaryIndexUpdates) == 0 {
		change.created = nil
	}
	ss := in.StreamSpecification
	if ss != nil {
		if in.GlobalSecondaryIndexUpdates != nil {
			return "", validation("One or more parameter values were invalid: Only one of the following can be specified in a single UpdateTable request: GlobalSecondaryIndexUpdates, StreamSpecification")
		}
		if ss.StreamEnabled == nil {
			return "", missing("streamSpecification.streamEnabled")
		}
	}
	if ss == nil && up.GlobalSecondaryIndexUpdates == nil && !change.any() {
		return "", validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	return name, nil
}

func (s *Server) updateTable(c *call, in *updateTableInput, t *fdyno.Table) (any, error) {
	name, change, up, deleted, ss := c.table, &in.change, in.up, in.deleted, in.StreamSpecification
	// The settings are checked against the table before anything
	// changes; they are stored with the index or stream change, in its
	// transaction, with the indexes the table then has.
	d, err := t.Describe(s.db)
	if err != nil {
		return nil, err
	}
	var gsis []string
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexName != deleted {
			gsis = append(gsis, g.IndexName)
		}
	}
	if change.created != nil {
		gsis = append(gsis, change.created.IndexName)
	}
	now := s.now()
	change.createdAt = d.CreationDateTime
	if change.any() {
		p, err := settingsOf(d)
		if err != nil {
			return nil, err
		}
		if err := change.apply(&p, gsis, now); err != nil {
			return nil, err
		}
	}
	d, err = fdyno.Transact(s.db, func(tr fdb.Transaction) (*fdyno.TableDescription, error) {
		d := d
		var err error
		switch {
		case ss != nil:
			d, err = t.UpdateTable(tr, fdyno.UpdateTableInput{StreamSpecification: &fdyno.StreamSpecification{
				StreamEnabled: *ss.StreamEnabled, StreamViewType: fdyno.StreamViewType(ss.StreamViewType)}})
		case up.GlobalSecondaryIndexUpdates != nil:
			var u fdyno.UpdateTableInput
			if u, err = s.uniqueCreate(tr, t, up); err != nil {
				return nil, err
			}
			d, err = t.UpdateTable(tr, u)
		}
		if err != nil || !change.any() {
			return d, err
		}
		after, err := updateSettings(tr, t, func(p *tableSettings) error { return change.apply(p, gsis, now) })
		if err != nil {
			return nil, err
		}
		// The answer describes the indexes as of the index change (a
		// created one CREATING), with the settings as stored.
		d.Settings = after.Settings
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	if up.GlobalSecondaryIndexUpdates != nil {
		for _, g := range d.GlobalSecondaryIndexDescriptions {
			if g.IndexStatus == fdyno.IndexStatusCreating {
				s.startBackfill(name, g.IndexName)
			}
		}
	}
	td, err := s.describe(d, "ACTIVE")
	return updateTableOutput{TableDescription: td}, err
}

// uniqueCreate returns up with the index it creates, if any, unique if
// the table's tags say so (fdyno_tags.go), read in tr.
func (s *Server) uniqueCreate(tr fdb.Transaction, t *fdyno.Table, up fdyno.UpdateTableInput) (fdyno.UpdateTableInput, error) {
	out := up
	out.GlobalSecondaryIndexUpdates = slices.Clone(up.GlobalSecondaryIndexUpdates)
	for i, g := range out.GlobalSecondaryIndexUpdates {
		if g.Create == nil {
			continue
		}
		d, err := t.Describe(tr)
		if err != nil {
			return up, err
		}
		ts, err := settingsOf(d)
		if err != nil {
			return up, err
		}
		fs, err := parseFdynoTags(ts.Tags)
		if err != nil {
			return up, err
		}
		create := *g.Create
		create.Unique = fs.unique[create.IndexName]
		out.GlobalSecondaryIndexUpdates[i].Create = &create
	}
	return out, nil
}
