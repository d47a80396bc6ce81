package server

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// tables.go: the control plane (CreateTable, DeleteTable, DescribeTable,
// ListTables) and the cache of table handles the data plane uses.

// ListTables limits (DynamoDB's API reference).
const (
	maxListTablesLimit = 100
)

// openTable returns the handle on table name, opening it on first use. A
// handle checks the table's schema in every transaction (fdyno.Open), so
// a cached one stays correct when the table is deleted or recreated.
// Requests get their handles through tableFor (authz.go), which guards
// them; only background work uses openTable's handles directly.
func (s *Server) openTable(name string) (*fdyno.Table, error) {
	s.mu.Lock()
	t, ok := s.tables[name]
	s.mu.Unlock()
	if ok {
		return t, nil
	}
	if !validTableName(name) || len(name) < minTableNameLength || len(name) > maxTableNameLength {
		// A name no table can have (a data-plane TableName may be as
		// short as one character): there is no such table.
		return nil, &fdyno.TableError{Table: name, Reason: "Requested resource not found: Table: " + name + " not found", Err: fdyno.ErrResourceNotFound}
	}
	t, err := fdyno.Open(s.db, name, s.tableOptions()...)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.tables[name]; ok {
		return prev, nil
	}
	s.tables[name] = t
	return t, nil
}

// tableOptions are the options of every handle the server opens, more
// appended: its root, and its clock (Config.Now) as the table's clock.
func (s *Server) tableOptions(more ...fdyno.Option) []fdyno.Option {
	return append([]fdyno.Option{fdyno.WithRoot(s.root...), fdyno.WithClock(s.now)}, more...)
}

// guardedOptions are tableOptions whose handles request c's guard
// guards, when policies apply: for the operations that open tables
// themselves (the restores).
func (s *Server) guardedOptions(c *call) []fdyno.Option {
	if c == nil || c.guard == nil {
		return s.tableOptions()
	}
	return s.tableOptions(fdyno.WithGuard(c.guard))
}

// tableName resolves a TableName parameter, which may also be a table
// ARN, and records it for the log.
func tableName(c *call, name *string) (string, error) {
	if name == nil {
		return "", missing("tableName")
	}
	n := *name
	if err := checkTableNameMember("tableName", n, true); err != nil {
		c.table = n
		return "", err
	}
	// The resolution the checks made (authzTable): a table ARN names the
	// caller's own table only, anything else names itself.
	resolved, err := authzTable(c, &n)
	if err != nil {
		c.table = tableOfARN(n)
		return "", err
	}
	c.table = resolved
	return resolved, nil
}

// tableOfARN is the table name a table ARN gives, or arn itself.
func tableOfARN(arn string) string {
	if _, _, name, ok := splitTableARN(arn); ok {
		return name
	}
	return arn
}

// missing is DynamoDB's error for a required member that is absent.
func missing(field string) error {
	return validation("1 validation error detected: Value null at '" + field + "' failed to satisfy constraint: Member must not be null")
}

// enumError is DynamoDB's error for a member outside its enum.
func enumError(field, value string, allowed ...string) error {
	return validation("1 validation error detected: Value '" + value + "' at '" + field +
		"' failed to satisfy constraint: Member must satisfy enum value set: [" + strings.Join(allowed, ", ") + "]")
}

type provisionedThroughput struct {
	ReadCapacityUnits  *int64
	WriteCapacityUnits *int64
}

type streamSpecification struct {
	StreamEnabled  *bool
	StreamViewType string `json:",omitempty"`
}

type globalSecondaryIndexInput struct {
	fdyno.GlobalSecondaryIndex
	ProvisionedThroughput *provisionedThroughput
}

type createTableInput struct {
	TableName              *string
	KeySchema              []fdyno.KeySchemaElement
	AttributeDefinitions   []fdyno.AttributeDefinition
	LocalSecondaryIndexes  []fdyno.LocalSecondaryIndex
	GlobalSecondaryIndexes []globalSecondaryIndexInput
	BillingMode            string
	ProvisionedThroughput  *provisionedThroughput
	StreamSpecification    *streamSpecification
	// Tags and DeletionProtectionEnabled are stored with the table
	// (tableSettings); SSESpecification, TableClass and the like are
	// accepted and ignored.
	Tags                      []wireTag
	DeletionProtectionEnabled bool

	tags []tag // Tags, checked
}

