package expr

import "strings"

// OperandKind is the kind of an operand.
type OperandKind uint8

const (
	OpPath  OperandKind = iota + 1 // a document path
	OpValue                        // a :value placeholder
	OpCall                         // a function call: size, if_not_exists, list_append, ...
	OpPlus                         // args[0] + args[1], UpdateExpression SET only
	OpMinus                        // args[0] - args[1], UpdateExpression SET only
)

// Operand is a value-producing node: a path, a :value, a function call, or
// in SET an addition or subtraction.
type Operand[V any] struct {
	Kind   OperandKind
	Path   Path         // OpPath
	Token  string       // OpValue: the placeholder, for messages
	Value  V            // OpValue
	scalar Scalar       // OpValue: Value's Scalar, taken when parsed
	Fn     string       // OpCall
	Args   []Operand[V] // OpCall, OpPlus, OpMinus
}

// String returns o as expression text, with paths written without
// placeholders and values as their placeholders.
func (o Operand[V]) String() string {
	switch o.Kind {
	case OpPath:
		return o.Path.String()
	case OpValue:
		return o.Token
	case OpPlus, OpMinus:
		sign := " + "
		if o.Kind == OpMinus {
			sign = " - "
		}
		return o.Args[0].term() + sign + o.Args[1].term()
	case OpCall:
		s := make([]string, len(o.Args))
		for i, a := range o.Args {
			s[i] = a.String()
		}
		return o.Fn + "(" + strings.Join(s, ", ") + ")"
	}
	return "?"
}

// term returns o as a term of an addition or subtraction, parenthesized if
// it is one itself.
func (o Operand[V]) term() string {
	if o.Kind == OpPlus || o.Kind == OpMinus {
		return "(" + o.String() + ")"
	}
	return o.String()
}

// Same reports whether o and q are written the same way, for DynamoDB's
// "first operand must be distinct" rule.
func (o Operand[V]) Same(q Operand[V]) bool {
	if o.Kind != q.Kind {
		return false
	}
	switch o.Kind {
	case OpPath:
		return o.Path.Equal(q.Path)
	case OpValue:
		return o.Token == q.Token
	}
	return o.String() == q.String()
}

// Describe returns o as DynamoDB names an operand in messages: a path as
// "[a, b]", a value as its placeholder.
func (o Operand[V]) Describe() string {
	if o.Kind == OpPath {
		return o.Path.ListString()
	}
	return o.String()
}

// Functions of the expression languages. Their names are case-sensitive.
var (
	conditionFunctions = map[string]bool{
		"attribute_exists": true, "attribute_not_exists": true, "attribute_type": true,
		"begins_with": true, "contains": true,
	}
	updateFunctions = map[string]bool{"if_not_exists": true, "list_append": true}
)

func IsFunction(name string) bool {
	return name == "size" || conditionFunctions[name] || updateFunctions[name]
}

// CondKind is the kind of a condition node.
type CondKind uint8

const (
	CondOr CondKind = iota + 1
	CondAnd
	CondNot
	CondCompare // args[0] op args[1]
	CondBetween // args[0] BETWEEN args[1] AND args[2]
	CondIn      // args[0] IN (args[1:]...)
	CondFunc    // fn(args...)
)

// Condition is a parsed ConditionExpression (or FilterExpression) node. It
// is immutable after parsing and safe for concurrent use.
type Condition[V any] struct {
	Kind        CondKind
	Op          string // CondCompare: = <> < <= > >=; CondFunc: the function name
	Left, Right *Condition[V]
	Args        []Operand[V]
}

// String returns c as expression text, parenthesized where precedence
// requires, with paths written without placeholders.
func (c *Condition[V]) String() string {
	switch c.Kind {
	case CondOr:
		return c.Left.String() + " OR " + c.Right.wrap(CondOr)
	case CondAnd:
		left := c.Left.String()
		if c.Left.Kind == CondOr {
			left = "(" + left + ")"
		}
		return left + " AND " + c.Right.wrap(CondAnd)
	case CondNot:
		return "NOT " + c.Left.wrap(CondNot)
	case CondCompare:
		return c.Args[0].String() + " " + c.Op + " " + c.Args[1].String()
	case CondBetween:
		return c.Args[0].String() + " BETWEEN " + c.Args[1].String() + " AND " + c.Args[2].String()
	case CondIn:
		s := make([]string, len(c.Args)-1)
		for i, a := range c.Args[1:] {
			s[i] = a.String()
		}
		return c.Args[0].String() + " IN (" + strings.Join(s, ", ") + ")"
	case CondFunc:
		return Operand[V]{Kind: OpCall, Fn: c.Op, Args: c.Args}.String()
	}
	return "?"
}

// wrap prints c as an operand of a parent of kind parent: a child that binds
// less tightly, or as tightly on the right, is parenthesized.
func (c *Condition[V]) wrap(parent CondKind) string {
	if c.Kind == CondOr || c.Kind == CondAnd && parent != CondOr {
		return "(" + c.String() + ")"
	}
	return c.String()
}

// IsUpdateFunction reports whether name is a function of UpdateExpression
// SET values (if_not_exists, list_append).
func IsUpdateFunction(name string) bool { return updateFunctions[name] }
