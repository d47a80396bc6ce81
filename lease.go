package fdyno

import (
	"encoding/json"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// lease.go: leases on a table's background work. Several programs on one
// database (fdyno-server instances, say) each run the same background
// jobs (the TTL sweep, the stream trim, point-in-time recovery's trim);
// a lease, kept in the table's directory ("w", job), lets one of them do
// a job at a time and the others skip it. A lease is taken and renewed
// in a transaction that reads it, so two takers conflict and one wins; it
// lapses at its expiry, so the work of a holder that died is taken over
// after at most one lease period. Expiry is by the taker's clock
// ([WithClock]): the holders' clocks must agree to well within a period.
//
// A lease only spares work: every job is safe to run twice at once (each
// transaction of a sweep or trim re-checks what it changes), so a lease
// taken over from a holder that was merely slow costs duplicated work,
// never a wrong result.

// leaseRecord is a lease as stored.
type leaseRecord struct {
	Holder  string `json:"h"`
	Expires int64  `json:"e"` // Unix microseconds
}

// TryLease takes or renews the lease on job for holder, until d from now
// (the handle's clock), unless another holder's lease has not expired.
// It reports whether holder holds the lease. Errors: [ErrResourceNotFound]
// if the table does not exist.
func (t *Table) TryLease(tx fdb.Transactor, job, holder string, d time.Duration) (bool, error) {
	if job == "" || holder == "" || d <= 0 {
		return false, &ValidationError{Op: "TryLease", Reason: "a lease needs a job, a holder and a positive period"}
	}
	now := t.now()
	return Transact(tx, func(tr fdb.Transaction) (bool, error) {
		st, err := t.load(tr, nil)
		if err != nil {
			return false, err
		}
		key := st.keys.leaseKey(job)
		raw, err := tr.Get(key).Get()
		if err != nil {
			return false, err
		}
		var cur leaseRecord
		if raw != nil && json.Unmarshal(raw, &cur) == nil && cur.Holder != holder && now.UnixMicro() < cur.Expires {
			return false, nil // held by another, not expired
		}
		// Absent, expired, ours, or unreadable (taken over).
		v, err := json.Marshal(leaseRecord{Holder: holder, Expires: now.Add(d).UnixMicro()})
		if err != nil {
			return false, err
		}
		tr.Set(key, v)
		return true, nil
	})
}

// ReleaseLease gives up holder's lease on job, if holder holds it, so
// another can take it at once.
func (t *Table) ReleaseLease(tx fdb.Transactor, job, holder string) error {
	_, err := Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		st, err := t.load(tr, nil)
		if err != nil {
			return struct{}{}, err
		}
		key := st.keys.leaseKey(job)
		raw, err := tr.Get(key).Get()
		if err != nil {
			return struct{}{}, err
		}
		var cur leaseRecord
		if raw != nil && json.Unmarshal(raw, &cur) == nil && cur.Holder == holder {
			tr.Clear(key)
		}
		return struct{}{}, nil
	})
	return err
}
