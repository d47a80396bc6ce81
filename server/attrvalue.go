package server

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/internal/avjson"
)

// attrvalue.go is the codec of DynamoDB's wire AttributeValue, the JSON
// form of an fdyno.Value:
//
//	{"S":"text"}  {"N":"12.5"}  {"B":"<base64>"}  {"BOOL":true}  {"NULL":true}
//	{"M":{"name":<AttributeValue>,…}}  {"L":[<AttributeValue>,…]}
//	{"SS":["a","b"]}  {"NS":["1","2"]}  {"BS":["<base64>",…]}
//
// Decoding is syntactic: the JSON shape, exactly one type per value, NULL
// true, base64 that decodes. Numbers stay exact decimal text (never a
// float), and the library judges everything else (number ranges, empty
// sets, names, sizes) with DynamoDB's words, as it does for a Go caller;
// only a set that repeats a member is rejected here, where the members'
// order, which DynamoDB's message shows, is still known. Errors follow DynamoDB's split: a JSON type that does not
// fit the shape is a SerializationException, a well-formed value that
// breaks a rule is a ValidationException.
//
// Invariants:
//
//  1. Decoding never panics, recurses at most fdyno.MaxNestingDepth
//     levels, and allocates in proportion to its input.
//  2. For every value decodeValue accepts, decodeValue(appendValue(v))
//     returns a value Equal to v (FuzzAttributeValue).

// attrValueNames are the type keys of an AttributeValue, DynamoDB's type
// names; they are case-sensitive, as DynamoDB's are.
var attrValueNames = map[string]fdyno.Type{
	"S": fdyno.TypeS, "N": fdyno.TypeN, "B": fdyno.TypeB, "BOOL": fdyno.TypeBOOL, "NULL": fdyno.TypeNULL,
	"M": fdyno.TypeM, "L": fdyno.TypeL, "SS": fdyno.TypeSS, "NS": fdyno.TypeNS, "BS": fdyno.TypeBS,
}

// Reasons for rejecting an AttributeValue, in DynamoDB's words.
const (
	reasonEmptyAttrValue = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	reasonManyAttrTypes  = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	reasonNullFalse      = "One or more parameter values were invalid: Null attribute value types must have the value of true"
)

// reasonNesting is the library's reason for a value nested too deeply,
// taken from the library so the two never disagree.
var reasonNesting = func() string {
	v := fdyno.Null()
	for range fdyno.MaxNestingDepth {
		v = fdyno.L(v)
	}
	var ve *fdyno.ValidationError
	if err := v.Validate(); asValidation(err, &ve) {
		return ve.Reason
	}
	return "Nesting Levels have exceeded supported limits"
}()

// wireItem is an item on the wire: a JSON object of AttributeValues. Its
// zero value (nil) is an absent item.
type wireItem fdyno.Item

// UnmarshalJSON decodes an item; JSON null leaves it nil.
func (w *wireItem) UnmarshalJSON(data []byte) error {
	d := avDecoder{data: data}
	d.skipSpace()
	if d.consume("null") {
		*w = nil
		return d.end()
	}
	it, err := d.item(0)
	if err != nil {
		return err
	}
	*w = wireItem(it)
	return d.end()
}

// MarshalJSON encodes the item with its names in byte order.
func (w wireItem) MarshalJSON() ([]byte, error) {
	return appendItem(nil, fdyno.Item(w)), nil
}

// wireValues is a map of AttributeValues, such as ExpressionAttributeValues.
type wireValues map[string]fdyno.Value

// UnmarshalJSON decodes the map; JSON null leaves it nil.
func (w *wireValues) UnmarshalJSON(data []byte) error {
	var it wireItem
	if err := it.UnmarshalJSON(data); err != nil {
		return err
	}
	*w = wireValues(it)
	return nil
}

