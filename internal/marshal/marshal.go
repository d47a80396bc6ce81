package marshal

import (
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fdyno/fdyno/internal/expr"
	"github.com/fdyno/fdyno/internal/number"
)

// Go values to DynamoDB values.

var (
	typeJSONNumber = reflect.TypeFor[json.Number]()
	typeBigInt     = reflect.TypeFor[*big.Int]()
	typeBigFloat   = reflect.TypeFor[*big.Float]()
	typeDecimal    = reflect.TypeFor[*apd.Decimal]()
)

// maxPointerChain bounds how many pointers and interfaces Marshal follows
// in a row, so that a cycle such as an interface holding a pointer to
// itself fails instead of recursing forever.
const maxPointerChain = 64

// Marshal returns the value of rv, which sits at nesting level depth (0
// for an item, 1 for a top-level attribute).
func (m *Model[V]) Marshal(rv reflect.Value, depth int) (V, error) {
	return m.marshal(rv, fieldOptions{}, nil, depth)
}

func marshalErr(rv reflect.Value, p *expr.PathNode, reason string, err error) error {
	var t reflect.Type
	if rv.IsValid() {
		t = rv.Type()
	}
	return &Error{Path: p.String(), Type: t, Reason: reason, Err: err}
}

// invalid is marshalErr for a value that breaks DynamoDB's rules.
func invalid(rv reflect.Value, p *expr.PathNode, reason string) error {
	err := marshalErr(rv, p, reason, nil)
	err.(*Error).Invalid = true
	return err
}

// marshalReflect returns the value of rv, which sits at nesting level
// depth (1 for a top-level attribute).
func (m *Model[V]) marshal(rv reflect.Value, opts fieldOptions, p *expr.PathNode, depth int) (V, error) {
	var zero V
	if depth > m.MaxDepth {
		return zero, invalid(rv, p, m.ReasonNesting)
	}
	for i := 0; ; i++ {
		if !rv.IsValid() {
			return m.Null(), nil
		}
		if rv.Type().Implements(m.Marshaler) {
			if rv.Kind() == reflect.Pointer && rv.IsNil() {
				return m.Null(), nil
			}
			v, err := m.MarshalSelf(rv)
			if err != nil {
				return zero, marshalErr(rv, p, "MarshalDynamo failed", err)
			}
			return v, nil
		}
		if rv.CanAddr() && reflect.PointerTo(rv.Type()).Implements(m.Marshaler) {
			rv = rv.Addr()
			continue
		}
		if k := rv.Kind(); k != reflect.Pointer && k != reflect.Interface {
			break
		}
		if rv.IsNil() {
			return m.Null(), nil
		}
		if i == maxPointerChain {
			return zero, marshalErr(rv, p, "too many pointers in a row (a cycle?)", nil)
		}
		rv = rv.Elem()
	}
	switch rv.Type() {
	case m.valueType:
		v := rv.Interface().(V)
		if m.Type(v) == 0 {
			return m.Null(), nil // an unset Value field, like a nil pointer
		}
		return v, nil
	case typeTime:
		t := rv.Interface().(time.Time)
		if opts.unixTime {
			return m.Number(strconv.FormatInt(t.Unix(), 10)), nil
		}
		return m.String(t.Format(time.RFC3339Nano)), nil
	case m.NumberType, typeJSONNumber:
		return m.number(rv, rv.String(), p)
	case typeBigInt.Elem():
		b := addrOf(rv).Interface().(*big.Int)
		return m.number(rv, b.String(), p)
	case typeBigFloat.Elem():
		f := addrOf(rv).Interface().(*big.Float)
		if f.IsInf() {
			return zero, marshalErr(rv, p, "infinity is not a number", nil)
		}
		return m.number(rv, f.Text('g', -1), p)
	case typeDecimal.Elem():
		d := addrOf(rv).Interface().(*apd.Decimal)
		c, err := number.CanonicalDecimal(d)
		if err != nil {
			return zero, invalid(rv, p, err.Error())
		}
		return m.Number(c), nil
	}
	if opts.set != 0 {
		return m.set(rv, opts.set, p)
	}
	switch rv.Kind() {
	case reflect.Bool:
		return m.Bool(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return m.Number(strconv.FormatInt(rv.Int(), 10)), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return m.Number(strconv.FormatUint(rv.Uint(), 10)), nil
	case reflect.Float32, reflect.Float64:
		c, err := number.FormatFloat(rv.Float(), rv.Type().Bits())
		if err != nil {
			return zero, invalid(rv, p, err.Error())
		}
		return m.Number(c), nil
	case reflect.String:
		return m.String(rv.String()), nil
	case reflect.Slice:
		if rv.IsNil() {
			return m.Null(), nil
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return m.Binary(string(rv.Bytes())), nil
		}
		return m.list(rv, p, depth)
	case reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return m.Binary(string(b)), nil
		}
		return m.list(rv, p, depth)
	case reflect.Map:
		if rv.IsNil() {
			return m.Null(), nil
		}
		if rv.Type() == m.ItemType {
			return m.MakeMap(rv.Convert(m.mapType).Interface().(map[string]V)), nil
		}
		if rv.Type().Key().Kind() != reflect.String {
			return zero, marshalErr(rv, p, "map keys must be strings", nil)
		}
		out := make(map[string]V, rv.Len())
		for iter := rv.MapRange(); iter.Next(); {
			k := iter.Key().String()
			c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Name: k}}
			v, err := m.marshal(iter.Value(), fieldOptions{}, &c, depth+1)
			if err != nil {
				return zero, err
			}
			out[k] = v
		}
		return m.MakeMap(out), nil
	case reflect.Struct:
		fields := structFields(rv.Type())
		out := make(map[string]V, len(fields))
		for i := range fields {
			f := &fields[i]
			fv, ok := fieldByIndex(rv, f.index)
			if !ok || (f.opts.omitEmpty && isEmpty(fv)) {
				continue
			}
			c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Name: f.name}}
			v, err := m.marshal(fv, f.opts, &c, depth+1)
			if err != nil {
				return zero, err
			}
			if f.opts.omitEmpty && f.opts.set != 0 && m.Type(v) == expr.TypeNULL {
				continue
			}
			out[f.name] = v
		}
		return m.MakeMap(out), nil
	}
	return zero, marshalErr(rv, p, "unsupported type", nil)
}

