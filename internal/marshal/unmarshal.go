package marshal

import (
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fdyno/fdyno/internal/expr"
)

// DynamoDB values to Go values.

// Unmarshal stores val in rv, which sits at nesting level depth (1 for
// the value of a top-level attribute).
func (m *Model[V]) Unmarshal(val V, rv reflect.Value, depth int) error {
	return m.unmarshal(val, rv, nil, depth)
}

func (m *Model[V]) unmarshalErr(val V, rv reflect.Value, p *expr.PathNode, reason string, err error) error {
	return &Error{Unmarshal: true, Path: p.String(), Value: m.Type(val), Type: rv.Type(), Reason: reason, Err: err}
}

func (m *Model[V]) unmarshal(val V, rv reflect.Value, p *expr.PathNode, depth int) error {
	sc := m.Scalar(val)
	if depth > m.MaxDepth+1 {
		return m.unmarshalErr(val, rv, p, m.ReasonNesting, nil)
	}
	if rv.Kind() != reflect.Pointer && rv.CanAddr() && reflect.PointerTo(rv.Type()).Implements(m.Unmarshaler) {
		if err := m.UnmarshalSelf(rv.Addr(), val); err != nil {
			return m.unmarshalErr(val, rv, p, "UnmarshalDynamo failed", err)
		}
		return nil
	}
	if sc.Type == expr.TypeNULL {
		rv.SetZero()
		return nil
	}
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		return m.unmarshal(val, rv.Elem(), p, depth)
	}
	mismatch := func() error {
		return m.unmarshalErr(val, rv, p, "type mismatch", nil)
	}
	switch rv.Type() {
	case m.valueType:
		rv.Set(reflect.ValueOf(val))
		return nil
	case typeTime:
		var t time.Time
		switch sc.Type {
		case expr.TypeS:
			var err error
			if t, err = time.Parse(time.RFC3339Nano, sc.Text); err != nil {
				return m.unmarshalErr(val, rv, p, "not an RFC 3339 time", err)
			}
		case expr.TypeN:
			sec, err := strconv.ParseInt(sc.Text, 10, 64)
			if err != nil {
				return m.unmarshalErr(val, rv, p, "not integral Unix seconds", err)
			}
			t = time.Unix(sec, 0)
		default:
			return mismatch()
		}
		rv.Set(reflect.ValueOf(t))
		return nil
	case m.NumberType, typeJSONNumber:
		if sc.Type != expr.TypeN {
			return mismatch()
		}
		rv.SetString(sc.Text)
		return nil
	case typeBigInt.Elem():
		if sc.Type != expr.TypeN {
			return mismatch()
		}
		if _, ok := rv.Addr().Interface().(*big.Int).SetString(sc.Text, 10); !ok {
			return m.unmarshalErr(val, rv, p, "number "+sc.Text+" is not an integer", nil)
		}
		return nil
	case typeBigFloat.Elem():
		if sc.Type != expr.TypeN {
			return mismatch()
		}
		f := rv.Addr().Interface().(*big.Float)
		if f.Prec() == 0 {
			// Enough bits for 38 decimal digits.
			f.SetPrec(128)
		}
		if _, _, err := f.Parse(sc.Text, 10); err != nil {
			return m.unmarshalErr(val, rv, p, "bad number", err)
		}
		return nil
	case typeDecimal.Elem():
		if sc.Type != expr.TypeN {
			return mismatch()
		}
		if _, _, err := rv.Addr().Interface().(*apd.Decimal).SetString(sc.Text); err != nil {
			return m.unmarshalErr(val, rv, p, "bad number", err)
		}
		return nil
	}
	switch rv.Kind() {
	case reflect.Interface:
		if rv.NumMethod() != 0 {
			return m.unmarshalErr(val, rv, p, "cannot unmarshal into a non-empty interface", nil)
		}
		x, err := m.natural(val, p, depth)
		if err != nil {
			return err
		}
		if x == nil {
			rv.SetZero()
		} else {
			rv.Set(reflect.ValueOf(x))
		}
		return nil
	case reflect.Bool:
		if sc.Type != expr.TypeBOOL {
			return mismatch()
		}
		rv.SetBool(m.BoolOf(val))
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if sc.Type != expr.TypeN {
			return mismatch()
		}
		i, err := strconv.ParseInt(sc.Text, 10, rv.Type().Bits())
		if err != nil {
			return m.unmarshalErr(val, rv, p, "number "+sc.Text+" does not fit", err)
		}
		rv.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if sc.Type != expr.TypeN {
			return mismatch()
		}
		u, err := strconv.ParseUint(sc.Text, 10, rv.Type().Bits())
		if err != nil {
			return m.unmarshalErr(val, rv, p, "number "+sc.Text+" does not fit", err)
		}
		rv.SetUint(u)
		return nil
	case reflect.Float32, reflect.Float64:
		if sc.Type != expr.TypeN {
			return mismatch()
		}
		f, err := strconv.ParseFloat(sc.Text, rv.Type().Bits())
		if err != nil {
			return m.unmarshalErr(val, rv, p, "number "+sc.Text+" is out of range", err)
		}
		rv.SetFloat(f)
		return nil
	case reflect.String:
		if sc.Type != expr.TypeS {
			return mismatch()
		}
		rv.SetString(sc.Text)
		return nil
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 && sc.Type == expr.TypeB {
			rv.SetBytes([]byte(sc.Text))
			return nil
		}
		n := m.listLen(val)
		if n < 0 {
			return mismatch()
		}
		rv.Set(reflect.MakeSlice(rv.Type(), n, n))
		return m.elems(val, rv, p, depth)
	case reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 && sc.Type == expr.TypeB {
			if len(sc.Text) > rv.Len() {
				return m.unmarshalErr(val, rv, p, strconv.Itoa(len(sc.Text))+" bytes do not fit", nil)
			}
			rv.SetZero()
			reflect.Copy(rv, reflect.ValueOf([]byte(sc.Text)))
			return nil
		}
		n := m.listLen(val)
		if n < 0 {
			return mismatch()
		}
		if n > rv.Len() {
			return m.unmarshalErr(val, rv, p, strconv.Itoa(n)+" elements do not fit", nil)
		}
		rv.SetZero()
		return m.elems(val, rv, p, depth)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return m.unmarshalErr(val, rv, p, "map keys must be strings", nil)
		}
		switch sc.Type {
		case expr.TypeM:
			if rv.IsNil() {
				rv.Set(reflect.MakeMapWithSize(rv.Type(), len(m.Map(val))))
			}
			et := rv.Type().Elem()
			for k, v := range m.Map(val) {
				c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Name: k}}
				ev := reflect.New(et).Elem()
				if err := m.unmarshal(v, ev, &c, depth+1); err != nil {
					return err
				}
				rv.SetMapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()), ev)
			}
			return nil
		case expr.TypeSS, expr.TypeNS:
			// A set into map[string]struct{} or map[string]bool.
			ek := rv.Type().Elem().Kind()
			if ek != reflect.Bool && !(ek == reflect.Struct && rv.Type().Elem().NumField() == 0) {
				return mismatch()
			}
			if rv.IsNil() {
				rv.Set(reflect.MakeMapWithSize(rv.Type(), len(m.Members(val))))
			}
			present := reflect.New(rv.Type().Elem()).Elem()
			if ek == reflect.Bool {
				present.SetBool(true)
			}
			for _, k := range m.Members(val) {
				rv.SetMapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()), present)
			}
			return nil
		}
		return mismatch()
	case reflect.Struct:
		if sc.Type != expr.TypeM {
			return mismatch()
		}
		for _, f := range structFields(rv.Type()) {
			v, ok := m.Map(val)[f.name]
			if !ok {
				continue
			}
			fv, err := settableField(rv, f.index)
			if err != nil {
				return m.unmarshalErr(val, rv, p, err.Error(), nil)
			}
			c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Name: f.name}}
			if err := m.unmarshal(v, fv, &c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return m.unmarshalErr(val, rv, p, "unsupported type", nil)
}

