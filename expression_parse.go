package fdyno

import (
	"strconv"
	"strings"

	"github.com/fdyno/fdyno/internal/expr"
)

// parser is a recursive-descent parser over the tokens of one expression.
// Syntax errors end the parse at once. Semantic errors (reserved words,
// undefined placeholders, misused functions, limits) are remembered and
// reported only if the expression is syntactically valid, because DynamoDB
// checks the syntax of the whole expression first.
//
// Work is bounded: an expression has at most maxExpressionLength bytes, so
// at most that many tokens, and each token is consumed once. Recursion is
// at most one level per token.
type parser struct {
	c      *exprContext
	kind   string
	src    string
	toks   []expr.Token
	i      int
	ops    int
	semErr error
	// failedOperand holds, by token index, the error of a failed
	// parseCompOperand from that token.
	failedOperand map[int]error
}

// newParser checks the length of src and tokenizes it.
func newParser(c *exprContext, kind, src string) (*parser, error) {
	if len(src) > maxExpressionLength {
		return nil, exprError(kind, reasonExprTooLong+strconv.Itoa(len(src)))
	}
	if strings.TrimLeft(src, " \t\r\n") == "" {
		return nil, exprError(kind, reasonExprEmpty)
	}
	toks, err := expr.Lex(kind, src)
	if err != nil {
		return nil, validationFromExpr(err)
	}
	return &parser{c: c, kind: kind, src: src, toks: toks}, nil
}

func (p *parser) peek() expr.Token { return p.toks[p.i] }
func (p *parser) peekAt(n int) expr.Token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() expr.Token {
	t := p.toks[p.i]
	if t.Kind != expr.TokEOF {
		p.i++
	}
	return t
}

