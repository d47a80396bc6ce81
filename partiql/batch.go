package partiql

import (
	"errors"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// batch.go holds BatchExecuteStatement (statements run one by
// one, each with its own outcome) and ExecuteTransaction (statements run
// all or nothing, through TransactWrite or TransactGet).

// MaxBatchStatements is the most statements of a BatchExecuteStatement,
// DynamoDB's 25.
const MaxBatchStatements = 25

// BatchStatementRequest is one statement of a BatchExecuteStatement.
type BatchStatementRequest struct {
	Statement      string
	Parameters     []fdyno.Value
	ConsistentRead bool
	// ReturnValuesOnConditionCheckFailure ALL_OLD puts the item as it was
	// into the statement's error when its condition fails.
	ReturnValuesOnConditionCheckFailure fdyno.ReturnValuesOnConditionCheckFailure
}

// BatchExecuteStatementInput is the request of
// [Executor.BatchExecuteStatement].
type BatchExecuteStatementInput struct {
	// Statements are 1 to MaxBatchStatements statements, all SELECTs or
	// all writes (INSERT, UPDATE, DELETE).
	Statements []BatchStatementRequest
}

// The codes of a [BatchStatementError] (DynamoDB's
// BatchStatementErrorCodeEnum).
const (
	BatchErrorConditionalCheckFailed = "ConditionalCheckFailed"
	BatchErrorDuplicateItem          = "DuplicateItem"
	BatchErrorValidation             = "ValidationError"
	BatchErrorResourceNotFound       = "ResourceNotFound"
)

// BatchStatementError is why one statement of a batch failed.
type BatchStatementError struct {
	Code    string
	Message string
	// Item is the item as it was, for ConditionalCheckFailed with
	// ReturnValuesOnConditionCheckFailure ALL_OLD.
	Item fdyno.Item
}

// BatchStatementResponse is the outcome of one statement of a batch.
type BatchStatementResponse struct {
	TableName string
	// Item is the item a SELECT read, projected; nil if there is none.
	Item  fdyno.Item
	Error *BatchStatementError
}

// BatchExecuteStatementOutput is the result of
// [Executor.BatchExecuteStatement].
type BatchExecuteStatementOutput struct {
	// Responses has one entry per statement, in request order.
	Responses []BatchStatementResponse
}

// BatchExecuteStatement runs up to 25 statements, all reads or all
// writes. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html.
//
// Each SELECT must name one item by its full key (as a GetItem does); the
// SELECTs are read in one read transaction. Each write runs on its own:
// with an fdb.Database, in its own transaction (so some may succeed while
// others fail); with an fdb.Transaction, in the caller's. A statement
// that fails (it does not parse, names a missing table, fails its
// condition, inserts a duplicate) gets an Error in its response and
// does not fail the others.
//
// Errors: [fdyno.ErrValidation] for an empty or too long batch, or reads mixed
// with writes; FoundationDB errors, wrapped so that errors.As finds the
// fdb.Error.
func (q *Executor) BatchExecuteStatement(tx fdb.Transactor, in BatchExecuteStatementInput) (*BatchExecuteStatementOutput, error) {
	const op = "BatchExecuteStatement"
	switch n := len(in.Statements); {
	case n == 0:
		return nil, &fdyno.ValidationError{Op: op, Reason: "1 validation error detected: Value '[]' at 'statements' failed to satisfy constraint: Member must have length greater than or equal to 1"}
	case n > MaxBatchStatements:
		return nil, &fdyno.ValidationError{Op: op, Reason: "1 validation error detected: Value at 'statements' failed to satisfy constraint: Member must have length less than or equal to " + strconv.Itoa(MaxBatchStatements)}
	}
	out := &BatchExecuteStatementOutput{Responses: make([]BatchStatementResponse, len(in.Statements))}
	type read struct {
		i   int
		t   *fdyno.Table
		key fdyno.Item
		// filter is the rest of the WHERE clause, nil if none.
		filter *fdyno.Filter
		proj   []docPath
	}
	var reads []read
	var writes []*pqWriteReq
	var writeAt []int
	kinds := 0 // 1: reads, 2: writes
	for i, bs := range in.Statements {
		r := &out.Responses[i]
		s, err := q.parse(bs.Statement)
		if err == nil && s.params != len(bs.Parameters) {
			err = pqParamCountError()
		}
		if err != nil {
			r.Error = batchError(err)
			continue
		}
		kind := 2
		if s.kind == pqSelect {
			kind = 1
		}
		if kinds != 0 && kinds != kind {
			return nil, &fdyno.ValidationError{Op: op, Reason: "Batch statements must be all reads or all writes"}
		}
		kinds = kind
		r.TableName = s.table
		t, err := q.table(tx, s.table)
		if err != nil {
			r.Error = batchError(err)
			continue
		}
		if s.kind == pqSelect {
			if s.index != "" {
				r.Error = batchError(&fdyno.ValidationError{Reason: "Batch read statements cannot read an index"})
				continue
			}
			kp, err := planKey(s.where, t, bs.Parameters)
			var filter *fdyno.Filter
			if err == nil && kp.cond != "" {
				filter, err = fdyno.ParseFilter(kp.cond, kp.b.names, kp.b.values)
			}
			if err != nil {
				r.Error = batchError(err)
				continue
			}
			reads = append(reads, read{i: i, t: t, key: kp.key, filter: filter, proj: s.proj})
			continue
		}
		w, err := planWrite(t, op, s, bs.Parameters, bs.ReturnValuesOnConditionCheckFailure)
		if err == nil && w.check != nil {
			err = &fdyno.ValidationError{Reason: "EXISTS is only supported in ExecuteTransaction"}
		}
		if err != nil {
			r.Error = batchError(err)
			continue
		}
		writes, writeAt = append(writes, w), append(writeAt, i)
	}
	if len(reads) > 0 {
		// The closure may be retried: it only returns what it read.
		type got struct {
			item fdyno.Item
			err  error
		}
		res, err := fdyno.ReadTransact(tx, func(rtr fdb.ReadTransaction) ([]got, error) {
			res := make([]got, len(reads))
			for j, rd := range reads {
				g, err := rd.t.Get(rtr, fdyno.GetInput{Key: rd.key})
				if err != nil {
					if isFDBError(err) {
						return nil, err
					}
					res[j].err = err
					continue
				}
				res[j].item = g.Item
			}
			return res, nil
		})
		if err != nil {
			return nil, err
		}
		for j, rd := range reads {
			switch it := res[j].item; {
			case res[j].err != nil:
				out.Responses[rd.i].Error = batchError(res[j].err)
			case it == nil, rd.filter != nil && !rd.filter.Match(it):
				// No item, or the rest of the WHERE clause is false.
			default:
				out.Responses[rd.i].Item = pqProject(it, rd.proj)
			}
		}
	}
	for j, w := range writes {
		if _, err := w.run(tx); err != nil {
			if isFDBError(err) {
				return nil, err
			}
			out.Responses[writeAt[j]].Error = batchError(err)
		}
	}
	return out, nil
}

// isFDBError reports whether err is (or wraps) a FoundationDB error.
func isFDBError(err error) bool {
	var fe fdb.Error
	return errors.As(err, &fe)
}

// batchError returns the BatchStatementError of err.
func batchError(err error) *BatchStatementError {
	var ccf *fdyno.ConditionalCheckFailedError
	var ve *fdyno.ValidationError
	var te *fdyno.TableError
	switch {
	case errors.As(err, &ccf):
		return &BatchStatementError{Code: BatchErrorConditionalCheckFailed, Message: "The conditional request failed", Item: ccf.Item}
	case errors.Is(err, fdyno.ErrDuplicateItem):
		return &BatchStatementError{Code: BatchErrorDuplicateItem, Message: "Duplicate primary key exists in table"}
	case errors.As(err, &ve):
		return &BatchStatementError{Code: BatchErrorValidation, Message: ve.Reason}
	case errors.As(err, &te) && errors.Is(err, fdyno.ErrResourceNotFound):
		return &BatchStatementError{Code: BatchErrorResourceNotFound, Message: "Requested resource not found: " + te.Reason}
	case errors.Is(err, fdyno.ErrResourceNotFound):
		return &BatchStatementError{Code: BatchErrorResourceNotFound, Message: "Requested resource not found"}
	}
	return &BatchStatementError{Code: "InternalServerError", Message: err.Error()}
}

// ParameterizedStatement is one statement of an ExecuteTransaction.
type ParameterizedStatement struct {
	Statement  string
	Parameters []fdyno.Value
	// ReturnValuesOnConditionCheckFailure ALL_OLD puts the item as it was
	// into the statement's cancellation reason when its condition fails.
	ReturnValuesOnConditionCheckFailure fdyno.ReturnValuesOnConditionCheckFailure
}

// ExecuteTransactionInput is the request of [Executor.ExecuteTransaction].
type ExecuteTransactionInput struct {
	// TransactStatements are the statements: all SELECTs, or all writes
	// (INSERT, UPDATE, DELETE, and EXISTS(SELECT ...) condition checks).
	TransactStatements []ParameterizedStatement
	// ClientRequestToken makes a write transaction idempotent, as
	// [fdyno.TransactWriteInput.ClientRequestToken] (the same tokens).
	ClientRequestToken string
}

// ExecuteTransactionOutput is the result of [Executor.ExecuteTransaction].
type ExecuteTransactionOutput struct {
	// Responses has one entry per SELECT, in order; nil for writes.
	Responses []fdyno.ItemResponse
}

// ExecuteTransaction runs statements all or nothing, in one FoundationDB
// transaction. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteTransaction.html.
//
// Writes (INSERT, UPDATE, DELETE, EXISTS) run as one [fdyno.TransactWrite]: if
// any statement's condition fails (an INSERT whose item exists, an
// UPDATE of a missing item, a false WHERE clause), nothing is written and
// the error is a *[fdyno.TransactionCanceledError] with one reason per
// statement (DuplicateItem for such an INSERT). SELECTs, each naming one
// item by its full key, run as one [fdyno.TransactGet].
//
// With an fdb.Database the transaction is fdyno's own and may be retried
// (give a ClientRequestToken to make a retry after an unknown commit
// result a no-op); with an fdb.Transaction, the statements commit with
// the caller's transaction.
//
// Errors: *[fdyno.TransactionCanceledError]; [fdyno.ErrValidation] for an empty
// request, a statement that does not parse or plan, reads mixed with
// writes, or RETURNING; [fdyno.ErrResourceNotFound]; the errors of
// [fdyno.TransactWrite] and [fdyno.TransactGet].
func (q *Executor) ExecuteTransaction(tx fdb.Transactor, in ExecuteTransactionInput) (*ExecuteTransactionOutput, error) {
	const op = "ExecuteTransaction"
	if len(in.TransactStatements) == 0 {
		return nil, &fdyno.ValidationError{Op: op, Reason: "1 validation error detected: Value '[]' at 'transactStatements' failed to satisfy constraint: Member must have length greater than or equal to 1"}
	}
	var gets []fdyno.TransactGetItem
	var projs [][]docPath
	var conds []*fdyno.Filter
	var writes []fdyno.TransactWriteItem
	var inserts []bool
	reads := false
	for i, ps := range in.TransactStatements {
		fail := func(err error) (*ExecuteTransactionOutput, error) {
			if ve, ok := err.(*fdyno.ValidationError); ok && ve.Path == "" {
				return nil, &fdyno.ValidationError{Op: op, Path: "TransactStatements[" + strconv.Itoa(i) + "]", Reason: ve.Reason}
			}
			return nil, err
		}
		s, err := q.parse(ps.Statement)
		if err != nil {
			return fail(err)
		}
		if s.params != len(ps.Parameters) {
			return fail(pqParamCountError())
		}
		if s.returning != "" {
			return fail(&fdyno.ValidationError{Reason: "RETURNING is not supported in ExecuteTransaction"})
		}
		if i == 0 {
			reads = s.kind == pqSelect
		} else if reads != (s.kind == pqSelect) {
			return nil, &fdyno.ValidationError{Op: op, Reason: "Transactions must be all reads or all writes"}
		}
		t, err := q.table(tx, s.table)
		if err != nil {
			return nil, err
		}
		if s.kind == pqSelect {
			if s.index != "" {
				return fail(&fdyno.ValidationError{Reason: "Transactional read statements cannot read an index"})
			}
			kp, err := planKey(s.where, t, ps.Parameters)
			if err != nil {
				return fail(err)
			}
			var cd *fdyno.Filter
			if kp.cond != "" {
				cd, err = fdyno.ParseFilter(kp.cond, kp.b.names, kp.b.values)
				if err != nil {
					return fail(err)
				}
			}
			gets = append(gets, fdyno.TransactGetItem{Table: t, Key: kp.key})
			projs, conds = append(projs, s.proj), append(conds, cd)
			continue
		}
		w, err := planWrite(t, op, s, ps.Parameters, ps.ReturnValuesOnConditionCheckFailure)
		if err != nil {
			return fail(err)
		}
		var ti fdyno.TransactWriteItem
		switch {
		case w.put != nil:
			ti.Put = &fdyno.TransactPut{Table: t, Item: w.put.Item, ConditionExpression: w.put.ConditionExpression,
				ExpressionAttributeNames: w.put.ExpressionAttributeNames, ReturnValuesOnConditionCheckFailure: ps.ReturnValuesOnConditionCheckFailure}
		case w.update != nil:
			u := w.update
			ti.Update = &fdyno.TransactUpdate{Table: t, Key: u.Key, UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression,
				ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: u.ReturnValuesOnConditionCheckFailure}
		case w.del != nil:
			d := w.del
			ti.Delete = &fdyno.TransactDelete{Table: t, Key: d.Key, ConditionExpression: d.ConditionExpression,
				ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: d.ReturnValuesOnConditionCheckFailure}
		default:
			ti.ConditionCheck = w.check
		}
		writes, inserts = append(writes, ti), append(inserts, w.put != nil)
	}
	if len(gets) > 0 {
		g, err := fdyno.TransactGet(tx, fdyno.TransactGetInput{TransactItems: gets})
		if err != nil {
			return nil, err
		}
		out := &ExecuteTransactionOutput{Responses: make([]fdyno.ItemResponse, len(g.Responses))}
		for i, r := range g.Responses {
			if r.Item == nil || conds[i] != nil && !conds[i].Match(r.Item) {
				continue
			}
			out.Responses[i].Item = pqProject(r.Item, projs[i])
		}
		return out, nil
	}
	_, err := fdyno.TransactWrite(tx, fdyno.TransactWriteInput{TransactItems: writes, ClientRequestToken: in.ClientRequestToken})
	var tce *fdyno.TransactionCanceledError
	if errors.As(err, &tce) {
		// An INSERT's condition is that its item does not exist.
		for i, r := range tce.CancellationReasons {
			if i < len(inserts) && inserts[i] && r.Code == fdyno.CancellationCodeConditionalCheckFailed {
				tce.CancellationReasons[i] = fdyno.CancellationReason{Code: fdyno.CancellationCodeDuplicateItem, Message: "Duplicate primary key exists in table"}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return &ExecuteTransactionOutput{}, nil
}

// BatchExecuteStatement runs statements with an Executor made by
// New(opts...): see [Executor.BatchExecuteStatement].
func BatchExecuteStatement(tx fdb.Transactor, in BatchExecuteStatementInput, opts ...fdyno.Option) (*BatchExecuteStatementOutput, error) {
	return New(opts...).BatchExecuteStatement(tx, in)
}

// ExecuteTransaction runs statements with an Executor made by
// New(opts...): see [Executor.ExecuteTransaction].
func ExecuteTransaction(tx fdb.Transactor, in ExecuteTransactionInput, opts ...fdyno.Option) (*ExecuteTransactionOutput, error) {
	return New(opts...).ExecuteTransaction(tx, in)
}
