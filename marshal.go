package fdyno

import (
	"encoding/json"
	"github.com/fdyno/fdyno/internal/number"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/apd/v3"
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
	val, err := marshalReflect(reflect.ValueOf(v), fieldOptions{}, nil, 0)
	if err != nil {
		return nil, err
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
	return marshalReflect(reflect.ValueOf(v), fieldOptions{}, nil, 1)
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
	return unmarshalReflect(val, rv.Elem(), nil, 1)
}

var (
	typeValue       = reflect.TypeFor[Value]()
	typeItem        = reflect.TypeFor[Item]()
	typeTime        = reflect.TypeFor[time.Time]()
	typeNumber      = reflect.TypeFor[Number]()
	typeJSONNumber  = reflect.TypeFor[json.Number]()
	typeBigInt      = reflect.TypeFor[*big.Int]()
	typeBigFloat    = reflect.TypeFor[*big.Float]()
	typeDecimal     = reflect.TypeFor[*apd.Decimal]()
	typeInt64       = reflect.TypeFor[int64]()
	typeFloat64     = reflect.TypeFor[float64]()
	typeMarshaler   = reflect.TypeFor[Marshaler]()
	typeUnmarshaler = reflect.TypeFor[Unmarshaler]()
)

// maxPointerChain bounds how many pointers and interfaces Marshal follows
// in a row, so that a cycle such as an interface holding a pointer to
// itself fails instead of recursing forever.
const maxPointerChain = 64

// fieldOptions are a struct field's tag options.
type fieldOptions struct {
	omitEmpty bool
	set       Type // 0, TypeSS, TypeNS or TypeBS
	unixTime  bool
}

// field is a marshalled struct field.
type field struct {
	name   string
	index  []int
	opts   fieldOptions
	tagged bool
}

var fieldCache sync.Map // reflect.Type → []field

// structFields returns the fields of struct type t that Marshal and
// Unmarshal use, resolving embedded structs with Go's visibility rules:
// the shallowest field of a name wins, and among several at that depth a
// single tagged one; otherwise the name is dropped.
func structFields(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var all []field
	type queued struct {
		typ   reflect.Type
		index []int
	}
	next := []queued{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := 0; i < q.typ.NumField(); i++ {
				sf := q.typ.Field(i)
				index := append(slices.Clip(q.index), i)
				tag, ok := sf.Tag.Lookup("fdyno")
				if !ok {
					tag = sf.Tag.Get("dynamodbav")
				}
				if tag == "-" {
					continue
				}
				name, opts := parseTag(tag)
				ft := sf.Type
				if sf.Anonymous && name == "" {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if ft.Kind() == reflect.Struct && ft != typeTime {
						next = append(next, queued{typ: ft, index: index})
						continue
					}
				}
				if !sf.IsExported() {
					continue
				}
				tagged := name != ""
				if !tagged {
					name = sf.Name
				}
				all = append(all, field{name: name, index: index, opts: opts, tagged: tagged})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return 0
	})
	var fields []field
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		group := all[i:j]
		i = j
		if len(group) > 1 && len(group[1].index) == len(group[0].index) && group[1].tagged == group[0].tagged {
			continue // ambiguous: dropped, as in encoding/json
		}
		fields = append(fields, group[0])
	}
	slices.SortFunc(fields, func(a, b field) int { return slices.Compare(a.index, b.index) })
	f, _ := fieldCache.LoadOrStore(t, fields)
	return f.([]field)
}

func parseTag(tag string) (string, fieldOptions) {
	name, rest, _ := strings.Cut(tag, ",")
	var o fieldOptions
	for rest != "" {
		var opt string
		opt, rest, _ = strings.Cut(rest, ",")
		switch opt {
		case "omitempty":
			o.omitEmpty = true
		case "stringset":
			o.set = TypeSS
		case "numberset":
			o.set = TypeNS
		case "binaryset":
			o.set = TypeBS
		case "unixtime":
			o.unixTime = true
		}
	}
	return name, o
}

func marshalErr(rv reflect.Value, p *pathNode, reason string, err error) error {
	var t reflect.Type
	if rv.IsValid() {
		t = rv.Type()
	}
	return &MarshalError{Path: p.String(), Type: t, Reason: reason, Err: err}
}

