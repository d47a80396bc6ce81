package partiql

import (
	"strconv"
	"strings"

	"github.com/fdyno/fdyno"
)

// parse.go parses DynamoDB's PartiQL dialect into a statement
// tree; plan.go turns the tree into DynamoDB requests. The
// grammar, restated from the developer guide's PartiQL reference
// (ql-reference.select, .insert, .update, .delete and ql-functions):
//
//	statement := select | insert | update | delete | exists
//	select    := SELECT ( '*' | path (',' path)* ) FROM table ['.' index]
//	             [WHERE expr] [ORDER BY path [ASC|DESC] (',' ...)*]
//	insert    := INSERT INTO table VALUE expr
//	update    := UPDATE table ( SET path '=' expr (',' path '=' expr)*
//	             | REMOVE path (',' path)* )+ WHERE expr [RETURNING ret]
//	delete    := DELETE FROM table WHERE expr [RETURNING ALL OLD '*']
//	exists    := EXISTS '(' select ')'              ; ExecuteTransaction only
//	ret       := (ALL | MODIFIED) (OLD | NEW) '*'
//	expr      := or;  or := and (OR and)*;  and := not (AND not)*
//	not       := NOT not | cmp
//	cmp       := sum [ ('='|'<>'|'!='|'<'|'<='|'>'|'>=') sum
//	             | [NOT] BETWEEN sum AND sum | [NOT] IN ( '[' list ']' | '(' list ')' )
//	             | IS [NOT] (MISSING | NULL) ]
//	sum       := unary (('+'|'-') unary)*;  unary := '-' number | primary
//	primary   := literal | '?' | path | name '(' args ')' | '(' expr ')'
//	           | '[' list ']' | '{' (string ':' expr (',' ...)*)? '}' | '<<' list '>>'
//	path      := name ('.' name | '[' integer ']' | '[' string ']')*
//	name      := identifier | "quoted identifier"
//	literal   := 'string' | number | TRUE | FALSE | NULL
//
// Work is bounded: a statement has at most MaxStatementLength bytes, each
// token is consumed once, and nesting is at most maxPQDepth levels.

// maxPQDepth bounds the nesting of expressions, so that recursion depth
// is bounded whatever the input.
const maxPQDepth = 64

// pqKeywords are the reserved words of the grammar: a bare identifier
// that is one of them is never a name; quote it ("value") to use it as
// one.
var pqKeywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"BETWEEN": true, "IN": true, "IS": true, "MISSING": true, "NULL": true, "TRUE": true,
	"FALSE": true, "INSERT": true, "INTO": true, "VALUE": true, "UPDATE": true, "SET": true,
	"REMOVE": true, "DELETE": true, "RETURNING": true, "ORDER": true, "BY": true,
	"ASC": true, "DESC": true, "EXISTS": true,
}

// isPQKeyword reports whether the bare identifier s is a keyword,
// compared case-insensitively, without allocating.
func isPQKeyword(s string) bool {
	var buf [16]byte
	if len(s) > len(buf) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	return pqKeywords[string(buf[:len(s)])]
}

// pqStmtKind is the kind of a statement.
type pqStmtKind uint8

const (
	pqSelect pqStmtKind = iota + 1
	pqInsert
	pqUpdate
	pqDelete
	pqExists // EXISTS(SELECT ...): a condition check in ExecuteTransaction
)

// pqStmt is a parsed statement. It is immutable after parsing.
//
// Invariants:
//
//  1. table is non-empty; index only on a SELECT.
//  2. proj is nil for SELECT *.
//  3. An UPDATE has at least one set or remove, and a WHERE.
//  4. An EXISTS holds its SELECT in sub.
type pqStmt struct {
	kind      pqStmtKind
	table     string
	index     string
	proj      []docPath
	where     *pqExpr
	order     []pqOrder
	value     *pqExpr // INSERT
	sets      []pqSet
	removes   []docPath
	returning string // "", "ALL OLD", "MODIFIED OLD", "ALL NEW", "MODIFIED NEW"
	sub       *pqStmt
	params    int // the number of ? in the statement
}

