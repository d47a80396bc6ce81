package expr

import "strconv"

// KeyConditionExpression, Query's choice of items by key (the key
// condition rules of DynamoDB's Query documentation), as a grammar, for a
// key of one partition and at most one sort attribute:
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
// DynamoDB refuses them. A global secondary index's multi-attribute key
// has one pk-eq per partition attribute and sk-conds on a prefix of its
// sort attributes (ParseKeyCondition).
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

// KeyCondition is a parsed KeyConditionExpression, for a key whose
// partition key is one or more attributes and whose sort key is none, one
// or more (a global secondary index's multi-attribute key: up to four of
// each).
//
// Invariants:
//
//  1. Hash holds one value per partition key attribute, in key schema
//     order, each of its attribute's type and passed the caller's check.
//  2. Eq holds equalities on the first len(Eq) sort key attributes, and
//     Op is the condition on sort key attribute len(Eq), SortNone when
//     there is none (then Eq is empty); so the sort key terms are a
//     left-to-right prefix of equalities with at most one range
//     condition, on the last attribute given. Eq, Lo (and Hi, for
//     BETWEEN) have their attributes' types and passed the check;
//     begins_with only on an S or B attribute.
//  3. For BETWEEN, Lo <= Hi.
type KeyCondition[V any] struct {
	Hash   []V
	Eq     []V
	Op     string
	Lo, Hi V
}

// Flipped is the comparison with its operands swapped: ":v < sk" is
// "sk > :v".
var Flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// ParseKeyCondition parses a KeyConditionExpression for a key with
// partition attributes hash (at least one) and sort attributes rng (none
// or more), in key schema order. Placeholders are resolved in c and marked
// used. Every value compared with a key attribute must have the
// attribute's type and pass check, whose errors are returned as they are;
// the others are *[Error].
//
// The terms may come in any order. Every partition attribute needs one =
// term ("Query condition missed key schema element" names the first one
// missing, in key schema order); the sort attributes given must be a
// prefix of rng whose terms are all = but the last. DynamoDB's text for a
// gap or an early range condition names the first attribute that lacks
// its equality and the next one that has a term ("RANGE key attributes a
// must have equality conditions specified in the query because a
// condition is present on key attribute b"), as the service words it for
// a global secondary index with a multi-attribute key (the developer
// guide's "Multi-attribute key schema" states the rule, not the text).
func ParseKeyCondition[V any](ops Ops[V], c *Context[V], src string, hash, rng []KeyAttr, check func(name string, v V, want Type, hash bool) error) (*KeyCondition[V], error) {
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
	if len(hash) == 1 && len(rng) <= 1 && len(terms) > 2 {
		// A one-attribute key's words; a multi-attribute key has more
		// terms, and a term too many names a key twice or a non-key.
		return nil, keyCondError("Conditions can be of length 1 or 2 only")
	}
	type sortTerm struct {
		op   string
		vals []V
	}
	hashVals := make([]V, len(hash))
	seenHash := make([]bool, len(hash))
	sorts := make([]*sortTerm, len(rng))
	nonKey := false
	find := func(attrs []KeyAttr, name string) int {
		for i, a := range attrs {
			if a.Name == name {
				return i
			}
		}
		return -1
	}
	for _, term := range terms {
		name, op, vals, err := keyTerm(term)
		if err != nil {
			return nil, err
		}
		if i := find(hash, name); i >= 0 {
			if seenHash[i] {
				return nil, keyCondError("KeyConditionExpressions must only contain one condition per key")
			}
			seenHash[i] = true
			if op != SortEq {
				return nil, keyCondError("Query key condition not supported")
			}
			if err := checkValue(name, vals[0], hash[i].Type, true); err != nil {
				return nil, err
			}
			hashVals[i] = vals[0]
			continue
		}
		if i := find(rng, name); i >= 0 {
			if sorts[i] != nil {
				return nil, keyCondError("KeyConditionExpressions must only contain one condition per key")
			}
			if op == SortBeginsWith && rng[i].Type == TypeN {
				return nil, newError(kindKeyCondition, ReasonOperandType+"begins_with, operand type: N")
			}
			for _, v := range vals {
				if err := checkValue(name, v, rng[i].Type, false); err != nil {
					return nil, err
				}
			}
			sorts[i] = &sortTerm{op: op, vals: vals}
			continue
		}
		// A condition on an attribute outside the key schema: DynamoDB
		// names the partition key when the condition lacks it.
		nonKey = true
	}
	for i, seen := range seenHash {
		if !seen {
			return nil, keyCondError("Query condition missed key schema element: " + hash[i].Name)
		}
	}
	if nonKey {
		return nil, keyCondError("Query key condition not supported")
	}
	// The sort terms: every attribute before one that has a term needs an
	// equality (the guide's left-to-right rule).
	for later := 1; later < len(rng); later++ {
		if sorts[later] == nil {
			continue
		}
		for prior := range later {
			if sorts[prior] == nil || sorts[prior].op != SortEq {
				return nil, keyCondError("RANGE key attributes " + rng[prior].Name +
					" must have equality conditions specified in the query because a condition is present on key attribute " + rng[later].Name)
			}
		}
	}
	kc := &KeyCondition[V]{Hash: hashVals}
	for i, st := range sorts {
		if st == nil {
			break
		}
		if i+1 < len(sorts) && sorts[i+1] != nil {
			kc.Eq = append(kc.Eq, st.vals[0])
			continue
		}
		kc.Op, kc.Lo = st.op, st.vals[0]
		if st.op == SortBetween {
			kc.Hi = st.vals[1]
		}
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
