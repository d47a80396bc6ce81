package fdyno

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// Errors named after DynamoDB's exceptions. Use errors.Is to test for a
// category and errors.As to reach the detail type, the same shape as io/fs
// (fs.ErrNotExist and *fs.PathError).
var (
	// ErrValidation is DynamoDB's ValidationException: a malformed or
	// out-of-range parameter, item or value. Details are in *ValidationError.
	ErrValidation = errors.New("fdyno: ValidationException")
	// ErrConditionalCheckFailed is DynamoDB's ConditionalCheckFailedException.
	ErrConditionalCheckFailed = errors.New("fdyno: ConditionalCheckFailedException: the conditional request failed")
	// ErrResourceNotFound is DynamoDB's ResourceNotFoundException.
	ErrResourceNotFound = errors.New("fdyno: ResourceNotFoundException")
	// ErrTransactionCanceled is DynamoDB's TransactionCanceledException.
	ErrTransactionCanceled = errors.New("fdyno: TransactionCanceledException")
	// ErrResourceInUse is DynamoDB's ResourceInUseException: here, a table
	// opened with a schema that differs from the one it was created with.
	ErrResourceInUse = errors.New("fdyno: ResourceInUseException")
	// ErrIdempotentParameterMismatch is DynamoDB's
	// IdempotentParameterMismatchException: a ClientRequestToken reused,
	// within its retention window, for a different request.
	ErrIdempotentParameterMismatch = errors.New("fdyno: IdempotentParameterMismatchException")
	// ErrTransactorDidNotCommit reports an fdb.Transactor, other than an
	// fdb.Transaction or a [CallerTransactor], whose Transact returned
	// without committing the transaction it handed the operation: fdyno
	// cancelled that transaction, so nothing the operation wrote commits
	// (transactor.go).
	ErrTransactorDidNotCommit = errors.New("fdyno: the Transactor did not commit its transaction; implement fdyno.CallerTransactor to join a caller's transaction")
	// ErrTrimmedDataAccess is DynamoDB Streams' TrimmedDataAccessException:
	// a stream read resumed from a sequence number whose successors have
	// been trimmed (stream_trim.go).
	ErrTrimmedDataAccess = errors.New("fdyno: TrimmedDataAccessException")
	// ErrDuplicateItem is DynamoDB's DuplicateItemException: a PartiQL
	// INSERT of an item whose primary key already exists (package partiql).
	ErrDuplicateItem = errors.New("fdyno: DuplicateItemException: Duplicate primary key exists in table")
)

// ConditionalCheckFailedError reports that the ConditionExpression of a
// Put, Update or Delete evaluated to false. It unwraps to
// [ErrConditionalCheckFailed].
type ConditionalCheckFailedError struct {
	// Item is the item as it was, when the request set
	// ReturnValuesOnConditionCheckFailure to ALL_OLD and the item existed;
	// otherwise nil.
	Item Item
}

func (e *ConditionalCheckFailedError) Error() string {
	return "fdyno: ConditionalCheckFailedException: the conditional request failed"
}

// Unwrap returns [ErrConditionalCheckFailed].
func (e *ConditionalCheckFailedError) Unwrap() error { return ErrConditionalCheckFailed }

// TableError reports a table that does not exist ([ErrResourceNotFound]) or
// exists with another schema ([ErrResourceInUse]). It unwraps to that
// sentinel, never to a FoundationDB error.
type TableError struct {
	// Table is the table name.
	Table string
	// Reason says what is wrong, in DynamoDB's words where it has them.
	Reason string
	// Err is ErrResourceNotFound or ErrResourceInUse.
	Err error
}

func (e *TableError) Error() string {
	return e.Err.Error() + ": " + e.Reason
}

// Unwrap returns the category, [ErrResourceNotFound] or [ErrResourceInUse].
func (e *TableError) Unwrap() error { return e.Err }

// TransactionCanceledError reports a [TransactWrite] that was canceled
// and wrote nothing. It unwraps to [ErrTransactionCanceled] (never to the
// errors of its reasons, nor to a FoundationDB error).
type TransactionCanceledError struct {
	// CancellationReasons has one entry per action of the request, in
	// request order: Code "None" for an action that did not cause the
	// cancellation.
	CancellationReasons []CancellationReason
}

