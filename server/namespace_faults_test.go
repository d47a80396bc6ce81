package server

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Under injected FoundationDB faults, tables created in per-account
// namespaces land in their own namespace and nowhere else: each
// CreateTable that was acknowledged (or refused as already existing,
// after a commit whose result was unknown) leaves its table in its
// namespace only, and a server started afterwards on the same database
// finds every namespace.
func TestNamespacesUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.Faults{Seed: 7, ReadTooOld: 0.02, CommitNotCommitted: 0.1, CommitUnknownResult: 0.15})
	ts := newTestServer(t, Config{DB: db, Namespaces: PerAccountNamespaces})
	keys := []string{"AKIDF1", "AKIDF2", "AKIDF3"}
	want := map[string][]string{}
	for i, key := range keys {
		c := ts.regionClient(key, "us-east-1")
		for j := range 3 {
			name := fmt.Sprintf("T%d-%d", i, j)
			_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}})
			var inUse *types.ResourceInUseException
			if err != nil && !errors.As(err, &inUse) {
				t.Fatalf("%s CreateTable %s: %v", key, name, err)
			}
			want[key] = append(want[key], name)
		}
	}
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{}); err != nil {
		t.Fatal(err)
	}
	restarted := newTestServer(t, Config{DB: db, Namespaces: PerAccountNamespaces})
	for _, srv := range []*testServer{ts, restarted} {
		for _, key := range keys {
			if got := listAll(t, srv.regionClient(key, "us-east-1")); !slices.Equal(got, want[key]) {
				t.Errorf("%s lists %v, want %v", key, got, want[key])
			}
		}
	}
	restarted.spaces.mu.Lock()
	n := len(restarted.spaces.kept)
	restarted.spaces.mu.Unlock()
	if n != len(keys) {
		t.Errorf("the restarted server found %d namespaces, want %d", n, len(keys))
	}
}