type createTableOutput struct {
	TableDescription tableDescription
}

// prepare checks the members and the billing settings; CreateTable
// opens no existing table.
func (in *createTableInput) prepare(c *call) (string, error) {
	if err := checkCreateTableMembers(in); err != nil {
		return "", err
	}
	tags, err := checkTagMembers("tags", in.Tags)
	if err != nil {
		return "", err
	}
	in.tags = tags
	if _, err := tableName(c, in.TableName); err != nil {
		return "", err
	}
	switch {
	case in.AttributeDefinitions == nil:
		return "", missing("attributeDefinitions")
	case in.KeySchema == nil:
		return "", missing("keySchema")
	}
	return "", checkBilling(*in)
}

func (s *Server) createTable(c *call, in *createTableInput, _ *fdyno.Table) (any, error) {
	name := c.table
	schema := fdyno.TableSchema{
		KeySchema:             in.KeySchema,
		AttributeDefinitions:  in.AttributeDefinitions,
		LocalSecondaryIndexes: in.LocalSecondaryIndexes,
	}
	for _, g := range in.GlobalSecondaryIndexes {
		schema.GlobalSecondaryIndexes = append(schema.GlobalSecondaryIndexes, g.GlobalSecondaryIndex)
	}
	// Unique GSIs and tables without counts: the fdyno tags say
	// (fdyno_tags.go).
	fs, err := parseFdynoTags(in.tags)
	if err != nil {
		return nil, err
	}
	if err := fs.applyToSchema(&schema); err != nil {
		return nil, err
	}
	if ss := in.StreamSpecification; ss != nil {
		switch {
		case ss.StreamEnabled == nil:
			return nil, missing("streamSpecification.streamEnabled")
		case *ss.StreamEnabled && ss.StreamViewType == "":
			return nil, validation("One or more parameter values were invalid: You must specify a StreamViewType when enabling a stream")
		case !*ss.StreamEnabled && ss.StreamViewType != "":
			return nil, validation("One or more parameter values were invalid: You cannot specify a StreamViewType when disabling a stream")
		case *ss.StreamEnabled:
			schema.StreamViewType = fdyno.StreamViewType(ss.StreamViewType)
		}
	}
	settings, err := createSettings(in)
	if err != nil {
		return nil, err
	}
	// The existence check and the creation are one transaction, so two
	// concurrent CreateTables of one name cannot both succeed.
	t, err := fdyno.Transact(s.db, func(tr fdb.Transaction) (*fdyno.Table, error) {
		if _, err := fdyno.Open(tr, name, s.tableOptions()...); !errors.Is(err, fdyno.ErrResourceNotFound) {
			if err == nil {
				return nil, &apiError{typ: errResourceInUse, msg: "Table already exists: " + name}
			}
			return nil, err
		}
		// A table being restored (backup_jobs.go) is CREATING: its name
		// is taken.
		if _, err := fdyno.DescribeRestore(tr, name, s.tableOptions()...); !errors.Is(err, fdyno.ErrResourceNotFound) {
			if err == nil {
				return nil, &apiError{typ: errResourceInUse, msg: "Table already exists: " + name}
			}
			return nil, err
		}
		return fdyno.Open(tr, name, s.tableOptions(fdyno.WithSchema(schema), fdyno.WithSettings(settings))...)
	})
	if err != nil {
		return nil, err
	}
	d, err := t.Describe(s.db)
	if err != nil {
		return nil, err
	}
	td, err := s.describe(d, "ACTIVE")
	return createTableOutput{TableDescription: td}, err
}

