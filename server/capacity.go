package server

import (
	"math"

	"github.com/fdyno/fdyno"
)

// capacity.go: ReturnConsumedCapacity. fdyno has no provisioned capacity,
// so consumed capacity is reported for what a request would cost in
// DynamoDB's units, from the item sizes the server sees: a read unit per
// 4 KB read (halved for eventually consistent reads, which fdyno serves
// consistently anyway), a write unit per 1 KB written, at least one unit
// (half a unit for an eventually consistent read). A GetItem counts the
// whole item it read, whatever the projection ("requesting a subset of
// attributes has no impact on the item size calculations", DynamoDB's
// developer guide); an UpdateItem the larger of the item before and after
// the update (the library reports both). A PutItem or DeleteItem counts
// the larger of the item sizes it sends or returns; where the old item is
// not returned its size is not known and not counted.

// consumedCapacity is DynamoDB's ConsumedCapacity.
type consumedCapacity struct {
	TableName              string
	CapacityUnits          float64
	ReadCapacityUnits      float64                  `json:",omitempty"`
	WriteCapacityUnits     float64                  `json:",omitempty"`
	Table                  *capacityUnits           `json:",omitempty"`
	GlobalSecondaryIndexes map[string]capacityUnits `json:",omitempty"`
	LocalSecondaryIndexes  map[string]capacityUnits `json:",omitempty"`
}

type capacityUnits struct {
	CapacityUnits      float64
	ReadCapacityUnits  float64 `json:",omitempty"`
	WriteCapacityUnits float64 `json:",omitempty"`
}

// checkReturnConsumedCapacity validates the ReturnConsumedCapacity member.
func checkReturnConsumedCapacity(r string) error {
	switch r {
	case "", "NONE", "TOTAL", "INDEXES":
		return nil
	}
	return enumError("returnConsumedCapacity", r, "INDEXES", "TOTAL", "NONE")
}

// checkReturnItemCollectionMetrics validates ReturnItemCollectionMetrics
// (collection.go returns the metrics).
func checkReturnItemCollectionMetrics(r string) error {
	switch r {
	case "", "NONE", "SIZE":
		return nil
	}
	return enumError("returnItemCollectionMetrics", r, "SIZE", "NONE")
}

// wantsCapacity reports whether ReturnConsumedCapacity ret asks for the
// ConsumedCapacity (TOTAL or INDEXES; NONE and absent do not).
func wantsCapacity(ret string) bool { return ret == "TOTAL" || ret == "INDEXES" }

// readCapacity returns the ConsumedCapacity of reading bytes bytes, or nil
// unless asked for.
func readCapacity(ret, table string, bytes int, consistent bool) *consumedCapacity {
	if !wantsCapacity(ret) {
		return nil
	}
	units := math.Max(1, math.Ceil(float64(bytes)/4096))
	if !consistent {
		units /= 2
	}
	cc := &consumedCapacity{TableName: table, CapacityUnits: units, ReadCapacityUnits: units}
	if ret == "INDEXES" {
		cc.Table = &capacityUnits{CapacityUnits: units}
	}
	return cc
}

// writeCapacity returns the ConsumedCapacity of writing the largest of
// items, or nil unless asked for.
func writeCapacity(ret, table string, items ...fdyno.Item) *consumedCapacity {
	if !wantsCapacity(ret) {
		return nil
	}
	size := 0
	for _, it := range items {
		size = max(size, it.Size())
	}
	return writeSizeCapacity(ret, table, size)
}

// writeSizeCapacity returns the ConsumedCapacity of a write charged for
// an item of size bytes and for its index entries (the library's
// figures: index_capacity.go), or nil unless asked for. The totals
// include the indexes, as DynamoDB charges them; INDEXES also breaks
// them down, per table and per index.
func writeSizeCapacity(ret, table string, size int, indexes ...fdyno.IndexCapacity) *consumedCapacity {
	if !wantsCapacity(ret) {
		return nil
	}
	units := math.Max(1, math.Ceil(float64(size)/1024))
	cc := &consumedCapacity{TableName: table, CapacityUnits: units, WriteCapacityUnits: units}
	if ret == "INDEXES" {
		cc.Table = &capacityUnits{CapacityUnits: units, WriteCapacityUnits: units}
	}
	cc.addIndexWrites(ret, indexes)
	return cc
}

// addIndexWrites adds the write units of indexes to cc's totals and, for
// INDEXES, breaks them down per index.
func (cc *consumedCapacity) addIndexWrites(ret string, indexes []fdyno.IndexCapacity) {
	for _, ix := range indexes {
		cc.CapacityUnits += ix.WriteUnits
		cc.WriteCapacityUnits += ix.WriteUnits
		if ret != "INDEXES" {
			continue
		}
		m := &cc.GlobalSecondaryIndexes
		if ix.Local {
			m = &cc.LocalSecondaryIndexes
		}
		if *m == nil {
			*m = map[string]capacityUnits{}
		}
		u := (*m)[ix.IndexName].CapacityUnits + ix.WriteUnits
		(*m)[ix.IndexName] = capacityUnits{CapacityUnits: u, WriteCapacityUnits: u}
	}
}