// CancellationReason says why one action of a transaction did or did not
// cancel it, as DynamoDB's CancellationReason.
type CancellationReason struct {
	// Code is one of the CancellationCode constants.
	Code string
	// Message says what failed, empty for "None".
	Message string
	// Item is the item as it was, for ConditionalCheckFailed when the
	// action set ReturnValuesOnConditionCheckFailure to ALL_OLD and the
	// item existed; otherwise nil.
	Item Item
}

// The codes of a [CancellationReason] that fdyno produces (DynamoDB's
// names; capacity and conflict codes do not arise on FoundationDB, where a
// conflict is retried).
const (
	CancellationCodeNone                   = "None"
	CancellationCodeConditionalCheckFailed = "ConditionalCheckFailed"
	CancellationCodeValidationError        = "ValidationError"
	// CancellationCodeDuplicateItem is the reason of a PartiQL INSERT, in
	// package partiql's ExecuteTransaction, of an item that exists.
	CancellationCodeDuplicateItem = "DuplicateItem"
)

func (e *TransactionCanceledError) Error() string {
	var b strings.Builder
	b.WriteString("fdyno: TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [")
	for i, r := range e.CancellationReasons {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.Code)
	}
	b.WriteString("]")
	return b.String()
}

// Unwrap returns [ErrTransactionCanceled].
func (e *TransactionCanceledError) Unwrap() error { return ErrTransactionCanceled }

func tableNotFound(name string) error {
	return &TableError{Table: name, Reason: "Requested resource not found: Table: " + name + " not found", Err: ErrResourceNotFound}
}

// ErrUniqueViolation reports a write refused because it would give a
// second item the key of an entry of a unique index (unique.go). Details
// are in *UniqueViolationError.
var ErrUniqueViolation = errors.New("fdyno: unique index violation")

// UniqueViolationError reports a write refused by unique index Index
// (unique.go): it would have given a second item the key of one of its
// entries. It unwraps to [ErrUniqueViolation] and, since the write is
// refused as a failed condition would be, to [ErrConditionalCheckFailed].
type UniqueViolationError struct {
	Index string
}

func (e *UniqueViolationError) Error() string {
	return "fdyno: ConditionalCheckFailedException: the conditional request failed: another item has this key in unique index " + e.Index
}

// Unwrap returns [ErrUniqueViolation] and [ErrConditionalCheckFailed].
func (e *UniqueViolationError) Unwrap() []error {
	return []error{ErrUniqueViolation, ErrConditionalCheckFailed}
}

// DuplicateKeysError reports items that share a key in a unique index
// (unique.go): found by its backfill, which removed the index, leaving
// the table as it was; or by a restore, which created no table. It
// unwraps to [ErrUniqueViolation].
type DuplicateKeysError struct {
	Index string
	// Keys are the primary keys of items that share an index key with
	// another: at least two, as the failing backfill batch found them,
	// or the items of the first index key a restore found shared.
	Keys []Item
}

func (e *DuplicateKeysError) Error() string {
	return "fdyno: unique index " + e.Index + " cannot be built: " + strconv.Itoa(len(e.Keys)) + " items share index keys"
}

// Unwrap returns [ErrUniqueViolation].
func (e *DuplicateKeysError) Unwrap() error { return ErrUniqueViolation }

// Errors of the exact counts (counts.go).
var (
	// ErrCountsNotReady reports a table whose counters are not yet exact:
	// it was created before fdyno kept counters, and [Table.BuildCounts]
	// has not finished building them.
	ErrCountsNotReady = errors.New("fdyno: exact counts are not ready for this table")
	// ErrCountsDisabled reports a table created without counts
	// ([TableSchema.WithoutCounts]).
	ErrCountsDisabled = errors.New("fdyno: the table was created without exact counts")
)

// Errors of fdyno's own storage formats.
var (
	// ErrCorrupt reports stored bytes that are not a valid encoding: a
	// truncated or damaged item, or a key that fdyno did not write. Details
	// are in *CorruptError.
	ErrCorrupt = errors.New("fdyno: corrupt data")
)

