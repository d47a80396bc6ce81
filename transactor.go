package fdyno

import (
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// transactor.go decides, once, whose transaction an operation runs in.
// An operation is handed either a transaction, an fdb.Transaction, which
// is the caller's, or a Transactor that runs the operation's function in
// transactions of its own: fdb.Database, a wrapper of one (for tracing or
// metrics), a [RetryLoop]. fdyno sees which by what it was handed, not by
// what a Transactor wraps:
//
//  1. in a caller's transaction, an operation runs once, sets no option,
//     and commits (or not) with the caller's other writes;
//  2. in a transaction of its own, every attempt sets FoundationDB's
//     automatic_idempotency option before the operation runs, so a commit
//     that applied but reported commit_unknown_result is not applied again
//     by the retry: an acknowledged ADD adds once, a conditional create
//     succeeds once, a change record is written once;
//  3. the round trips are the same in both: nothing an operation reads or
//     writes depends on who owns its transaction (a change record's order
//     within its transaction is read with the item, stream.go).
//
// fdyno decides which by what the Transactor says of itself, never by what
// it wraps (issue 35): an fdb.Transaction, or a Transactor implementing
// [CallerTransactor], runs the function in its caller's transaction (case
// 1); any other Transactor must hand the function a transaction that it
// commits when the function returns, as fdb.Database.Transact does (case
// 2). A Transactor that breaks that promise (it hands over a transaction
// it does not commit, a wrapper of a caller's transaction that does not
// say so) is caught when it returns: the transaction it handed over is
// cancelled, so nothing the operation wrote can ever commit, and the
// operation fails with [ErrTransactorDidNotCommit]. It never deadlocks
// waiting for a commit that can only come after it returns.

// Transact runs f as fdyno runs its own operations. Given an
// fdb.Transaction, f runs in it once and its options are left as they are.
// Given any other fdb.Transactor, f runs through tx.Transact, which may
// retry it, and each attempt's transaction sets automatic_idempotency
// before f runs (see the rules above).
//
// Use it to compose several operations in one transaction with the
// idempotency fdyno gives a single one:
//
//	_, err := fdyno.Transact(db, func(tr fdb.Transaction) (any, error) {
//		if _, err := music.Delete(tr, del); err != nil {
//			return nil, err
//		}
//		return music.Put(tr, put)
//	})
//
// f may be retried: it must have no effect outside its transaction.
// Transact returns f's result as f typed it, so the caller asserts
// nothing; it is the one place that converts FoundationDB's untyped
// result.
func Transact[T any](tx fdb.Transactor, f func(fdb.Transaction) (T, error)) (T, error) {
	var zero T
	run := func(tr fdb.Transaction) (any, error) { return f(tr) }
	if JoinsCaller(tx) {
		return typed[T](tx.Transact(run)) // the caller's: untouched
	}
	var last fdb.Transaction
	var stamp fdb.FutureKey
	ret, err := tx.Transact(func(tr fdb.Transaction) (any, error) {
		// A future asked for before the commit, ready once the commit
		// is done (or the attempt reset): no round trip.
		last, stamp = tr, tr.GetVersionstamp()
		if err := tr.Options().SetAutomaticIdempotency(); err != nil {
			return nil, err
		}
		return run(tr)
	})
	if err == nil && stamp != nil && !stamp.IsReady() {
		// Returned without committing: the transaction is someone
		// else's. Make sure what f wrote never commits.
		last.Cancel()
		return zero, fmt.Errorf("%w: %T returned without committing the transaction it ran the operation in", ErrTransactorDidNotCommit, tx)
	}
	return typed[T](ret, err)
}

// typed converts a Transactor's result back to the T that Transact's f
// returned. v holds f's T, or is nil when T is an interface type and f
// returned its nil: the comma-ok form gives T's zero value for that case.
func typed[T any](v any, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	r, _ := v.(T)
	return r, nil
}

// CallerTransactor is implemented by an fdb.Transactor that runs functions
// in a transaction its caller owns and commits (a tracing or metrics
// wrapper of an fdb.Transaction, say). fdyno's operations given one join
// that transaction, as they join an fdb.Transaction: they set no option on
// it, and their effects commit with the caller's other writes or not at
// all. JoinsCaller must be constant for a given value.
type CallerTransactor interface {
	fdb.Transactor
	// JoinsCaller reports that Transact runs its function in the
	// caller's transaction and does not commit it.
	JoinsCaller() bool
}

// JoinsCaller reports whether fdyno's operations given tx join its
// caller's transaction (tx is an fdb.Transaction or a [CallerTransactor]
// saying so) rather than run transactions of their own. Layers built on
// fdyno (dcb, tree) decide by it too.
func JoinsCaller(tx fdb.Transactor) bool {
	switch t := tx.(type) {
	case fdb.Transaction:
		return true
	case CallerTransactor:
		return t.JoinsCaller()
	}
	return false
}

// ReadTransact is [Transact] for reads: f runs in rt's read transaction
// (an fdb.Transaction's, once, or one of its own, which rt may retry) and
// its result comes back as f typed it. A read transaction commits
// nothing, so no option is set. fdyno's reads and the packages built on
// it (dcb, tree, partiql) all read through it.
func ReadTransact[T any](rt fdb.ReadTransactor, f func(fdb.ReadTransaction) (T, error)) (T, error) {
	return typed[T](rt.ReadTransact(func(tr fdb.ReadTransaction) (any, error) { return f(tr) }))
}

// RetryLoop is an fdb.Transactor and fdb.ReadTransactor that runs
// FoundationDB's retry loop on DB, as fdb.Database does, and calls its
// hooks: a caller can configure every attempt (a timeout, say) and observe
// every failure (count retries and conflicts) without a retry loop of its
// own. fdyno's operations given a RetryLoop run in transactions of their
// own, as with an fdb.Database (see [Transact]).
//
// A RetryLoop is safe for concurrent use if its hooks are.
type RetryLoop struct {
	DB fdb.Database
	// Begin, if not nil, is called once per transaction, before its first
	// attempt; write is true for Transact and false for ReadTransact.
	Begin func(write bool)
	// Attempt, if not nil, is called at the start of every attempt with
	// its transaction, new or reset for a retry, before the function
	// runs. It may set options. An error ends the attempt as the
	// function's would.
	Attempt func(tr fdb.Transaction, write bool) error
	// Failed, if not nil, is called with the error of every attempt that
	// failed with a FoundationDB error (the function's, or for a write its
	// commit's; errors.As finds the fdb.Error), and whether the loop
	// retries it.
	Failed func(err error, write, retried bool)
}

// Transact runs f in a write transaction of l.DB and commits it, retrying
// on FoundationDB's retryable errors as fdb.Database.Transact does.
func (l RetryLoop) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return l.run(true, func(tr fdb.Transaction) (any, error) {
		ret, err := f(tr)
		if err == nil {
			err = tr.Commit().Get()
		}
		return ret, err
	})
}

