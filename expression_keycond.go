package fdyno

// KeyConditionExpression, Query's choice of items by key (the key
// condition rules of DynamoDB's Query documentation), as a grammar:
//
//	key-cond := pk-eq [ AND sk-cond ]      either order, parentheses allowed
//	pk-eq    := pk = :v | :v = pk
//	sk-cond  := sk (= | < | <= | > | >=) :v | :v (…) sk
//	          | sk BETWEEN :lo AND :hi
//	          | begins_with(sk, :prefix)
//
// The expression is parsed by the condition parser (package internal/expr),
// so it has exactly the condition grammar's tokens, syntax errors,
// placeholders and parenthesis rules, and the tree is then checked for
// the key-condition shape: OR, NOT, IN and <> and every function but
// begins_with are refused, as DynamoDB refuses them.
// See https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html.

import (
	"github.com/fdyno/fdyno/internal/expr"
	"strconv"
)

// kindKeyCondition is the expression kind DynamoDB names in its messages.
const kindKeyCondition = "KeyConditionExpression"

// Sort key operators of a keyCondition.
const (
	sortNone       = ""
	sortEq         = "="
	sortLt         = "<"
	sortLe         = "<="
	sortGt         = ">"
	sortGe         = ">="
	sortBetween    = "BETWEEN"
	sortBeginsWith = "begins_with"
)

// keyCondition is a parsed KeyConditionExpression.
//
// Invariants:
//
//  1. hash has the type of the key's hash attribute and passes
//     checkKeyValue.
//  2. op is sortNone when the condition has no sort key term; otherwise
//     the key has a sort key and lo (and hi, for BETWEEN) have its type
//     and pass checkKeyValue; begins_with only on an S or B sort key.
//  3. For BETWEEN, lo <= hi.
type keyCondition struct {
	hash   Value
	op     string
	lo, hi Value
}

// parseKeyCondition parses a KeyConditionExpression for a key with hash
// attribute hash and sort attribute rng (Name "" if none). Placeholders are
// resolved in c and marked used. Errors are *[ValidationError].
func parseKeyCondition(c *exprContext, src string, hash, rng keyAttr) (*keyCondition, error) {
	cond, err := parseConditionKind(c, kindKeyCondition, src)
	if err != nil {
		return nil, err
	}
	var terms []*condition
	var flatten func(cd *condition) error
	flatten = func(cd *condition) error {
		switch cd.Kind {
		case expr.CondAnd:
			if err := flatten(cd.Left); err != nil {
				return err
			}
			return flatten(cd.Right)
		case expr.CondOr:
			return keyCondError("Invalid operator used in KeyConditionExpression: OR")
		case expr.CondNot:
			return keyCondError("Invalid operator used in KeyConditionExpression: NOT")
		case expr.CondIn:
			return keyCondError("Invalid operator used in KeyConditionExpression: IN")
		}
		terms = append(terms, cd)
		return nil
	}
	if err := flatten(cond); err != nil {
		return nil, err
	}
	if len(terms) > 2 {
		return nil, keyCondError("Conditions can be of length 1 or 2 only")
	}
	kc := &keyCondition{}
	seenHash, nonKey := false, false
	for _, term := range terms {
		name, op, vals, err := keyTerm(term)
		if err != nil {
			return nil, err
		}
		switch {
		case name == hash.Name:
			if seenHash {
				return nil, keyCondError("KeyConditionExpressions must only contain one condition per key")
			}
			seenHash = true
			if op != sortEq {
				return nil, keyCondError("Query key condition not supported")
			}
			if err := checkKeyCondValue(name, vals[0], hash.Type, true); err != nil {
				return nil, err
			}
			kc.hash = vals[0]
		case rng.Name != "" && name == rng.Name:
			if kc.op != sortNone {
				return nil, keyCondError("KeyConditionExpressions must only contain one condition per key")
			}
			if op == sortBeginsWith && rng.Type == TypeN {
				return nil, exprError(kindKeyCondition, expr.ReasonOperandType+"begins_with, operand type: N")
			}
			for _, v := range vals {
				if err := checkKeyCondValue(name, v, rng.Type, false); err != nil {
					return nil, err
				}
			}
			kc.op, kc.lo = op, vals[0]
			if op == sortBetween {
				kc.hi = vals[1]
			}
		default:
			// A condition on an attribute outside the key schema: DynamoDB
			// names the partition key when the condition lacks it.
			nonKey = true
		}
	}
	if !seenHash {
		return nil, keyCondError("Query condition missed key schema element: " + hash.Name)
	}
	if nonKey {
		return nil, keyCondError("Query key condition not supported")
	}
	return kc, nil
}

