package server

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fdyno/fdyno"
)

// policy_request.go names what each request needs from the policies: the
// actions and resources DynamoDB's "Actions, resources, and condition
// keys for Amazon DynamoDB" lists for it, and the condition keys of
// fine-grained access control. It reads the body on its own, before the
// operation decodes it, so a refusal comes before any data is read or
// written.
//
//  1. Item operations need their action on the table's ARN; Query and
//     Scan on an index need it on the index's ARN (table/T/index/I).
//  2. BatchGetItem needs dynamodb:BatchGetItem on each table, with the
//     keys of that table; BatchWriteItem needs dynamodb:BatchWriteItem
//     once per item, with that item's keys and attributes.
//  3. TransactWriteItems needs, per item, the action of its kind
//     (dynamodb:PutItem, UpdateItem, DeleteItem, ConditionCheckItem) on
//     its table; TransactGetItems dynamodb:GetItem per item.
//  4. PartiQL needs dynamodb:PartiQLSelect/Insert/Update/Delete per
//     statement on its table (or index); its partition keys are not
//     read from the statement, so dynamodb:LeadingKeys is unknown (fails
//     closed).
//  5. Stream operations need their action on the stream's ARN; ListTables,
//     ListStreams, DescribeLimits and DescribeEndpoints on "*"; tagging
//     on the ARN given.
//
// Condition keys: dynamodb:LeadingKeys are the partition key values the
// request names (Key, Item, or a Query's key condition on the table's
// partition key), as text (a number's digits, a binary's base64);
// dynamodb:Attributes are the top-level attribute names it projects or
// writes; dynamodb:Select is the request's Select, or its default
// (SPECIFIC_ATTRIBUTES with a projection, ALL_PROJECTED_ATTRIBUTES for
// an index, ALL_ATTRIBUTES otherwise), for GetItem, BatchGetItem, Query
// and Scan; dynamodb:ReturnValues is the request's ReturnValues, when
// given.

// authzBody is the part of any request body the policies look at.
type authzBody struct {
	TableName                 *string
	IndexName                 *string
	Key                       map[string]json.RawMessage
	Item                      map[string]json.RawMessage
	ProjectionExpression      *string
	AttributesToGet           []string
	Select                    *string
	ReturnValues              *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]json.RawMessage
	KeyConditionExpression    *string
	KeyConditions             map[string]struct {
		AttributeValueList []json.RawMessage
		ComparisonOperator string
	}
	UpdateExpression *string
	AttributeUpdates map[string]json.RawMessage
	RequestItems     map[string]json.RawMessage
	TransactItems    []map[string]authzBody
	ResourceArn      *string
	StreamArn        *string
	ShardIterator    *string
	Statement        *string
	Statements       []struct{ Statement *string }
	TransactStmts    []struct{ Statement *string } `json:"TransactStatements"`
}

