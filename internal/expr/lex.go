package expr

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// TokKind is the kind of an expression Token.
type TokKind uint8

const (
	TokEOF    TokKind = iota
	TokIdent          // [A-Za-z][A-Za-z0-9_]*: a name, keyword or function
	TokName           // #name, or a bare "#" that the parser rejects
	TokValue          // :value, or a bare ":" that the parser rejects
	TokNumber         // [0-9]+, a list index
	TokLParen
	TokRParen
	TokLBracket
	TokRBracket
	TokComma
	TokDot
	TokEq
	TokNe
	TokLt
	TokLe
	TokGt
	TokGe
	TokPlus
	TokMinus
	TokUnderscore // '_' where a name would begin; never valid
	TokBang       // '!', a token of DynamoDB's grammar that no rule accepts
)

// Token is one lexeme of an expression.
type Token struct {
	Kind TokKind
	// Text is the token's source text; empty for TokEOF.
	Text string
	// Pos and End are the byte offsets of the token in the expression:
	// Text is expr[Pos:End].
	Pos, End int
}

// IsNameByte reports whether c may appear in a name or placeholder after
// its first character: [A-Za-z0-9_].
func IsNameByte(c byte) bool {
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

// Lex splits expr into tokens, ending with a TokEOF. The slice holds at
// most len(expr)+1 tokens; callers bound len(expr) (DynamoDB's limit is
// 4096 bytes) before lexing. A character that
// begins no token is a lexical error, which DynamoDB reports in the style of
// its JavaCC-generated parser.
func Lex(kind, expr string) ([]Token, error) {
	toks := make([]Token, 0, len(expr)/2+1)
	i := 0
	for i < len(expr) {
		c := expr[i]
		if isSpace(c) {
			i++
			continue
		}
		start := i
		k := TokEOF
		switch {
		case isIdentStart(c):
			for i++; i < len(expr) && IsNameByte(expr[i]); i++ {
			}
			k = TokIdent
		case c >= '0' && c <= '9':
			for i++; i < len(expr) && expr[i] >= '0' && expr[i] <= '9'; i++ {
			}
			k = TokNumber
		case c == '#' || c == ':':
			for i++; i < len(expr) && IsNameByte(expr[i]); i++ {
			}
			k = TokName
			if c == ':' {
				k = TokValue
			}
		case c == '<':
			i++
			k = TokLt
			if i < len(expr) && expr[i] == '=' {
				i, k = i+1, TokLe
			} else if i < len(expr) && expr[i] == '>' {
				i, k = i+1, TokNe
			}
		case c == '>':
			i++
			k = TokGt
			if i < len(expr) && expr[i] == '=' {
				i, k = i+1, TokGe
			}
		default:
			k = punct(c)
			if k == TokEOF {
				return nil, lexicalError(kind, expr, i)
			}
			i++
		}
		toks = append(toks, Token{Kind: k, Text: expr[start:i], Pos: start, End: i})
	}
	return append(toks, Token{Kind: TokEOF, Pos: len(expr), End: len(expr)}), nil
}

func punct(c byte) TokKind {
	switch c {
	case '(':
		return TokLParen
	case ')':
		return TokRParen
	case '[':
		return TokLBracket
	case ']':
		return TokRBracket
	case ',':
		return TokComma
	case '.':
		return TokDot
	case '=':
		return TokEq
	case '+':
		return TokPlus
	case '-':
		return TokMinus
	case '_':
		return TokUnderscore
	case '!':
		return TokBang
	}
	return TokEOF
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
	return &Error{Kind: kind, Reason: b.String()}
}