func keyCondError(reason string) error {
	return &ValidationError{Reason: reason}
}

// checkKeyCondValue checks a value compared with a key attribute: of the
// attribute's type and a legal key value.
func checkKeyCondValue(name string, v Value, want Type, hash bool) error {
	if v.typ != want {
		return keyCondError("One or more parameter values were invalid: Condition parameter type does not match schema type")
	}
	if err := checkKeyValue(name, v, want, hash); err != nil {
		return err
	}
	return nil
}

// flipped is the comparison with its operands swapped: ":v < sk" is
// "sk > :v".
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// keyTerm returns the attribute, operator and values of one term of a key
// condition, normalized so that the attribute is on the left.
func keyTerm(cd *condition) (name, op string, vals []Value, err error) {
	attr := func(o operand) (string, bool) {
		if o.Kind != expr.OpPath {
			return "", false
		}
		if len(o.Path) != 1 || o.Path[0].IsIndex {
			return "", false
		}
		return o.Path[0].Name, true
	}
	value := func(o operand) (Value, bool) {
		return o.Value, o.Kind == expr.OpValue
	}
	notSupported := func(o operand) error {
		if o.Kind == expr.OpPath && len(o.Path) > 1 {
			return keyCondError("KeyConditionExpressions cannot have conditions on nested attributes")
		}
		if o.Kind == expr.OpCall {
			return exprError(kindKeyCondition, expr.ReasonFunctionMisused+o.Fn)
		}
		return keyCondError("Query key condition not supported")
	}
	switch cd.Kind {
	case expr.CondCompare:
		if cd.Op == "<>" {
			return "", "", nil, keyCondError("Unsupported operator on KeyConditionExpression: operator: <>")
		}
		l, r := cd.Args[0], cd.Args[1]
		op = cd.Op
		if l.Kind == expr.OpValue {
			l, r, op = r, l, flipped[op]
		}
		n, ok := attr(l)
		if !ok {
			return "", "", nil, notSupported(l)
		}
		v, ok := value(r)
		if !ok {
			return "", "", nil, notSupported(r)
		}
		return n, op, []Value{v}, nil
	case expr.CondBetween:
		n, ok := attr(cd.Args[0])
		if !ok {
			return "", "", nil, notSupported(cd.Args[0])
		}
		lo, ok1 := value(cd.Args[1])
		hi, ok2 := value(cd.Args[2])
		if !ok1 || !ok2 {
			return "", "", nil, keyCondError("Query key condition not supported")
		}
		return n, sortBetween, []Value{lo, hi}, nil
	case expr.CondFunc:
		if cd.Op != "begins_with" {
			return "", "", nil, exprError(kindKeyCondition, expr.ReasonFunctionMisused+cd.Op)
		}
		if len(cd.Args) != 2 {
			return "", "", nil, exprError(kindKeyCondition, expr.ReasonOperandCount+"begins_with, number of operands: "+strconv.Itoa(len(cd.Args)))
		}
		n, ok := attr(cd.Args[0])
		if !ok {
			return "", "", nil, notSupported(cd.Args[0])
		}
		v, ok := value(cd.Args[1])
		if !ok {
			return "", "", nil, notSupported(cd.Args[1])
		}
		return n, sortBeginsWith, []Value{v}, nil
	}
	return "", "", nil, keyCondError("Query key condition not supported")
}

// String returns the condition as expression text with the values written
// in DynamoDB JSON, for tests and messages.
func (kc *keyCondition) String() string {
	s := "hash = " + kc.hash.String()
	switch kc.op {
	case sortNone:
	case sortBetween:
		s += " AND range BETWEEN " + kc.lo.String() + " AND " + kc.hi.String()
	case sortBeginsWith:
		s += " AND begins_with(range, " + kc.lo.String() + ")"
	default:
		s += " AND range " + kc.op + " " + kc.lo.String()
	}
	return s
}