// ReadTransact runs f in a read transaction of l.DB, retrying on
// FoundationDB's retryable errors as fdb.Database.ReadTransact does.
func (l RetryLoop) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return l.run(false, func(tr fdb.Transaction) (any, error) { return f(tr) })
}

// run is FoundationDB's retry loop: attempt runs in a new transaction; an
// error that is or wraps an fdb.Error goes to the transaction's OnError,
// which resets it for another attempt if the error is retryable and
// otherwise returns the error to give up with. The caller's error (which
// may wrap the fdb.Error) is kept unless OnError answers with another
// code, as in the bindings. A panic of an fdb.Error (a MustGet) counts as
// a returned error.
func (l RetryLoop) run(write bool, attempt func(fdb.Transaction) (any, error)) (any, error) {
	tr, err := l.DB.CreateTransaction()
	if err != nil {
		return nil, err // not retryable
	}
	if l.Begin != nil {
		l.Begin(write)
	}
	for {
		ret, err := l.attempt(tr, write, attempt)
		if err == nil {
			return ret, nil
		}
		var fe fdb.Error
		if !errors.As(err, &fe) {
			return ret, err // not FoundationDB's: not retried
		}
		onErr := tr.OnError(fe).Get()
		if l.Failed != nil {
			l.Failed(err, write, onErr == nil)
		}
		if onErr != nil {
			var oe fdb.Error
			if !errors.As(onErr, &oe) || oe.Code != fe.Code {
				return ret, onErr
			}
			return ret, err
		}
	}
}

// attempt runs one attempt of run, turning a panic of an fdb.Error into
// the attempt's error.
func (l RetryLoop) attempt(tr fdb.Transaction, write bool, attempt func(fdb.Transaction) (any, error)) (ret any, err error) {
	defer func() {
		if r := recover(); r != nil {
			fe, ok := r.(fdb.Error)
			if !ok {
				panic(r)
			}
			ret, err = nil, fe
		}
	}()
	if l.Attempt != nil {
		if err := l.Attempt(tr, write); err != nil {
			return nil, err
		}
	}
	return attempt(tr)
}