// marshalReflect returns the value of rv, which sits at nesting level
// depth (1 for a top-level attribute).
func marshalReflect(rv reflect.Value, opts fieldOptions, p *pathNode, depth int) (Value, error) {
	if depth > MaxNestingDepth {
		return Value{}, marshalErr(rv, p, reasonNesting, &ValidationError{Path: p.String(), Reason: reasonNesting})
	}
	for i := 0; ; i++ {
		if !rv.IsValid() {
			return Null(), nil
		}
		if rv.Type().Implements(typeMarshaler) {
			if rv.Kind() == reflect.Pointer && rv.IsNil() {
				return Null(), nil
			}
			v, err := rv.Interface().(Marshaler).MarshalDynamo()
			if err != nil {
				return Value{}, marshalErr(rv, p, "MarshalDynamo failed", err)
			}
			return v, nil
		}
		if rv.CanAddr() && reflect.PointerTo(rv.Type()).Implements(typeMarshaler) {
			rv = rv.Addr()
			continue
		}
		if k := rv.Kind(); k != reflect.Pointer && k != reflect.Interface {
			break
		}
		if rv.IsNil() {
			return Null(), nil
		}
		if i == maxPointerChain {
			return Value{}, marshalErr(rv, p, "too many pointers in a row (a cycle?)", nil)
		}
		rv = rv.Elem()
	}
	switch rv.Type() {
	case typeValue:
		v := rv.Interface().(Value)
		if v.typ == 0 {
			return Null(), nil // an unset Value field, like a nil pointer
		}
		return v, nil
	case typeTime:
		t := rv.Interface().(time.Time)
		if opts.unixTime {
			return NInt(t.Unix()), nil
		}
		return S(t.Format(time.RFC3339Nano)), nil
	case typeNumber, typeJSONNumber:
		return marshalNumber(rv, rv.String(), p)
	case typeBigInt.Elem():
		b := addrOf(rv).Interface().(*big.Int)
		return marshalNumber(rv, b.String(), p)
	case typeBigFloat.Elem():
		f := addrOf(rv).Interface().(*big.Float)
		if f.IsInf() {
			return Value{}, marshalErr(rv, p, "infinity is not a number", nil)
		}
		return marshalNumber(rv, f.Text('g', -1), p)
	case typeDecimal.Elem():
		d := addrOf(rv).Interface().(*apd.Decimal)
		c, err := number.CanonicalDecimal(d)
		if err != nil {
			return Value{}, marshalErr(rv, p, err.Error(), &ValidationError{Path: p.String(), Reason: err.Error()})
		}
		return Value{typ: TypeN, s: c}, nil
	}
	if opts.set != 0 {
		return marshalSet(rv, opts.set, p)
	}
	switch rv.Kind() {
	case reflect.Bool:
		return Bool(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return NInt(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return NUint(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		c, err := number.FormatFloat(rv.Float(), rv.Type().Bits())
		if err != nil {
			return Value{}, marshalErr(rv, p, err.Error(), &ValidationError{Path: p.String(), Reason: err.Error()})
		}
		return Value{typ: TypeN, s: c}, nil
	case reflect.String:
		return S(rv.String()), nil
	case reflect.Slice:
		if rv.IsNil() {
			return Null(), nil
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return B(rv.Bytes()), nil
		}
		return marshalList(rv, p, depth)
	case reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return Value{typ: TypeB, s: string(b)}, nil
		}
		return marshalList(rv, p, depth)
	case reflect.Map:
		if rv.IsNil() {
			return Null(), nil
		}
		if rv.Type() == typeItem {
			return M(rv.Interface().(Item)), nil
		}
		if rv.Type().Key().Kind() != reflect.String {
			return Value{}, marshalErr(rv, p, "map keys must be strings", nil)
		}
		m := make(Item, rv.Len())
		for iter := rv.MapRange(); iter.Next(); {
			k := iter.Key().String()
			c := pathNode{parent: p, name: k}
			v, err := marshalReflect(iter.Value(), fieldOptions{}, &c, depth+1)
			if err != nil {
				return Value{}, err
			}
			m[k] = v
		}
		return M(m), nil
	case reflect.Struct:
		fields := structFields(rv.Type())
		m := make(Item, len(fields))
		for i := range fields {
			f := &fields[i]
			fv, ok := fieldByIndex(rv, f.index)
			if !ok || (f.opts.omitEmpty && isEmpty(fv)) {
				continue
			}
			c := pathNode{parent: p, name: f.name}
			v, err := marshalReflect(fv, f.opts, &c, depth+1)
			if err != nil {
				return Value{}, err
			}
			if f.opts.omitEmpty && f.opts.set != 0 && v.typ == TypeNULL {
				continue
			}
			m[f.name] = v
		}
		return M(m), nil
	}
	return Value{}, marshalErr(rv, p, "unsupported type", nil)
}

// addrOf returns a pointer to rv, or to a copy of it if rv is not
// addressable.
func addrOf(rv reflect.Value) reflect.Value {
	if rv.CanAddr() {
		return rv.Addr()
	}
	p := reflect.New(rv.Type())
	p.Elem().Set(rv)
	return p
}

// fieldByIndex is reflect.Value.FieldByIndex that reports false when an
// embedded pointer on the way is nil.
func fieldByIndex(rv reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return reflect.Value{}, false
			}
			rv = rv.Elem()
		}
		rv = rv.Field(x)
	}
	return rv, true
}

