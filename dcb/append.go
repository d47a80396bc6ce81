package dcb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

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
// fdb.Database or any Transactor that does not join its caller's
// transaction, [fdyno.JoinsCaller]) they are known at once. For an append
// joined to a caller's transaction they are known once that transaction
// has committed: call Positions after the commit returned, outside the
// transaction's function.
//
// Positions never blocks. It returns an error wrapping [ErrNotCommitted]
// whenever the append's transaction has not committed: the commit failed,
// was not attempted (the transaction's function returned an error, or the
// transaction was cancelled or reset), or has not happened yet (Positions
// called inside the transaction's function). Waiting there instead would
// wait forever: such a transaction never commits, or commits only after
// its function returns.
func (a Appended) Positions() ([]Position, error) {
	vs := a.known
	if vs == nil {
		if a.stamp == nil {
			return nil, fmt.Errorf("%w: no append", ErrNotCommitted)
		}
		if !a.stamp.IsReady() {
			return nil, fmt.Errorf("%w: its transaction has not committed", ErrNotCommitted)
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
	shards  []int // of its heads (heads.go)
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
	// The anyShard head (heads.go), then each event's heads: key, value
	// and write conflict range.
	headBytes := 3*(len(s.k.heads)+maxHeadSuffixLen) + 14
	total := headBytes
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
		p.shards = eventShards(e.Type, tags)
		total += len(p.shards) * headBytes
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
// Given an fdb.Database (or any Transactor that does not join its caller's
// transaction, [fdyno.JoinsCaller]), Append runs its own transaction with
// automatic_idempotency, retrying on FoundationDB's retryable errors: a
// commit that applied but reported commit_unknown_result is not applied
// twice. Given an fdb.Transaction or an [fdyno.CallerTransactor] that
// says it joins, it joins the caller's transaction, and its events commit
// with the caller's other writes or not at all. A Transactor that hands
// over a transaction without committing it, and does not say so, is
// refused with [fdyno.ErrTransactorDidNotCommit] and nothing it wrote
// commits. A
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
	var once *onceArgs
	if id != nil {
		once = &onceArgs{id: id, digest: digestEvents(evs)}
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
	// append's own (fdyno.Transact), which hold no other append; a
	// Transactor that hands over a transaction it does not commit is
	// refused there (fdyno.ErrTransactorDidNotCommit) and what it wrote
	// never commits.
	sole := !fdyno.JoinsCaller(tr)
	a, err := fdyno.Transact(tr, func(tr fdb.Transaction) (Appended, error) {
		return s.appendTx(tr, evs, check, after, sole, once)
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
func (s *Store) appendTx(tr fdb.Transaction, evs []pendingEvent, check plan, after Position, sole bool, once *onceArgs) (Appended, error) {
	var record fdb.FutureByteSlice
	var now time.Time
	if once != nil {
		record = tr.Get(s.k.idempotencyKey(once.id))
		now = s.now() // per attempt: a retry sees the time it runs at
	}
	reads := make([]fdb.RangeResult, len(check.prefixes))
	for i, p := range check.prefixes {
		reads[i] = tr.GetRange(span(p, after, Position{}), fdb.RangeOptions{Limit: 1, Mode: fdb.StreamingModeWantAll})
	}
	var order fdb.FutureByteSlice
	if !sole {
		// The order key is chosen by the read version: wait for it
		// first (the reads above wait for it anyway).
		rv, err := tr.GetReadVersion().Get()
		if err != nil {
			return Appended{}, err
		}
		order = tr.Snapshot().Get(s.k.orderKey(rv))
	}
	if record != nil {
		v, err := record.Get()
		if err != nil {
			return Appended{}, err
		}
		if v != nil {
			r, err := decodeRecord(v)
			if err != nil {
				return Appended{}, err
			}
			switch {
			case r.expires != 0 && now.UnixNano() >= r.expires:
				// Expired: as if forgotten; this append applies and
				// writes a new record.
			case r.digest != nil && !bytes.Equal(r.digest, once.digest[:]):
				return Appended{}, fmt.Errorf("%w: %q was used for other events", ErrIdempotencyKeyReused, once.id)
			default:
				return Appended{known: r.vs, first: r.first, n: r.n}, nil
			}
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
		tr.Set(s.k.orderKey(rv), encodeOrder(rv, base+len(evs)))
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
	s.writeHeads(tr, evs, rv)
	if once != nil {
		var expires int64
		if s.idempotencyRetention > 0 {
			expires = now.Add(s.idempotencyRetention).UnixNano()
		}
		tr.SetVersionstampedValue(s.k.idempotencyKey(once.id), recordValue(base, len(evs), once.digest, expires))
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
// The record holds a digest (SHA-256) of the events: an AppendOnce that
// finds a record of id for other events (another type, tags or data, or
// another count or order) fails with [ErrIdempotencyKeyReused] and writes
// nothing. The condition is not part of the digest.
//
// The record is read with a conflict range, so two concurrent appends with
// the same id conflict and one of them applies. A record expires after the
// store's retention ([WithIdempotencyRetention], by default
// [DefaultIdempotencyRetention]) measured on the clock of the client that
// wrote it: an AppendOnce after that applies again, as after
// [Store.ForgetIdempotencyKey], and [Store.ForgetExpiredIdempotencyKeys]
// removes expired records. Id is at most [MaxIdempotencyKeyBytes] bytes.
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

// onceArgs are AppendOnce's: the idempotency key and the digest of the
// events.
type onceArgs struct {
	id     []byte
	digest [32]byte
}

// digestEvents is the SHA-256 of the encoded events (the codec is
// deterministic), each part length-prefixed so that no two lists of
// events share a digest input.
func digestEvents(evs []pendingEvent) [32]byte {
	h := sha256.New()
	var n [8]byte
	write := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	binary.BigEndian.PutUint64(n[:], uint64(len(evs)))
	h.Write(n[:])
	for _, e := range evs {
		write(e.value)
		binary.BigEndian.PutUint64(n[:], uint64(len(e.parts)))
		h.Write(n[:])
		for _, p := range e.parts {
			write(p)
		}
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// ForgetExpiredIdempotencyKeys removes up to limit expired idempotency
// records (0 means 1,000) in one transaction of tr, reading at most limit
// records. It returns how many it removed and whether records remain past
// those it read; call it again (from a background job) until more is
// false. Records without an expiry (written with retention 0, or before
// expiries) are kept.
func (s *Store) ForgetExpiredIdempotencyKeys(tr fdb.Transactor, limit int) (removed int, more bool, err error) {
	if limit <= 0 {
		limit = 1000
	}
	type result struct {
		removed int
		more    bool
	}
	r, err := fdyno.Transact(tr, func(tr fdb.Transaction) (result, error) {
		now := s.now().UnixNano()
		pr, err := fdb.PrefixRange(s.k.idemp)
		if err != nil {
			return result{}, err
		}
		kvs, err := tr.GetRange(pr, fdb.RangeOptions{Limit: limit + 1, Mode: fdb.StreamingModeWantAll}).GetSliceWithError()
		if err != nil {
			return result{}, err
		}
		var res result
		if len(kvs) > limit {
			kvs, res.more = kvs[:limit], true
		}
		for _, kv := range kvs {
			rec, err := decodeRecord(kv.Value)
			if err != nil {
				return result{}, err
			}
			if rec.expires != 0 && now >= rec.expires {
				tr.Clear(kv.Key)
				res.removed++
			}
		}
		return res, nil
	})
	return r.removed, r.more, err
}
