package fdyno

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// import_json.go decodes one line of a DYNAMODB_JSON import file, the
// format of DynamoDB's exports ("DynamoDB JSON"): an object whose one
// member "Item" holds the item in DynamoDB's marshalled form,
//
//	{"Item":{"Id":{"N":"103"},"Authors":{"SS":["Author1","Author2"]}}}
//
// Decoding is syntactic (the JSON shape, exactly one type per value, NULL
// true, base64 that decodes, string N); the item's rules (numbers, sets,
// names, sizes, keys) are the table's write path's, as for a Put.
//
// Invariants (FuzzImportJSONLine):
//
//  1. It never panics on any bytes, recurses at most MaxNestingDepth
//     levels and allocates in proportion to the line.
//  2. For every line it accepts, the line written back (appendExportItem)
//     decodes to an equal item.

// maxImportLine bounds one line (or CSV record) of an import file: an
// item is at most 400 KB, and its JSON text at most a few times that.
const maxImportLine = 4 << 20

// ImportLineError reports one line (or record) of an import file that
// could not be read as an item; the import counts it (ErrorCount) and
// goes on. It unwraps to [ErrValidation].
type ImportLineError struct {
	Reason string
}

func (e *ImportLineError) Error() string { return "fdyno: ValidationException: " + e.Reason }

// Unwrap returns [ErrValidation].
func (e *ImportLineError) Unwrap() error { return ErrValidation }

func lineError(reason string) error { return &ImportLineError{Reason: reason} }

// decodeImportJSONLine decodes one DYNAMODB_JSON line.
func decodeImportJSONLine(line []byte) (Item, error) {
	d := jsontext.NewDecoder(bytes.NewReader(line))
	tok, err := d.ReadToken()
	if err != nil || tok.Kind() != '{' {
		return nil, lineError("the line is not a JSON object")
	}
	var item Item
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, jsonError(err)
		}
		if name.String() != "Item" {
			return nil, lineError("unexpected member " + strconv.Quote(truncateForMessage(name.String())) + "; a line holds one object with the member \"Item\"")
		}
		if item, err = decodeAVMap(d, 1); err != nil {
			return nil, err
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, jsonError(err)
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, lineError("more than one JSON value on the line")
	}
	if item == nil {
		return nil, lineError("the line has no member \"Item\"")
	}
	return item, nil
}

func jsonError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return lineError("unexpected end of the line")
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return lineError("malformed JSON: " + se.Err.Error())
	}
	return lineError("malformed JSON")
}

// decodeAVMap decodes a JSON object of attribute values at nesting level
// depth (1 for an item's attributes).
func decodeAVMap(d *jsontext.Decoder, depth int) (Item, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, jsonError(err)
	}
	if tok.Kind() != '{' {
		return nil, lineError("expected an object of attribute values")
	}
	it := Item{}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, jsonError(err)
		}
		name := tok.String() // a token is valid until the next read
		v, err := decodeAV(d, depth)
		if err != nil {
			return nil, err
		}
		it[name] = v
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, jsonError(err)
	}
	return it, nil
}

// decodeAV decodes one attribute value, {"<type>": <value>}, at nesting
// level depth.
func decodeAV(d *jsontext.Decoder, depth int) (Value, error) {
	if depth > MaxNestingDepth {
		return Value{}, lineError("Nesting Levels have exceeded supported limits")
	}
	tok, err := d.ReadToken()
	if err != nil {
		return Value{}, jsonError(err)
	}
	if tok.Kind() != '{' {
		return Value{}, lineError("an attribute value must be an object such as {\"S\":\"text\"}")
	}
	if d.PeekKind() == '}' {
		return Value{}, lineError("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	}
	typ, err := d.ReadToken()
	if err != nil {
		return Value{}, jsonError(err)
	}
	var v Value
	switch t := typ.String(); t {
	case "S", "N", "B":
		s, err := readString(d)
		if err != nil {
			return Value{}, err
		}
		switch t {
		case "S":
			v = S(s)
		case "N":
			v = N(s)
		default:
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return Value{}, lineError("invalid base64 in a B value")
			}
			v = B(b)
		}
	case "BOOL", "NULL":
		tok, err := d.ReadToken()
		if err != nil {
			return Value{}, jsonError(err)
		}
		if k := tok.Kind(); k != 't' && k != 'f' {
			return Value{}, lineError(t + " must be true or false")
		}
		if t == "BOOL" {
			v = Bool(tok.Bool())
		} else if !tok.Bool() {
			return Value{}, lineError("One or more parameter values were invalid: Null attribute value types must have the value of true")
		} else {
			v = Null()
		}
	case "M":
		m, err := decodeAVMap(d, depth+1)
		if err != nil {
			return Value{}, err
		}
		v = M(m)
	case "L", "SS", "NS", "BS":
		tok, err := d.ReadToken()
		if err != nil {
			return Value{}, jsonError(err)
		}
		if tok.Kind() != '[' {
			return Value{}, lineError(t + " must be a list")
		}
		var list []Value
		var strs []string
		var bins [][]byte
		for d.PeekKind() != ']' {
			if t == "L" {
				e, err := decodeAV(d, depth+1)
				if err != nil {
					return Value{}, err
				}
				list = append(list, e)
				continue
			}
			s, err := readString(d)
			if err != nil {
				return Value{}, err
			}
			if t == "BS" {
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return Value{}, lineError("invalid base64 in a BS value")
				}
				bins = append(bins, b)
			} else {
				strs = append(strs, s)
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return Value{}, jsonError(err)
		}
		switch t {
		case "L":
			v = L(list...)
		case "SS":
			v = SS(strs...)
		case "NS":
			v = NS(strs...)
		default:
			v = BS(bins...)
		}
	default:
		return Value{}, lineError("unknown attribute value type " + strconv.Quote(truncateForMessage(t)))
	}
	if d.PeekKind() != '}' {
		return Value{}, lineError("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	}
	if _, err := d.ReadToken(); err != nil {
		return Value{}, jsonError(err)
	}
	return v, nil
}

func readString(d *jsontext.Decoder) (string, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return "", jsonError(err)
	}
	if tok.Kind() != '"' {
		return "", lineError("expected a JSON string")
	}
	return tok.String(), nil
}