// pqOrder is one ORDER BY key.
type pqOrder struct {
	path docPath
	desc bool
}

// pqSet is one SET action of an UPDATE.
type pqSet struct {
	path docPath
	val  *pqExpr
}

// pqExprKind is the kind of an expression node.
type pqExprKind uint8

const (
	pqePath    pqExprKind = iota + 1 // path
	pqeLit                           // val
	pqeParam                         // the param-th ? (0-based)
	pqeTuple                         // {keys[i]: args[i]}
	pqeList                          // [args...]
	pqeBag                           // <<args...>>
	pqeCmp                           // args[0] op args[1]
	pqeAnd                           // args[0] AND args[1]
	pqeOr                            // args[0] OR args[1]
	pqeNot                           // NOT args[0]
	pqeBetween                       // args[0] BETWEEN args[1] AND args[2]
	pqeIn                            // args[0] IN [args[1:]...]
	pqeMissing                       // args[0] IS MISSING
	pqeNull                          // args[0] IS NULL
	pqeCall                          // op(args...); op is lower case
	pqeAdd                           // args[0] + args[1]
	pqeSub                           // args[0] - args[1]
)

// pqExpr is an expression node.
type pqExpr struct {
	kind  pqExprKind
	op    string // pqeCmp: = <> < <= > >=; pqeCall: the function
	path  docPath
	val   fdyno.Value
	param int
	keys  []string
	args  []*pqExpr
}

// pqParser is a recursive-descent parser over a statement's tokens.
type pqParser struct {
	toks   []pqToken
	i      int
	depth  int
	params int
}

// parsePartiQL parses one statement. Errors are *[fdyno.ValidationError].
func parsePartiQL(stmt string) (*pqStmt, error) {
	if len(stmt) > MaxStatementLength {
		return nil, &fdyno.ValidationError{Reason: "1 validation error detected: Value at 'statement' failed to satisfy constraint: Member must have length less than or equal to " + strconv.Itoa(MaxStatementLength)}
	}
	if strings.TrimSpace(stmt) == "" {
		return nil, &fdyno.ValidationError{Reason: "1 validation error detected: Value at 'statement' failed to satisfy constraint: Member must have length greater than or equal to 1"}
	}
	toks, err := lexPartiQL(stmt)
	if err != nil {
		return nil, err
	}
	p := &pqParser{toks: toks}
	s, err := p.statement()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != pqEOF {
		return nil, p.unexpected()
	}
	s.params = p.params
	return s, nil
}

func (p *pqParser) peek() pqToken { return p.toks[p.i] }

func (p *pqParser) next() pqToken {
	t := p.toks[p.i]
	if t.kind != pqEOF {
		p.i++
	}
	return t
}

func (p *pqParser) accept(k pqTokKind) bool {
	if p.peek().kind == k {
		p.next()
		return true
	}
	return false
}

func (p *pqParser) expect(k pqTokKind) error {
	if !p.accept(k) {
		return p.unexpected()
	}
	return nil
}

func (p *pqParser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == pqIdent && strings.EqualFold(t.text, kw)
}

func (p *pqParser) acceptKeyword(kw string) bool {
	if p.isKeyword(kw) {
		p.next()
		return true
	}
	return false
}

func (p *pqParser) expectKeyword(kw string) error {
	if !p.acceptKeyword(kw) {
		return pqSyntaxError("expected " + kw + ", found " + p.describe())
	}
	return nil
}

// describe names the current token for a message.
func (p *pqParser) describe() string {
	t := p.peek()
	switch t.kind {
	case pqEOF:
		return "end of statement"
	case pqQuoted:
		return strconv.Quote(t.text)
	case pqString:
		return "'" + t.text + "'"
	}
	return "'" + t.text + "' at position " + strconv.Itoa(t.pos)
}

