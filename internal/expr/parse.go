package expr

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Parser is a recursive-descent parser over the tokens of one expression.
// Syntax errors end the parse at once. Semantic errors (reserved words,
// undefined placeholders, misused functions, limits) are remembered and
// reported only if the expression is syntactically valid, because DynamoDB
// checks the syntax of the whole expression first.
//
// Work is bounded: an expression has at most MaxExpressionLength bytes, so
// at most that many tokens, and each token is consumed once. Recursion is
// at most one level per token.
type Parser[V any] struct {
	vals   Ops[V]
	c      *Context[V]
	kind   string
	src    string
	toks   []Token
	i      int
	ops    int
	semErr error
	// failedOperand holds, by token index, the error of a failed
	// parseCompOperand from that token.
	failedOperand map[int]error
}

// NewParser checks the length of src and tokenizes it.
func NewParser[V any](ops Ops[V], c *Context[V], kind, src string) (*Parser[V], error) {
	if len(src) > MaxExpressionLength {
		return nil, newError(kind, reasonExprTooLong+strconv.Itoa(len(src)))
	}
	if strings.TrimLeft(src, " \t\r\n") == "" {
		return nil, newError(kind, reasonExprEmpty)
	}
	toks, err := Lex(kind, src)
	if err != nil {
		return nil, err
	}
	return &Parser[V]{vals: ops, c: c, kind: kind, src: src, toks: toks}, nil
}

// Peek returns the current token.
func (p *Parser[V]) Peek() Token { return p.toks[p.i] }
func (p *Parser[V]) peekAt(n int) Token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

// Next consumes and returns the current token; the end of input is never
// consumed.
func (p *Parser[V]) Next() Token {
	t := p.toks[p.i]
	if t.Kind != TokEOF {
		p.i++
	}
	return t
}

// Accept consumes the current token if it is of kind k.
func (p *Parser[V]) Accept(k TokKind) bool {
	if p.Peek().Kind == k {
		p.Next()
		return true
	}
	return false
}

// Expect consumes a token of kind k or fails with a syntax error.
func (p *Parser[V]) Expect(k TokKind) error {
	if !p.Accept(k) {
		return p.SyntaxError()
	}
	return nil
}

// IsKeyword reports whether the current token is the keyword kw, compared
// case-insensitively.
func (p *Parser[V]) IsKeyword(kw string) bool {
	t := p.Peek()
	return t.Kind == TokIdent && strings.EqualFold(t.Text, kw)
}

// grammarKeywords are the keywords of the expression languages; they can
// never start a path, so meeting one where a path belongs is a syntax error
// rather than a reserved-word error.
var grammarKeywords = [...]string{"AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE"}

func isGrammarKeyword(s string) bool {
	for _, kw := range grammarKeywords {
		if strings.EqualFold(s, kw) {
			return true
		}
	}
	return false
}

// SyntaxError reports the current token as DynamoDB does: the token, and
// the source text from the token before it to the token after it,
// `Syntax error; token: "<", near: "a < <"`. The end of input is "<EOF>".
func (p *Parser[V]) SyntaxError() error {
	at := p.i
	t := p.toks[at]
	text := t.Text
	if t.Kind == TokEOF {
		text = "<EOF>"
	}
	from, to := t.Pos, t.End
	if at > 0 {
		from = p.toks[at-1].Pos
		if t.Kind == TokEOF {
			to = p.toks[at-1].End
		}
	}
	if t.Kind != TokEOF && p.toks[at+1].Kind != TokEOF {
		to = p.toks[at+1].End
	}
	return newError(p.kind, "Syntax error; token: "+strconv.Quote(text)+", near: "+strconv.Quote(p.src[from:to]))
}

// Semantic records the first semantic error.
func (p *Parser[V]) Semantic(reason string) {
	if p.semErr == nil {
		p.semErr = newError(p.kind, reason)
	}
}

// Op counts one operator against MaxExpressionOperators.
func (p *Parser[V]) Op() { p.ops++ }

// Finish requires the end of input and reports any semantic error.
func (p *Parser[V]) Finish() error {
	if p.Peek().Kind != TokEOF {
		return p.SyntaxError()
	}
	if p.semErr != nil {
		return p.semErr
	}
	if p.ops > MaxExpressionOperators {
		return newError(p.kind, reasonTooManyOperators+strconv.Itoa(p.ops))
	}
	return nil
}

