package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// regionClient is ts.client for keyID in region.
func (ts *testServer) regionClient(keyID, region string) *dynamodb.Client {
	creds := aws.Credentials{AccessKeyID: keyID, SecretAccessKey: "secret-of-" + keyID}
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(ts.URL),
		Region:       region,
		Credentials:  aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
		HTTPClient:   &http.Client{Transport: bufferedBodies{ts.http.Client().Transport}},
		Retryer:      aws.NopRetryer{},
	})
}

func listAll(t testing.TB, c *dynamodb.Client) []string {
	t.Helper()
	out, err := c.ListTables(ctx(t), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableNames
}

// AccountOf is 12 digits, stable, and never the default account.
func TestAccountOf(t *testing.T) {
	for _, id := range []string{"", "AKIDTEST", "AKIAIOSFODNN7EXAMPLE", strings.Repeat("x", 1000)} {
		a := AccountOf(id)
		if !validAccount(a) || a == accountID || AccountOf(id) != a {
			t.Errorf("AccountOf(%q) = %q", id, a)
		}
	}
	if AccountOf("a") == AccountOf("b") {
		t.Error("two key IDs share an account")
	}
}

// With per-account namespaces, as DynamoDB: a table is visible only to
// its account in its region; its ARN names both; two keys of one account
// (Config.Accounts) share tables; unsigned requests reach the shared
// namespace, with the default account.
func TestSDKNamespaces(t *testing.T) {
	ts := newTestServer(t, Config{Namespaces: PerAccountNamespaces, Accounts: map[string]string{"AKIDTWIN": "111122223333", "AKIDTWIN2": "111122223333"}})
	east, west, other := ts.regionClient("AKIDONE", "us-east-1"), ts.regionClient("AKIDONE", "us-west-2"), ts.regionClient("AKIDTWO", "us-east-1")
	twin, twin2 := ts.regionClient("AKIDTWIN", "eu-west-1"), ts.regionClient("AKIDTWIN2", "eu-west-1")
	createTable(t, east, "Orders", "", "")
	for name, c := range map[string]*dynamodb.Client{"other region": west, "other account": other, "twin": twin} {
		if got := listAll(t, c); len(got) != 0 {
			t.Errorf("%s: ListTables = %v, want none", name, got)
		}
		_, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
		var nf *types.ResourceNotFoundException
		if !errors.As(err, &nf) {
			t.Errorf("%s: DescribeTable of another namespace's table: %v, want ResourceNotFoundException", name, err)
		}
		_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": s("x")}})
		if !errors.As(err, &nf) {
			t.Errorf("%s: PutItem into another namespace's table: %v, want ResourceNotFoundException", name, err)
		}
	}
	d, err := east.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
	if err != nil {
		t.Fatal(err)
	}
	wantARN := "arn:aws:dynamodb:us-east-1:" + AccountOf("AKIDONE") + ":table/Orders"
	if got := aws.ToString(d.Table.TableArn); got != wantARN {
		t.Errorf("TableArn = %s, want %s", got, wantARN)
	}
	// The same name in another namespace is another table.
	createTable(t, west, "Orders", "", "")
	if _, err := west.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": s("west")}}); err != nil {
		t.Fatal(err)
	}
	if out, err := east.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{"pk": s("west")}}); err != nil || out.Item != nil {
		t.Errorf("east reads west's item: %v, %v", out, err)
	}
	// Tagging another account's ARN is refused as DynamoDB refuses it.
	_, err = other.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(wantARN)})
	wantAPIError(t, err, "AccessDeniedException", "User is not authorized to perform: dynamodb:ListTagsOfResource on resource: "+wantARN)
	// Two keys of one account share its tables.
	createTable(t, twin, "Shared", "", "")
	if got := listAll(t, twin2); !slices.Equal(got, []string{"Shared"}) {
		t.Errorf("second key of the account: ListTables = %v, want [Shared]", got)
	}
	d, err = twin2.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Shared")})
	if err != nil || aws.ToString(d.Table.TableArn) != "arn:aws:dynamodb:eu-west-1:111122223333:table/Shared" {
		t.Errorf("DescribeTable by the second key: %v, %v", d, err)
	}
	// Unsigned requests reach the shared namespace, which holds none of these.
	status, _, _ := ts.post(t, targetPrefix+"ListTables", contentType, strings.NewReader(`{}`))
	if status != 200 {
		t.Errorf("unsigned ListTables: %d", status)
	}
	// A region no AWS region could be is refused.
	// (The SDK refuses to sign for it, so the request is raw.)
	req := ts.request(t, targetPrefix+"ListTables", contentType, strings.NewReader(`{}`))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDONE/20250101/us_east_1/dynamodb/aws4_request, SignedHeaders=host, Signature=00")
	if status, typ, msg := doRaw(t, ts.http.Client(), req); status != 400 || typ != "IncompleteSignatureException" || msg != "Credential should be scoped to a valid region, not 'us_east_1'." {
		t.Errorf("region us_east_1: %d %s %q", status, typ, msg)
	}
}

