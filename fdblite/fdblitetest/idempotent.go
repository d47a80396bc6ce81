package fdblitetest

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// Idempotent is an fdb.Transactor whose write transactions set the
// automatic_idempotency option (505), so a commit that applied is never
// reported as commit_unknown_result and never run twice by the retry loop.
// Read transactions go to DB unchanged.
//
// Idempotent is safe for concurrent use by multiple goroutines, as DB is.
type Idempotent struct{ DB fdb.Database }

// ReadTransact runs f in a read transaction of DB, retried as
// fdb.Database.ReadTransact retries it.
func (d Idempotent) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return d.DB.ReadTransact(f)
}

// Transact runs f in a transaction of DB with automatic_idempotency set,
// retried as fdb.Database.Transact retries it.
func (d Idempotent) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	return d.DB.Transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetAutomaticIdempotency(); err != nil {
			return nil, err
		}
		return f(tr)
	})
}
