package server

import (
	"encoding/base64"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fdyno/fdyno"
)

// policy_request.go names what each request needs from the policies: the
// actions and resources DynamoDB's "Actions, resources, and condition
// keys for Amazon DynamoDB" lists for it, and the condition keys of
// fine-grained access control. Each input's authz method computes them
// from the decoded input the operation runs (authz.go), before prepare
// validates it, with table names resolved as prepare resolves them
// (authzTable): never from the raw body.
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
//     on the table's ARN.
//
// Condition keys: dynamodb:LeadingKeys are the partition key values of
// the keys the request acts on: Key for GetItem, UpdateItem, DeleteItem
// and a transaction's Get, Update, Delete and ConditionCheck; Item for
// PutItem and a Put; a Query's key condition on the table's partition
// key. They are given as text (a string, a number's digits, a binary's
// base64). dynamodb:Attributes are the top-level attribute names the
// request projects or writes; dynamodb:Select is the request's Select,
// or its default (SPECIFIC_ATTRIBUTES with a projection,
// ALL_PROJECTED_ATTRIBUTES for an index, ALL_ATTRIBUTES otherwise), for
// GetItem, BatchGetItem, Query and Scan; dynamodb:ReturnValues is the
// request's ReturnValues, when given.
//
// What a check grants at the point of access (accessCheck) follows from
// its action: reads of its partitions (GetItem, ConditionCheckItem,
// BatchGetItem, Query, PartiQLSelect), reads and writes of them (PutItem,
// UpdateItem, DeleteItem, BatchWriteItem, PartiQL's writes), an index
// (Query and Scan of one, PartiQL on one), every partition (Scan: it has
// no LeadingKeys), the stream (GetRecords).

// onResource is a check that grants no access to items.
func onResource(action, resource string) []accessCheck {
	return []accessCheck{{authzCheck: authzCheck{action: action, resource: resource}}}
}

// itemCheck is the check of one item operation on table: key is the key
// (or item) it acts on; attrs, when not nil, are the attribute names it
// writes; kinds what it does to the item.
func (s *Server) itemCheck(action, table string, key fdyno.Item, attrs []string, kinds accessKind) accessCheck {
	c := accessCheck{authzCheck: authzCheck{action: action, resource: s.tableARN(table), ctx: map[string]ctxValue{}}, table: table, kinds: kinds}
	c.ctx["dynamodb:leadingkeys"], c.parts = s.leadingKeys(table, key)
	if attrs != nil {
		c.ctx["dynamodb:attributes"] = ctxValue{values: attrs}
	}
	return c
}

func withReturnValues(c accessCheck, rv fdyno.ReturnValue) accessCheck {
	if rv != "" {
		c.ctx["dynamodb:returnvalues"] = ctxValue{values: []string{string(rv)}}
	}
	return c
}

// authzTable resolves the TableName name for the checks, before the
// request is validated: a table ARN of the caller's (another is refused,
// checkARNOwner) names its table, anything else names itself, so a
// refused caller learns nothing from validation. prepare resolves it the
// same way (tableName), and the guarded handles compare by name.
func authzTable(c *call, name *string) (string, error) {
	if name == nil {
		return "", nil
	}
	if region, account, table, ok := splitTableARN(*name); ok {
		if err := checkARNOwner(c, *name, region, account); err != nil {
			return "", err
		}
		return table, nil
	}
	return *name, nil
}

// tableChecks is the one check of a table operation: action on the
// table's ARN.
func (s *Server) tableChecks(c *call, name *string, action string) ([]accessCheck, error) {
	table, err := authzTable(c, name)
	if err != nil {
		return nil, err
	}
	return onResource(action, s.tableARN(table)), nil
}

func (in *getItemInput) authz(s *Server, c *call) ([]accessCheck, error) {
	table, err := authzTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	ch := s.itemCheck("dynamodb:GetItem", table, fdyno.Item(in.Key), nil, readItems)
	setProjection(ch.ctx, in.ProjectionExpression, in.ExpressionAttributeNames, in.AttributesToGet, "", false)
	return []accessCheck{ch}, nil
}

