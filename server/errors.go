package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/internal/avjson"
)

// errors.go maps errors to DynamoDB's wire errors: an HTTP status and a
// JSON body {"__type":"<namespace>#<Name>","message":"…"}. SDKs read the
// name after '#'; the namespaces are the ones DynamoDB uses: the service
// framework's (com.amazon.coral.service, com.amazon.coral.validate) for
// routing, authentication, serialization and validation, and DynamoDB's
// own (com.amazonaws.dynamodb.v20120810) for the rest.

// Namespaces of __type.
const (
	nsDynamoDB = "com.amazonaws.dynamodb.v20120810#"
	nsCoral    = "com.amazon.coral.service#"
	nsValidate = "com.amazon.coral.validate#"
)

// errType is one wire error: its __type and HTTP status.
type errType struct {
	name   string // __type
	status int
}

// short returns the exception's name without its namespace.
func (e errType) short() string {
	for i := len(e.name) - 1; i >= 0; i-- {
		if e.name[i] == '#' {
			return e.name[i+1:]
		}
	}
	return e.name
}

// The wire errors fdyno-server sends.
var (
	errValidation          = errType{nsValidate + "ValidationException", http.StatusBadRequest}
	errSerialization       = errType{nsCoral + "SerializationException", http.StatusBadRequest}
	errUnknownOperation    = errType{nsCoral + "UnknownOperationException", http.StatusBadRequest}
	errConditionalCheck    = errType{nsDynamoDB + "ConditionalCheckFailedException", http.StatusBadRequest}
	errResourceNotFound    = errType{nsDynamoDB + "ResourceNotFoundException", http.StatusBadRequest}
	errResourceInUse       = errType{nsDynamoDB + "ResourceInUseException", http.StatusBadRequest}
	errTransactionCanceled = errType{nsDynamoDB + "TransactionCanceledException", http.StatusBadRequest}
	errIdempotentMismatch  = errType{nsDynamoDB + "IdempotentParameterMismatchException", http.StatusBadRequest}
	errDuplicateItem       = errType{nsDynamoDB + "DuplicateItemException", http.StatusBadRequest}
	errMissingToken        = errType{nsCoral + "MissingAuthenticationTokenException", http.StatusBadRequest}
	errIncompleteSignature = errType{nsCoral + "IncompleteSignatureException", http.StatusBadRequest}
	errUnrecognizedClient  = errType{nsCoral + "UnrecognizedClientException", http.StatusBadRequest}
	errInvalidSignature    = errType{nsCoral + "InvalidSignatureException", http.StatusBadRequest}
	errTooLarge            = errType{nsCoral + "RequestEntityTooLargeException", http.StatusRequestEntityTooLarge}
	errInternal            = errType{nsDynamoDB + "InternalServerError", http.StatusInternalServerError}
)

// apiError is an error to send on the wire as it is.
type apiError struct {
	typ errType
	msg string
	// refusedAtAccess marks an AccessDeniedException of a guarded handle
	// (authz.go), for the audit log.
	refusedAtAccess bool
	// item is the Item of a ConditionalCheckFailedException when
	// ReturnValuesOnConditionCheckFailure asked for it.
	item fdyno.Item
	// reasons are the CancellationReasons of a
	// TransactionCanceledException.
	reasons []fdyno.CancellationReason
}

func (e *apiError) Error() string { return e.typ.short() + ": " + e.msg }

func asValidation(err error, ve **fdyno.ValidationError) bool {
	return err != nil && errors.As(err, ve)
}

