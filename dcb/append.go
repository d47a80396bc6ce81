package dcb

import (
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// AppendCondition makes an append conditional: it fails if the store holds
// an event matching FailIfEventsMatch at a position after After (any
// position if After is zero). Typically FailIfEventsMatch is the query the
// decision was made from and After the last position that read returned
// (or the position the reader had reached, which may be higher).
type AppendCondition struct {
	FailIfEventsMatch Query
	After             Position
}

// Appended is the result of an append: the positions its events got,
// known once its transaction commits.
type Appended struct {
	stamp fdb.FutureKey
	known []byte // the versionstamp, when an idempotency record gave it
	first int
	n     int
}

// Repeated reports whether the append was found already applied under its
// idempotency key ([Store.AppendOnce]): it wrote nothing this time, and
// its positions are those of the first time.
func (a Appended) Repeated() bool { return a.known != nil }

// Positions returns the positions of the appended events, in the order
// they were given. For an append run in its own transaction (an
// fdb.Database or another Transactor than an fdb.Transaction was passed)
// they are known at once. For an append joined to
// a caller's transaction, Positions blocks until that transaction commits,
// and returns an error wrapping [ErrNotCommitted] if it does not; call it
// after the commit, outside the transaction's function.
func (a Appended) Positions() ([]Position, error) {
	vs := a.known
	if vs == nil {
		if a.stamp == nil {
			return nil, fmt.Errorf("%w: no append", ErrNotCommitted)
		}
		var err error
		if vs, err = a.stamp.Get(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotCommitted, err)
		}
	}
	var err error
	out := make([]Position, a.n)
	for i := range out {
		if out[i], err = positionAt(vs, a.first+i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Last returns the position of the last appended event; see
// [Appended.Positions].
func (a Appended) Last() (Position, error) {
	ps, err := a.Positions()
	if err != nil {
		return Position{}, err
	}
	return ps[len(ps)-1], nil
}

// pendingEvent is a validated event ready to write: its value and the
// prefixes of its index entries.
type pendingEvent struct {
	value   []byte
	parts   [][]byte // further parts of a chunked value
	indexes [][]byte
}

// prepare validates events and builds their values and index prefixes.
func (s *Store) prepare(events []Event) ([]pendingEvent, error) {
	if len(events) == 0 {
		return nil, fmt.Errorf("%w: no events to append", ErrInvalidEvent)
	}
	if len(events) > MaxEventsPerTransaction {
		return nil, fmt.Errorf("%w: %d events > %d per transaction", ErrTooLarge, len(events), MaxEventsPerTransaction)
	}
	out := make([]pendingEvent, len(events))
	total := 0
	for i, e := range events {
		tags, err := e.validate(i)
		if err != nil {
			return nil, err
		}
		if n := encodedLen(e.Type, tags, e.Data); n > MaxEventBytes {
			return nil, fmt.Errorf("%w: event %d encodes to %d bytes > %d (MaxEventBytes)", ErrTooLarge, i, n, MaxEventBytes)
		}
		p := &out[i]
		p.value, p.parts = chunkEvent(encodeEvent(e.Type, tags, e.Data))
		p.indexes = s.k.eventIndexes(e.Type, tags)
		// Each key, and (at most) each key's write conflict range.
		total += 3*stampedKeyLen(s.k.events) + len(p.value)
		for _, part := range p.parts {
			total += stampedKeyLen(s.k.chunks) + 8 + len(part)
		}
		for _, ix := range p.indexes {
			if n := stampedKeyLen(ix); n > maxKeyBytes {
				return nil, fmt.Errorf("%w: event %d: index key of %d bytes > %d", ErrTooLarge, i, n, maxKeyBytes)
			}
			total += 3 * stampedKeyLen(ix)
		}
		if total > MaxAppendBytes {
			return nil, fmt.Errorf("%w: the events' keys and values exceed %d bytes (MaxAppendBytes) at event %d", ErrTooLarge, MaxAppendBytes, i)
		}
	}
	return out, nil
}

// Append appends events atomically, if cond (optional) holds, and returns
// their positions ([Appended.Positions]).
//
// The condition is checked inside the append's transaction by reading,
// from cond.After on, exactly the index ranges that reading
// cond.FailIfEventsMatch reads, and no other key: two appends conflict
// only if one writes an entry into a range the other's condition reads,
// that is, only if one appends an event the other's condition matches.
// If an event matches, Append returns an [*AppendConditionError] naming the
// first matching position (errors.Is [ErrAppendConditionFailed]) and
// writes nothing. Invalid events or a query are refused before the
// transaction is touched, with errors wrapping [ErrInvalidEvent],
// [ErrInvalidQuery] or [ErrTooLarge].
//
// Given an fdb.Database (or any Transactor but an fdb.Transaction),
// Append runs its own transaction with automatic_idempotency, retrying on
// FoundationDB's retryable errors: a commit that applied but reported
// commit_unknown_result is not applied twice. Given an fdb.Transaction, it joins the caller's transaction, and
// its events commit with the caller's other writes or not at all. A
// condition cannot read a range that an earlier append of the same
// transaction wrote into (the entries' keys are not known before the
// commit): FoundationDB reports accessed_unreadable (1036) and nothing is
// written; check conditions before appending in such a transaction.
//
// The caller's transaction must keep snapshot read-your-writes (the
// default): several appends in one transaction number their events
// through a key read at snapshot isolation (keys.go, "o").
func (s *Store) Append(tr fdb.Transactor, events []Event, cond *AppendCondition) (Appended, error) {
	return s.appendWith(tr, nil, events, cond)
}

// appendWith is Append, and AppendOnce with id: it validates everything,
// then runs appendTx.
func (s *Store) appendWith(tr fdb.Transactor, id []byte, events []Event, cond *AppendCondition) (Appended, error) {
	evs, err := s.prepare(events)
	if err != nil {
		return Appended{}, err
	}
	var check plan
	var after Position
	if cond != nil {
		if check, err = s.k.plan(cond.FailIfEventsMatch); err != nil {
			return Appended{}, err
		}
		after = cond.After
	}
	// Anything but a caller's transaction runs transactions of the
	// append's own (fdyno.Transact), which hold no other append.
	_, joined := tr.(fdb.Transaction)
	sole := !joined
	a, err := fdyno.Transact(tr, func(tr fdb.Transaction) (Appended, error) {
		return s.appendTx(tr, evs, check, after, sole, id)
	})
	if err != nil {
		return Appended{}, err
	}
	if sole && a.known == nil {
		// The transaction committed: make the positions known now.
		if _, err := a.stamp.Get(); err != nil {
			return Appended{}, fmt.Errorf("dcb: read the append's versionstamp: %w", err)
		}
	}
	return a, nil
}

// appendTx is Append's transaction: one wave of reads (the condition's
// ranges, limit 1 each, the order key and the idempotency record), then the writes. sole says the
// transaction holds no other append, so its events take orders from 0
// without reading the order key.
func (s *Store) appendTx(tr fdb.Transaction, evs []pendingEvent, check plan, after Position, sole bool, id []byte) (Appended, error) {
	var record fdb.FutureByteSlice
	if id != nil {
		record = tr.Get(s.k.idempotencyKey(id))
	}
	reads := make([]fdb.RangeResult, len(check.prefixes))
	for i, p := range check.prefixes {
		reads[i] = tr.GetRange(span(p, after, Position{}), fdb.RangeOptions{Limit: 1, Mode: fdb.StreamingModeWantAll})
	}
	var order fdb.FutureByteSlice
	if !sole {
		order = tr.Snapshot().Get(s.k.order)
	}
	if record != nil {
		v, err := record.Get()
		if err != nil {
			return Appended{}, err
		}
		if v != nil {
			vs, first, n, err := decodeRecord(v)
			if err != nil {
				return Appended{}, err
			}
			return Appended{known: vs, first: first, n: n}, nil
		}
	}
	var first Position
	found := false
	for i, rr := range reads {
		kvs, err := rr.GetSliceWithError()
		if err != nil {
			return Appended{}, err
		}
		if len(kvs) == 0 {
			continue
		}
		p, err := positionOf(kvs[0].Key, check.prefixes[i])
		if err != nil {
			return Appended{}, err
		}
		if !found || p.Compare(first) < 0 {
			first, found = p, true
		}
	}
	if found {
		return Appended{}, &AppendConditionError{Position: first, After: after}
	}
	rv, err := tr.GetReadVersion().Get()
	if err != nil {
		return Appended{}, err
	}
	base := 0
	if !sole {
		v, err := order.Get()
		if err != nil {
			return Appended{}, err
		}
		if orv, next, ok := decodeOrder(v); ok && orv == rv {
			base = next
		}
		if base+len(evs) > MaxEventsPerTransaction {
			return Appended{}, fmt.Errorf("%w: more than %d events in one transaction", ErrTooLarge, MaxEventsPerTransaction)
		}
	}
	// A versionstamped key adds no write conflict range (its key is not
	// known before the commit), so each range gets one explicitly: every
	// position after the read version, which is where the entries land.
	// This is what makes a concurrent condition reading the range conflict.
	// They go first: the only step that can fail, before any write.
	conflicted := map[string]bool{}
	for _, prefix := range append([][]byte{s.k.events}, allIndexes(evs)...) {
		if conflicted[string(prefix)] {
			continue
		}
		conflicted[string(prefix)] = true
		if err := tr.AddWriteConflictRange(laterSpan(prefix, rv)); err != nil {
			return Appended{}, err
		}
	}
	if !sole {
		tr.Set(s.k.order, encodeOrder(rv, base+len(evs)))
	}
	for i, e := range evs {
		n := uint16(base + i)
		tr.SetVersionstampedKey(stamped(s.k.events, n), e.value)
		for j, part := range e.parts {
			tr.SetVersionstampedKey(s.k.stampedPart(n, j+1), part)
		}
		for _, ix := range e.indexes {
			tr.SetVersionstampedKey(stamped(ix, n), nil)
		}
	}
	tr.SetVersionstampedValue(s.k.head, headValue())
	if id != nil {
		tr.SetVersionstampedValue(s.k.idempotencyKey(id), recordValue(base, len(evs)))
	}
	return Appended{stamp: tr.GetVersionstamp(), first: base, n: len(evs)}, nil
}

func allIndexes(evs []pendingEvent) [][]byte {
	var out [][]byte
	for _, e := range evs {
		out = append(out, e.indexes...)
	}
	return out
}

// MaxIdempotencyKeyBytes bounds an idempotency key.
const MaxIdempotencyKeyBytes = 1024

// AppendOnce is [Store.Append] with an idempotency key: the append applies
// at most once per id. The transaction that applies it records, under id,
// the positions it gave (in the same commit); an append that finds the
// record writes nothing, checks no condition, and returns those positions
// with [Appended.Repeated] true.
//
// Use it where a retry cannot know whether an earlier attempt committed: a
// caller's transaction retried after commit_unknown_result (1021), or a
// request repeated by a client. (Given an fdb.Database, Append alone is
// already safe against commit_unknown_result: its transactions set
// automatic_idempotency.) Without the key, such a retry would append
// twice, or fail its own condition on the events of its first attempt.
//
// The record is read with a conflict range, so two concurrent appends with
// the same id conflict and one of them applies. Records are kept until
// [Store.ForgetIdempotencyKey] removes them; id is at most
// [MaxIdempotencyKeyBytes] bytes.
func (s *Store) AppendOnce(tr fdb.Transactor, id []byte, events []Event, cond *AppendCondition) (Appended, error) {
	if len(id) == 0 || len(id) > MaxIdempotencyKeyBytes {
		return Appended{}, fmt.Errorf("%w: idempotency key of %d bytes (want 1 to %d)", ErrInvalidOptions, len(id), MaxIdempotencyKeyBytes)
	}
	return s.appendWith(tr, id, events, cond)
}

// ForgetIdempotencyKey removes the idempotency record of id: a later
// AppendOnce with id applies again.
func (s *Store) ForgetIdempotencyKey(tr fdb.Transactor, id []byte) error {
	_, err := fdyno.Transact(tr, func(tr fdb.Transaction) (struct{}, error) {
		tr.Clear(s.k.idempotencyKey(id))
		return struct{}{}, nil
	})
	return err
}
