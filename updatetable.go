package fdyno

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// UpdateTableInput is the request of [Table.UpdateTable], DynamoDB's
// UpdateTable limited to what fdyno's tables have: global secondary
// indexes and the stream. Local secondary indexes can only be defined when
// a table is created, as in DynamoDB. As in DynamoDB, one request makes
// one change: exactly one of GlobalSecondaryIndexUpdates and
// StreamSpecification is set.
type UpdateTableInput struct {
	// AttributeDefinitions declares the key attributes of an index being
	// created; it may repeat those of existing keys, with their types.
	AttributeDefinitions []AttributeDefinition
	// GlobalSecondaryIndexUpdates holds exactly one Create or Delete.
	GlobalSecondaryIndexUpdates []GlobalSecondaryIndexUpdate
	// StreamSpecification enables or disables the table's stream.
	StreamSpecification *StreamSpecification
}

// StreamSpecification enables or disables a table's stream, DynamoDB's
// StreamSpecification. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_StreamSpecification.html.
type StreamSpecification struct {
	// StreamEnabled enables the stream (true) or disables it (false).
	StreamEnabled bool
	// StreamViewType is what the records of an enabled stream hold; it
	// is required to enable a stream and must be empty to disable one.
	StreamViewType StreamViewType
}

// GlobalSecondaryIndexUpdate is one GSI change: exactly one of Create and
// Delete is set.
type GlobalSecondaryIndexUpdate struct {
	Create *CreateGlobalSecondaryIndexAction
	Delete *DeleteGlobalSecondaryIndexAction
}

// CreateGlobalSecondaryIndexAction adds a GSI.
type CreateGlobalSecondaryIndexAction struct {
	IndexName  string
	KeySchema  []KeySchemaElement
	Projection Projection
	// Unique makes the index unique ([GlobalSecondaryIndex.Unique]); its
	// backfill fails, and removes it, if the items hold duplicates.
	Unique bool
}

// DeleteGlobalSecondaryIndexAction removes a GSI and its entries.
type DeleteGlobalSecondaryIndexAction struct {
	IndexName string
}

// UpdateTable creates or deletes one global secondary index, or enables
// or disables the table's stream (see "Stream settings" below), and
// returns the table's description as of the change. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html.
//
// A created index is CREATING: from the commit of UpdateTable on, every
// write maintains its entries, and [Table.Backfill] indexes the items
// written before, then makes it ACTIVE. Query and Scan refuse it until
// then. The index keys' types are enforced on writes at once.
//
// A deleted index (ACTIVE or CREATING) disappears with all its entries in
// the one transaction of UpdateTable: FoundationDB's ClearRange removes a
// range of any size as a single mutation, whose cost does not depend on
// the number of entries (the storage servers reclaim the space in the
// background). There is therefore no DELETING state and no batching.
//
// Errors: [ErrValidation] for a bad request (not exactly one update, an
// index name in use, a bad key schema or projection, a missing or
// conflicting attribute definition, more than 20 GSIs);
// [ErrResourceNotFound] for an unknown index to delete or a deleted
// table. The change and the metadata version bump commit together; with
// an fdb.Database, UpdateTable runs its own transaction, which may be
// retried. UpdateTable is safe for concurrent use.
func (t *Table) UpdateTable(tx fdb.Transactor, in UpdateTableInput) (*TableDescription, error) {
	const op = "UpdateTable"
	fail := func(reason string) (*TableDescription, error) {
		return nil, &ValidationError{Op: op, Reason: reason}
	}
	if in.StreamSpecification != nil {
		if len(in.GlobalSecondaryIndexUpdates) > 0 || len(in.AttributeDefinitions) > 0 {
			return fail("One or more parameter values were invalid: a StreamSpecification change cannot be combined with GlobalSecondaryIndexUpdates in one UpdateTable request")
		}
		return t.updateStream(tx, *in.StreamSpecification)
	}
	if len(in.GlobalSecondaryIndexUpdates) != 1 {
		return fail("One or more parameter values were invalid: exactly one global secondary index update (Create or Delete) is allowed per UpdateTable request")
	}
	u := in.GlobalSecondaryIndexUpdates[0]
	if (u.Create == nil) == (u.Delete == nil) {
		return fail("One or more parameter values were invalid: a GlobalSecondaryIndexUpdate must hold exactly one of Create and Delete")
	}
	if u.Delete != nil && len(in.AttributeDefinitions) > 0 {
		return fail("One or more parameter values were invalid: AttributeDefinitions can only be given with a Create action")
	}
	name := ""
	if u.Create != nil {
		name = u.Create.IndexName
	} else {
		name = u.Delete.IndexName
	}
	if err := checkTableName("IndexName", name); err != nil {
		return nil, withOp(op, err)
	}
	return Transact(tx, func(tr fdb.Transaction) (*TableDescription, error) {
		st, err := t.load(tr, nil)
		if err != nil {
			return nil, err
		}
		s := st.schema.clone()
		building := st.building()
		if u.Create != nil {
			if st.index(name) != nil {
				return fail("One or more parameter values were invalid: Index with name: " + name + " already exists")
			}
			if s.AttributeDefinitions, err = mergeDefinitions(s, in.AttributeDefinitions, u.Create.KeySchema); err != nil {
				return nil, err
			}
			s.GlobalSecondaryIndexes = append(s.GlobalSecondaryIndexes, GlobalSecondaryIndex{
				IndexName: name, KeySchema: slices.Clone(u.Create.KeySchema), Projection: u.Create.Projection, Unique: u.Create.Unique})
			if err := s.validate(); err != nil {
				return nil, withUpdateOp(err)
			}
			building = append(building, name)
			slices.Sort(building)
			tr.Set(st.keys.backfillKey(name), backfillCursor{}.encode())
		} else {
			ix := st.index(name)
			if ix == nil || ix.local {
				return nil, &TableError{Table: t.name, Err: ErrResourceNotFound,
					Reason: "Requested resource not found: Index: " + name + " not found"}
			}
			s = s.withoutGSI(name)
			building = slices.DeleteFunc(building, func(n string) bool { return n == name })
			tr.Clear(st.keys.backfillKey(name))
		}
		// A new index starts empty; a deleted one leaves nothing behind.
		clearIndex(tr, st, name)
		if err := t.replaceSchema(tr, s, building...); err != nil {
			return nil, withUpdateOp(err)
		}
		return t.describeWritten(tr, st, s, building)
	})
}

