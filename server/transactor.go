package server

import (
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// transactor.go: the FoundationDB transactions the server runs for its
// requests. Every request's library call gets a transactor that
//
//  1. bounds each transaction, retries included, by the server's
//     transaction timeout, so a request cannot retry forever under
//     contention or a sick cluster (it fails with a 500 that SDKs retry);
//  2. sets FoundationDB's automatic_idempotency option on writes, so a
//     commit whose outcome was unknown (commit_unknown_result) is never
//     applied twice by the bindings' retry: an acknowledged UpdateItem
//     ADD adds exactly once, as in DynamoDB.

// DefaultTransactionTimeout bounds a request's FoundationDB transaction,
// its retries included, when Config.TransactionTimeout is zero.
const DefaultTransactionTimeout = 10 * time.Second

// transactor is an fdb.Transactor and fdb.ReadTransactor with the options
// above. It is safe for concurrent use, as fdb.Database is.
type transactor struct {
	db        fdb.Database
	timeoutMS int64
}

// Transact runs f in a write transaction with automatic idempotency and
// the timeout, retrying it as fdb.Database.Transact does.
func (t transactor) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return t.db.Transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetTimeout(t.timeoutMS); err != nil {
			return nil, err
		}
		if err := tr.Options().SetAutomaticIdempotency(); err != nil {
			return nil, err
		}
		return f(tr)
	})
}

// ReadTransact runs f in a read transaction with the timeout.
func (t transactor) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return t.db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		if tr, ok := rt.(fdb.Transaction); ok {
			if err := tr.Options().SetTimeout(t.timeoutMS); err != nil {
				return nil, err
			}
		}
		return f(rt)
	})
}
