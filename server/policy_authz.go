package server

import (
	"encoding/json"
	"fmt"
	"io"
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

// accountOfKey is the account of access key keyID: Config.Accounts', or
// AccountOf's.
func (s *Server) accountOfKey(keyID string) string {
	if a, ok := s.accounts[keyID]; ok {
		return a
	}
	return AccountOf(keyID)
}
