package fdyno

// KeyConditionExpression, Query's choice of items by key, is parsed and
// checked for the key-condition shape by package internal/expr; here the
// values compared with key attributes are checked as key values.

import (
	"strconv"

	"github.com/fdyno/fdyno/internal/expr"
)

// keyCondition is a parsed KeyConditionExpression; see
// [expr.KeyCondition].
type keyCondition = expr.KeyCondition[Value]

// parseKeyCondition parses a KeyConditionExpression for a key with
// partition attributes hash and sort attributes rng (none or more; more
// than one of either only for a GSI's multi-attribute key, index_keys.go).
// Placeholders are resolved in c and marked used. Values compared with a
// key attribute must be legal key values of its type. Errors are
// *[ValidationError].
func parseKeyCondition(c *exprContext, src string, hash, rng []keyAttr) (*keyCondition, error) {
	conv := func(as []keyAttr) []expr.KeyAttr {
		out := make([]expr.KeyAttr, len(as))
		for i, a := range as {
			out[i] = expr.KeyAttr{Name: a.Name, Type: expr.Type(a.Type)}
		}
		return out
	}
	kc, err := expr.ParseKeyCondition[Value](valueOps{}, c, src, conv(hash), conv(rng), checkKeyCondValue)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return kc, nil
}

// checkKeyCondValue checks a value compared with a key attribute, of the
// attribute's type: a legal key value.
func checkKeyCondValue(name string, v Value, want expr.Type, hash bool) error {
	return checkKeyValue(name, v, Type(want), hash)
}

// keyConditionString returns the condition as expression text with the
// values written in DynamoDB JSON, for tests and messages: the partition
// attributes are hash, hash2, …, the sort attributes range, range2, ….
func keyConditionString(kc *keyCondition) string {
	name := func(base string, i int) string {
		if i == 0 {
			return base
		}
		return base + strconv.Itoa(i+1)
	}
	var s string
	for i, h := range kc.Hash {
		if i > 0 {
			s += " AND "
		}
		s += name("hash", i) + " = " + h.String()
	}
	for i, v := range kc.Eq {
		s += " AND " + name("range", i) + " = " + v.String()
	}
	r := name("range", len(kc.Eq))
	switch kc.Op {
	case expr.SortNone:
	case expr.SortBetween:
		s += " AND " + r + " BETWEEN " + kc.Lo.String() + " AND " + kc.Hi.String()
	case expr.SortBeginsWith:
		s += " AND begins_with(" + r + ", " + kc.Lo.String() + ")"
	default:
		s += " AND " + r + " " + kc.Op + " " + kc.Lo.String()
	}
	return s
}
