package fdyno

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func putReq(it Item) WriteRequest  { return WriteRequest{PutRequest: &PutRequest{Item: it}} }
func delReq(key Item) WriteRequest { return WriteRequest{DeleteRequest: &DeleteRequest{Key: key}} }

func TestBatchWrite(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db, WithChunkThreshold(300))
	mustPut(t, db, a, Item{"pk": S("old"), "big": S(strings.Repeat("o", 70_000))})
	mustPut(t, db, b, Item{"pk": S("p"), "sk": N("1")})
	big := strings.Repeat("n", 100_000)
	out, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{
		a: {putReq(Item{"pk": S("new"), "big": S(big)}), delReq(Item{"pk": S("old")}), delReq(Item{"pk": S("never")})},
		b: {putReq(Item{"pk": S("p"), "sk": N("2"), "v": N("2")}), delReq(Item{"pk": S("p"), "sk": N("1")})},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if out.UnprocessedItems != nil {
		t.Errorf("UnprocessedItems = %v, want none", out.UnprocessedItems)
	}
	for _, c := range []struct {
		tbl  *Table
		key  Item
		want Item
	}{
		{a, Item{"pk": S("new")}, Item{"pk": S("new"), "big": S(big)}},
		{a, Item{"pk": S("old")}, nil},
		{b, Item{"pk": S("p"), "sk": N("1")}, nil},
		{b, Item{"pk": S("p"), "sk": N("2")}, Item{"pk": S("p"), "sk": N("2"), "v": N("2")}},
	} {
		if diff := cmp.Diff(c.want, mustGet(t, db, c.tbl, c.key), itemCmp); diff != "" {
			t.Errorf("%v mismatch (-want +got):\n%s", c.key, diff)
		}
	}
	if n := countChunks(t, db, a); n != 2 {
		t.Errorf("table a has %d chunks, want 2 (the new item's; the deleted item's are gone)", n)
	}
}

// Bad requests fail as a whole and write nothing, even the good requests
// of the same batch (BatchWriteItem API reference: duplicate keys, bad
// items).
func TestBatchWriteValidation(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db)
	good := putReq(Item{"pk": S("good")})
	tests := []struct {
		name string
		in   BatchWriteInput
		want string
	}{
		{"empty", BatchWriteInput{}, "at 'requestItems' failed to satisfy constraint"},
		{"no requests", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {}}}, "Member must have length greater than or equal to 1"},
		{"put and delete of one key", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good, delReq(Item{"pk": S("good")})}}},
			"Provided list of item keys contains duplicates"},
		{"two puts of one number key", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good}, b: {putReq(Item{"pk": S("k"), "sk": N("10")}), putReq(Item{"pk": S("k"), "sk": N("1E1")})}}},
			"Provided list of item keys contains duplicates"},
		{"empty request", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good, {}}}}, "exactly one of PutRequest and DeleteRequest"},
		{"both requests", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good, {PutRequest: &PutRequest{Item: Item{"pk": S("x")}}, DeleteRequest: &DeleteRequest{Key: Item{"pk": S("y")}}}}}},
			"exactly one of PutRequest and DeleteRequest"},
		{"put without key", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good, putReq(Item{"v": N("1")})}}}, "The provided key element does not match the schema"}, // captured: key_errors_test.go
		{"delete with extra attribute", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good, delReq(Item{"pk": S("x"), "v": N("1")})}}},
			"The provided key element does not match the schema"},
		{"item too large", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good, putReq(Item{"pk": S("x"), "pad": S(strings.Repeat("p", DefaultMaxItemSize))})}}},
			"Item size has exceeded the maximum allowed size"},
		{"invalid item", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good, putReq(Item{"pk": S("x"), "s": SS()})}}}, "empty"},
		{"nil item", BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {good, {PutRequest: &PutRequest{}}}}}, "PutRequest.Item is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BatchWrite(db, tc.in)
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("BatchWrite = %v, want a ValidationError with %q", err, tc.want)
			}
			if got := mustGet(t, db, a, Item{"pk": S("good")}); got != nil {
				t.Errorf("a failed batch wrote %v", got)
			}
		})
	}
}

