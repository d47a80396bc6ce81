package fdyno

import (
	"encoding/base64"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// import_ion.go reads the lines of an ION import: the Ion text DynamoDB's
// ION exports write (export_ion.go writes the same), one item a line,
// "$ion_1_0 {Item:{...}}" or "{Item:{...}}" after a "$ion_1_0" line,
// with DynamoDB's Ion conversion read back ("DynamoDB to Ion datatype
// conversion"): a string is S, a bool BOOL, an int, decimal or float N,
// a blob B, null NULL, a struct M, a list L, a list annotated
// $dynamodb_SS, $dynamodb_NS or $dynamodb_BS a set of strings, numbers
// or blobs.
//
// It reads the part of Ion text those lines use: struct, list, string
// (short and long, with Ion's escapes), symbol field names (identifiers,
// quoted), int (decimal, hex, binary, with underscores), decimal, float,
// blob, bool, null and null.null, annotations, comments. Anything else
// (clobs, symbols, timestamps, S-expressions, typed nulls, other
// annotations) is no DynamoDB value and makes the line an error.

// decodeImportIonLine decodes one line of an ION import. A line holding
// only the version marker decodes to a nil Item and no error.
func decodeImportIonLine(line []byte) (Item, error) {
	p := ionParser{s: string(line)}
	var item Item
	for {
		p.space()
		if p.err != nil {
			return nil, p.err
		}
		if p.i == len(p.s) {
			return item, nil
		}
		if p.symbolAhead("$ion_1_0") {
			continue
		}
		if item != nil {
			return nil, lineError("more than one Ion value on the line")
		}
		it, err := p.itemLine()
		if err != nil {
			return nil, err
		}
		item = it
	}
}

// ionParser reads Ion text from s at i; err is the first failure.
type ionParser struct {
	s   string
	i   int
	err error
}

func (p *ionParser) fail(reason string) error {
	if p.err == nil {
		p.err = lineError("malformed Ion at byte " + strconv.Itoa(p.i) + ": " + reason)
	}
	return p.err
}

// space skips white space and comments.
func (p *ionParser) space() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "//"):
			p.i = len(p.s)
		case strings.HasPrefix(p.s[p.i:], "/*"):
			end := strings.Index(p.s[p.i+2:], "*/")
			if end < 0 {
				p.fail("unterminated comment")
				return
			}
			p.i += 2 + end + 2
		default:
			return
		}
	}
}

