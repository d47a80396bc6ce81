package server

import "github.com/fdyno/fdyno"

// transact_capacity.go: the ConsumedCapacity of TransactWriteItems and
// TransactGetItems. DynamoDB's developer guide ("Capacity management for
// transactions") charges a transaction twice what the same operations
// cost outside one: two write units per 1 KB of each item written, two
// read units per 4 KB of each item read (strongly consistent). Each item
// is rounded up on its own, and the entries are per table, as for
// batches (batch_capacity.go). As elsewhere, sizes are those the server
// sees: a Put's item, the key of an Update, Delete or ConditionCheck, a
// Get's item as returned (one unit's worth when absent).

// transactionalUnits is the factor of a transactional operation's units.
const transactionalUnits = 2

// transactWriteUnits returns the write units per table of items.
func transactWriteUnits(items []fdyno.TransactWriteItem) map[string]float64 {
	units := map[string]float64{}
	for _, ti := range items {
		var t *fdyno.Table
		var it fdyno.Item
		switch {
		case ti.Put != nil:
			t, it = ti.Put.Table, ti.Put.Item
		case ti.Update != nil:
			t, it = ti.Update.Table, ti.Update.Key
		case ti.Delete != nil:
			t, it = ti.Delete.Table, ti.Delete.Key
		case ti.ConditionCheck != nil:
			t, it = ti.ConditionCheck.Table, ti.ConditionCheck.Key
		default:
			continue
		}
		units[t.Name()] += transactionalUnits * writeUnits(it.Size())
	}
	return units
}
