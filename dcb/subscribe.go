package dcb

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// Subscribe returns the events matching q after position after, in
// position order, each exactly once: first those already stored, then
// each new one as it is appended, until ctx ends (the sequence then
// yields ctx's error and stops). Resume a subscription from the last
// position it delivered.
//
// It does not poll. When it has read everything, it reads and watches the
// store's head key (rewritten by every append) in the same transaction,
// then waits for the watch: an append committed after that read fires it,
// and one committed before is in the read. A slow consumer loses nothing:
// the sequence reads a page of [WithPageSize] events only when the
// consumer asks for more, from the last position it delivered. Each
// wakeup reads the query's ranges (one transaction per page); appends
// that do not match q wake it too, and it finds nothing.
//
// Errors are yielded: an invalid query once ([ErrInvalidQuery]); a
// FoundationDB error of a page once, after which the subscription stops.
func (s *Store) Subscribe(ctx context.Context, db fdb.Database, q Query, after Position) iter.Seq2[StoredEvent, error] {
	return func(yield func(StoredEvent, error) bool) {
		pl, err := s.k.plan(q)
		if err != nil {
			yield(StoredEvent{}, err)
			return
		}
		for {
			if err := ctx.Err(); err != nil {
				yield(StoredEvent{}, err)
				return
			}
			type result struct {
				pg    page
				watch fdb.FutureNil
			}
			// A watch needs its transaction to commit: this one writes
			// nothing, so its commit costs no round trip.
			r, err := fdyno.Transact(db, func(tr fdb.Transaction) (result, error) {
				pg, err := s.readPage(tr, pl, after, Position{}, false, s.pageSize)
				if err != nil || len(pg.events) > 0 {
					return result{pg: pg}, err
				}
				return result{watch: tr.Watch(s.k.head)}, nil
			})
			if err != nil {
				yield(StoredEvent{}, fmt.Errorf("dcb: subscribe: %w", err))
				return
			}
			for _, e := range r.pg.events {
				if !yield(e, nil) {
					return
				}
				after = e.Position
			}
			if r.watch == nil {
				continue
			}
			done := make(chan error, 1)
			go func() { done <- r.watch.Get() }()
			select {
			case <-ctx.Done():
				r.watch.Cancel()
				<-done
				yield(StoredEvent{}, ctx.Err())
				return
			case err := <-done:
				var fe fdb.Error
				if err != nil && !errors.As(err, &fe) {
					yield(StoredEvent{}, fmt.Errorf("dcb: subscribe: watch: %w", err))
					return
				}
				// A watch that fired, or failed with a FoundationDB error
				// (too many watches, a lost connection): read again.
			}
		}
	}
}
