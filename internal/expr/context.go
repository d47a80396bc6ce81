package expr

import (
	"sort"
	"strconv"
	"strings"
)

// Context holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues and records which placeholders the request's
// expressions used, so that the unused ones can be rejected as DynamoDB
// does. Parse every expression of the request with the same context, then
// call [Context.CheckAllUsed]. A nil *Context defines nothing. A context is not
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

// CheckAllUsed fails if a supplied placeholder was used by none of the
// expressions parsed with c, in DynamoDB's words: "Value provided in
// ExpressionAttributeNames unused in expressions: keys: {#x}" (names are
// checked before values).
func (c *Context[V]) CheckAllUsed() error {
	if c == nil {
		return nil
	}
	for _, side := range []struct {
		what string
		keys []string
		used map[string]bool
	}{
		{"ExpressionAttributeNames", sortedKeys(c.names), c.usedNames},
		{"ExpressionAttributeValues", sortedKeys(c.values), c.usedValues},
	} {
		var unused []string
		for _, k := range side.keys {
			if !side.used[k] {
				unused = append(unused, k)
			}
		}
		if len(unused) > 0 {
			return &Error{Reason: "Value provided in " + side.what + " unused in expressions: keys: {" + strings.Join(unused, ", ") + "}"}
		}
	}
	return nil
}

// maxSubstitutionsSize bounds ExpressionAttributeNames and
// ExpressionAttributeValues together (the DynamoDB service quotas page,
// "Expression parameters").
const maxSubstitutionsSize = 2 << 20

// CheckContext validates a request's ExpressionAttributeNames and
// ExpressionAttributeValues and returns their context: keys of the form
// #[A-Za-z0-9_]+ and :[A-Za-z0-9_]+ of at most 255 bytes, non-empty
// attribute names that checkName accepts, values that checkValue accepts,
// maps that are nil or non-empty, and at most 2 MB in all. checkName
// returns DynamoDB's reason an attribute name is illegal, or ""; checkValue
// the reason a value is illegal, or "", and its size. Either map may be
// nil. Errors are *[Error] without a kind.
//
// Whether an expression was supplied at all is the caller's to check:
// DynamoDB rejects the maps without one.
func CheckContext[V any](names map[string]string, values map[string]V, checkName func(string) string, checkValue func(V) (size int, reason string)) (*Context[V], error) {
	fail := func(reason string) (*Context[V], error) { return nil, &Error{Reason: reason} }
	if names != nil && len(names) == 0 {
		return fail("ExpressionAttributeNames must not be empty")
	}
	if values != nil && len(values) == 0 {
		return fail("ExpressionAttributeValues must not be empty")
	}
	size := 0
	for _, k := range sortedKeys(names) {
		if !validPlaceholder(k, '#') {
			return fail("ExpressionAttributeNames contains invalid key: Syntax error; key: " + strconv.Quote(k))
		}
		reason := "Empty attribute name"
		if names[k] != "" {
			reason = checkName(names[k])
		}
		if reason != "" {
			return fail("ExpressionAttributeNames contains invalid value: " + reason + " for key " + k)
		}
		size += len(k) + len(names[k])
	}
	for _, k := range sortedKeys(values) {
		if !validPlaceholder(k, ':') {
			return fail("ExpressionAttributeValues contains invalid key: Syntax error; key: " + strconv.Quote(k))
		}
		n, reason := checkValue(values[k])
		if reason != "" {
			return fail("ExpressionAttributeValues contains invalid value: " + reason + " for key " + k)
		}
		size += len(k) + n
	}
	if size > maxSubstitutionsSize {
		return fail("ExpressionAttributeNames and ExpressionAttributeValues exceed the size limit of 2 MB")
	}
	return NewContext(names, values), nil
}

// validPlaceholder reports whether k is sigil followed by 1 to 254 of
// [A-Za-z0-9_].
func validPlaceholder(k string, sigil byte) bool {
	if len(k) < 2 || len(k) > MaxPlaceholderLength || k[0] != sigil {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !IsNameByte(k[i]) {
			return false
		}
	}
	return true
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
