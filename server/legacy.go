package server

import (
	"encoding/json"
	"strconv"
	"strings"
)

// legacy.go: DynamoDB's legacy (pre-expression) parameters. fdyno speaks
// only expressions, so a request using Expected, AttributeUpdates,
// KeyConditions, QueryFilter, ScanFilter or ConditionalOperator is refused
// with a ValidationException that names the expression to use instead.
// AttributesToGet is trivial to map and is mapped to a
// ProjectionExpression, with DynamoDB's rule that legacy and expression
// parameters cannot be mixed.

// legacyParam is one legacy member of a request: present unless absent or
// JSON null.
type legacyParam json.RawMessage

// UnmarshalJSON keeps the raw value.
func (p *legacyParam) UnmarshalJSON(data []byte) error {
	if string(data) != "null" {
		*p = append((*p)[:0], data...)
	}
	return nil
}

func (p legacyParam) present() bool { return len(p) > 0 }

// legacyConditional are the legacy members of PutItem, UpdateItem and
// DeleteItem.
type legacyConditional struct {
	Expected            legacyParam
	ConditionalOperator legacyParam
}

func (l legacyConditional) check() error {
	return refuseLegacy(
		named{"Expected", l.Expected, "ConditionExpression"},
		named{"ConditionalOperator", l.ConditionalOperator, "ConditionExpression"},
	)
}

type named struct {
	name    string
	p       legacyParam
	instead string
}

func refuseLegacy(params ...named) error {
	for _, n := range params {
		if n.p.present() {
			return validation("The legacy parameter " + n.name + " is not supported by fdyno-server; use " + n.instead + " instead")
		}
	}
	return nil
}

// attributesToGet maps an AttributesToGet list to a ProjectionExpression
// and its ExpressionAttributeNames. exprParams lists the expression
// parameters the request has, which cannot be mixed with it.
func attributesToGet(names []string, names0 map[string]string, exprParams ...string) (string, map[string]string, error) {
	if names == nil {
		return "", names0, nil
	}
	if len(exprParams) > 0 {
		return "", nil, validation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {" +
			strings.Join(exprParams, ", ") + "}")
	}
	if names0 != nil {
		return "", nil, validation("ExpressionAttributeNames can only be specified when using expressions")
	}
	if len(names) == 0 {
		return "", nil, validation("1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	seen := make(map[string]bool, len(names))
	ean := make(map[string]string, len(names))
	var b strings.Builder
	for i, n := range names {
		if seen[n] {
			return "", nil, validation("One or more parameter values were invalid: Duplicate value in attribute name: " + n)
		}
		seen[n] = true
		if i > 0 {
			b.WriteString(", ")
		}
		ph := "#a" + strconv.Itoa(i)
		b.WriteString(ph)
		ean[ph] = n
	}
	return b.String(), ean, nil
}

// present lists the names of the non-empty expression parameters among
// pairs of (name, value).
func present(pairs ...string) []string {
	var out []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			out = append(out, pairs[i])
		}
	}
	return out
}