// checkBilling applies DynamoDB's rules for BillingMode and
// ProvisionedThroughput. fdyno has no capacity: the values are checked,
// not stored, and tables describe themselves as on demand.
func checkBilling(in createTableInput) error {
	switch in.BillingMode {
	case "", "PROVISIONED":
		pt := in.ProvisionedThroughput
		if pt == nil {
			return validation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
		}
		if err := checkThroughput(pt); err != nil {
			return err
		}
		for _, g := range in.GlobalSecondaryIndexes {
			if g.ProvisionedThroughput == nil {
				return validation("One or more parameter values were invalid: ProvisionedThroughput must be specified for index: " + g.IndexName)
			}
			if err := checkThroughput(g.ProvisionedThroughput); err != nil {
				return err
			}
		}
	case "PAY_PER_REQUEST":
		if in.ProvisionedThroughput != nil {
			return validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		for _, g := range in.GlobalSecondaryIndexes {
			if g.ProvisionedThroughput != nil {
				return validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: " + g.IndexName + " when BillingMode is PAY_PER_REQUEST")
			}
		}
	default:
		return enumError("billingMode", in.BillingMode, "PROVISIONED", "PAY_PER_REQUEST")
	}
	return nil
}

func checkThroughput(pt *provisionedThroughput) error {
	switch {
	case pt.ReadCapacityUnits == nil:
		return missing("provisionedThroughput.readCapacityUnits")
	case pt.WriteCapacityUnits == nil:
		return missing("provisionedThroughput.writeCapacityUnits")
	case *pt.ReadCapacityUnits < 1:
		return validation("1 validation error detected: Value '" + strconv.FormatInt(*pt.ReadCapacityUnits, 10) +
			"' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1")
	case *pt.WriteCapacityUnits < 1:
		return validation("1 validation error detected: Value '" + strconv.FormatInt(*pt.WriteCapacityUnits, 10) +
			"' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1")
	}
	return nil
}

// createSettings returns the settings record CreateTable stores: the
// billing mode and throughputs as given (checkBilling has validated
// them), deletion protection and tags (checked here).
func createSettings(in *createTableInput) ([]byte, error) {
	tags, err := mergeTags(nil, in.tags)
	if err != nil {
		return nil, err
	}
	p := tableSettings{BillingMode: billingProvisioned, DeletionProtectionEnabled: in.DeletionProtectionEnabled, Tags: tags}
	if in.BillingMode == billingPayPerRequest {
		p.BillingMode = billingPayPerRequest
	} else {
		p.ProvisionedThroughput = in.ProvisionedThroughput.units()
		for _, g := range in.GlobalSecondaryIndexes {
			if p.IndexThroughput == nil {
				p.IndexThroughput = map[string]provisioned{}
			}
			p.IndexThroughput[g.IndexName] = *g.ProvisionedThroughput.units()
		}
	}
	return p.encode()
}

// units returns pt as stored, or nil.
func (pt *provisionedThroughput) units() *provisioned {
	if pt == nil || pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
		return nil
	}
	return &provisioned{ReadCapacityUnits: *pt.ReadCapacityUnits, WriteCapacityUnits: *pt.WriteCapacityUnits}
}

type tableNameInput struct {
	TableName *string
}

// prepare names the table.
func (in *tableNameInput) prepare(c *call) (string, error) {
	return tableName(c, in.TableName)
}

// deleteTableInput is a tableNameInput whose table DeleteTable opens
// itself, in the transaction that deletes it.
type deleteTableInput tableNameInput

func (in *deleteTableInput) prepare(c *call) (string, error) {
	_, err := tableName(c, in.TableName)
	return "", err
}

type deleteTableOutput struct {
	TableDescription deletedTableDescription
}

// deletedTableDescription is the TableDescription DeleteTable returns,
// shorter than DescribeTable's as DynamoDB's is: the table's identity,
// status DELETING, its counts and its billing settings.
type deletedTableDescription struct {
	TableName             string
	TableArn              string
	TableId               string `json:",omitempty"`
	TableStatus           string
	ItemCount             int64
	TableSizeBytes        int64
	ProvisionedThroughput throughputDescription
	BillingModeSummary    *billingModeSummary `json:",omitempty"`
}

func (s *Server) deleted(d *fdyno.TableDescription) (deletedTableDescription, error) {
	td, err := s.describe(d, "DELETING")
	out := deletedTableDescription{TableName: td.TableName, TableArn: td.TableArn, TableId: td.TableId, TableStatus: td.TableStatus,
		ProvisionedThroughput: td.ProvisionedThroughput}
	if td.BillingModeSummary.BillingMode == billingPayPerRequest {
		out.BillingModeSummary = &td.BillingModeSummary
	}
	return out, err
}

