package tree

import (
	"bytes"
	"context"
	"iter"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// WatchEvent says that the children of a directory may have changed: an
// entry was added or removed, or an entry's kind or object changed.
type WatchEvent struct {
	Dir Path
	// Token identifies the directory's state as of the event; pass it to
	// Watch to resume after this event.
	Token []byte
}

// Watch yields an event whenever a change through this package (Put,
// PutLink, Delete, DeleteTree, Move) commits a change to the direct
// children of dir: a FoundationDB watch on the directory's counter
// (Options.Watch), no polling. The first event comes at once with the
// current token, unless after is that token (resuming where an earlier
// Watch left off, nothing in between is missed: a change in between makes
// the first event come at once). After an event, List the directory to see
// it.
//
// Changes further down do not count: a Put of dir/a/b wakes a watch on
// dir only if it adds the entry a or changes a's kind (a was an object
// with no child), so the root's watch wakes only when the root's listing
// changes. Events are at least once: a Put that rewrites an object with
// the same attributes, a Put that adds a child to an object that had
// children already (it does not read the object's listing to tell), or
// changes that commit together, may give an event with nothing new, or
// one event for several changes. Writes that do not go through this
// package (dynamotree clients of fdyno-server, say) change no counter and
// give no event. A tree opened without Options.Watch yields [ErrNoWatch].
// Watch stops when ctx is done (yielding ctx.Err()) or at the first error.
func (t *Tree) Watch(ctx context.Context, db fdb.Database, dir Path, after []byte) iter.Seq2[WatchEvent, error] {
	return func(yield func(WatchEvent, error) bool) {
		if t.watch == nil {
			yield(WatchEvent{}, ErrNoWatch)
			return
		}
		if err := t.checkDir("Watch", dir); err != nil {
			yield(WatchEvent{}, err)
			return
		}
		key := t.watchKey(t.dirKey(dir))
		last := after
		for {
			type state struct {
				token []byte
				w     fdb.FutureNil
			}
			st, err := fdyno.Transact(db, func(tr fdb.Transaction) (state, error) {
				v, err := tr.Get(key).Get()
				if err != nil {
					return state{}, err
				}
				return state{token: token(v), w: tr.Watch(key)}, nil
			})
			if err != nil {
				yield(WatchEvent{}, err)
				return
			}
			if last == nil || !bytes.Equal(st.token, last) {
				last = st.token
				if !yield(WatchEvent{Dir: append(Path(nil), dir...), Token: st.token}, nil) {
					st.w.Cancel()
					return
				}
			}
			if err := wait(ctx, st.w); err != nil {
				yield(WatchEvent{}, err)
				return
			}
		}
	}
}

// token is the counter value as a token; an absent counter is the empty,
// non-nil token, so that resuming from it works.
func token(v []byte) []byte {
	if v == nil {
		return []byte{}
	}
	return v
}

// wait blocks until w fires or ctx is done, cancelling w then.
func wait(ctx context.Context, w fdb.FutureNil) error {
	done := make(chan error, 1)
	go func() { done <- w.Get() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		w.Cancel()
		<-done
		return ctx.Err()
	}
}
