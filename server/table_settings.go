package server

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// table_settings.go: what the server keeps for a table beyond what the
// library acts on (tableSettings: billing mode, provisioned throughput,
// deletion protection, tags), stored as the table's settings record
// (fdyno.WithSettings, Table.UpdateSettings), and UpdateTable's changes
// of them, applied with DynamoDB's rules. fdyno has no capacity: the
// values are kept and reported, never enforced. Deletion protection is:
// DeleteTable checks it in the transaction that deletes the table.

// The billing modes.
const (
	billingProvisioned   = "PROVISIONED"
	billingPayPerRequest = "PAY_PER_REQUEST"
)

// tableSettings is the settings record, JSON. Tables written before the
// record existed kept these fields among the library's table properties,
// under these names; the library hands them over as the record, so the
// names never change.
type tableSettings struct {
	// BillingMode is PROVISIONED or PAY_PER_REQUEST; empty reads as
	// PAY_PER_REQUEST.
	BillingMode string `json:",omitempty"`
	// ProvisionedThroughput is the table's capacity when PROVISIONED.
	ProvisionedThroughput *provisioned `json:",omitempty"`
	// IndexThroughput is the capacity of each global secondary index, by
	// index name, when PROVISIONED.
	IndexThroughput map[string]provisioned `json:",omitempty"`
	// LastUpdateToPayPerRequest is when the billing mode was last set to
	// PAY_PER_REQUEST by a change of an existing table (DynamoDB's
	// BillingModeSummary.LastUpdateToPayPerRequestDateTime); nil for a
	// table that has been PAY_PER_REQUEST since its creation. It stays
	// as it was while the table is PROVISIONED.
	LastUpdateToPayPerRequest *time.Time `json:",omitempty"`
	// DeletionProtectionEnabled makes DeleteTable refuse the table.
	DeletionProtectionEnabled bool `json:",omitempty"`
	// Tags are the table's tags, in key order, keys unique (tags.go).
	Tags []tag `json:",omitempty"`
	// Restore is the RestoreSummary of a table made by a restore
	// (backup_ops.go).
	Restore *restoreSummary `json:",omitempty"`
}

// provisioned is a capacity in DynamoDB's units.
type provisioned struct {
	ReadCapacityUnits  int64
	WriteCapacityUnits int64
}

// settingsOf decodes the settings record of the table described by d; a
// table without one has the zero settings.
func settingsOf(d *fdyno.TableDescription) (tableSettings, error) {
	var ts tableSettings
	if len(d.Settings) == 0 {
		return ts, nil
	}
	if err := json.Unmarshal(d.Settings, &ts); err != nil {
		return ts, &fdyno.CorruptError{What: "table settings", Reason: "cannot decode the settings of " + d.TableName}
	}
	return ts, nil
}

// encode returns the settings record of ts; the zero settings are none.
func (ts *tableSettings) encode() ([]byte, error) {
	if ts.BillingMode == "" && ts.ProvisionedThroughput == nil && ts.IndexThroughput == nil && ts.LastUpdateToPayPerRequest == nil && !ts.DeletionProtectionEnabled && len(ts.Tags) == 0 && ts.Restore == nil {
		return nil, nil
	}
	return json.Marshal(ts)
}

// updateSettings replaces the settings of table t with f's change of
// them, in one transaction of db, and returns the table's description
// after it. f may be called more than once.
func updateSettings(db fdb.Transactor, t *fdyno.Table, f func(*tableSettings) error) (*fdyno.TableDescription, error) {
	return t.UpdateSettings(db, func(old []byte) ([]byte, error) {
		ts, err := settingsOf(&fdyno.TableDescription{TableName: t.Name(), Settings: old})
		if err != nil {
			return nil, err
		}
		if err := f(&ts); err != nil {
			return nil, err
		}
		return ts.encode()
	})
}

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
func (c *settingsChange) apply(p *tableSettings, gsis []string, now time.Time) error {
	mode := p.BillingMode
	if mode == "" {
		mode = billingPayPerRequest
	}
	next := mode
	if c.BillingMode != "" {
		next = c.BillingMode
	}
	if c.DeletionProtectionEnabled != nil {
		p.DeletionProtectionEnabled = *c.DeletionProtectionEnabled
	}
	if next == billingPayPerRequest {
		if c.ProvisionedThroughput != nil {
			return validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		for _, u := range c.indexUpdates {
			return validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: " + u.IndexName + " when BillingMode is PAY_PER_REQUEST")
		}
		if c.created != nil && c.created.ProvisionedThroughput != nil {
			return validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: " + c.created.IndexName + " when BillingMode is PAY_PER_REQUEST")
		}
		if mode != billingPayPerRequest {
			at := now.UTC()
			p.LastUpdateToPayPerRequest = &at
		}
		p.BillingMode, p.ProvisionedThroughput, p.IndexThroughput = billingPayPerRequest, nil, nil
		return nil
	}
	// PROVISIONED, already or from now on.
	switching := mode != billingProvisioned
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
	p.BillingMode = billingProvisioned
	index := map[string]provisioned{}
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
