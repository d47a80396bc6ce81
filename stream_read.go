package fdyno

import (
	"context"
	"iter"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Reading change records. One page is read in one transaction: every
// shard of every table read (one table for [Table.GetRecords], several for
// a [Feed]) at the same read version, merged by sequence number. Because
// all shards are read at one version, and a record committed later has a
// larger versionstamp than any record visible at that version, a page is
// always a prefix of the stream's order, and the next page, read later
// from the last record's sequence number, misses nothing.

// Stream read limits (DynamoDB's GetRecords).
const (
	// MaxGetRecordsLimit is the most records one GetRecords page returns,
	// and the default Limit.
	MaxGetRecordsLimit = 1000
	// maxRecordsPageBytes bounds the record bytes of one page (DynamoDB's
	// 1 MB); a page holds at least one record.
	maxRecordsPageBytes = 1 << 20
)

// GetRecordsInput is the request of [Table.GetRecords], DynamoDB Streams'
// GetRecords with the shard iterator replaced by a sequence number.
type GetRecordsInput struct {
	// ExclusiveStartSequenceNumber resumes after the record with this
	// sequence number; empty starts at the oldest record kept (DynamoDB's
	// TRIM_HORIZON).
	ExclusiveStartSequenceNumber string
	// Limit is the most records to return, 1 to [MaxGetRecordsLimit]
	// (zero means the maximum). A page also stops after about 1 MB.
	Limit int
}

// GetRecordsOutput is the result of [Table.GetRecords].
type GetRecordsOutput struct {
	// Records are in sequence-number order.
	Records []StreamRecord
	// LastEvaluatedSequenceNumber is the sequence number to resume after:
	// the last record's, or the request's own when no record was returned.
	LastEvaluatedSequenceNumber string
	// More reports that the stream had more records than this page held.
	More bool
}

// streamPos is a position in the merged order of one or more tables'
// streams: just after the record with sequence number seq of the table at
// index table, or the start if !set. Records of different tables changed
// in one transaction can share a sequence number; they are ordered by
// table index.
type streamPos struct {
	seq   seqNo
	table int
	set   bool
}

// after reports whether the record (seq, table) comes after p.
func (p streamPos) after(seq seqNo, table int) bool {
	if !p.set || p.seq.less(seq) {
		return true
	}
	return p.seq == seq && table > p.table
}

// streamPage is one page of merged records.
type streamPage struct {
	records []pageRecord
	// markers are the change markers of every shard read, which a tail
	// watches when the page is empty.
	markers []fdb.Key
	// more reports that some shard had records beyond the page.
	more bool
}

type pageRecord struct {
	StreamRecord
	seq   seqNo
	table int
	shard int
}

// rawRecord is a record's joined parts, not yet decoded.
type rawRecord struct {
	seq  seqNo
	data []byte
}

// readStreamPage reads, in rt, up to limit records after pos from the
// streams of tables, merged by (sequence number, table index). Errors:
// [ErrValidation] if a table has no stream; [ErrTrimmedDataAccess] if
// records after pos were trimmed; [ErrResourceNotFound] for a deleted
// table.
func readStreamPage(rt fdb.ReadTransaction, tables []*Table, pos streamPos, limit int) (streamPage, error) {
	for _, t := range tables {
		if err := t.allow(Access{Stream: true}); err != nil {
			return streamPage{}, err
		}
	}
	mvf := rt.Snapshot().Get(metadataVersionKey)
	states := make([]*tableState, len(tables))
	horizons := make([]fdb.FutureByteSlice, len(tables))
	for i, t := range tables {
		st, err := t.current(rt, mvf)
		if err != nil {
			return streamPage{}, err
		}
		if !st.hasStream() {
			ok, err := t.readableDisabled(rt, st)
			if err != nil {
				return streamPage{}, err
			}
			if !ok {
				return streamPage{}, &ValidationError{Op: "GetRecords", Reason: "Table " + t.name + " has no stream (StreamViewType is not set)"}
			}
		}
		states[i] = st
		if pos.set {
			horizons[i] = rt.Snapshot().Get(st.keys.streamHorizonKey())
		}
	}
	// Every shard's range read starts now, with the horizon reads, before
	// any wait: the page is one wave of reads. WantAll: a page is read
	// whole, so each shard's first batch is as large as FoundationDB sends.
	var readers []*shardReader
	for i, st := range states {
		for s := range st.streamShards() {
			begin := st.keys.streamShardPrefix(s)
			if pos.set {
				if i <= pos.table {
					begin = st.keys.streamKeyAfter(s, pos.seq)
				} else {
					begin = st.keys.streamKeyAt(s, pos.seq)
				}
			}
			r := st.keys.streamShardRange(s)
			r.Begin = begin
			readers = append(readers, &shardReader{keys: st.keys, shard: s, table: i, it: rt.GetRange(r, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()})
		}
	}
	for i, f := range horizons {
		if f == nil {
			continue
		}
		h, err := f.Get()
		if err != nil {
			return streamPage{}, err
		}
		var hs seqNo
		if len(h) == len(hs) {
			copy(hs[:], h)
			// Records up to hs were trimmed: resuming at or before one of
			// them would skip it.
			if pos.after(hs, i) {
				return streamPage{}, &TrimmedDataAccessError{Table: tables[i].name, TrimHorizon: hs.String()}
			}
		}
	}
	// One lazy reader per shard; the k-way merge takes the least head,
	// then advances only that shard, so each shard is read as far as the
	// page needs, and whether more records follow is known from the heads
	// left.
	for _, sr := range readers {
		if err := sr.advance(); err != nil {
			return streamPage{}, err
		}
	}
	var pg streamPage
	for _, sr := range readers {
		pg.markers = append(pg.markers, sr.keys.streamMarkerKey(sr.shard))
	}
	bytes := 0
	for len(pg.records) < limit && bytes < maxRecordsPageBytes {
		var best *shardReader
		for _, sr := range readers {
			if sr.head != nil && (best == nil || sr.head.seq.less(best.head.seq)) {
				best = sr // ties keep the lower table index
			}
		}
		if best == nil {
			break
		}
		raw := best.head
		rec, err := decodeRecord(tables[best.table].name, raw.seq, raw.data)
		if err != nil {
			return streamPage{}, err
		}
		pg.records = append(pg.records, pageRecord{StreamRecord: rec, seq: raw.seq, table: best.table, shard: best.shard})
		bytes += len(raw.data)
		if err := best.advance(); err != nil {
			return streamPage{}, err
		}
	}
	for _, sr := range readers {
		pg.more = pg.more || sr.head != nil
	}
	return pg, nil
}

// shardReader reads the records of one shard in order, one at a time.
type shardReader struct {
	keys         tableKeys
	shard, table int
	it           *fdb.RangeIterator
	head         *rawRecord // the next record, nil at the end of the range
}

// advance reads the next whole record into head (nil at the end). Parts
// are checked: consecutive from 0 with one sequence number, the last one
// flagged as such.
func (r *shardReader) advance() error {
	r.head = nil
	var cur *rawRecord
	parts := 0
	for r.it.Advance() {
		kv, err := r.it.Get()
		if err != nil {
			return err
		}
		vs, part, err := r.keys.splitStreamKey(r.shard, kv.Key)
		if err != nil {
			return err
		}
		seq := seqNo(vs)
		if len(kv.Value) == 0 || kv.Value[0] > partLast {
			return &CorruptError{What: "stream record", Reason: "bad part flag at " + seq.String()}
		}
		switch {
		case cur == nil && part != 0:
			return &CorruptError{What: "stream record", Reason: "record " + seq.String() + " has no first part"}
		case cur == nil:
			cur = &rawRecord{seq: seq}
		case seq != cur.seq || part != parts:
			return &CorruptError{What: "stream record", Reason: "record " + cur.seq.String() + " lacks part " + strconv.Itoa(parts)}
		}
		if parts == 0 && kv.Value[0] == partLast {
			cur.data = kv.Value[1:] // one part: the bindings' copy is ours
		} else {
			cur.data = append(cur.data, kv.Value[1:]...)
		}
		parts++
		if kv.Value[0] == partLast {
			r.head = cur
			return nil
		}
	}
	if cur != nil {
		return &CorruptError{What: "stream record", Reason: "record " + cur.seq.String() + " lacks its last part"}
	}
	return nil
}

// checkLimit applies GetRecords' Limit rule; zero is the maximum.
func checkLimit(op string, limit int) (int, error) {
	switch {
	case limit == 0:
		return MaxGetRecordsLimit, nil
	case limit < 0 || limit > MaxGetRecordsLimit:
		return 0, &ValidationError{Op: op, Path: "Limit", Reason: "1 validation error detected: Value '" + strconv.Itoa(limit) +
			"' at 'limit' failed to satisfy constraint: Member must have value between 1 and 1000"}
	}
	return limit, nil
}

// startPos returns the position after sequence number s ("" is the
// start).
func startPos(field, s string) (streamPos, error) {
	if s == "" {
		return streamPos{}, nil
	}
	seq, err := parseSequenceNumber(field, s)
	if err != nil {
		return streamPos{}, err
	}
	return streamPos{seq: seq, set: true}, nil
}

// GetRecords returns the table's change records after
// ExclusiveStartSequenceNumber, in order, read in one transaction of rt.
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html.
//
// Errors: [ErrValidation] for a bad sequence number or Limit, or a table
// without a stream (a disabled stream is read for
// [DisabledStreamRetention] after its disabling, as DynamoDB does); [ErrTrimmedDataAccess] when records after the
// sequence number have been trimmed ([Table.TrimStream]);
// [ErrResourceNotFound] for a deleted table; FoundationDB errors, wrapped.
// With an fdb.Database, GetRecords may be retried. It is safe for
// concurrent use.
func (t *Table) GetRecords(rt fdb.ReadTransactor, in GetRecordsInput) (*GetRecordsOutput, error) {
	limit, err := checkLimit("GetRecords", in.Limit)
	if err != nil {
		return nil, err
	}
	pos, err := startPos("ExclusiveStartSequenceNumber", in.ExclusiveStartSequenceNumber)
	if err != nil {
		return nil, err
	}
	pg, err := ReadTransact(rt, func(tr fdb.ReadTransaction) (streamPage, error) {
		return readStreamPage(tr, []*Table{t}, pos, limit)
	})
	if err != nil {
		return nil, err
	}
	out := &GetRecordsOutput{Records: make([]StreamRecord, len(pg.records)), LastEvaluatedSequenceNumber: in.ExclusiveStartSequenceNumber, More: pg.more}
	for i, r := range pg.records {
		out.Records[i] = r.StreamRecord
	}
	if n := len(out.Records); n > 0 {
		out.LastEvaluatedSequenceNumber = out.Records[n-1].SequenceNumber
	}
	return out, nil
}

// Records returns every change record after sequence number after ("" is
// the start) up to the end of the stream as it is when the last page is
// read, one transaction of rt per page, and then stops. A failed page
// yields its error and ends the sequence. ctx is checked between pages.
// See [Table.GetRecords] for the errors; [Table.Tail] keeps waiting for
// new records instead of stopping.
func (t *Table) Records(ctx context.Context, rt fdb.ReadTransactor, after string) iter.Seq2[StreamRecord, error] {
	return func(yield func(StreamRecord, error) bool) {
		pos, err := startPos("ExclusiveStartSequenceNumber", after)
		if err != nil {
			yield(StreamRecord{}, err)
			return
		}
		for pg, err := range streamPages(ctx, rt, []*Table{t}, pos) {
			if err != nil {
				yield(StreamRecord{}, err)
				return
			}
			for _, r := range pg.records {
				if !yield(r.StreamRecord, nil) {
					return
				}
			}
		}
	}
}

// streamPages returns the pages of the merged stream of tables after pos,
// up to its end as it is when the last page is read, one transaction of
// rt per page. A failed page, or ctx done between pages, yields its error
// and ends the sequence.
func streamPages(ctx context.Context, rt fdb.ReadTransactor, tables []*Table, pos streamPos) iter.Seq2[streamPage, error] {
	return func(yield func(streamPage, error) bool) {
		for {
			if err := ctx.Err(); err != nil {
				yield(streamPage{}, err)
				return
			}
			pg, err := ReadTransact(rt, func(tr fdb.ReadTransaction) (streamPage, error) {
				return readStreamPage(tr, tables, pos, MaxGetRecordsLimit)
			})
			if err != nil {
				yield(streamPage{}, err)
				return
			}
			if !yield(pg, nil) || !pg.more {
				return
			}
			if n := len(pg.records); n > 0 {
				pos = streamPos{seq: pg.records[n-1].seq, table: pg.records[n-1].table, set: true}
			}
		}
	}
}
