package fdyno

import (
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// query_batch.go holds QueryBatch: several Query pages read in one
// transaction with their range reads in flight together. Each query is
// planned as Query plans it (query.go); in the transaction, the
// metadata-version read and every range read start before any is waited
// on, then every page's rows are taken, then every page follows its rows
// (chunks, an index's base items) before any page waits on a chunk
// (loader.go's waves, across pages).

// QueryBatchInput is one query of a [QueryBatch]: the table to query and
// the request, as [Table.Query] takes it.
type QueryBatchInput struct {
	Table *Table
	Input QueryInput
}

// QueryBatch reads one page of each query, as [Table.Query] would, all in
// one read transaction and with every range read in flight at once: the
// batch costs one read version and one wave of range reads (plus one
// wave of chunks if a page holds a chunked item, and one of base items if
// a local secondary index page fetches them), however many queries it
// holds, where Query called in turn costs a wave each. The outputs are in
// the order of queries, each equal to what Query returns for that input
// at the transaction's read version: the same items, counts,
// LastEvaluatedKey and Cursor, which resumes that query with Query or in
// a later batch. Queries may name different tables, the same table more
// than once, and indexes. An empty batch reads nothing and returns no
// outputs.
//
// rt may be an fdb.Database (its own read transaction, retried as
// needed), an fdb.Transaction or a snapshot of one; every page is read in
// that one transaction.
//
// Errors: [ErrValidation] for a query without a Table, and the first
// error, in the order of queries, that Query would return for one of them:
// [ErrValidation] for a bad expression, key, start key or cursor;
// [ErrResourceNotFound] when a table was deleted; FoundationDB errors,
// wrapped so that errors.As finds the fdb.Error. No output is returned
// when any query fails. QueryBatch is safe for concurrent use.
func QueryBatch(rt fdb.ReadTransactor, queries []QueryBatchInput) ([]*QueryOutput, error) {
	if len(queries) == 0 {
		return []*QueryOutput{}, nil
	}
	sts := make([]*tableState, len(queries))
	plans := make([]*readPlan, len(queries))
	deferred := false
	for i := range queries {
		q := &queries[i]
		if q.Table == nil {
			return nil, &ValidationError{Op: "Query", Reason: "Queries[" + strconv.Itoa(i) + "] has no Table"}
		}
		sts[i] = q.Table.state.Load()
		p, err := q.Table.queryPlan(sts[i], &q.Input)
		if err != nil && q.Input.IndexName == "" && !deferred {
			return nil, err
		}
		// An index request the cached schema refuses may name an index
		// created or activated since: it is planned in the transaction,
		// and so is every later query that fails, so that the error
		// returned is the first in the order of queries.
		deferred = deferred || p == nil
		plans[i] = p
	}
	return ReadTransact(rt, func(tr fdb.ReadTransaction) ([]*QueryOutput, error) {
		return readQueryBatch(tr, queries, sts, plans)
	})
}

// readQueryBatch reads in tr the pages of queries planned as plans
// against states sts (a nil plan: the cached state refused an index
// query), as runPlan reads one page.
func readQueryBatch(tr fdb.ReadTransaction, queries []QueryBatchInput, sts []*tableState, plans []*readPlan) ([]*QueryOutput, error) {
	// One metadata-version read serves every table: the key is
	// cluster-wide (table_state.go).
	mvf := tr.Snapshot().Get(metadataVersionKey)
	takes := make([]func() (pageRead, error), len(queries))
	for i, p := range plans {
		if p != nil {
			if err := queries[i].Table.allowPlan(p); err != nil {
				return nil, err
			}
			takes[i] = p.begin(tr)
		}
	}
	for i := range queries {
		q := &queries[i]
		st, err := q.Table.current(tr, mvf)
		if err != nil {
			return nil, err
		}
		p := plans[i]
		if st != sts[i] || p == nil {
			if p, err = q.Table.queryPlan(st, &q.Input); err != nil {
				return nil, err
			}
			if err := q.Table.allowPlan(p); err != nil {
				return nil, err
			}
			takes[i] = p.begin(tr)
		}
	}
	prs := make([]pageRead, len(queries))
	for i, take := range takes {
		var err error
		if prs[i], err = take(); err != nil {
			return nil, err
		}
	}
	for _, pr := range prs {
		if err := pr.follow(); err != nil {
			return nil, err
		}
	}
	outs := make([]*QueryOutput, len(queries))
	for i, pr := range prs {
		pg, err := pr.finish()
		if err != nil {
			return nil, err
		}
		outs[i] = &QueryOutput{Items: pg.items, Count: pg.count, ScannedCount: pg.scanned, ScannedSize: pg.size, LastEvaluatedKey: pg.lastKey, Cursor: pg.cursor}
	}
	return outs, nil
}
