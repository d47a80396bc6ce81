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
// It returns an error wrapping [ErrOldFormat] if ns holds a store written
// by an fdyno before sharded heads (see [Upgrade]), one wrapping
// [ErrCorrupt] if ns holds a store of an unknown format, and
// FoundationDB's errors as they are.
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
		case len(v) == 1 && v[0] == legacyFormatVersion:
			return struct{}{}, fmt.Errorf("%w: format %d under %s: stop every process of an older fdyno using it, then run dcb.Upgrade",
				ErrOldFormat, legacyFormatVersion, fdb.Printable(s.k.ns))
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

// Upgrade brings the store in ns to the current format, in tr; a store
// already current, or an empty ns, is left as it is. Events, indexes and
// idempotency records keep their format: only the heads and the order
// key changed, so Upgrade writes three keys whatever the store's size.
//
// A store of format 1 (fdyno before sharded heads) has one head key that
// every append rewrites and every subscriber watches. Run Upgrade once no
// process of such a version uses the store: after it, such a process
// refuses to open the store (it finds a format it does not know), but one
// that opened it before would go on writing and watching only the old
// head, so its subscribers would miss the new version's appends, and the
// new version's subscribers its appends. Before it, this version refuses
// to open the store ([ErrOldFormat]), so neither misses the other's
// appends silently.
func Upgrade(tr fdb.Transactor, ns subspace.Subspace) error {
	k := newKeys(ns.Bytes())
	_, err := fdyno.Transact(tr, func(tr fdb.Transaction) (struct{}, error) {
		v, err := tr.Get(k.meta).Get()
		if err != nil {
			return struct{}{}, err
		}
		switch {
		case v == nil || len(v) == 1 && v[0] == formatVersion:
		case len(v) == 1 && v[0] == legacyFormatVersion:
			tr.Set(k.meta, []byte{formatVersion})
			// Format 1's head and order keys, which no append of
			// format 2 writes.
			tr.Clear(fdb.Key(k.heads))
			tr.Clear(fdb.Key(k.order))
		default:
			return struct{}{}, fmt.Errorf("%w: format %x under %s, want %d or %d", ErrCorrupt, v, fdb.Printable(k.ns), legacyFormatVersion, formatVersion)
		}
		return struct{}{}, nil
	})
	return err
}