// A namespace's tables survive a restart of the server on the same
// database, and its background work resumes: a table created through one
// server is found by the next.
func TestNamespacesAfterRestart(t *testing.T) {
	ts := newTestServer(t, Config{Namespaces: PerAccountNamespaces})
	createTable(t, ts.regionClient("AKIDONE", "ap-south-1"), "Kept", "", "")
	ts2 := newTestServer(t, Config{DB: ts.db.DB, Namespaces: PerAccountNamespaces})
	if got := listAll(t, ts2.regionClient("AKIDONE", "ap-south-1")); !slices.Equal(got, []string{"Kept"}) {
		t.Errorf("after restart: ListTables = %v", got)
	}
	ts2.spaces.mu.Lock()
	_, kept := ts2.spaces.kept[nsKey{AccountOf("AKIDONE"), "ap-south-1"}]
	ts2.spaces.mu.Unlock()
	if !kept {
		t.Error("the restarted server did not find the namespace at start")
	}
	// The shared namespace is another directory: the per-account table
	// is not in it.
	shared := newTestServer(t, Config{DB: ts.db.DB})
	if got := listAll(t, shared.client(testCredentials)); len(got) != 0 {
		t.Errorf("shared namespace lists %v", got)
	}
}

// nsPrincipal is one client of the isolation test: a key in a region.
type nsPrincipal struct{ key, region string }

