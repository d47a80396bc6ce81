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

// writeTable validates what the library does not: the table name, the
// members' enums, then the legacy members, which translate rewrites into
// expressions (legacy.go), all before the table is looked up, as
// DynamoDB validates a request; it returns the table's handle.
func (s *Server) writeTable(c *call, w *writeCommon, translate func() error) (*fdyno.Table, error) {
	name, err := tableName(c, w.TableName)
	if err != nil {
		return nil, err
	}
	if err := checkWriteMembers(w); err != nil {
		return nil, err
	}
	if err := translate(); err != nil {
		return nil, err
	}
	return s.table(name)
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

func (s *Server) putItem(c *call, body []byte) (any, error) {
	var in putItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.Item == nil {
		if _, err := tableName(c, in.TableName); err != nil {
			return nil, err
		}
		return nil, missing("item")
	}
	t, err := s.writeTable(c, &in.writeCommon, func() error {
		_, err := translateWrite(&in.writeCommon, nil, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
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
	icm, err := s.collectionMetrics(in.ReturnItemCollectionMetrics, t, fdyno.Item(in.Item))
	if err != nil {
		return nil, err
	}
	return writeOutput{
		Attributes:            wireItem(out.Attributes),
		ConsumedCapacity:      writeCapacity(in.ReturnConsumedCapacity, t.Name(), fdyno.Item(in.Item), out.Attributes),
		ItemCollectionMetrics: icm,
	}, nil
}

type updateItemInput struct {
	writeCommon
	Key              wireItem
	UpdateExpression string
	AttributeUpdates legacyParam
}

func (s *Server) updateItem(c *call, body []byte) (any, error) {
	var in updateItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.Key == nil {
		if _, err := tableName(c, in.TableName); err != nil {
			return nil, err
		}
		return nil, missing("key")
	}
	var legacyUpdates bool
	t, err := s.writeTable(c, &in.writeCommon, func() (err error) {
		legacyUpdates, err = translateWrite(&in.writeCommon, in.AttributeUpdates, &in.UpdateExpression)
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err := t.Update(s.db, fdyno.UpdateInput{
		Key:                                 fdyno.Item(in.Key),
		UpdateExpression:                    in.UpdateExpression,
		ConditionExpression:                 in.ConditionExpression,
		ExpressionAttributeNames:            in.ExpressionAttributeNames,
		ExpressionAttributeValues:           in.ExpressionAttributeValues,
		ReturnValues:                        in.ReturnValues,
		ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure,
	})
	if err != nil && legacyUpdates {
		err = legacyUpdateError(err)
	}
	if err != nil {
		return nil, err
	}
	icm, err := s.collectionMetrics(in.ReturnItemCollectionMetrics, t, fdyno.Item(in.Key))
	if err != nil {
		return nil, err
	}
	return writeOutput{
		Attributes:            wireItem(out.Attributes),
		ConsumedCapacity:      writeCapacity(in.ReturnConsumedCapacity, t.Name(), fdyno.Item(in.Key), out.Attributes),
		ItemCollectionMetrics: icm,
	}, nil
}

type deleteItemInput struct {
	writeCommon
	Key wireItem
}

func (s *Server) deleteItem(c *call, body []byte) (any, error) {
	var in deleteItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.Key == nil {
		if _, err := tableName(c, in.TableName); err != nil {
			return nil, err
		}
		return nil, missing("key")
	}
	t, err := s.writeTable(c, &in.writeCommon, func() error {
		_, err := translateWrite(&in.writeCommon, nil, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
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
	icm, err := s.collectionMetrics(in.ReturnItemCollectionMetrics, t, fdyno.Item(in.Key))
	if err != nil {
		return nil, err
	}
	return writeOutput{
		Attributes:            wireItem(out.Attributes),
		ConsumedCapacity:      writeCapacity(in.ReturnConsumedCapacity, t.Name(), fdyno.Item(in.Key), out.Attributes),
		ItemCollectionMetrics: icm,
	}, nil
}

type getItemInput struct {
	TableName                *string
	Key                      wireItem
	ProjectionExpression     string
	ExpressionAttributeNames map[string]string
	AttributesToGet          []string
	ConsistentRead           bool
	ReturnConsumedCapacity   string
}

type getItemOutput struct {
	// Item is absent when there is no item, and {} when the item has
	// none of the projected attributes.
	Item             *wireItem         `json:",omitempty"`
	ConsumedCapacity *consumedCapacity `json:",omitempty"`
}

func (s *Server) getItem(c *call, body []byte) (any, error) {
	var in getItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name, err := tableName(c, in.TableName)
	if err != nil {
		return nil, err
	}
	if in.Key == nil {
		return nil, missing("key")
	}
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	proj, names, err := attributesToGet(in.AttributesToGet, in.ExpressionAttributeNames, present("ProjectionExpression", in.ProjectionExpression)...)
	if err != nil {
		return nil, err
	}
	if proj == "" {
		proj = in.ProjectionExpression
	}
	t, err := s.table(name)
	if err != nil {
		return nil, err
	}
	out, err := t.Get(s.db, fdyno.GetInput{
		Key:                      fdyno.Item(in.Key),
		ProjectionExpression:     proj,
		ExpressionAttributeNames: names,
		ConsistentRead:           in.ConsistentRead,
	})
	if err != nil {
		return nil, err
	}
	res := getItemOutput{ConsumedCapacity: readCapacity(in.ReturnConsumedCapacity, t.Name(), out.Item.Size(), in.ConsistentRead)}
	if out.Item != nil {
		it := wireItem(out.Item)
		res.Item = &it
	}
	return res, nil
}
