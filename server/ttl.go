package server

import (
	"github.com/fdyno/fdyno"
)

// ttl.go: UpdateTimeToLive and DescribeTimeToLive, through fdyno's
// Table.UpdateTimeToLive and the TimeToLiveAttribute of Describe. A
// change is immediate: TTL is ENABLED or DISABLED, never ENABLING or
// DISABLING. The server's sweeper (background.go) deletes expired items.

type timeToLiveSpecification struct {
	AttributeName *string
	Enabled       *bool
}

type updateTimeToLiveInput struct {
	TableName               *string
	TimeToLiveSpecification *timeToLiveSpecification
}

type updateTimeToLiveOutput struct {
	TimeToLiveSpecification fdyno.TimeToLiveSpecification
}

// prepare checks the specification's members.
func (in *updateTimeToLiveInput) prepare(c *call) (string, error) {
	name, err := tableName(c, in.TableName)
	if err != nil {
		return "", err
	}
	spec := in.TimeToLiveSpecification
	switch {
	case spec == nil:
		return "", missing("timeToLiveSpecification")
	case spec.AttributeName == nil:
		return "", missing("timeToLiveSpecification.attributeName")
	case spec.Enabled == nil:
		return "", missing("timeToLiveSpecification.enabled")
	}
	return name, nil
}

func (s *Server) updateTimeToLive(_ *call, in *updateTimeToLiveInput, t *fdyno.Table) (any, error) {
	spec := in.TimeToLiveSpecification
	out, err := t.UpdateTimeToLive(s.db, fdyno.TimeToLiveSpecification{AttributeName: *spec.AttributeName, Enabled: *spec.Enabled})
	if err != nil {
		return nil, err
	}
	return updateTimeToLiveOutput{TimeToLiveSpecification: *out}, nil
}

type timeToLiveDescription struct {
	TimeToLiveStatus string
	AttributeName    string `json:",omitempty"`
}

type describeTimeToLiveOutput struct {
	TimeToLiveDescription timeToLiveDescription
}

func (s *Server) describeTimeToLive(_ *call, _ *tableNameInput, t *fdyno.Table) (any, error) {
	d, err := t.Describe(s.db)
	if err != nil {
		return nil, err
	}
	if d.TimeToLiveAttribute == "" {
		return describeTimeToLiveOutput{TimeToLiveDescription: timeToLiveDescription{TimeToLiveStatus: "DISABLED"}}, nil
	}
	return describeTimeToLiveOutput{TimeToLiveDescription: timeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: d.TimeToLiveAttribute}}, nil
}