// decodeValue decodes one AttributeValue from data, which must hold
// nothing else but white space.
func decodeValue(data []byte) (fdyno.Value, error) {
	if !json.Valid(data) {
		return fdyno.Value{}, serialization("Malformed JSON")
	}
	d := avDecoder{data: data}
	v, err := d.value(1)
	if err != nil {
		return fdyno.Value{}, err
	}
	return v, d.end()
}

// avDecoder reads AttributeValues from JSON text. It does not trust the
// text to be valid JSON (encoding/json has checked it when it calls
// UnmarshalJSON, but the fuzz target calls it directly).
type avDecoder struct {
	data []byte
	pos  int
}

func serialization(msg string) error {
	return &apiError{typ: errSerialization, msg: msg}
}

func validation(msg string) error {
	return &apiError{typ: errValidation, msg: msg}
}

func (d *avDecoder) syntax(what string) error {
	return serialization("Malformed JSON at byte " + strconv.Itoa(d.pos) + ": " + what)
}

func (d *avDecoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// consume skips white space and then lit if it comes next.
func (d *avDecoder) consume(lit string) bool {
	d.skipSpace()
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return true
	}
	return false
}

func (d *avDecoder) end() error {
	d.skipSpace()
	if d.pos != len(d.data) {
		return d.syntax("unexpected data after the value")
	}
	return nil
}

func (d *avDecoder) peek() byte {
	d.skipSpace()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// expect consumes the byte c or fails.
func (d *avDecoder) expect(c byte) error {
	if d.peek() != c {
		return d.syntax("expected " + strconv.QuoteRune(rune(c)))
	}
	d.pos++
	return nil
}

// str reads a JSON string. Strings without escapes and with valid UTF-8
// are taken as they are; invalid UTF-8 and unpaired surrogate escapes are
// a SerializationException (checkJSONText), as DynamoDB refuses them,
// never U+FFFD; other strings go through encoding/json for their escapes.
func (d *avDecoder) str() (string, error) {
	if d.peek() != '"' {
		return "", d.syntax("expected a string")
	}
	start := d.pos
	d.pos++
	plain := true
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			raw := d.data[start:d.pos]
			if err := checkJSONText(raw); err != nil {
				return "", err
			}
			if plain {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", d.syntax("bad string")
			}
			return s, nil
		case c == '\\':
			plain = false
			d.pos += 2
		case c < 0x20:
			return "", d.syntax("control character in string")
		default:
			d.pos++
		}
	}
	return "", d.syntax("unterminated string")
}

