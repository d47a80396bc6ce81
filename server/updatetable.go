package server

import (
	"github.com/fdyno/fdyno"
)

// updatetable.go: UpdateTable, through fdyno's Table.UpdateTable: one
// global secondary index created or deleted per request. A created index
// is CREATING until the server's background backfill (background.go) has
// indexed the items written before it, then ACTIVE, as DescribeTable
// shows. fdyno has no capacity, so BillingMode and ProvisionedThroughput
// are checked as CreateTable checks them and otherwise ignored. A
// StreamSpecification enables or disables the table's stream at once
// (the library's rules; streams.go serves the stream).

type createGSIAction struct {
	fdyno.CreateGlobalSecondaryIndexAction
	ProvisionedThroughput *provisionedThroughput
}

type gsiUpdate struct {
	Create *createGSIAction
	Delete *fdyno.DeleteGlobalSecondaryIndexAction
	Update *struct {
		IndexName string
	}
}

type updateTableInput struct {
	TableName                   *string
	AttributeDefinitions        []fdyno.AttributeDefinition
	GlobalSecondaryIndexUpdates []gsiUpdate
	BillingMode                 string
	ProvisionedThroughput       *provisionedThroughput
	StreamSpecification         *streamSpecification
	// ReplicaUpdates, SSESpecification, TableClass,
	// DeletionProtectionEnabled and the like are accepted and ignored.
}

type updateTableOutput struct {
	TableDescription tableDescription
}

func (s *Server) updateTable(c *call, body []byte) (any, error) {
	var in updateTableInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name, err := tableName(c, in.TableName)
	if err != nil {
		return nil, err
	}
	if ss := in.StreamSpecification; ss != nil {
		if in.GlobalSecondaryIndexUpdates != nil {
			return nil, validation("One or more parameter values were invalid: Only one of the following can be specified in a single UpdateTable request: GlobalSecondaryIndexUpdates, StreamSpecification")
		}
		if ss.StreamEnabled == nil {
			return nil, missing("streamSpecification.streamEnabled")
		}
		if in.BillingMode != "" || in.ProvisionedThroughput != nil {
			if err := checkBilling(createTableInput{BillingMode: in.BillingMode, ProvisionedThroughput: in.ProvisionedThroughput}); err != nil {
				return nil, err
			}
		}
		t, err := s.table(name)
		if err != nil {
			return nil, err
		}
		d, err := t.UpdateTable(s.db, fdyno.UpdateTableInput{StreamSpecification: &fdyno.StreamSpecification{
			StreamEnabled: *ss.StreamEnabled, StreamViewType: fdyno.StreamViewType(ss.StreamViewType)}})
		if err != nil {
			return nil, err
		}
		return updateTableOutput{TableDescription: s.describe(d, "ACTIVE")}, nil
	}
	if in.BillingMode != "" || in.ProvisionedThroughput != nil {
		if err := checkBilling(createTableInput{BillingMode: in.BillingMode, ProvisionedThroughput: in.ProvisionedThroughput}); err != nil {
			return nil, err
		}
	}
	if in.GlobalSecondaryIndexUpdates == nil {
		if in.BillingMode == "" && in.ProvisionedThroughput == nil {
			return nil, validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
		}
		// Capacity only: nothing fdyno stores changes.
		return s.describeTableOutput(name)
	}
	var up fdyno.UpdateTableInput
	up.AttributeDefinitions = in.AttributeDefinitions
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Update != nil {
			return nil, validation("One or more parameter values were invalid: fdyno tables are on demand (PAY_PER_REQUEST): a global secondary index has no provisioned throughput to update")
		}
		g := fdyno.GlobalSecondaryIndexUpdate{Delete: u.Delete}
		if u.Create != nil {
			g.Create = &u.Create.CreateGlobalSecondaryIndexAction
		}
		up.GlobalSecondaryIndexUpdates = append(up.GlobalSecondaryIndexUpdates, g)
	}
	t, err := s.table(name)
	if err != nil {
		return nil, err
	}
	d, err := t.UpdateTable(s.db, up)
	if err != nil {
		return nil, err
	}
	for _, g := range d.GlobalSecondaryIndexDescriptions {
		if g.IndexStatus == fdyno.IndexStatusCreating {
			s.startBackfill(name, g.IndexName)
		}
	}
	return updateTableOutput{TableDescription: s.describe(d, "ACTIVE")}, nil
}

// describeTableOutput returns the description of table name.
func (s *Server) describeTableOutput(name string) (any, error) {
	t, err := s.table(name)
	if err != nil {
		return nil, err
	}
	d, err := t.Describe(s.db)
	if err != nil {
		return nil, err
	}
	return updateTableOutput{TableDescription: s.describe(d, "ACTIVE")}, nil
}
