package partiql

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fdyno/fdyno"
)

// lex.go splits a PartiQL statement into tokens. DynamoDB's
// dialect (the "PartiQL for DynamoDB" chapter of the developer guide):
//
//   - identifiers are bare ([A-Za-z_][A-Za-z0-9_$]*, compared
//     case-insensitively against keywords) or double-quoted, with ""
//     standing for one quote character;
//   - strings are single-quoted, with ” standing for one quote;
//   - numbers are decimal, with an optional fraction and exponent;
//   - ? is a parameter; << and >> delimit a set (a PartiQL bag).

// MaxStatementLength is the longest PartiQL statement, in bytes
// (DynamoDB's ExecuteStatement limit of 8192 characters).
const MaxStatementLength = 8192

// pqTokKind is the kind of a PartiQL token.
type pqTokKind uint8

const (
	pqEOF      pqTokKind = iota
	pqIdent              // a bare identifier or keyword
	pqQuoted             // a double-quoted identifier, unescaped in text
	pqString             // a single-quoted string, unescaped in text
	pqNumber             // a decimal number
	pqParam              // ?
	pqLParen             // (
	pqRParen             // )
	pqLBracket           // [
	pqRBracket           // ]
	pqLBrace             // {
	pqRBrace             // }
	pqLBag               // <<
	pqRBag               // >>
	pqComma              // ,
	pqDot                // .
	pqColon              // :
	pqStar               // *
	pqEq                 // =
	pqNe                 // <> or !=
	pqLt                 // <
	pqLe                 // <=
	pqGt                 // >
	pqGe                 // >=
	pqPlus               // +
	pqMinus              // -
)

// pqToken is one lexeme; pos is its byte offset in the statement.
type pqToken struct {
	kind pqTokKind
	text string
	pos  int
}

// pqSyntaxError is the error of a statement DynamoDB cannot parse.
func pqSyntaxError(detail string) error {
	return &fdyno.ValidationError{Reason: "Statement wasn't well formed, can't be processed: " + detail}
}

func isPQIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isPQIdentByte(c byte) bool {
	return isPQIdentStart(c) || c == '$' || c >= '0' && c <= '9'
}

// lexPartiQL returns the tokens of stmt, ending with a pqEOF. There are at
// most len(stmt)+1 tokens.
func lexPartiQL(stmt string) ([]pqToken, error) {
	if !utf8.ValidString(stmt) {
		return nil, pqSyntaxError("invalid UTF-8")
	}
	var toks []pqToken
	for i := 0; i < len(stmt); {
		c := stmt[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '-' && i+1 < len(stmt) && stmt[i+1] == '-':
			// A comment runs to the end of the line.
			for i < len(stmt) && stmt[i] != '\n' {
				i++
			}
			continue
		case isPQIdentStart(c):
			j := i + 1
			for j < len(stmt) && isPQIdentByte(stmt[j]) {
				j++
			}
			toks = append(toks, pqToken{kind: pqIdent, text: stmt[i:j], pos: i})
			i = j
			continue
		case c == '"' || c == '\'':
			text, j, ok := unquotePQ(stmt, i)
			if !ok {
				return nil, pqSyntaxError("unterminated quoted text at position " + strconv.Itoa(i))
			}
			kind := pqString
			if c == '"' {
				kind = pqQuoted
			}
			toks = append(toks, pqToken{kind: kind, text: text, pos: i})
			i = j
			continue
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(stmt) && stmt[i+1] >= '0' && stmt[i+1] <= '9':
			j := scanPQNumber(stmt, i)
			toks = append(toks, pqToken{kind: pqNumber, text: stmt[i:j], pos: i})
			i = j
			continue
		}
		kind, n := pqPunct(stmt[i:])
		if n == 0 {
			r, _ := utf8.DecodeRuneInString(stmt[i:])
			return nil, pqSyntaxError("unexpected character " + strconv.QuoteRune(r) + " at position " + strconv.Itoa(i))
		}
		toks = append(toks, pqToken{kind: kind, text: stmt[i : i+n], pos: i})
		i += n
	}
	return append(toks, pqToken{kind: pqEOF, pos: len(stmt)}), nil
}

// unquotePQ reads the quoted text that starts at stmt[i] (its quote
// character), where a doubled quote stands for one; it returns the text,
// the offset after the closing quote, and false if there is none.
func unquotePQ(stmt string, i int) (string, int, bool) {
	q := stmt[i]
	var b strings.Builder
	for j := i + 1; j < len(stmt); j++ {
		if stmt[j] != q {
			b.WriteByte(stmt[j])
			continue
		}
		if j+1 < len(stmt) && stmt[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return b.String(), j + 1, true
	}
	return "", 0, false
}

// scanPQNumber returns the end of the number that starts at stmt[i]:
// digits, an optional fraction and an optional exponent.
func scanPQNumber(stmt string, i int) int {
	digits := func(j int) int {
		for j < len(stmt) && stmt[j] >= '0' && stmt[j] <= '9' {
			j++
		}
		return j
	}
	j := digits(i)
	if j < len(stmt) && stmt[j] == '.' {
		j = digits(j + 1)
	}
	if j < len(stmt) && (stmt[j] == 'e' || stmt[j] == 'E') {
		k := j + 1
		if k < len(stmt) && (stmt[k] == '+' || stmt[k] == '-') {
			k++
		}
		if e := digits(k); e > k {
			j = e
		}
	}
	return j
}

// pqPunct returns the punctuation token at the start of s and its length,
// or 0 if there is none.
func pqPunct(s string) (pqTokKind, int) {
	two := ""
	if len(s) >= 2 {
		two = s[:2]
	}
	switch two {
	case "<<":
		return pqLBag, 2
	case ">>":
		return pqRBag, 2
	case "<>", "!=":
		return pqNe, 2
	case "<=":
		return pqLe, 2
	case ">=":
		return pqGe, 2
	}
	switch s[0] {
	case '(':
		return pqLParen, 1
	case ')':
		return pqRParen, 1
	case '[':
		return pqLBracket, 1
	case ']':
		return pqRBracket, 1
	case '{':
		return pqLBrace, 1
	case '}':
		return pqRBrace, 1
	case ',':
		return pqComma, 1
	case '.':
		return pqDot, 1
	case ':':
		return pqColon, 1
	case '*':
		return pqStar, 1
	case '=':
		return pqEq, 1
	case '<':
		return pqLt, 1
	case '>':
		return pqGt, 1
	case '+':
		return pqPlus, 1
	case '-':
		return pqMinus, 1
	case '?':
		return pqParam, 1
	}
	return 0, 0
}
