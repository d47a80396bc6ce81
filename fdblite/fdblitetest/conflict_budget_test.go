package fdblitetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Over its memory budget (FDBLITE_CONFLICT_BYTES, read when a database
// opens) the conflict history merges ranges: its memory stays within the
// budget, and a transaction whose read was overwritten still fails with
// not_committed (1020), as FoundationDB never misses a conflict.
func TestConflictBudget_BoundedAndNoConflictMissed(t *testing.T) {
	const budget = 64 << 10
	t.Setenv("FDBLITE_CONFLICT_BYTES", fmt.Sprint(budget))
	db := OpenIsolated(t)
	key := func(i int) fdb.Key { return fdb.Key(fmt.Sprintf("load/%06d", i)) }

	// A transaction reads one key the load below writes in its middle.
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Get(key(10_050)).Get(); err != nil {
		t.Fatal(err)
	}
	// 20,000 distinct keys in 200 commits: about 40,000 boundaries, far
	// over 64 KiB, so the history coarsens many times after that write.
	for c := range 200 {
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			for i := c * 100; i < (c+1)*100; i++ {
				tr.Set(key(i), []byte("v"))
			}
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	tr.Set(fdb.Key("out"), []byte("x"))
	err = tr.Commit().Get()
	var fe fdb.Error
	if !errors.As(err, &fe) || fe.Code != 1020 {
		t.Fatalf("commit after its read was overwritten: got %v, want not_committed (1020)", err)
	}

	st, err := ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	if st.ConflictBudgetBytes != budget {
		t.Errorf("conflict_budget_bytes = %d, want %d", st.ConflictBudgetBytes, budget)
	}
	if st.ConflictBytes > budget || st.ConflictBytes <= 0 {
		t.Errorf("conflict_bytes = %d, want within (0, %d]", st.ConflictBytes, budget)
	}
	if st.ConflictCoarsenings == 0 {
		t.Errorf("conflict_coarsenings = 0: the load should have gone over the budget")
	}
	t.Logf("conflict history: %d bytes, %d boundaries, %d coarsenings", st.ConflictBytes,
		st.ConflictBoundaries, st.ConflictCoarsenings)
}