// No sequence of requests by one account in one region reads, lists,
// describes, streams or changes another's tables: every answer equals
// the one a model with a separate set of tables per (account, region)
// gives.
func TestNamespaceIsolationModel(t *testing.T) {
	ts := newTestServer(t, Config{Namespaces: PerAccountNamespaces, Accounts: map[string]string{"K3": "333333333333", "K4": "333333333333"}})
	principals := []nsPrincipal{{"K1", "us-east-1"}, {"K1", "eu-west-1"}, {"K2", "us-east-1"}, {"K3", "us-east-1"}, {"K4", "us-east-1"}}
	account := func(p nsPrincipal) string {
		if a, ok := map[string]string{"K3": "333333333333", "K4": "333333333333"}[p.key]; ok {
			return a
		}
		return AccountOf(p.key)
	}
	clients := map[nsPrincipal]*dynamodb.Client{}
	streams := map[nsPrincipal]*dynamodbstreams.Client{}
	for _, p := range principals {
		clients[p] = ts.regionClient(p.key, p.region)
		creds := aws.Credentials{AccessKeyID: p.key, SecretAccessKey: "x"}
		streams[p] = dynamodbstreams.New(dynamodbstreams.Options{BaseEndpoint: aws.String(ts.URL), Region: p.region,
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
			HTTPClient:  &http.Client{Transport: bufferedBodies{ts.http.Client().Transport}}, Retryer: aws.NopRetryer{}})
	}
	round := 0
	rapid.Check(t, func(rt *rapid.T) {
		// Each run has its own table names, so runs do not see each other.
		round++
		names := []string{fmt.Sprintf("r%d-a", round), fmt.Sprintf("r%d-b", round)}
		model := map[nsKey]map[string]map[string]string{} // namespace → table → pk → v
		ns := func(p nsPrincipal) nsKey { return nsKey{account(p), p.region} }
		for i := 0; i < rapid.IntRange(1, 30).Draw(rt, "steps"); i++ {
			p := rapid.SampledFrom(principals).Draw(rt, "principal")
			c, k := clients[p], ns(p)
			name := rapid.SampledFrom(names).Draw(rt, "table")
			tables := model[k]
			_, exists := tables[name]
			switch op := rapid.IntRange(0, 6).Draw(rt, "op"); op {
			case 6: // another namespace's table by its ARN: never reached
				q := rapid.SampledFrom(principals).Draw(rt, "other")
				if ns(q) == k {
					continue
				}
				if _, ok := model[ns(q)][name]; !ok {
					continue
				}
				arn := "arn:aws:dynamodb:" + q.region + ":" + account(q) + ":table/" + name
				if _, err := c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn),
					Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}); err == nil {
					rt.Fatalf("%v tagged %s of %v", p, arn, q)
				}
				if _, err := streams[p].DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn + "/stream/2020-01-01T00:00:00.000")}); err == nil {
					rt.Fatalf("%v described a stream of %v's table %s", p, q, name)
				}
			case 0: // CreateTable, with a stream
				_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
					KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
					AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
					StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}})
				var inUse *types.ResourceInUseException
				if exists != errors.As(err, &inUse) || !exists && err != nil {
					rt.Fatalf("%v CreateTable %s (exists in model %v): %v", p, name, exists, err)
				}
				if !exists {
					if model[k] == nil {
						model[k] = map[string]map[string]string{}
					}
					model[k][name] = map[string]string{}
				}
			case 1: // DeleteTable
				_, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
				checkExists(rt, p, "DeleteTable", name, exists, err)
				delete(model[k], name)
			case 2: // PutItem
				pk, v := rapid.SampledFrom([]string{"x", "y"}).Draw(rt, "pk"), rapid.StringMatching(`[a-z]{1,4}`).Draw(rt, "v")
				_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{"pk": s(pk), "v": s(v)}})
				checkExists(rt, p, "PutItem", name, exists, err)
				if exists {
					tables[name][pk] = v
				}
			case 3: // Scan
				out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(name)})
				checkExists(rt, p, "Scan", name, exists, err)
				if exists {
					got := map[string]string{}
					for _, it := range out.Items {
						got[it["pk"].(*types.AttributeValueMemberS).Value] = it["v"].(*types.AttributeValueMemberS).Value
					}
					if diff := cmp.Diff(tables[name], got); diff != "" {
						rt.Fatalf("%v Scan %s (-model +got):\n%s", p, name, diff)
					}
				}
			case 4: // ListTables and DescribeTable
				var want []string
				for _, n := range names {
					if _, ok := tables[n]; ok {
						want = append(want, n)
					}
				}
				var got []string
				for _, n := range listAll(t, c) {
					if strings.HasPrefix(n, fmt.Sprintf("r%d-", round)) {
						got = append(got, n)
					}
				}
				if !slices.Equal(want, got) {
					rt.Fatalf("%v ListTables = %v, model %v", p, got, want)
				}
				d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
				checkExists(rt, p, "DescribeTable", name, exists, err)
				if exists && aws.ToString(d.Table.TableArn) != "arn:aws:dynamodb:"+p.region+":"+k.account+":table/"+name {
					rt.Fatalf("%v TableArn %s", p, aws.ToString(d.Table.TableArn))
				}
			case 5: // ListStreams names only the namespace's tables
				out, err := streams[p].ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{})
				if err != nil {
					rt.Fatal(err)
				}
				for _, st := range out.Streams {
					prefix := "arn:aws:dynamodb:" + p.region + ":" + k.account + ":table/"
					if !strings.HasPrefix(aws.ToString(st.StreamArn), prefix) {
						rt.Fatalf("%v ListStreams names %s, not under %s", p, aws.ToString(st.StreamArn), prefix)
					}
					if n := aws.ToString(st.TableName); strings.HasPrefix(n, fmt.Sprintf("r%d-", round)) {
						if _, ok := tables[n]; !ok {
							rt.Fatalf("%v ListStreams names %s, which its namespace does not hold", p, n)
						}
					}
				}
			}
		}
	})
}