// ParsePath parses name ( '.' name | '[' digits ']' )*.
func (p *Parser[V]) ParsePath() (Path, error) {
	first, err := p.parseName()
	if err != nil {
		return nil, err
	}
	path := Path{{Name: first}}
	for {
		switch p.Peek().Kind {
		case TokDot:
			p.Next()
			name, err := p.parseName()
			if err != nil {
				return nil, err
			}
			path = append(path, PathElem{Name: name})
		case TokLBracket:
			p.Next()
			t := p.Peek()
			if t.Kind != TokNumber {
				return nil, p.SyntaxError()
			}
			n, err := strconv.Atoi(t.Text)
			if err != nil || n > maxListIndex {
				return nil, p.SyntaxError()
			}
			p.Next()
			if err := p.Expect(TokRBracket); err != nil {
				return nil, err
			}
			path = append(path, PathElem{Index: n, IsIndex: true})
		default:
			if len(path) > MaxPathDepth {
				p.Semantic(reasonPathTooDeep + strconv.Itoa(len(path)))
			}
			return path, nil
		}
	}
}

// maxListIndex bounds a list index literal. DynamoDB documents no limit,
// but a list in a 400 KB item has far fewer elements; the bound keeps
// indexes in an int on every platform.
const maxListIndex = 1<<31 - 1

// parseName parses one path element name: an identifier that is not a
// reserved word, or a defined #placeholder.
func (p *Parser[V]) parseName() (string, error) {
	t := p.Peek()
	switch t.Kind {
	case TokIdent:
		if isGrammarKeyword(t.Text) {
			return "", p.SyntaxError()
		}
		p.Next()
		if IsReservedWord(t.Text) {
			p.Semantic(reasonReservedWord + t.Text)
		}
		return t.Text, nil
	case TokName:
		if len(t.Text) < 2 {
			return "", p.SyntaxError()
		}
		p.Next()
		if len(t.Text) > MaxPlaceholderLength {
			// Such a key could not have been supplied.
			p.Semantic(reasonNameUndefined + t.Text)
			return t.Text, nil
		}
		name, ok := p.c.Name(t.Text)
		if !ok {
			p.Semantic(reasonNameUndefined + t.Text)
			return t.Text, nil
		}
		return name, nil
	}
	return "", p.SyntaxError()
}

// ParseCondition parses a condition of the given kind (ConditionExpression,
// FilterExpression, KeyConditionExpression), with placeholders resolved in
// c and marked used. Errors are *[Error] in DynamoDB's words, syntax
// errors with the offending token and its neighbours.
func ParseCondition[V any](ops Ops[V], c *Context[V], kind, src string) (*Condition[V], error) {
	p, err := NewParser(ops, c, kind, src)
	if err != nil {
		return nil, err
	}
	cond, _, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if err := p.Finish(); err != nil {
		return nil, err
	}
	return cond, nil
}

// The parse functions return, besides the node, whether it is exactly a
// parenthesized condition, to reject DynamoDB's "redundant parentheses".

func (p *Parser[V]) parseOr() (*Condition[V], bool, error) {
	left, paren, err := p.parseAnd()
	if err != nil {
		return nil, false, err
	}
	for p.IsKeyword("OR") {
		p.Next()
		p.Op()
		right, _, err := p.parseAnd()
		if err != nil {
			return nil, false, err
		}
		left, paren = &Condition[V]{Kind: CondOr, Left: left, Right: right}, false
	}
	return left, paren, nil
}

func (p *Parser[V]) parseAnd() (*Condition[V], bool, error) {
	left, paren, err := p.parseNot()
	if err != nil {
		return nil, false, err
	}
	for p.IsKeyword("AND") {
		p.Next()
		p.Op()
		right, _, err := p.parseNot()
		if err != nil {
			return nil, false, err
		}
		left, paren = &Condition[V]{Kind: CondAnd, Left: left, Right: right}, false
	}
	return left, paren, nil
}

func (p *Parser[V]) parseNot() (*Condition[V], bool, error) {
	if p.IsKeyword("NOT") {
		p.Next()
		p.Op()
		c, _, err := p.parseNot()
		if err != nil {
			return nil, false, err
		}
		return &Condition[V]{Kind: CondNot, Left: c}, false, nil
	}
	return p.parsePrimary()
}

var comparators = map[TokKind]string{TokEq: "=", TokNe: "<>", TokLt: "<", TokLe: "<=", TokGt: ">", TokGe: ">="}