func isEmpty(rv reflect.Value) bool {
	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return rv.IsZero()
}

func marshalNumber(rv reflect.Value, text string, p *pathNode) (Value, error) {
	c, err := number.Canonical(text)
	if err != nil {
		return Value{}, marshalErr(rv, p, err.Error(), &ValidationError{Path: p.String(), Reason: err.Error()})
	}
	return Value{typ: TypeN, s: c}, nil
}

func marshalList(rv reflect.Value, p *pathNode, depth int) (Value, error) {
	list := make([]Value, rv.Len())
	for i := range list {
		c := pathNode{parent: p, index: i, isElem: true}
		v, err := marshalReflect(rv.Index(i), fieldOptions{}, &c, depth+1)
		if err != nil {
			return Value{}, err
		}
		list[i] = v
	}
	return L(list...), nil
}

// marshalSet builds an SS, NS or BS from a slice, an array, or a map whose
// keys are the members (with struct{} values, or bool values where true
// means present).
func marshalSet(rv reflect.Value, t Type, p *pathNode) (Value, error) {
	var members []reflect.Value
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return Null(), nil
		}
		for i := 0; i < rv.Len(); i++ {
			members = append(members, rv.Index(i))
		}
	case reflect.Map:
		if rv.IsNil() {
			return Null(), nil
		}
		boolValues := rv.Type().Elem().Kind() == reflect.Bool
		for iter := rv.MapRange(); iter.Next(); {
			if !boolValues || iter.Value().Bool() {
				members = append(members, iter.Key())
			}
		}
	default:
		return Value{}, marshalErr(rv, p, t.String()+" needs a slice, array or map", nil)
	}
	if len(members) == 0 {
		return Null(), nil
	}
	set := make([]string, len(members))
	for i, m := range members {
		for m.Kind() == reflect.Interface || m.Kind() == reflect.Pointer {
			if m.IsNil() {
				return Value{}, marshalErr(rv, p, "nil set member", nil)
			}
			m = m.Elem()
		}
		var (
			ev  Value
			err error
		)
		switch {
		case t == TypeNS && m.Kind() == reflect.String:
			ev, err = marshalNumber(m, m.String(), p)
		default:
			ev, err = marshalReflect(m, fieldOptions{}, p, 1)
		}
		if err != nil {
			return Value{}, err
		}
		want := map[Type]Type{TypeSS: TypeS, TypeNS: TypeN, TypeBS: TypeB}[t]
		if ev.typ != want {
			return Value{}, marshalErr(rv, p, t.String()+" member "+strconv.Itoa(i)+" is "+ev.typ.String()+", not "+want.String(), nil)
		}
		set[i] = ev.s
	}
	if t == TypeNS {
		slices.SortFunc(set, number.Compare)
	} else {
		slices.Sort(set)
	}
	for i := 1; i < len(set); i++ {
		if set[i] == set[i-1] {
			return Value{}, marshalErr(rv, p, reasonDuplicates, &ValidationError{Path: p.String(), Reason: reasonDuplicates})
		}
	}
	return Value{typ: t, x: set}, nil
}

func unmarshalErr(val Value, rv reflect.Value, p *pathNode, reason string, err error) error {
	return &UnmarshalError{Path: p.String(), Value: val.typ, Type: rv.Type(), Reason: reason, Err: err}
}