// A batch beyond one transaction's budget is split at item boundaries:
// BatchWrite writes whole items up to MaxBatchWriteBytes and returns the
// rest, which a retry (or BatchWriteAll) writes.
func TestBatchWriteSplits(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly, WithMaxItemSize(MaxItemSizeLimit))
	const size = 2_000_000
	var reqs []WriteRequest
	for i := range 5 { // 10 MB: two items per transaction fit in 5 MB
		reqs = append(reqs, putReq(Item{"pk": S("k" + strconv.Itoa(i)), "pad": S(strings.Repeat("p", size))}))
	}
	in := BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: reqs}}
	out, err := BatchWrite(db, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[*Table][]WriteRequest{tbl: reqs[2:]}, out.UnprocessedItems, itemCmp); diff != "" {
		t.Fatalf("UnprocessedItems mismatch (-want +got):\n%s", diff)
	}
	for i := range 5 {
		got := mustGet(t, db, tbl, Item{"pk": S("k" + strconv.Itoa(i))})
		if (got != nil) != (i < 2) {
			t.Errorf("k%d present = %v after the first transaction, want %v", i, got != nil, i < 2)
		}
	}
	if err := BatchWriteAll(context.Background(), db, BatchWriteInput{RequestItems: out.UnprocessedItems}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if got := mustGet(t, db, tbl, Item{"pk": S("k" + strconv.Itoa(i))}); got == nil {
			t.Errorf("k%d missing after BatchWriteAll", i)
		}
	}

	// The item count bound: MaxBatchWriteItems requests per transaction.
	var dels []WriteRequest
	for i := range MaxBatchWriteItems + 3 {
		dels = append(dels, delReq(Item{"pk": S("d" + strconv.Itoa(i))}))
	}
	out, err = BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: dels}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.UnprocessedItems[tbl]); n != 3 {
		t.Errorf("%d unprocessed of %d deletes, want 3", n, len(dels))
	}

	// A cancelled context stops BatchWriteAll before its first transaction.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := BatchWriteAll(ctx, db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {putReq(Item{"pk": S("late")})}}}); !errors.Is(err, context.Canceled) {
		t.Errorf("BatchWriteAll(cancelled) = %v, want context.Canceled", err)
	}
	if got := mustGet(t, db, tbl, Item{"pk": S("late")}); got != nil {
		t.Errorf("cancelled BatchWriteAll wrote %v", got)
	}
}

// BatchWrite composes with the caller's transaction and rolls back with
// it.
func TestBatchWriteInCallerTransaction(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db)
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := BatchWrite(tr, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{a: {putReq(Item{"pk": S("x")})}, b: {putReq(Item{"pk": S("y"), "sk": N("1")})}}}); err != nil {
			return nil, err
		}
		return nil, errors.New("roll back")
	})
	if err == nil || err.Error() != "roll back" {
		t.Fatalf("Transact = %v", err)
	}
	if got := mustGet(t, db, a, Item{"pk": S("x")}); got != nil {
		t.Errorf("rolled-back batch wrote %v", got)
	}
}

// fitBatch splits at item boundaries: the first request always goes; the
// part taken fits MaxBatchWriteBytes and MaxBatchWriteItems unless it is
// that one request; and it is maximal (one more would not fit).
func TestFitBatchProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		costs := rapid.SliceOfN(rapid.IntRange(1, 3*MaxBatchWriteBytes/2), 1, 30).Draw(rt, "costs")
		if rapid.Bool().Draw(rt, "small") {
			costs = rapid.SliceOfN(rapid.IntRange(1, 600), 1, 2*MaxBatchWriteItems).Draw(rt, "smallCosts")
		}
		reqs := make([]writeRequest, len(costs))
		for i, c := range costs {
			reqs[i].cost = c
		}
		n := fitBatch(reqs)
		if n < 1 || n > len(reqs) {
			rt.Fatalf("fitBatch = %d of %d", n, len(reqs))
		}
		total := 0
		for _, c := range costs[:n] {
			total += c
		}
		if n > 1 && (total > MaxBatchWriteBytes || n > MaxBatchWriteItems) {
			rt.Fatalf("fitBatch took %d requests of %d bytes", n, total)
		}
		if n < len(reqs) && total+costs[n] <= MaxBatchWriteBytes && n+1 <= MaxBatchWriteItems {
			rt.Fatalf("fitBatch stopped at %d although request %d (%d bytes) fits in %d", n, n, costs[n], total)
		}
	})
}
