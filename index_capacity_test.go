package fdyno

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestIndexCapacityAcrossWrites checks that a batch and a transaction
// report what their writes cost the indexes exactly as the same writes
// report it one at a time: three tables of the indexed schema receive the
// same random puts and deletes, as single writes, as one-request
// BatchWrites (summed per index) and as one-action TransactWrites. The
// single writes' figures are the reference; TestSDKWriteCapacityIndexes
// (server) pins them to DynamoDB's developer guide.
func TestIndexCapacityAcrossWrites(t *testing.T) {
	db, single := openTestTable(t, indexed)
	batch := newTestTable(t, db, indexed)
	transact := newTestTable(t, db, indexed)
	rapid.Check(t, func(rt *rapid.T) {
		for range rapid.IntRange(1, 20).Draw(rt, "writes") {
			key := Item{"pk": S("p"), "sk": NInt(int64(rapid.IntRange(0, 3).Draw(rt, "sk")))}
			var want []IndexCapacity
			var gotBatch map[*Table][]IndexCapacity
			var gotTx [][]IndexCapacity
			if rapid.IntRange(0, 3).Draw(rt, "delete") == 0 {
				out, err := single.Delete(db, DeleteInput{Key: key})
				if err != nil {
					rt.Fatal(err)
				}
				want = out.IndexCapacity()
				bo, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{batch: {{DeleteRequest: &DeleteRequest{Key: key}}}}})
				if err != nil {
					rt.Fatal(err)
				}
				gotBatch = bo.IndexCapacity()
				to, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Table: transact, Key: key}}}})
				if err != nil {
					rt.Fatal(err)
				}
				gotTx = to.IndexCapacity()
			} else {
				it := Item{"pk": key["pk"], "sk": key["sk"]}
				for _, a := range []string{"l", "g", "a", "z"} {
					if v := rapid.IntRange(0, 2).Draw(rt, a); v > 0 {
						it[a] = S(a + strconv.Itoa(v))
					}
				}
				if rapid.Bool().Draw(rt, "h") {
					it["h"] = NInt(1)
				}
				out, err := single.Put(db, PutInput{Item: it})
				if err != nil {
					rt.Fatal(err)
				}
				want = out.IndexCapacity()
				bo, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{batch: {{PutRequest: &PutRequest{Item: it}}}}})
				if err != nil {
					rt.Fatal(err)
				}
				gotBatch = bo.IndexCapacity()
				to, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: transact, Item: it}}}})
				if err != nil {
					rt.Fatal(err)
				}
				gotTx = to.IndexCapacity()
			}
			if diff := cmp.Diff(want, gotBatch[batch]); diff != "" {
				rt.Fatalf("BatchWrite's index capacity (-single +batch):\n%s", diff)
			}
			if len(gotTx) != 1 {
				rt.Fatalf("TransactWrite's index capacity has %d actions, want 1", len(gotTx))
			}
			if diff := cmp.Diff(want, gotTx[0]); diff != "" {
				rt.Fatalf("TransactWrite's index capacity (-single +transaction):\n%s", diff)
			}
		}
	})
}

// A batch sums its requests' costs per index, in the table's index order.
func TestBatchIndexCapacitySums(t *testing.T) {
	db, tbl := openTestTable(t, indexed)
	// Two new items in byL (INCLUDE a), byG (ALL) and byH (INCLUDE z): a
	// write unit each per index; one item in byK (KEYS_ONLY) only.
	out, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {
		{PutRequest: &PutRequest{Item: Item{"pk": S("p"), "sk": NInt(1), "l": S("x"), "g": S("y"), "h": NInt(1)}}},
		{PutRequest: &PutRequest{Item: Item{"pk": S("p"), "sk": NInt(2), "l": S("x"), "g": S("y"), "h": NInt(2)}}},
		{PutRequest: &PutRequest{Item: Item{"pk": S("p"), "sk": NInt(3), "k": B([]byte{1})}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []IndexCapacity{{IndexName: "byL", Local: true, WriteUnits: 2}, {IndexName: "byG", WriteUnits: 2}, {IndexName: "byH", WriteUnits: 2}, {IndexName: "byK", WriteUnits: 1}}
	if diff := cmp.Diff(want, out.IndexCapacity()[tbl]); diff != "" {
		t.Errorf("IndexCapacity (-want +got):\n%s", diff)
	}
}