func (p *parser) accept(k expr.TokKind) bool {
	if p.peek().Kind == k {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(k expr.TokKind) error {
	if !p.accept(k) {
		return p.syntaxError()
	}
	return nil
}

// isKeyword reports whether the current token is the keyword kw, compared
// case-insensitively.
func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.Kind == expr.TokIdent && strings.EqualFold(t.Text, kw)
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

// syntaxError reports the current token as DynamoDB does: the token, and
// the source text from the token before it to the token after it,
// `Syntax error; token: "<", near: "a < <"`. The end of input is "<EOF>".
func (p *parser) syntaxError() error {
	at := p.i
	t := p.toks[at]
	text := t.Text
	if t.Kind == expr.TokEOF {
		text = "<EOF>"
	}
	from, to := t.Pos, t.End
	if at > 0 {
		from = p.toks[at-1].Pos
		if t.Kind == expr.TokEOF {
			to = p.toks[at-1].End
		}
	}
	if t.Kind != expr.TokEOF && p.toks[at+1].Kind != expr.TokEOF {
		to = p.toks[at+1].End
	}
	return exprError(p.kind, "Syntax error; token: "+strconv.Quote(text)+", near: "+strconv.Quote(p.src[from:to]))
}

// semantic records the first semantic error.
func (p *parser) semantic(reason string) {
	if p.semErr == nil {
		p.semErr = exprError(p.kind, reason)
	}
}

// op counts one operator against maxExpressionOperators.
func (p *parser) op() { p.ops++ }

// finish requires the end of input and reports any semantic error.
func (p *parser) finish() error {
	if p.peek().Kind != expr.TokEOF {
		return p.syntaxError()
	}
	if p.semErr != nil {
		return p.semErr
	}
	if p.ops > maxExpressionOperators {
		return exprError(p.kind, reasonTooManyOperators+strconv.Itoa(p.ops))
	}
	return nil
}

// parsePath parses name ( '.' name | '[' digits ']' )*.
func (p *parser) parsePath() (docPath, error) {
	first, err := p.parseName()
	if err != nil {
		return nil, err
	}
	path := docPath{{Name: first}}
	for {
		switch p.peek().Kind {
		case expr.TokDot:
			p.next()
			name, err := p.parseName()
			if err != nil {
				return nil, err
			}
			path = append(path, pathElem{Name: name})
		case expr.TokLBracket:
			p.next()
			t := p.peek()
			if t.Kind != expr.TokNumber {
				return nil, p.syntaxError()
			}
			n, err := strconv.Atoi(t.Text)
			if err != nil || n > maxListIndex {
				return nil, p.syntaxError()
			}
			p.next()
			if err := p.expect(expr.TokRBracket); err != nil {
				return nil, err
			}
			path = append(path, pathElem{Index: n, IsIndex: true})
		default:
			if len(path) > maxPathDepth {
				p.semantic(reasonPathTooDeep + strconv.Itoa(len(path)))
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
func (p *parser) parseName() (string, error) {
	t := p.peek()
	switch t.Kind {
	case expr.TokIdent:
		if isGrammarKeyword(t.Text) {
			return "", p.syntaxError()
		}
		p.next()
		if expr.IsReservedWord(t.Text) {
			p.semantic(reasonReservedWord + t.Text)
		}
		return t.Text, nil
	case expr.TokName:
		if len(t.Text) < 2 {
			return "", p.syntaxError()
		}
		p.next()
		if len(t.Text) > maxPlaceholderLength {
			// Such a key could not have been supplied.
			p.semantic(reasonNameUndefined + t.Text)
			return t.Text, nil
		}
		name, ok := p.c.name(t.Text)
		if !ok {
			p.semantic(reasonNameUndefined + t.Text)
			return t.Text, nil
		}
		return name, nil
	}
	return "", p.syntaxError()
}

// operand kinds.
type operandKind uint8

const (
	opPath  operandKind = iota + 1 // a document path
	opValue                        // a :value placeholder
	opCall                         // a function call: size, if_not_exists, list_append, ...
	opPlus                         // args[0] + args[1], UpdateExpression SET only
	opMinus                        // args[0] - args[1], UpdateExpression SET only
)

// operand is a value-producing node: a path, a :value, a function call, or
// in SET an addition or subtraction.
type operand struct {
	kind  operandKind
	path  docPath   // opPath
	token string    // opValue: the placeholder, for messages
	value Value     // opValue
	fn    string    // opCall
	args  []operand // opCall, opPlus, opMinus
}

// String returns o as expression text, with paths written without
// placeholders and values as their placeholders.
func (o operand) String() string {
	switch o.kind {
	case opPath:
		return o.path.String()
	case opValue:
		return o.token
	case opPlus, opMinus:
		sign := " + "
		if o.kind == opMinus {
			sign = " - "
		}
		return o.args[0].term() + sign + o.args[1].term()
	case opCall:
		s := make([]string, len(o.args))
		for i, a := range o.args {
			s[i] = a.String()
		}
		return o.fn + "(" + strings.Join(s, ", ") + ")"
	}
	return "?"
}

// term returns o as a term of an addition or subtraction, parenthesized if
// it is one itself.
func (o operand) term() string {
	if o.kind == opPlus || o.kind == opMinus {
		return "(" + o.String() + ")"
	}
	return o.String()
}

// same reports whether o and q are written the same way, for DynamoDB's
// "first operand must be distinct" rule.
func (o operand) same(q operand) bool {
	if o.kind != q.kind {
		return false
	}
	switch o.kind {
	case opPath:
		return o.path.Equal(q.path)
	case opValue:
		return o.token == q.token
	}
	return o.String() == q.String()
}

// describe returns o as DynamoDB names an operand in messages: a path as
// "[a, b]", a value as its placeholder.
func (o operand) describe() string {
	if o.kind == opPath {
		return o.path.ListString()
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

func isFunction(name string) bool {
	return name == "size" || conditionFunctions[name] || updateFunctions[name]
}

// parseOperand parses a path, a :value or a function call.
func (p *parser) parseOperand() (operand, error) {
	t := p.peek()
	switch {
	case t.Kind == expr.TokValue:
		if len(t.Text) < 2 {
			return operand{}, p.syntaxError()
		}
		p.next()
		v, ok := p.c.value(t.Text)
		if !ok {
			p.semantic(reasonValueUndefined + t.Text)
		}
		return operand{kind: opValue, token: t.Text, value: v}, nil
	case t.Kind == expr.TokIdent && p.peekAt(1).Kind == expr.TokLParen && !isGrammarKeyword(t.Text):
		return p.parseCall()
	}
	path, err := p.parsePath()
	if err != nil {
		return operand{}, err
	}
	return operand{kind: opPath, path: path}, nil
}

// parseCall parses name '(' operand (',' operand)* ')'. An argument is a
// path, a value or a call, never a sum: in an UpdateExpression + and -
// appear only at the top of a SET value, so "if_not_exists(c, :a + :b)"
// is a syntax error, as in DynamoDB.
func (p *parser) parseCall() (operand, error) {
	t := p.next()
	p.next() // '('
	if !isFunction(t.Text) {
		p.semantic(reasonInvalidFunction + t.Text)
	}
	o := operand{kind: opCall, fn: t.Text}
	for {
		a, err := p.parseOperand()
		if err != nil {
			return operand{}, err
		}
		o.args = append(o.args, a)
		if !p.accept(expr.TokComma) {
			break
		}
	}
	if err := p.expect(expr.TokRParen); err != nil {
		return operand{}, err
	}
	return o, nil
}

// condKind is the kind of a condition node.
type condKind uint8

const (
	condOr condKind = iota + 1
	condAnd
	condNot
	condCompare // args[0] op args[1]
	condBetween // args[0] BETWEEN args[1] AND args[2]
	condIn      // args[0] IN (args[1:]...)
	condFunc    // fn(args...)
)

// condition is a parsed ConditionExpression (or FilterExpression) node. It
// is immutable after parsing and safe for concurrent use.
type condition struct {
	kind        condKind
	op          string // condCompare: = <> < <= > >=; condFunc: the function name
	left, right *condition
	args        []operand
}

// String returns c as expression text, parenthesized where precedence
// requires, with paths written without placeholders.
func (c *condition) String() string {
	switch c.kind {
	case condOr:
		return c.left.String() + " OR " + c.right.wrap(condOr)
	case condAnd:
		left := c.left.String()
		if c.left.kind == condOr {
			left = "(" + left + ")"
		}
		return left + " AND " + c.right.wrap(condAnd)
	case condNot:
		return "NOT " + c.left.wrap(condNot)
	case condCompare:
		return c.args[0].String() + " " + c.op + " " + c.args[1].String()
	case condBetween:
		return c.args[0].String() + " BETWEEN " + c.args[1].String() + " AND " + c.args[2].String()
	case condIn:
		s := make([]string, len(c.args)-1)
		for i, a := range c.args[1:] {
			s[i] = a.String()
		}
		return c.args[0].String() + " IN (" + strings.Join(s, ", ") + ")"
	case condFunc:
		return operand{kind: opCall, fn: c.op, args: c.args}.String()
	}
	return "?"
}

// wrap prints c as an operand of a parent of kind parent: a child that binds
// less tightly, or as tightly on the right, is parenthesized.
func (c *condition) wrap(parent condKind) string {
	if c.kind == condOr || c.kind == condAnd && parent != condOr {
		return "(" + c.String() + ")"
	}
	return c.String()
}

// parseCondition parses a ConditionExpression. Placeholders are resolved
// in c and marked used. Errors are *[ValidationError] in DynamoDB's words,
// syntax errors with the offending token and its neighbours.
func parseCondition(c *exprContext, src string) (*condition, error) {
	return parseConditionKind(c, kindCondition, src)
}

// parseConditionKind is parseCondition for another kind of condition, such
// as kindFilter, whose name DynamoDB puts in its messages.
func parseConditionKind(c *exprContext, kind, src string) (*condition, error) {
	p, err := newParser(c, kind, src)
	if err != nil {
		return nil, err
	}
	cond, _, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return cond, nil
}

// The parse functions return, besides the node, whether it is exactly a
// parenthesized condition, to reject DynamoDB's "redundant parentheses".

func (p *parser) parseOr() (*condition, bool, error) {
	left, paren, err := p.parseAnd()
	if err != nil {
		return nil, false, err
	}
	for p.isKeyword("OR") {
		p.next()
		p.op()
		right, _, err := p.parseAnd()
		if err != nil {
			return nil, false, err
		}
		left, paren = &condition{kind: condOr, left: left, right: right}, false
	}
	return left, paren, nil
}

func (p *parser) parseAnd() (*condition, bool, error) {
	left, paren, err := p.parseNot()
	if err != nil {
		return nil, false, err
	}
	for p.isKeyword("AND") {
		p.next()
		p.op()
		right, _, err := p.parseNot()
		if err != nil {
			return nil, false, err
		}
		left, paren = &condition{kind: condAnd, left: left, right: right}, false
	}
	return left, paren, nil
}

func (p *parser) parseNot() (*condition, bool, error) {
	if p.isKeyword("NOT") {
		p.next()
		p.op()
		c, _, err := p.parseNot()
		if err != nil {
			return nil, false, err
		}
		return &condition{kind: condNot, left: c}, false, nil
	}
	return p.parsePrimary()
}

var comparators = map[expr.TokKind]string{expr.TokEq: "=", expr.TokNe: "<>", expr.TokLt: "<", expr.TokLe: "<=", expr.TokGt: ">", expr.TokGe: ">="}

// parserState is what a parser must restore to try another parse of the
// same tokens.
type parserState struct {
	i, ops int
	semErr error
}

func (p *parser) save() parserState     { return parserState{p.i, p.ops, p.semErr} }
func (p *parser) restore(s parserState) { p.i, p.ops, p.semErr = s.i, s.ops, s.semErr }
func (p *parser) startsComparison() bool {
	return comparators[p.peek().Kind] != "" || p.isKeyword("BETWEEN") || p.isKeyword("IN")
}

// parseCompOperand parses an operand of a comparison, BETWEEN or IN: an
// operand, or one parenthesized ("(size(a)) = :n"); two pairs around it
// are DynamoDB's redundant parentheses.
//
// A parse that fails is remembered by its first token, so that trying an
// operand at every "(" of "((((a = :v))))" costs linear time, not
// quadratic: the parse from a given token always fails the same way.
func (p *parser) parseCompOperand() (operand, error) {
	start := p.i
	if err := p.failedOperand[start]; err != nil {
		return operand{}, err
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

func (p *parser) parseCompOperandAt() (operand, error) {
	if !p.accept(expr.TokLParen) {
		return p.parseOperand()
	}
	if p.peek().Kind == expr.TokLParen {
		p.semantic(reasonRedundantParens)
	}
	o, err := p.parseCompOperand()
	if err != nil {
		return operand{}, err
	}
	if err := p.expect(expr.TokRParen); err != nil {
		return operand{}, err
	}
	return o, nil
}

func (p *parser) parsePrimary() (*condition, bool, error) {
	if p.peek().Kind == expr.TokLParen {
		// "(" begins a parenthesized condition or a parenthesized
		// operand; only the token after the operand's ")" tells them
		// apart, so try the operand first.
		s := p.save()
		if left, err := p.parseCompOperand(); err == nil && p.startsComparison() {
			return p.parseComparison(left)
		}
		p.restore(s)
	}
	if p.accept(expr.TokLParen) {
		c, paren, err := p.parseOr()
		if err != nil {
			return nil, false, err
		}
		if err := p.expect(expr.TokRParen); err != nil {
			return nil, false, err
		}
		if paren {
			p.semantic(reasonRedundantParens)
		}
		return c, true, nil
	}
	left, err := p.parseOperand()
	if err != nil {
		return nil, false, err
	}
	return p.parseComparison(left)
}

// parseComparison parses the rest of a primary condition after its first
// operand: a comparison, BETWEEN or IN, or nothing if left is a function
// call used as a condition.
func (p *parser) parseComparison(left operand) (*condition, bool, error) {
	t := p.peek()
	var c *condition
	switch {
	case comparators[t.Kind] != "":
		p.next()
		p.op()
		right, err := p.parseCompOperand()
		if err != nil {
			return nil, false, err
		}
		c = &condition{kind: condCompare, op: comparators[t.Kind], args: []operand{left, right}}
	case p.isKeyword("BETWEEN"):
		p.next()
		p.op()
		lo, err := p.parseCompOperand()
		if err != nil {
			return nil, false, err
		}
		if !p.isKeyword("AND") {
			return nil, false, p.syntaxError()
		}
		p.next()
		hi, err := p.parseCompOperand()
		if err != nil {
			return nil, false, err
		}
		c = &condition{kind: condBetween, args: []operand{left, lo, hi}}
		p.checkBetween(lo, hi)
	case p.isKeyword("IN"):
		p.next()
		p.op()
		if err := p.expect(expr.TokLParen); err != nil {
			return nil, false, err
		}
		args := []operand{left}
		for {
			a, err := p.parseCompOperand()
			if err != nil {
				return nil, false, err
			}
			args = append(args, a)
			if !p.accept(expr.TokComma) {
				break
			}
		}
		if err := p.expect(expr.TokRParen); err != nil {
			return nil, false, err
		}
		if len(args)-1 > maxInOperands {
			p.semantic(reasonTooManyIn + strconv.Itoa(len(args)-1))
		}
		c = &condition{kind: condIn, args: args}
	default:
		if left.kind != opCall {
			return nil, false, p.syntaxError()
		}
		p.checkConditionFunction(left)
		return &condition{kind: condFunc, op: left.fn, args: left.args}, false, nil
	}
	for _, a := range c.args {
		p.checkComparisonOperand(a)
	}
	p.checkOrderedConstants(c)
	if c.kind != condIn || len(c.args) > 1 {
		for _, a := range c.args[1:] {
			if a.same(c.args[0]) {
				op := c.op
				if c.kind == condBetween {
					op = "BETWEEN"
				} else if c.kind == condIn {
					op = "IN"
				}
				p.semantic(reasonOperandNotDistinct + op + ", first operand: " + c.args[0].describe())
				break
			}
		}
	}
	return c, false, nil
}

// checkComparisonOperand allows only paths, values and size() as
// operands of a comparison, BETWEEN or IN. size takes a path or a value
// of a type that has a size.
func (p *parser) checkComparisonOperand(o operand) {
	if o.kind != opCall {
		return
	}
	switch {
	case !isFunction(o.fn):
		// Already reported as an invalid function name.
	case updateFunctions[o.fn]:
		p.semantic(reasonFunctionInCond + o.fn)
	case o.fn != "size":
		p.semantic(reasonFunctionMisused + o.fn)
	default:
		if !p.checkArgs(o, 1) {
			return
		}
		switch a := o.args[0]; a.kind {
		case opPath:
		case opValue:
			if !a.value.IsZero() && sizeOf(a.value).IsZero() {
				p.operandTypeError(o.fn, a)
			}
		default:
			p.operandTypeError(o.fn, a)
		}
	}
}

// checkOrderedConstants rejects a constant operand of <, <=, >, >= or
// BETWEEN that no value can be ordered against (anything but N, S and
// B), as DynamoDB does at parse time; = and <> compare values of any
// type.
func (p *parser) checkOrderedConstants(c *condition) {
	name := c.op
	switch {
	case c.kind == condBetween:
		name = "BETWEEN"
	case c.kind != condCompare || c.op == "=" || c.op == "<>":
		return
	}
	for _, a := range c.args {
		if a.kind != opValue || a.value.IsZero() {
			continue
		}
		if t := a.value.typ; t != TypeN && t != TypeS && t != TypeB {
			p.operandTypeError(name, a)
			return
		}
	}
}

// checkConditionFunction validates a function used as a condition.
func (p *parser) checkConditionFunction(o operand) {
	switch {
	case !isFunction(o.fn):
		return
	case updateFunctions[o.fn]:
		p.semantic(reasonFunctionInCond + o.fn)
		return
	case o.fn == "size":
		p.semantic(reasonFunctionMisused + o.fn)
		return
	}
	for _, a := range o.args {
		if a.kind == opCall && a.fn != "size" && isFunction(a.fn) {
			p.semantic(reasonFunctionMisused + a.fn)
			return
		}
		if a.kind == opCall {
			p.checkComparisonOperand(a)
		}
	}
	switch o.fn {
	case "attribute_exists", "attribute_not_exists":
		if p.checkArgs(o, 1) && o.args[0].kind != opPath {
			p.semantic(reasonPathRequired + o.fn)
		}
	case "attribute_type":
		if !p.checkArgs(o, 2) {
			return
		}
		if k := o.args[0].kind; k != opPath && k != opValue {
			p.operandTypeError(o.fn, o.args[0])
			return
		}
		t := o.args[1]
		if t.kind != opValue || (!t.value.IsZero() && t.value.typ != TypeS) {
			p.operandTypeError(o.fn, t)
			return
		}
		if !t.value.IsZero() && typeByName(t.value.s) == 0 {
			p.semantic(reasonAttributeTypeName + t.value.s + ", valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }")
		}
	case "begins_with", "contains":
		if !p.checkArgs(o, 2) {
			return
		}
		first := o.args[0]
		if first.kind != opPath && (o.fn != "begins_with" || first.kind != opValue) {
			p.operandTypeError(o.fn, first)
			return
		}
		if o.fn == "begins_with" {
			// Either operand may be a constant, which must be an S or
			// a B.
			for _, t := range o.args {
				if t.kind == opValue && !t.value.IsZero() && t.value.typ != TypeS && t.value.typ != TypeB {
					p.operandTypeError(o.fn, t)
					return
				}
			}
		}
		if o.args[1].same(o.args[0]) {
			p.semantic(reasonOperandNotDistinct + o.fn + ", first operand: " + o.args[0].describe())
		}
	}
}

// checkArgs reports a wrong number of arguments.
func (p *parser) checkArgs(o operand, n int) bool {
	if len(o.args) != n {
		p.semantic(reasonOperandCount + o.fn + ", number of operands: " + strconv.Itoa(len(o.args)))
		return false
	}
	return true
}

// operandTypeError reports an operand of the wrong kind or type for fn.
func (p *parser) operandTypeError(fn string, o operand) {
	p.semantic(reasonOperandType + fn + ", operand type: " + operandTypeName(o))
}

// operandTypeName names an operand's type in messages: the type of a value,
// or the kind of any other operand.
func operandTypeName(o operand) string {
	switch o.kind {
	case opValue:
		if o.value.IsZero() {
			return "NULL"
		}
		return o.value.typ.String()
	case opPath:
		return "PATH"
	case opCall:
		return "FUNCTION"
	}
	return "OPERATOR"
}

// checkBetween applies DynamoDB's parse-time rules to constant bounds: the
// same type, and lower <= upper.
func (p *parser) checkBetween(lo, hi operand) {
	if lo.kind != opValue || hi.kind != opValue || lo.value.IsZero() || hi.value.IsZero() {
		return
	}
	desc := func(v Value) string {
		s := v.s
		if v.typ == TypeB {
			s = string(appendBase64JSON(nil, v.s))
			s = s[1 : len(s)-1]
		}
		return "{" + v.typ.String() + ":" + s + "}"
	}
	bounds := desc(lo.value) + ", upper bound operand: AttributeValue: " + desc(hi.value)
	if lo.value.typ != hi.value.typ {
		p.semantic(reasonBetweenTypes + bounds)
		return
	}
	if c, ok := compareScalars(lo.value, hi.value); ok && c > 0 {
		p.semantic(reasonBetweenOrder + bounds)
	}
}

// typeByName returns the Type DynamoDB names s, or 0.
func typeByName(s string) Type {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i)
		}
	}
	return 0
}