// describeWritten describes the table as the transaction tr left it,
// having written schema s with the indexes building still building. The
// new state cannot read the metadata version tr bumped, so it is not
// cached.
func (t *Table) describeWritten(tr fdb.Transaction, st *tableState, s TableSchema, building []string) (*TableDescription, error) {
	next := newTableState(nil, st.keys, s.canonical())
	next.markBuilding(building)
	gsis, err := next.describeIndexes(tr)
	if err != nil {
		return nil, err
	}
	meta, err := readMeta(tr, st.keys, t.name)
	if err != nil {
		return nil, err
	}
	return t.description(next, meta, gsis), nil
}

// Stream settings. Enabling a stream sets the schema's StreamViewType;
// from the commit of UpdateTable on, every write records its change (a
// handle with the older schema cached reloads it first, since
// replaceSchema bumps the metadata version). Disabling clears the
// StreamViewType: later writes record nothing, and the records already
// written stay stored. As in DynamoDB, the disabled stream stays readable
// for [DisabledStreamRetention] (24 hours): disabling records it in the
// table's properties (DisabledStreams, stream_disabled.go), and the stream
// operations (GetRecords, Records, Tail, TrimStream, consumers) read it
// until then; later they refuse the table, as they refuse a table that
// never had a stream. Enabling the stream again, with any view type,
// continues the same stream in the library: the old records are readable
// again, before the new ones (each record keeps the view type it was
// written with). DynamoDB instead starts a new stream with a new ARN;
// enabling records, in the table's properties, the new stream's label and
// a sequence number that separates its records from the earlier ones
// (StreamLabel, StreamStartAfter), from which fdyno-server serves
// DynamoDB's new stream, and the disabled one under its own ARN.
//
// As in DynamoDB, enabling a stream that is enabled ("Table already has
// an enabled stream", also to change the view type: disable first) and
// disabling one that is not are refused. A stream of more than one shard
// ([TableSchema].StreamShards) cannot be disabled: the schema would no
// longer name its shards.

// updateStream applies spec to the table's stream.
func (t *Table) updateStream(tx fdb.Transactor, spec StreamSpecification) (*TableDescription, error) {
	const op = "UpdateTable"
	fail := func(reason string) (*TableDescription, error) {
		return nil, &ValidationError{Op: op, Reason: reason}
	}
	switch {
	case spec.StreamEnabled && spec.StreamViewType == "":
		return fail("One or more parameter values were invalid: You must specify a StreamViewType when enabling a stream")
	case !spec.StreamEnabled && spec.StreamViewType != "":
		return fail("One or more parameter values were invalid: You cannot specify a StreamViewType when disabling a stream")
	}
	return Transact(tx, func(tr fdb.Transaction) (*TableDescription, error) {
		st, err := t.load(tr, nil)
		if err != nil {
			return nil, err
		}
		s := st.schema.clone()
		switch {
		case spec.StreamEnabled && st.hasStream():
			return fail("Table already has an enabled stream: TableName: " + t.name)
		case !spec.StreamEnabled && !st.hasStream():
			return fail("Table does not have an enabled stream to disable: TableName: " + t.name)
		case !spec.StreamEnabled && st.streamShards() > 1:
			return fail("One or more parameter values were invalid: a stream of more than one shard (StreamShards " +
				strconv.Itoa(st.streamShards()) + ") cannot be disabled")
		}
		s.StreamViewType = spec.StreamViewType
		building := st.building()
		if err := t.replaceSchema(tr, s, building...); err != nil {
			return nil, withUpdateOp(err)
		}
		if spec.StreamEnabled {
			if err := t.markStreamStart(tr, st.keys); err != nil {
				return nil, err
			}
		} else if err := t.markStreamEnd(tr, st); err != nil {
			return nil, err
		}
		return t.describeWritten(tr, st, s, building)
	})
}