// toAPIError maps an error of the library (or of the server) to the wire.
// FoundationDB errors and anything unexpected become a 500
// InternalServerError, which SDKs retry; its message names no internals.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var ccf *fdyno.ConditionalCheckFailedError
	if errors.As(err, &ccf) {
		return &apiError{typ: errConditionalCheck, msg: "The conditional request failed", item: ccf.Item}
	}
	var tce *fdyno.TransactionCanceledError
	if errors.As(err, &tce) {
		return canceled(tce)
	}
	var uv *fdyno.UniqueViolationError
	if errors.As(err, &uv) {
		return &apiError{typ: errConditionalCheck, msg: "The conditional request failed: another item has this key in unique index " + uv.Index}
	}
	var dk *fdyno.DuplicateKeysError
	if errors.As(err, &dk) {
		// A restore whose items share a key of a unique index: the
		// request cannot be done as asked (without the index it can).
		return &apiError{typ: errValidation, msg: "One or more parameter values were invalid: " + strconv.Itoa(len(dk.Keys)) +
			" of the restored items share a key in unique index " + dk.Index + "; restore without it (GlobalSecondaryIndexOverride)"}
	}
	if errors.Is(err, fdyno.ErrDuplicateItem) {
		return &apiError{typ: errDuplicateItem, msg: "Duplicate primary key exists in table"}
	}
	if errors.Is(err, fdyno.ErrIdempotentParameterMismatch) {
		return &apiError{typ: errIdempotentMismatch, msg: "Request with ClientRequestToken has already been used with different parameters"}
	}
	var ve *fdyno.ValidationError
	if errors.As(err, &ve) {
		return &apiError{typ: errValidation, msg: ve.Reason}
	}
	var te *fdyno.TableError
	if errors.As(err, &te) {
		switch {
		case errors.Is(err, fdyno.ErrResourceNotFound):
			return &apiError{typ: errResourceNotFound, msg: te.Reason}
		case errors.Is(err, fdyno.ErrResourceInUse):
			return &apiError{typ: errResourceInUse, msg: te.Reason}
		}
	}
	switch {
	case errors.Is(err, fdyno.ErrValidation):
		return &apiError{typ: errValidation, msg: "One or more parameter values were invalid"}
	case errors.Is(err, fdyno.ErrResourceNotFound):
		return &apiError{typ: errResourceNotFound, msg: "Requested resource not found"}
	case errors.Is(err, fdyno.ErrResourceInUse):
		return &apiError{typ: errResourceInUse, msg: "Resource in use"}
	case errors.Is(err, fdyno.ErrConditionalCheckFailed):
		return &apiError{typ: errConditionalCheck, msg: "The conditional request failed"}
	case errors.Is(err, fdyno.ErrTransactionCanceled):
		return &apiError{typ: errTransactionCanceled, msg: "Transaction cancelled"}
	}
	return &apiError{typ: errInternal, msg: "Internal server error"}
}

// body returns the JSON body of e.
func (e *apiError) body() []byte {
	b := []byte(`{"__type":`)
	b = avjson.AppendString(b, e.typ.name)
	if e.msg != "" {
		// DynamoDB's service framework writes a SerializationException's
		// text as "Message", DynamoDB's own errors as "message"; SDKs read
		// either.
		if e.typ == errSerialization {
			b = append(b, `,"Message":`...)
		} else {
			b = append(b, `,"message":`...)
		}
		b = avjson.AppendString(b, e.msg)
	}
	if e.item != nil {
		b = append(b, `,"Item":`...)
		b = appendItem(b, e.item)
	}
	if e.reasons != nil {
		b = append(b, `,"CancellationReasons":[`...)
		for i, r := range e.reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"Code":`...)
			b = avjson.AppendString(b, r.Code)
			if r.Message != "" {
				b = append(b, `,"Message":`...)
				b = avjson.AppendString(b, r.Message)
			}
			if r.Item != nil {
				b = append(b, `,"Item":`...)
				b = appendItem(b, r.Item)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// canceled is DynamoDB's TransactionCanceledException for e: its message
// lists the reasons' codes in request order, as DynamoDB's does, and its
// CancellationReasons carry each reason's message and, for ALL_OLD, the
// item.
func canceled(e *fdyno.TransactionCanceledError) *apiError {
	msg := []byte("Transaction cancelled, please refer cancellation reasons for specific reasons [")
	for i, r := range e.CancellationReasons {
		if i > 0 {
			msg = append(msg, ", "...)
		}
		msg = append(msg, r.Code...)
	}
	msg = append(msg, ']')
	reasons := e.CancellationReasons
	if reasons == nil {
		reasons = []fdyno.CancellationReason{}
	}
	return &apiError{typ: errTransactionCanceled, msg: string(msg), reasons: reasons}
}

// serializationOf maps an encoding/json error to DynamoDB's: a
// SerializationException, unless it came from an AttributeValue decoder
// (an *apiError of its own).
func serializationOf(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return unmarshalTypeError(te)
	}
	return &apiError{typ: errSerialization, msg: "Malformed JSON: " + err.Error()}
}

// dataPlane are the operations on items, whose ResourceNotFoundException
// says only "Requested resource not found", without naming the table as
// the control plane's does ("Requested resource not found: Table: T not
// found").
var dataPlane = map[string]bool{
	"GetItem": true, "PutItem": true, "UpdateItem": true, "DeleteItem": true, "Query": true, "Scan": true,
	"BatchGetItem": true, "BatchWriteItem": true, "TransactGetItems": true, "TransactWriteItems": true,
}

// opError adjusts ae to the wording DynamoDB uses for op.
func opError(op string, ae *apiError) *apiError {
	if ae.typ == errResourceNotFound && dataPlane[op] && ae.msg != "Requested resource not found" {
		cp := *ae
		cp.msg = "Requested resource not found"
		return &cp
	}
	return ae
}
