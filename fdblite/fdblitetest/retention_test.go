package fdblitetest

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
)

// FoundationDB keeps versions for 5 seconds (5,000,000 versions) of reads and
// the conflict history for as long; both must be reclaimed after that, so a
// sustained overwrite workload runs in bounded memory.
func TestRetention_SustainedOverwritesStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for 12 seconds")
	}
	t.Parallel()
	db := OpenIsolated(t)
	const keys = 64
	ss := UniquePrefix(t, db)
	// overwrite runs two writers for at least d and until they have made
	// at least commits commits (bounded by a minute, so a starved machine
	// fails the check below rather than hanging).
	overwrite := func(d time.Duration, commits int64) {
		var wg sync.WaitGroup
		var done atomic.Int64
		start := time.Now()
		more := func() bool {
			el := time.Since(start)
			return el < d || done.Load() < commits && el < time.Minute
		}
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var buf [8]byte
				for i := g; more(); i += 2 {
					binary.LittleEndian.PutUint64(buf[:], uint64(i))
					if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
						tr.Set(ss.Pack(tuple.Tuple{i % keys}), buf[:])
						return nil, nil
					}); err != nil {
						t.Error(err)
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
	}
	// One MVCC window of writes fills the history; a second, of at least
	// as many commits, must not add to it, because everything older than
	// the window is reclaimed meanwhile.
	overwrite(6*time.Second, 0)
	first, err := ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	overwrite(6*time.Second, first.Commits)
	second, err := ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after one window: %d versions, %d conflict boundaries, %d commits", first.Versions, first.ConflictBoundaries, first.Commits)
	t.Logf("after two windows: %d versions, %d conflict boundaries, %d commits", second.Versions, second.ConflictBoundaries, second.Commits)
	if second.Commits < 2*first.Commits {
		t.Fatalf("second window ran too few commits (%d after %d) to show anything", second.Commits, first.Commits)
	}
	// Without reclamation every commit's version would still be there:
	// first.Commits + phase2 of them. With it, only the last window's,
	// all from the second phase (6 s > the 5 s window), plus what the
	// prune period leaves: well under half the first phase's commits.
	// (A bound on commits, not on the first reading, so a faster or
	// slower second phase does not matter.)
	phase2 := second.Commits - first.Commits
	if second.Versions > phase2+first.Commits/2 {
		t.Errorf("%d versions after %d + %d commits: old versions are not reclaimed", second.Versions, first.Commits, phase2)
	}
	if second.ConflictBoundaries > first.ConflictBoundaries*3/2+4*keys {
		t.Errorf("conflict boundaries grew from %d to %d across windows: old history is not reclaimed", first.ConflictBoundaries, second.ConflictBoundaries)
	}
}
