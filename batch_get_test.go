package fdyno

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// twoTables returns a hash-only table "Test" and a hash-range table
// "Other" under one root of t's own.
func twoTables(t *testing.T, db fdb.Database, opts ...Option) (*Table, *Table) {
	t.Helper()
	root := testRoot(t, db)
	a := mustOpen(t, db, "Test", append([]Option{root, WithSchema(hashOnly)}, opts...)...)
	b := mustOpen(t, db, "Other", append([]Option{root, WithSchema(hashRange)}, opts...)...)
	t.Cleanup(func() { checkTable(t, db, a); checkTable(t, db, b) })
	return a, b
}

func TestBatchGet(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db, WithChunkThreshold(200))
	big := strings.Repeat("x", 150_000) // three chunks
	mustPut(t, db, a, Item{"pk": S("a1"), "v": N("1"), "w": S("one")})
	mustPut(t, db, a, Item{"pk": S("a2"), "v": N("2"), "big": S(big)})
	mustPut(t, db, b, Item{"pk": S("b"), "sk": N("1"), "v": N("10")})
	mustPut(t, db, b, Item{"pk": S("b"), "sk": N("2"), "v": N("20")})

	out, err := BatchGet(db, BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{
		// Keys come back in request order; a missing key is absent.
		a: {Keys: []Item{{"pk": S("a2")}, {"pk": S("missing")}, {"pk": S("a1")}}},
		// Projection per table, with a placeholder.
		b: {Keys: []Item{{"pk": S("b"), "sk": N("2")}, {"pk": S("b"), "sk": N("1e0")}}, ProjectionExpression: "#v", ExpressionAttributeNames: map[string]string{"#v": "v"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[*Table][]Item{
		a: {{"pk": S("a2"), "v": N("2"), "big": S(big)}, {"pk": S("a1"), "v": N("1"), "w": S("one")}},
		b: {{"v": N("20")}, {"v": N("10")}},
	}
	if diff := cmp.Diff(want, out.Responses, itemCmp); diff != "" {
		t.Errorf("Responses mismatch (-want +got):\n%s", diff)
	}
	if out.UnprocessedKeys != nil {
		t.Errorf("UnprocessedKeys = %v, want none", out.UnprocessedKeys)
	}

	// A table all of whose keys are missing still has an (empty) entry.
	out, err = BatchGet(db, BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{a: {Keys: []Item{{"pk": S("nope")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := out.Responses[a]; !ok || len(got) != 0 {
		t.Errorf("Responses[a] = %v, %v; want an empty list", got, ok)
	}

	// In the caller's transaction, BatchGet sees the caller's own writes.
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		mustPut(t, tr, a, Item{"pk": S("a3")})
		out, err := BatchGet(tr, BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{a: {Keys: []Item{{"pk": S("a3")}}}}})
		if err != nil {
			return nil, err
		}
		if len(out.Responses[a]) != 1 {
			t.Errorf("BatchGet in the transaction = %v, want its own write", out.Responses[a])
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Bad requests fail with a ValidationException before anything is read,
// with DynamoDB's messages where it has them (BatchGetItem API reference).
func TestBatchGetValidation(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db)
	other, err := Open(db, "Test", testRootOf(a)) // a second handle on a
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   BatchGetInput
		want string
	}{
		{"empty request", BatchGetInput{}, "at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"no keys", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{a: {}}}, "Member must have length greater than or equal to 1"},
		{"duplicate key", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{a: {Keys: []Item{{"pk": S("x")}, {"pk": S("x")}}}}},
			"Provided list of item keys contains duplicates"},
		{"duplicate number key in another spelling", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{b: {Keys: []Item{{"pk": S("x"), "sk": N("1000")}, {"pk": S("x"), "sk": N("1e3")}}}}},
			"Provided list of item keys contains duplicates"},
		{"duplicate through two handles", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{a: {Keys: []Item{{"pk": S("x")}}}, other: {Keys: []Item{{"pk": S("x")}}}}},
			"Provided list of item keys contains duplicates"},
		{"key with an extra attribute", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{a: {Keys: []Item{{"pk": S("x"), "v": N("1")}}}}},
			"The provided key element does not match the schema"},
		{"key of the wrong type", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{b: {Keys: []Item{{"pk": S("x"), "sk": S("1")}}}}},
			"The provided key element does not match the schema"},
		{"bad projection", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{a: {Keys: []Item{{"pk": S("x")}}, ProjectionExpression: "a,,b"}}}, ""},
		{"unused name", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{a: {Keys: []Item{{"pk": S("x")}}, ProjectionExpression: "v", ExpressionAttributeNames: map[string]string{"#u": "u"}}}},
			"unused in expressions"},
		{"nil table", BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{nil: {Keys: []Item{{"pk": S("x")}}}}}, "nil *Table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BatchGet(db, tc.in)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("BatchGet = %v, want a ValidationError", err)
			}
			if ve.Op != "BatchGetItem" || !strings.Contains(ve.Error(), tc.want) {
				t.Errorf("BatchGet = %v (op %q), want BatchGetItem and %q", err, ve.Op, tc.want)
			}
		})
	}
}