func (in *putItemInput) authz(s *Server, c *call) ([]accessCheck, error) {
	table, err := authzTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	it := fdyno.Item(in.Item)
	return []accessCheck{withReturnValues(s.itemCheck("dynamodb:PutItem", table, it, slices.Sorted(maps.Keys(it)), readItems|writeItems), in.ReturnValues)}, nil
}

func (in *updateItemInput) authz(s *Server, c *call) ([]accessCheck, error) {
	table, err := authzTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	attrs := updatedAttributes(in.UpdateExpression, in.ExpressionAttributeNames)
	if in.AttributeUpdates.present() {
		names, _, err := decodeLegacyMap[rawUpdate](in.AttributeUpdates)
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, names...)
	}
	return []accessCheck{withReturnValues(s.itemCheck("dynamodb:UpdateItem", table, fdyno.Item(in.Key), attrs, readItems|writeItems), in.ReturnValues)}, nil
}

func (in *deleteItemInput) authz(s *Server, c *call) ([]accessCheck, error) {
	table, err := authzTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	return []accessCheck{withReturnValues(s.itemCheck("dynamodb:DeleteItem", table, fdyno.Item(in.Key), nil, readItems|writeItems), in.ReturnValues)}, nil
}

// readCheck is the check of a Query or Scan of in on table.
func (s *Server) readCheck(action, table string, in *readCommon) accessCheck {
	c := accessCheck{authzCheck: authzCheck{action: action, resource: s.tableARN(table), ctx: map[string]ctxValue{}}, table: table}
	if in.IndexName != "" {
		c.resource += "/index/" + in.IndexName
		c.index, c.kinds = in.IndexName, readIndex
	}
	setProjection(c.ctx, in.ProjectionExpression, in.ExpressionAttributeNames, in.AttributesToGet, in.Select, in.IndexName != "")
	return c
}

func (in *queryInput) authz(s *Server, c *call) ([]accessCheck, error) {
	table, err := authzTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	ch := s.readCheck("dynamodb:Query", table, &in.readCommon)
	if in.IndexName != "" {
		ch.ctx["dynamodb:leadingkeys"] = ctxValue{unknown: true}
		ch.partsUnknown = true
		return []accessCheck{ch}, nil
	}
	ch.kinds = readItems
	ch.ctx["dynamodb:leadingkeys"], ch.parts = s.queryLeadingKeys(table, in)
	return []accessCheck{ch}, nil
}

func (in *scanInput) authz(s *Server, c *call) ([]accessCheck, error) {
	table, err := authzTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	ch := s.readCheck("dynamodb:Scan", table, &in.readCommon)
	ch.partsUnknown = true // a Scan has no dynamodb:LeadingKeys
	if in.IndexName == "" {
		ch.kinds = readItems
	}
	return []accessCheck{ch}, nil
}

func (in *batchGetItemInput) authz(s *Server, c *call) ([]accessCheck, error) {
	var checks []accessCheck
	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		ka := in.RequestItems[name]
		table, err := authzTable(c, &name)
		if err != nil {
			return nil, err
		}
		keys := make([]fdyno.Item, len(ka.Keys))
		for i, k := range ka.Keys {
			keys[i] = fdyno.Item(k)
		}
		ch := accessCheck{authzCheck: authzCheck{action: "dynamodb:BatchGetItem", resource: s.tableARN(table), ctx: map[string]ctxValue{}}, table: table, kinds: readItems}
		setProjection(ch.ctx, ka.ProjectionExpression, ka.ExpressionAttributeNames, ka.AttributesToGet, "", false)
		ch.ctx["dynamodb:leadingkeys"], ch.parts = s.leadingKeys(table, keys...)
		checks = append(checks, ch)
	}
	return checks, nil
}

func (in *batchWriteItemInput) authz(s *Server, c *call) ([]accessCheck, error) {
	var checks []accessCheck
	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		table, err := authzTable(c, &name)
		if err != nil {
			return nil, err
		}
		for _, r := range in.RequestItems[name] {
			// Both, when a request has both: a check too many only refuses.
			if r.PutRequest != nil {
				it := fdyno.Item(r.PutRequest.Item)
				checks = append(checks, s.itemCheck("dynamodb:BatchWriteItem", table, it, slices.Sorted(maps.Keys(it)), readItems|writeItems))
			}
			if r.DeleteRequest != nil {
				checks = append(checks, s.itemCheck("dynamodb:BatchWriteItem", table, fdyno.Item(r.DeleteRequest.Key), nil, readItems|writeItems))
			}
		}
	}
	return checks, nil
}

