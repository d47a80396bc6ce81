package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fdyno/fdyno"
)

// authz_attack_test.go tries fdyno-server's authorization as an outsider
// would, through the raw protocol: one test per way around the policies
// that the decision and the execution reading the request differently
// once allowed (issue 32). Each asserts the answer and that nothing was
// read or written: the guarded handles saw no access, and the victim's
// items are as they were.

const (
	attackAccount = "123456789012"
	attackRegion  = "us-west-2"
	gamesARN      = "arn:aws:dynamodb:" + attackRegion + ":" + attackAccount + ":table/GameScores"
)

// attackServer serves, in per-account namespaces, GameScores holding
// alice's and bob's items, for the keys alice (the LeadingKeys policy of
// DynamoDB's fine-grained access control example, ${aws:userid} = alice),
// reader (GetItem only), admin (everything) and locked (everything but an
// explicit Deny on the table Locked, which exists).
type attackServer struct {
	*testServer
	admin *dynamodb.Client
	mu    sync.Mutex
	seen  []fdyno.Access // every access a guarded handle allowed
}

func newAttackServer(t testing.TB, configure ...func(*Config)) *attackServer {
	t.Helper()
	admin := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`
	reader := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}}`
	locked := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},
		{"Effect":"Deny","Action":"dynamodb:*","Resource":"arn:aws:dynamodb:*:` + attackAccount + `:table/Locked"}]}`
	lk := strings.ReplaceAll(leadingKeysPolicy, gameARN, gamesARN)
	lk = strings.Replace(lk, `"dynamodb:BatchWriteItem"]`, `"dynamodb:BatchWriteItem","dynamodb:ConditionCheckItem"]`, 1)
	policies, err := LoadPolicies(strings.NewReader(`{"alice":` + lk + `,"admin":` + admin + `,"reader":` + reader + `,"locked":` + locked + `}`))
	if err != nil {
		t.Fatal(err)
	}
	keys, accounts := map[string]string{}, map[string]string{}
	for _, k := range []string{"alice", "admin", "reader", "locked"} {
		keys[k], accounts[k] = "secret-of-"+k, attackAccount
	}
	cfg := Config{Keys: keys, Accounts: accounts, Policies: policies, Namespaces: PerAccountNamespaces}
	for _, f := range configure {
		f(&cfg)
	}
	ts := newTestServer(t, cfg)
	as := &attackServer{testServer: ts, admin: ts.regionClient("admin", attackRegion)}
	// Before any namespace exists: each copies the hook.
	ts.observeAccess = func(a fdyno.Access, err error) {
		if err == nil {
			as.mu.Lock()
			as.seen = append(as.seen, a)
			as.mu.Unlock()
		}
	}
	createTable(t, as.admin, "GameScores", "", "")
	createTable(t, as.admin, "Locked", "", "")
	for _, pk := range []string{"alice", "bob"} {
		if _, err := as.admin.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("GameScores"),
			Item: map[string]types.AttributeValue{"pk": s(pk), "v": s("orig-" + pk)}}); err != nil {
			t.Fatal(err)
		}
	}
	as.accesses() // the set-up's
	return as
}

// raw sends op with body signed by key, with the signed Authorization
// header rewritten by mutate (if not nil).
func (as *attackServer) raw(t testing.TB, key, op, body string, mutate func(string) string) (int, string, string) {
	t.Helper()
	return doRaw(t, as.http.Client(), as.signed(t, key, op, body, mutate))
}

// signed returns the request raw sends.
func (as *attackServer) signed(t testing.TB, key, op, body string, mutate func(string) string) *http.Request {
	t.Helper()
	req := as.request(t, targetPrefix+op, contentType, strings.NewReader(body))
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: "secret-of-" + key}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hexSHA256([]byte(body)), "dynamodb", attackRegion, time.Now()); err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		req.Header.Set("Authorization", mutate(req.Header.Get("Authorization")))
	}
	return req
}

// accesses returns and forgets the accesses seen since the last call.
func (as *attackServer) accesses() []fdyno.Access {
	as.mu.Lock()
	defer as.mu.Unlock()
	seen := as.seen
	as.seen = nil
	return seen
}

// checkBob fails unless bob's item is exactly as it was put.
func (as *attackServer) checkBob(t testing.TB) {
	t.Helper()
	out, err := as.admin.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("GameScores"), Key: map[string]types.AttributeValue{"pk": s("bob")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := out.Item["v"].(*types.AttributeValueMemberS); !ok || v.Value != "orig-bob" || len(out.Item) != 2 {
		t.Errorf("bob's item is %v, want it untouched", out.Item)
	}
	as.accesses()
}

// 1. The identity is the one whose signature verified: an Authorization
// header that names a second Credential, or a Credential inside another
// parameter, is refused before anything runs.
func TestAttackCredentialConfusion(t *testing.T) {
	as := newAttackServer(t)
	put := `{"TableName":"GameScores","Item":{"pk":{"S":"bob"},"v":{"S":"owned"}}}`
	adminCred := "Credential=admin/" + time.Now().UTC().Format("20060102") + "/" + attackRegion + "/dynamodb/aws4_request"
	for name, mutate := range map[string]func(string) string{
		"repeated Credential, the other key's first": func(h string) string {
			return strings.Replace(h, "Credential=", adminCred+", Credential=", 1)
		},
		"repeated Credential, the other key's last": func(h string) string {
			return strings.Replace(h, ", SignedHeaders=", ", "+adminCred+", SignedHeaders=", 1)
		},
		"Credential inside another parameter": func(h string) string {
			return strings.Replace(h, "AWS4-HMAC-SHA256 ", "AWS4-HMAC-SHA256 X-Note="+adminCred+", ", 1)
		},
		"repeated Signature": func(h string) string { return h + ", Signature=" + strings.Repeat("0", 64) },
	} {
		status, typ, msg := as.raw(t, "reader", "PutItem", put, mutate)
		if status != 400 || typ != "IncompleteSignatureException" {
			t.Errorf("%s: %d %s %q, want IncompleteSignatureException", name, status, typ, msg)
		}
		if seen := as.accesses(); len(seen) != 0 {
			t.Errorf("%s: the refused request touched %v", name, seen)
		}
	}
	// The reader's own request is refused by its own policy.
	status, typ, _ := as.raw(t, "reader", "PutItem", put, nil)
	if status != 400 || typ != "AccessDeniedException" {
		t.Errorf("reader's PutItem: %d %s, want AccessDeniedException", status, typ)
	}
	as.checkBob(t)
}

// 2. Member names are DynamoDB's, exactly: a TransactItem whose member is
// spelled "put" or "PUT" has no action (a ValidationException, never a
// Put that no policy checked); a member given twice is a
// SerializationException.
func TestAttackMemberSpelling(t *testing.T) {
	as := newAttackServer(t)
	for _, member := range []string{"put", "PUT", "pUt"} {
		body := `{"TransactItems":[{"` + member + `":{"TableName":"GameScores","Item":{"pk":{"S":"bob"},"v":{"S":"owned"}}}}]}`
		status, typ, msg := as.raw(t, "alice", "TransactWriteItems", body, nil)
		if status != 400 || typ != "ValidationException" {
			t.Errorf("TransactItem member %q: %d %s %q, want ValidationException", member, status, typ, msg)
		}
	}
	for _, member := range []string{"get", "GET"} {
		body := `{"TransactItems":[{"` + member + `":{"TableName":"GameScores","Key":{"pk":{"S":"bob"}}}}]}`
		status, typ, msg := as.raw(t, "alice", "TransactGetItems", body, nil)
		if status != 400 || typ != "ValidationException" {
			t.Errorf("TransactGetItem member %q: %d %s %q, want ValidationException", member, status, typ, msg)
		}
	}
	// A lower-case key member is not Key: the request has no key.
	status, typ, msg := as.raw(t, "alice", "GetItem", `{"TableName":"GameScores","Key":{"pk":{"S":"alice"}},"key":{"pk":{"S":"bob"}}}`, nil)
	if status != 200 {
		t.Errorf("GetItem with an unknown member beside Key: %d %s %q, want 200 (alice's item)", status, typ, msg)
	}
	for _, body := range []string{
		`{"TableName":"GameScores","Key":{"pk":{"S":"alice"}},"Key":{"pk":{"S":"bob"}}}`,
		`{"TableName":"GameScores","Key":{"pk":{"S":"alice"},"pk":{"S":"bob"}}}`,
		`{"TableName":"GameScores","TableName":"Locked","Key":{"pk":{"S":"alice"}}}`,
	} {
		status, typ, msg := as.raw(t, "alice", "DeleteItem", body, nil)
		if status != 400 || typ != "SerializationException" {
			t.Errorf("duplicate member %s: %d %s %q, want SerializationException", body, status, typ, msg)
		}
	}
	for _, a := range as.accesses() {
		if !a.InPartition(packed(t, "alice")) {
			t.Errorf("an access outside alice's partition: %+v", a)
		}
	}
	as.checkBob(t)
}

func packed(t testing.TB, pk string) []byte {
	p, err := fdyno.PackPartition(fdyno.S(pk))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// 3. dynamodb:LeadingKeys is the partition of the key the operation acts
// on: an Item member beside the Key of a GetItem, DeleteItem, UpdateItem
// or a transaction's Get or Delete changes nothing.
func TestAttackLeadingKeysMember(t *testing.T) {
	as := newAttackServer(t)
	own := `"Item":{"pk":{"S":"alice"}}`
	for _, tc := range []struct{ op, body string }{
		{"GetItem", `{"TableName":"GameScores","Key":{"pk":{"S":"bob"}},` + own + `}`},
		{"DeleteItem", `{"TableName":"GameScores","Key":{"pk":{"S":"bob"}},` + own + `}`},
		{"UpdateItem", `{"TableName":"GameScores","Key":{"pk":{"S":"bob"}},` + own + `,"UpdateExpression":"SET v = :v","ExpressionAttributeValues":{":v":{"S":"owned"}}}`},
		{"TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"GameScores","Key":{"pk":{"S":"bob"}},` + own + `}}]}`},
		{"TransactWriteItems", `{"TransactItems":[{"Delete":{"TableName":"GameScores","Key":{"pk":{"S":"bob"}},` + own + `}}]}`},
		{"TransactWriteItems", `{"TransactItems":[{"ConditionCheck":{"TableName":"GameScores","Key":{"pk":{"S":"bob"}},` + own + `,"ConditionExpression":"v = :v","ExpressionAttributeValues":{":v":{"S":"orig-bob"}}}}]}`},
	} {
		status, typ, msg := as.raw(t, "alice", tc.op, tc.body, nil)
		if status != 400 || typ != "AccessDeniedException" {
			t.Errorf("%s %s: %d %s %q, want AccessDeniedException", tc.op, tc.body, status, typ, msg)
		}
		if seen := as.accesses(); len(seen) != 0 {
			t.Errorf("%s: the refused request touched %v", tc.op, seen)
		}
	}
	as.checkBob(t)
}

