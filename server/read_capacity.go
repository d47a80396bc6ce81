package server

import (
	"math"
	"slices"

	"github.com/fdyno/fdyno"
)

// read_capacity.go: the ConsumedCapacity of Query and Scan, by DynamoDB's
// rules for them: the sizes of all the items read (whole, before the
// filter and the projection) are summed, then rounded up to 4 KB per read
// unit, at least one unit, half for an eventually consistent read. A read
// of a secondary index is charged to the index: INDEXES reports it under
// GlobalSecondaryIndexes or LocalSecondaryIndexes, with the table itself
// at 0.

// scanCapacity returns the ConsumedCapacity of a Query or Scan page that
// read scannedSize bytes of items from t (or its index indexName), or nil
// unless asked for. Only INDEXES needs to know which kind of index it is,
// so only INDEXES looks at the table's schema.
func (s *Server) scanCapacity(ret string, t *fdyno.Table, indexName string, scannedSize int, consistent bool) *consumedCapacity {
	if !wantsCapacity(ret) {
		return nil
	}
	units := math.Max(1, math.Ceil(float64(scannedSize)/4096))
	if !consistent {
		units /= 2
	}
	cc := &consumedCapacity{TableName: t.Name(), CapacityUnits: units, ReadCapacityUnits: units}
	if ret != "INDEXES" {
		return cc
	}
	if indexName == "" {
		cc.Table = &capacityUnits{CapacityUnits: units, ReadCapacityUnits: units}
		return cc
	}
	cc.Table = &capacityUnits{CapacityUnits: 0}
	charge := map[string]capacityUnits{indexName: {CapacityUnits: units, ReadCapacityUnits: units}}
	if s.isLocalIndex(t, indexName) {
		cc.LocalSecondaryIndexes = charge
	} else {
		cc.GlobalSecondaryIndexes = charge
	}
	return cc
}

// isLocalIndex reports whether indexName is a local secondary index of t.
// The read succeeded, so the index exists; if the schema cannot be read
// now, the index is taken to be global.
func (s *Server) isLocalIndex(t *fdyno.Table, indexName string) bool {
	d, err := t.Describe(s.db)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(d.LocalSecondaryIndexes, func(l fdyno.LocalSecondaryIndex) bool { return l.IndexName == indexName })
}