// item reads a JSON object of AttributeValues at nesting depth depth (0
// for an item, the depth of the enclosing M otherwise). A name given twice
// keeps its last value, as DynamoDB's JSON reader does.
func (d *avDecoder) item(depth int) (fdyno.Item, error) {
	if d.peek() != '{' {
		return nil, wrongJSONType(d.peek(), "Map")
	}
	d.pos++
	it := fdyno.Item{}
	if d.consume("}") {
		return it, nil
	}
	for {
		name, err := d.str()
		if err != nil {
			return nil, err
		}
		if err := d.expect(':'); err != nil {
			return nil, err
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		it[name] = v
		if d.consume("}") {
			return it, nil
		}
		if err := d.expect(','); err != nil {
			return nil, err
		}
	}
}

// value reads one AttributeValue at nesting depth depth (1 for an item's
// attribute).
func (d *avDecoder) value(depth int) (fdyno.Value, error) {
	if depth > fdyno.MaxNestingDepth {
		return fdyno.Value{}, validation(reasonNesting)
	}
	if d.peek() != '{' {
		return fdyno.Value{}, wrongJSONType(d.peek(), "AttributeValue")
	}
	d.pos++
	var v fdyno.Value
	var typ fdyno.Type
	if !d.consume("}") {
		for {
			key, err := d.str()
			if err != nil {
				return fdyno.Value{}, err
			}
			if err := d.expect(':'); err != nil {
				return fdyno.Value{}, err
			}
			t, known := attrValueNames[key]
			switch {
			case !known:
				// Unknown members are ignored, as DynamoDB ignores them.
				if err := d.skip(); err != nil {
					return fdyno.Value{}, err
				}
			case d.consume("null"):
				// A null member is an absent one, and unsets an
				// earlier member of the same name.
				if typ == t {
					typ, v = 0, fdyno.Value{}
				}
			default:
				if typ != 0 && typ != t {
					return fdyno.Value{}, validation(reasonManyAttrTypes)
				}
				typ = t
				if v, err = d.typed(t, key, depth); err != nil {
					return fdyno.Value{}, err
				}
			}
			if d.consume("}") {
				break
			}
			if err := d.expect(','); err != nil {
				return fdyno.Value{}, err
			}
		}
	}
	if typ == 0 {
		return fdyno.Value{}, validation(reasonEmptyAttrValue)
	}
	return v, nil
}

// typed reads the member of type t (named key on the wire).
func (d *avDecoder) typed(t fdyno.Type, key string, depth int) (fdyno.Value, error) {
	// wrong is DynamoDB's error for the member's JSON type, named by
	// the model's type of the member.
	wrong := func(javaType string) (fdyno.Value, error) {
		return fdyno.Value{}, wrongJSONType(d.peek(), javaType)
	}
	switch t {
	case fdyno.TypeS, fdyno.TypeN, fdyno.TypeB:
		if d.peek() != '"' {
			return wrong("String")
		}
		s, err := d.str()
		if err != nil {
			return fdyno.Value{}, err
		}
		switch t {
		case fdyno.TypeS:
			return fdyno.S(s), nil
		case fdyno.TypeN:
			return fdyno.N(s), nil
		}
		b, err := decodeBase64(s)
		if err != nil {
			return fdyno.Value{}, err
		}
		return fdyno.B(b), nil
	case fdyno.TypeBOOL, fdyno.TypeNULL:
		var b bool
		switch {
		case d.consume("true"):
			b = true
		case d.consume("false"):
		default:
			return wrong("Boolean")
		}
		if t == fdyno.TypeBOOL {
			return fdyno.Bool(b), nil
		}
		if !b {
			return fdyno.Value{}, validation(reasonNullFalse)
		}
		return fdyno.Null(), nil
	case fdyno.TypeM:
		if d.peek() != '{' {
			return wrong("Map")
		}
		it, err := d.item(depth)
		if err != nil {
			return fdyno.Value{}, err
		}
		return fdyno.M(it), nil
	}
	// L and the sets are arrays.
	if d.peek() != '[' {
		return wrong("List")
	}
	d.pos++
	var list []fdyno.Value
	var members []string
	if !d.consume("]") {
		for {
			if t == fdyno.TypeL {
				e, err := d.value(depth + 1)
				if err != nil {
					return fdyno.Value{}, err
				}
				list = append(list, e)
			} else {
				if d.peek() != '"' {
					return wrong("String")
				}
				s, err := d.str()
				if err != nil {
					return fdyno.Value{}, err
				}
				members = append(members, s)
			}
			if d.consume("]") {
				break
			}
			if err := d.expect(','); err != nil {
				return fdyno.Value{}, err
			}
		}
	}
	switch t {
	case fdyno.TypeL:
		if list == nil {
			list = []fdyno.Value{}
		}
		return fdyno.L(list...), nil
	case fdyno.TypeSS, fdyno.TypeNS:
		if err := checkDuplicateMembers(members); err != nil {
			return fdyno.Value{}, err
		}
		if t == fdyno.TypeSS {
			return fdyno.SS(members...), nil
		}
		return fdyno.NS(members...), nil
	}
	bs := make([][]byte, len(members))
	for i, m := range members {
		b, err := decodeBase64(m)
		if err != nil {
			return fdyno.Value{}, err
		}
		bs[i] = b
	}
	return fdyno.BS(bs...), nil
}

// checkDuplicateMembers rejects a string or number set that names a
// member twice, with DynamoDB's message, which lists the members as the
// request gave them: "Input collection [a, a] contains duplicates.".
// (Numbers equal only once canonical, 1 and 1.0, are the library's to
// reject.)
func checkDuplicateMembers(members []string) error {
	seen := make(map[string]struct{}, len(members))
	for _, m := range members {
		if _, dup := seen[m]; dup {
			return validation("One or more parameter values were invalid: Input collection [" + strings.Join(members, ", ") + "] contains duplicates.")
		}
		seen[m] = struct{}{}
	}
	return nil
}

// decodeBase64 decodes a B or BS member: standard base64 with padding.
func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, serialization("Base64 encoded value is invalid: " + err.Error())
	}
	return b, nil
}

