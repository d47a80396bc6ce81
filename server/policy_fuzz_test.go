package server

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzParsePolicy: any bytes either parse into a policy or fail with
// ErrPolicy, never panic; a policy that parses evaluates any check
// without panicking, to one of the three decisions. Seeds are in
// testdata/fuzz/FuzzParsePolicy (AWS's documented example shapes).
func FuzzParsePolicy(f *testing.F) {
	for _, doc := range []string{leadingKeysPolicy, attributesPolicy, readOnlyPolicy, explicitDenyPolicy} {
		f.Add([]byte(doc))
	}
	checks := []authzCheck{
		{"dynamodb:GetItem", gameARN, map[string]ctxValue{"dynamodb:leadingkeys": {values: []string{"alice"}}}},
		{"dynamodb:Query", gameARN + "/index/I", map[string]ctxValue{"dynamodb:leadingkeys": {unknown: true}, "dynamodb:select": {values: []string{"ALL_ATTRIBUTES"}}}},
		{"dynamodb:ListTables", "*", nil},
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		p, err := ParsePolicy(doc)
		if err != nil {
			if !strings.HasPrefix(err.Error(), ErrPolicy.Error()) {
				t.Fatalf("error %v does not wrap ErrPolicy", err)
			}
			return
		}
		for _, c := range checks {
			if d := evaluate([]*Policy{p}, principal{keyID: "alice", account: "123456789012"}, c); d < implicitDeny || d > explicitDeny {
				t.Fatalf("decision %d", d)
			}
		}
	})
}

// FuzzMatchPattern: matchPattern agrees with the regular expression the
// IAM wildcards stand for (* any run, ? one character).
func FuzzMatchPattern(f *testing.F) {
	f.Add("arn:aws:dynamodb:*:*:table/Game*", "arn:aws:dynamodb:us-east-1:1:table/GameScores")
	f.Add("a?c*", "abcdef")
	f.Add("**a*b?", "xxaxxbz")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if strings.Contains(pattern, `\`) || len(pattern) > 64 || len(s) > 256 {
			return
		}
		var re strings.Builder
		re.WriteString(`^(?s:`)
		for _, r := range pattern {
			switch r {
			case '*':
				re.WriteString(".*")
			case '?':
				re.WriteString(".")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		re.WriteString(`)$`)
		want := regexp.MustCompile(re.String()).MatchString(s)
		// matchPattern works on bytes; the regexp on runes: compare on
		// ASCII only, where they agree.
		for i := 0; i < len(pattern); i++ {
			if pattern[i] >= 0x80 {
				return
			}
		}
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return
			}
		}
		if got := matchPattern(pattern, s); got != want {
			t.Fatalf("matchPattern(%q, %q) = %v, want %v", pattern, s, got, want)
		}
	})
}
