package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// policy.go parses and evaluates IAM-style identity policies: the JSON
// policy grammar of AWS's IAM reference ("IAM JSON policy element
// reference"), restricted to what a DynamoDB endpoint can decide.
//
// Evaluation follows AWS's "Policy evaluation logic" for identity-based
// policies of one account:
//
//  1. A request is denied by default (an implicit deny).
//  2. A statement applies when its Action (or NotAction) matches the
//     action, its Resource (or NotResource) matches the resource, and
//     every condition in its Condition block holds: operators are ANDed,
//     keys within an operator are ANDed, the values of one key are ORed
//     ("Creating a condition with multiple keys or values").
//  3. An applicable Deny statement denies, whatever else allows it
//     ("explicit deny overrides allow"); otherwise an applicable Allow
//     statement allows.
//
// Action names match case-insensitively, resources case-sensitively,
// both with the wildcards * and ? ("IAM JSON policy elements: Action",
// "Resource"). Condition key names are case-insensitive ("Condition").
//
// Supported condition operators: StringEquals, StringNotEquals,
// StringEqualsIgnoreCase, StringNotEqualsIgnoreCase, StringLike,
// StringNotLike, each with an IfExists suffix and a ForAllValues: or
// ForAnyValue: set qualifier, and Null. Supported keys: dynamodb:LeadingKeys,
// dynamodb:Attributes, dynamodb:Select, dynamodb:ReturnValues
// (DynamoDB's "Using IAM policy conditions for fine-grained access
// control"), aws:username, aws:userid and aws:PrincipalAccount. Policy
// variables ${aws:username}, ${aws:userid}, ${aws:PrincipalAccount} and the
// escapes ${*}, ${?}, ${$} are substituted in Resource and condition
// values of Version 2012-10-17 policies ("IAM policy elements: Variables
// and tags"). Anything else (another operator, key, variable or element,
// a Principal) is an error when the policy is loaded, never "allow".

// Policy is a parsed identity policy. It is immutable and safe for
// concurrent use.
type Policy struct {
	version    string
	statements []statement
}

type statement struct {
	sid       string
	deny      bool
	actions   []string // lower case patterns
	notAction bool
	resources []string
	notRes    bool
	conds     []condition
}

// condition is one key of one operator of a Condition block.
type condition struct {
	op       string // base operator, e.g. "StringLike"
	set      string // "", "ForAllValues" or "ForAnyValue"
	ifExists bool
	key      string // lower case
	values   []string
}

// ErrPolicy is the category of every policy parse error.
var ErrPolicy = errors.New("server: invalid policy")

// maxPolicySize bounds a policy document (IAM's managed policies are at
// most 6,144 characters; a local file may be larger, not unbounded).
const maxPolicySize = 1 << 20

func policyErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrPolicy}, args...)...)
}

var supportedOps = map[string]bool{
	"StringEquals": true, "StringNotEquals": true, "StringEqualsIgnoreCase": true,
	"StringNotEqualsIgnoreCase": true, "StringLike": true, "StringNotLike": true, "Null": true,
}

// supportedKeys are the condition keys requests carry (lower case).
var supportedKeys = map[string]bool{
	"dynamodb:leadingkeys": true, "dynamodb:attributes": true, "dynamodb:select": true,
	"dynamodb:returnvalues": true, "aws:username": true, "aws:userid": true, "aws:principalaccount": true,
}