func (in *transactWriteItemsInput) authz(s *Server, c *call) ([]accessCheck, error) {
	var checks []accessCheck
	add := func(w *txWriteCommon, action string, key fdyno.Item, attrs []string, kinds accessKind) error {
		table, err := authzTable(c, w.TableName)
		if err != nil {
			return err
		}
		checks = append(checks, s.itemCheck(action, table, key, attrs, kinds))
		return nil
	}
	for _, it := range in.TransactItems {
		var err error
		// Every member present is checked, although the operation refuses
		// an item with more than one: a check too many only refuses.
		if a := it.ConditionCheck; a != nil {
			err = add(&a.txWriteCommon, "dynamodb:ConditionCheckItem", fdyno.Item(a.Key), nil, readItems)
		}
		if a := it.Put; a != nil && err == nil {
			err = add(&a.txWriteCommon, "dynamodb:PutItem", fdyno.Item(a.Item), slices.Sorted(maps.Keys(a.Item)), readItems|writeItems)
		}
		if a := it.Delete; a != nil && err == nil {
			err = add(&a.txWriteCommon, "dynamodb:DeleteItem", fdyno.Item(a.Key), nil, readItems|writeItems)
		}
		if a := it.Update; a != nil && err == nil {
			err = add(&a.txWriteCommon, "dynamodb:UpdateItem", fdyno.Item(a.Key), updatedAttributes(a.UpdateExpression, a.ExpressionAttributeNames), readItems|writeItems)
		}
		if err != nil {
			return nil, err
		}
	}
	return checks, nil
}

func (in *transactGetItemsInput) authz(s *Server, c *call) ([]accessCheck, error) {
	var checks []accessCheck
	for _, it := range in.TransactItems {
		g := it.Get
		if g == nil {
			continue // the operation refuses it
		}
		table, err := authzTable(c, g.TableName)
		if err != nil {
			return nil, err
		}
		ch := s.itemCheck("dynamodb:GetItem", table, fdyno.Item(g.Key), nil, readItems)
		setProjection(ch.ctx, g.ProjectionExpression, g.ExpressionAttributeNames, nil, "", false)
		checks = append(checks, ch)
	}
	return checks, nil
}

// statementChecks are the checks of PartiQL statements.
func (s *Server) statementChecks(stmts ...*string) []accessCheck {
	var checks []accessCheck
	for _, st := range stmts {
		if st == nil {
			continue
		}
		info, err := s.pq.Statement(*st)
		if err != nil {
			continue // the operation answers the parse error; it reaches no table
		}
		c := accessCheck{authzCheck: authzCheck{action: "dynamodb:" + info.Action, resource: s.tableARN(info.TableName),
			ctx: map[string]ctxValue{"dynamodb:leadingkeys": {unknown: true}, "dynamodb:attributes": {unknown: true}}},
			table: info.TableName, kinds: readItems, partsUnknown: true}
		if info.Action != "PartiQLSelect" {
			c.kinds |= writeItems
		}
		if info.IndexName != "" {
			c.resource += "/index/" + info.IndexName
			c.index, c.kinds = info.IndexName, readIndex
		}
		checks = append(checks, c)
	}
	return checks
}

func (in *executeStatementInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	return s.statementChecks(in.Statement), nil
}

func (in *batchExecuteStatementInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	stmts := make([]*string, len(in.Statements))
	for i := range in.Statements {
		stmts[i] = in.Statements[i].Statement
	}
	return s.statementChecks(stmts...), nil
}

func (in *executeTransactionInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	stmts := make([]*string, len(in.TransactStatements))
	for i := range in.TransactStatements {
		stmts[i] = in.TransactStatements[i].Statement
	}
	return s.statementChecks(stmts...), nil
}

// Table operations: their action on the table's ARN; they touch no item
// through a handle.

