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

func (s *Server) updateTimeToLive(c *call, body []byte) (any, error) {
	var in updateTimeToLiveInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name, err := tableName(c, in.TableName)
	if err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	switch {
	case spec == nil:
		return nil, missing("timeToLiveSpecification")
	case spec.AttributeName == nil:
		return nil, missing("timeToLiveSpecification.attributeName")
	case spec.Enabled == nil:
		return nil, missing("timeToLiveSpecification.enabled")
	}
	t, err := s.table(name)
	if err != nil {
		return nil, err
	}
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

func (s *Server) describeTimeToLive(c *call, body []byte) (any, error) {
	var in tableNameInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name, err := tableName(c, in.TableName)
	if err != nil {
		return nil, err
	}
	t, err := s.table(name)
	if err != nil {
		return nil, err
	}
	d, err := t.Describe(s.db)
	if err != nil {
		return nil, err
	}
	if d.TimeToLiveAttribute == "" {
		return describeTimeToLiveOutput{TimeToLiveDescription: timeToLiveDescription{TimeToLiveStatus: "DISABLED"}}, nil
	}
	return describeTimeToLiveOutput{TimeToLiveDescription: timeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: d.TimeToLiveAttribute}}, nil
}
