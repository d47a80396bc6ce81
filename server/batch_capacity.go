package server

import (
	"math"
	"slices"

	"github.com/fdyno/fdyno"
)

// batch_capacity.go: the ConsumedCapacity of BatchGetItem and
// BatchWriteItem, one entry per table, by DynamoDB's rules for batches:
// each item is rounded up on its own (4 KB per read unit, 1 KB per write
// unit), a key that finds no item still costs one read unit, an
// eventually consistent read costs half, and requests returned
// unprocessed cost nothing. A read counts the whole item, whatever its
// projection (the library reports the size); as for single items
// (capacity.go), a write counts the sizes the server sees: a put its
// item, a delete the size of its key.

// batchCapacity returns the per-table capacity entries for ret, in table
// name order, or nil unless asked for. indexes, if not nil, returns the
// write units of each table's index entries (by table name), called only
// when capacity is asked for.
func batchCapacity(ret string, units map[string]float64, read bool, indexes func() map[string][]fdyno.IndexCapacity) []consumedCapacity {
	if !wantsCapacity(ret) {
		return nil
	}
	names := make([]string, 0, len(units))
	for n := range units {
		names = append(names, n)
	}
	slices.Sort(names)
	var ixs map[string][]fdyno.IndexCapacity
	if indexes != nil {
		ixs = indexes()
	}
	out := make([]consumedCapacity, 0, len(names))
	for _, n := range names {
		cc := consumedCapacity{TableName: n, CapacityUnits: units[n]}
		if read {
			cc.ReadCapacityUnits = units[n]
		} else {
			cc.WriteCapacityUnits = units[n]
		}
		if ret == "INDEXES" {
			cc.Table = &capacityUnits{CapacityUnits: units[n]}
		}
		cc.addIndexWrites(ret, ixs[n])
		out = append(out, cc)
	}
	return out
}

// readUnits is the cost of reading one item of size bytes (0: none found).
func readUnits(size int, consistent bool) float64 {
	u := math.Max(1, math.Ceil(float64(size)/4096))
	if !consistent {
		u /= 2
	}
	return u
}

// writeUnits is the cost of writing one item of size bytes.
func writeUnits(size int) float64 {
	return math.Max(1, math.Ceil(float64(size)/1024))
}

// batchGetUnits returns the read units per request table name: every
// requested key not left unprocessed costs readUnits of its item, whose
// whole size (before any projection) found lists.
func batchGetUnits(in map[string]keysAndAttributes, found map[string][]int, unprocessed map[string]keysAndAttributes) map[string]float64 {
	units := map[string]float64{}
	for n, ka := range in {
		missing := len(ka.Keys) - len(found[n]) - len(unprocessed[n].Keys)
		u := float64(max(missing, 0)) * readUnits(0, ka.ConsistentRead)
		for _, size := range found[n] {
			u += readUnits(size, ka.ConsistentRead)
		}
		units[n] = u
	}
	return units
}

// batchWriteUnits returns the write units per request table name: every
// request not left unprocessed costs writeUnits of its item or key.
func batchWriteUnits(in map[string][]writeRequestInput, unprocessed map[string][]writeRequestInput) map[string]float64 {
	units := map[string]float64{}
	for n, reqs := range in {
		u := 0.0
		for _, r := range reqs {
			switch {
			case r.PutRequest != nil:
				u += writeUnits(fdyno.Item(r.PutRequest.Item).Size())
			case r.DeleteRequest != nil:
				u += writeUnits(fdyno.Item(r.DeleteRequest.Key).Size())
			}
		}
		for _, r := range unprocessed[n] {
			switch {
			case r.PutRequest != nil:
				u -= writeUnits(fdyno.Item(r.PutRequest.Item).Size())
			case r.DeleteRequest != nil:
				u -= writeUnits(fdyno.Item(r.DeleteRequest.Key).Size())
			}
		}
		units[n] = u
	}
	return units
}