func (in *createTableInput) authz(s *Server, c *call) ([]accessCheck, error) {
	return s.tableChecks(c, in.TableName, "dynamodb:CreateTable")
}

func (in *tableNameInput) authz(s *Server, c *call) ([]accessCheck, error) {
	return s.tableChecks(c, in.TableName, "dynamodb:"+c.op)
}

func (in *deleteTableInput) authz(s *Server, c *call) ([]accessCheck, error) {
	return s.tableChecks(c, in.TableName, "dynamodb:DeleteTable")
}

func (in *updateTableInput) authz(s *Server, c *call) ([]accessCheck, error) {
	return s.tableChecks(c, in.TableName, "dynamodb:UpdateTable")
}

func (in *updateTimeToLiveInput) authz(s *Server, c *call) ([]accessCheck, error) {
	return s.tableChecks(c, in.TableName, "dynamodb:UpdateTimeToLive")
}

func (in *describeContinuousBackupsInput) authz(s *Server, c *call) ([]accessCheck, error) {
	return s.tableChecks(c, in.TableName, "dynamodb:DescribeContinuousBackups")
}

func (in *updateContinuousBackupsInput) authz(s *Server, c *call) ([]accessCheck, error) {
	return s.wholeTableChecks(c, in.TableName, "dynamodb:UpdateContinuousBackups")
}

// wholeTableChecks is the check of action on a table that reads all of
// it (a backup, the start of point-in-time recovery): its guard grants a
// read of every partition, which the library asks for (access.go), so a
// policy that allows action only on some partitions allows nothing.
func (s *Server) wholeTableChecks(c *call, name *string, action string) ([]accessCheck, error) {
	table, err := authzTable(c, name)
	if err != nil {
		return nil, err
	}
	return []accessCheck{s.wholeTableCheck(action, table, readItems)}, nil
}

// wholeTableCheck is the check of action on every partition of table,
// for kinds of access.
func (s *Server) wholeTableCheck(action, table string, kinds accessKind) accessCheck {
	return accessCheck{authzCheck: authzCheck{action: action, resource: s.tableARN(table),
		ctx: map[string]ctxValue{"dynamodb:leadingkeys": {unknown: true}, "dynamodb:attributes": {unknown: true}}},
		table: table, kinds: kinds, partsUnknown: true}
}

// The backup operations need their action on the table's ARN
// (CreateBackup), on the backup's ARN (DescribeBackup, DeleteBackup) or
// on "*" (ListBackups). A restore needs its action on its source (the
// backup's ARN for RestoreTableFromBackup, the table's for
// RestoreTableToPointInTime) and, as DynamoDB's "Using IAM with backup
// and restore" says, the read and write actions on the target table
// (restoreTargetActions). The restore writes every item of the target
// table, so its checks there have dynamodb:LeadingKeys and
// dynamodb:Attributes unknown: a policy that allows those actions only
// on some partitions or attributes allows no restore (fails closed).

func (in *createBackupInput) authz(s *Server, c *call) ([]accessCheck, error) {
	return s.wholeTableChecks(c, in.TableName, "dynamodb:CreateBackup")
}

func (in *describeBackupInput) authz(s *Server, c *call) ([]accessCheck, error) {
	r, err := s.backupResource(c, in.BackupArn)
	if err != nil {
		return nil, err
	}
	return onResource("dynamodb:DescribeBackup", r), nil
}

func (in *deleteBackupInput) authz(s *Server, c *call) ([]accessCheck, error) {
	r, err := s.backupResource(c, in.BackupArn)
	if err != nil {
		return nil, err
	}
	return onResource("dynamodb:DeleteBackup", r), nil
}

func (in *listBackupsInput) authz(*Server, *call) ([]accessCheck, error) {
	return onResource("dynamodb:ListBackups", "*"), nil
}

// restoreTargetActions are the actions a restore needs on its target
// table, the list of DynamoDB's backup and restore IAM guide.
var restoreTargetActions = []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:GetItem",
	"dynamodb:Query", "dynamodb:Scan", "dynamodb:BatchWriteItem"}

