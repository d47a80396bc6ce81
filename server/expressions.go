package server

import (
	"bytes"
	"encoding/json"
)

// The library reads an empty expression string as an absent one (Go has
// no other zero value for it), but on the wire DynamoDB tells them apart:
// a ConditionExpression, UpdateExpression, ProjectionExpression,
// FilterExpression or KeyConditionExpression that is present and empty
// is a ValidationException, "Invalid UpdateExpression: The expression can
// not be empty;", and nothing is written. checkEmptyExpressions finds such
// a member anywhere in a request (top level, or inside TransactItems and
// RequestItems) before the request runs.

// expressionMembers are the expression members, in the order their
// emptiness is reported when a request has several.
var expressionMembers = []string{"UpdateExpression", "ConditionExpression", "KeyConditionExpression", "FilterExpression", "ProjectionExpression"}

// emptyMember matches `Expression"`, optional JSON whitespace, `:`,
// optional whitespace and `""`: what any empty expression member looks
// like in the body. Most requests have none, so the full check below runs
// only after this cheap scan finds one.
func hasEmptyExpressionMember(body []byte) bool {
	const tail = `Expression"`
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte(tail))
		if j < 0 {
			return false
		}
		k := skipJSONSpace(body, i+j+len(tail))
		if k < len(body) && body[k] == ':' {
			k = skipJSONSpace(body, k+1)
			if bytes.HasPrefix(body[k:], []byte(`""`)) {
				return true
			}
		}
		i += j + len(tail)
	}
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// checkEmptyExpressions returns the ValidationException for a request
// whose body, already decoded once successfully, holds an expression
// member set to "". Member names match exactly, as decode matches them to
// the request's fields.
func checkEmptyExpressions(body []byte) error {
	if !hasEmptyExpressionMember(body) {
		return nil
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil // the typed decode succeeded; leave it to the operation
	}
	found := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, w := range v {
				if s, ok := w.(string); ok && s == "" {
					for _, m := range expressionMembers {
						if k == m {
							found[m] = true
						}
					}
				}
				walk(w)
			}
		case []any:
			for _, w := range v {
				walk(w)
			}
		}
	}
	walk(doc)
	for _, m := range expressionMembers {
		if found[m] {
			return validation("Invalid " + m + ": The expression can not be empty;")
		}
	}
	return nil
}
