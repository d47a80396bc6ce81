package server

import (
	"github.com/fdyno/fdyno"
)

// items.go: PutItem, GetItem, UpdateItem and DeleteItem, each one call of
// the library on the server's database (its own transaction, retried by
// the bindings).

// writeCommon are the members that PutItem, UpdateItem and DeleteItem
// share.
type writeCommon struct {
	TableName                           *string
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           wireValues
	ReturnValues                        fdyno.ReturnValue
	ReturnValuesOnConditionCheckFailure fdyno.ReturnValuesOnConditionCheckFailure
	ReturnConsumedCapacity              string
	ReturnItemCollectionMetrics         string
	legacyConditional
}

// prepareWrite validates what the library does not: the table name, the
// presence of the item or key (required, present), the members' enums,
// then the legacy members, which translateWrite rewrites into
// expressions (legacy.go; UpdateItem's updates into updateExpression),
// all before the table is looked up, as DynamoDB validates a request; it
// returns the table's name and whether the request used AttributeUpdates.
func prepareWrite(c *call, w *writeCommon, required string, present bool, updates legacyParam, updateExpression *string) (string, bool, error) {
	name, err := tableName(c, w.TableName)
	if err != nil {
		return "", false, err
	}
	if !present {
		return "", false, missing(required)
	}
	if err := checkWriteMembers(w); err != nil {
		return "", false, err
	}
	legacyUpdates, err := translateWrite(w, updates, updateExpression)
	if err != nil {
		return "", false, err
	}
	return name, legacyUpdates, nil
}

type putItemInput struct {
	writeCommon
	Item wireItem
}

type writeOutput struct {
	Attributes            wireItem                     `json:",omitempty"`
	ConsumedCapacity      *consumedCapacity            `json:",omitempty"`
	ItemCollectionMetrics *fdyno.ItemCollectionMetrics `json:",omitempty"`
}

// writeResult returns the output of a write on t of the item with key
// (for PutItem, the item put) that returned attrs: the attributes, and
// the consumed capacity and item collection metrics w asks for. The
// write is charged for charged bytes, or (0) for the larger of key and
// attrs, and for its index entries, which indexes works out (only when
// the capacity is asked for: it projects the item for every index).
func (s *Server) writeResult(w *writeCommon, t *fdyno.Table, key, attrs fdyno.Item, charged int, indexes func() []fdyno.IndexCapacity) (any, error) {
	icm, err := s.collectionMetrics(w.ReturnItemCollectionMetrics, t, key)
	if err != nil {
		return nil, err
	}
	var ixs []fdyno.IndexCapacity
	if wantsCapacity(w.ReturnConsumedCapacity) {
		if charged == 0 {
			charged = max(key.Size(), attrs.Size())
		}
		ixs = indexes()
	}
	return writeOutput{
		Attributes:            wireItem(attrs),
		ConsumedCapacity:      writeSizeCapacity(w.ReturnConsumedCapacity, t.Name(), charged, ixs...),
		ItemCollectionMetrics: icm,
	}, nil
}

func (in *putItemInput) prepare(c *call) (string, error) {
	name, _, err := prepareWrite(c, &in.writeCommon, "item", in.Item != nil, nil, nil)
	return name, err
}

func (s *Server) putItem(_ *call, in *putItemInput, t *fdyno.Table) (any, error) {
	out, err := t.Put(s.db, fdyno.PutInput{
		Item:                                fdyno.Item(in.Item),
		ConditionExpression:                 in.ConditionExpression,
		ExpressionAttributeNames:            in.ExpressionAttributeNames,
		ExpressionAttributeValues:           in.ExpressionAttributeValues,
		ReturnValues:                        in.ReturnValues,
		ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure,
	})
	if err != nil {
		return nil, err
	}
	return s.writeResult(&in.writeCommon, t, fdyno.Item(in.Item), out.Attributes, 0, out.IndexCapacity)
}

type updateItemInput struct {
	writeCommon
	Key              wireItem
	UpdateExpression string
	AttributeUpdates legacyParam

	legacyUpdates bool // AttributeUpdates were translated (prepare)
}

