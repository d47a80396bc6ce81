package fdyno

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Exactly-once consumers. A named consumer keeps its checkpoint, the
// sequence number of the last record it processed, at ("v", "c", name)
// in the table's own keyspace. One batch is one transaction that
//
//  1. reads the checkpoint (a serializable read),
//  2. reads the records after it,
//  3. runs the handler, which writes its effects in the same transaction,
//  4. sets the checkpoint to the batch's last sequence number,
//
// and commits all of it or nothing. A crash or an error before the commit
// leaves both the effects and the checkpoint as they were, so the batch is
// processed again; after the commit neither can be undone. Two processes
// running the same consumer conflict on the checkpoint and one retries,
// so a record is never processed twice. A retry after
// commit_unknown_result re-reads the checkpoint and so never repeats a
// batch that did commit. Consumers of different names are independent.

// MaxConsumerNameLength is the longest consumer name, in bytes.
const MaxConsumerNameLength = 255

const checkpointVersion = 0x01

// Consumer is a named, exactly-once reader of a table's stream. A
// Consumer is safe for concurrent use; several processes may run the same
// consumer, and each batch is then processed by exactly one of them.
type Consumer struct {
	t    *Table
	name string
}

// ConsumerHandler processes a batch of records (in order, never empty)
// in tr, the transaction that advances the consumer's checkpoint past
// them. It may be called again with the same batch if tr is retried, so
// it must have no effects outside tr. Returning an error aborts the batch:
// nothing it wrote commits and the checkpoint stays.
type ConsumerHandler func(tr fdb.Transaction, records []StreamRecord) error

// Consumer returns the consumer of t's stream called name (1 to
// [MaxConsumerNameLength] bytes of UTF-8). Errors: [ErrValidation] for a
// bad name.
func (t *Table) Consumer(name string) (*Consumer, error) {
	if name == "" || len(name) > MaxConsumerNameLength || !utf8.ValidString(name) {
		return nil, &ValidationError{Op: "Consumer", Path: "ConsumerName", Reason: "consumer names are 1 to " + strconv.Itoa(MaxConsumerNameLength) + " bytes of UTF-8"}
	}
	return &Consumer{t: t, name: name}, nil
}

// Name returns the consumer's name.
func (c *Consumer) Name() string { return c.name }

func encodeCheckpoint(p streamPos) []byte {
	if !p.set {
		return []byte{checkpointVersion}
	}
	return append([]byte{checkpointVersion}, p.seq[:]...)
}

func decodeCheckpoint(b []byte) (streamPos, error) {
	switch {
	case len(b) == 1 && b[0] == checkpointVersion:
		return streamPos{}, nil
	case len(b) == 1+tupleVersionstampLen && b[0] == checkpointVersion:
		p := streamPos{set: true}
		copy(p.seq[:], b[1:])
		return p, nil
	}
	return streamPos{}, &CorruptError{What: "consumer checkpoint", Reason: "unknown format"}
}

// streamState returns t's current state in tr, which must have a stream.
func (t *Table) streamState(tr fdb.ReadTransaction, op string) (*tableState, error) {
	st, err := t.current(tr, tr.Snapshot().Get(metadataVersionKey))
	if err != nil {
		return nil, err
	}
	if !st.hasStream() {
		ok, err := t.readableDisabled(tr, st)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &ValidationError{Op: op, Reason: "Table " + t.name + " has no stream (StreamViewType is not set)"}
		}
	}
	return st, nil
}

// Register records the consumer with its checkpoint after sequence number
// after ("" is the start of the stream), unless it is registered already,
// in which case it changes nothing. A registered consumer's records are
// never trimmed before it has processed them, unless the trim is forced.
//
// Errors: [ErrValidation] for a bad sequence number or a table without a
// stream; [ErrTrimmedDataAccess] when records after the sequence number
// have been trimmed. With an fdb.Database, Register may be retried.
func (c *Consumer) Register(tx fdb.Transactor, after string) error {
	pos, err := startPos("ExclusiveStartSequenceNumber", after)
	if err != nil {
		return err
	}
	_, err = Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		st, err := c.t.streamState(tr, "Register")
		if err != nil {
			return struct{}{}, err
		}
		ck := tr.Get(st.keys.consumerKey(c.name))
		h, err := tr.Get(st.keys.streamHorizonKey()).Get()
		if err != nil {
			return struct{}{}, err
		}
		old, err := ck.Get()
		if err != nil || old != nil {
			return struct{}{}, err
		}
		if len(h) == tupleVersionstampLen && pos.set {
			var hs seqNo
			copy(hs[:], h)
			if pos.after(hs, 0) {
				return struct{}{}, &TrimmedDataAccessError{Table: c.t.name, TrimHorizon: hs.String()}
			}
		}
		c.register(tr, st, pos)
		return struct{}{}, nil
	})
	return err
}

