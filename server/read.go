package server

import (
	"strconv"

	"github.com/fdyno/fdyno"
)

// read.go: Query and Scan, one page per request as in DynamoDB (1 MB read
// at most, LastEvaluatedKey to resume), through the library's Query and
// Scan.

// readCommon are the members Query and Scan share.
type readCommon struct {
	TableName                 *string
	IndexName                 string
	FilterExpression          string
	ProjectionExpression      string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues wireValues
	Limit                     *int
	Select                    fdyno.Select
	ExclusiveStartKey         wireItem
	ConsistentRead            bool
	ReturnConsumedCapacity    string
	AttributesToGet           []string
	ConditionalOperator       legacyParam

	legacy legacyRead // the legacy members (prepareRead)
}

// prepareRead validates what the library does not (DynamoDB's Limit
// bound, the enums, then the legacy members l as far as no key schema is
// needed, legacy.go); it returns the table's name. The run function
// rewrites the legacy members into expressions (applyRead) once the table
// is looked up.
func (r *readCommon) prepareRead(c *call, l legacyRead) (string, error) {
	name, err := tableName(c, r.TableName)
	if err != nil {
		return "", err
	}
	if err := checkReadMembers(c.op, r); err != nil {
		return "", err
	}
	r.legacy = l
	if err := checkRead(r, &r.legacy); err != nil {
		return "", err
	}
	return name, nil
}

func (r *readCommon) limit() int {
	if r.Limit == nil {
		return 0
	}
	return *r.Limit
}

// readOutput is a page of Query or Scan.
type readOutput struct {
	Items            *[]wireItem       `json:",omitempty"`
	Count            int               `json:"Count"`
	ScannedCount     int               `json:"ScannedCount"`
	LastEvaluatedKey wireItem          `json:",omitempty"`
	ConsumedCapacity *consumedCapacity `json:",omitempty"`
}

func (s *Server) newReadOutput(r *readCommon, t *fdyno.Table, items []fdyno.Item, count, scanned, scannedSize int, last fdyno.Item) readOutput {
	out := readOutput{Count: count, ScannedCount: scanned, LastEvaluatedKey: wireItem(last),
		ConsumedCapacity: s.scanCapacity(r.ReturnConsumedCapacity, t, r.IndexName, scannedSize, r.ConsistentRead)}
	if r.Select != fdyno.SelectCount {
		// DynamoDB sends "Items":[] for an empty page.
		page := make([]wireItem, len(items))
		for i, it := range items {
			page[i] = wireItem(it)
		}
		out.Items = &page
	}
	return out
}

type queryInput struct {
	readCommon
	KeyConditionExpression string
	ScanIndexForward       *bool
	KeyConditions          legacyParam
	QueryFilter            legacyParam
}

func (in *queryInput) prepare(c *call) (string, error) {
	return in.prepareRead(c, legacyRead{query: true, keyConds: in.KeyConditions, filter: in.QueryFilter, keyCondExpr: &in.KeyConditionExpression})
}

func (s *Server) query(_ *call, in *queryInput, t *fdyno.Table) (any, error) {
	if err := s.applyRead(t, &in.readCommon, &in.legacy); err != nil {
		return nil, err
	}
	proj, names, err := readProjection(in.AttributesToGet, in.ProjectionExpression, in.ExpressionAttributeNames, present(
		"KeyConditionExpression", in.KeyConditionExpression, "FilterExpression", in.FilterExpression,
		"ProjectionExpression", in.ProjectionExpression)...)
	if err != nil {
		return nil, err
	}
	out, err := t.Query(s.db, fdyno.QueryInput{
		IndexName:                 in.IndexName,
		KeyConditionExpression:    in.KeyConditionExpression,
		FilterExpression:          in.FilterExpression,
		ProjectionExpression:      proj,
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: in.ExpressionAttributeValues,
		ScanIndexForward:          in.ScanIndexForward,
		Limit:                     in.limit(),
		Select:                    in.Select,
		ExclusiveStartKey:         fdyno.Item(in.ExclusiveStartKey),
		ConsistentRead:            in.ConsistentRead,
	})
	if err != nil {
		return nil, err
	}
	return s.newReadOutput(&in.readCommon, t, out.Items, out.Count, out.ScannedCount, out.ScannedSize, out.LastEvaluatedKey), nil
}

type scanInput struct {
	readCommon
	Segment       *int
	TotalSegments *int
	ScanFilter    legacyParam
}

func (in *scanInput) prepare(c *call) (string, error) {
	return in.prepareRead(c, legacyRead{filter: in.ScanFilter})
}

func (s *Server) scan(_ *call, in *scanInput, t *fdyno.Table) (any, error) {
	if err := s.applyRead(t, &in.readCommon, &in.legacy); err != nil {
		return nil, err
	}
	segment, total := 0, 0
	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return nil, validation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.Segment == nil && in.TotalSegments != nil:
		return nil, validation("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.TotalSegments != nil:
		segment, total = *in.Segment, *in.TotalSegments
		if total < 1 {
			return nil, validation("1 validation error detected: Value '" + strconv.Itoa(total) + "' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1")
		}
	}
	proj, names, err := readProjection(in.AttributesToGet, in.ProjectionExpression, in.ExpressionAttributeNames, present(
		"FilterExpression", in.FilterExpression, "ProjectionExpression", in.ProjectionExpression)...)
	if err != nil {
		return nil, err
	}
	out, err := t.Scan(s.db, fdyno.ScanInput{
		IndexName:                 in.IndexName,
		FilterExpression:          in.FilterExpression,
		ProjectionExpression:      proj,
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: in.ExpressionAttributeValues,
		Limit:                     in.limit(),
		Select:                    in.Select,
		ExclusiveStartKey:         fdyno.Item(in.ExclusiveStartKey),
		Segment:                   segment,
		TotalSegments:             total,
		ConsistentRead:            in.ConsistentRead,
	})
	if err != nil {
		return nil, err
	}
	return s.newReadOutput(&in.readCommon, t, out.Items, out.Count, out.ScannedCount, out.ScannedSize, out.LastEvaluatedKey), nil
}
