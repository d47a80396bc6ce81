package fdyno

// KeyConditionExpression, Query's choice of items by key, is parsed and
// checked for the key-condition shape by package internal/expr; here the
// values compared with key attributes are checked as key values.

import "github.com/fdyno/fdyno/internal/expr"

// keyCondition is a parsed KeyConditionExpression; see
// [expr.KeyCondition].
type keyCondition = expr.KeyCondition[Value]

// parseKeyCondition parses a KeyConditionExpression for a key with hash
// attribute hash and sort attribute rng (Name "" if none). Placeholders are
// resolved in c and marked used. Values compared with a key attribute
// must be legal key values of its type. Errors are *[ValidationError].
func parseKeyCondition(c *exprContext, src string, hash, rng keyAttr) (*keyCondition, error) {
	kc, err := expr.ParseKeyCondition[Value](valueOps{}, c, src,
		expr.KeyAttr{Name: hash.Name, Type: expr.Type(hash.Type)},
		expr.KeyAttr{Name: rng.Name, Type: expr.Type(rng.Type)},
		checkKeyCondValue)
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
// values written in DynamoDB JSON, for tests and messages.
func keyConditionString(kc *keyCondition) string {
	s := "hash = " + kc.Hash.String()
	switch kc.Op {
	case expr.SortNone:
	case expr.SortBetween:
		s += " AND range BETWEEN " + kc.Lo.String() + " AND " + kc.Hi.String()
	case expr.SortBeginsWith:
		s += " AND begins_with(range, " + kc.Lo.String() + ")"
	default:
		s += " AND range " + kc.Op + " " + kc.Lo.String()
	}
	return s
}