// parserState is what a parser must restore to try another parse of the
// same tokens.
type parserState struct {
	i, ops int
	semErr error
}

func (p *Parser[V]) save() parserState     { return parserState{p.i, p.ops, p.semErr} }
func (p *Parser[V]) restore(s parserState) { p.i, p.ops, p.semErr = s.i, s.ops, s.semErr }
func (p *Parser[V]) startsComparison() bool {
	return comparators[p.Peek().Kind] != "" || p.IsKeyword("BETWEEN") || p.IsKeyword("IN")
}

// parseCompOperand parses an operand of a comparison, BETWEEN or IN: an
// operand, or one parenthesized ("(size(a)) = :n"); two pairs around it
// are DynamoDB's redundant parentheses.
//
// A parse that fails is remembered by its first token, so that trying an
// operand at every "(" of "((((a = :v))))" costs linear time, not
// quadratic: the parse from a given token always fails the same way.
func (p *Parser[V]) parseCompOperand() (Operand[V], error) {
	start := p.i
	if err := p.failedOperand[start]; err != nil {
		return Operand[V]{}, err
	}
	o, err := p.parseCompOperandAt()
	if err != nil {
		if p.failedOperand == nil {
			p.failedOperand = make(map[int]error)
		}
		p.failedOperand[start] = err
	}
	return o, err
}

func (p *Parser[V]) parseCompOperandAt() (Operand[V], error) {
	if !p.Accept(TokLParen) {
		return p.ParseOperand()
	}
	if p.Peek().Kind == TokLParen {
		p.Semantic(reasonRedundantParens)
	}
	o, err := p.parseCompOperand()
	if err != nil {
		return Operand[V]{}, err
	}
	if err := p.Expect(TokRParen); err != nil {
		return Operand[V]{}, err
	}
	return o, nil
}

func (p *Parser[V]) parsePrimary() (*Condition[V], bool, error) {
	if p.Peek().Kind == TokLParen {
		// "(" begins a parenthesized condition or a parenthesized
		// operand; only the token after the operand's ")" tells them
		// apart, so try the operand first.
		s := p.save()
		if left, err := p.parseCompOperand(); err == nil && p.startsComparison() {
			return p.parseComparison(left)
		}
		p.restore(s)
	}
	if p.Accept(TokLParen) {
		c, paren, err := p.parseOr()
		if err != nil {
			return nil, false, err
		}
		if err := p.Expect(TokRParen); err != nil {
			return nil, false, err
		}
		if paren {
			p.Semantic(reasonRedundantParens)
		}
		return c, true, nil
	}
	left, err := p.ParseOperand()
	if err != nil {
		return nil, false, err
	}
	return p.parseComparison(left)
}

// parseComparison parses the rest of a primary condition after its first
// operand: a comparison, BETWEEN or IN, or nothing if left is a function
// call used as a condition.
func (p *Parser[V]) parseComparison(left Operand[V]) (*Condition[V], bool, error) {
	t := p.Peek()
	var c *Condition[V]
	switch {
	case comparators[t.Kind] != "":
		p.Next()
		p.Op()
		right, err := p.parseCompOperand()
		if err != nil {
			return nil, false, err
		}
		c = &Condition[V]{Kind: CondCompare, Op: comparators[t.Kind], Args: []Operand[V]{left, right}}
	case p.IsKeyword("BETWEEN"):
		p.Next()
		p.Op()
		lo, err := p.parseCompOperand()
		if err != nil {
			return nil, false, err
		}
		if !p.IsKeyword("AND") {
			return nil, false, p.SyntaxError()
		}
		p.Next()
		hi, err := p.parseCompOperand()
		if err != nil {
			return nil, false, err
		}
		c = &Condition[V]{Kind: CondBetween, Args: []Operand[V]{left, lo, hi}}
		p.checkBetween(lo, hi)
	case p.IsKeyword("IN"):
		p.Next()
		p.Op()
		if err := p.Expect(TokLParen); err != nil {
			return nil, false, err
		}
		args := []Operand[V]{left}
		for {
			a, err := p.parseCompOperand()
			if err != nil {
				return nil, false, err
			}
			args = append(args, a)
			if !p.Accept(TokComma) {
				break
			}
		}
		if err := p.Expect(TokRParen); err != nil {
			return nil, false, err
		}
		if len(args)-1 > MaxInOperands {
			p.Semantic(reasonTooManyIn + strconv.Itoa(len(args)-1))
		}
		c = &Condition[V]{Kind: CondIn, Args: args}
	default:
		if left.Kind != OpCall {
			return nil, false, p.SyntaxError()
		}
		p.checkConditionFunction(left)
		return &Condition[V]{Kind: CondFunc, Op: left.Fn, Args: left.Args}, false, nil
	}
	for _, a := range c.Args {
		p.checkComparisonOperand(a)
	}
	p.checkOrderedConstants(c)
	if c.Kind != CondIn || len(c.Args) > 1 {
		for _, a := range c.Args[1:] {
			if a.Same(c.Args[0]) {
				op := c.Op
				if c.Kind == CondBetween {
					op = "BETWEEN"
				} else if c.Kind == CondIn {
					op = "IN"
				}
				p.Semantic(reasonOperandNotDistinct + op + ", first operand: " + c.Args[0].Describe())
				break
			}
		}
	}
	return c, false, nil
}

