package fdyno

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of an expression token.
type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokIdent          // [A-Za-z][A-Za-z0-9_]*: a name, keyword or function
	tokName           // #name, or a bare "#" that the parser rejects
	tokValue          // :value, or a bare ":" that the parser rejects
	tokNumber         // [0-9]+, a list index
	tokLParen
	tokRParen
	tokLBracket
	tokRBracket
	tokComma
	tokDot
	tokEq
	tokNe
	tokLt
	tokLe
	tokGt
	tokGe
	tokPlus
	tokMinus
	tokUnderscore // '_' where a name would begin; never valid
	tokBang       // '!', a token of DynamoDB's grammar that no rule accepts
)

// token is one lexeme; pos and end are byte offsets into the expression.
type token struct {
	kind     tokKind
	text     string
	pos, end int
}

func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isIdentStart reports whether c can begin a bare name: a letter only.
// DynamoDB's grammar makes a leading underscore a token of its own, which
// no rule accepts: "SET _a = :v" is `Syntax error; token: "_", near:
// "SET _a"`.
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lex splits expr into tokens, ending with a tokEOF. An expression is at
// most maxExpressionLength bytes, so the slice is bounded. A character that
// begins no token is a lexical error, which DynamoDB reports in the style of
// its JavaCC-generated parser.
func lex(kind, expr string) ([]token, error) {
	toks := make([]token, 0, len(expr)/2+1)
	i := 0
	for i < len(expr) {
		c := expr[i]
		if isSpace(c) {
			i++
			continue
		}
		start := i
		k := tokEOF
		switch {
		case isIdentStart(c):
			for i++; i < len(expr) && isNameByte(expr[i]); i++ {
			}
			k = tokIdent
		case c >= '0' && c <= '9':
			for i++; i < len(expr) && expr[i] >= '0' && expr[i] <= '9'; i++ {
			}
			k = tokNumber
		case c == '#' || c == ':':
			for i++; i < len(expr) && isNameByte(expr[i]); i++ {
			}
			k = tokName
			if c == ':' {
				k = tokValue
			}
		case c == '<':
			i++
			k = tokLt
			if i < len(expr) && expr[i] == '=' {
				i, k = i+1, tokLe
			} else if i < len(expr) && expr[i] == '>' {
				i, k = i+1, tokNe
			}
		case c == '>':
			i++
			k = tokGt
			if i < len(expr) && expr[i] == '=' {
				i, k = i+1, tokGe
			}
		default:
			k = punct(c)
			if k == tokEOF {
				return nil, lexicalError(kind, expr, i)
			}
			i++
		}
		toks = append(toks, token{kind: k, text: expr[start:i], pos: start, end: i})
	}
	return append(toks, token{kind: tokEOF, pos: len(expr), end: len(expr)}), nil
}

func punct(c byte) tokKind {
	switch c {
	case '(':
		return tokLParen
	case ')':
		return tokRParen
	case '[':
		return tokLBracket
	case ']':
		return tokRBracket
	case ',':
		return tokComma
	case '.':
		return tokDot
	case '=':
		return tokEq
	case '+':
		return tokPlus
	case '-':
		return tokMinus
	case '_':
		return tokUnderscore
	case '!':
		return tokBang
	}
	return tokEOF
}

// lexicalError reports the character at byte i, with its 1-based line and
// column, as DynamoDB does: "Lexical error at line 1, column 5.
// Encountered: "@" (64), after : """.
func lexicalError(kind, expr string, i int) error {
	line, col := 1, 1
	for _, r := range expr[:i] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	r, _ := utf8.DecodeRuneInString(expr[i:])
	var b strings.Builder
	b.WriteString("Lexical error at line ")
	b.WriteString(strconv.Itoa(line))
	b.WriteString(", column ")
	b.WriteString(strconv.Itoa(col))
	b.WriteString(".  Encountered: ")
	b.WriteString(strconv.Quote(string(r)))
	b.WriteString(" (")
	b.WriteString(strconv.Itoa(int(r)))
	b.WriteString("), after : \"\"")
	return exprError(kind, b.String())
}
