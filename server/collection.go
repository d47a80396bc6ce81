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
