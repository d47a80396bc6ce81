package server

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	strictjson "github.com/go-json-experiment/json"

	"github.com/fdyno/fdyno"
)

// legacy_condition.go: the legacy conditions, Expected (an
// ExpectedAttributeValue per attribute) and QueryFilter, ScanFilter and
// KeyConditions (a Condition per attribute), decoded, validated with
// DynamoDB's messages and translated into the condition expression they
// stand for. The rules are those of the API reference's Condition and
// ExpectedAttributeValue pages:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Condition.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExpectedAttributeValue.html
//
// Every ComparisonOperator has a counterpart in the expression grammar
// with the same answer on every item, so the translation is the whole of
// the legacy semantics: a missing attribute fails every operator but NE
// and NULL (NOT_CONTAINS too fails it, unlike NOT contains(), so it
// becomes attribute_exists AND NOT contains); a value of another type
// than the argument matches none but NE and NOT_CONTAINS.

// comparisonOperators are DynamoDB's ComparisonOperator values, in the
// order its enum message lists them.
var comparisonOperators = []string{"IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT", "NOT_NULL", "NE", "LE", "BEGINS_WITH", "GE", "CONTAINS"}

// maxInOperands is the most values an expression's IN takes (the
// library's limit, DynamoDB's "The IN operator is provided with too many
// operands").
const maxInOperands = 100

// operatorRule is what a ComparisonOperator takes: its number of
// arguments (-1 for one or more) and the argument types a Condition may
// use (condExpr writes it as an expression).
type operatorRule struct {
	args  int
	types string // space-separated type names; "" for no arguments
}

// anyType is every AttributeValue type: "EQ is supported for all data
// types, including lists and maps" (the Condition page), and so is NE.
const anyType = "S N B SS NS BS L M BOOL NULL"

var operatorRules = map[string]operatorRule{
	"EQ":           {1, anyType},
	"NE":           {1, anyType},
	"LE":           {1, "S N B"},
	"LT":           {1, "S N B"},
	"GE":           {1, "S N B"},
	"GT":           {1, "S N B"},
	"NOT_NULL":     {0, ""},
	"NULL":         {0, ""},
	"CONTAINS":     {1, "S N B"},
	"NOT_CONTAINS": {1, "S N B"},
	"BEGINS_WITH":  {1, "S B"},
	"IN":           {-1, "S N B"},
	"BETWEEN":      {2, "S N B"},
}

// legacyCond is one decoded entry of a legacy condition map.
type legacyCond struct {
	attr    string
	op      string // ComparisonOperator; "" when absent
	list    []fdyno.Value
	hasList bool
	value   fdyno.Value // Expected's Value; zero when absent
	exists  *bool       // Expected's Exists
}

// rawCond is the JSON shape shared by Condition and
// ExpectedAttributeValue.
type rawCond struct {
	AttributeValueList []json.RawMessage
	ComparisonOperator *string
	Exists             *bool
	Value              json.RawMessage
}

// decodeConds decodes a legacy condition map (member names the wire
// field, such as "Expected", for messages), sorted by attribute name so
// that validation reports the same error for the same request.
func decodeConds(member string, raw legacyParam) ([]legacyCond, error) {
	names, m, err := decodeLegacyMap[rawCond](raw)
	if err != nil {
		return nil, err
	}
	conds := make([]legacyCond, 0, len(m))
	for _, name := range names {
		if err := checkLegacyName(name); err != nil {
			return nil, err
		}
		rc := m[name]
		c := legacyCond{attr: name, exists: rc.Exists, hasList: rc.AttributeValueList != nil}
		if rc.ComparisonOperator != nil {
			c.op = *rc.ComparisonOperator
			if _, ok := operatorRules[c.op]; !ok {
				return nil, validation("1 validation error detected: Value '" + c.op + "' at '" + lowerFirst(member) + "." + name +
					".member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [" + strings.Join(comparisonOperators, ", ") + "]")
			}
		} else if member != "Expected" {
			return nil, validation("1 validation error detected: Value null at '" + lowerFirst(member) + "." + name +
				".member.comparisonOperator' failed to satisfy constraint: Member must not be null")
		}
		for _, r := range rc.AttributeValueList {
			v, err := decodeLegacyValue(r)
			if err != nil {
				return nil, err
			}
			c.list = append(c.list, v)
		}
		if len(rc.Value) > 0 && !bytes.Equal(bytes.TrimSpace(rc.Value), []byte("null")) {
			v, err := decodeLegacyValue(rc.Value)
			if err != nil {
				return nil, err
			}
			c.value = v
		}
		conds = append(conds, c)
	}
	return conds, nil
}