func unmarshalReflect(val Value, rv reflect.Value, p *pathNode, depth int) error {
	if depth > MaxNestingDepth+1 {
		return unmarshalErr(val, rv, p, reasonNesting, nil)
	}
	if rv.Kind() != reflect.Pointer && rv.CanAddr() && reflect.PointerTo(rv.Type()).Implements(typeUnmarshaler) {
		if err := rv.Addr().Interface().(Unmarshaler).UnmarshalDynamo(val); err != nil {
			return unmarshalErr(val, rv, p, "UnmarshalDynamo failed", err)
		}
		return nil
	}
	if val.typ == TypeNULL {
		rv.SetZero()
		return nil
	}
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		return unmarshalReflect(val, rv.Elem(), p, depth)
	}
	mismatch := func() error {
		return unmarshalErr(val, rv, p, "type mismatch", nil)
	}
	switch rv.Type() {
	case typeValue:
		rv.Set(reflect.ValueOf(val))
		return nil
	case typeTime:
		var t time.Time
		switch val.typ {
		case TypeS:
			var err error
			if t, err = time.Parse(time.RFC3339Nano, val.s); err != nil {
				return unmarshalErr(val, rv, p, "not an RFC 3339 time", err)
			}
		case TypeN:
			sec, err := strconv.ParseInt(val.s, 10, 64)
			if err != nil {
				return unmarshalErr(val, rv, p, "not integral Unix seconds", err)
			}
			t = time.Unix(sec, 0)
		default:
			return mismatch()
		}
		rv.Set(reflect.ValueOf(t))
		return nil
	case typeNumber, typeJSONNumber:
		if val.typ != TypeN {
			return mismatch()
		}
		rv.SetString(val.s)
		return nil
	case typeBigInt.Elem():
		if val.typ != TypeN {
			return mismatch()
		}
		if _, ok := rv.Addr().Interface().(*big.Int).SetString(val.s, 10); !ok {
			return unmarshalErr(val, rv, p, "number "+val.s+" is not an integer", nil)
		}
		return nil
	case typeBigFloat.Elem():
		if val.typ != TypeN {
			return mismatch()
		}
		f := rv.Addr().Interface().(*big.Float)
		if f.Prec() == 0 {
			// Enough bits for 38 decimal digits.
			f.SetPrec(128)
		}
		if _, _, err := f.Parse(val.s, 10); err != nil {
			return unmarshalErr(val, rv, p, "bad number", err)
		}
		return nil
	case typeDecimal.Elem():
		if val.typ != TypeN {
			return mismatch()
		}
		if _, _, err := rv.Addr().Interface().(*apd.Decimal).SetString(val.s); err != nil {
			return unmarshalErr(val, rv, p, "bad number", err)
		}
		return nil
	}
	switch rv.Kind() {
	case reflect.Interface:
		if rv.NumMethod() != 0 {
			return unmarshalErr(val, rv, p, "cannot unmarshal into a non-empty interface", nil)
		}
		x, err := naturalValue(val, p, depth)
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
		if val.typ != TypeBOOL {
			return mismatch()
		}
		rv.SetBool(val.b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if val.typ != TypeN {
			return mismatch()
		}
		i, err := strconv.ParseInt(val.s, 10, rv.Type().Bits())
		if err != nil {
			return unmarshalErr(val, rv, p, "number "+val.s+" does not fit", err)
		}
		rv.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if val.typ != TypeN {
			return mismatch()
		}
		u, err := strconv.ParseUint(val.s, 10, rv.Type().Bits())
		if err != nil {
			return unmarshalErr(val, rv, p, "number "+val.s+" does not fit", err)
		}
		rv.SetUint(u)
		return nil
	case reflect.Float32, reflect.Float64:
		if val.typ != TypeN {
			return mismatch()
		}
		f, err := strconv.ParseFloat(val.s, rv.Type().Bits())
		if err != nil {
			return unmarshalErr(val, rv, p, "number "+val.s+" is out of range", err)
		}
		rv.SetFloat(f)
		return nil
	case reflect.String:
		if val.typ != TypeS {
			return mismatch()
		}
		rv.SetString(val.s)
		return nil
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 && val.typ == TypeB {
			rv.SetBytes([]byte(val.s))
			return nil
		}
		n := listLen(val)
		if n < 0 {
			return mismatch()
		}
		rv.Set(reflect.MakeSlice(rv.Type(), n, n))
		return unmarshalElems(val, rv, p, depth)
	case reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 && val.typ == TypeB {
			if len(val.s) > rv.Len() {
				return unmarshalErr(val, rv, p, strconv.Itoa(len(val.s))+" bytes do not fit", nil)
			}
			rv.SetZero()
			reflect.Copy(rv, reflect.ValueOf([]byte(val.s)))
			return nil
		}
		n := listLen(val)
		if n < 0 {
			return mismatch()
		}
		if n > rv.Len() {
			return unmarshalErr(val, rv, p, strconv.Itoa(n)+" elements do not fit", nil)
		}
		rv.SetZero()
		return unmarshalElems(val, rv, p, depth)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return unmarshalErr(val, rv, p, "map keys must be strings", nil)
		}
		switch val.typ {
		case TypeM:
			if rv.IsNil() {
				rv.Set(reflect.MakeMapWithSize(rv.Type(), len(val.mapv())))
			}
			et := rv.Type().Elem()
			for k, v := range val.mapv() {
				c := pathNode{parent: p, name: k}
				ev := reflect.New(et).Elem()
				if err := unmarshalReflect(v, ev, &c, depth+1); err != nil {
					return err
				}
				rv.SetMapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()), ev)
			}
			return nil
		case TypeSS, TypeNS:
			// A set into map[string]struct{} or map[string]bool.
			ek := rv.Type().Elem().Kind()
			if ek != reflect.Bool && !(ek == reflect.Struct && rv.Type().Elem().NumField() == 0) {
				return mismatch()
			}
			if rv.IsNil() {
				rv.Set(reflect.MakeMapWithSize(rv.Type(), len(val.setv())))
			}
			present := reflect.New(rv.Type().Elem()).Elem()
			if ek == reflect.Bool {
				present.SetBool(true)
			}
			for _, m := range val.setv() {
				rv.SetMapIndex(reflect.ValueOf(m).Convert(rv.Type().Key()), present)
			}
			return nil
		}
		return mismatch()
	case reflect.Struct:
		if val.typ != TypeM {
			return mismatch()
		}
		for _, f := range structFields(rv.Type()) {
			v, ok := val.mapv()[f.name]
			if !ok {
				continue
			}
			fv, err := settableField(rv, f.index)
			if err != nil {
				return unmarshalErr(val, rv, p, err.Error(), nil)
			}
			c := pathNode{parent: p, name: f.name}
			if err := unmarshalReflect(v, fv, &c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return unmarshalErr(val, rv, p, "unsupported type", nil)
}

// settableField walks index from struct rv, allocating nil embedded
// pointers on the way.
func settableField(rv reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				if !rv.CanSet() {
					return reflect.Value{}, &UnmarshalError{Type: rv.Type(), Reason: "nil pointer to unexported embedded struct"}
				}
				rv.Set(reflect.New(rv.Type().Elem()))
			}
			rv = rv.Elem()
		}
		rv = rv.Field(x)
	}
	return rv, nil
}

