package server

import "github.com/fdyno/fdyno"

// transact_capacity.go: the ConsumedCapacity of TransactWriteItems and
// TransactGetItems. DynamoDB's developer guide ("Capacity management for
// transactions") charges a transaction twice what the same operations
// cost outside one: two write units per 1 KB of each item written, two
// read units per 4 KB of each item read (strongly consistent). Each item
// is rounded up on its own, and the entries are per table, as for
// batches (batch_capacity.go).
//
// A write action is charged for the item size the library reports
// (fdyno.TransactWriteOutput.ItemSizes): the larger of the item before
// and after a Put or Update, the deleted item, and, for a
// ConditionCheck, which writes nothing, the item it read, in write units
// too (a check of a 3 KB item costs 6, of a missing item 2, as captured
// from DynamoDB by other implementations). A request replayed with the
// ClientRequestToken of a committed one writes nothing and is charged
// read units: "subsequent TransactWriteItems calls with the same client
// token return the number of read capacity units consumed in reading the
// item" (the API reference), two per 4 KB of each action's item as the
// request states it (a Put's item, another action's key: the items the
// first call wrote are not kept). A TransactGetItems Get counts its whole
// item, whatever its projection (one unit's worth when absent).

// transactionalUnits is the factor of a transactional operation's units.
const transactionalUnits = 2

// transactWriteUnits returns the write units per table of the actions
// items, which the library charged for sizes.
func transactWriteUnits(items []fdyno.TransactWriteItem, sizes []int) map[string]float64 {
	units := map[string]float64{}
	for i, ti := range items {
		if t := actionTable(ti); t != nil && i < len(sizes) {
			units[t.Name()] += transactionalUnits * writeUnits(sizes[i])
		}
	}
	return units
}

// transactIndexUnits returns, per table, the index write units of the
// actions items, whose index costs the library reported (costs), summed
// per index. An index entry is charged as one write, not twice as the
// actions' items are: DynamoDB's two underlying writes are the
// transaction's prepare and commit of each item, and a global secondary
// index is maintained after the commit (a decision; no capture of a
// transaction's INDEXES is known).
func transactIndexUnits(items []fdyno.TransactWriteItem, costs [][]fdyno.IndexCapacity) map[string][]fdyno.IndexCapacity {
	out := map[string][]fdyno.IndexCapacity{}
	for i, ti := range items {
		if t := actionTable(ti); t != nil && i < len(costs) {
			out[t.Name()] = append(out[t.Name()], costs[i]...)
		}
	}
	return out
}

// transactReplayUnits returns the read units per table of replaying the
// actions items.
func transactReplayUnits(items []fdyno.TransactWriteItem) map[string]float64 {
	units := map[string]float64{}
	for _, ti := range items {
		var it fdyno.Item
		switch {
		case ti.Put != nil:
			it = ti.Put.Item
		case ti.Update != nil:
			it = ti.Update.Key
		case ti.Delete != nil:
			it = ti.Delete.Key
		case ti.ConditionCheck != nil:
			it = ti.ConditionCheck.Key
		}
		if t := actionTable(ti); t != nil {
			units[t.Name()] += transactionalUnits * readUnits(it.Size(), true)
		}
	}
	return units
}

// actionTable returns the table of the action ti.
func actionTable(ti fdyno.TransactWriteItem) *fdyno.Table {
	switch {
	case ti.Put != nil:
		return ti.Put.Table
	case ti.Update != nil:
		return ti.Update.Table
	case ti.Delete != nil:
		return ti.Delete.Table
	case ti.ConditionCheck != nil:
		return ti.ConditionCheck.Table
	}
	return nil
}