// 4. A TableName given as an ARN names the caller's own table only: the
// ARN of another account (or region) is refused with DynamoDB's
// cross-account wording, and a policy is matched against the canonical
// ARN of the table actually touched.
func TestAttackTableARN(t *testing.T) {
	as := newAttackServer(t)
	foreign := "arn:aws:dynamodb:" + attackRegion + ":999999999999:table/Locked"
	for _, tc := range []struct{ op, body, want string }{
		{"GetItem", `{"TableName":"` + foreign + `","Key":{"pk":{"S":"x"}}}`,
			"User: arn:aws:iam::" + attackAccount + ":user/locked is not authorized to perform: dynamodb:GetItem on resource: " + foreign + " because no resource-based policy allows the dynamodb:GetItem action"},
		{"DeleteTable", `{"TableName":"` + foreign + `"}`, "dynamodb:DeleteTable on resource: " + foreign},
		{"DescribeTable", `{"TableName":"arn:aws:dynamodb:eu-west-1:` + attackAccount + `:table/Locked"}`, "because no resource-based policy allows"},
		{"PutItem", `{"TableName":"arn:aws:dynamodb:` + attackRegion + `:` + attackAccount + `:table/Locked","Item":{"pk":{"S":"x"}}}`,
			"dynamodb:PutItem on resource: arn:aws:dynamodb:" + attackRegion + ":" + attackAccount + ":table/Locked with an explicit deny"},
		{"PutItem", `{"TableName":"arn:aws-cn:dynamodb:` + attackRegion + `:` + attackAccount + `:table/Locked","Item":{"pk":{"S":"x"}}}`,
			"dynamodb:PutItem on resource: arn:aws:dynamodb:" + attackRegion + ":" + attackAccount + ":table/Locked with an explicit deny"},
	} {
		status, typ, msg := as.raw(t, "locked", tc.op, tc.body, nil)
		if status != 400 || typ != "AccessDeniedException" || !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s: %d %s %q, want AccessDeniedException containing %q", tc.op, tc.body, status, typ, msg, tc.want)
		}
	}
	if seen := as.accesses(); len(seen) != 0 {
		t.Errorf("refused requests touched %v", seen)
	}
	if _, err := as.admin.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Locked")}); err != nil {
		t.Errorf("Locked after the refused DeleteTable: %v", err)
	}
	out, err := as.admin.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String("Locked")})
	if err != nil {
		t.Errorf("Scan of Locked: %v", err)
	} else if out.Count != 0 {
		t.Errorf("Locked holds %d items, want none", out.Count)
	}
}

