package server

import (
	"strconv"

	"github.com/fdyno/fdyno"
)

// collection.go: ReturnItemCollectionMetrics SIZE. For a table with local
// secondary indexes, PutItem, UpdateItem and DeleteItem return the
// ItemCollectionMetrics of the written item's collection (the library's
// estimate, read after the write); other tables have none, as in
// DynamoDB.

// collectionMetrics returns the metrics to send for a write of key, or nil
// unless ret is SIZE and the table has item collections.
func (s *Server) collectionMetrics(ret string, t *fdyno.Table, key fdyno.Item) (*fdyno.ItemCollectionMetrics, error) {
	if ret != "SIZE" {
		return nil, nil
	}
	return t.ItemCollectionMetrics(s.db, key)
}

// wireCollectionMetrics is one ItemCollectionMetrics as BatchWriteItem and
// TransactWriteItems list them, per table name.
type wireCollectionMetrics struct {
	ItemCollectionKey   wireItem
	SizeEstimateRangeGB [2]float64
}

// writtenKey is a write of a batch or a transaction: its table and its
// key (or item, whose partition key attribute names the collection).
type writtenKey struct {
	t   *fdyno.Table
	key fdyno.Item
}

// collectionsMetrics returns, per table name, the metrics of each item
// collection that writes touched, once per collection, or nil unless ret
// is SIZE: BatchWriteItem's and TransactWriteItems' ItemCollectionMetrics.
// Tables without local secondary indexes have none, as in DynamoDB.
func (s *Server) collectionsMetrics(ret string, writes []writtenKey) (map[string][]wireCollectionMetrics, error) {
	if ret != "SIZE" {
		return nil, nil
	}
	var out map[string][]wireCollectionMetrics
	seen := map[string]bool{}
	for _, w := range writes {
		m, err := w.t.ItemCollectionMetrics(s.db, w.key)
		if err != nil || m == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		enc, err := fdyno.EncodeItem(m.ItemCollectionKey)
		if err != nil {
			return nil, err
		}
		if id := w.t.Name() + "\x00" + string(enc); !seen[id] {
			seen[id] = true
			if out == nil {
				out = map[string][]wireCollectionMetrics{}
			}
			out[w.t.Name()] = append(out[w.t.Name()], wireCollectionMetrics{wireItem(m.ItemCollectionKey), m.SizeEstimateRangeGB})
		}
	}
	return out, nil
}

// appendCollectionMetrics appends ItemCollectionMetrics m as a member of
// ob.
func (o *object) collectionMetrics(m *fdyno.ItemCollectionMetrics) {
	if m == nil {
		return
	}
	o.key("ItemCollectionMetrics")
	ib := object{b: o.b}
	ib.item("ItemCollectionKey", m.ItemCollectionKey)
	ib.key("SizeEstimateRangeGB")
	ib.b = append(ib.b, '[')
	ib.b = strconv.AppendFloat(ib.b, m.SizeEstimateRangeGB[0], 'f', -1, 64)
	ib.b = append(ib.b, ',')
	ib.b = strconv.AppendFloat(ib.b, m.SizeEstimateRangeGB[1], 'f', -1, 64)
	ib.b = append(ib.b, ']')
	o.b = ib.close()
}
