package conformance

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// fdblite-only: a cluster-file path names an in-memory database; the same
// path opens the same data, and it is separate from the default database.
func TestNamedDatabase_SamePathSameData(t *testing.T) {
	d := namedDB(t, t.Name())
	k := fdb.Key("named-db-key")
	if _, err := d.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(k, []byte("v"))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	// A second, uncached handle on the same name (the Go binding caches
	// OpenDatabase handles by path; the connection-string entry point does
	// not) sees the same data.
	d2, err := fdb.OpenWithConnectionString(namedPath(t.Name()))
	if err != nil {
		t.Fatalf("OpenWithConnectionString: %v", err)
	}
	defer d2.Close()
	v, err := d2.ReadTransact(func(rt fdb.ReadTransaction) (any, error) { return rt.Get(k).Get() })
	if err != nil || string(v.([]byte)) != "v" {
		t.Errorf("second handle Get = %v, %v; want v", v, err)
	}
	if got := getCommitted(t, k); got != nil {
		t.Errorf("default database sees the named database's key: %s", printable(got))
	}
}

// Under injected retryable faults (reads: transaction_too_old, future_version;
// commits: not_committed, transaction_too_old, commit_unknown_result after
// applying), db.Transact still applies every increment exactly once when the
// transaction is idempotent by design (a per-increment marker key).
func TestFaults_TransactIsExactlyOnceForIdempotentTransactions(t *testing.T) {
	d := namedDB(t, t.Name())
	setFaults(t, d, "seed=42 read_too_old=0.05 read_future_version=0.05 commit_not_committed=0.1 commit_too_old=0.05 commit_unknown_result=0.1")
	defer setFaults(t, d, "seed=0")
	const goroutines, increments = 8, 25
	counter := fdb.Key("counter")
	var attempts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < increments; i++ {
				marker := fdb.Key(fmt.Sprintf("done/%02d/%03d", g, i))
				_, err := d.Transact(func(tr fdb.Transaction) (any, error) {
					attempts.Add(1)
					done, err := tr.Get(marker).Get()
					if err != nil {
						return nil, err
					}
					if done != nil {
						return nil, nil // an earlier attempt committed (e.g. after 1021)
					}
					v, err := tr.Get(counter).Get()
					if err != nil {
						return nil, err
					}
					tr.Set(counter, le64(fromLE64(v)+1))
					tr.Set(marker, []byte{})
					return nil, nil
				})
				if err != nil {
					errs <- fmt.Errorf("goroutine %d increment %d: %w", g, i, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	setFaults(t, d, "seed=0")
	v, err := d.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		c, err := rt.Get(counter).Get()
		if err != nil {
			return nil, err
		}
		markers, err := rt.GetRange(fdb.KeyRange{Begin: fdb.Key("done/"), End: fdb.Key("done0")}, fdb.RangeOptions{}).GetSliceWithError()
		return [2]int64{fromLE64(c), int64(len(markers))}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := v.([2]int64)
	if got[0] != goroutines*increments || got[1] != goroutines*increments {
		t.Errorf("counter = %d, markers = %d; want %d each", got[0], got[1], goroutines*increments)
	}
	if attempts.Load() == goroutines*increments {
		t.Errorf("no retries in %d attempts: fault injection did not fire", attempts.Load())
	}
	t.Logf("%d increments, %d attempts", goroutines*increments, attempts.Load())
}

// commit_unknown_result after the commit applied is surfaced as 1021 (a
// maybe-committed, retryable error): a blind atomic add retried by Transact
// is then applied more than once. With automatic_idempotency (option 505) a
// commit that applied never reports 1021 and the count is exact.
func TestFaults_CommitUnknownResult(t *testing.T) {
	t.Run("surfaced as 1021 after applying", func(t *testing.T) {
		d := namedDB(t, t.Name())
		setFaults(t, d, "seed=1 commit_unknown_result=1")
		defer setFaults(t, d, "seed=0")
		tr := newTrOn(t, d)
		tr.Add(fdb.Key("c"), le64(1))
		err := tr.Commit().Get()
		wantCode(t, "Commit", err, 1021)
		// 1021 is retryable (and maybe-committed): OnError succeeds.
		wantCode(t, "OnError(1021)", tr.OnError(fdb.Error{Code: 1021}).Get(), 0)
		setFaults(t, d, "seed=0")
		v, err := d.ReadTransact(func(rt fdb.ReadTransaction) (any, error) { return rt.Get(fdb.Key("c")).Get() })
		if err != nil {
			t.Fatal(err)
		}
		if got := fromLE64(v.([]byte)); got != 1 {
			t.Errorf("counter after a 1021 commit = %d, want 1 (the commit applied)", got)
		}
	})
	run := func(t *testing.T, idempotent bool) (value, attempts int64) {
		d := namedDB(t, t.Name())
		setFaults(t, d, "seed=7 commit_unknown_result=0.5")
		defer setFaults(t, d, "seed=0")
		const n = 40
		for i := 0; i < n; i++ {
			if _, err := d.Transact(func(tr fdb.Transaction) (any, error) {
				attempts++
				if idempotent {
					if err := tr.Options().SetAutomaticIdempotency(); err != nil {
						return nil, err
					}
				}
				tr.Add(fdb.Key("c"), le64(1))
				return nil, nil
			}); err != nil {
				t.Fatalf("Transact: %v", err)
			}
		}
		setFaults(t, d, "seed=0")
		v, err := d.ReadTransact(func(rt fdb.ReadTransaction) (any, error) { return rt.Get(fdb.Key("c")).Get() })
		if err != nil {
			t.Fatal(err)
		}
		return fromLE64(v.([]byte)), attempts
	}
	t.Run("blind add without idempotency double-applies", func(t *testing.T) {
		value, attempts := run(t, false)
		// Every attempt's commit applied (only unknown-result faults are on).
		if value != attempts {
			t.Errorf("counter = %d, want one per attempt = %d", value, attempts)
		}
		if value <= 40 {
			t.Errorf("counter = %d after 40 increments at a 50%% unknown-result rate; want > 40 (double applies)", value)
		}
	})
	t.Run("automatic idempotency makes it exact", func(t *testing.T) {
		value, attempts := run(t, true)
		if value != 40 || attempts != 40 {
			t.Errorf("counter = %d in %d attempts, want 40 in 40", value, attempts)
		}
	})
}
