package fdyno

import (
	"context"
	"errors"
	"iter"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Tailing. A tail reads a page of records in one transaction; when the
// page is empty it sets, in that same transaction, a FoundationDB watch on
// the change marker of every shard it read, commits (arming the watches)
// and blocks until one fires or ctx is done. The watches record the
// markers as of the page's read version, and every record committed later
// bumps its shard's marker, so no record can slip in between the empty
// read and the wait: the tail never polls, and never misses a change.

// Tail returns the table's change records after sequence number after
// ("" is the start) in order, as they commit, until ctx is done (then it
// yields ctx.Err() and ends) or a read fails with a non-retryable error
// (yielded, then the sequence ends). Each page is one transaction of db;
// a record's SequenceNumber resumes the tail after it, also in another
// process.
//
// Errors are as for [Table.GetRecords]. Tail is safe for concurrent use;
// each tail holds one watch per stream shard while it waits.
func (t *Table) Tail(ctx context.Context, db fdb.Database, after string) iter.Seq2[StreamRecord, error] {
	return func(yield func(StreamRecord, error) bool) {
		pos, err := startPos("ExclusiveStartSequenceNumber", after)
		if err != nil {
			yield(StreamRecord{}, err)
			return
		}
		for r, err := range tail(ctx, db, []*Table{t}, pos) {
			if !yield(r.StreamRecord, err) || err != nil {
				return
			}
		}
	}
}

// tail yields the merged records of tables after pos as they commit.
func tail(ctx context.Context, db fdb.Database, tables []*Table, pos streamPos) iter.Seq2[pageRecord, error] {
	return func(yield func(pageRecord, error) bool) {
		for {
			if err := ctx.Err(); err != nil {
				yield(pageRecord{}, err)
				return
			}
			var watches []fdb.FutureNil
			pg, err := Transact(db, func(tr fdb.Transaction) (streamPage, error) {
				watches = nil // a retried attempt's watches were cancelled
				pg, err := readStreamPage(tr, tables, pos, MaxGetRecordsLimit)
				if err != nil || len(pg.records) > 0 {
					return pg, err
				}
				for _, k := range pg.markers {
					watches = append(watches, tr.Watch(k))
				}
				return pg, nil
			})
			if err != nil {
				yield(pageRecord{}, err)
				return
			}
			for _, r := range pg.records {
				if !yield(r, nil) {
					return
				}
				pos = streamPos{seq: r.seq, table: r.table, set: true}
			}
			if len(pg.records) == 0 {
				if err := waitAny(ctx, watches); err != nil {
					yield(pageRecord{}, err)
					return
				}
			}
		}
	}
}

// waitAny blocks until one of the armed watches fires or ctx is done, and
// cancels the others. A watch that fails is reported only if the failure
// would recur (too_many_watches); otherwise the caller just reads again.
func waitAny(ctx context.Context, watches []fdb.FutureNil) error {
	fired := make(chan error, len(watches))
	for _, w := range watches {
		go func() { fired <- w.Get() }()
	}
	var err error
	select {
	case err = <-fired:
	case <-ctx.Done():
	}
	for _, w := range watches {
		w.Cancel()
	}
	var fe fdb.Error
	if errors.As(err, &fe) && fe.Code == 1032 {
		return err
	}
	return nil
}