func (p *pqParser) unexpected() error {
	return pqSyntaxError("unexpected " + p.describe())
}

func (p *pqParser) statement() (*pqStmt, error) {
	switch {
	case p.acceptKeyword("SELECT"):
		return p.selectStmt()
	case p.acceptKeyword("INSERT"):
		return p.insertStmt()
	case p.acceptKeyword("UPDATE"):
		return p.updateStmt()
	case p.acceptKeyword("DELETE"):
		return p.deleteStmt()
	case p.acceptKeyword("EXISTS"):
		if err := p.expect(pqLParen); err != nil {
			return nil, err
		}
		if err := p.expectKeyword("SELECT"); err != nil {
			return nil, err
		}
		sub, err := p.selectStmt()
		if err != nil {
			return nil, err
		}
		if err := p.expect(pqRParen); err != nil {
			return nil, err
		}
		return &pqStmt{kind: pqExists, table: sub.table, sub: sub}, nil
	}
	return nil, p.unexpected()
}

// tableName parses a table or index name.
func (p *pqParser) tableName() (string, error) { return p.identifier("a", "table name") }

// name parses one path name.
func (p *pqParser) name() (string, error) { return p.identifier("an", "attribute name") }

// identifier parses a name: a quoted identifier, or a bare one that is
// not a keyword. what, with its article, names it in errors.
func (p *pqParser) identifier(article, what string) (string, error) {
	t := p.peek()
	if t.kind == pqQuoted || t.kind == pqIdent && !isPQKeyword(t.text) {
		p.next()
		if t.text == "" {
			return "", pqSyntaxError("empty " + what)
		}
		return t.text, nil
	}
	return "", pqSyntaxError("expected " + article + " " + what + ", found " + p.describe())
}

