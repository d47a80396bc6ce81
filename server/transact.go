package server

import (
	"strconv"

	"github.com/fdyno/fdyno"
)

// transact.go: TransactWriteItems and TransactGetItems, through fdyno's
// TransactWrite and TransactGet, with DynamoDB's limit of 100 actions at
// the wire (the library's own limit is FoundationDB's transaction). A
// canceled transaction answers TransactionCanceledException with its
// CancellationReasons (errors.go); a ClientRequestToken reused for another
// request answers IdempotentParameterMismatchException. ConsumedCapacity
// is reported per table, at twice the units of the same reads or writes
// outside a transaction, and in read units for a replayed token
// (transact_capacity.go).

// maxTransactItems is DynamoDB's limit on the actions of one
// TransactWriteItems or TransactGetItems.
const maxTransactItems = 100

// txWriteCommon are the members every TransactWriteItem action shares.
type txWriteCommon struct {
	TableName                           *string
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           wireValues
	ReturnValuesOnConditionCheckFailure fdyno.ReturnValuesOnConditionCheckFailure
}

type transactWriteItem struct {
	ConditionCheck *struct {
		txWriteCommon
		Key wireItem
	}
	Put *struct {
		txWriteCommon
		Item wireItem
	}
	Delete *struct {
		txWriteCommon
		Key wireItem
	}
	Update *struct {
		txWriteCommon
		Key              wireItem
		UpdateExpression string
	}
}

type transactWriteItemsInput struct {
	TransactItems               []transactWriteItem
	ClientRequestToken          string
	ReturnConsumedCapacity      string
	ReturnItemCollectionMetrics string
}

type transactWriteItemsOutput struct {
	ConsumedCapacity      []consumedCapacity                 `json:",omitempty"`
	ItemCollectionMetrics map[string][]wireCollectionMetrics `json:",omitempty"`
}

// tooManyActions is DynamoDB's error for more than 100 actions.
func tooManyActions(class string, n int) error {
	var v constraints
	list := javaList(class, n)
	v.add("transactItems", &list, "Member must have length less than or equal to "+strconv.Itoa(maxTransactItems))
	return v.err()
}

// prepare checks the request's own members; each action's table is
// looked up with the action's checks (run).
func (in *transactWriteItemsInput) prepare(*call) (string, error) {
	if in.TransactItems == nil {
		return "", missing("transactItems")
	}
	if len(in.TransactItems) > maxTransactItems {
		return "", tooManyActions("TransactWriteItem", len(in.TransactItems))
	}
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return "", err
	}
	return "", checkReturnItemCollectionMetrics(in.ReturnItemCollectionMetrics)
}

func (s *Server) transactWriteItems(c *call, in *transactWriteItemsInput, _ *fdyno.Table) (any, error) {
	req := fdyno.TransactWriteInput{ClientRequestToken: in.ClientRequestToken, TransactItems: make([]fdyno.TransactWriteItem, len(in.TransactItems))}
	tables := map[string]bool{}
	// open resolves the table of an action, what, whose item or key
	// (member) is present if has.
	open := func(w *txWriteCommon, what, member string, has bool) (*fdyno.Table, error) {
		if w.TableName == nil {
			return nil, missing("transactItems.member." + what + ".tableName")
		}
		name, err := tableName(c, w.TableName)
		if err != nil {
			return nil, err
		}
		tables[name] = true
		t, err := s.tableFor(c, name)
		if err == nil && !has {
			err = missing("transactItems.member." + what + "." + member)
		}
		return t, err
	}
	for i, ti := range in.TransactItems {
		set := 0
		for _, p := range []bool{ti.ConditionCheck != nil, ti.Put != nil, ti.Delete != nil, ti.Update != nil} {
			if p {
				set++
			}
		}
		if set != 1 {
			return nil, validation("TransactItems can only contain one of Check, Put, Update or Delete")
		}
		out := &req.TransactItems[i]
		switch {
		case ti.ConditionCheck != nil:
			a := ti.ConditionCheck
			t, err := open(&a.txWriteCommon, "conditionCheck", "key", a.Key != nil)
			if err != nil {
				return nil, err
			}
			out.ConditionCheck = &fdyno.ConditionCheck{Table: t, Key: fdyno.Item(a.Key), ConditionExpression: a.ConditionExpression,
				ExpressionAttributeNames: a.ExpressionAttributeNames, ExpressionAttributeValues: a.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: a.ReturnValuesOnConditionCheckFailure}
		case ti.Put != nil:
			a := ti.Put
			t, err := open(&a.txWriteCommon, "put", "item", a.Item != nil)
			if err != nil {
				return nil, err
			}
			out.Put = &fdyno.TransactPut{Table: t, Item: fdyno.Item(a.Item), ConditionExpression: a.ConditionExpression,
				ExpressionAttributeNames: a.ExpressionAttributeNames, ExpressionAttributeValues: a.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: a.ReturnValuesOnConditionCheckFailure}
		case ti.Delete != nil:
			a := ti.Delete
			t, err := open(&a.txWriteCommon, "delete", "key", a.Key != nil)
			if err != nil {
				return nil, err
			}
			out.Delete = &fdyno.TransactDelete{Table: t, Key: fdyno.Item(a.Key), ConditionExpression: a.ConditionExpression,
				ExpressionAttributeNames: a.ExpressionAttributeNames, ExpressionAttributeValues: a.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: a.ReturnValuesOnConditionCheckFailure}
		case ti.Update != nil:
			a := ti.Update
			t, err := open(&a.txWriteCommon, "update", "key", a.Key != nil)
			if err != nil {
				return nil, err
			}
			out.Update = &fdyno.TransactUpdate{Table: t, Key: fdyno.Item(a.Key), UpdateExpression: a.UpdateExpression,
				ConditionExpression: a.ConditionExpression, ExpressionAttributeNames: a.ExpressionAttributeNames,
				ExpressionAttributeValues: a.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: a.ReturnValuesOnConditionCheckFailure}
		}
	}
	if len(tables) > 1 {
		c.table = ""
	}
	if err := checkTransactWriteSize(req.TransactItems); err != nil {
		return nil, err
	}
	out, err := fdyno.TransactWrite(s.db, req)
	if err != nil {
		return nil, err
	}
	if out.Replayed {
		return transactWriteItemsOutput{ConsumedCapacity: batchCapacity(in.ReturnConsumedCapacity, transactReplayUnits(req.TransactItems), true, nil)}, nil
	}
	icm, err := s.collectionsMetrics(in.ReturnItemCollectionMetrics, transactWritten(req))
	if err != nil {
		return nil, err
	}
	indexes := func() map[string][]fdyno.IndexCapacity {
		return transactIndexUnits(req.TransactItems, out.IndexCapacity())
	}
	return transactWriteItemsOutput{ConsumedCapacity: batchCapacity(in.ReturnConsumedCapacity, transactWriteUnits(req.TransactItems, out.ItemSizes), false, indexes),
		ItemCollectionMetrics: icm}, nil
}