// listLen returns the element count of an L or set value, or -1.
func listLen(val Value) int {
	switch val.typ {
	case TypeL:
		return len(val.listv())
	case TypeSS, TypeNS, TypeBS:
		return len(val.setv())
	}
	return -1
}

// elem returns element i of an L or set value as a Value.
func elem(val Value, i int) Value {
	switch val.typ {
	case TypeSS:
		return Value{typ: TypeS, s: val.setv()[i]}
	case TypeNS:
		return Value{typ: TypeN, s: val.setv()[i], bad: val.bad}
	case TypeBS:
		return Value{typ: TypeB, s: val.setv()[i]}
	}
	return val.listv()[i]
}

func unmarshalElems(val Value, rv reflect.Value, p *pathNode, depth int) error {
	for i := range listLen(val) {
		c := pathNode{parent: p, index: i, isElem: true}
		if err := unmarshalReflect(elem(val, i), rv.Index(i), &c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// naturalValue returns the plain Go value of val for an interface target.
func naturalValue(val Value, p *pathNode, depth int) (any, error) {
	if depth > MaxNestingDepth+1 {
		return nil, &UnmarshalError{Path: p.String(), Value: val.typ, Reason: reasonNesting}
	}
	switch val.typ {
	case TypeS:
		return val.s, nil
	case TypeN:
		return Number(val.s), nil
	case TypeB:
		return []byte(val.s), nil
	case TypeBOOL:
		return val.b, nil
	case TypeNULL:
		return nil, nil
	case TypeM:
		m := make(map[string]any, len(val.mapv()))
		for k, v := range val.mapv() {
			c := pathNode{parent: p, name: k}
			x, err := naturalValue(v, &c, depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = x
		}
		return m, nil
	case TypeL:
		l := make([]any, len(val.listv()))
		for i, v := range val.listv() {
			c := pathNode{parent: p, index: i, isElem: true}
			x, err := naturalValue(v, &c, depth+1)
			if err != nil {
				return nil, err
			}
			l[i] = x
		}
		return l, nil
	case TypeSS:
		return slices.Clone(val.setv()), nil
	case TypeNS:
		ns := make([]Number, len(val.setv()))
		for i, m := range val.setv() {
			ns[i] = Number(m)
		}
		return ns, nil
	case TypeBS:
		return val.BS(), nil
	}
	return nil, &UnmarshalError{Path: p.String(), Value: val.typ, Reason: "empty value"}
}