func checkExists(rt *rapid.T, p nsPrincipal, op, name string, exists bool, err error) {
	var nf *types.ResourceNotFoundException
	if exists && err != nil || !exists && !errors.As(err, &nf) {
		rt.Fatalf("%v %s %s (exists in model %v): %v", p, op, name, exists, err)
	}
}

// With access keys, GET /metrics counts requests by account; requests
// whose signature fails count as unauthenticated.
func TestMetricsByAccount(t *testing.T) {
	keys := map[string]string{"AKIDONE": "secret-of-AKIDONE", "AKIDTWO": "secret-of-AKIDTWO"}
	ts := newTestServer(t, Config{Keys: keys, Accounts: map[string]string{"AKIDONE": "111122223333"}, Namespaces: PerAccountNamespaces})
	for range 2 {
		listAll(t, ts.regionClient("AKIDONE", "us-east-1"))
	}
	listAll(t, ts.regionClient("AKIDTWO", "eu-west-1"))
	bad := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(ts.URL), Region: "us-east-1", Retryer: aws.NopRetryer{},
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDONE", SecretAccessKey: "wrong"}, nil
		})})
	if _, err := bad.ListTables(ctx(t), &dynamodb.ListTablesInput{}); err == nil {
		t.Fatal("a wrong secret was accepted")
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	if _, err := io.Copy(&body, resp.Body); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`fdyno_account_requests_total{account="111122223333",result="success"} 2`,
		`fdyno_account_requests_total{account="` + AccountOf("AKIDTWO") + `",result="success"} 1`,
		`fdyno_account_requests_total{account="unauthenticated",result="InvalidSignatureException"} 1`,
	} {
		if !strings.Contains(body.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// Requests to namespaces without tables (any key ID a client makes up)
// keep nothing; creating a table keeps its namespace, with its
// background work.
func TestTransientNamespaces(t *testing.T) {
	ts := newTestServer(t, Config{Namespaces: PerAccountNamespaces})
	for i := range 20 {
		listAll(t, ts.regionClient(fmt.Sprintf("AKIDRANDOM%d", i), "us-east-1"))
	}
	kept := func() int {
		ts.spaces.mu.Lock()
		defer ts.spaces.mu.Unlock()
		return len(ts.spaces.kept)
	}
	if n := kept(); n != 0 {
		t.Errorf("%d namespaces kept after requests to empty ones", n)
	}
	// A dropped namespace releases its context (derived from the
	// server's, it would otherwise stay registered until Close).
	ns := ts.newNamespace("111111111111", "us-east-1")
	ts.settleNamespace(ns, false)
	if ns.bg.ctx.Err() == nil {
		t.Error("a dropped namespace's context is not released")
	}
	c := ts.regionClient("AKIDMAKER", "us-east-1")
	createTable(t, c, "Made", "", "")
	if n := kept(); n != 1 {
		t.Errorf("%d namespaces kept after CreateTable, want 1", n)
	}
	if got := listAll(t, c); !slices.Equal(got, []string{"Made"}) {
		t.Errorf("ListTables = %v", got)
	}
}
