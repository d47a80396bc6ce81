package fdyno

import (
	"crypto/hmac"
	"crypto/sha256"
)

// layer_api.go holds what a layer built on the Table API (package
// partiql) needs beyond DynamoDB's requests: the key attributes a handle
// knows without I/O, a FilterExpression evaluated on items it already
// read, and a secret to authenticate its own paging tokens.

// KeyAttributes returns the partition key and sort key of the table
// (index "") or of its index named index, as the handle last loaded them,
// without I/O. sort is the zero AttributeDefinition when there is no sort
// key; ok is false when the table has no index of that name. For a global
// secondary index with a multi-attribute key it returns the first
// partition and sort attributes; [Table.KeySchemaAttributes] returns them
// all. It is safe for concurrent use by multiple goroutines.
func (t *Table) KeyAttributes(index string) (hash, sort AttributeDefinition, ok bool) {
	hs, rs, ok := t.KeySchemaAttributes(index)
	if !ok {
		return AttributeDefinition{}, AttributeDefinition{}, false
	}
	if len(rs) > 0 {
		sort = rs[0]
	}
	return hs[0], sort, true
}

// KeySchemaAttributes returns the partition key attributes and sort key
// attributes of the table (index "") or of its index named index, in key
// schema order, as the handle last loaded them, without I/O: one and at
// most one, or for a global secondary index with a multi-attribute key up
// to four of each. ok is false when the table has no index of that name.
// It is safe for concurrent use by multiple goroutines.
func (t *Table) KeySchemaAttributes(index string) (hash, sort []AttributeDefinition, ok bool) {
	st := t.state.Load()
	h, r := st.tableKeyAttrs()
	if index != "" {
		ix := st.index(index)
		if ix == nil {
			return nil, nil, false
		}
		h, r = ix.hash, ix.rng
	}
	defs := func(as []keyAttr) []AttributeDefinition {
		var out []AttributeDefinition
		for _, a := range as {
			out = append(out, AttributeDefinition{AttributeName: a.Name, AttributeType: ScalarAttributeType(a.Type.String())})
		}
		return out
	}
	return defs(h), defs(r), true
}

// TokenKey returns a 32-byte secret of the table for purpose, for a layer
// above the table that wraps the table's cursors in paging tokens of its
// own and must refuse tokens it did not make (package partiql's
// NextToken). It is derived from the secret that authenticates the
// table's cursors, which it does not reveal: different purposes give
// independent keys, and none of them authenticates a table cursor.
func (t *Table) TokenKey(purpose string) []byte {
	mac := hmac.New(sha256.New, t.state.Load().cursorKey)
	mac.Write([]byte("fdyno token key\x00" + purpose))
	return mac.Sum(nil)
}

// Filter is a parsed FilterExpression, for a layer above the table that
// filters items it read itself (such as a point read, which DynamoDB's
// GetItem does not filter). It is immutable and safe for concurrent use
// by multiple goroutines.
type Filter struct {
	cond *condition
}

// ParseFilter parses expr as a Query's FilterExpression, with its
// ExpressionAttributeNames and ExpressionAttributeValues, each of which
// must be used. Errors are *[ValidationError], worded as DynamoDB words a
// bad FilterExpression. It knows no table, so unlike a Query it does not
// refuse a filter on a key attribute.
func ParseFilter(expr string, names map[string]string, values map[string]Value) (*Filter, error) {
	c, err := newExprContext(names, values)
	if err != nil {
		return nil, err
	}
	cond, err := parseConditionKind(c, kindFilter, expr)
	if err != nil {
		return nil, err
	}
	if err := checkAllUsed(c); err != nil {
		return nil, err
	}
	return &Filter{cond: cond}, nil
}

// Match reports whether it satisfies the filter, as a Query's
// FilterExpression decides which items it returns.
func (f *Filter) Match(it Item) bool {
	return testCondition(f.cond, it)
}
