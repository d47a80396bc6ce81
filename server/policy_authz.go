package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// policy_authz.go applies the policies (Config.Policies) to each request
// after its signature is verified and before its operation runs.

// LoadPolicies reads a policy file: a JSON object whose names are access
// key IDs or 12-digit account IDs and whose values are one policy
// document or an array of them. A key's policies are its own and its
// account's. Any error (a policy that does not parse, an unknown
// element, operator, key or variable) is returned; it is never read as
// "allow". Errors wrap [ErrPolicy].
func LoadPolicies(r io.Reader) (map[string][]*Policy, error) {
	b, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := strictUnmarshal(b, &m); err != nil {
		return nil, policyErr("the policy file is not a JSON object: %v", err)
	}
	out := make(map[string][]*Policy, len(m))
	for who, raw := range m {
		var docs []json.RawMessage
		if err := json.Unmarshal(raw, &docs); err != nil {
			docs = []json.RawMessage{raw}
		}
		for i, d := range docs {
			p, err := ParsePolicy(d)
			if err != nil {
				return nil, fmt.Errorf("%s, policy %d: %w", truncate(who, 64), i+1, err)
			}
			out[who] = append(out[who], p)
		}
	}
	return out, nil
}

// authorize evaluates the policies for the request in ns, refusing it
// with AccessDeniedException, AWS's message naming who, the action and
// the resource, at the first check they do not allow.
func (s *Server) authorize(r *http.Request, c *call, ns *Server, body []byte) error {
	if s.policies == nil {
		return nil
	}
	keyID, _ := credentialScope(r.Header.Get("Authorization"))
	who := principal{keyID: keyID, account: c.account}
	if s.spaces == nil {
		who.account = s.accountOfKey(keyID)
	}
	policies := slices.Concat(s.policies[who.keyID], s.policies[who.account])
	checks, err := ns.authzChecks(c.op, body)
	if err != nil {
		return err
	}
	for _, check := range checks {
		switch evaluate(policies, who, check) {
		case allowed:
			continue
		case explicitDeny:
			return accessDenied(who, check, "with an explicit deny in an identity-based policy")
		default:
			return accessDenied(who, check, "because no identity-based policy allows the "+check.action+" action")
		}
	}
	return nil
}

func accessDenied(who principal, check authzCheck, why string) error {
	return &apiError{typ: errAccessDenied, msg: "User: " + who.arn() + " is not authorized to perform: " + check.action +
		" on resource: " + check.resource + " " + why}
}

// accountOfKey is the account of access key keyID: Config.Accounts', or
// AccountOf's.
func (s *Server) accountOfKey(keyID string) string {
	if a, ok := s.accounts[keyID]; ok {
		return a
	}
	return AccountOf(keyID)
}
