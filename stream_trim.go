package fdyno

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Retention. DynamoDB keeps stream records for 24 hours; fdyno keeps them
// until TrimStream removes them. A trim removes a prefix of the stream, in
// order, in batches of one bounded transaction each:
//
//  1. A record is trimmable if it is older than OlderThan, or if more
//     than KeepLast records would remain without it; the trim stops at the
//     first record that is not (creation times come from the writers'
//     clocks and need not increase, so an age trim may stop early).
//  2. Unless Force is set, no record after a registered consumer's
//     checkpoint is trimmed. The trim reads the registration marker, so a
//     consumer registering concurrently makes it retry, and consumers'
//     checkpoints only move forward, so reading them at snapshot isolation
//     is safe.
//  3. Each batch raises the trim horizon (a BYTE_MAX of the last trimmed
//     sequence number) and adds what it removed to its shards' trimmed
//     counts; the records kept are the shards' record counts (the change
//     markers) minus those. A read resuming at or before the horizon fails
//     with [ErrTrimmedDataAccess] instead of silently skipping records.

// TrimStreamInput is the request of [Table.TrimStream]. At least one of
// OlderThan and KeepLast must be set.
type TrimStreamInput struct {
	// OlderThan trims records whose ApproximateCreationDateTime is more
	// than this long ago (zero: no age limit).
	OlderThan time.Duration
	// KeepLast trims all but the newest KeepLast records (zero: no count
	// limit).
	KeepLast int
	// Force trims past registered consumers' checkpoints.
	Force bool
	// BatchSize is the most records removed per transaction, 1 to
	// [MaxGetRecordsLimit] (zero means the maximum).
	BatchSize int
}

// TrimStreamOutput is the result of [Table.TrimStream].
type TrimStreamOutput struct {
	// Trimmed is the number of records removed.
	Trimmed int
	// TrimHorizon is the sequence number of the last record removed, or
	// "" if none was.
	TrimHorizon string
}

// TrimStream removes old change records, in batches of one transaction of
// tx each (see the retention rules above), until no record is trimmable
// or ctx is done. Concurrent trims are safe: they conflict and retry.
//
// Errors: [ErrValidation] for a bad input or a table without a stream;
// ctx.Err(); FoundationDB errors, wrapped. Batches that committed before
// an error stay trimmed; the output counts them.
func (t *Table) TrimStream(ctx context.Context, tx fdb.Transactor, in TrimStreamInput) (*TrimStreamOutput, error) {
	const op = "TrimStream"
	if in.OlderThan < 0 || in.KeepLast < 0 || in.OlderThan == 0 && in.KeepLast == 0 {
		return nil, &ValidationError{Op: op, Reason: "set OlderThan or KeepLast (neither may be negative)"}
	}
	batch, err := checkLimit(op, in.BatchSize)
	if err != nil {
		return nil, err
	}
	out := &TrimStreamOutput{}
	for {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		cutoff := t.now().Add(-in.OlderThan)
		type result struct {
			n    int
			last seqNo
		}
		r, err := Transact(tx, func(tr fdb.Transaction) (result, error) {
			n, last, err := t.trimBatch(tr, in, cutoff, batch)
			return result{n, last}, err
		})
		if err != nil {
			return out, err
		}
		if r.n > 0 {
			out.Trimmed += r.n
			out.TrimHorizon = r.last.String()
		}
		if r.n < batch {
			return out, nil
		}
	}
}

// trimBatch removes up to batch trimmable records in tr.
func (t *Table) trimBatch(tr fdb.Transaction, in TrimStreamInput, cutoff time.Time, batch int) (int, seqNo, error) {
	st, err := t.streamState(tr, "TrimStream")
	if err != nil {
		return 0, seqNo{}, err
	}
	// Serializable: a concurrent registration conflicts with this trim.
	reg := tr.Get(st.keys.streamRegisterKey())
	shards := st.streamShards()
	markers := make([]fdb.FutureByteSlice, shards)
	trimmed := make([]fdb.FutureByteSlice, shards)
	for s := range shards {
		markers[s] = tr.Snapshot().Get(st.keys.streamMarkerKey(s))
		trimmed[s] = tr.Get(st.keys.streamTrimmedKey(s)) // concurrent trims conflict here
	}
	if _, err := reg.Get(); err != nil {
		return 0, seqNo{}, err
	}
	// The newest position a consumer allows, if any consumer is registered.
	var limitPos streamPos
	limited := false
	if !in.Force {
		cks, err := tr.Snapshot().GetRange(st.keys.consumerRange(), fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return 0, seqNo{}, err
		}
		for _, kv := range cks {
			p, err := decodeCheckpoint(kv.Value)
			if err != nil {
				return 0, seqNo{}, err
			}
			if !p.set {
				return 0, seqNo{}, nil // a consumer has not started: nothing may go
			}
			if !limited || p.seq.less(limitPos.seq) {
				limitPos = p
			}
			limited = true
		}
	}
	live := int64(0)
	for s := range shards {
		m, err := markers[s].Get()
		if err != nil {
			return 0, seqNo{}, err
		}
		n, err := trimmed[s].Get()
		if err != nil {
			return 0, seqNo{}, err
		}
		live += counter(m) - counter(n)
	}
	overCount := int64(0)
	if in.KeepLast > 0 {
		overCount = max(live-int64(in.KeepLast), 0)
	}
	pg, err := readStreamPage(tr, []*Table{t}, streamPos{}, batch)
	if err != nil {
		return 0, seqNo{}, err
	}
	type cut struct {
		last  seqNo
		count int64
	}
	cuts := map[int]*cut{}
	n := 0
	var last seqNo
	for _, r := range pg.records {
		byCount := int64(n) < overCount
		byAge := in.OlderThan > 0 && r.ApproximateCreationDateTime.Before(cutoff)
		if !byCount && !byAge || limited && limitPos.seq.less(r.seq) {
			break
		}
		c := cuts[r.shard]
		if c == nil {
			c = &cut{}
			cuts[r.shard] = c
		}
		c.last, c.count = r.seq, c.count+1
		last = r.seq
		n++
	}
	for s, c := range cuts {
		tr.ClearRange(st.keys.streamRangeThrough(s, c.last))
		tr.Add(st.keys.streamTrimmedKey(s), binary.LittleEndian.AppendUint64(nil, uint64(c.count)))
	}
	if n > 0 {
		tr.ByteMax(st.keys.streamHorizonKey(), last[:])
	}
	return n, last, nil
}

// counter returns the value of a little-endian atomic counter (absent is
// zero).
func counter(b []byte) int64 {
	var buf [8]byte
	copy(buf[:], b)
	return int64(binary.LittleEndian.Uint64(buf[:]))
}
