// Package marshal converts between Go values and DynamoDB values by
// reflection: the rules of the root package's Marshal and Unmarshal (the
// Go types each DynamoDB type takes, struct tags, embedded structs, sets,
// times, numbers exactly). It is generic over the value type V, like
// package internal/expr, whose [expr.Ops] it extends with what building
// and reading every type needs ([Values]); the root package supplies them
// for its Value, with the reflect types of its own Item, Number, Marshaler
// and Unmarshaler ([Model]).
//
// Errors are [*Error]; the root package turns them into its
// *MarshalError and *UnmarshalError at its boundary.
package marshal

import (
	"reflect"

	"github.com/fdyno/fdyno/internal/expr"
)

// Values are the operations on values of type V that marshalling needs
// beyond [expr.Ops].
type Values[V any] interface {
	expr.Ops[V]
	// String, Binary, Bool and Null build an S, a B (of the bytes of b),
	// a BOOL and a NULL.
	String(s string) V
	Binary(b string) V
	Bool(b bool) V
	Null() V
	// BoolOf returns the value of a BOOL.
	BoolOf(v V) bool
	// Member returns member i of a set as a value of the member type.
	Member(set V, i int) V
	// MarshalSelf calls the marshalling method of rv, whose type
	// implements [Model.Marshaler].
	MarshalSelf(rv reflect.Value) (V, error)
	// UnmarshalSelf calls the unmarshalling method of rv, whose type
	// implements [Model.Unmarshaler].
	UnmarshalSelf(rv reflect.Value, v V) error
}

// Model is what package marshal knows of the caller's value model.
type Model[V any] struct {
	Values[V]
	// ItemType is the caller's item type, a map[string]V used as is.
	ItemType reflect.Type
	// NumberType is the caller's number type, a string type holding an
	// N's text: N values unmarshal into interfaces as one, NS into a
	// slice of them.
	NumberType reflect.Type
	// Marshaler and Unmarshaler are the interface types of Go values
	// that convert themselves.
	Marshaler, Unmarshaler reflect.Type
	// MaxDepth is the deepest nesting of values allowed.
	MaxDepth int
	// ReasonNesting and ReasonDuplicates are the caller's words for a
	// value nested too deep and a set with duplicate members.
	ReasonNesting, ReasonDuplicates string

	// valueType and mapType are V and map[string]V, set by NewModel.
	valueType, mapType reflect.Type
}

// NewModel returns m, ready for use.
func NewModel[V any](m Model[V]) *Model[V] {
	m.valueType, m.mapType = reflect.TypeFor[V](), reflect.TypeFor[map[string]V]()
	return &m
}

// Error is a Go value that cannot be marshalled, or a DynamoDB value that
// cannot be unmarshalled into a Go value.
type Error struct {
	// Unmarshal tells an unmarshalling error from a marshalling one.
	Unmarshal bool
	// Path is the document path of the value, empty for the top level.
	Path string
	// Type is the Go type of the value, or that it was to be stored in.
	Type reflect.Type
	// Value is the DynamoDB type of the value unmarshalled.
	Value expr.Type
	// Reason says why.
	Reason string
	// Err is the underlying error, if any.
	Err error
	// Invalid marks a value that breaks DynamoDB's rules (a number out of
	// range, a set with duplicates, nesting too deep): the caller's
	// validation error, with Path and Reason, is the underlying error.
	Invalid bool
}

func (e *Error) Error() string { return e.Reason }

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }
