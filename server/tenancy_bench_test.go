package server

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// BenchmarkTenancyGetItem measures what accounts, signatures and
// policies add to a GetItem of a 1 KB item through the SDK, beside the
// raw FoundationDB Get in the same run: the shared namespace without
// keys; per-account namespaces with SigV4 verification; and with a
// LeadingKeys policy (which describes the table to find its partition
// key).
func BenchmarkTenancyGetItem(b *testing.B) {
	const account = "123456789012"
	policy := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*",
		"Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:username}"]}}}}`
	policies, err := LoadPolicies(strings.NewReader(`{"bench":` + policy + `}`))
	if err != nil {
		b.Fatal(err)
	}
	keys := map[string]string{"bench": "secret-of-bench"}
	accounts := map[string]string{"bench": account}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"shared-no-auth", Config{}},
		{"namespaces-auth", Config{Keys: keys, Accounts: accounts, Namespaces: PerAccountNamespaces}},
		{"namespaces-auth-policy", Config{Keys: keys, Accounts: accounts, Namespaces: PerAccountNamespaces, Policies: policies}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tc.cfg.Logger = slog.New(slog.DiscardHandler)
			ts := newTestServer(b, tc.cfg)
			c := ts.regionClient("bench", "us-east-1")
			createTable(b, c, "Bench", "", "")
			if _, err := c.PutItem(ctx(b), &dynamodb.PutItemInput{TableName: aws.String("Bench"), Item: benchItem("bench")}); err != nil {
				b.Fatal(err)
			}
			in := &dynamodb.GetItemInput{TableName: aws.String("Bench"), Key: map[string]types.AttributeValue{"pk": s("bench")}}
			benchSDKGet(b, c, in)
		})
	}
	b.Run("raw-fdb", func(b *testing.B) {
		benchRawGet(b, fdblitetest.OpenIsolated(b), fdb.Key("server-bench/tenancy"))
	})
}

// BenchmarkPolicyEvaluate is the evaluation of one check against the
// documented LeadingKeys policy.
func BenchmarkPolicyEvaluate(b *testing.B) {
	p := mustPolicy(b, leadingKeysPolicy)
	who := principal{keyID: "alice", account: "123456789012"}
	check := authzCheck{"dynamodb:GetItem", gameARN, map[string]ctxValue{"dynamodb:leadingkeys": {values: []string{"alice"}}}}
	b.ReportAllocs()
	for b.Loop() {
		if evaluate([]*Policy{p}, who, check) != allowed {
			b.Fatal("denied")
		}
	}
}
