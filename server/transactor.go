package server

import (
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// transactor.go: the FoundationDB transactions the server runs for its
// requests. The server keeps no retry loop of its own: every request's
// library call gets fdyno's (fdyno.RetryLoop), whose hooks
//
//  1. bound each transaction, retries included, by the server's
//     transaction timeout, so a request cannot retry forever under
//     contention or a sick cluster (it fails with a 500 that SDKs retry);
//  2. count transactions, retries and conflicts (metrics.go).
//
// fdyno sets FoundationDB's automatic_idempotency option on the
// transactions it runs for an operation, so a commit whose outcome was
// unknown (commit_unknown_result) is never applied twice by the retry: an
// acknowledged UpdateItem ADD adds exactly once, as in DynamoDB. The
// server's own transactions (CreateTable, DeleteTable) run through
// fdyno.Transact for the same reason.

// DefaultTransactionTimeout bounds a request's FoundationDB transaction,
// its retries included, when Config.TransactionTimeout is zero.
const DefaultTransactionTimeout = 10 * time.Second

// newTransactor returns the fdb.Transactor and fdb.ReadTransactor of the
// server's requests on db, with the timeout and counting in m (which may
// be nil). It is safe for concurrent use, as fdb.Database is.
func newTransactor(db fdb.Database, timeout time.Duration, m *metrics) fdyno.RetryLoop {
	ms := timeout.Milliseconds()
	return fdyno.RetryLoop{
		DB:    db,
		Begin: func(write bool) { m.transaction(kindOf(write)) },
		Attempt: func(tr fdb.Transaction, _ bool) error {
			return tr.Options().SetTimeout(ms)
		},
		Failed: func(err error, write, retried bool) { m.attemptFailed(kindOf(write), err, retried) },
	}
}

// kindOf is the metrics label of a transaction: write or read.
func kindOf(write bool) string {
	if write {
		return "write"
	}
	return "read"
}