// decodeLegacyValue decodes and validates one AttributeValue of a legacy
// parameter, rejecting it in the library's (DynamoDB's) words.
func decodeLegacyValue(raw json.RawMessage) (fdyno.Value, error) {
	v, err := decodeValue(raw)
	if err != nil {
		return fdyno.Value{}, err
	}
	if err := v.Validate(); err != nil {
		return fdyno.Value{}, err
	}
	return v, nil
}

// checkLegacyName applies the library's rule for a top-level attribute
// name (1 to 65535 bytes) to a legacy parameter's attribute name, in the
// library's words, which DynamoDB's documentation does not give for the
// legacy parameters.
func checkLegacyName(name string) error {
	switch {
	case name == "":
		return invalid("Empty attribute name")
	case len(name) > fdyno.MaxAttributeNameLength:
		return invalid("Attribute name is too large, must be less than 65536 bytes")
	}
	return nil
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// invalid is DynamoDB's "One or more parameter values were invalid: "
// ValidationException.
func invalid(reason string) error {
	return validation("One or more parameter values were invalid: " + reason)
}

// checkExpected validates an Expected entry as DynamoDB does and
// normalizes it to an operator and arguments: Value alone (or with
// Exists true) is EQ, Exists false is NULL.
func checkExpected(c *legacyCond) error {
	hasValue := !c.value.IsZero()
	if c.hasList && hasValue {
		return invalid("Value and AttributeValueList cannot be used together for Attribute: " + c.attr)
	}
	switch {
	case c.op != "":
		if c.exists != nil {
			return invalid("Exists and ComparisonOperator cannot be used together for Attribute: " + c.attr)
		}
		if c.op != "NULL" && c.op != "NOT_NULL" && !c.hasList && !hasValue {
			return invalid("Value or AttributeValueList must be used with ComparisonOperator: " + c.op + " for Attribute: " + c.attr)
		}
		if hasValue {
			c.list = []fdyno.Value{c.value}
		}
		return checkArgs(c)
	case c.hasList:
		return invalid("AttributeValueList can only be used with a ComparisonOperator for Attribute: " + c.attr)
	}
	exists := c.exists == nil || *c.exists
	switch {
	case exists && !hasValue:
		word := "null"
		if c.exists != nil {
			word = "true"
		}
		return invalid("Value must be provided when Exists is " + word + " for Attribute: " + c.attr)
	case !exists && hasValue:
		return invalid("Value cannot be used when Exists is false for Attribute: " + c.attr)
	case exists:
		c.op, c.list = "EQ", []fdyno.Value{c.value}
	default:
		c.op = "NULL"
	}
	return nil
}

// checkArgs validates a Condition's AttributeValueList against its
// operator: the argument count, one type for all arguments, the types
// the operator takes, and BETWEEN's order.
func checkArgs(c *legacyCond) error {
	rule := operatorRules[c.op]
	if rule.args >= 0 && len(c.list) != rule.args || rule.args < 0 && len(c.list) == 0 {
		return invalid("Invalid number of argument(s) for the " + c.op + " ComparisonOperator")
	}
	for _, v := range c.list[min(1, len(c.list)):] {
		if v.Type() != c.list[0].Type() {
			return invalid("AttributeValues inside AttributeValueList must be of same type")
		}
	}
	for _, v := range c.list {
		if !typeIn(v.Type(), rule.types) {
			return invalid("ComparisonOperator " + c.op + " is not valid for " + v.Type().String() + " AttributeValue type")
		}
	}
	if c.op == "BETWEEN" && compareScalar(c.list[0], c.list[1]) > 0 {
		return validation("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
	}
	return nil
}

func typeIn(t fdyno.Type, types string) bool {
	for _, name := range strings.Fields(types) {
		if t.String() == name {
			return true
		}
	}
	return false
}

// compareScalar orders two S, N or B values of the same type: numbers by
// value, strings and binaries bytewise.
func compareScalar(a, b fdyno.Value) int {
	if a.Type() == fdyno.TypeN {
		x, err1 := a.Decimal()
		y, err2 := b.Decimal()
		if err1 != nil || err2 != nil {
			return 0
		}
		return x.Cmp(y)
	}
	if a.Type() == fdyno.TypeB {
		return bytes.Compare(a.B(), b.B())
	}
	return strings.Compare(a.S(), b.S())
}

// comparators are the expression comparators of the legacy operators
// that compare an attribute with one value.
var comparators = map[string]string{"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}

// condExpr returns c as a condition expression whose names and values
// are placeholders of ph: the one place a legacy condition's meaning is
// decided.
func condExpr(ph *placeholders, c legacyCond) string {
	n := ph.name(c.attr)
	arg := func(i int) string { return ph.value(c.list[i]) }
	if sym, ok := comparators[c.op]; ok {
		return n + " " + sym + " " + arg(0)
	}
	switch c.op {
	case "NOT_NULL":
		return "attribute_exists(" + n + ")"
	case "NULL":
		return "attribute_not_exists(" + n + ")"
	case "CONTAINS":
		return "contains(" + n + ", " + arg(0) + ")"
	case "NOT_CONTAINS":
		// DynamoDB answers false for a missing attribute, where NOT
		// contains() alone would be true. The parentheses keep it one
		// condition of the ConditionalOperator's chain.
		return "(attribute_exists(" + n + ") AND NOT contains(" + n + ", " + arg(0) + "))"
	case "BEGINS_WITH":
		return "begins_with(" + n + ", " + arg(0) + ")"
	case "BETWEEN":
		return n + " BETWEEN " + arg(0) + " AND " + arg(1)
	case "IN":
		// An expression's IN takes at most maxInOperands values; a longer
		// legacy list is the OR of INs, in parentheses so that it stays one
		// condition of an AND.
		var ins []string
		for lo := 0; lo < len(c.list); lo += maxInOperands {
			var args []string
			for i := lo; i < min(lo+maxInOperands, len(c.list)); i++ {
				args = append(args, arg(i))
			}
			ins = append(ins, n+" IN ("+strings.Join(args, ", ")+")")
		}
		if len(ins) == 1 {
			return ins[0]
		}
		return "(" + strings.Join(ins, " OR ") + ")"
	}
	panic("server: unchecked ComparisonOperator " + c.op)
}

// joinConds returns the conditions joined by the ConditionalOperator
// (AND or OR). NOT binds tighter than AND and OR, and a chain of one of
// them needs no parentheses.
func joinConds(ph *placeholders, conds []legacyCond, op string) string {
	parts := make([]string, len(conds))
	for i, c := range conds {
		parts[i] = condExpr(ph, c)
	}
	return strings.Join(parts, " "+op+" ")
}

// decodeLegacyMap decodes a legacy map of attribute names to members (a
// JSON null member decodes as the zero member) and returns its names
// sorted, so that validation reports the same error for the same request.
func decodeLegacyMap[T any](raw legacyParam) ([]string, map[string]*T, error) {
	var m map[string]*T
	if err := strictjson.Unmarshal(raw, &m); err != nil {
		return nil, nil, serializationOf(strictError(raw, &m, err))
	}
	names := make([]string, 0, len(m))
	for name, v := range m {
		names = append(names, name)
		if v == nil {
			m[name] = new(T)
		}
	}
	sort.Strings(names)
	return names, m, nil
}
