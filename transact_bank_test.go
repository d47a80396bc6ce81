package fdyno

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// TestBankTransfersUnderFaults moves money between accounts from several
// goroutines at once, each transfer one TransactWrite (a conditional
// debit, a credit and a transfer record that may be created only once),
// under fdblite's injected faults: reads failing transaction_too_old,
// commits failing not_committed, and commits that applied but report
// commit_unknown_result, so Database.Transact runs the transfer again.
// The ClientRequestToken makes that rerun a no-op. Invariants, checked
// against the history of acknowledged transfers:
//
//  1. the total never changes;
//  2. every account holds its initial balance plus exactly the
//     acknowledged transfers in and out of it: none applied twice, none
//     lost;
//  3. the transfer records are exactly the acknowledged transfers;
//  4. no balance is negative (the debit's condition).
func TestBankTransfersUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(21))
	accounts := mustOpen(t, fdblitetest.Idempotent{DB: db}, "Accounts", WithSchema(hashOnly))
	transfers := mustOpen(t, fdblitetest.Idempotent{DB: db}, "Transfers", WithSchema(hashOnly))
	t.Cleanup(func() { checkTable(t, db, accounts); checkTable(t, db, transfers) })
	const nAccounts, initial, workers, perWorker = 5, 100, 4, 30
	acct := func(i int) Item { return Item{"pk": S("acct" + strconv.Itoa(i))} }
	var init []WriteRequest
	for i := range nAccounts {
		init = append(init, putReq(Item{"pk": acct(i)["pk"], "bal": NInt(initial)}))
	}
	if _, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{accounts: init}}); err != nil {
		t.Fatal(err)
	}

	type transfer struct {
		id       string
		from, to int
		amount   int64
	}
	var (
		mu       sync.Mutex
		acked    []transfer
		canceled int
	)
	if err := runWorkers(workers, func(w int) error {
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		for i := range perWorker {
			from := rng.IntN(nAccounts)
			to := (from + 1 + rng.IntN(nAccounts-1)) % nAccounts
			x := transfer{id: "w" + strconv.Itoa(w) + "-" + strconv.Itoa(i), from: from, to: to, amount: int64(1 + rng.IntN(60))}
			amt := map[string]Value{":a": NInt(x.amount)}
			_, err := TransactWrite(db, TransactWriteInput{ClientRequestToken: x.id, TransactItems: []TransactWriteItem{
				{Update: &TransactUpdate{Table: accounts, Key: acct(from), UpdateExpression: "SET bal = bal - :a", ConditionExpression: "bal >= :a", ExpressionAttributeValues: amt}},
				{Update: &TransactUpdate{Table: accounts, Key: acct(to), UpdateExpression: "ADD bal :a", ExpressionAttributeValues: amt}},
				{Put: &TransactPut{Table: transfers, Item: Item{"pk": S(x.id), "from": NInt(int64(from)), "to": NInt(int64(to)), "amount": NInt(x.amount)},
					ConditionExpression: "attribute_not_exists(pk)"}},
			}})
			var tce *TransactionCanceledError
			switch {
			case err == nil:
				mu.Lock()
				acked = append(acked, x)
				mu.Unlock()
			case errors.As(err, &tce):
				// Only the debit's condition may fail: a rerun of an
				// applied transfer must not reach the record's condition.
				if tce.CancellationReasons[0].Code != CancellationCodeConditionalCheckFailed || tce.CancellationReasons[2].Code != CancellationCodeNone {
					return err
				}
				mu.Lock()
				canceled++
				mu.Unlock()
			default:
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for i := range nAccounts {
		want["acct"+strconv.Itoa(i)] = initial
	}
	wantRecords := map[string]bool{}
	for _, x := range acked {
		want["acct"+strconv.Itoa(x.from)] -= x.amount
		want["acct"+strconv.Itoa(x.to)] += x.amount
		wantRecords[x.id] = true
	}
	got := map[string]int64{}
	var total int64
	for it, err := range accounts.ScanAll(t.Context(), db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		n, _ := it["bal"].Int64()
		got[it["pk"].S()] = n
		total += n
		if n < 0 {
			t.Errorf("%s has a negative balance %d", it["pk"].S(), n)
		}
	}
	if total != nAccounts*initial {
		t.Errorf("total = %d, want %d", total, nAccounts*initial)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("balances differ from the acknowledged transfers (-want +got):\n%s", diff)
	}
	gotRecords := map[string]bool{}
	for it, err := range transfers.ScanAll(t.Context(), db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		gotRecords[it["pk"].S()] = true
	}
	if diff := cmp.Diff(wantRecords, gotRecords); diff != "" {
		t.Errorf("transfer records differ from the acknowledged transfers (-want +got):\n%s", diff)
	}
	if len(acked) == 0 || canceled == 0 {
		t.Errorf("%d transfers acknowledged, %d canceled: want both kinds exercised", len(acked), canceled)
	}
	t.Logf("%d transfers acknowledged, %d canceled for lack of funds", len(acked), canceled)
}

// A transfer whose commit applied but reported commit_unknown_result is
// run again by the retry loop; its create-once record then fails its
// condition, and the caller is told the transfer was canceled although it
// applied. fdyno's own retry loop (an fdb.Database) sets
// automatic_idempotency, so it never sees that; a caller's own loop
// without that option does, unless the request carries a
// ClientRequestToken. The test pins all three so the documentation's
// advice stays true.
func TestTransferWithoutTokenUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(5))
	tbl := mustOpen(t, fdblitetest.Idempotent{DB: db}, "Once", WithSchema(hashOnly))
	create := func(tx fdb.Transactor, id, token string) error {
		_, err := TransactWrite(tx, TransactWriteInput{ClientRequestToken: token, TransactItems: []TransactWriteItem{
			{Put: &TransactPut{Table: tbl, Item: Item{"pk": S(id)}, ConditionExpression: "attribute_not_exists(pk)"}},
		}})
		return err
	}
	// The caller's own retry loop, no token: the hazard.
	callers := func(id, token string) error {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) { return nil, create(tr, id, token) })
		return err
	}
	ambiguous := 0
	for i := range 60 {
		id := "r" + strconv.Itoa(i)
		err := callers(id, "")
		if errors.Is(err, ErrTransactionCanceled) {
			ambiguous++
			if mustGet(t, db, tbl, Item{"pk": S(id)}) == nil {
				t.Errorf("%v canceled but absent: the only cause of a cancellation here is a rerun after an applied commit", id)
			}
		} else if err != nil {
			t.Fatal(err)
		}
	}
	// With CommitUnknownResult at 10%, 60 commits see some.
	if ambiguous == 0 {
		t.Errorf("no rerun observed; the fault injection did not exercise the hazard")
	}
	// fdyno's own retry loop, or a token in the caller's: never a
	// cancellation.
	for i := range 60 {
		id := strconv.Itoa(i)
		if err := create(db, "d"+id, ""); err != nil {
			t.Errorf("fdyno's retry loop: %v", err)
		}
		if err := callers("t"+id, "t"+id); err != nil {
			t.Errorf("caller's retry loop with a token: %v", err)
		}
	}
}

