package server

import (
	"encoding/json"
	"reflect"
	"strings"
)

// serialization.go: DynamoDB's SerializationException for a JSON value of
// the wrong type. DynamoDB's JSON reader (Java) deserializes the body
// against the operation's model and words a mismatch by what it found:
//
//	a list where none is expected:      Start of list found where not expected
//	an object where none is expected:   Start of structure or map found where not expected
//	a scalar of the wrong kind:         class java.lang.String can not be converted to an Integer
//
// The scalar's class is the Java class the reader made of it (a JSON
// string java.lang.String, a number
// com.amazon.coral.value.json.numbers.TruncatingBigNumber, true or false
// java.lang.Boolean); the target is the model's type (String, Boolean,
// Integer, Long, Double), always with "an". The error's body carries its
// text as "Message", as DynamoDB's framework writes it (errors.go).

// Messages of a list or an object found where the model has another type.
const (
	reasonListNotExpected   = "Start of list found where not expected"
	reasonObjectNotExpected = "Start of structure or map found where not expected"
)

// javaClassOf is the Java class DynamoDB's reader makes of a JSON scalar,
// by the scalar's first byte; "" for a list, an object or anything else.
func javaClassOf(first byte) string {
	switch {
	case first == '"':
		return "java.lang.String"
	case first == 't' || first == 'f':
		return "java.lang.Boolean"
	case first == '-' || first >= '0' && first <= '9':
		return "com.amazon.coral.value.json.numbers.TruncatingBigNumber"
	}
	return ""
}

// wrongJSONType is DynamoDB's SerializationException for the JSON value
// starting with first where the model has the type javaType ("String",
// "Boolean", "List", "Map"...).
func wrongJSONType(first byte, javaType string) error {
	switch first {
	case '[':
		return serialization(reasonListNotExpected)
	case '{':
		return serialization(reasonObjectNotExpected)
	}
	class := javaClassOf(first)
	if class == "" {
		return serialization("Unexpected JSON value where " + javaType + " is expected")
	}
	return serialization("class " + class + " can not be converted to an " + javaType)
}

// unmarshalTypeError maps encoding/json's type error to DynamoDB's
// message for it.
func unmarshalTypeError(te *json.UnmarshalTypeError) *apiError {
	var first byte
	switch v := te.Value; {
	case v == "array":
		first = '['
	case v == "object":
		first = '{'
	case v == "string":
		first = '"'
	case v == "bool":
		first = 't'
	case strings.HasPrefix(v, "number"):
		first = '0'
	}
	return wrongJSONType(first, javaTypeOf(te.Type)).(*apiError)
}

// javaTypeOf names the model type of a Go field's type.
func javaTypeOf(t reflect.Type) string {
	if t == nil {
		return "Object"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "String"
	case reflect.Bool:
		return "Boolean"
	case reflect.Int, reflect.Int32, reflect.Int16, reflect.Int8, reflect.Uint, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		return "Integer"
	case reflect.Int64, reflect.Uint64:
		return "Long"
	case reflect.Float32, reflect.Float64:
		return "Double"
	case reflect.Slice, reflect.Array:
		return "List"
	case reflect.Map:
		return "Map"
	}
	return "Structure"
}