// skip skips one JSON value of any kind without recursion, so an ignored
// member cannot exhaust the stack however deeply it nests. It checks
// little of the grammar inside the value: its callers have the text
// checked by encoding/json (json.Unmarshal before UnmarshalJSON, or
// json.Valid in decodeValue).
func (d *avDecoder) skip() error {
	nest := 0
	for {
		c := d.peek()
		switch {
		case c == '"':
			if _, err := d.str(); err != nil {
				return err
			}
		case c == '{' || c == '[':
			d.pos++
			nest++
		case (c == '}' || c == ']') && nest > 0:
			d.pos++
			nest--
		case (c == ',' || c == ':') && nest > 0:
			d.pos++
			continue
		case c == '-' || c >= '0' && c <= '9':
			for d.pos < len(d.data) && isNumberByte(d.data[d.pos]) {
				d.pos++
			}
		case d.consume("true"), d.consume("false"), d.consume("null"):
		default:
			return d.syntax("expected a value")
		}
		if nest == 0 {
			return nil
		}
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// appendItem appends it as a JSON object of AttributeValues, names in
// byte order (so equal items encode to equal bytes).
func appendItem(dst []byte, it fdyno.Item) []byte {
	dst = append(dst, '{')
	for i, name := range sortedNames(it) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = avjson.AppendString(dst, name)
		dst = append(dst, ':')
		dst = appendValue(dst, it[name])
	}
	return append(dst, '}')
}

// appendValue appends v as an AttributeValue. The zero Value, which no
// item holds, encodes as {}.
func appendValue(dst []byte, v fdyno.Value) []byte {
	t := v.Type()
	if t == 0 {
		return append(dst, "{}"...)
	}
	dst = append(dst, '{', '"')
	dst = append(dst, t.String()...)
	dst = append(dst, '"', ':')
	switch t {
	case fdyno.TypeS:
		dst = avjson.AppendString(dst, v.S())
	case fdyno.TypeN:
		dst = avjson.AppendString(dst, v.N())
	case fdyno.TypeB:
		dst = appendBase64(dst, v.B())
	case fdyno.TypeBOOL:
		dst = strconv.AppendBool(dst, v.Bool())
	case fdyno.TypeNULL:
		dst = append(dst, "true"...)
	case fdyno.TypeM:
		dst = appendItem(dst, v.M())
	case fdyno.TypeL:
		dst = appendArray(dst, v.L(), appendValue)
	case fdyno.TypeSS:
		dst = appendArray(dst, v.SS(), avjson.AppendString)
	case fdyno.TypeNS:
		dst = appendArray(dst, v.NS(), avjson.AppendString)
	case fdyno.TypeBS:
		dst = appendArray(dst, v.BS(), appendBase64)
	}
	return append(dst, '}')
}

// appendArray appends xs as a JSON array, each member by appendOne.
func appendArray[T any](dst []byte, xs []T, appendOne func([]byte, T) []byte) []byte {
	dst = append(dst, '[')
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendOne(dst, x)
	}
	return append(dst, ']')
}

func appendBase64(dst, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}