// restoreChecks are the checks of a restore: source, the check of its
// action on the source, then the target actions on every partition of
// the target table, whose items the library asks the guard to write.
func (s *Server) restoreChecks(source accessCheck, target *string) []accessCheck {
	checks := []accessCheck{source}
	name := ""
	if target != nil {
		name = *target
	}
	for _, a := range restoreTargetActions {
		checks = append(checks, s.wholeTableCheck(a, name, readItems|writeItems))
	}
	return checks
}

func (in *restoreTableFromBackupInput) authz(s *Server, c *call) ([]accessCheck, error) {
	r, err := s.backupResource(c, in.BackupArn)
	if err != nil {
		return nil, err
	}
	return s.restoreChecks(onResource("dynamodb:RestoreTableFromBackup", r)[0], in.TargetTableName), nil
}

func (in *restoreTableToPointInTimeInput) authz(s *Server, c *call) ([]accessCheck, error) {
	name := in.SourceTableName
	if in.SourceTableArn != nil {
		name = in.SourceTableArn
	}
	table, err := authzTable(c, name)
	if err != nil {
		return nil, err
	}
	// The source is read whole, from its recovery log.
	return s.restoreChecks(s.wholeTableCheck("dynamodb:RestoreTableToPointInTime", table, readItems), in.TargetTableName), nil
}

func (in *listTablesInput) authz(*Server, *call) ([]accessCheck, error) {
	return onResource("dynamodb:ListTables", "*"), nil
}

func (in *noInput) authz(_ *Server, c *call) ([]accessCheck, error) {
	return onResource("dynamodb:"+c.op, "*"), nil
}

// resourceARN is the canonical ARN of the table a tagging request names,
// or its text when it names none (the operation refuses it).
func (s *Server) resourceARN(arn *string) string {
	if arn == nil {
		return ""
	}
	if _, _, name, ok := splitTableARN(*arn); ok {
		return s.tableARN(name)
	}
	return *arn
}

func (in *tagResourceInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	return onResource("dynamodb:TagResource", s.resourceARN(in.ResourceArn)), nil
}

func (in *untagResourceInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	return onResource("dynamodb:UntagResource", s.resourceARN(in.ResourceArn)), nil
}

func (in *listTagsInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	return onResource("dynamodb:ListTagsOfResource", s.resourceARN(in.ResourceArn)), nil
}

func (in *listStreamsInput) authz(*Server, *call) ([]accessCheck, error) {
	return onResource("dynamodb:ListStreams", "*"), nil
}

// streamResource is the resource of a stream ARN: the stream ARN under
// the canonical ARN of its table, or its text when it names none here
// (the operation answers ResourceNotFound).
func (s *Server) streamResource(arn *string) (string, string) {
	if arn == nil {
		return "", ""
	}
	rest, ok := strings.CutPrefix(*arn, "arn:aws:dynamodb:"+s.region+":"+s.account+":table/")
	if !ok {
		return *arn, ""
	}
	name, label, ok := strings.Cut(rest, "/stream/")
	if !ok {
		return *arn, ""
	}
	return s.tableARN(name) + "/stream/" + label, name
}

func (in *describeStreamInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	return s.streamCheck("dynamodb:DescribeStream", in.StreamArn), nil
}

func (in *getShardIteratorInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	return s.streamCheck("dynamodb:GetShardIterator", in.StreamArn), nil
}

// streamCheck is the check of a stream operation on the stream arn: it
// grants reading the stream (its shards' positions, records) of its
// table.
func (s *Server) streamCheck(action string, arn *string) []accessCheck {
	res, table := s.streamResource(arn)
	return []accessCheck{{authzCheck: authzCheck{action: action, resource: res}, table: table, kinds: readStream}}
}

func (in *getRecordsInput) authz(s *Server, _ *call) ([]accessCheck, error) {
	if in.ShardIterator == nil {
		return onResource("dynamodb:GetRecords", ""), nil
	}
	it, err := s.decodeIterator(*in.ShardIterator)
	if err != nil {
		return nil, err
	}
	return []accessCheck{{authzCheck: authzCheck{action: "dynamodb:GetRecords", resource: s.tableARN(it.table) + "/stream/" + it.label},
		table: it.table, kinds: readStream}}, nil
}