func (s *Server) deleteTable(c *call, _ *deleteTableInput, _ *fdyno.Table) (any, error) {
	name := c.table
	// The description returned is the table's as it was deleted, and
	// deletion protection is checked as the table is deleted: all in the
	// deleting transaction.
	// A table with point-in-time recovery first gets its system backup,
	// over many transactions (the library's DeleteTable).
	del := func() (*fdyno.TableDescription, error) {
		return fdyno.DeleteTableChecked(s.db, name, func(d *fdyno.TableDescription) error {
			ts, err := settingsOf(d)
			if err != nil {
				return err
			}
			if ts.DeletionProtectionEnabled {
				return validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
			}
			return nil
		}, s.tableOptions()...)
	}
	d, err := del()
	if errors.Is(err, fdyno.ErrResourceNotFound) {
		// A table being restored (backup_jobs.go) is CREATING, which
		// DynamoDB does not delete.
		if _, rerr := fdyno.DescribeRestore(s.db, name, s.tableOptions()...); rerr == nil {
			return nil, &apiError{typ: errResourceInUse, msg: "Attempt to change a resource which is still in use: Table is being created: " + name}
		}
		// A restore may have ended between the two reads: its table
		// appears in the transaction that removes its record, so a delete
		// after the second finds it (as DescribeTable's read does).
		d, err = del()
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	delete(s.tables, name)
	s.mu.Unlock()
	td, err := s.deleted(d)
	return deleteTableOutput{TableDescription: td}, err
}

type describeTableOutput struct {
	Table tableDescription
}

// describeTableInput is a tableNameInput whose table DescribeTable
// opens itself: a table being restored has none yet, and is described
// CREATING (backup_jobs.go).
type describeTableInput struct {
	tableNameInput
}

func (in *describeTableInput) prepare(c *call) (string, error) {
	_, err := tableName(c, in.TableName)
	return "", err
}

func (s *Server) describeTable(c *call, _ *describeTableInput, _ *fdyno.Table) (any, error) {
	t, err := s.tableFor(c, c.table)
	if errors.Is(err, fdyno.ErrResourceNotFound) {
		if r, rerr := fdyno.DescribeRestore(s.db, c.table, s.tableOptions()...); rerr == nil {
			td, err := s.restoring(r)
			return describeTableOutput{Table: td}, err
		}
		// A restore may have ended between the two reads: its table
		// appears in the transaction that removes its record, so a read
		// after the second finds the table.
		t, err = s.tableFor(c, c.table)
	}
	if err != nil {
		return nil, err
	}
	d, err := t.Describe(s.db)
	if err != nil {
		return nil, err
	}
	td, err := s.describe(d, "ACTIVE")
	return describeTableOutput{Table: td}, err
}

type listTablesInput struct {
	ExclusiveStartTableName *string
	Limit                   *int
}

type listTablesOutput struct {
	TableNames             []string
	LastEvaluatedTableName string `json:",omitempty"`
}

// prepare checks Limit.
func (in *listTablesInput) prepare(*call) (string, error) {
	if in.Limit != nil {
		switch limit := *in.Limit; {
		case limit < 1:
			return "", validation("1 validation error detected: Value '" + strconv.Itoa(limit) + "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
		case limit > maxListTablesLimit:
			return "", validation("1 validation error detected: Value '" + strconv.Itoa(limit) + "' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100")
		}
	}
	return "", nil
}

func (s *Server) listTables(_ *call, in *listTablesInput, _ *fdyno.Table) (any, error) {
	limit := maxListTablesLimit
	if in.Limit != nil {
		limit = *in.Limit
	}
	names, err := fdyno.ListTables(s.db, fdyno.WithRoot(s.root...))
	if err != nil {
		return nil, err
	}
	if names == nil {
		// DynamoDB always sends the member: "TableNames": [], never
		// null (boto3 reads it without a default).
		names = []string{}
	}
	// Tables being restored are listed, CREATING, as DynamoDB's.
	restores, err := fdyno.ListRestores(s.db, s.tableOptions()...)
	if err != nil {
		return nil, err
	}
	for _, r := range restores {
		if i, found := slices.BinarySearch(names, r.TargetTableName); !found {
			names = slices.Insert(names, i, r.TargetTableName)
		}
	}
	if in.ExclusiveStartTableName != nil {
		after := *in.ExclusiveStartTableName
		i, found := slices.BinarySearch(names, after)
		if found {
			i++
		}
		names = names[i:]
	}
	out := listTablesOutput{TableNames: names}
	if len(names) > limit {
		out.TableNames = names[:limit]
		out.LastEvaluatedTableName = names[limit-1]
	}
	return out, nil
}

// tableDescription is DynamoDB's TableDescription, from what fdyno
// stores. fdyno keeps no capacity: tables describe themselves as on
// demand; ItemCount and TableSizeBytes (of the table and of each index)
// are exact as of the request (DynamoDB's are refreshed about every six
// hours; see describeCounts), and every table is
// ACTIVE; a global secondary index is CREATING while it is backfilled
// (updatetable.go), then ACTIVE.
type tableDescription struct {
	TableName                 string
	TableArn                  string
	TableId                   string   `json:",omitempty"`
	CreationDateTime          *float64 `json:",omitempty"`
	TableStatus               string
	KeySchema                 []fdyno.KeySchemaElement
	AttributeDefinitions      []fdyno.AttributeDefinition
	ItemCount                 int64
	TableSizeBytes            int64
	ProvisionedThroughput     throughputDescription
	BillingModeSummary        billingModeSummary
	LocalSecondaryIndexes     []indexDescription   `json:",omitempty"`
	GlobalSecondaryIndexes    []indexDescription   `json:",omitempty"`
	StreamSpecification       *streamSpecification `json:",omitempty"`
	LatestStreamArn           string               `json:",omitempty"`
	LatestStreamLabel         string               `json:",omitempty"`
	DeletionProtectionEnabled bool
	RestoreSummary            *restoreSummary `json:",omitempty"`
}

type throughputDescription struct {
	ReadCapacityUnits      int64
	WriteCapacityUnits     int64
	NumberOfDecreasesToday int64
}

// billingModeSummary is DynamoDB's BillingModeSummary. A
// PAY_PER_REQUEST table carries LastUpdateToPayPerRequestDateTime, when
// it was last set to PAY_PER_REQUEST: its creation, or the UpdateTable
// that switched it (the API reference: "the time when PAY_PER_REQUEST
// was last set as the read/write capacity mode").
type billingModeSummary struct {
	BillingMode                       string
	LastUpdateToPayPerRequestDateTime *float64 `json:",omitempty"`
}

// epochSeconds is t as DynamoDB sends a time: epoch seconds with
// milliseconds.
func epochSeconds(t time.Time) *float64 {
	s := float64(t.UnixMilli()) / 1000
	return &s
}

type indexDescription struct {
	IndexName             string
	IndexArn              string
	IndexStatus           string `json:",omitempty"`
	Backfilling           *bool  `json:",omitempty"`
	KeySchema             []fdyno.KeySchemaElement
	Projection            projection
	ItemCount             int64
	IndexSizeBytes        int64
	ProvisionedThroughput *throughputDescription `json:",omitempty"`
}

// projection is an index's Projection as DynamoDB sends it.
type projection struct {
	ProjectionType   fdyno.ProjectionType
	NonKeyAttributes []string `json:",omitempty"`
}

func projectionOf(p fdyno.Projection) projection {
	return projection{ProjectionType: p.ProjectionType, NonKeyAttributes: p.NonKeyAttributes}
}

func (s *Server) tableARN(name string) string {
	return "arn:aws:dynamodb:" + s.region + ":" + s.account + ":table/" + name
}

func (s *Server) describe(d *fdyno.TableDescription, status string) (tableDescription, error) {
	arn := s.tableARN(d.TableName)
	p, err := settingsOf(d)
	if err != nil {
		return tableDescription{}, err
	}
	td := tableDescription{
		TableName:                 d.TableName,
		TableArn:                  arn,
		TableId:                   d.TableID,
		TableStatus:               status,
		KeySchema:                 d.KeySchema,
		AttributeDefinitions:      d.AttributeDefinitions,
		BillingModeSummary:        billingModeSummary{BillingMode: "PAY_PER_REQUEST"},
		DeletionProtectionEnabled: p.DeletionProtectionEnabled,
	}
	if !d.CreationDateTime.IsZero() {
		td.CreationDateTime = epochSeconds(d.CreationDateTime)
	}
	if p.Restore != nil {
		r := *p.Restore
		td.RestoreSummary = &r
	}
	switch {
	case p.LastUpdateToPayPerRequest != nil:
		td.BillingModeSummary.LastUpdateToPayPerRequestDateTime = epochSeconds(*p.LastUpdateToPayPerRequest)
	case p.BillingMode != billingProvisioned && !d.CreationDateTime.IsZero():
		td.BillingModeSummary.LastUpdateToPayPerRequestDateTime = td.CreationDateTime
	}
	if p.BillingMode == billingProvisioned {
		td.BillingModeSummary.BillingMode = p.BillingMode
		if pt := p.ProvisionedThroughput; pt != nil {
			td.ProvisionedThroughput.ReadCapacityUnits, td.ProvisionedThroughput.WriteCapacityUnits = pt.ReadCapacityUnits, pt.WriteCapacityUnits
		}
	}
	for _, ix := range d.LocalSecondaryIndexes {
		td.LocalSecondaryIndexes = append(td.LocalSecondaryIndexes, indexDescription{
			IndexName: ix.IndexName, IndexArn: arn + "/index/" + ix.IndexName, KeySchema: ix.KeySchema, Projection: projectionOf(ix.Projection),
		})
	}
	for _, ix := range d.GlobalSecondaryIndexes {
		desc := indexDescription{
			IndexName: ix.IndexName, IndexArn: arn + "/index/" + ix.IndexName, IndexStatus: "ACTIVE",
			KeySchema: ix.KeySchema, Projection: projectionOf(ix.Projection), ProvisionedThroughput: &throughputDescription{},
		}
		if pt, ok := p.IndexThroughput[ix.IndexName]; ok && p.BillingMode == billingProvisioned {
			desc.ProvisionedThroughput.ReadCapacityUnits, desc.ProvisionedThroughput.WriteCapacityUnits = pt.ReadCapacityUnits, pt.WriteCapacityUnits
		}
		// The library's status: CREATING while the backfill runs.
		for _, g := range d.GlobalSecondaryIndexDescriptions {
			if g.IndexName == ix.IndexName {
				desc.IndexStatus = string(g.IndexStatus)
				if g.IndexStatus == fdyno.IndexStatusCreating {
					backfilling := g.Backfilling
					desc.Backfilling = &backfilling
				}
			}
		}
		td.GlobalSecondaryIndexes = append(td.GlobalSecondaryIndexes, desc)
	}
	describeCounts(d, &td)
	if d.StreamViewType != "" {
		enabled := true
		td.StreamSpecification = &streamSpecification{StreamEnabled: &enabled, StreamViewType: string(d.StreamViewType)}
		label, _ := streamOf(d)
		td.LatestStreamArn, td.LatestStreamLabel = s.streamARNOf(d), label
	}
	return td, nil
}

// describeCounts copies the library's exact counts into td: the table's
// and each index's ItemCount, TableSizeBytes and IndexSizeBytes. A table
// whose counters are still being built reports 0, as before.
func describeCounts(d *fdyno.TableDescription, td *tableDescription) {
	if d.Counts == nil {
		return
	}
	td.ItemCount, td.TableSizeBytes = d.Counts.ItemCount, d.Counts.SizeBytes
	for _, ixs := range [][]indexDescription{td.LocalSecondaryIndexes, td.GlobalSecondaryIndexes} {
		for i := range ixs {
			c := d.IndexCounts[ixs[i].IndexName]
			ixs[i].ItemCount, ixs[i].IndexSizeBytes = c.ItemCount, c.SizeBytes
		}
	}
}