// ParsePolicy parses one policy document. Errors wrap [ErrPolicy].
func ParsePolicy(doc []byte) (*Policy, error) {
	if len(doc) > maxPolicySize {
		return nil, policyErr("larger than %d bytes", maxPolicySize)
	}
	var top map[string]json.RawMessage
	if err := strictUnmarshal(doc, &top); err != nil {
		return nil, policyErr("not a JSON object: %v", err)
	}
	p := &Policy{version: "2008-10-17"}
	for k, v := range top {
		switch k {
		case "Version":
			if err := json.Unmarshal(v, &p.version); err != nil || p.version != "2012-10-17" && p.version != "2008-10-17" {
				return nil, policyErr("Version must be \"2012-10-17\" or \"2008-10-17\"")
			}
		case "Id":
		case "Statement":
		default:
			return nil, policyErr("unknown element %q", truncate(k, 64))
		}
	}
	raw, ok := top["Statement"]
	if !ok {
		return nil, policyErr("no Statement")
	}
	var list []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, policyErr("Statement: %v", err)
		}
	} else {
		list = []json.RawMessage{raw}
	}
	if len(list) == 0 {
		return nil, policyErr("no Statement")
	}
	for i, r := range list {
		st, err := parseStatement(r, p.version)
		if err != nil {
			return nil, policyErr("statement %d: %s", i+1, strings.TrimPrefix(err.Error(), ErrPolicy.Error()+": "))
		}
		p.statements = append(p.statements, st)
	}
	return p, nil
}

func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// stringOrList decodes a JSON string or array of strings.
func stringOrList(r json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(r, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(r, &many); err != nil {
		return nil, errors.New("want a string or an array of strings")
	}
	return many, nil
}

func parseStatement(r json.RawMessage, version string) (statement, error) {
	var st statement
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r, &m); err != nil || m == nil {
		return st, policyErr("not a JSON object")
	}
	var haveAction, haveResource bool
	for k, v := range m {
		var err error
		switch k {
		case "Sid":
			err = json.Unmarshal(v, &st.sid)
		case "Effect":
			var e string
			if err = json.Unmarshal(v, &e); err == nil && e != "Allow" && e != "Deny" {
				err = errors.New(`want "Allow" or "Deny"`)
			}
			st.deny = e == "Deny"
		case "Action", "NotAction":
			if haveAction {
				return st, policyErr("both Action and NotAction")
			}
			haveAction, st.notAction = true, k == "NotAction"
			st.actions, err = stringOrList(v)
			for i, a := range st.actions {
				st.actions[i] = strings.ToLower(a)
				if a != "*" && !strings.HasPrefix(st.actions[i], "dynamodb:") {
					err = fmt.Errorf("action %q is not DynamoDB's (dynamodb:...)", truncate(a, 64))
				}
			}
		case "Resource", "NotResource":
			if haveResource {
				return st, policyErr("both Resource and NotResource")
			}
			haveResource, st.notRes = true, k == "NotResource"
			st.resources, err = stringOrList(v)
			for _, res := range st.resources {
				if err == nil {
					err = checkVariables(res, version)
				}
			}
		case "Condition":
			st.conds, err = parseConditions(v, version)
		case "Principal", "NotPrincipal":
			err = errors.New("an identity policy has no Principal")
		default:
			err = errors.New("unknown element")
		}
		if err != nil {
			return st, policyErr("%s: %v", k, err)
		}
	}
	switch {
	case m["Effect"] == nil:
		return st, policyErr("no Effect")
	case !haveAction:
		return st, policyErr("no Action or NotAction")
	case !haveResource:
		return st, policyErr("no Resource or NotResource")
	}
	return st, nil
}