// setProjection sets dynamodb:Attributes (the projected names) and
// dynamodb:Select of a read.
func setProjection(ctx map[string]ctxValue, proj string, names map[string]string, toGet []string, sel fdyno.Select, index bool) {
	var attrs []string
	if proj != "" {
		attrs = projectionNames(proj, names)
	}
	attrs = append(attrs, toGet...)
	s := "ALL_ATTRIBUTES"
	switch {
	case sel != "":
		s = string(sel)
	case len(attrs) > 0:
		s = "SPECIFIC_ATTRIBUTES"
	case index:
		s = "ALL_PROJECTED_ATTRIBUTES"
	}
	ctx["dynamodb:select"] = ctxValue{values: []string{s}}
	if len(attrs) > 0 {
		ctx["dynamodb:attributes"] = ctxValue{values: attrs}
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

// updatedAttributes is dynamodb:Attributes of an update: every name its
// UpdateExpression mentions (legacy AttributeUpdates are translated into
// one by prepare), an over-approximation, which can only refuse more;
// nil for none.
func updatedAttributes(expr string, names map[string]string) []string {
	var out []string
	for _, tok := range updateNameToken.FindAllString(expr, -1) {
		switch {
		case strings.HasPrefix(tok, ":"):
		case strings.HasPrefix(tok, "#"):
			out = append(out, names[tok])
		case !updateKeywords[strings.ToLower(tok)]:
			out = append(out, tok)
		}
	}
	return out
}

// partitionKeyOf returns the name of table's partition key, from the
// handle's cached schema, or "" when the table cannot be described (it
// does not exist).
func (s *Server) partitionKeyOf(table string) string {
	t, err := s.openTable(table)
	if err != nil {
		return ""
	}
	if h, _, ok := t.KeyAttributes(""); ok {
		return h.AttributeName
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

// refreshPartitionKeys reloads the schema of every table whose partition
// key the checks' dynamodb:LeadingKeys were read under (partitionKeyOf
// reads the handle's cached schema, which may predate a change made
// through another server), and reports whether any table's partition key
// changed: then a denial decided under the old key is decided again.
// Only denials pay for it (a read transaction per table), and a stale
// key cannot wrongly allow: the library checks the partition each
// access reaches against those the checks granted, under the schema its
// transaction reads.
func (s *Server) refreshPartitionKeys(checks []accessCheck) bool {
	changed := false
	seen := map[string]bool{}
	for _, ch := range checks {
		if _, ok := ch.ctx["dynamodb:leadingkeys"]; !ok || ch.table == "" || seen[ch.table] {
			continue
		}
		seen[ch.table] = true
		before := s.partitionKeyOf(ch.table)
		t, err := s.openTable(ch.table)
		if err != nil {
			continue
		}
		if _, err := t.Describe(s.db); err != nil { // reloads a changed schema
			continue
		}
		if s.partitionKeyOf(ch.table) != before {
			changed = true
		}
	}
	return changed
}

// leadingKeys is dynamodb:LeadingKeys of keys of table: their partition
// key values as text, or unknown when a value cannot be read; and the
// values themselves, which the check grants at the point of access.
func (s *Server) leadingKeys(table string, keys ...fdyno.Item) (ctxValue, []fdyno.Value) {
	if len(keys) == 0 || len(keys) == 1 && keys[0] == nil {
		return ctxValue{}, nil
	}
	pk := s.partitionKeyOf(table)
	if pk == "" {
		return ctxValue{unknown: true}, nil
	}
	var v ctxValue
	parts := make([]fdyno.Value, 0, len(keys))
	for _, k := range keys {
		text, ok := scalarText(k[pk])
		if !ok {
			return ctxValue{unknown: true}, nil
		}
		v.values = append(v.values, text)
		parts = append(parts, k[pk])
	}
	return v, parts
}

// scalarText is the text of an S, N or B attribute value.
func scalarText(v fdyno.Value) (string, bool) {
	switch v.Type() {
	case fdyno.TypeS:
		return v.S(), true
	case fdyno.TypeN:
		return v.N(), true
	case fdyno.TypeB:
		return base64.StdEncoding.EncodeToString(v.B()), true
	}
	return "", false
}

// keyConditionAnd splits a key condition at its ANDs.
var keyConditionAnd = regexp.MustCompile(`(?i)\s+and\s+`)

// keyEquality matches one "name = :value" comparison.
var keyEquality = regexp.MustCompile(`^\s*\(?\s*(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)\s*\)?\s*$`)

// queryLeadingKeys is dynamodb:LeadingKeys of a Query of the table: the
// value its key condition gives the table's partition key; unknown when
// the server cannot read it (an unusual expression). The library checks
// the partition it actually reads against it (authz.go).
func (s *Server) queryLeadingKeys(table string, in *queryInput) (ctxValue, []fdyno.Value) {
	pk := s.partitionKeyOf(table)
	if pk == "" {
		return ctxValue{unknown: true}, nil
	}
	one := func(v fdyno.Value) (ctxValue, []fdyno.Value) {
		if text, ok := scalarText(v); ok {
			return ctxValue{values: []string{text}}, []fdyno.Value{v}
		}
		return ctxValue{unknown: true}, nil
	}
	// Legacy KeyConditions, read as prepare will read them; one that does
	// not decode leaves the partition unknown (prepare refuses it later).
	var legacyKeys []legacyCond
	if in.KeyConditions.present() {
		legacyKeys, _ = decodeConds("KeyConditions", in.KeyConditions)
	}
	for _, kc := range legacyKeys {
		if kc.attr == pk && kc.op == "EQ" && len(kc.list) == 1 {
			return one(kc.list[0])
		}
	}
	if in.KeyConditionExpression == "" {
		return ctxValue{unknown: true}, nil
	}
	for _, part := range keyConditionAnd.Split(in.KeyConditionExpression, -1) {
		m := keyEquality.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		name := m[1]
		if strings.HasPrefix(name, "#") {
			name = in.ExpressionAttributeNames[name]
		}
		if name == pk {
			if v, ok := in.ExpressionAttributeValues[m[2]]; ok {
				return one(v)
			}
		}
	}
	return ctxValue{unknown: true}, nil
}

// Exports and imports (exports.go, imports.go) need their action on the
// table's ARN (ExportTableToPointInTime on the source, ImportTable on the
// table it creates), on the export's or import's ARN (DescribeExport,
// DescribeImport) or on "*" (ListExports, ListImports). An export reads,
// and an import writes, every item of its table, so their checks have
// dynamodb:LeadingKeys and dynamodb:Attributes unknown: a policy that
// allows the action only on some partitions or attributes allows none
// (fails closed).

func (in *exportTableInput) authz(s *Server, c *call) ([]accessCheck, error) {
	table, err := authzTable(c, in.TableArn)
	if err != nil {
		return nil, err
	}
	return []accessCheck{s.wholeTableCheck("dynamodb:ExportTableToPointInTime", table, readItems)}, nil
}

func (in *describeExportInput) authz(s *Server, c *call) ([]accessCheck, error) {
	r, err := s.childResource(c, "export", in.ExportArn)
	if err != nil {
		return nil, err
	}
	return onResource("dynamodb:DescribeExport", r), nil
}

func (in *listExportsInput) authz(*Server, *call) ([]accessCheck, error) {
	return onResource("dynamodb:ListExports", "*"), nil
}

func (in *importTableInput) authz(s *Server, c *call) ([]accessCheck, error) {
	var name *string
	if p := in.TableCreationParameters; p != nil {
		name = p.TableName
	}
	table, err := authzTable(c, name)
	if err != nil {
		return nil, err
	}
	return []accessCheck{s.wholeTableCheck("dynamodb:ImportTable", table, readItems|writeItems)}, nil
}

func (in *describeImportInput) authz(s *Server, c *call) ([]accessCheck, error) {
	r, err := s.childResource(c, "import", in.ImportArn)
	if err != nil {
		return nil, err
	}
	return onResource("dynamodb:DescribeImport", r), nil
}

func (in *listImportsInput) authz(*Server, *call) ([]accessCheck, error) {
	return onResource("dynamodb:ListImports", "*"), nil
}