// transactWritten returns the writes of a committed transaction (its
// condition checks write nothing).
func transactWritten(req fdyno.TransactWriteInput) []writtenKey {
	var out []writtenKey
	for _, ti := range req.TransactItems {
		switch {
		case ti.Put != nil:
			out = append(out, writtenKey{ti.Put.Table, ti.Put.Item})
		case ti.Update != nil:
			out = append(out, writtenKey{ti.Update.Table, ti.Update.Key})
		case ti.Delete != nil:
			out = append(out, writtenKey{ti.Delete.Table, ti.Delete.Key})
		}
	}
	return out
}

// maxTransactWriteSize is DynamoDB's limit on the aggregate size of the
// items of one TransactWriteItems: 4 MB.
const maxTransactWriteSize = 4 << 20

// checkTransactWriteSize applies the 4 MB aggregate limit to the sizes
// the request states: each Put's item and each other action's key
// (DynamoDB's item size measure, fdyno.Item.Size). DynamoDB documents the
// limit; the message is the one other implementations report for it.
func checkTransactWriteSize(items []fdyno.TransactWriteItem) error {
	total := 0
	for _, ti := range items {
		switch {
		case ti.Put != nil:
			total += ti.Put.Item.Size()
		case ti.Update != nil:
			total += ti.Update.Key.Size()
		case ti.Delete != nil:
			total += ti.Delete.Key.Size()
		case ti.ConditionCheck != nil:
			total += ti.ConditionCheck.Key.Size()
		}
	}
	if total > maxTransactWriteSize {
		return validation("Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit")
	}
	return nil
}

type transactGetItem struct {
	Get *struct {
		TableName                *string
		Key                      wireItem
		ProjectionExpression     string
		ExpressionAttributeNames map[string]string
	}
}

type transactGetItemsInput struct {
	TransactItems          []transactGetItem
	ReturnConsumedCapacity string
}

// itemResponse is DynamoDB's ItemResponse: {} when there is no item,
// {"Item":{}} for an item with none of the projected attributes.
type itemResponse struct {
	Item *wireItem `json:",omitempty"`
}

type transactGetItemsOutput struct {
	Responses        []itemResponse
	ConsumedCapacity []consumedCapacity `json:",omitempty"`
}

// prepare checks the request's own members; each action's table is
// looked up with the action's checks (run).
func (in *transactGetItemsInput) prepare(*call) (string, error) {
	if in.TransactItems == nil {
		return "", missing("transactItems")
	}
	if len(in.TransactItems) > maxTransactItems {
		return "", tooManyActions("TransactGetItem", len(in.TransactItems))
	}
	return "", checkReturnConsumedCapacity(in.ReturnConsumedCapacity)
}

func (s *Server) transactGetItems(c *call, in *transactGetItemsInput, _ *fdyno.Table) (any, error) {
	req := fdyno.TransactGetInput{TransactItems: make([]fdyno.TransactGetItem, len(in.TransactItems))}
	tables := map[string]bool{}
	for i, ti := range in.TransactItems {
		g := ti.Get
		if g == nil {
			return nil, missing("transactItems.member.get")
		}
		if g.TableName == nil {
			return nil, missing("transactItems.member.get.tableName")
		}
		name, err := tableName(c, g.TableName)
		if err != nil {
			return nil, err
		}
		if g.Key == nil {
			return nil, missing("transactItems.member.get.key")
		}
		tables[name] = true
		t, err := s.tableFor(c, name)
		if err != nil {
			return nil, err
		}
		req.TransactItems[i] = fdyno.TransactGetItem{Table: t, Key: fdyno.Item(g.Key),
			ProjectionExpression: g.ProjectionExpression, ExpressionAttributeNames: g.ExpressionAttributeNames}
	}
	if len(tables) > 1 {
		c.table = ""
	}
	res, err := fdyno.TransactGet(s.db, req)
	if err != nil {
		return nil, err
	}
	out := transactGetItemsOutput{Responses: make([]itemResponse, len(res.Responses))}
	units := map[string]float64{}
	for i, r := range res.Responses {
		if r.Item != nil {
			it := wireItem(r.Item)
			out.Responses[i].Item = &it
		}
		units[req.TransactItems[i].Table.Name()] += transactionalUnits * readUnits(r.ItemSize, true)
	}
	out.ConsumedCapacity = batchCapacity(in.ReturnConsumedCapacity, units, true, nil)
	return out, nil
}