// A response bigger than MaxBatchGetBytes (DynamoDB's 16 MB) stops at an
// item boundary; the rest come back as UnprocessedKeys, with their
// table's projection, and a second BatchGet of those reads them.
func TestBatchGetUnprocessedKeys(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly, WithMaxItemSize(MaxItemSizeLimit))
	const size = 3_500_000
	var keys []Item
	for i := range 5 { // 17.5 MB in all
		it := Item{"pk": S("k" + strconv.Itoa(i)), "pad": S(strings.Repeat(strconv.Itoa(i), size))}
		mustPut(t, db, tbl, it)
		keys = append(keys, Item{"pk": it["pk"]})
	}
	in := BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{tbl: {Keys: keys, ProjectionExpression: "pk"}}}
	out, err := BatchGet(db, in)
	if err != nil {
		t.Fatal(err)
	}
	// 4 items are 14 MB; a fifth would pass 16 MB.
	wantRead := []Item{{"pk": S("k0")}, {"pk": S("k1")}, {"pk": S("k2")}, {"pk": S("k3")}}
	if diff := cmp.Diff(wantRead, out.Responses[tbl], itemCmp); diff != "" {
		t.Errorf("Responses mismatch (-want +got):\n%s", diff)
	}
	wantLeft := map[*Table]KeysAndAttributes{tbl: {Keys: keys[4:], ProjectionExpression: "pk"}}
	if diff := cmp.Diff(wantLeft, out.UnprocessedKeys, itemCmp); diff != "" {
		t.Errorf("UnprocessedKeys mismatch (-want +got):\n%s", diff)
	}
	out, err = BatchGet(db, BatchGetInput{RequestItems: out.UnprocessedKeys})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Item{{"pk": S("k4")}}, out.Responses[tbl], itemCmp); diff != "" || out.UnprocessedKeys != nil {
		t.Errorf("second BatchGet mismatch (-want +got):\n%s, unprocessed %v", diff, out.UnprocessedKeys)
	}
}

