package server

import (
	"errors"
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
	m         *metrics // counts transactions, retries and conflicts; may be nil
}

// Transact runs f in a write transaction with automatic idempotency and
// the timeout, retrying it as fdb.Database.Transact does.
func (t transactor) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return t.retry("write", func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetTimeout(t.timeoutMS); err != nil {
			return nil, err
		}
		if err := tr.Options().SetAutomaticIdempotency(); err != nil {
			return nil, err
		}
		ret, err := f(tr)
		if err == nil {
			err = tr.Commit().Get()
		}
		return ret, err
	})
}

// ReadTransact runs f in a read transaction with the timeout.
func (t transactor) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return t.retry("read", func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetTimeout(t.timeoutMS); err != nil {
			return nil, err
		}
		return f(tr)
	})
}

// retry is FoundationDB's retry loop, the one fdb.Database.Transact and
// ReadTransact run, written out so that metrics.go sees each attempt's
// error: attempt runs (and, for a write, commits) in a new transaction;
// an error that is or wraps an fdb.Error goes to the transaction's
// OnError, which resets it for another attempt if the error is retryable
// and otherwise returns the error to give up with. A panic of an fdb.Error
// (a MustGet) counts as a returned error, as in the bindings.
func (t transactor) retry(kind string, attempt func(fdb.Transaction) (any, error)) (any, error) {
	tr, err := t.db.CreateTransaction()
	if err != nil {
		return nil, err // not retryable
	}
	t.m.transaction(kind)
	for {
		ret, err := runAttempt(tr, attempt)
		if err == nil {
			return ret, nil
		}
		var fe fdb.Error
		if !errors.As(err, &fe) {
			return ret, err // the library's own error: not retried
		}
		onErr := tr.OnError(fe).Get()
		t.m.attemptFailed(kind, err, onErr == nil)
		if onErr != nil {
			// Keep the caller's error (which may wrap fe) unless OnError
			// answered with another error, as the bindings do.
			var oe fdb.Error
			if !errors.As(onErr, &oe) || oe.Code != fe.Code {
				return ret, onErr
			}
			return ret, err
		}
	}
}

func runAttempt(tr fdb.Transaction, attempt func(fdb.Transaction) (any, error)) (ret any, err error) {
	defer func() {
		if r := recover(); r != nil {
			fe, ok := r.(fdb.Error)
			if !ok {
				panic(r)
			}
			ret, err = nil, fe
		}
	}()
	return attempt(tr)
}