func (m *Model[V]) number(rv reflect.Value, text string, p *expr.PathNode) (V, error) {
	var zero V
	c, err := number.Canonical(text)
	if err != nil {
		return zero, invalid(rv, p, err.Error())
	}
	return m.Number(c), nil
}

func (m *Model[V]) list(rv reflect.Value, p *expr.PathNode, depth int) (V, error) {
	var zero V
	list := make([]V, rv.Len())
	for i := range list {
		c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Index: i, IsIndex: true}}
		v, err := m.marshal(rv.Index(i), fieldOptions{}, &c, depth+1)
		if err != nil {
			return zero, err
		}
		list[i] = v
	}
	return m.MakeList(list), nil
}

// marshalSet builds an SS, NS or BS from a slice, an array, or a map whose
// keys are the members (with struct{} values, or bool values where true
// means present).
func (m *Model[V]) set(rv reflect.Value, t expr.Type, p *expr.PathNode) (V, error) {
	var zero V
	var members []reflect.Value
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return m.Null(), nil
		}
		for i := 0; i < rv.Len(); i++ {
			members = append(members, rv.Index(i))
		}
	case reflect.Map:
		if rv.IsNil() {
			return m.Null(), nil
		}
		boolValues := rv.Type().Elem().Kind() == reflect.Bool
		for iter := rv.MapRange(); iter.Next(); {
			if !boolValues || iter.Value().Bool() {
				members = append(members, iter.Key())
			}
		}
	default:
		return zero, marshalErr(rv, p, t.String()+" needs a slice, array or map", nil)
	}
	if len(members) == 0 {
		return m.Null(), nil
	}
	set := make([]string, len(members))
	for i, mv := range members {
		for mv.Kind() == reflect.Interface || mv.Kind() == reflect.Pointer {
			if mv.IsNil() {
				return zero, marshalErr(rv, p, "nil set member", nil)
			}
			mv = mv.Elem()
		}
		var (
			ev  V
			err error
		)
		switch {
		case t == expr.TypeNS && mv.Kind() == reflect.String:
			ev, err = m.number(mv, mv.String(), p)
		default:
			ev, err = m.marshal(mv, fieldOptions{}, p, 1)
		}
		if err != nil {
			return zero, err
		}
		want := map[expr.Type]expr.Type{expr.TypeSS: expr.TypeS, expr.TypeNS: expr.TypeN, expr.TypeBS: expr.TypeB}[t]
		sc := m.Scalar(ev)
		if sc.Type != want {
			return zero, marshalErr(rv, p, t.String()+" member "+strconv.Itoa(i)+" is "+sc.Type.String()+", not "+want.String(), nil)
		}
		set[i] = sc.Text
	}
	if t == expr.TypeNS {
		slices.SortFunc(set, number.Compare)
	} else {
		slices.Sort(set)
	}
	for i := 1; i < len(set); i++ {
		if set[i] == set[i-1] {
			return zero, invalid(rv, p, m.ReasonDuplicates)
		}
	}
	return m.MakeSet(t, set), nil
}
