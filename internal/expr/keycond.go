package expr

import "strconv"

// KeyConditionExpression, Query's choice of items by key (the key
// condition rules of DynamoDB's Query documentation), as a grammar:
//
//	key-cond := pk-eq [ AND sk-cond ]      either order, parentheses allowed
//	pk-eq    := pk = :v | :v = pk
//	sk-cond  := sk (= | < | <= | > | >=) :v | :v (…) sk
//	          | sk BETWEEN :lo AND :hi
//	          | begins_with(sk, :prefix)
//
// The expression is parsed by the condition parser, so it has exactly the
// condition grammar's tokens, syntax errors, placeholders and parenthesis
// rules, and the tree is then checked for the key-condition shape: OR,
// NOT, IN and <> and every function but begins_with are refused, as
// DynamoDB refuses them.
// See https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html.

// kindKeyCondition is the expression kind DynamoDB names in its messages.
const kindKeyCondition = "KeyConditionExpression"

// Sort key operators of a KeyCondition.
const (
	SortNone       = ""
	SortEq         = "="
	SortLt         = "<"
	SortLe         = "<="
	SortGt         = ">"
	SortGe         = ">="
	SortBetween    = "BETWEEN"
	SortBeginsWith = "begins_with"
)

// KeyAttr is a key attribute: its name and type.
type KeyAttr struct {
	Name string
	Type Type
}

// KeyCondition is a parsed KeyConditionExpression.
//
// Invariants:
//
//  1. Hash has the type of the key's hash attribute and passed the
//     caller's check.
//  2. Op is SortNone when the condition has no sort key term; otherwise
//     the key has a sort key and Lo (and Hi, for BETWEEN) have its type
//     and passed the check; begins_with only on an S or B sort key.
//  3. For BETWEEN, Lo <= Hi.
type KeyCondition[V any] struct {
	Hash   V
	Op     string
	Lo, Hi V
}

// Flipped is the comparison with its operands swapped: ":v < sk" is
// "sk > :v".
var Flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// ParseKeyCondition parses a KeyConditionExpression for a key with hash
// attribute hash and sort attribute rng (Name "" if none). Placeholders are
// resolved in c and marked used. Every value compared with a key
// attribute must have the attribute's type and pass check, whose errors
// are returned as they are; the others are *[Error].
func ParseKeyCondition[V any](ops Ops[V], c *Context[V], src string, hash, rng KeyAttr, check func(name string, v V, want Type, hash bool) error) (*KeyCondition[V], error) {
	cond, err := ParseCondition(ops, c, kindKeyCondition, src)
	if err != nil {
		return nil, err
	}
	checkValue := func(name string, v V, want Type, hash bool) error {
		if ops.Type(v) != want {
			return keyCondError("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
		return check(name, v, want, hash)
	}
	var terms []*Condition[V]
	var flatten func(cd *Condition[V]) error
	flatten = func(cd *Condition[V]) error {
		switch cd.Kind {
		case CondAnd:
			if err := flatten(cd.Left); err != nil {
				return err
			}
			return flatten(cd.Right)
		case CondOr:
			return keyCondError("Invalid operator used in KeyConditionExpression: OR")
		case CondNot:
			return keyCondError("Invalid operator used in KeyConditionExpression: NOT")
		case CondIn:
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
	kc := &KeyCondition[V]{}
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
			if op != SortEq {
				return nil, keyCondError("Query key condition not supported")
			}
			if err := checkValue(name, vals[0], hash.Type, true); err != nil {
				return nil, err
			}
			kc.Hash = vals[0]
		case rng.Name != "" && name == rng.Name:
			if kc.Op != SortNone {
				return nil, keyCondError("KeyConditionExpressions must only contain one condition per key")
			}
			if op == SortBeginsWith && rng.Type == TypeN {
				return nil, newError(kindKeyCondition, ReasonOperandType+"begins_with, Operand[V] type: N")
			}
			for _, v := range vals {
				if err := checkValue(name, v, rng.Type, false); err != nil {
					return nil, err
				}
			}
			kc.Op, kc.Lo = op, vals[0]
			if op == SortBetween {
				kc.Hi = vals[1]
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

// keyCondError is a rejected key condition in DynamoDB's words, which
// do not name the expression kind.
func keyCondError(reason string) error {
	return &Error{Reason: reason}
}

// keyTerm returns the attribute, operator and values of one term of a key
// condition, normalized so that the attribute is on the left.
func keyTerm[V any](cd *Condition[V]) (name, op string, vals []V, err error) {
	attr := func(o Operand[V]) (string, bool) {
		if o.Kind != OpPath {
			return "", false
		}
		if len(o.Path) != 1 || o.Path[0].IsIndex {
			return "", false
		}
		return o.Path[0].Name, true
	}
	value := func(o Operand[V]) (V, bool) {
		return o.Value, o.Kind == OpValue
	}
	notSupported := func(o Operand[V]) error {
		if o.Kind == OpPath && len(o.Path) > 1 {
			return keyCondError("KeyConditionExpressions cannot have conditions on nested attributes")
		}
		if o.Kind == OpCall {
			return newError(kindKeyCondition, ReasonFunctionMisused+o.Fn)
		}
		return keyCondError("Query key condition not supported")
	}
	switch cd.Kind {
	case CondCompare:
		if cd.Op == "<>" {
			return "", "", nil, keyCondError("Unsupported operator on KeyConditionExpression: operator: <>")
		}
		l, r := cd.Args[0], cd.Args[1]
		op = cd.Op
		if l.Kind == OpValue {
			l, r, op = r, l, Flipped[op]
		}
		n, ok := attr(l)
		if !ok {
			return "", "", nil, notSupported(l)
		}
		v, ok := value(r)
		if !ok {
			return "", "", nil, notSupported(r)
		}
		return n, op, []V{v}, nil
	case CondBetween:
		n, ok := attr(cd.Args[0])
		if !ok {
			return "", "", nil, notSupported(cd.Args[0])
		}
		lo, ok1 := value(cd.Args[1])
		hi, ok2 := value(cd.Args[2])
		if !ok1 || !ok2 {
			return "", "", nil, keyCondError("Query key condition not supported")
		}
		return n, SortBetween, []V{lo, hi}, nil
	case CondFunc:
		if cd.Op != "begins_with" {
			return "", "", nil, newError(kindKeyCondition, ReasonFunctionMisused+cd.Op)
		}
		if len(cd.Args) != 2 {
			return "", "", nil, newError(kindKeyCondition, ReasonOperandCount+"begins_with, number of operands: "+strconv.Itoa(len(cd.Args)))
		}
		n, ok := attr(cd.Args[0])
		if !ok {
			return "", "", nil, notSupported(cd.Args[0])
		}
		v, ok := value(cd.Args[1])
		if !ok {
			return "", "", nil, notSupported(cd.Args[1])
		}
		return n, SortBeginsWith, []V{v}, nil
	}
	return "", "", nil, keyCondError("Query key condition not supported")
}