func (p *pqParser) selectStmt() (*pqStmt, error) {
	s := &pqStmt{kind: pqSelect}
	if !p.accept(pqStar) {
		for {
			path, err := p.path()
			if err != nil {
				return nil, err
			}
			s.proj = append(s.proj, path)
			if !p.accept(pqComma) {
				break
			}
		}
	}
	if err := p.expectKeyword("FROM"); err != nil {
		return nil, err
	}
	var err error
	if s.table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.accept(pqDot) {
		if s.index, err = p.tableName(); err != nil {
			return nil, err
		}
	}
	if p.acceptKeyword("WHERE") {
		if s.where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if p.acceptKeyword("ORDER") {
		if err := p.expectKeyword("BY"); err != nil {
			return nil, err
		}
		for {
			path, err := p.path()
			if err != nil {
				return nil, err
			}
			o := pqOrder{path: path}
			if p.acceptKeyword("DESC") {
				o.desc = true
			} else {
				p.acceptKeyword("ASC")
			}
			s.order = append(s.order, o)
			if !p.accept(pqComma) {
				break
			}
		}
	}
	return s, nil
}

func (p *pqParser) insertStmt() (*pqStmt, error) {
	if err := p.expectKeyword("INTO"); err != nil {
		return nil, err
	}
	s := &pqStmt{kind: pqInsert}
	var err error
	if s.table, err = p.tableName(); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("VALUE"); err != nil {
		return nil, err
	}
	if s.value, err = p.sum(); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *pqParser) updateStmt() (*pqStmt, error) {
	s := &pqStmt{kind: pqUpdate}
	var err error
	if s.table, err = p.tableName(); err != nil {
		return nil, err
	}
	for {
		switch {
		case p.acceptKeyword("SET"):
			for {
				path, err := p.path()
				if err != nil {
					return nil, err
				}
				if err := p.expect(pqEq); err != nil {
					return nil, err
				}
				v, err := p.sum()
				if err != nil {
					return nil, err
				}
				s.sets = append(s.sets, pqSet{path: path, val: v})
				if !p.accept(pqComma) {
					break
				}
			}
			continue
		case p.acceptKeyword("REMOVE"):
			for {
				path, err := p.path()
				if err != nil {
					return nil, err
				}
				s.removes = append(s.removes, path)
				if !p.accept(pqComma) {
					break
				}
			}
			continue
		}
		break
	}
	if len(s.sets) == 0 && len(s.removes) == 0 {
		return nil, pqSyntaxError("expected SET or REMOVE, found " + p.describe())
	}
	if err := p.expectKeyword("WHERE"); err != nil {
		return nil, err
	}
	if s.where, err = p.expr(); err != nil {
		return nil, err
	}
	if s.returning, err = p.returning(true); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *pqParser) deleteStmt() (*pqStmt, error) {
	if err := p.expectKeyword("FROM"); err != nil {
		return nil, err
	}
	s := &pqStmt{kind: pqDelete}
	var err error
	if s.table, err = p.tableName(); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("WHERE"); err != nil {
		return nil, err
	}
	if s.where, err = p.expr(); err != nil {
		return nil, err
	}
	if s.returning, err = p.returning(false); err != nil {
		return nil, err
	}
	return s, nil
}

// returning parses an optional RETURNING clause: ALL OLD * for a DELETE,
// and also MODIFIED OLD *, ALL NEW *, MODIFIED NEW * for an UPDATE.
func (p *pqParser) returning(update bool) (string, error) {
	if !p.acceptKeyword("RETURNING") {
		return "", nil
	}
	var which, age string
	switch {
	case p.acceptKeyword("ALL"):
		which = "ALL"
	case update && p.acceptKeyword("MODIFIED"):
		which = "MODIFIED"
	default:
		return "", pqSyntaxError("expected ALL or MODIFIED after RETURNING, found " + p.describe())
	}
	switch {
	case p.acceptKeyword("OLD"):
		age = "OLD"
	case update && p.acceptKeyword("NEW"):
		age = "NEW"
	default:
		return "", pqSyntaxError("expected OLD or NEW, found " + p.describe())
	}
	if err := p.expect(pqStar); err != nil {
		return "", err
	}
	return which + " " + age, nil
}

// path parses a document path.
func (p *pqParser) path() (docPath, error) {
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	return p.pathRest(docPath{{name: n}})
}

func (p *pqParser) pathRest(path docPath) (docPath, error) {
	for {
		switch {
		case p.accept(pqDot):
			n, err := p.name()
			if err != nil {
				return nil, err
			}
			path = append(path, pathElem{name: n})
		case p.accept(pqLBracket):
			t := p.next()
			switch t.kind {
			case pqNumber:
				i, err := strconv.Atoi(t.text)
				if err != nil || i < 0 || i > maxListIndex {
					return nil, pqSyntaxError("invalid list index " + t.text)
				}
				path = append(path, pathElem{index: i, isIndex: true})
			case pqString:
				if t.text == "" {
					return nil, pqSyntaxError("empty attribute name")
				}
				path = append(path, pathElem{name: t.text})
			default:
				p.i--
				return nil, p.unexpected()
			}
			if err := p.expect(pqRBracket); err != nil {
				return nil, err
			}
		default:
			if len(path) > maxPathDepth {
				return nil, &fdyno.ValidationError{Reason: reasonPathTooDeep + strconv.Itoa(len(path))}
			}
			return path, nil
		}
	}
}

// enter and leave bound the nesting depth.
func (p *pqParser) enter() error {
	p.depth++
	if p.depth > maxPQDepth {
		return pqSyntaxError("the statement is nested too deeply")
	}
	return nil
}

func (p *pqParser) leave() { p.depth-- }

func (p *pqParser) expr() (*pqExpr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("OR") {
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = &pqExpr{kind: pqeOr, args: []*pqExpr{left, right}}
	}
	return left, nil
}

func (p *pqParser) and() (*pqExpr, error) {
	left, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("AND") {
		right, err := p.not()
		if err != nil {
			return nil, err
		}
		left = &pqExpr{kind: pqeAnd, args: []*pqExpr{left, right}}
	}
	return left, nil
}

func (p *pqParser) not() (*pqExpr, error) {
	if p.acceptKeyword("NOT") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		e, err := p.not()
		if err != nil {
			return nil, err
		}
		return &pqExpr{kind: pqeNot, args: []*pqExpr{e}}, nil
	}
	return p.cmp()
}