// register writes the checkpoint and bumps the registration marker, which
// a concurrent trim reads, so the trim retries and sees the consumer.
func (c *Consumer) register(tr fdb.Transaction, st *tableState, pos streamPos) {
	tr.Set(st.keys.consumerKey(c.name), encodeCheckpoint(pos))
	tr.Add(st.keys.streamRegisterKey(), one64)
}

// Deregister forgets the consumer and its checkpoint; trims no longer wait
// for it. With an fdb.Database, Deregister may be retried.
func (c *Consumer) Deregister(tx fdb.Transactor) error {
	_, err := Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		st, err := c.t.streamState(tr, "Deregister")
		if err == nil {
			tr.Clear(st.keys.consumerKey(c.name))
		}
		return struct{}{}, err
	})
	return err
}

// Checkpoint returns the sequence number of the last record the consumer
// processed ("" if none yet) and whether it is registered.
func (c *Consumer) Checkpoint(rt fdb.ReadTransactor) (seq string, registered bool, err error) {
	type result struct {
		seq string
		ok  bool
	}
	r, err := ReadTransact(rt, func(tr fdb.ReadTransaction) (result, error) {
		st, err := c.t.streamState(tr, "Checkpoint")
		if err != nil {
			return result{}, err
		}
		b, err := tr.Get(st.keys.consumerKey(c.name)).Get()
		if err != nil || b == nil {
			return result{}, err
		}
		p, err := decodeCheckpoint(b)
		if err != nil || !p.set {
			return result{ok: err == nil}, err
		}
		return result{seq: p.seq.String(), ok: true}, nil
	})
	return r.seq, r.ok, err
}

// ProcessBatch runs one batch: up to limit records after the consumer's
// checkpoint (zero means [MaxGetRecordsLimit]) are passed to h in tx's
// transaction, which also advances the checkpoint past them. It returns
// the number of records processed, 0 when the consumer is caught up (h is
// then not called). A consumer that was not registered is registered at
// the start of the stream.
//
// Errors: h's error, as returned by h; [ErrValidation] for a bad limit or
// a table without a stream; [ErrTrimmedDataAccess] when records after the
// checkpoint were trimmed by a forced trim; FoundationDB errors, wrapped.
// With an fdb.Database, ProcessBatch may be retried, h with it.
func (c *Consumer) ProcessBatch(tx fdb.Transactor, limit int, h ConsumerHandler) (int, error) {
	limit, err := checkLimit("ProcessBatch", limit)
	if err != nil {
		return 0, err
	}
	return Transact(tx, func(tr fdb.Transaction) (int, error) {
		n, _, err := c.batch(tr, limit, h)
		return n, err
	})
}

// batch runs one batch in tr and returns the records processed and the
// change markers to watch when there were none.
func (c *Consumer) batch(tr fdb.Transaction, limit int, h ConsumerHandler) (int, []fdb.Key, error) {
	st, err := c.t.streamState(tr, "ProcessBatch")
	if err != nil {
		return 0, nil, err
	}
	b, err := tr.Get(st.keys.consumerKey(c.name)).Get()
	if err != nil {
		return 0, nil, err
	}
	var pos streamPos
	if b == nil {
		c.register(tr, st, pos)
	} else if pos, err = decodeCheckpoint(b); err != nil {
		return 0, nil, err
	}
	pg, err := readStreamPage(tr, []*Table{c.t}, pos, limit)
	if err != nil || len(pg.records) == 0 {
		return 0, pg.markers, err
	}
	recs := make([]StreamRecord, len(pg.records))
	for i, r := range pg.records {
		recs[i] = r.StreamRecord
	}
	if err := h(tr, recs); err != nil {
		return 0, nil, err
	}
	last := pg.records[len(pg.records)-1]
	tr.Set(st.keys.consumerKey(c.name), encodeCheckpoint(streamPos{seq: last.seq, set: true}))
	return len(recs), nil, nil
}

// Run processes batches of up to limit records with h (see
// [Consumer.ProcessBatch]) as they commit, one transaction of db per
// batch, until ctx is done or a batch fails. When caught up it waits on
// FoundationDB watches of the table's change markers, set in the
// transaction that found no records, so it never polls. It returns
// ctx.Err() or the batch's error.
func (c *Consumer) Run(ctx context.Context, db fdb.Database, limit int, h ConsumerHandler) error {
	limit, err := checkLimit("Run", limit)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var watches []fdb.FutureNil
		n, err := Transact(db, func(tr fdb.Transaction) (int, error) {
			watches = nil
			n, markers, err := c.batch(tr, limit, h)
			for _, k := range markers {
				watches = append(watches, tr.Watch(k))
			}
			return n, err
		})
		if err != nil {
			return err
		}
		if n == 0 {
			if err := waitAny(ctx, watches); err != nil {
				return err
			}
		}
	}
}
