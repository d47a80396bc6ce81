package dcb

import (
	"fmt"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno"
)

// Store is an event store in one namespace of a FoundationDB database. It
// holds no state beyond its key prefixes and options: it is safe for
// concurrent use by multiple goroutines, and any number of Stores, in any
// number of processes, may open the same namespace.
type Store struct {
	k        *keys
	pageSize int
	stats    *subscribeStats // shared by copies
	// idempotencyRetention is how long an AppendOnce record lives; 0
	// forever.
	idempotencyRetention time.Duration
	now                  func() time.Time // time.Now; tests move it
}

// DefaultIdempotencyRetention is how long an [Store.AppendOnce] record
// lasts unless [WithIdempotencyRetention] says otherwise: a day, long
// enough for any client retry, short enough that a store appended to with
// a fresh id per request does not keep every id forever.
const DefaultIdempotencyRetention = 24 * time.Hour

// WithIdempotencyRetention sets how long AppendOnce records last (0: until
// [Store.ForgetIdempotencyKey]; otherwise at least a second).
func WithIdempotencyRetention(d time.Duration) Option {
	return func(s *Store) error {
		if d < 0 || (d > 0 && d < time.Second) {
			return fmt.Errorf("%w: idempotency retention %s: want 0 or at least 1s", ErrInvalidOptions, d)
		}
		s.idempotencyRetention = d
		return nil
	}
}

// Option configures [Open].
type Option func(*Store) error

// DefaultPageSize is the number of events one read transaction returns
// at most when [Store.Read] is given an fdb.Database.
const DefaultPageSize = 1000

// WithPageSize sets the number of events per read transaction (1 to
// 10,000) when a read runs its own transactions.
func WithPageSize(n int) Option {
	return func(s *Store) error {
		if n < 1 || n > 10_000 {
			return fmt.Errorf("%w: page size %d not in [1, 10000]", ErrInvalidOptions, n)
		}
		s.pageSize = n
		return nil
	}
}

// Open opens the event store in ns, a subspace (subspace.Sub("events"))
// or a directory (directory.CreateOrOpen's result), creating it if it is
// empty. The store owns every key under ns. Open runs in tr: given an
// fdb.Database it runs its own transaction, and may be retried; given an
// fdb.Transaction, it joins it.
//
// It returns an error wrapping [ErrCorrupt] if ns holds a store of an
// unknown format, and FoundationDB's errors as they are.
func Open(tr fdb.Transactor, ns subspace.Subspace, opts ...Option) (*Store, error) {
	s := &Store{k: newKeys(ns.Bytes()), pageSize: DefaultPageSize, stats: new(subscribeStats),
		idempotencyRetention: DefaultIdempotencyRetention, now: time.Now}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	_, err := fdyno.Transact(tr, func(tr fdb.Transaction) (struct{}, error) {
		v, err := tr.Get(s.k.meta).Get()
		if err != nil {
			return struct{}{}, err
		}
		switch {
		case v == nil:
			tr.Set(s.k.meta, []byte{formatVersion})
		case len(v) != 1 || v[0] != formatVersion:
			return struct{}{}, fmt.Errorf("%w: format %x under %s, want %d", ErrCorrupt, v, fdb.Printable(s.k.ns), formatVersion)
		}
		return struct{}{}, nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// HeadKey returns the key every append rewrites (with a versionstamped
// value): a watch on it fires after the next append to the store.
// [Store.Subscribe] uses it; use it directly to wake your own consumer.
func (s *Store) HeadKey() fdb.Key { return append(fdb.Key{}, s.k.head...) }