// checkComparisonOperand allows only paths, values and size() as
// operands of a comparison, BETWEEN or IN. size takes a path or a value
// of a type that has a size.
func (p *Parser[V]) checkComparisonOperand(o Operand[V]) {
	if o.Kind != OpCall {
		return
	}
	switch {
	case !IsFunction(o.Fn):
		// Already reported as an invalid function name.
	case updateFunctions[o.Fn]:
		p.Semantic(reasonFunctionInCond + o.Fn)
	case o.Fn != "size":
		p.Semantic(ReasonFunctionMisused + o.Fn)
	default:
		if !p.CheckArgs(o, 1) {
			return
		}
		switch a := o.Args[0]; a.Kind {
		case OpPath:
		case OpValue:
			if !p.isZero(a.Value) && !p.typ(a.Value).HasSize() {
				p.OperandTypeError(o.Fn, a)
			}
		default:
			p.OperandTypeError(o.Fn, a)
		}
	}
}

// checkOrderedConstants rejects a constant operand of <, <=, >, >= or
// BETWEEN that no value can be ordered against (anything but N, S and
// B), as DynamoDB does at parse time; = and <> compare values of any
// type.
func (p *Parser[V]) checkOrderedConstants(c *Condition[V]) {
	name := c.Op
	switch {
	case c.Kind == CondBetween:
		name = "BETWEEN"
	case c.Kind != CondCompare || c.Op == "=" || c.Op == "<>":
		return
	}
	for _, a := range c.Args {
		if a.Kind != OpValue || p.isZero(a.Value) {
			continue
		}
		if t := p.typ(a.Value); t != TypeN && t != TypeS && t != TypeB {
			p.OperandTypeError(name, a)
			return
		}
	}
}

// checkConditionFunction validates a function used as a condition.
func (p *Parser[V]) checkConditionFunction(o Operand[V]) {
	switch {
	case !IsFunction(o.Fn):
		return
	case updateFunctions[o.Fn]:
		p.Semantic(reasonFunctionInCond + o.Fn)
		return
	case o.Fn == "size":
		p.Semantic(ReasonFunctionMisused + o.Fn)
		return
	}
	for _, a := range o.Args {
		if a.Kind == OpCall && a.Fn != "size" && IsFunction(a.Fn) {
			p.Semantic(ReasonFunctionMisused + a.Fn)
			return
		}
		if a.Kind == OpCall {
			p.checkComparisonOperand(a)
		}
	}
	switch o.Fn {
	case "attribute_exists", "attribute_not_exists":
		if p.CheckArgs(o, 1) && o.Args[0].Kind != OpPath {
			p.Semantic(reasonPathRequired + o.Fn)
		}
	case "attribute_type":
		if !p.CheckArgs(o, 2) {
			return
		}
		if k := o.Args[0].Kind; k != OpPath && k != OpValue {
			p.OperandTypeError(o.Fn, o.Args[0])
			return
		}
		t := o.Args[1]
		if t.Kind != OpValue || (!p.isZero(t.Value) && p.typ(t.Value) != TypeS) {
			p.OperandTypeError(o.Fn, t)
			return
		}
		if !p.isZero(t.Value) && TypeByName(t.scalar.Text) == 0 {
			p.Semantic(reasonAttributeTypeName + t.scalar.Text + ", valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }")
		}
	case "begins_with", "contains":
		if !p.CheckArgs(o, 2) {
			return
		}
		first := o.Args[0]
		if first.Kind != OpPath && (o.Fn != "begins_with" || first.Kind != OpValue) {
			p.OperandTypeError(o.Fn, first)
			return
		}
		if o.Fn == "begins_with" {
			// Either operand may be a constant, which must be an S or
			// a B.
			for _, t := range o.Args {
				if t.Kind == OpValue && !p.isZero(t.Value) && p.typ(t.Value) != TypeS && p.typ(t.Value) != TypeB {
					p.OperandTypeError(o.Fn, t)
					return
				}
			}
		}
		if o.Args[1].Same(o.Args[0]) {
			p.Semantic(reasonOperandNotDistinct + o.Fn + ", first operand: " + o.Args[0].Describe())
		}
	}
}