// BatchWrite, BatchGet and the TTL sweeper under injected faults: puts
// and deletes are idempotent, so retried transactions (including ones
// whose commit applied but reported commit_unknown_result) leave exactly
// the requested items, chunks included; the sweeper removes exactly the
// expired items.
func TestBatchWriteAndSweepUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(33))
	clock := newBatchClock()
	tbl := mustOpen(t, fdblitetest.Idempotent{DB: db}, "Faulty", WithSchema(ttlSchema), WithClock(clock.Now), WithChunkThreshold(500))
	t.Cleanup(func() { checkTable(t, db, tbl) })
	now := clock.Now().Unix()
	want := map[string]Item{}
	var reqs []WriteRequest
	var keys []Item
	for i := range 60 {
		it := ttlItem("p"+strconv.Itoa(i%6), int64(i), now+int64(i%3)-1) // a third expired
		if i%5 == 0 {
			it["big"] = S(strconv.Itoa(i) + string(make([]byte, 2000)))
		}
		reqs = append(reqs, putReq(it))
		keys = append(keys, Item{"pk": it["pk"], "sk": it["sk"]})
		want[it["pk"].S()+"/"+it["sk"].N()] = it
	}
	if err := BatchWriteAll(t.Context(), db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: reqs}}); err != nil {
		t.Fatal(err)
	}
	// Delete every fourth item in a second batch.
	var dels []WriteRequest
	for i := 0; i < 60; i += 4 {
		dels = append(dels, delReq(keys[i]))
		delete(want, keys[i]["pk"].S()+"/"+keys[i]["sk"].N())
	}
	if _, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: dels}}); err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		out, err := BatchGet(db, BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{tbl: {Keys: keys}}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Item{}
		for _, it := range out.Responses[tbl] {
			got[it["pk"].S()+"/"+it["sk"].N()] = it
		}
		if diff := cmp.Diff(want, got, itemCmp); diff != "" {
			t.Errorf("%s: items mismatch (-want +got):\n%s", what, diff)
		}
	}
	check("after the batches")
	cut := newTTLCutoff("exp", clock.Now())
	expired := 0
	for k, it := range want {
		if cut.expired(it) {
			delete(want, k)
			expired++
		}
	}
	// With automatic idempotency a commit that applied is never rerun, so
	// the count is exact (without it, a rerun finds its items gone and
	// counts less: the state is the same).
	stats, err := tbl.SweepExpiredOnce(t.Context(), fdblitetest.Idempotent{DB: db}, SweepOptions{BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Deleted != expired {
		t.Errorf("sweep deleted %d, want %d", stats.Deleted, expired)
	}
	check("after the sweep")
}
