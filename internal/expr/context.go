package expr

import "sort"

// Context holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues and records which placeholders the request's
// expressions used, so that the unused ones can be rejected as DynamoDB
// does. Parse every expression of the request with the same context, then
// call [Context.Unused]. A nil *Context defines nothing. A context is not
// safe for concurrent use.
type Context[V any] struct {
	names      map[string]string
	values     map[string]V
	usedNames  map[string]bool
	usedValues map[string]bool
}

// NewContext returns a context over names and values, which the caller
// has validated. Either may be nil.
func NewContext[V any](names map[string]string, values map[string]V) *Context[V] {
	return &Context[V]{
		names:      names,
		values:     values,
		usedNames:  make(map[string]bool),
		usedValues: make(map[string]bool),
	}
}

// Name resolves a #name placeholder and marks it used.
func (c *Context[V]) Name(k string) (string, bool) {
	if c == nil {
		return "", false
	}
	n, ok := c.names[k]
	if ok {
		c.usedNames[k] = true
	}
	return n, ok
}

// Value resolves a :value placeholder and marks it used.
func (c *Context[V]) Value(k string) (V, bool) {
	if c == nil {
		var zero V
		return zero, false
	}
	v, ok := c.values[k]
	if ok {
		c.usedValues[k] = true
	}
	return v, ok
}

// Unused returns, sorted, the names and the values no expression parsed
// with c used.
func (c *Context[V]) Unused() (names, values []string) {
	if c == nil {
		return nil, nil
	}
	for _, k := range sortedKeys(c.names) {
		if !c.usedNames[k] {
			names = append(names, k)
		}
	}
	for _, k := range sortedKeys(c.values) {
		if !c.usedValues[k] {
			values = append(values, k)
		}
	}
	return names, values
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