// symbolAhead consumes the identifier sym if it stands next, whole.
func (p *ionParser) symbolAhead(sym string) bool {
	if !strings.HasPrefix(p.s[p.i:], sym) {
		return false
	}
	if j := p.i + len(sym); j < len(p.s) && isIdentChar(p.s[j]) {
		return false
	}
	p.i += len(sym)
	return true
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// itemLine reads {Item:{...}}.
func (p *ionParser) itemLine() (Item, error) {
	if !p.eat('{') {
		return nil, p.fail("a line holds one struct {Item:{...}}")
	}
	var item Item
	for {
		p.space()
		if p.eat('}') {
			break
		}
		if item != nil {
			return nil, p.fail("the line's struct holds more than the field Item")
		}
		name, err := p.fieldName()
		if err != nil {
			return nil, err
		}
		if name != "Item" {
			return nil, lineError("unexpected field " + strconv.Quote(truncateForMessage(name)) + "; a line holds one struct with the field Item")
		}
		p.space()
		if item, err = p.structOf(1); err != nil {
			return nil, err
		}
		p.space()
		if !p.eat(',') && !p.peek('}') {
			return nil, p.fail("expected , or }")
		}
	}
	if item == nil {
		return nil, lineError("the line has no field Item")
	}
	return item, nil
}

func (p *ionParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *ionParser) peek(c byte) bool { return p.i < len(p.s) && p.s[p.i] == c }

// fieldName reads a struct's field name and its colon: an identifier, a
// quoted symbol or a string.
func (p *ionParser) fieldName() (string, error) {
	var name string
	switch {
	case p.i < len(p.s) && isIdentStart(p.s[p.i]):
		j := p.i
		for p.i < len(p.s) && isIdentChar(p.s[p.i]) {
			p.i++
		}
		name = p.s[j:p.i]
	case p.peek('\'') || p.peek('"'):
		s, err := p.text()
		if err != nil {
			return "", err
		}
		name = s
	default:
		return "", p.fail("expected a field name")
	}
	p.space()
	if !p.eat(':') {
		return "", p.fail("expected : after a field name")
	}
	return name, nil
}

// structOf reads a struct of attribute values at nesting level depth.
func (p *ionParser) structOf(depth int) (Item, error) {
	if !p.eat('{') || p.peek('{') {
		return nil, p.fail("expected a struct of attribute values")
	}
	it := Item{}
	for {
		p.space()
		if p.eat('}') {
			return it, p.err
		}
		name, err := p.fieldName()
		if err != nil {
			return nil, err
		}
		p.space()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		if _, dup := it[name]; dup {
			return nil, lineError("the attribute " + strconv.Quote(truncateForMessage(name)) + " appears twice")
		}
		it[name] = v
		p.space()
		if !p.eat(',') && !p.peek('}') {
			return nil, p.fail("expected , or }")
		}
	}
}

// value reads one attribute value, with its annotation if any, at
// nesting level depth.
func (p *ionParser) value(depth int) (Value, error) {
	if depth > MaxNestingDepth {
		return Value{}, lineError("Nesting Levels have exceeded supported limits")
	}
	set := ""
	for _, a := range []string{"$dynamodb_SS", "$dynamodb_NS", "$dynamodb_BS"} {
		if strings.HasPrefix(p.s[p.i:], a) {
			j := p.i
			p.i += len(a)
			p.space()
			if strings.HasPrefix(p.s[p.i:], "::") {
				p.i += 2
				p.space()
				set = a[len(a)-2:]
				break
			}
			p.i = j
		}
	}
	if set != "" {
		return p.set(set)
	}
	if p.i == len(p.s) {
		return Value{}, p.fail("expected a value")
	}
	switch c := p.s[p.i]; {
	case c == '"' || strings.HasPrefix(p.s[p.i:], "'''"):
		s, err := p.text()
		return S(s), err
	case c == '{' && strings.HasPrefix(p.s[p.i:], "{{"):
		b, err := p.blob()
		return B(b), err
	case c == '{':
		m, err := p.structOf(depth + 1)
		return M(m), err
	case c == '[':
		p.i++
		var list []Value
		for {
			p.space()
			if p.eat(']') {
				return L(list...), p.err
			}
			e, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			list = append(list, e)
			if err := p.separator(); err != nil {
				return Value{}, err
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		n, err := p.number()
		return N(n), err
	case isIdentStart(c):
		j := p.i
		for p.i < len(p.s) && (isIdentChar(p.s[p.i]) || p.s[p.i] == '.') {
			p.i++
		}
		switch w := p.s[j:p.i]; w {
		case "true", "false":
			return Bool(w == "true"), nil
		case "null", "null.null":
			return Null(), nil
		}
		p.i = j
		return Value{}, p.fail("a symbol, typed null or annotation DynamoDB does not write")
	}
	return Value{}, p.fail("a value DynamoDB does not write")
}

// separator reads the , or ] after a list's element.
func (p *ionParser) separator() error {
	p.space()
	if !p.eat(',') && !p.peek(']') {
		return p.fail("expected , or ]")
	}
	return p.err
}

// set reads the list of an SS, NS or BS.
func (p *ionParser) set(t string) (Value, error) {
	if !p.eat('[') {
		return Value{}, p.fail("a set's annotation stands before a list")
	}
	var strs []string
	var bins [][]byte
	for {
		p.space()
		if p.eat(']') {
			break
		}
		switch {
		case t == "BS" && strings.HasPrefix(p.s[p.i:], "{{"):
			b, err := p.blob()
			if err != nil {
				return Value{}, err
			}
			bins = append(bins, b)
		case t == "SS" && (p.peek('"') || strings.HasPrefix(p.s[p.i:], "'''")):
			s, err := p.text()
			if err != nil {
				return Value{}, err
			}
			strs = append(strs, s)
		case t == "NS" && p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] >= '0' && p.s[p.i] <= '9'):
			n, err := p.number()
			if err != nil {
				return Value{}, err
			}
			strs = append(strs, n)
		default:
			return Value{}, p.fail("an element of a " + t + " must be a " + map[string]string{"SS": "string", "NS": "number", "BS": "blob"}[t])
		}
		if err := p.separator(); err != nil {
			return Value{}, err
		}
	}
	switch t {
	case "SS":
		return SS(strs...), nil
	case "NS":
		return NS(strs...), nil
	}
	return BS(bins...), nil
}

// number reads an Ion int, decimal or float and returns it as
// DynamoDB's number text.
func (p *ionParser) number() (string, error) {
	j := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789abcdefABCDEFxXoO._", p.s[p.i]) >= 0 {
		if (p.s[p.i] == '+' || p.s[p.i] == '-') && p.i > j && strings.IndexByte("eEdD", p.s[p.i-1]) < 0 {
			break
		}
		p.i++
	}
	raw := p.s[j:p.i]
	t := strings.ReplaceAll(raw, "_", "")
	if strings.Contains(raw, "__") || strings.HasSuffix(raw, "_") {
		return "", p.fail("malformed number " + truncateForMessage(raw))
	}
	neg := strings.HasPrefix(t, "-")
	digits := strings.TrimPrefix(t, "-")
	if len(digits) > 1 && digits[0] == '0' && strings.IndexByte("xXbB", digits[1]) >= 0 {
		n, ok := new(big.Int).SetString(digits, 0)
		if !ok {
			return "", p.fail("malformed number " + truncateForMessage(raw))
		}
		if neg {
			n.Neg(n)
		}
		return n.String(), nil
	}
	// Ion's decimal exponent is d; DynamoDB's number text has e. A point
	// with no digit after it is dropped.
	t = strings.NewReplacer("d", "e", "D", "e", "E", "e").Replace(t)
	mant, exp, hasExp := strings.Cut(t, "e")
	mant = strings.TrimSuffix(mant, ".")
	if !validIonDigits(strings.TrimPrefix(mant, "-"), true) || hasExp && !validIonDigits(strings.TrimPrefix(strings.TrimPrefix(exp, "+"), "-"), false) {
		return "", p.fail("malformed number " + truncateForMessage(raw))
	}
	if hasExp {
		return mant + "e" + exp, nil
	}
	return mant, nil
}

