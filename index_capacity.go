package fdyno

import (
	"bytes"
	"maps"
	"math"
)

// index_capacity.go: what a write costs its secondary indexes in
// DynamoDB's write capacity units, for ReturnConsumedCapacity INDEXES.
// fdyno has no provisioned capacity; the figures say what DynamoDB would
// charge, by the rules of its developer guide ("Provisioned throughput
// considerations for Global Secondary Indexes", and the same for local
// ones): an entry put into an index, or removed from it, is one write of
// the entry's size (its projection: the index and table keys and the
// projected attributes); a change of the index key is two (the old entry
// removed, the new one put); a change of only projected attributes is
// one; an item in the index neither before nor after costs nothing. A
// write costs a unit per 1 KB of the entry, at least one.

// IndexCapacity is what one write costs one secondary index.
type IndexCapacity struct {
	IndexName string
	// Local says the index is a local secondary index.
	Local bool
	// WriteUnits are DynamoDB's write capacity units for the entry.
	WriteUnits float64
}

// indexCost is embedded in the outputs of Put, Update and Delete: the
// change they made, kept so that IndexCapacity can work out what it cost
// when asked, and a write that nobody asks about pays nothing.
type indexCost struct {
	change *itemChange
}

// IndexCapacity returns what the write cost each secondary index it
// changed, in DynamoDB's write capacity units (ReturnConsumedCapacity
// INDEXES), in the table's index order; nil if it changed none.
func (c indexCost) IndexCapacity() []IndexCapacity {
	if c.change == nil {
		return nil
	}
	return indexCapacity(*c.change)
}

// batchCost is embedded in [BatchWriteOutput]: the changes its processed
// requests made, per table, for IndexCapacity.
type batchCost struct {
	changes map[*Table][]*itemChange
}

// IndexCapacity returns what the processed requests cost each table's
// secondary indexes, in DynamoDB's write capacity units
// (ReturnConsumedCapacity INDEXES): per table, the sum per index, in the
// table's index order; nil if they changed no index.
func (c batchCost) IndexCapacity() map[*Table][]IndexCapacity {
	var out map[*Table][]IndexCapacity
	for t, cs := range c.changes {
		if sum := sumIndexCapacity(cs); sum != nil {
			if out == nil {
				out = map[*Table][]IndexCapacity{}
			}
			out[t] = sum
		}
	}
	return out
}

// transactCost is embedded in [TransactWriteOutput]: the change each
// action made, for IndexCapacity.
type transactCost struct {
	changes []*itemChange
}

// IndexCapacity returns what each action cost the secondary indexes of
// its table, in request order (nil for an action that changed none, such
// as a ConditionCheck), in DynamoDB's write capacity units for one write;
// nil when Replayed.
func (c transactCost) IndexCapacity() [][]IndexCapacity {
	if c.changes == nil {
		return nil
	}
	out := make([][]IndexCapacity, len(c.changes))
	for i, ch := range c.changes {
		if ch != nil {
			out[i] = indexCapacity(*ch)
		}
	}
	return out
}

// sumIndexCapacity sums what changes of one table cost each index, in
// the table's index order; nil if they changed none.
func sumIndexCapacity(changes []*itemChange) []IndexCapacity {
	if len(changes) == 0 {
		return nil
	}
	units := map[string]float64{}
	for _, c := range changes {
		for _, ic := range indexCapacity(*c) {
			units[ic.IndexName] += ic.WriteUnits
		}
	}
	var out []IndexCapacity
	for _, ix := range changes[0].st.indexes {
		if u, ok := units[ix.name]; ok {
			out = append(out, IndexCapacity{IndexName: ix.name, Local: ix.local, WriteUnits: u})
		}
	}
	return out
}

// indexCapacity returns what change c costs each index it touches, in
// the table's index order; nil if none. c's old item must be known.
func indexCapacity(c itemChange) []IndexCapacity {
	if !c.oldKnown || !c.st.hasIndexes() {
		return nil
	}
	var out []IndexCapacity
	for _, ix := range c.st.indexes {
		oldKey, _ := ix.entryKey(c.old, c.kv)
		newKey, _ := ix.entryKey(c.new, c.kv)
		var units float64
		switch {
		case oldKey == nil && newKey == nil:
			continue
		case oldKey == nil:
			units = entryWriteUnits(ix.project(c.st, c.new))
		case newKey == nil:
			units = entryWriteUnits(ix.project(c.st, c.old))
		case !bytes.Equal(oldKey, newKey):
			units = entryWriteUnits(ix.project(c.st, c.old)) + entryWriteUnits(ix.project(c.st, c.new))
		default:
			oldP, newP := ix.project(c.st, c.old), ix.project(c.st, c.new)
			if maps.EqualFunc(oldP, newP, Value.Equal) {
				continue // nothing the index holds changed
			}
			units = entryWriteUnits(newP)
		}
		out = append(out, IndexCapacity{IndexName: ix.name, Local: ix.local, WriteUnits: units})
	}
	return out
}

// entryWriteUnits is the write units of putting or removing entry e.
func entryWriteUnits(e Item) float64 {
	return math.Max(1, math.Ceil(float64(e.Size())/1024))
}