// markStreamStart records, in the transaction tr that enables the
// table's stream, the stream's label (now) and a sequence number every
// record of the new stream follows: (read version, 0xffff, 0xffff). A
// record is numbered by its commit version; no record was written by a
// transaction that committed between tr's read version and its commit,
// since the stream was disabled until tr commits, and every later record
// commits after tr.
func (t *Table) markStreamStart(tr fdb.Transaction, keys tableKeys) error {
	rv, err := tr.GetReadVersion().Get()
	if err != nil {
		return err
	}
	meta, err := readMeta(tr, keys, t.name)
	if err != nil {
		return err
	}
	var start seqNo
	binary.BigEndian.PutUint64(start[:8], uint64(rv))
	for i := 8; i < len(start); i++ {
		start[i] = 0xff
	}
	meta.streamLabel = t.now().UTC().Format(StreamLabelLayout)
	meta.streamStartAfter = start.String()
	return putMeta(tr, keys, meta)
}

// withUpdateOp names UpdateTable as the operation of a schema validation
// error, which validate attributes to CreateTable.
func withUpdateOp(err error) error {
	var ve *ValidationError
	if errors.As(err, &ve) {
		ve.Op = "UpdateTable"
	}
	return err
}

// mergeDefinitions adds the definitions add of an UpdateTable request
// that creates an index keyed on ks to the definitions of s, as DynamoDB
// merges them: every attribute of ks must be defined in add itself, even
// one s already defines (a table or LSI key); an attribute of ks may not
// change type; another definition of add that s already has keeps the
// type s gives it.
func mergeDefinitions(s TableSchema, add []AttributeDefinition, ks []KeySchemaElement) ([]AttributeDefinition, error) {
	const op = "UpdateTable"
	given := map[string]ScalarAttributeType{}
	for _, d := range add {
		if err := checkKeyAttrName("AttributeDefinitions", d.AttributeName); err != nil {
			return nil, withUpdateOp(err)
		}
		if _, dup := given[d.AttributeName]; dup {
			return nil, &ValidationError{Op: op, Reason: "Attribute Name is duplicated: " + d.AttributeName}
		}
		given[d.AttributeName] = d.AttributeType
	}
	for _, k := range ks {
		if _, ok := given[k.AttributeName]; !ok {
			return nil, withUpdateOp(undefinedKeys(ks, add))
		}
	}
	out := slices.Clone(s.AttributeDefinitions)
	for _, d := range add {
		i := slices.IndexFunc(out, func(o AttributeDefinition) bool { return o.AttributeName == d.AttributeName })
		switch {
		case i < 0:
			out = append(out, d)
		case out[i].AttributeType != d.AttributeType && slices.ContainsFunc(ks, func(k KeySchemaElement) bool { return k.AttributeName == d.AttributeName }):
			return nil, &ValidationError{Op: op, Reason: "One or more parameter values were invalid: Attributes cannot be redefined. " +
				"Please check that your attribute has the same type as previously defined. Existing schema: " +
				schemaString(usingKeySchema(s, d.AttributeName), s.AttributeDefinitions) + " New schema: " + schemaString(ks, add)}
		}
	}
	return out, nil
}

// usingKeySchema returns the key schema of s's table or index that uses
// attribute name.
func usingKeySchema(s TableSchema, name string) []KeySchemaElement {
	uses := func(ks []KeySchemaElement) bool {
		return slices.ContainsFunc(ks, func(k KeySchemaElement) bool { return k.AttributeName == name })
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		if uses(ix.KeySchema) {
			return ix.KeySchema
		}
	}
	for _, ix := range s.LocalSecondaryIndexes {
		if uses(ix.KeySchema) {
			return ix.KeySchema
		}
	}
	return s.KeySchema
}

// schemaString renders key schema ks with the types defs gives its
// attributes, as DynamoDB's message renders one:
// "Schema:[SchemaElement: key{xyz:S:HASH}]".
func schemaString(ks []KeySchemaElement, defs []AttributeDefinition) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		typ := ""
		if j := slices.IndexFunc(defs, func(d AttributeDefinition) bool { return d.AttributeName == k.AttributeName }); j >= 0 {
			typ = string(defs[j].AttributeType)
		}
		parts[i] = "SchemaElement: key{" + k.AttributeName + ":" + typ + ":" + string(k.KeyType) + "}"
	}
	return "Schema:[" + strings.Join(parts, ", ") + "]"
}