// validIonDigits reports whether s is digits, with one point if point.
func validIonDigits(s string, point bool) bool {
	seen, digits := false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && point && !seen:
			seen = true
		default:
			return false
		}
	}
	return digits > 0
}

// blob reads {{base64}}.
func (p *ionParser) blob() ([]byte, error) {
	p.i += 2
	end := strings.Index(p.s[p.i:], "}}")
	if end < 0 {
		return nil, p.fail("unterminated blob")
	}
	body := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' {
			return -1
		}
		return r
	}, p.s[p.i:p.i+end])
	if strings.HasPrefix(body, "\"") || strings.HasPrefix(body, "'") {
		return nil, p.fail("a clob is no DynamoDB value")
	}
	b, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		return nil, p.fail("invalid base64 in a blob")
	}
	p.i += end + 2
	return b, nil
}

// text reads a string ("..." or ”'...”' segments, joined) or a quoted
// symbol ('...').
func (p *ionParser) text() (string, error) {
	if p.peek('"') {
		p.i++
		return p.quoted('"')
	}
	if !strings.HasPrefix(p.s[p.i:], "'''") {
		p.i++
		return p.quoted('\'')
	}
	var b strings.Builder
	for strings.HasPrefix(p.s[p.i:], "'''") {
		p.i += 3
		end := strings.Index(p.s[p.i:], "'''")
		for end > 0 && escapedAt(p.s[p.i:], end) {
			next := strings.Index(p.s[p.i+end+1:], "'''")
			if next < 0 {
				end = -1
				break
			}
			end += 1 + next
		}
		if end < 0 {
			return "", p.fail("unterminated long string")
		}
		seg := ionParser{s: p.s[p.i : p.i+end]}
		s, err := seg.unescape()
		if err != nil {
			return "", p.fail(strings.TrimPrefix(err.Error(), "fdyno: ValidationException: "))
		}
		b.WriteString(s)
		p.i += end + 3
		j := p.i
		p.space()
		if !strings.HasPrefix(p.s[p.i:], "'''") {
			p.i = j
		}
	}
	return b.String(), p.err
}

// escapedAt reports whether s[i] follows an odd run of backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for i > 0 && s[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// quoted reads the rest of a string or quoted symbol ended by q.
func (p *ionParser) quoted(q byte) (string, error) {
	j := p.i
	for p.i < len(p.s) && p.s[p.i] != q {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	if p.i >= len(p.s) {
		return "", p.fail("unterminated string")
	}
	seg := ionParser{s: p.s[j:p.i]}
	p.i++
	s, err := seg.unescape()
	if err != nil {
		return "", p.fail(strings.TrimPrefix(err.Error(), "fdyno: ValidationException: "))
	}
	return s, nil
}

// unescape returns p.s with Ion's escapes replaced; text must be UTF-8.
func (p *ionParser) unescape() (string, error) {
	s := p.s
	if !utf8.ValidString(s) {
		return "", lineError("a string is not UTF-8")
	}
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			return "", lineError("a string ends in a backslash")
		}
		simple := map[byte]string{'a': "\a", 'b': "\b", 't': "\t", 'n': "\n", 'f': "\f", 'r': "\r", 'v': "\v",
			'"': "\"", '\'': "'", '?': "?", '\\': "\\", '/': "/", '0': "\x00", '\n': ""}
		if r, ok := simple[s[i]]; ok {
			b.WriteString(r)
			continue
		}
		width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
		if width == 0 {
			return "", lineError("an unknown escape in a string")
		}
		if i+1+width > len(s) {
			return "", lineError("a short escape in a string")
		}
		r, err := strconv.ParseUint(s[i+1:i+1+width], 16, 32)
		if err != nil || r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
			return "", lineError("an invalid escape in a string")
		}
		b.WriteRune(rune(r))
		i += width
	}
	return b.String(), nil
}