func (in *updateItemInput) prepare(c *call) (string, error) {
	name, legacyUpdates, err := prepareWrite(c, &in.writeCommon, "key", in.Key != nil, in.AttributeUpdates, &in.UpdateExpression)
	in.legacyUpdates = legacyUpdates
	return name, err
}

func (s *Server) updateItem(_ *call, in *updateItemInput, t *fdyno.Table) (any, error) {
	out, err := t.Update(s.db, fdyno.UpdateInput{
		Key:                                 fdyno.Item(in.Key),
		UpdateExpression:                    in.UpdateExpression,
		ConditionExpression:                 in.ConditionExpression,
		ExpressionAttributeNames:            in.ExpressionAttributeNames,
		ExpressionAttributeValues:           in.ExpressionAttributeValues,
		ReturnValues:                        in.ReturnValues,
		ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure,
	})
	if err != nil && in.legacyUpdates {
		err = legacyUpdateError(err)
	}
	if err != nil {
		return nil, err
	}
	return s.writeResult(&in.writeCommon, t, fdyno.Item(in.Key), out.Attributes, out.ItemSize, out.IndexCapacity)
}

type deleteItemInput struct {
	writeCommon
	Key wireItem
}

func (in *deleteItemInput) prepare(c *call) (string, error) {
	name, _, err := prepareWrite(c, &in.writeCommon, "key", in.Key != nil, nil, nil)
	return name, err
}

func (s *Server) deleteItem(_ *call, in *deleteItemInput, t *fdyno.Table) (any, error) {
	out, err := t.Delete(s.db, fdyno.DeleteInput{
		Key:                                 fdyno.Item(in.Key),
		ConditionExpression:                 in.ConditionExpression,
		ExpressionAttributeNames:            in.ExpressionAttributeNames,
		ExpressionAttributeValues:           in.ExpressionAttributeValues,
		ReturnValues:                        in.ReturnValues,
		ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure,
	})
	if err != nil {
		return nil, err
	}
	return s.writeResult(&in.writeCommon, t, fdyno.Item(in.Key), out.Attributes, 0, out.IndexCapacity)
}

type getItemInput struct {
	TableName                *string
	Key                      wireItem
	ProjectionExpression     string
	ExpressionAttributeNames map[string]string
	AttributesToGet          []string
	ConsistentRead           bool
	ReturnConsumedCapacity   string

	// The projection to read, AttributesToGet's or ProjectionExpression's
	// (prepare).
	proj  string
	names map[string]string
}

type getItemOutput struct {
	// Item is absent when there is no item, and {} when the item has
	// none of the projected attributes.
	Item             *wireItem         `json:",omitempty"`
	ConsumedCapacity *consumedCapacity `json:",omitempty"`
}

func (in *getItemInput) prepare(c *call) (string, error) {
	name, err := tableName(c, in.TableName)
	if err != nil {
		return "", err
	}
	if in.Key == nil {
		return "", missing("key")
	}
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return "", err
	}
	in.proj, in.names, err = readProjection(in.AttributesToGet, in.ProjectionExpression, in.ExpressionAttributeNames, present("ProjectionExpression", in.ProjectionExpression)...)
	if err != nil {
		return "", err
	}
	return name, nil
}

func (s *Server) getItem(_ *call, in *getItemInput, t *fdyno.Table) (any, error) {
	out, err := t.Get(s.db, fdyno.GetInput{
		Key:                      fdyno.Item(in.Key),
		ProjectionExpression:     in.proj,
		ExpressionAttributeNames: in.names,
		ConsistentRead:           in.ConsistentRead,
	})
	if err != nil {
		return nil, err
	}
	res := getItemOutput{ConsumedCapacity: readCapacity(in.ReturnConsumedCapacity, t.Name(), out.ItemSize, in.ConsistentRead)}
	if out.Item != nil {
		it := wireItem(out.Item)
		res.Item = &it
	}
	return res, nil
}