// listLen returns the element count of an L or set value, or -1.
func (m *Model[V]) listLen(val V) int {
	switch m.Type(val) {
	case expr.TypeL:
		return len(m.List(val))
	case expr.TypeSS, expr.TypeNS, expr.TypeBS:
		return len(m.Members(val))
	}
	return -1
}

// elem returns element i of an L or set value.
func (m *Model[V]) elem(val V, i int) V {
	if m.Type(val) == expr.TypeL {
		return m.List(val)[i]
	}
	return m.Member(val, i)
}

func (m *Model[V]) elems(val V, rv reflect.Value, p *expr.PathNode, depth int) error {
	for i := range m.listLen(val) {
		c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Index: i, IsIndex: true}}
		if err := m.unmarshal(m.elem(val, i), rv.Index(i), &c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// natural returns the plain Go value of val for an interface target.
func (m *Model[V]) natural(val V, p *expr.PathNode, depth int) (any, error) {
	sc := m.Scalar(val)
	if depth > m.MaxDepth+1 {
		return nil, &Error{Unmarshal: true, Path: p.String(), Value: sc.Type, Reason: m.ReasonNesting}
	}
	switch sc.Type {
	case expr.TypeS:
		return sc.Text, nil
	case expr.TypeN:
		return reflect.ValueOf(sc.Text).Convert(m.NumberType).Interface(), nil
	case expr.TypeB:
		return []byte(sc.Text), nil
	case expr.TypeBOOL:
		return m.BoolOf(val), nil
	case expr.TypeNULL:
		return nil, nil
	case expr.TypeM:
		out := make(map[string]any, len(m.Map(val)))
		for k, v := range m.Map(val) {
			c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Name: k}}
			x, err := m.natural(v, &c, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	case expr.TypeL:
		l := make([]any, len(m.List(val)))
		for i, v := range m.List(val) {
			c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Index: i, IsIndex: true}}
			x, err := m.natural(v, &c, depth+1)
			if err != nil {
				return nil, err
			}
			l[i] = x
		}
		return l, nil
	case expr.TypeSS:
		return slices.Clone(m.Members(val)), nil
	case expr.TypeNS:
		members := m.Members(val)
		ns := reflect.MakeSlice(reflect.SliceOf(m.NumberType), len(members), len(members))
		for i, k := range members {
			ns.Index(i).SetString(k)
		}
		return ns.Interface(), nil
	case expr.TypeBS:
		members := m.Members(val)
		bs := make([][]byte, len(members))
		for i, k := range members {
			bs[i] = []byte(k)
		}
		return bs, nil
	}
	return nil, &Error{Unmarshal: true, Path: p.String(), Value: sc.Type, Reason: "empty value"}
}
