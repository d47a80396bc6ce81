package fdyno

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// hotSchema has everything a write maintains: a GSI, an LSI, a stream, a
// TTL attribute and (by default) exact counts.
var hotSchema = TableSchema{
	KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN}, {"g", ScalarAttributeTypeS}, {"l", ScalarAttributeTypeS}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}},
		Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}},
	LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "byL", KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"l", KeyTypeRange}},
		Projection: Projection{ProjectionType: ProjectionTypeAll}}},
	StreamViewType:      StreamViewTypeNewAndOldImages,
	StreamShards:        16, // one shard's marker would be written by every write
	TimeToLiveAttribute: "ttl",
}

// maxHotShare is the largest share of a workload's transactions that may
// write one key or take a read conflict on it: on a cluster one storage
// team serves each key, so a key every write touches caps the whole
// table's write rate at that team's. Spread keys stay well under it even
// under batches, which touch many shards at once: a counter shard is one
// of 32, a stream shard's marker one of the table's StreamShards (16
// here; a batch of 5 writes touches up to 5 of them).
const maxHotShare = 0.25

// TestHotKeys runs a mixed workload of item writes over many partitions
// (puts, updates, deletes, conditional writes, transactions, batches and
// a TTL sweep) on a table with indexes, a stream, TTL and counts, under
// fdblite's key audit, and fails when one key is written, or read with a
// conflict, by more than maxHotShare of the committed transactions. The
// keys hot by design are listed in docs/design.md ("Hot keys") and
// allowed here by name, each with its reason.
func TestHotKeys(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tbl := newTestTable(t, db, hotSchema)
	seed := uint64(7)
	r := rand.New(rand.NewPCG(seed, seed))
	key := func() Item {
		return Item{"pk": S("p" + strconv.Itoa(r.IntN(64))), "sk": NInt(int64(r.IntN(4)))}
	}
	item := func() Item {
		it := key()
		if r.IntN(2) == 0 {
			it["g"] = S("g" + strconv.Itoa(r.IntN(32)))
		}
		if r.IntN(2) == 0 {
			it["l"] = S("l" + strconv.Itoa(r.IntN(8)))
		}
		if r.IntN(8) == 0 {
			it["ttl"] = NInt(1) // long expired
		}
		return it
	}
	if err := fdblitetest.StartKeyAudit(db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fdblitetest.StopKeyAudit(db) })
	for i := range 400 {
		var err error
		switch r.IntN(8) {
		case 0, 1, 2:
			_, err = tbl.Put(db, PutInput{Item: item()})
		case 3:
			_, err = tbl.Update(db, UpdateInput{Key: key(), UpdateExpression: "SET g = :g", ExpressionAttributeValues: map[string]Value{":g": S("u" + strconv.Itoa(i%16))}})
		case 4:
			_, err = tbl.Delete(db, DeleteInput{Key: key()})
		case 5:
			_, err = tbl.Put(db, PutInput{Item: item(), ConditionExpression: "attribute_not_exists(pk)"})
			if errors.Is(err, ErrConditionalCheckFailed) {
				err = nil
			}
		case 6:
			a, b := item(), item()
			if a["pk"].Equal(b["pk"]) && a["sk"].Equal(b["sk"]) {
				continue
			}
			_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: tbl, Item: a}}, {Put: &TransactPut{Table: tbl, Item: b}}}})
		case 7:
			reqs := map[string]WriteRequest{}
			for range 5 {
				it := item()
				reqs[it["pk"].S()+"/"+it["sk"].N()] = WriteRequest{PutRequest: &PutRequest{Item: it}}
			}
			var list []WriteRequest
			for _, w := range reqs {
				list = append(list, w)
			}
			_, err = BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: list}})
		}
		if err != nil {
			t.Fatalf("seed %d, operation %d: %v", seed, i, err)
		}
	}
	if _, err := tbl.SweepExpiredOnce(t.Context(), db, SweepOptions{}); err != nil {
		t.Fatal(err)
	}
	a, err := fdblitetest.ReadKeyAudit(db)
	if err != nil {
		t.Fatal(err)
	}
	st := tbl.state.Load()
	allowed := hotByDesign(st)
	var hot []string
	for _, h := range a.Hot(maxHotShare) {
		if why, ok := allowed(h.Begin); ok {
			t.Logf("hot by design (%s): %s", why, h.Describe(describeKey(st, h.Begin), a.Transactions))
			continue
		}
		hot = append(hot, h.Describe(describeKey(st, h.Begin), a.Transactions))
	}
	if len(hot) > 0 {
		t.Errorf("seed %d: keys touched by more than %.0f%% of the transactions:\n%s", seed, 100*maxHotShare, strings.Join(hot, "\n"))
	}
}

// hotByDesign returns whether a key of table state st is hot by design,
// and why (docs/design.md, "Hot keys").
func hotByDesign(st *tableState) func(k fdb.Key) (string, bool) {
	return func(k fdb.Key) (string, bool) {
		if string(k) == string(st.keys.meta) {
			return "the schema guard: every write's read conflict on its table's metadata", true
		}
		return "", false
	}
}

// describeKey names key k of table state st for a report: its subspace
// of the table and the tuple after it, or the key itself.
func describeKey(st *tableState, k fdb.Key) string {
	prefix := st.keys.all.Begin.FDBKey()
	prefix = prefix[:len(prefix)-1] // FDBRangeKeys' begin is the prefix and 0x00
	if len(k) >= len(prefix) && string(k[:len(prefix)]) == string(prefix) {
		if tup, err := tuple.Unpack(k[len(prefix):]); err == nil {
			return "table " + fmt.Sprint(tup)
		}
		return "table " + fmt.Sprintf("%q", k[len(prefix):])
	}
	return fmt.Sprintf("%q", []byte(k))
}
