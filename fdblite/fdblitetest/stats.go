package fdblitetest

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// StatsKey is the special key that reads as a JSON object of a database's
// counters; see [Stats]. Do not modify.
var StatsKey = fdb.Key("\xff\xff/fdblite/stats")

// ErrNoStats is returned by [ReadStats] when the database does not answer
// [StatsKey]; that happens on a real FoundationDB cluster.
var ErrNoStats = errors.New("fdblitetest: database has no fdblite stats")

// Stats are the counters of one fdblite database, read from [StatsKey].
type Stats struct {
	// Keys is the number of keys the store holds: keys with a value, and
	// cleared keys whose old versions are still inside the MVCC window.
	Keys int64 `json:"keys"`
	// Versions is the number of stored key versions, including those still
	// kept for readers inside the 5-second MVCC window.
	Versions int64 `json:"versions"`
	// ConflictBoundaries is the size of the conflict history (range
	// boundaries of recent writes kept to check later commits).
	ConflictBoundaries int64 `json:"conflict_boundaries"`
	// ConflictBytes is the memory the conflict history holds (estimated),
	// at most ConflictBudgetBytes (FDBLITE_CONFLICT_BYTES, default 16 MiB).
	// Over the budget the history merges neighbouring ranges, which can
	// add conflicts, never miss one; ConflictCoarsenings counts those
	// passes.
	ConflictBytes       int64 `json:"conflict_bytes"`
	ConflictBudgetBytes int64 `json:"conflict_budget_bytes"`
	ConflictCoarsenings int64 `json:"conflict_coarsenings"`
	// Commits counts successful read-write commits.
	Commits int64 `json:"commits"`
	// Conflicts counts commits rejected with not_committed (1020) by a real
	// conflict, not by injection.
	Conflicts int64 `json:"conflicts"`
	// Watches is the number of outstanding watches (the too_many_watches
	// limit counts these).
	Watches int64 `json:"watches"`
	// HeapBytes is the memory this database holds, as malloc holds it: every
	// key and version record, the hash index, the pruning queue and the
	// conflict history (estimated).
	HeapBytes int64 `json:"heap_bytes"`
	// Injected counts the faults injected so far, by kind.
	Injected Injected `json:"injected"`
	// RoundTrips counts the network round trips the database has served
	// (see [RoundTrips] and [CountRoundTrips]).
	RoundTrips RoundTrips `json:"round_trips"`
	// Transaction counts the round trips of the transaction that read the
	// stats, so far (see [TransactionRoundTrips]).
	Transaction RoundTrips `json:"transaction"`
}

// Injected counts injected faults by kind; the names match [Faults].
type Injected struct {
	ReadTooOld          int64 `json:"read_too_old"`
	ReadFutureVersion   int64 `json:"read_future_version"`
	CommitNotCommitted  int64 `json:"commit_not_committed"`
	CommitTooOld        int64 `json:"commit_too_old"`
	CommitUnknownResult int64 `json:"commit_unknown_result"`
}

// Total returns the number of injected faults of all kinds.
func (in Injected) Total() int64 {
	return in.ReadTooOld + in.ReadFutureVersion + in.CommitNotCommitted + in.CommitTooOld + in.CommitUnknownResult
}

// ReadStats reads db's counters. It returns [ErrNoStats] if the key is absent,
// and an fdb.Error (reachable with errors.As) if the read fails.
func ReadStats(db fdb.Database) (Stats, error) {
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(StatsKey).Get()
	})
	if err != nil {
		return Stats{}, fmt.Errorf("fdblitetest: read stats: %w", err)
	}
	raw := v.([]byte)
	if raw == nil {
		return Stats{}, ErrNoStats
	}
	var st Stats
	if err := json.Unmarshal(raw, &st); err != nil {
		return Stats{}, fmt.Errorf("fdblitetest: decode stats %q: %w", raw, err)
	}
	return st, nil
}

// TransactionRoundTrips returns the round trips tr has made so far: since it
// was created or reset, across retries. Reading them costs none. It must be
// called before tr commits.
func TransactionRoundTrips(tr fdb.ReadTransaction) (RoundTrips, error) {
	raw, err := tr.Get(StatsKey).Get()
	if err != nil {
		return RoundTrips{}, fmt.Errorf("fdblitetest: read transaction stats: %w", err)
	}
	if raw == nil {
		return RoundTrips{}, ErrNoStats
	}
	var st Stats
	if err := json.Unmarshal(raw, &st); err != nil {
		return RoundTrips{}, fmt.Errorf("fdblitetest: decode stats %q: %w", raw, err)
	}
	return st.Transaction, nil
}