// authzChecks returns the checks request op of s's namespace needs.
func (s *Server) authzChecks(op string, body []byte) ([]authzCheck, error) {
	var in authzBody
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, serializationOf(err)
	}
	action := "dynamodb:" + op
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	table := str(in.TableName)
	switch op {
	case "ListTables", "ListStreams", "DescribeLimits", "DescribeEndpoints":
		return []authzCheck{{action: action, resource: "*"}}, nil
	case "TagResource", "UntagResource", "ListTagsOfResource":
		return []authzCheck{{action: action, resource: str(in.ResourceArn)}}, nil
	case "DescribeStream", "GetShardIterator":
		return []authzCheck{{action: action, resource: str(in.StreamArn)}}, nil
	case "GetRecords":
		it, err := s.decodeIterator(str(in.ShardIterator))
		if err != nil {
			return nil, err
		}
		return []authzCheck{{action: action, resource: s.tableARN(it.table) + "/stream/" + it.label}}, nil
	case "GetItem", "PutItem", "UpdateItem", "DeleteItem":
		return []authzCheck{s.itemCheck(action, table, &in)}, nil
	case "Query", "Scan":
		res := s.tableARN(table)
		if in.IndexName != nil {
			res += "/index/" + *in.IndexName
		}
		c := authzCheck{action: action, resource: res, ctx: map[string]ctxValue{}}
		setProjection(c.ctx, &in, in.IndexName != nil)
		if op == "Query" {
			c.ctx["dynamodb:leadingkeys"] = s.queryLeadingKeys(table, &in)
		}
		return []authzCheck{c}, nil
	case "BatchGetItem":
		var checks []authzCheck
		for name, raw := range in.RequestItems {
			var ka authzBody
			if err := json.Unmarshal(raw, &ka); err != nil {
				return nil, serializationOf(err)
			}
			var keys struct{ Keys []map[string]json.RawMessage }
			_ = json.Unmarshal(raw, &keys)
			c := authzCheck{action: action, resource: s.tableARN(name), ctx: map[string]ctxValue{}}
			setProjection(c.ctx, &ka, false)
			c.ctx["dynamodb:leadingkeys"] = s.leadingKeys(name, keys.Keys...)
			checks = append(checks, c)
		}
		return checks, nil
	case "BatchWriteItem":
		var checks []authzCheck
		for name, raw := range in.RequestItems {
			var reqs []struct {
				PutRequest    *struct{ Item map[string]json.RawMessage }
				DeleteRequest *struct{ Key map[string]json.RawMessage }
			}
			if err := json.Unmarshal(raw, &reqs); err != nil {
				return nil, serializationOf(err)
			}
			for _, r := range reqs {
				var b authzBody
				if r.PutRequest != nil {
					b.Item = r.PutRequest.Item
				}
				if r.DeleteRequest != nil {
					b.Key = r.DeleteRequest.Key
				}
				checks = append(checks, s.itemCheck(action, name, &b))
			}
		}
		return checks, nil
	case "TransactWriteItems", "TransactGetItems":
		var checks []authzCheck
		for _, item := range in.TransactItems {
			for kind, b := range item {
				a := map[string]string{"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
					"ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}[kind]
				if a == "" {
					continue // the operation refuses it
				}
				checks = append(checks, s.itemCheck("dynamodb:"+a, str(b.TableName), &b))
			}
		}
		return checks, nil
	case "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction":
		stmts := []*string{in.Statement}
		for _, st := range in.Statements {
			stmts = append(stmts, st.Statement)
		}
		for _, st := range in.TransactStmts {
			stmts = append(stmts, st.Statement)
		}
		var checks []authzCheck
		for _, st := range stmts {
			if st == nil {
				continue
			}
			info, err := s.pq.Statement(*st)
			if err != nil {
				continue // the operation answers the parse error; it reaches no table
			}
			res := s.tableARN(info.TableName)
			if info.IndexName != "" {
				res += "/index/" + info.IndexName
			}
			checks = append(checks, authzCheck{action: "dynamodb:" + info.Action, resource: res,
				ctx: map[string]ctxValue{"dynamodb:leadingkeys": {unknown: true}, "dynamodb:attributes": {unknown: true}}})
		}
		return checks, nil
	}
	// Table operations: CreateTable, DeleteTable, DescribeTable, UpdateTable,
	// the TTL and backup settings.
	return []authzCheck{{action: action, resource: s.tableARN(table)}}, nil
}

// itemCheck is the check of one item operation on table.
func (s *Server) itemCheck(action, table string, in *authzBody) authzCheck {
	c := authzCheck{action: action, resource: s.tableARN(table), ctx: map[string]ctxValue{}}
	key := in.Key
	if in.Item != nil {
		key = in.Item
		c.ctx["dynamodb:attributes"] = ctxValue{values: slices.Sorted(maps.Keys(in.Item))}
	}
	c.ctx["dynamodb:leadingkeys"] = s.leadingKeys(table, key)
	switch action {
	case "dynamodb:GetItem":
		setProjection(c.ctx, in, false)
	case "dynamodb:UpdateItem":
		c.ctx["dynamodb:attributes"] = updatedAttributes(in)
	}
	if in.ReturnValues != nil {
		c.ctx["dynamodb:returnvalues"] = ctxValue{values: []string{*in.ReturnValues}}
	}
	return c
}

// setProjection sets dynamodb:Attributes (the projected names) and
// dynamodb:Select of a read.
func setProjection(ctx map[string]ctxValue, in *authzBody, index bool) {
	var names []string
	if in.ProjectionExpression != nil {
		names = projectionNames(*in.ProjectionExpression, in.ExpressionAttributeNames)
	}
	names = append(names, in.AttributesToGet...)
	sel := "ALL_ATTRIBUTES"
	switch {
	case in.Select != nil:
		sel = *in.Select
	case len(names) > 0:
		sel = "SPECIFIC_ATTRIBUTES"
	case index:
		sel = "ALL_PROJECTED_ATTRIBUTES"
	}
	ctx["dynamodb:select"] = ctxValue{values: []string{sel}}
	if len(names) > 0 {
		ctx["dynamodb:attributes"] = ctxValue{values: names}
	}
}