var pqComparators = map[pqTokKind]string{pqEq: "=", pqNe: "<>", pqLt: "<", pqLe: "<=", pqGt: ">", pqGe: ">="}

func (p *pqParser) cmp() (*pqExpr, error) {
	left, err := p.sum()
	if err != nil {
		return nil, err
	}
	if op, ok := pqComparators[p.peek().kind]; ok {
		p.next()
		right, err := p.sum()
		if err != nil {
			return nil, err
		}
		return &pqExpr{kind: pqeCmp, op: op, args: []*pqExpr{left, right}}, nil
	}
	negate := false
	if p.isKeyword("NOT") && p.i+1 < len(p.toks) {
		nt := p.toks[p.i+1]
		if nt.kind == pqIdent && (strings.EqualFold(nt.text, "BETWEEN") || strings.EqualFold(nt.text, "IN")) {
			p.next()
			negate = true
		}
	}
	var e *pqExpr
	switch {
	case p.acceptKeyword("BETWEEN"):
		lo, err := p.sum()
		if err != nil {
			return nil, err
		}
		if err := p.expectKeyword("AND"); err != nil {
			return nil, err
		}
		hi, err := p.sum()
		if err != nil {
			return nil, err
		}
		e = &pqExpr{kind: pqeBetween, args: []*pqExpr{left, lo, hi}}
	case p.acceptKeyword("IN"):
		closer := pqRBracket
		switch {
		case p.accept(pqLBracket):
		case p.accept(pqLParen):
			closer = pqRParen
		default:
			return nil, p.unexpected()
		}
		e = &pqExpr{kind: pqeIn, args: []*pqExpr{left}}
		items, err := p.list(closer)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, pqSyntaxError("IN needs at least one value")
		}
		e.args = append(e.args, items...)
	case !negate && p.acceptKeyword("IS"):
		not := p.acceptKeyword("NOT")
		switch {
		case p.acceptKeyword("MISSING"):
			e = &pqExpr{kind: pqeMissing, args: []*pqExpr{left}}
		case p.acceptKeyword("NULL"):
			e = &pqExpr{kind: pqeNull, args: []*pqExpr{left}}
		default:
			return nil, pqSyntaxError("expected MISSING or NULL after IS, found " + p.describe())
		}
		if not {
			e = &pqExpr{kind: pqeNot, args: []*pqExpr{e}}
		}
		return e, nil
	default:
		return left, nil
	}
	if negate {
		e = &pqExpr{kind: pqeNot, args: []*pqExpr{e}}
	}
	return e, nil
}

func (p *pqParser) sum() (*pqExpr, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		kind := pqeAdd
		switch {
		case p.accept(pqPlus):
		case p.accept(pqMinus):
			kind = pqeSub
		default:
			return left, nil
		}
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = &pqExpr{kind: kind, args: []*pqExpr{left, right}}
	}
}

func (p *pqParser) unary() (*pqExpr, error) {
	if p.peek().kind == pqMinus && p.toks[p.i+1].kind == pqNumber {
		p.next()
		return p.number("-" + p.next().text)
	}
	return p.primary()
}

func (p *pqParser) number(text string) (*pqExpr, error) {
	v, err := fdyno.ParseN(text)
	if err != nil {
		return nil, err
	}
	return &pqExpr{kind: pqeLit, val: v}, nil
}