// ValidationError describes a broken DynamoDB validation rule. It unwraps to
// [ErrValidation].
type ValidationError struct {
	// Op is the operation that was being validated, such as "PutItem"; it
	// is empty when the value was validated on its own.
	Op string
	// Path is the document path of the offending attribute, such as
	// "tags" or "address.lines[2]"; it is empty for whole-item rules.
	Path string
	// Reason says which rule was broken, in DynamoDB's words where
	// DynamoDB has them.
	Reason string
	// early marks what DynamoDB finds in its input validation, before a
	// transaction runs: an empty key value. Inside TransactWriteItems it
	// is the request's ValidationException, not a cancellation reason.
	early bool
}

// markEarly marks the *ValidationError in err, if any, as found by
// DynamoDB's input validation (ValidationError.early) and returns err.
func markEarly(err error) error {
	var ve *ValidationError
	if errors.As(err, &ve) {
		ve.early = true
	}
	return err
}

// isEarly reports whether err holds a *ValidationError marked early.
func isEarly(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve) && ve.early
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("fdyno: ValidationException: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns [ErrValidation].
func (e *ValidationError) Unwrap() error { return ErrValidation }

// CorruptError describes why bytes could not be decoded. It unwraps to
// [ErrCorrupt].
type CorruptError struct {
	// What names the format: "item" or "key".
	What string
	// Offset is the byte offset at which decoding failed.
	Offset int
	// Reason says what was wrong.
	Reason string
}

func (e *CorruptError) Error() string {
	return "fdyno: corrupt " + e.What + " at byte " + strconv.Itoa(e.Offset) + ": " + e.Reason
}

// Unwrap returns [ErrCorrupt].
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// MarshalError reports a Go value that [Marshal] cannot represent as a
// DynamoDB value.
type MarshalError struct {
	// Path is the document path of the value, empty for the top level.
	Path string
	// Type is the Go type of the value.
	Type reflect.Type
	// Reason says why the value cannot be represented.
	Reason string
	// Err is the underlying error, if any, such as a *ValidationError for
	// a number outside DynamoDB's range.
	Err error
}

func (e *MarshalError) Error() string {
	return "fdyno: cannot marshal " + typeName(e.Type) + pathSuffix(e.Path) + ": " + e.Reason
}

// Unwrap returns the underlying error, if any.
func (e *MarshalError) Unwrap() error { return e.Err }

// UnmarshalError reports a DynamoDB value that [Unmarshal] cannot store in a
// Go value without losing information.
type UnmarshalError struct {
	// Path is the document path of the value, empty for the top level.
	Path string
	// Value is the DynamoDB type of the value.
	Value Type
	// Type is the Go type it was to be stored in.
	Type reflect.Type
	// Reason says why.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

func (e *UnmarshalError) Error() string {
	return "fdyno: cannot unmarshal " + e.Value.String() + pathSuffix(e.Path) + " into " + typeName(e.Type) + ": " + e.Reason
}

// Unwrap returns the underlying error, if any.
func (e *UnmarshalError) Unwrap() error { return e.Err }

func typeName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	return t.String()
}

func pathSuffix(p string) string {
	if p == "" {
		return ""
	}
	return " at " + p
}

// TrimmedDataAccessError reports a stream read that resumed at or before
// the trim horizon, so records it would have read are gone. It unwraps to
// [ErrTrimmedDataAccess].
type TrimmedDataAccessError struct {
	// Table is the table whose records were trimmed.
	Table string
	// TrimHorizon is the sequence number of the last trimmed record.
	TrimHorizon string
}

func (e *TrimmedDataAccessError) Error() string {
	return "fdyno: TrimmedDataAccessException: table " + e.Table + ": records up to sequence number " + e.TrimHorizon + " were trimmed"
}

// Unwrap returns [ErrTrimmedDataAccess].
func (e *TrimmedDataAccessError) Unwrap() error { return ErrTrimmedDataAccess }

// withOp sets the Op of a *ValidationError that has none.
func withOp(op string, err error) error {
	var ve *ValidationError
	if errors.As(err, &ve) && ve.Op == "" {
		ve.Op = op
	}
	return err
}