// CheckArgs reports a wrong number of arguments.
func (p *Parser[V]) CheckArgs(o Operand[V], n int) bool {
	if len(o.Args) != n {
		p.Semantic(ReasonOperandCount + o.Fn + ", number of operands: " + strconv.Itoa(len(o.Args)))
		return false
	}
	return true
}

// OperandTypeError reports an operand of the wrong kind or type for fn.
func (p *Parser[V]) OperandTypeError(fn string, o Operand[V]) {
	p.Semantic(ReasonOperandType + fn + ", operand type: " + p.operandTypeName(o))
}

// operandTypeName names an operand's type in messages: the type of a value,
// or the kind of any other operand.
func (p *Parser[V]) operandTypeName(o Operand[V]) string {
	switch o.Kind {
	case OpValue:
		if p.isZero(o.Value) {
			return "NULL"
		}
		return p.typ(o.Value).String()
	case OpPath:
		return "PATH"
	case OpCall:
		return "FUNCTION"
	}
	return "OPERATOR"
}

// checkBetween applies DynamoDB's parse-time rules to constant bounds: the
// same type, and lower <= upper.
func (p *Parser[V]) checkBetween(lo, hi Operand[V]) {
	if lo.Kind != OpValue || hi.Kind != OpValue || p.isZero(lo.Value) || p.isZero(hi.Value) {
		return
	}
	desc := func(v V) string {
		s := p.vals.Scalar(v).Text
		if p.typ(v) == TypeB {
			s = base64.StdEncoding.EncodeToString([]byte(s))
		}
		return "{" + p.typ(v).String() + ":" + s + "}"
	}
	bounds := desc(lo.Value) + ", upper bound operand: AttributeValue: " + desc(hi.Value)
	if p.typ(lo.Value) != p.typ(hi.Value) {
		p.Semantic(reasonBetweenTypes + bounds)
		return
	}
	if c, ok := CompareScalars(p.vals, lo.Value, hi.Value); ok && c > 0 {
		p.Semantic(reasonBetweenOrder + bounds)
	}
}

// ParseOperand parses a path, a :value or a function call.
func (p *Parser[V]) ParseOperand() (Operand[V], error) {
	t := p.Peek()
	switch {
	case t.Kind == TokValue:
		if len(t.Text) < 2 {
			return Operand[V]{}, p.SyntaxError()
		}
		p.Next()
		v, ok := p.c.Value(t.Text)
		if !ok {
			p.Semantic(reasonValueUndefined + t.Text)
		}
		return Operand[V]{Kind: OpValue, Token: t.Text, Value: v, scalar: p.vals.Scalar(v)}, nil
	case t.Kind == TokIdent && p.peekAt(1).Kind == TokLParen && !isGrammarKeyword(t.Text):
		return p.parseCall()
	}
	path, err := p.ParsePath()
	if err != nil {
		return Operand[V]{}, err
	}
	return Operand[V]{Kind: OpPath, Path: path}, nil
}

// parseCall parses name '(' operand (',' operand)* ')'. An argument is a
// path, a value or a call, never a sum: in an UpdateExpression + and -
// appear only at the top of a SET value, so "if_not_exists(c, :a + :b)"
// is a syntax error, as in DynamoDB.
func (p *Parser[V]) parseCall() (Operand[V], error) {
	t := p.Next()
	p.Next() // '('
	if !IsFunction(t.Text) {
		p.Semantic(reasonInvalidFunction + t.Text)
	}
	o := Operand[V]{Kind: OpCall, Fn: t.Text}
	for {
		a, err := p.ParseOperand()
		if err != nil {
			return Operand[V]{}, err
		}
		o.Args = append(o.Args, a)
		if !p.Accept(TokComma) {
			break
		}
	}
	if err := p.Expect(TokRParen); err != nil {
		return Operand[V]{}, err
	}
	return o, nil
}