// list parses expressions separated by commas up to closer, which it
// consumes; it may be empty.
func (p *pqParser) list(closer pqTokKind) ([]*pqExpr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var out []*pqExpr
	if p.accept(closer) {
		return out, nil
	}
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if p.accept(closer) {
			return out, nil
		}
		if err := p.expect(pqComma); err != nil {
			return nil, err
		}
	}
}

// pqFunctions are the functions DynamoDB's PartiQL supports, with their
// number of arguments.
var pqFunctions = map[string]int{
	"begins_with": 2, "contains": 2, "attribute_type": 2, "size": 1,
	"list_append": 2, "set_add": 2, "set_delete": 2,
}

func (p *pqParser) primary() (*pqExpr, error) {
	t := p.peek()
	switch t.kind {
	case pqString:
		p.next()
		return &pqExpr{kind: pqeLit, val: fdyno.S(t.text)}, nil
	case pqNumber:
		p.next()
		return p.number(t.text)
	case pqParam:
		p.next()
		e := &pqExpr{kind: pqeParam, param: p.params}
		p.params++
		return e, nil
	case pqLParen:
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(pqRParen); err != nil {
			return nil, err
		}
		return e, nil
	case pqLBracket:
		p.next()
		items, err := p.list(pqRBracket)
		if err != nil {
			return nil, err
		}
		return &pqExpr{kind: pqeList, args: items}, nil
	case pqLBag:
		p.next()
		items, err := p.list(pqRBag)
		if err != nil {
			return nil, err
		}
		return &pqExpr{kind: pqeBag, args: items}, nil
	case pqLBrace:
		p.next()
		return p.tuple()
	case pqIdent:
		switch {
		case strings.EqualFold(t.text, "TRUE"), strings.EqualFold(t.text, "FALSE"):
			p.next()
			return &pqExpr{kind: pqeLit, val: fdyno.Bool(strings.EqualFold(t.text, "TRUE"))}, nil
		case strings.EqualFold(t.text, "NULL"):
			p.next()
			return &pqExpr{kind: pqeLit, val: fdyno.Null()}, nil
		}
		if p.toks[p.i+1].kind == pqLParen && !isPQKeyword(t.text) {
			return p.call()
		}
	}
	path, err := p.path()
	if err != nil {
		return nil, err
	}
	return &pqExpr{kind: pqePath, path: path}, nil
}

func (p *pqParser) call() (*pqExpr, error) {
	t := p.next()
	p.next() // '('
	fn := strings.ToLower(t.text)
	n, ok := pqFunctions[fn]
	if !ok {
		return nil, &fdyno.ValidationError{Reason: "Unsupported function: " + t.text}
	}
	args, err := p.list(pqRParen)
	if err != nil {
		return nil, err
	}
	if len(args) != n {
		return nil, &fdyno.ValidationError{Reason: "Incorrect number of arguments for function " + fn + ": " + strconv.Itoa(len(args))}
	}
	return &pqExpr{kind: pqeCall, op: fn, args: args}, nil
}

func (p *pqParser) tuple() (*pqExpr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	e := &pqExpr{kind: pqeTuple}
	if p.accept(pqRBrace) {
		return e, nil
	}
	seen := map[string]bool{}
	for {
		t := p.next()
		if t.kind != pqString {
			p.i--
			return nil, pqSyntaxError("expected a quoted attribute name, found " + p.describe())
		}
		if t.text == "" {
			return nil, &fdyno.ValidationError{Reason: reasonEmptyName}
		}
		if seen[t.text] {
			return nil, &fdyno.ValidationError{Reason: "Duplicate attribute name in a tuple: " + t.text}
		}
		seen[t.text] = true
		if err := p.expect(pqColon); err != nil {
			return nil, err
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		e.keys = append(e.keys, t.text)
		e.args = append(e.args, v)
		if p.accept(pqRBrace) {
			return e, nil
		}
		if err := p.expect(pqComma); err != nil {
			return nil, err
		}
	}
}
