package marshal

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fdyno/fdyno/internal/expr"
)

// The Go side: which fields of a struct type are attributes, under which
// names and options, and how to reach them.

var typeTime = reflect.TypeFor[time.Time]()

// fieldOptions are a struct field's tag options.
type fieldOptions struct {
	omitEmpty bool
	set       expr.Type // 0, TypeSS, TypeNS or TypeBS
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
			o.set = expr.TypeSS
		case "numberset":
			o.set = expr.TypeNS
		case "binaryset":
			o.set = expr.TypeBS
		case "unixtime":
			o.unixTime = true
		}
	}
	return name, o
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

// settableField walks index from struct rv, allocating nil embedded
// pointers on the way.
func settableField(rv reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				if !rv.CanSet() {
					return reflect.Value{}, errors.New("nil pointer to unexported embedded struct")
				}
				rv.Set(reflect.New(rv.Type().Elem()))
			}
			rv = rv.Elem()
		}
		rv = rv.Field(x)
	}
	return rv, nil
}