func parseConditions(r json.RawMessage, version string) ([]condition, error) {
	var block map[string]map[string]json.RawMessage
	if err := json.Unmarshal(r, &block); err != nil {
		return nil, errors.New("want an object of operators, each an object of keys")
	}
	var out []condition
	for opName, keys := range block {
		c := condition{}
		base := opName
		if s, rest, ok := strings.Cut(base, ":"); ok {
			if s != "ForAllValues" && s != "ForAnyValue" {
				return nil, fmt.Errorf("unknown set operator %q", truncate(s, 64))
			}
			c.set, base = s, rest
		}
		if b, ok := strings.CutSuffix(base, "IfExists"); ok && b != "Null" {
			c.ifExists, base = true, b
		}
		if !supportedOps[base] {
			return nil, fmt.Errorf("unsupported condition operator %q", truncate(opName, 64))
		}
		c.op = base
		for key, v := range keys {
			k := c
			k.key = strings.ToLower(key)
			if !supportedKeys[k.key] {
				return nil, fmt.Errorf("unsupported condition key %q", truncate(key, 64))
			}
			var vals []string
			var b bool
			if err := json.Unmarshal(v, &b); err == nil {
				vals = []string{fmt.Sprint(b)}
			} else if vals, err = stringOrList(v); err != nil {
				return nil, fmt.Errorf("%s: %v", key, err)
			}
			if base == "Null" {
				for _, x := range vals {
					if x != "true" && x != "false" {
						return nil, errors.New("Null takes true or false")
					}
				}
			}
			for _, x := range vals {
				if err := checkVariables(x, version); err != nil {
					return nil, err
				}
			}
			k.values = vals
			out = append(out, k)
		}
	}
	return out, nil
}

// policyVariables are the variables a policy may use, lower case.
var policyVariables = map[string]bool{"aws:username": true, "aws:userid": true, "aws:principalaccount": true, "*": true, "?": true, "$": true}

// checkVariables checks that s uses only supported ${...} variables; in a
// 2008-10-17 policy ${ is literal text, as AWS treats it.
func checkVariables(s, version string) error {
	if version != "2012-10-17" {
		return nil
	}
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return fmt.Errorf("unterminated policy variable in %q", truncate(s, 64))
		}
		if name := s[i+2 : i+j]; !policyVariables[strings.ToLower(name)] {
			return fmt.Errorf("unsupported policy variable ${%s}", truncate(name, 64))
		}
		s = s[i+j+1:]
	}
}

// principal is who makes a request.
type principal struct {
	keyID   string
	account string
}

func (p principal) arn() string { return "arn:aws:iam::" + p.account + ":user/" + p.keyID }

