package server

import (
	"slices"
	"strconv"
	"time"

	"github.com/fdyno/fdyno"
)

// table_settings.go: UpdateTable's changes of billing mode, provisioned
// throughput (the table's and each global secondary index's) and
// deletion protection, applied to the table's stored properties with
// DynamoDB's rules. fdyno has no capacity: the values are kept and
// reported, never enforced.

// gsiThroughputUpdate is the Update action of GlobalSecondaryIndexUpdates.
type gsiThroughputUpdate struct {
	IndexName             string
	ProvisionedThroughput *provisionedThroughput
}

// settingsChange are the members of an UpdateTable that change settings.
type settingsChange struct {
	BillingMode               string
	ProvisionedThroughput     *provisionedThroughput
	DeletionProtectionEnabled *bool
	indexUpdates              []gsiThroughputUpdate
	// created is the index a Create action of the same request adds, with
	// its throughput.
	created *createGSIAction
	// createdAt is the table's creation time (zero if unknown).
	createdAt time.Time
}

func (c *settingsChange) any() bool {
	return c.BillingMode != "" || c.ProvisionedThroughput != nil || c.DeletionProtectionEnabled != nil || len(c.indexUpdates) > 0 || c.created != nil
}

// apply changes p as the request asks, given the table's indexes, or
// returns DynamoDB's error for the change; a switch to PAY_PER_REQUEST
// records now as the table's LastUpdateToPayPerRequest.
func (c *settingsChange) apply(p *fdyno.TableProperties, gsis []string, now time.Time) error {
	mode := p.BillingMode
	if mode == "" {
		mode = fdyno.BillingModePayPerRequest
	}
	next := mode
	if c.BillingMode != "" {
		next = fdyno.BillingMode(c.BillingMode)
	}
	if c.DeletionProtectionEnabled != nil {
		p.DeletionProtectionEnabled = *c.DeletionProtectionEnabled
	}
	if next == fdyno.BillingModePayPerRequest {
		if c.ProvisionedThroughput != nil {
			return validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		for _, u := range c.indexUpdates {
			return validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: " + u.IndexName + " when BillingMode is PAY_PER_REQUEST")
		}
		if c.created != nil && c.created.ProvisionedThroughput != nil {
			return validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: " + c.created.IndexName + " when BillingMode is PAY_PER_REQUEST")
		}
		if mode != fdyno.BillingModePayPerRequest {
			at := now.UTC()
			p.LastUpdateToPayPerRequest = &at
		}
		p.BillingMode, p.ProvisionedThroughput, p.IndexThroughput = fdyno.BillingModePayPerRequest, nil, nil
		return nil
	}
	// PROVISIONED, already or from now on.
	switching := mode != fdyno.BillingModeProvisioned
	if switching && p.LastUpdateToPayPerRequest == nil && !c.createdAt.IsZero() {
		// PAY_PER_REQUEST since its creation: that stays the last time
		// the table was set to it.
		at := c.createdAt.UTC()
		p.LastUpdateToPayPerRequest = &at
	}
	if switching && c.ProvisionedThroughput == nil {
		return validation("One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	}
	if pt := c.ProvisionedThroughput; pt != nil {
		if err := checkThroughput(pt); err != nil {
			return err
		}
		cur, want := p.ProvisionedThroughput, pt.units()
		if !switching && cur != nil && *cur == *want && len(c.indexUpdates) == 0 {
			return validation("The provisioned throughput for the table will not change. The requested value equals the current value. " +
				"Current ReadCapacityUnits provisioned for the table: " + strconv.FormatInt(cur.ReadCapacityUnits, 10) +
				". Requested ReadCapacityUnits: " + strconv.FormatInt(want.ReadCapacityUnits, 10) +
				". Current WriteCapacityUnits provisioned for the table: " + strconv.FormatInt(cur.WriteCapacityUnits, 10) +
				". Requested WriteCapacityUnits: " + strconv.FormatInt(want.WriteCapacityUnits, 10) +
				". Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
		}
		p.ProvisionedThroughput = want
	}
	p.BillingMode = fdyno.BillingModeProvisioned
	index := map[string]fdyno.ProvisionedThroughput{}
	if !switching {
		for k, v := range p.IndexThroughput {
			index[k] = v
		}
	}
	for _, u := range c.indexUpdates {
		if !slices.Contains(gsis, u.IndexName) {
			return &apiError{typ: errResourceNotFound, msg: "Requested resource not found: Index: " + u.IndexName + " not found"}
		}
		if u.ProvisionedThroughput == nil {
			return missing("globalSecondaryIndexUpdates.member.update.provisionedThroughput")
		}
		if err := checkThroughput(u.ProvisionedThroughput); err != nil {
			return err
		}
		index[u.IndexName] = *u.ProvisionedThroughput.units()
	}
	if g := c.created; g != nil {
		if g.ProvisionedThroughput == nil {
			return validation("One or more parameter values were invalid: ProvisionedThroughput must be specified for index: " + g.IndexName)
		}
		if err := checkThroughput(g.ProvisionedThroughput); err != nil {
			return err
		}
		index[g.IndexName] = *g.ProvisionedThroughput.units()
	}
	for _, name := range gsis {
		if _, ok := index[name]; !ok {
			return validation("One or more parameter values were invalid: ProvisionedThroughput must be specified for index: " + name)
		}
	}
	p.IndexThroughput = index
	return nil
}
