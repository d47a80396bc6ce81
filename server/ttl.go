package server

import (
	"strconv"
	"unicode/utf8"

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
	// The member's constraint (DynamoDB's API reference: 1 to 255
	// characters), checked before the table is looked up.
	var v constraints
	switch n := utf8.RuneCountInString(*spec.AttributeName); {
	case n < 1:
		v.add("timeToLiveSpecification.attributeName", spec.AttributeName, "Member must have length greater than or equal to 1")
	case n > maxTTLAttributeNameLength:
		v.add("timeToLiveSpecification.attributeName", spec.AttributeName, "Member must have length less than or equal to "+strconv.Itoa(maxTTLAttributeNameLength))
	}
	return name, v.err()
}

// maxTTLAttributeNameLength is the most characters of a TTL attribute
// name.
const maxTTLAttributeNameLength = 255

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