// TransactGet reads every item at one read version, across tables: a
// transaction that committed after that version is invisible to all the
// reads, and visible to all of a later TransactGet.
func TestTransactGetOneReadVersion(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db)
	mustPut(t, db, a, Item{"pk": S("x"), "v": N("1")})
	mustPut(t, db, b, Item{"pk": S("y"), "sk": N("1"), "v": N("1")})
	// Read in a transaction whose read version predates a later write:
	// TransactGet sees the state at that version for both tables.
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.GetReadVersion().Get(); err != nil {
		t.Fatal(err)
	}
	if _, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
		{Put: &TransactPut{Table: a, Item: Item{"pk": S("x"), "v": N("2")}}},
		{Put: &TransactPut{Table: b, Item: Item{"pk": S("y"), "sk": N("1"), "v": N("2")}}},
	}}); err != nil {
		t.Fatal(err)
	}
	old, err := TransactGet(tr.Snapshot(), TransactGetInput{TransactItems: []TransactGetItem{
		{Table: b, Key: Item{"pk": S("y"), "sk": N("1")}, ProjectionExpression: "v"},
		{Table: a, Key: Item{"pk": S("x")}},
		{Table: a, Key: Item{"pk": S("absent")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// ItemSize is the whole item's size, whatever the projection.
	size := func(it Item) int { return it.Size() }
	want := []ItemResponse{{Item{"v": N("1")}, size(Item{"pk": S("y"), "sk": N("1"), "v": N("1")})},
		{Item{"pk": S("x"), "v": N("1")}, size(Item{"pk": S("x"), "v": N("1")})}, {nil, 0}}
	if diff := cmp.Diff(want, old.Responses, itemCmp); diff != "" {
		t.Errorf("TransactGet at the old read version mismatch (-want +got):\n%s", diff)
	}
	now, err := TransactGet(db, TransactGetInput{TransactItems: []TransactGetItem{
		{Table: b, Key: Item{"pk": S("y"), "sk": N("1")}, ProjectionExpression: "v"},
		{Table: a, Key: Item{"pk": S("x")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want = []ItemResponse{{Item{"v": N("2")}, size(Item{"pk": S("y"), "sk": N("1"), "v": N("2")})},
		{Item{"pk": S("x"), "v": N("2")}, size(Item{"pk": S("x"), "v": N("2")})}}
	if diff := cmp.Diff(want, now.Responses, itemCmp); diff != "" {
		t.Errorf("TransactGet now mismatch (-want +got):\n%s", diff)
	}
}

func TestTransactGetValidation(t *testing.T) {
	db := fdblitetest.Open(t)
	a, _ := twoTables(t, db)
	tests := []struct {
		name string
		in   TransactGetInput
		want string
	}{
		{"empty", TransactGetInput{}, "at 'transactItems' failed to satisfy constraint"},
		{"same item twice", TransactGetInput{TransactItems: []TransactGetItem{{Table: a, Key: Item{"pk": S("x")}}, {Table: a, Key: Item{"pk": S("x")}, ProjectionExpression: "v"}}},
			"Transaction request cannot include multiple operations on one item"},
		{"no table", TransactGetInput{TransactItems: []TransactGetItem{{Key: Item{"pk": S("x")}}}}, "has no Table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TransactGet(db, tc.in)
			if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("TransactGet = %v, want a ValidationException with %q", err, tc.want)
			}
		})
	}
}

// A key that does not match its table's schema cancels a TransactGet, as
// DynamoDB's TransactGetItems reports it: TransactionCanceledException
// with reason ValidationError for that item and None for the others. An
// expression error is still the request's ValidationException.
func TestTransactGetKeyMismatchCancels(t *testing.T) {
	db := fdblitetest.Open(t)
	a, _ := twoTables(t, db)
	tests := []struct {
		name string
		key  Item
		msg  string
	}{
		{"wrong type", Item{"pk": N("1")}, "The provided key element does not match the schema"},
		{"empty key", Item{}, "The provided key element does not match the schema"},
		{"extra attribute", Item{"pk": S("x"), "v": S("y")}, "The provided key element does not match the schema"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TransactGet(db, TransactGetInput{TransactItems: []TransactGetItem{{Table: a, Key: Item{"pk": S("ok")}}, {Table: a, Key: tc.key}}})
			var tce *TransactionCanceledError
			if !errors.As(err, &tce) || !errors.Is(err, ErrTransactionCanceled) {
				t.Fatalf("TransactGet = %v, want a *TransactionCanceledError", err)
			}
			if len(tce.CancellationReasons) != 2 || tce.CancellationReasons[0].Code != CancellationCodeNone ||
				tce.CancellationReasons[1].Code != CancellationCodeValidationError || !strings.Contains(tce.CancellationReasons[1].Message, tc.msg) {
				t.Errorf("CancellationReasons = %+v, want [None, ValidationError %q]", tce.CancellationReasons, tc.msg)
			}
		})
	}
	_, err := TransactGet(db, TransactGetInput{TransactItems: []TransactGetItem{{Table: a, Key: Item{}, ProjectionExpression: "!!!"}}})
	if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), `Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"`) {
		t.Errorf("TransactGet with a bad projection = %v, want its ValidationException", err)
	}
}

// recordingTx is a read transaction that logs when each Get is started
// and when its future is first waited on.
type recordingTx struct {
	fdb.ReadTransaction
	log *[]string
}

func (r recordingTx) Get(key fdb.KeyConvertible) fdb.FutureByteSlice {
	*r.log = append(*r.log, "start")
	return recordingFuture{FutureByteSlice: r.ReadTransaction.Get(key), log: r.log}
}

type recordingFuture struct {
	fdb.FutureByteSlice
	log *[]string
}

func (f recordingFuture) Get() ([]byte, error) {
	*f.log = append(*f.log, "wait")
	return f.FutureByteSlice.Get()
}

// BatchGet's reads are all in flight before the first is waited on: every
// head read starts before any head is awaited, and every chunk read of
// the chunked items starts before any chunk is awaited.
// When the table's schema changed since the request was validated, the
// head reads restarted under the new state are in flight together too.
func TestBatchGetStartsEveryReadFirst(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly, WithChunkThreshold(200))
	stale := tbl.state.Load() // Open's state, replaced by the first operation
	chunked := 0
	var items []Item
	for i := range 10 {
		it := Item{"pk": S("k" + strconv.Itoa(i))}
		if i%3 == 0 {
			it["big"] = S(strings.Repeat("b", 70_000)) // two chunks
			chunked++
		}
		if i != 7 { // k7 is missing
			mustPut(t, db, tbl, it)
		}
		items = append(items, it)
	}
	for _, tc := range []struct {
		name     string
		st       *tableState
		restarts int
	}{
		{"current state", tbl.state.Load(), 0},
		{"stale state", stale, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.restarts > 0 && tc.st == tbl.state.Load() {
				t.Fatal("the stale state is current")
			}
			var reqs []getRequest
			for _, it := range items {
				kv, err := keyOf("test", it, tc.st.hash, tc.st.rng, false)
				if err != nil {
					t.Fatal(err)
				}
				reqs = append(reqs, getRequest{t: tbl, st0: tc.st, key: Item{"pk": it["pk"]}, kv: kv})
			}
			var log []string
			_, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
				log = log[:0]
				got, _, n, err := readBatch(recordingTx{ReadTransaction: rt, log: &log}, "BatchGetItem", reqs, 0)
				if err == nil && (n != 10 || got[7] != nil || got[0]["big"].S() == "") {
					t.Errorf("readBatch = %d items, k7 %v", n, got[7])
				}
				return nil, err
			})
			if err != nil {
				t.Fatal(err)
			}
			heads := strings.Repeat("start ", 10+tc.restarts) + strings.Repeat("wait ", 10)
			chunks := strings.Repeat("start ", 2*chunked) + strings.Repeat("wait ", 2*chunked)
			if got := strings.Join(log, " ") + " "; got != heads+chunks {
				t.Errorf("reads in order:\n%s\nwant every start before the first wait:\n%s", got, heads+chunks)
			}
		})
	}
}