// substitute replaces policy variables in s with p's values and returns
// a pattern for matchPattern: a backslash of s's own text, and a
// wildcard character from a variable's value, are escaped, so only the
// policy's own * and ? are wildcards.
func (p principal) substitute(s, version string) string {
	var b strings.Builder
	literal := func(t string) { b.WriteString(strings.ReplaceAll(t, `\`, `\\`)) }
	if version != "2012-10-17" {
		literal(s)
		return b.String()
	}
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			literal(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		literal(s[:i])
		switch strings.ToLower(s[i+2 : i+j]) {
		case "aws:username", "aws:userid":
			b.WriteString(escapeWildcards(p.keyID))
		case "aws:principalaccount":
			b.WriteString(p.account)
		case "*":
			b.WriteString(`\*`)
		case "?":
			b.WriteString(`\?`)
		case "$":
			b.WriteString("$")
		}
		s = s[i+j+1:]
	}
}

func escapeWildcards(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`)
	return r.Replace(s)
}

// matchPattern reports whether s matches pattern, where * matches any
// run of characters, ? any one, and \ escapes the next character (only
// produced by substitute).
func matchPattern(pattern, s string) bool {
	// Iterative wildcard matching with one backtrack point: linear in
	// practice, O(len(pattern)·len(s)) at worst, never exponential.
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		if p < len(pattern) {
			c := pattern[p]
			switch {
			case c == '*':
				star, mark = p, i
				p++
				continue
			case c == '?':
				p++
				i++
				continue
			case c == '\\' && p+1 < len(pattern) && pattern[p+1] == s[i]:
				p += 2
				i++
				continue
			case c != '\\' && c == s[i]:
				p++
				i++
				continue
			}
		}
		if star < 0 {
			return false
		}
		mark++
		p, i = star+1, mark
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// authzCheck is one action on one resource that a request needs, with
// the condition keys of that part of the request.
type authzCheck struct {
	action   string // "dynamodb:GetItem"
	resource string // an ARN, or "*"
	ctx      map[string]ctxValue
}

// ctxValue is a condition key's values in a request. unknown marks a key
// the server could not compute (a Query whose key condition it cannot
// read): every condition on it fails closed, false in an Allow statement
// and true in a Deny statement.
type ctxValue struct {
	values  []string
	unknown bool
}

// decision is the outcome of evaluating the policies for one check.
type decision int

const (
	implicitDeny decision = iota
	allowed
	explicitDeny
)

// evaluate decides check for who under policies.
func evaluate(policies []*Policy, who principal, check authzCheck) decision {
	ctx := map[string]ctxValue{
		"aws:username":         {values: []string{who.keyID}},
		"aws:userid":           {values: []string{who.keyID}},
		"aws:principalaccount": {values: []string{who.account}},
	}
	for k, v := range check.ctx {
		ctx[k] = v
	}
	d := implicitDeny
	for _, p := range policies {
		for _, st := range p.statements {
			if !st.matchesAction(check.action) || !st.matchesResource(p, who, check.resource) {
				continue
			}
			if !st.conditionsHold(p, who, ctx) {
				continue
			}
			if st.deny {
				return explicitDeny
			}
			d = allowed
		}
	}
	return d
}

func (st *statement) matchesAction(action string) bool {
	a := strings.ToLower(action)
	for _, pat := range st.actions {
		if matchPattern(pat, a) {
			return !st.notAction
		}
	}
	return st.notAction
}

func (st *statement) matchesResource(p *Policy, who principal, res string) bool {
	for _, pat := range st.resources {
		if matchPattern(who.substitute(pat, p.version), res) {
			return !st.notRes
		}
	}
	return st.notRes
}

func (st *statement) conditionsHold(p *Policy, who principal, ctx map[string]ctxValue) bool {
	for _, c := range st.conds {
		v, present := ctx[c.key]
		if v.unknown {
			if !st.deny {
				return false
			}
			continue // fails closed: the Deny's condition holds
		}
		if !c.holds(p, who, v.values, present) {
			return false
		}
	}
	return true
}

// holds evaluates one condition key against the request's values, as
// AWS's "IAM JSON policy elements: Condition operators" and "Single-valued
// vs. multivalued context keys" describe it.
func (c condition) holds(p *Policy, who principal, vals []string, present bool) bool {
	if c.op == "Null" {
		// Null: true means the key is absent (or empty), false present.
		absent := !present || len(vals) == 0
		return c.values[0] == "true" == absent
	}
	negated := strings.Contains(c.op, "Not")
	matchOne := func(v string) bool {
		for _, raw := range c.values {
			pat := who.substitute(raw, p.version)
			var ok bool
			switch c.op {
			case "StringEquals", "StringNotEquals":
				ok = unescape(pat) == v
			case "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase":
				ok = strings.EqualFold(unescape(pat), v)
			case "StringLike", "StringNotLike":
				ok = matchPattern(pat, v)
			}
			if ok {
				return true
			}
		}
		return false
	}
	// A value satisfies the operator: matches one of the policy's values,
	// or for a negated operator matches none of them.
	sat := func(v string) bool { return matchOne(v) != negated }
	switch c.set {
	case "ForAllValues":
		// True when every request value satisfies it; true also when the
		// key is absent or empty.
		for _, v := range vals {
			if !sat(v) {
				return false
			}
		}
		return true
	case "ForAnyValue":
		// True when at least one request value satisfies it; false for an
		// absent or empty key.
		for _, v := range vals {
			if sat(v) {
				return true
			}
		}
		return false
	}
	if !present || len(vals) == 0 {
		// An absent key: IfExists makes the condition true; otherwise it
		// is false for a matching operator and true for a negated one.
		return c.ifExists || negated
	}
	// A single-valued key (several values only for misuse, then all must
	// satisfy, the conservative reading).
	for _, v := range vals {
		if !sat(v) {
			return false
		}
	}
	return true
}

// unescape removes the escapes substitute adds, for exact comparisons.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
