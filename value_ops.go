package fdyno

import (
	"reflect"

	"github.com/fdyno/fdyno/internal/expr"
)

// valueOps are the operations on Value that the internal packages generic
// over the value type use: internal/expr's [expr.Ops] and
// internal/marshal's [marshal.Values] and internal/avjson's [avjson.Ops].
type valueOps struct{}

func (valueOps) Type(v Value) expr.Type { return expr.Type(v.typ) }
func (valueOps) Scalar(v Value) expr.Scalar {
	return expr.Scalar{Type: expr.Type(v.typ), Text: v.s, Malformed: v.bad}
}
func (valueOps) Equal(a, b Value) bool            { return a.Equal(b) }
func (valueOps) Len(v Value) int                  { return v.Len() }
func (valueOps) Members(v Value) []string         { return v.setv() }
func (valueOps) List(v Value) []Value             { return v.listv() }
func (valueOps) Number(s string) Value            { return Value{typ: TypeN, s: s} }
func (valueOps) Map(v Value) map[string]Value     { return v.mapv() }
func (valueOps) MakeMap(m map[string]Value) Value { return M(m) }
func (valueOps) MakeList(l []Value) Value         { return L(l...) }
func (valueOps) MakeSet(t expr.Type, members []string) Value {
	return Value{typ: Type(t), x: members}
}
func (valueOps) Field(v Value, name string) (Value, bool) {
	w, ok := v.mapv()[name]
	return w, ok
}

func (valueOps) String(s string) Value { return S(s) }
func (valueOps) Binary(b string) Value { return Value{typ: TypeB, s: b} }
func (valueOps) Bool(b bool) Value     { return Bool(b) }
func (valueOps) Null() Value           { return Null() }
func (valueOps) BoolOf(v Value) bool   { return v.b }
func (valueOps) Member(set Value, i int) Value {
	t := map[Type]Type{TypeSS: TypeS, TypeNS: TypeN, TypeBS: TypeB}[set.typ]
	return Value{typ: t, s: set.setv()[i], bad: set.bad && t == TypeN}
}
func (valueOps) MarshalSelf(rv reflect.Value) (Value, error) {
	return rv.Interface().(Marshaler).MarshalDynamo()
}
func (valueOps) UnmarshalSelf(rv reflect.Value, v Value) error {
	return rv.Interface().(Unmarshaler).UnmarshalDynamo(v)
}
