package fdyno

import (
	"reflect"

	"github.com/fdyno/fdyno/internal/validate"

	"github.com/fdyno/fdyno/internal/marshal"
)

// Marshaler is implemented by types that convert themselves to a DynamoDB
// value. Marshal calls MarshalDynamo instead of its own rules.
type Marshaler interface {
	MarshalDynamo() (Value, error)
}

// Unmarshaler is implemented by types that set themselves from a DynamoDB
// value. Unmarshal calls UnmarshalDynamo on a pointer to the target,
// including for NULL values.
type Unmarshaler interface {
	UnmarshalDynamo(Value) error
}

// Marshal returns the item of v, which must be a struct, a map with string
// keys, or a pointer to one. See [MarshalValue] for the rules.
func Marshal(v any) (Item, error) {
	val, err := valueModel.Marshal(reflect.ValueOf(v), 0)
	if err != nil {
		return nil, marshalFromInternal(err)
	}
	if val.typ != TypeM {
		return nil, &MarshalError{Type: reflect.TypeOf(v), Reason: "an item needs a struct or a map, not " + val.typ.String()}
	}
	return val.mapv(), nil
}

// MarshalValue returns the DynamoDB value of v:
//
//   - a [Marshaler] makes its own value; a [Value] or [Item] is used as is,
//     except that the zero Value is NULL;
//   - bool is BOOL; the integer and float types, [Number], json.Number,
//     *big.Int, *big.Float and *apd.Decimal are N, exactly (a value outside
//     DynamoDB's number range, or NaN or an infinity, is an error);
//   - string is S; []byte and byte arrays are B; time.Time is an S in
//     RFC 3339 form with nanoseconds, or an N of Unix seconds with the
//     unixtime option;
//   - other slices and arrays are L, or a set with the stringset, numberset
//     or binaryset option (maps of members to struct{} or true work too);
//   - maps with keys of string kind, and structs, are M;
//   - nil pointers, interfaces, slices and maps are NULL, and so are empty
//     sets, which DynamoDB cannot store; pointers and interfaces otherwise
//     marshal what they point to.
//
// A struct field is named by the fdyno tag, or else the dynamodbav tag of
// the AWS SDK's attributevalue package, or else its Go name:
//
//	Name  string   `fdyno:"name"`             // attribute "name"
//	Tags  []string `fdyno:"tags,stringset"`   // an SS
//	Score int      `dynamodbav:",omitempty"`  // "Score", left out when 0
//	Temp  string   `fdyno:"-"`                // never stored
//
// Options are omitempty (leave the field out when it is the zero value or
// empty), stringset, numberset, binaryset and unixtime. Unexported fields
// are skipped and embedded structs' fields are promoted, with Go's rules
// for conflicts (as in encoding/json). Errors are *[MarshalError].
func MarshalValue(v any) (Value, error) {
	val, err := valueModel.Marshal(reflect.ValueOf(v), 1)
	return val, marshalFromInternal(err)
}

// Unmarshal stores the item in the struct or map that v points to. See
// [UnmarshalValue] for the rules.
func Unmarshal(it Item, v any) error {
	return UnmarshalValue(M(it), v)
}

// UnmarshalValue stores val in the value that v points to, reversing the
// rules of [MarshalValue]. Attributes without a matching struct field are
// ignored; NULL sets the target to its zero value. It never truncates: an
// N that is not an integer or does not fit an integer target, an N beyond a
// float's range, or a list longer than an array are errors. Into an
// interface, values become string, [Number], []byte, bool, nil,
// map[string]any, []any, []string, []Number and [][]byte. Errors are
// *[UnmarshalError].
func UnmarshalValue(val Value, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &UnmarshalError{Value: val.typ, Type: reflect.TypeOf(v), Reason: "target must be a non-nil pointer"}
	}
	return marshalFromInternal(valueModel.Unmarshal(val, rv.Elem(), 1))
}

// valueModel is the root package's Value for package internal/marshal,
// which holds the rules above.
var valueModel = marshal.NewModel(marshal.Model[Value]{
	Values:           valueOps{},
	ItemType:         reflect.TypeFor[Item](),
	NumberType:       reflect.TypeFor[Number](),
	Marshaler:        reflect.TypeFor[Marshaler](),
	Unmarshaler:      reflect.TypeFor[Unmarshaler](),
	MaxDepth:         MaxNestingDepth,
	ReasonNesting:    validate.ReasonNesting,
	ReasonDuplicates: validate.ReasonDuplicates,
})

// marshalFromInternal returns err, an error of package internal/marshal,
// as the *[MarshalError] or *[UnmarshalError] users see; a value that
// breaks DynamoDB's rules carries a *[ValidationError].
func marshalFromInternal(err error) error {
	e, ok := err.(*marshal.Error)
	if !ok {
		return err
	}
	inner := e.Err
	if e.Invalid {
		inner = &ValidationError{Path: e.Path, Reason: e.Reason}
	}
	if e.Unmarshal {
		return &UnmarshalError{Path: e.Path, Value: Type(e.Value), Type: e.Type, Reason: e.Reason, Err: inner}
	}
	return &MarshalError{Path: e.Path, Type: e.Type, Reason: e.Reason, Err: inner}
}
