package fdyno

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// wrapped is a Transactor that wraps a database as a tracing or metrics
// layer does: fdyno cannot see what it wraps. It counts the attempts of
// the functions it runs.
type wrapped struct {
	db       fdb.Database
	attempts *atomic.Int64 // may be nil
}

func (w wrapped) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return w.db.Transact(func(tr fdb.Transaction) (any, error) {
		if w.attempts != nil {
			w.attempts.Add(1)
		}
		return f(tr)
	})
}

func (w wrapped) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return w.db.ReadTransact(f)
}

// passThrough is a Transactor that hands fdyno a caller's transaction, as
// a tracing wrapper of one does, and says so (CallerTransactor).
type passThrough struct{ tr fdb.Transaction }

func (p passThrough) JoinsCaller() bool { return true }

// silentPassThrough hands fdyno a caller's transaction without saying so.
type silentPassThrough struct{ tr fdb.Transaction }

func (p silentPassThrough) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return f(p.tr)
}

func (p silentPassThrough) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return f(p.tr)
}

func (p passThrough) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return f(p.tr)
}

func (p passThrough) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return f(p.tr)
}

// commitUnknownDB returns an isolated database whose every commit applies
// and then reports commit_unknown_result (1021), unless its transaction
// set automatic_idempotency (fdblitetest.Faults), and whose retry loops
// give up after two retries: an operation that is not idempotent applies
// three times and fails, one that is applies once and succeeds.
func commitUnknownDB(t *testing.T) fdb.Database {
	t.Helper()
	db := fdblitetest.OpenIsolated(t)
	if err := db.Options().SetTransactionRetryLimit(2); err != nil {
		t.Fatal(err)
	}
	return db
}

// streamed is the schema of the ownership tests: a stream records every
// change, so a change applied twice shows as two records.
var streamed = TableSchema{
	KeySchema:            hashOnly.KeySchema,
	AttributeDefinitions: hashOnly.AttributeDefinitions,
	StreamViewType:       StreamViewTypeNewAndOldImages,
}

// Whatever Transactor fdyno is handed, the transactions it runs for an
// operation are idempotent: under commit_unknown_result on every commit,
// an ADD adds once and a conditional create succeeds once, each with one
// change record (FoundationDB's automatic_idempotency: the retry learns
// the commit applied). A caller's own transaction keeps its options: its
// commit reports commit_unknown_result.
func TestOwnTransactionsAreIdempotent(t *testing.T) {
	for _, tc := range []struct {
		name string
		tx   func(fdb.Database, *atomic.Int64) fdb.Transactor
	}{
		{"fdb.Database", func(db fdb.Database, _ *atomic.Int64) fdb.Transactor { return db }},
		{"wrapped database", func(db fdb.Database, n *atomic.Int64) fdb.Transactor { return wrapped{db, n} }},
		{"RetryLoop", func(db fdb.Database, n *atomic.Int64) fdb.Transactor {
			return RetryLoop{DB: db, Attempt: func(fdb.Transaction, bool) error { n.Add(1); return nil }}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := commitUnknownDB(t)
			tbl := newTestTable(t, db, streamed)
			if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 1, CommitUnknownResult: 1}); err != nil {
				t.Fatal(err)
			}
			var attempts atomic.Int64
			tx := tc.tx(db, &attempts)
			if _, err := tbl.Update(tx, UpdateInput{Key: Item{"pk": S("counter")}, UpdateExpression: "ADD n :one",
				ExpressionAttributeValues: map[string]Value{":one": N("1")}}); err != nil {
				t.Fatalf("Update: %v", err)
			}
			if _, err := tbl.Put(tx, PutInput{Item: Item{"pk": S("once")}, ConditionExpression: "attribute_not_exists(pk)"}); err != nil {
				t.Fatalf("conditional Put: %v", err)
			}
			if _, err := Transact(tx, func(tr fdb.Transaction) (any, error) {
				if _, err := tbl.Delete(tr, DeleteInput{Key: Item{"pk": S("once")}}); err != nil {
					return nil, err
				}
				return tbl.Put(tr, PutInput{Item: Item{"pk": S("twice")}})
			}); err != nil {
				t.Fatalf("Transact: %v", err)
			}
			if err := fdblitetest.ClearFaults(db); err != nil {
				t.Fatal(err)
			}
			if tc.name != "fdb.Database" && attempts.Load() != 3 {
				t.Errorf("%d attempts for 3 operations, want 3 (none retried)", attempts.Load())
			}
			if n, _ := mustGet(t, db, tbl, Item{"pk": S("counter")})["n"].Int64(); n != 1 {
				t.Errorf("counter = %d after one ADD, want 1", n)
			}
			recs, err := tbl.GetRecords(db, GetRecordsInput{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range recs.Records {
				got = append(got, string(r.EventName)+" "+r.Keys["pk"].S())
			}
			want := []string{"INSERT counter", "INSERT once", "REMOVE once", "INSERT twice"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("change records mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("caller's transaction", func(t *testing.T) {
		db := commitUnknownDB(t)
		tbl := newTestTable(t, db, streamed)
		if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 1, CommitUnknownResult: 1}); err != nil {
			t.Fatal(err)
		}
		tr, err := db.CreateTransaction()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("mine")}}); err != nil {
			t.Fatal(err)
		}
		var fe fdb.Error
		if err := tr.Commit().Get(); !errors.As(err, &fe) || fe.Code != 1021 {
			t.Errorf("caller's commit: %v, want commit_unknown_result (1021): fdyno set no option on it", err)
		}
	})
}

// A Transactor that hands fdyno a caller's transaction and says so
// (CallerTransactor) joins it: three changes in that one transaction get
// three change records, in order, and the caller's transaction keeps its
// options.
func TestPassThroughTransactorKeepsEveryRecord(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tbl := newTestTable(t, db, streamed)
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		for _, pk := range []string{"a", "b", "c"} {
			if _, err := tbl.Put(passThrough{tr}, PutInput{Item: Item{"pk": S(pk)}}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tbl.GetRecords(db, GetRecordsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs.Records {
		got = append(got, r.Keys["pk"].S())
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("change records of one transaction mismatch (-want +got):\n%s", diff)
	}
}

// RetryLoop runs FoundationDB's retry loop and reports to its hooks: one
// Begin per transaction, one Attempt per attempt, one Failed per failed
// attempt with its FoundationDB error, which the loop retries when
// FoundationDB's OnError says so. fdblite counts the faults it injected,
// and the hooks must have seen exactly those.
func TestRetryLoopHooks(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tbl := newTestTable(t, db, hashOnly)
	var begins, attempts [2]int // by write
	failed := map[bool]map[int]int{false: {}, true: {}}
	var unretried []error
	loop := RetryLoop{
		DB:    db,
		Begin: func(write bool) { begins[b2i(write)]++ },
		Attempt: func(tr fdb.Transaction, write bool) error {
			attempts[b2i(write)]++
			return tr.Options().SetTimeout(10_000)
		},
		Failed: func(err error, write, retried bool) {
			var fe fdb.Error
			if !errors.As(err, &fe) {
				t.Errorf("Failed(%v): not an fdb.Error", err)
			}
			if !retried {
				unretried = append(unretried, err)
				return
			}
			failed[write][fe.Code]++
		},
	}
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 3, ReadTooOld: 0.2, CommitNotCommitted: 0.3}); err != nil {
		t.Fatal(err)
	}
	before, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for range n {
		if _, err := tbl.Update(loop, UpdateInput{Key: Item{"pk": S("c")}, UpdateExpression: "ADD n :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.Get(loop, GetInput{Key: Item{"pk": S("c")}}); err != nil {
			t.Fatal(err)
		}
	}
	after, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := fdblitetest.ClearFaults(db); err != nil {
		t.Fatal(err)
	}
	tooOld := int(after.Injected.ReadTooOld - before.Injected.ReadTooOld)
	conflicts := int(after.Injected.CommitNotCommitted - before.Injected.CommitNotCommitted)
	if tooOld == 0 || conflicts == 0 {
		t.Fatalf("fdblite injected %d reads too old and %d conflicts; the test needs both", tooOld, conflicts)
	}
	// ReadStats is a read of its own, outside the loop: its faults are
	// fdblite's but not the hooks'.
	if got := failed[true][1020]; got != conflicts {
		t.Errorf("write attempts failed with not_committed: %d, want fdblite's %d", got, conflicts)
	}
	if got := failed[true][1007] + failed[false][1007]; got > tooOld {
		t.Errorf("attempts failed with transaction_too_old: %d, more than fdblite's %d", got, tooOld)
	}
	for w := range 2 {
		retries := 0
		for _, c := range failed[w == 1] {
			retries += c
		}
		if begins[w] != n || attempts[w] != n+retries {
			t.Errorf("write=%v: %d transactions, %d attempts; want %d and %d (one per retry more)", w == 1, begins[w], attempts[w], n, n+retries)
		}
	}
	if len(unretried) != 0 {
		t.Errorf("errors not retried: %v", unretried)
	}
	if v, _ := mustGet(t, db, tbl, Item{"pk": S("c")})["n"].Int64(); v != n {
		t.Errorf("counter = %d, want %d", v, n)
	}

	// An error that is not FoundationDB's ends the loop untouched and
	// unreported; a FoundationDB error OnError does not retry is reported
	// once, unretried, and returned.
	unretried = nil
	mine := errors.New("mine")
	if _, err := loop.Transact(func(fdb.Transaction) (any, error) { return nil, mine }); err != mine {
		t.Errorf("Transact returned %v, want the function's own error", err)
	}
	fatal := fdb.Error{Code: 2004} // key_outside_legal_range: not retryable
	_, err = loop.Transact(func(tr fdb.Transaction) (any, error) { panic(fatal) })
	var fe fdb.Error
	if !errors.As(err, &fe) || fe.Code != 2004 || len(unretried) != 1 {
		t.Errorf("Transact of a panicking fatal error: %v, %d unretried reports; want 2004 reported once", err, len(unretried))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A Transactor that hands fdyno a caller's transaction without saying so
// is refused when it returns, not trusted: the operation fails with
// ErrTransactorDidNotCommit, the caller's transaction is cancelled (its
// commit fails with transaction_cancelled, 1025), and nothing is written,
// not even the caller's own writes. The old code set automatic_idempotency
// on the caller's transaction and returned success.
func TestSilentPassThroughIsRefused(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tbl := newTestTable(t, db, streamed)
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	tr.Set(fdb.Key("caller's own key"), []byte("v"))
	_, err = tbl.Put(silentPassThrough{tr}, PutInput{Item: Item{"pk": S("a")}})
	if !errors.Is(err, ErrTransactorDidNotCommit) {
		t.Fatalf("Put through a silent pass-through: %v, want ErrTransactorDidNotCommit", err)
	}
	var fe fdb.Error
	if err := tr.Commit().Get(); !errors.As(err, &fe) || fe.Code != 1025 {
		t.Errorf("caller's commit: %v, want transaction_cancelled (1025)", err)
	}
	got, err := tbl.Get(db, GetInput{Key: Item{"pk": S("a")}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Item != nil {
		t.Errorf("item written through a refused Transactor: %v", got.Item)
	}
	if !JoinsCaller(passThrough{}) || JoinsCaller(silentPassThrough{}) || JoinsCaller(db) || !JoinsCaller(tr) {
		t.Error("JoinsCaller does not follow what each Transactor says of itself")
	}
}

// TestTransactTypedResult: Transact hands back f's result as f typed it,
// in the caller's transaction and in its own, including an interface
// type's nil, which FoundationDB's untyped result cannot tell apart from
// an absent value.
func TestTransactTypedResult(t *testing.T) {
	db := fdblitetest.Open(t)
	for _, tc := range []struct {
		name string
		tx   func(func(fdb.Transactor))
	}{
		{"own transactions", func(run func(fdb.Transactor)) { run(db) }},
		{"caller's transaction", func(run func(fdb.Transactor)) {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) { run(tr); return nil, nil }); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.tx(func(tx fdb.Transactor) {
				n, err := Transact(tx, func(fdb.Transaction) (int, error) { return 42, nil })
				if err != nil || n != 42 {
					t.Errorf("Transact int = %d, %v; want 42, nil", n, err)
				}
				var nilErr error
				e, err := Transact(tx, func(fdb.Transaction) (error, error) { return nilErr, nil })
				if err != nil || e != nil {
					t.Errorf("Transact of an interface's nil = %v, %v; want nil, nil", e, err)
				}
				fail := errors.New("f failed")
				if _, err := Transact(tx, func(fdb.Transaction) (string, error) { return "", fail }); !errors.Is(err, fail) {
					t.Errorf("Transact error = %v; want f's", err)
				}
			})
		})
	}
}
