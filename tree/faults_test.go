package tree

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// randomOp applies one random tree operation through tx and to m (if m is
// not nil), returning the operation's name and error.
func randomOp(tr *Tree, tx fdb.Transactor, r *rand.Rand, m modelTree) (string, error) {
	names := []string{"a", "b", "c"}
	path := func(min int) Path {
		n := min + r.IntN(4-min)
		q := make(Path, n)
		for i := range q {
			q[i] = names[r.IntN(len(names))]
		}
		return q
	}
	switch r.IntN(5) {
	case 0, 1:
		q := path(1)
		it := fdyno.Item{"v": fdyno.NInt(r.Int64N(100))}
		if m != nil {
			m[q.String()] = modelEntry{item: it}
		}
		return "Put " + q.String(), tr.Put(tx, q, it)
	case 2:
		q, target := path(1), path(1)
		if m != nil {
			m[q.String()] = modelEntry{link: target}
		}
		return "PutLink " + q.String(), tr.PutLink(tx, q, target)
	case 3:
		q := path(1)
		_, had := m[q.String()]
		if m != nil {
			delete(m, q.String())
		}
		return "Delete " + q.String(), checkFound(m, had, tr.Delete(tx, q))
	default:
		q := path(1)
		had := false
		if m != nil {
			for k := range m {
				if under(k, q.String()) {
					had = true
					delete(m, k)
				}
			}
		}
		return "DeleteTree " + q.String(), checkFound(m, had, tr.DeleteTree(tx, q))
	}
}

// checkFound turns a delete's err into a failure if it disagrees with the
// model m (when there is one): [ErrNotFound] exactly when m had nothing
// there. A retry that ran again on its own committed delete would find
// nothing.
func checkFound(m modelTree, had bool, err error) error {
	switch {
	case m == nil:
		return err
	case had && errors.Is(err, ErrNotFound):
		return fmt.Errorf("not found, but the model holds it: %v", err)
	case !had && err == nil:
		return errors.New("deleted, but the model holds nothing there")
	}
	return err
}

// Under injected faults (transaction_too_old, not_committed,
// commit_unknown_result), every operation's outcome is exact, as the tree's
// own transactions set automatic idempotency: after each, the table holds
// exactly the model's rows.
func TestWritesUnderFaults(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tr := newTestTree(t, db, Options{})
	fdblitetest.InjectFaults(t, db, fdblitetest.RetryableFaults(11))
	r := rand.New(rand.NewPCG(11, 0))
	m := modelTree{}
	for i := range 200 {
		op, err := randomOp(tr, db, r, m)
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatalf("step %d %s: %v", i, op, err)
		}
		if diff := cmp.Diff(m.rows(tr), allRows(t, db, tr)); diff != "" {
			t.Fatalf("step %d %s: rows mismatch (-model +table):\n%s", i, op, diff)
		}
	}
}

// Concurrent writers under faults conflict and retry; outcomes then vary
// with the interleaving (a Delete may find nothing), but the tree's
// invariants hold throughout: no half-written path, no listing without
// something beneath it (checked at cleanup and here).
func TestConcurrentWritesUnderFaults(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tr := newTestTree(t, db, Options{})
	fdblitetest.InjectFaults(t, db, fdblitetest.RetryableFaults(12))
	const workers, ops = 4, 60
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(12, uint64(w)))
			for range ops {
				op, err := randomOp(tr, db, r, nil)
				if err != nil && !errors.Is(err, ErrNotFound) {
					errs <- fmt.Errorf("%s: %w", op, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, problem := range treeProblems(t, db, tr) {
		t.Error(problem)
	}
}

// A writer that dies before committing (here: its transaction is
// cancelled after the tree's writes) leaves nothing: the rows of a Put are
// one transaction.
func TestAbandonedWriterLeavesNothing(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	if err := tr.Put(db, p("a/b"), fdyno.Item{}); err != nil {
		t.Fatal(err)
	}
	before := allRows(t, db, tr)
	tx, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Put(tx, p("a/c/d/e"), fdyno.Item{"v": fdyno.S("x")}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Move(tx, p("a/b"), p("z")); err != nil {
		t.Fatal(err)
	}
	tx.Cancel()
	if diff := cmp.Diff(before, allRows(t, db, tr)); diff != "" {
		t.Errorf("rows changed (-before +after):\n%s", diff)
	}
}
