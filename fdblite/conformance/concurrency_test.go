package conformance

import (
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"
)

// One transaction may be used from many goroutines at once: parallel
// futures (Go bindings doc, "Transactions and Goroutines").
func TestThreadSafety_OneTransactionManyGoroutines(t *testing.T) {
	s := newSpace(t)
	const n = 32
	kvs := []any{}
	for i := 0; i < n; i++ {
		kvs = append(kvs, s.k("c"+numbered(i)), fmt.Sprint("committed", i))
	}
	put(t, kvs...)
	tr := newTr(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Start several futures, then wait on them.
			fv := tr.Get(s.k("c" + numbered(i)))
			fr := tr.GetRange(s.kr("c", "d"), fdb.RangeOptions{})
			fk := tr.GetKey(fdb.FirstGreaterOrEqual(s.k("c" + numbered(i))))
			tr.Set(s.k("w"+numbered(i)), []byte(fmt.Sprint("written", i)))
			tr.Add(s.k("zcounter"), le64(1))
			v, err := fv.Get()
			if err != nil || string(v) != fmt.Sprint("committed", i) {
				errs <- fmt.Errorf("Get(c%d) = %s, %v", i, printable(v), err)
			}
			rows, err := fr.GetSliceWithError()
			if err != nil || len(rows) != n {
				errs <- fmt.Errorf("GetRange = %d rows, %v; want %d", len(rows), err, n)
			}
			k, err := fk.Get()
			if err != nil || s.rel(k) != "c"+numbered(i) {
				errs <- fmt.Errorf("GetKey = %s, %v", fdb.Printable(k), err)
			}
			if v, err := tr.Get(s.k("w" + numbered(i))).Get(); err != nil || string(v) != fmt.Sprint("written", i) {
				errs <- fmt.Errorf("RYW Get(w%d) = %s, %v", i, printable(v), err)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if got := fromLE64(getCommitted(t, s.k("zcounter"))); got != n {
		t.Errorf("counter = %d, want %d", got, n)
	}
	if rows := rangeCommitted(t, s.kr("w", "x"), fdb.RangeOptions{}); len(rows) != n {
		t.Errorf("%d written keys committed, want %d", len(rows), n)
	}
}

// Read-modify-write counters through db.Transact from many goroutines lose
// no update (serializable isolation: every lost update would be a 1020).
func TestConcurrency_ReadModifyWriteCountersLoseNoUpdate(t *testing.T) {
	s := newSpace(t)
	const goroutines, increments, counters = 16, 40, 4
	var attempts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < increments; i++ {
				k := s.k(fmt.Sprint("counter", (g+i)%counters))
				_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					attempts.Add(1)
					v, err := tr.Get(k).Get()
					if err != nil {
						return nil, err
					}
					tr.Set(k, le64(fromLE64(v)+1))
					return nil, nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Transact: %v", err)
	}
	var total int64
	for c := 0; c < counters; c++ {
		total += fromLE64(getCommitted(t, s.k(fmt.Sprint("counter", c))))
	}
	if total != goroutines*increments {
		t.Errorf("sum of counters = %d, want %d (attempts %d)", total, goroutines*increments, attempts.Load())
	}
	t.Logf("%d increments took %d attempts", goroutines*increments, attempts.Load())
}

// Bank transfers between accounts keep the total constant, as seen by
// concurrent serializable readers of the whole range.
func TestConcurrency_BankInvariant(t *testing.T) {
	s := newSpace(t)
	const accounts, initial, workers, transfers = 10, 1000, 8, 50
	kvs := []any{}
	for a := 0; a < accounts; a++ {
		kvs = append(kvs, s.k(fmt.Sprint("acct", a)), le64(initial))
	}
	put(t, kvs...)
	readRange := s.kr("acct", "acct\xff")
	var wg sync.WaitGroup
	var stop atomic.Bool
	errs := make(chan error, workers+2)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < transfers; i++ {
				from, to := rng.Intn(accounts), rng.Intn(accounts)
				amount := int64(rng.Intn(100))
				_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					fk, tk := s.k(fmt.Sprint("acct", from)), s.k(fmt.Sprint("acct", to))
					fb := fromLE64(tr.Get(fk).MustGet())
					if fb < amount {
						return nil, nil // insufficient funds: no-op
					}
					tr.Set(fk, le64(fb-amount))
					tb := fromLE64(tr.Get(tk).MustGet()) // sees the debit if from == to
					tr.Set(tk, le64(tb+amount))
					return nil, nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for !stop.Load() {
			sum, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
				rows, err := rt.GetRange(readRange, fdb.RangeOptions{}).GetSliceWithError()
				if err != nil {
					return nil, err
				}
				var sum int64
				for _, kv := range rows {
					sum += fromLE64(kv.Value)
				}
				return sum, nil
			})
			if err != nil {
				errs <- err
				return
			}
			if sum.(int64) != accounts*initial {
				errs <- fmt.Errorf("reader saw total %d, want %d", sum, accounts*initial)
				return
			}
		}
	}()
	wg.Wait()
	stop.Store(true)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rows := rangeCommitted(t, readRange, fdb.RangeOptions{})
	var sum int64
	for _, kv := range rows {
		sum += fromLE64(kv.Value)
	}
	if sum != accounts*initial || len(rows) != accounts {
		t.Errorf("final: %d accounts, total %d; want %d, %d", len(rows), sum, accounts, accounts*initial)
	}
}

// Many independent transactions commit concurrently without interference.
func TestConcurrency_ManyTransactions(t *testing.T) {
	s := newSpace(t)
	const goroutines, each = 16, 50
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				k := s.k(fmt.Sprintf("g%02d/%03d", g, i))
				if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					tr.Set(k, []byte{byte(g), byte(i)})
					return tr.Get(k).Get()
				}); err != nil {
					errs <- err
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
	rows := rangeCommitted(t, s.all(), fdb.RangeOptions{})
	if len(rows) != goroutines*each {
		t.Fatalf("%d rows, want %d", len(rows), goroutines*each)
	}
	want, got := []string{}, []string{}
	for g := 0; g < goroutines; g++ {
		for i := 0; i < each; i++ {
			want = append(want, fmt.Sprintf("g%02d/%03d=%x", g, i, []byte{byte(g), byte(i)}))
		}
	}
	for _, kv := range rows {
		got = append(got, fmt.Sprintf("%s=%x", s.rel(kv.Key), kv.Value))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%s", diff)
	}
}