// projectionNames returns the top-level attribute names of a projection
// expression's paths, #names resolved.
func projectionNames(expr string, names map[string]string) []string {
	var out []string
	for _, path := range strings.Split(expr, ",") {
		top := strings.TrimSpace(path)
		if i := strings.IndexAny(top, ".["); i >= 0 {
			top = top[:i]
		}
		top = strings.TrimSpace(top)
		if strings.HasPrefix(top, "#") {
			top = names[top]
		}
		out = append(out, top)
	}
	return out
}

// updateNameToken finds the attribute names an update expression may
// touch: every #name and every bare word.
var updateNameToken = regexp.MustCompile(`#[A-Za-z0-9_]+|:[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*`)

// updateKeywords are the words of the update grammar that are no names.
var updateKeywords = map[string]bool{"set": true, "remove": true, "add": true, "delete": true,
	"if_not_exists": true, "list_append": true}

// updatedAttributes is dynamodb:Attributes of an UpdateItem: the names
// of AttributeUpdates, or every name its UpdateExpression mentions (an
// over-approximation, which can only refuse more).
func updatedAttributes(in *authzBody) ctxValue {
	names := slices.Sorted(maps.Keys(in.AttributeUpdates))
	if in.UpdateExpression != nil {
		for _, tok := range updateNameToken.FindAllString(*in.UpdateExpression, -1) {
			switch {
			case strings.HasPrefix(tok, ":"):
			case strings.HasPrefix(tok, "#"):
				names = append(names, in.ExpressionAttributeNames[tok])
			case !updateKeywords[strings.ToLower(tok)]:
				names = append(names, tok)
			}
		}
	}
	if len(names) == 0 {
		return ctxValue{}
	}
	return ctxValue{values: names}
}

// partitionKeyOf returns the name of table's partition key, or "" when
// the table cannot be described (it does not exist).
func (s *Server) partitionKeyOf(table string) string {
	t, err := s.table(table)
	if err != nil {
		return ""
	}
	d, err := t.Describe(s.db)
	if err != nil {
		return ""
	}
	for _, k := range d.KeySchema {
		if k.KeyType == fdyno.KeyTypeHash {
			return k.AttributeName
		}
	}
	return ""
}

// leadingKeys is dynamodb:LeadingKeys of keys of table: their partition
// key values, or unknown when a value cannot be read.
func (s *Server) leadingKeys(table string, keys ...map[string]json.RawMessage) ctxValue {
	if len(keys) == 0 || len(keys) == 1 && keys[0] == nil {
		return ctxValue{}
	}
	pk := s.partitionKeyOf(table)
	if pk == "" {
		return ctxValue{unknown: true}
	}
	var v ctxValue
	for _, k := range keys {
		text, ok := scalarText(k[pk])
		if !ok {
			return ctxValue{unknown: true}
		}
		v.values = append(v.values, text)
	}
	return v
}

// scalarText is the text of an S, N or B attribute value in wire JSON.
func scalarText(raw json.RawMessage) (string, bool) {
	var av map[string]string
	if err := json.Unmarshal(raw, &av); err != nil || len(av) != 1 {
		return "", false
	}
	for typ, v := range av {
		if typ == "S" || typ == "N" || typ == "B" {
			return v, true
		}
	}
	return "", false
}

// keyConditionAnd splits a key condition at its ANDs.
var keyConditionAnd = regexp.MustCompile(`(?i)\s+and\s+`)

// keyEquality matches one "name = :value" comparison.
var keyEquality = regexp.MustCompile(`^\s*\(?\s*(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)\s*\)?\s*$`)

// queryLeadingKeys is dynamodb:LeadingKeys of a Query: the value its key
// condition gives the table's partition key; unknown when the server
// cannot read it (an index query, an unusual expression).
func (s *Server) queryLeadingKeys(table string, in *authzBody) ctxValue {
	if in.IndexName != nil {
		return ctxValue{unknown: true}
	}
	pk := s.partitionKeyOf(table)
	if pk == "" {
		return ctxValue{unknown: true}
	}
	if kc, ok := in.KeyConditions[pk]; ok && kc.ComparisonOperator == "EQ" && len(kc.AttributeValueList) == 1 {
		if text, ok := scalarText(kc.AttributeValueList[0]); ok {
			return ctxValue{values: []string{text}}
		}
	}
	if in.KeyConditionExpression == nil {
		return ctxValue{unknown: true}
	}
	for _, part := range keyConditionAnd.Split(*in.KeyConditionExpression, -1) {
		m := keyEquality.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		name := m[1]
		if strings.HasPrefix(name, "#") {
			name = in.ExpressionAttributeNames[name]
		}
		if name == pk {
			if text, ok := scalarText(in.ExpressionAttributeValues[m[2]]); ok {
				return ctxValue{values: []string{text}}
			}
		}
	}
	return ctxValue{unknown: true}
}