// DynamoDB checks a request's date before the rest of its signature
// (Alternator's test_expired_signature and test_signature_too_futuristic,
// written against DynamoDB): a header whose parts are separated by
// spaces, with a short date and a short signature, is still "Signature
// expired" when its X-Amz-Date is stale.
func TestSignatureDateFirst(t *testing.T) {
	as := newAttackServer(t)
	for date, want := range map[string]string{"20170101T010101Z": "Signature expired", "30200101T010101Z": "Signature not yet current"} {
		req := as.request(t, targetPrefix+"DescribeEndpoints", contentType, strings.NewReader(""))
		req.Header.Set("X-Amz-Date", date)
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=alternator/2/3/4/aws4_request SignedHeaders=x-amz-date;host Signature=123")
		status, typ, msg := doRaw(t, as.http.Client(), req)
		if status != 400 || typ != "InvalidSignatureException" || !strings.HasPrefix(msg, want) {
			t.Errorf("X-Amz-Date %s: %d %s %q, want InvalidSignatureException %q", date, status, typ, msg, want)
		}
	}
	// Commas without spaces separate the parts too (Alternator's
	// test_authorization_no_whitespace).
	status, typ, msg := as.raw(t, "admin", "ListTables", `{}`, func(h string) string { return strings.ReplaceAll(h, ", ", ",") })
	if status != http.StatusOK {
		t.Errorf("a header without spaces: %d %s %q", status, typ, msg)
	}
}

