package server

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno"
)

// batch.go: BatchGetItem and BatchWriteItem, through fdyno's BatchGet and
// BatchWrite. DynamoDB's request limits apply here, at the wire (100 keys
// per BatchGetItem, 25 requests per BatchWriteItem); the library's own
// bounds (16 MB of items read, one FoundationDB transaction of writes)
// decide what comes back in UnprocessedKeys and UnprocessedItems, which
// clients resend as DynamoDB's do. ConsumedCapacity is reported per table
// (batch_capacity.go).

// Batch limits (DynamoDB's API reference).
const (
	maxBatchGetKeys       = 100
	maxBatchWriteRequests = 25
)

// keysAndAttributes is DynamoDB's KeysAndAttributes.
type keysAndAttributes struct {
	Keys                     []wireItem
	ProjectionExpression     string            `json:",omitempty"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
	ConsistentRead           bool              `json:",omitempty"`
	AttributesToGet          []string          `json:",omitempty"`
}

type batchGetItemInput struct {
	RequestItems           map[string]keysAndAttributes
	ReturnConsumedCapacity string
}

type batchGetItemOutput struct {
	Responses        map[string][]wireItem
	UnprocessedKeys  map[string]keysAndAttributes
	ConsumedCapacity []consumedCapacity `json:",omitempty"`
}

// batchTables opens the tables the request names, refusing two names
// (a name and an ARN) of one table; it returns each handle's request
// name.
func (s *Server) batchTables(c *call, names []string) (map[string]*fdyno.Table, map[*fdyno.Table]string, error) {
	byName := make(map[string]*fdyno.Table, len(names))
	reqName := make(map[*fdyno.Table]string, len(names))
	for _, n := range names {
		resolved, err := tableName(c, &n)
		if err != nil {
			return nil, nil, err
		}
		t, err := s.tableFor(c, resolved)
		if err != nil {
			return nil, nil, err
		}
		if _, dup := reqName[t]; dup {
			return nil, nil, validation("One or more parameter values were invalid: table " + strconv.Quote(resolved) + " is named twice in RequestItems")
		}
		byName[n], reqName[t] = t, n
	}
	if len(names) > 1 {
		c.table = "" // several tables: the log names none
	}
	return byName, reqName, nil
}

// prepare checks the request's limits and members; the tables are
// looked up together (batchTables).
func (in *batchGetItemInput) prepare(*call) (string, error) {
	if err := checkBatchGetCounts(in.RequestItems); err != nil {
		return "", err
	}
	return "", checkReturnConsumedCapacity(in.ReturnConsumedCapacity)
}

func (s *Server) batchGetItem(c *call, in *batchGetItemInput, _ *fdyno.Table) (any, error) {
	keys := 0
	names := make([]string, 0, len(in.RequestItems))
	for n, ka := range in.RequestItems {
		keys += len(ka.Keys)
		names = append(names, n)
	}
	if keys > maxBatchGetKeys {
		return nil, validation("Too many items requested for the BatchGetItem call")
	}
	byName, reqName, err := s.batchTables(c, names)
	if err != nil {
		return nil, err
	}
	req := fdyno.BatchGetInput{RequestItems: make(map[*fdyno.Table]fdyno.KeysAndAttributes, len(names))}
	for n, ka := range in.RequestItems {
		proj, eans, err := readProjection(ka.AttributesToGet, ka.ProjectionExpression, ka.ExpressionAttributeNames, present("ProjectionExpression", ka.ProjectionExpression)...)
		if err != nil {
			return nil, err
		}
		lk := fdyno.KeysAndAttributes{ProjectionExpression: proj, ExpressionAttributeNames: eans, ConsistentRead: ka.ConsistentRead}
		for _, k := range ka.Keys {
			if k == nil {
				return nil, missing("requestItems." + n + ".member.keys.member")
			}
			lk.Keys = append(lk.Keys, fdyno.Item(k))
		}
		req.RequestItems[byName[n]] = lk
	}
	res, err := fdyno.BatchGet(s.db, req)
	if err != nil {
		return nil, err
	}
	out := batchGetItemOutput{Responses: map[string][]wireItem{}, UnprocessedKeys: map[string]keysAndAttributes{}}
	for n := range in.RequestItems {
		out.Responses[n] = []wireItem{}
	}
	for t, items := range res.Responses {
		page := out.Responses[reqName[t]]
		for _, it := range items {
			page = append(page, wireItem(it))
		}
		out.Responses[reqName[t]] = page
	}
	for t, ka := range res.UnprocessedKeys {
		n := reqName[t]
		// Unprocessed keys go back with the request's own projection
		// members, so the client can resend them as they are.
		orig := in.RequestItems[n]
		w := keysAndAttributes{ProjectionExpression: orig.ProjectionExpression, ExpressionAttributeNames: orig.ExpressionAttributeNames,
			ConsistentRead: orig.ConsistentRead, AttributesToGet: orig.AttributesToGet}
		for _, k := range ka.Keys {
			w.Keys = append(w.Keys, wireItem(k))
		}
		out.UnprocessedKeys[n] = w
	}
	sizes := make(map[string][]int, len(res.ItemSizes))
	for t, ss := range res.ItemSizes {
		sizes[reqName[t]] = ss
	}
	out.ConsumedCapacity = batchCapacity(in.ReturnConsumedCapacity, batchGetUnits(in.RequestItems, sizes, out.UnprocessedKeys), true, nil)
	return out, nil
}

// batchWritten returns the writes of req that res did not leave
// unprocessed, in a deterministic order (tables by name).
func batchWritten(req fdyno.BatchWriteInput, res *fdyno.BatchWriteOutput) []writtenKey {
	tables := make([]*fdyno.Table, 0, len(req.RequestItems))
	for t := range req.RequestItems {
		tables = append(tables, t)
	}
	slices.SortFunc(tables, func(a, b *fdyno.Table) int { return strings.Compare(a.Name(), b.Name()) })
	var out []writtenKey
	for _, t := range tables {
		// Unprocessed requests are the request's own, by pointer.
		left := map[any]bool{}
		for _, r := range res.UnprocessedItems[t] {
			left[r.PutRequest], left[r.DeleteRequest] = true, true
		}
		for _, r := range req.RequestItems[t] {
			switch {
			case r.PutRequest != nil && !left[r.PutRequest]:
				out = append(out, writtenKey{t, r.PutRequest.Item})
			case r.DeleteRequest != nil && !left[r.DeleteRequest]:
				out = append(out, writtenKey{t, r.DeleteRequest.Key})
			}
		}
	}
	return out
}

// writeRequestInput is DynamoDB's WriteRequest.
type writeRequestInput struct {
	PutRequest *struct {
		Item wireItem
	} `json:",omitempty"`
	DeleteRequest *struct {
		Key wireItem
	} `json:",omitempty"`
}

type batchWriteItemInput struct {
	RequestItems                map[string][]writeRequestInput
	ReturnConsumedCapacity      string
	ReturnItemCollectionMetrics string
}

type batchWriteItemOutput struct {
	UnprocessedItems      map[string][]writeRequestInput
	ItemCollectionMetrics map[string][]wireCollectionMetrics `json:",omitempty"`
	ConsumedCapacity      []consumedCapacity                 `json:",omitempty"`
}

// prepare checks the request's limits and members; the tables are
// looked up together (batchTables).
func (in *batchWriteItemInput) prepare(*call) (string, error) {
	if err := checkBatchWriteCounts(in.RequestItems); err != nil {
		return "", err
	}
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return "", err
	}
	return "", checkReturnItemCollectionMetrics(in.ReturnItemCollectionMetrics)
}

func (s *Server) batchWriteItem(c *call, in *batchWriteItemInput, _ *fdyno.Table) (any, error) {
	n := 0
	names := make([]string, 0, len(in.RequestItems))
	for name, reqs := range in.RequestItems {
		n += len(reqs)
		names = append(names, name)
	}
	if n > maxBatchWriteRequests {
		return nil, validation("Too many items requested for the BatchWriteItem call")
	}
	byName, reqName, err := s.batchTables(c, names)
	if err != nil {
		return nil, err
	}
	req := fdyno.BatchWriteInput{RequestItems: make(map[*fdyno.Table][]fdyno.WriteRequest, len(names))}
	for name, reqs := range in.RequestItems {
		lreqs := make([]fdyno.WriteRequest, 0, len(reqs))
		for _, r := range reqs {
			var lr fdyno.WriteRequest
			if r.PutRequest != nil {
				if r.PutRequest.Item == nil {
					return nil, missing("requestItems." + name + ".member.putRequest.item")
				}
				lr.PutRequest = &fdyno.PutRequest{Item: fdyno.Item(r.PutRequest.Item)}
			}
			if r.DeleteRequest != nil {
				if r.DeleteRequest.Key == nil {
					return nil, missing("requestItems." + name + ".member.deleteRequest.key")
				}
				lr.DeleteRequest = &fdyno.DeleteRequest{Key: fdyno.Item(r.DeleteRequest.Key)}
			}
			lreqs = append(lreqs, lr)
		}
		req.RequestItems[byName[name]] = lreqs
	}
	res, err := fdyno.BatchWrite(s.db, req)
	if err != nil {
		return nil, err
	}
	out := batchWriteItemOutput{UnprocessedItems: map[string][]writeRequestInput{}}
	if out.ItemCollectionMetrics, err = s.collectionsMetrics(in.ReturnItemCollectionMetrics, batchWritten(req, res)); err != nil {
		return nil, err
	}
	for t, reqs := range res.UnprocessedItems {
		w := make([]writeRequestInput, 0, len(reqs))
		for _, r := range reqs {
			var wr writeRequestInput
			if r.PutRequest != nil {
				wr.PutRequest = &struct{ Item wireItem }{wireItem(r.PutRequest.Item)}
			}
			if r.DeleteRequest != nil {
				wr.DeleteRequest = &struct{ Key wireItem }{wireItem(r.DeleteRequest.Key)}
			}
			w = append(w, wr)
		}
		out.UnprocessedItems[reqName[t]] = w
	}
	out.ConsumedCapacity = batchCapacity(in.ReturnConsumedCapacity, batchWriteUnits(in.RequestItems, out.UnprocessedItems), false, func() map[string][]fdyno.IndexCapacity {
		ixs := map[string][]fdyno.IndexCapacity{}
		for t, ic := range res.IndexCapacity() {
			ixs[reqName[t]] = ic
		}
		return ixs
	})
	return out, nil
}
