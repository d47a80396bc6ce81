package fdblitetest_test

import (
	"encoding/binary"
	"fmt"
	"log"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Transfers between two accounts under injected faults: the bindings'
// retry loop absorbs every injected error, and with automatic_idempotency
// a commit that applied but reported commit_unknown_result is not applied
// twice, so every transfer applies exactly once. Under faults, check invariants like this
// one rather than exact outcomes.
func ExampleSetFaults() {
	db, err := fdblitetest.OpenDatabase("example-set-faults") // a test would use OpenIsolated(t)
	if err != nil {
		log.Fatal(err)
	}
	err = fdblitetest.SetFaults(db, fdblitetest.Faults{
		Seed:                1,
		ReadTooOld:          0.01,
		CommitNotCommitted:  0.05,
		CommitUnknownResult: 0.05,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer fdblitetest.ClearFaults(db)

	a, b := fdb.Key("account/a"), fdb.Key("account/b")
	balance := func(tr fdb.ReadTransaction, k fdb.Key) int64 {
		v := tr.Get(k).MustGet()
		if v == nil {
			return 0
		}
		return int64(binary.LittleEndian.Uint64(v))
	}
	put := func(tr fdb.Transaction, k fdb.Key, n int64) {
		tr.Set(k, binary.LittleEndian.AppendUint64(nil, uint64(n)))
	}
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		put(tr, a, 1000)
		put(tr, b, 0)
		return nil, nil
	}); err != nil {
		log.Fatal(err)
	}
	for range 200 {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.Options().SetAutomaticIdempotency()
			put(tr, a, balance(tr, a)-1)
			put(tr, b, balance(tr, b)+1)
			return nil, nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	balances, _ := db.ReadTransact(func(tr fdb.ReadTransaction) (any, error) {
		return [2]int64{balance(tr, a), balance(tr, b)}, nil
	})
	st, _ := fdblitetest.ReadStats(db) // commits, conflicts, injected counts
	fmt.Println(balances, st.Injected.Total() > 0)
	// Output:
	// [800 200] true
}