// Every refusal is logged and counted, with the key ID, account, action,
// resource and decision, and no secret; with AuditLog, allowed decisions
// are logged too.
func TestAuditLog(t *testing.T) {
	for _, all := range []bool{false, true} {
		as := newAttackServer(t, func(c *Config) { c.AuditLog = all })
		if status, _, _ := as.raw(t, "alice", "GetItem", `{"TableName":"GameScores","Key":{"pk":{"S":"bob"}}}`, nil); status != 400 {
			t.Fatalf("alice's GetItem of bob's item: status %d", status)
		}
		if status, _, _ := as.raw(t, "alice", "GetItem", `{"TableName":"GameScores","Key":{"pk":{"S":"alice"}}}`, nil); status != 200 {
			t.Fatalf("alice's GetItem of her item: status %d", status)
		}
		logs := as.logs.String()
		refusal := `"msg":"authorization","key_id":"alice","account":"` + attackAccount + `","action":"dynamodb:GetItem","resource":"` + gamesARN + `","decision":"implicit_deny"`
		if !strings.Contains(logs, refusal) {
			t.Errorf("AuditLog %v: no refusal record %s in\n%s", all, refusal, logs)
		}
		if got := strings.Contains(logs, `"decision":"allow"`); got != all {
			t.Errorf("AuditLog %v: allowed decisions logged: %v", all, got)
		}
		if strings.Contains(logs, "secret-of-") {
			t.Error("the log holds a secret")
		}
		rec := httptestGet(t, as.URL+metricsPath)
		if !strings.Contains(rec, `fdyno_authorization_decisions_total{decision="implicit_deny"} 1`) {
			t.Errorf("metrics lack the refusal:\n%s", rec)
		}
	}
}

func httptestGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A Query's partition is read from its key condition, an expression's or
// a legacy KeyConditions', as the operation reads it: alice queries her
// partition in both forms, and bob's in neither.
func TestAuthzQueryForms(t *testing.T) {
	as := newAttackServer(t)
	for _, pk := range []string{"alice", "bob"} {
		for _, body := range []string{
			`{"TableName":"GameScores","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"` + pk + `"}}}`,
			`{"TableName":"GameScores","KeyConditionExpression":"#k = :p","ExpressionAttributeNames":{"#k":"pk"},"ExpressionAttributeValues":{":p":{"S":"` + pk + `"}}}`,
			`{"TableName":"GameScores","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"` + pk + `"}]}}}`,
		} {
			status, typ, msg := as.raw(t, "alice", "Query", body, nil)
			if want := map[string]int{"alice": 200, "bob": 400}[pk]; status != want || pk == "bob" && typ != "AccessDeniedException" {
				t.Errorf("alice's Query %s: %d %s %q, want %d", body, status, typ, msg, want)
			}
		}
	}
	as.checkBob(t)
}

// A Select=COUNT answered from the counters is authorized as the read it
// replaces: alice counts her partition, not bob's, and cannot count the
// whole table, in any form; the admin counts both items.
func TestAuthzSelectCount(t *testing.T) {
	as := newAttackServer(t)
	for _, tc := range []struct {
		key, op, body string
		status        int
		count         string
	}{
		{"alice", "Query", `{"TableName":"GameScores","Select":"COUNT","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"alice"}}}`, 200, `"Count":1`},
		{"alice", "Query", `{"TableName":"GameScores","Select":"COUNT","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"bob"}}}`, 400, ""},
		{"alice", "Query", `{"TableName":"GameScores","Select":"COUNT","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"bob"}]}}}`, 400, ""},
		{"alice", "Scan", `{"TableName":"GameScores","Select":"COUNT"}`, 400, ""},
		{"alice", "Scan", `{"TableName":"GameScores","Select":"COUNT","TotalSegments":1,"Segment":0}`, 400, ""},
		{"reader", "Scan", `{"TableName":"GameScores","Select":"COUNT"}`, 400, ""},
		{"admin", "Scan", `{"TableName":"GameScores","Select":"COUNT"}`, 200, `"Count":2`},
		{"admin", "Query", `{"TableName":"GameScores","Select":"COUNT","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"bob"}}}`, 200, `"Count":1`},
	} {
		status, typ, msg := as.raw(t, tc.key, tc.op, tc.body, nil)
		if status == 200 {
			_, body := doRawBody(t, as.http.Client(), as.signed(t, tc.key, tc.op, tc.body, nil))
			msg = string(body)
		}
		switch {
		case status != tc.status:
			t.Errorf("%s's %s %s: %d %s %q, want %d", tc.key, tc.op, tc.body, status, typ, msg, tc.status)
		case status == 400 && typ != "AccessDeniedException":
			t.Errorf("%s's %s %s: %s %q, want AccessDeniedException", tc.key, tc.op, tc.body, typ, msg)
		case status == 200 && !strings.Contains(msg, tc.count):
			t.Errorf("%s's %s %s: %s, want %s", tc.key, tc.op, tc.body, msg, tc.count)
		}
	}
	as.checkBob(t)
}

// With one shared namespace and keys of several accounts (--shared-db
// --auth), the ARNs the server gives its tables name the namespace's
// account, and a request may use them whatever its key's account.
func TestSharedNamespaceARN(t *testing.T) {
	keys := map[string]string{"AKIDONE": "secret-of-AKIDONE"}
	ts := newTestServer(t, Config{Keys: keys, Accounts: map[string]string{"AKIDONE": "111122223333"}})
	c := ts.regionClient("AKIDONE", "us-east-1")
	createTable(t, c, "Shared", "", "")
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Shared")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: d.Table.TableArn}); err != nil {
		t.Errorf("DescribeTable by its own ARN %s: %v", *d.Table.TableArn, err)
	}
	other := strings.Replace(*d.Table.TableArn, ":"+accountID+":", ":111122223333:", 1)
	_, err = c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(other)})
	wantAPIError(t, err, "AccessDeniedException", "because no resource-based policy allows")
}
