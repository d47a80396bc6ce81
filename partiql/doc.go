// Package partiql runs DynamoDB's PartiQL dialect (ExecuteStatement,
// BatchExecuteStatement and ExecuteTransaction) on fdyno tables.
//
// It is a layer on the Table API of package fdyno and nothing else: a
// statement is parsed (parse.go), planned into the DynamoDB requests
// that run it, with every WHERE condition and SET action written as a
// DynamoDB expression whose names and values sit behind placeholders
// (plan.go), and run through [fdyno.Table]'s Get, Query, Scan, Put,
// Update and Delete, [fdyno.TransactWrite] and [fdyno.TransactGet]. So
// conditions, validation, indexes, change records and round trips are
// exactly those of the operations beneath, and a PartiQL write takes the
// one write path every other write takes.
//
// An [Executor] resolves the table names statements give, either by
// opening them ([New]) or through the caller's own handles
// ([NewWithTables], as fdyno-server does). Like the rest of fdyno, every
// operation takes an fdb.Transactor: an fdb.Database runs it in its own
// transaction, which may be retried; an fdb.Transaction runs it inside
// the caller's.
//
// See https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html.
package partiql
