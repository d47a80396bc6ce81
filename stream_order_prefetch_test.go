package fdyno

import (
	"fmt"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// TestStreamOrderPrefetch checks the order-key prefetch of TransactWrite
// and BatchWrite (stream.go): several changes of one stream table in one
// transaction, through two handles on the table and in a caller's
// transaction after a Put of its own, each get a record of their own, in
// order, none lost to a shared order.
func TestStreamOrderPrefetch(t *testing.T) {
	db := fdblitetest.Open(t)
	s := hashRange
	s.StreamViewType = StreamViewTypeNewAndOldImages
	s.StreamShards = 2
	root := testRoot(t, db)
	a := mustOpen(t, db, "Prefetch", root, WithSchema(s))
	b, err := Open(db, "Prefetch", root) // a second handle on the same table
	if err != nil {
		t.Fatal(err)
	}
	item := func(i int) Item { return Item{"pk": S(fmt.Sprint("p", i%3)), "sk": N(fmt.Sprint(i))} }
	var items []TransactWriteItem
	for i := range 6 {
		tbl := a
		if i%2 == 1 {
			tbl = b
		}
		items = append(items, TransactWriteItem{Put: &TransactPut{Table: tbl, Item: item(i)}})
	}
	if _, err := TransactWrite(db, TransactWriteInput{TransactItems: items}); err != nil {
		t.Fatal(err)
	}
	reqs := map[*Table][]WriteRequest{}
	for i := 6; i < 12; i++ {
		tbl := a
		if i%2 == 1 {
			tbl = b
		}
		reqs[tbl] = append(reqs[tbl], putReq(item(i)))
	}
	if _, err := BatchWrite(db, BatchWriteInput{RequestItems: reqs}); err != nil {
		t.Fatal(err)
	}
	// In a caller's transaction: a Put first, then a TransactWrite whose
	// prefetch must see the order the Put took.
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := a.Put(tr, PutInput{Item: item(12)}); err != nil {
			return nil, err
		}
		return TransactWrite(tr, TransactWriteInput{TransactItems: []TransactWriteItem{
			{Put: &TransactPut{Table: b, Item: item(13)}}, {Put: &TransactPut{Table: a, Item: item(14)}},
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.GetRecords(db, GetRecordsInput{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	seqs := map[string]bool{}
	for _, r := range out.Records {
		if r.EventName != EventNameInsert {
			t.Errorf("record %s: %s, want INSERT", r.SequenceNumber, r.EventName)
		}
		seen[r.Keys["sk"].N()] = true
		if seqs[r.SequenceNumber] {
			t.Errorf("sequence number %s twice", r.SequenceNumber)
		}
		seqs[r.SequenceNumber] = true
	}
	if len(out.Records) != 15 || len(seen) != 15 {
		t.Fatalf("%d records of %d items, want 15 of 15", len(out.Records), len(seen))
	}
}
