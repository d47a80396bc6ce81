package fdyno

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"iter"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// A merged feed: the change records of several tables in one order, a
// k-way merge of all their shards by sequence number. Versionstamps are
// cluster-wide, so sequence numbers of different tables compare by commit
// order; records of different tables changed in one transaction share the
// versionstamp and are ordered by the tables' positions in the feed, then
// by their order within the transaction.
//
// A feed cursor is
//
//	0x01 (format version) | fingerprint: 8 bytes | sequence number: 12 bytes | table index: 2 bytes, big-endian
//
// the position just after the record (sequence number, table index). The
// fingerprint is a truncated SHA-256 of the tables' directory paths in
// feed order, so a cursor resumes only the feed that made it.

// MaxFeedTables is the most tables one [Feed] merges.
const MaxFeedTables = 100

const (
	feedCursorVersion = 0x01
	feedCursorLen     = 1 + 8 + tupleVersionstampLen + 2
)

// Feed merges the change streams of several tables into one ordered feed.
// A Feed is safe for concurrent use by multiple goroutines.
type Feed struct {
	tables []*Table
	fp     [8]byte
}

// FeedRecord is a record of a [Feed] with the cursor that resumes the
// feed after it.
type FeedRecord struct {
	StreamRecord
	Cursor []byte
}

// FeedInput is the request of [Feed.GetRecords].
type FeedInput struct {
	// ExclusiveStartCursor resumes after the record whose Cursor it is;
	// nil starts at the beginning of every table's stream.
	ExclusiveStartCursor []byte
	// Limit is as for [GetRecordsInput].
	Limit int
}

// FeedOutput is the result of [Feed.GetRecords].
type FeedOutput struct {
	Records []FeedRecord
	// LastEvaluatedCursor resumes after this page: the last record's
	// cursor, or the request's own when no record was returned.
	LastEvaluatedCursor []byte
	// More reports that the feed had more records than this page held.
	More bool
}

// NewFeed returns the merged feed of tables, in this order for records
// of one transaction. Each table must have a stream when the feed is
// read. Errors: [ErrValidation] for no tables, more than [MaxFeedTables],
// or one table twice.
func NewFeed(tables ...*Table) (*Feed, error) {
	if len(tables) == 0 || len(tables) > MaxFeedTables {
		return nil, &ValidationError{Op: "NewFeed", Reason: "a feed merges 1 to " + strconv.Itoa(MaxFeedTables) + " tables"}
	}
	h := sha256.New()
	seen := map[string]bool{}
	for _, t := range tables {
		p := joinPath(t.path)
		if seen[p] {
			return nil, &ValidationError{Op: "NewFeed", Reason: "table " + p + " appears twice"}
		}
		seen[p] = true
		h.Write(binary.AppendUvarint(nil, uint64(len(p))))
		h.Write([]byte(p))
	}
	f := &Feed{tables: append([]*Table(nil), tables...)}
	copy(f.fp[:], h.Sum(nil))
	return f, nil
}

func (f *Feed) encodeCursor(p streamPos) []byte {
	b := make([]byte, 0, feedCursorLen)
	b = append(append(append(b, feedCursorVersion), f.fp[:]...), p.seq[:]...)
	return binary.BigEndian.AppendUint16(b, uint16(p.table))
}

// decodeCursor returns the position of cursor b (nil is the start).
// Anything but a cursor of this feed is a *ValidationError.
func (f *Feed) decodeCursor(b []byte) (streamPos, error) {
	fail := func(reason string) (streamPos, error) {
		return streamPos{}, &ValidationError{Path: "ExclusiveStartCursor", Reason: "The provided cursor is invalid: " + reason}
	}
	if b == nil {
		return streamPos{}, nil
	}
	if len(b) != feedCursorLen || b[0] != feedCursorVersion {
		return fail("unknown format")
	}
	if !bytes.Equal(b[1:9], f.fp[:]) {
		return fail("it belongs to another feed")
	}
	p := streamPos{set: true, table: int(binary.BigEndian.Uint16(b[feedCursorLen-2:]))}
	copy(p.seq[:], b[9:9+tupleVersionstampLen])
	if p.table >= len(f.tables) {
		return fail("bad table index")
	}
	return p, nil
}

func (f *Feed) records(pg streamPage) []FeedRecord {
	out := make([]FeedRecord, len(pg.records))
	for i, r := range pg.records {
		out[i] = FeedRecord{StreamRecord: r.StreamRecord, Cursor: f.encodeCursor(streamPos{seq: r.seq, table: r.table, set: true})}
	}
	return out
}

// GetRecords returns the feed's records after ExclusiveStartCursor, in
// order, read in one transaction of rt (all tables at one read version).
// Errors are as for [Table.GetRecords], and [ErrValidation] for a cursor
// of another feed. It is safe for concurrent use.
func (f *Feed) GetRecords(rt fdb.ReadTransactor, in FeedInput) (*FeedOutput, error) {
	limit, err := checkLimit("GetRecords", in.Limit)
	if err != nil {
		return nil, err
	}
	pos, err := f.decodeCursor(in.ExclusiveStartCursor)
	if err != nil {
		return nil, err
	}
	pg, err := ReadTransact(rt, func(tr fdb.ReadTransaction) (streamPage, error) {
		return readStreamPage(tr, f.tables, pos, limit)
	})
	if err != nil {
		return nil, err
	}
	out := &FeedOutput{Records: f.records(pg), LastEvaluatedCursor: in.ExclusiveStartCursor, More: pg.more}
	if n := len(out.Records); n > 0 {
		out.LastEvaluatedCursor = out.Records[n-1].Cursor
	}
	return out, nil
}

// Records returns the feed's records after cursor after (nil is the
// start) up to the current end, one transaction of rt per page, like
// [Table.Records].
func (f *Feed) Records(ctx context.Context, rt fdb.ReadTransactor, after []byte) iter.Seq2[FeedRecord, error] {
	return func(yield func(FeedRecord, error) bool) {
		pos, err := f.decodeCursor(after)
		if err != nil {
			yield(FeedRecord{}, err)
			return
		}
		for pg, err := range streamPages(ctx, rt, f.tables, pos) {
			if err != nil {
				yield(FeedRecord{}, err)
				return
			}
			for _, r := range f.records(pg) {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}

// Tail returns the feed's records after cursor after as they commit,
// like [Table.Tail], watching the change markers of every shard of every
// table while it waits.
func (f *Feed) Tail(ctx context.Context, db fdb.Database, after []byte) iter.Seq2[FeedRecord, error] {
	return func(yield func(FeedRecord, error) bool) {
		pos, err := f.decodeCursor(after)
		if err != nil {
			yield(FeedRecord{}, err)
			return
		}
		for r, err := range tail(ctx, db, f.tables, pos) {
			fr := FeedRecord{StreamRecord: r.StreamRecord}
			if err == nil {
				fr.Cursor = f.encodeCursor(streamPos{seq: r.seq, table: r.table, set: true})
			}
			if !yield(fr, err) || err != nil {
				return
			}
		}
	}
}
