package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/fdyno/fdyno"
)

// authz_differential_test.go checks authorization against what executes:
// the library reports every item, partition, index and stream a request's
// handles touch (fdyno.AccessGuard, seen through Server.observeAccess),
// and every access that was carried out must be one alice's policy allows
// (her own partition of GameScores; no index, no stream, no other table),
// however the request is spelled. Requests are valid ones mutated: member
// spelling and order, duplicate and extra members, ARNs, Authorization
// header variants, legacy and expression forms, PartiQL. After each,
// bob's item must be untouched.

// attackRequests are valid requests of alice's and of the forms around
// them; %P is replaced by a partition (alice or bob), %T by a table name
// or ARN.
var attackRequests = []struct{ op, body string }{
	{"GetItem", `{"TableName":"%T","Key":{"pk":{"S":"%P"}}}`},
	{"GetItem", `{"TableName":"%T","Key":{"pk":{"S":"%P"}},"Item":{"pk":{"S":"%Q"}},"ProjectionExpression":"v"}`},
	{"PutItem", `{"TableName":"%T","Item":{"pk":{"S":"%P"},"v":{"S":"new"}}}`},
	{"PutItem", `{"TableName":"%T","Item":{"pk":{"S":"%P"},"v":{"S":"new"}},"Expected":{"v":{"Exists":false}}}`},
	{"UpdateItem", `{"TableName":"%T","Key":{"pk":{"S":"%P"}},"UpdateExpression":"SET v = :v","ExpressionAttributeValues":{":v":{"S":"upd"}}}`},
	{"UpdateItem", `{"TableName":"%T","Key":{"pk":{"S":"%P"}},"AttributeUpdates":{"v":{"Action":"PUT","Value":{"S":"legacy"}}}}`},
	{"DeleteItem", `{"TableName":"%T","Key":{"pk":{"S":"%P"}},"ConditionExpression":"attribute_exists(pk)"}`},
	{"Query", `{"TableName":"%T","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"%P"}}}`},
	{"Query", `{"TableName":"%T","KeyConditionExpression":"#k = :p AND #k = :q","ExpressionAttributeNames":{"#k":"pk"},"ExpressionAttributeValues":{":p":{"S":"%P"},":q":{"S":"%Q"}}}`},
	{"Query", `{"TableName":"%T","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"%P"}]}}}`},
	{"Scan", `{"TableName":"%T"}`},
	{"BatchGetItem", `{"RequestItems":{"%T":{"Keys":[{"pk":{"S":"%P"}},{"pk":{"S":"%Q"}}]}}}`},
	{"BatchWriteItem", `{"RequestItems":{"%T":[{"PutRequest":{"Item":{"pk":{"S":"%P"},"v":{"S":"bw"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"%Q"}}}}]}}`},
	{"TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"%T","Item":{"pk":{"S":"%P"},"v":{"S":"tx"}}}},{"ConditionCheck":{"TableName":"%T","Key":{"pk":{"S":"%Q"}},"ConditionExpression":"attribute_exists(pk)"}}]}`},
	{"TransactWriteItems", `{"TransactItems":[{"Update":{"TableName":"%T","Key":{"pk":{"S":"%P"}},"Item":{"pk":{"S":"%Q"}},"UpdateExpression":"SET v = :v","ExpressionAttributeValues":{":v":{"S":"tx"}}}}]}`},
	{"TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"%T","Key":{"pk":{"S":"%P"}}}}]}`},
	{"ExecuteStatement", `{"Statement":"SELECT * FROM \"GameScores\" WHERE pk = '%P'"}`},
	{"ExecuteStatement", `{"Statement":"UPDATE \"GameScores\" SET v = 'pq' WHERE pk = '%P'"}`},
}

// attackMutations rewrite a request body: each is a way a decision and an
// execution could read one request differently.
var attackMutations = []struct {
	name string
	f    func(body string) string
}{
	{"none", func(b string) string { return b }},
	{"lower-case a member", func(b string) string { return strings.Replace(b, `"Key"`, `"key"`, 1) }},
	{"upper-case a member", func(b string) string { return strings.Replace(b, `"Put"`, `"PUT"`, 1) }},
	{"lower-case TableName", func(b string) string { return strings.Replace(b, `"TableName"`, `"tableName"`, 1) }},
	{"duplicate Key", func(b string) string {
		return strings.Replace(b, `"Key":{"pk":{"S":"alice"}}`, `"Key":{"pk":{"S":"alice"}},"Key":{"pk":{"S":"bob"}}`, 1)
	}},
	{"duplicate key attribute", func(b string) string {
		return strings.Replace(b, `{"pk":{"S":"alice"}}`, `{"pk":{"S":"alice"},"pk":{"S":"bob"}}`, 1)
	}},
	{"extra Item", func(b string) string {
		return strings.Replace(b, `{"TableName"`, `{"Item":{"pk":{"S":"alice"}},"TableName"`, 1)
	}},
	{"members reordered", func(b string) string {
		if i := strings.Index(b, `,"Key"`); i > 0 && strings.HasPrefix(b, `{"TableName"`) {
			return `{` + b[i+1:len(b)-1] + `,` + b[1:i] + `}`
		}
		return b
	}},
}

// authMutations rewrite the signed Authorization header of alice's
// request: to name admin's key beside hers (repeated, or inside another
// parameter), or to separate the parts otherwise.
var authMutations = []struct {
	name string
	f    func(h string) string
}{
	{"none", nil},
	{"commas only", func(h string) string { return strings.ReplaceAll(h, ", ", ",") }},
	{"spaces only", func(h string) string { return strings.ReplaceAll(h, ", ", " ") }},
	{"admin's Credential first", func(h string) string {
		return strings.Replace(h, "Credential=", "Credential=admin/"+h[strings.Index(h, "/")+1:strings.Index(h, ",")]+", Credential=", 1)
	}},
	{"admin's Credential last", func(h string) string {
		return h + ", Credential=admin/" + h[strings.Index(h, "/")+1:strings.Index(h, ",")]
	}},
	{"admin's Credential in a parameter", func(h string) string {
		return strings.Replace(h, "AWS4-HMAC-SHA256 ", "AWS4-HMAC-SHA256 X=Credential=admin/x, ", 1)
	}},
}

// attackTables are the names a request may give its table.
var attackTables = []string{"GameScores", gamesARN, "arn:aws:dynamodb:" + attackRegion + ":999999999999:table/GameScores",
	"arn:aws:dynamodb:eu-west-1:" + attackAccount + ":table/GameScores", "Locked", "arn:aws:dynamodb:" + attackRegion + ":" + attackAccount + ":table/Locked"}

// checkAliceAccesses fails unless every access in seen is one alice's
// policy allows.
func checkAliceAccesses(t interface {
	Helper()
	Fatalf(string, ...any)
}, seen []fdyno.Access, alice []byte) {
	t.Helper()
	for _, a := range seen {
		if a.Table != "GameScores" || a.Index != "" || a.Stream || !a.InPartition(alice) {
			t.Fatalf("alice's request touched %+v, outside her partition of GameScores", a)
		}
	}
}

func TestAuthzDifferential(t *testing.T) {
	as := newAttackServer(t)
	alice := packed(t, "alice")
	carried := 0 // accesses carried out: the test is not vacuous
	rapid.Check(t, func(rt *rapid.T) {
		req := rapid.SampledFrom(attackRequests).Draw(rt, "request")
		m := rapid.SampledFrom(attackMutations).Draw(rt, "mutation")
		table := rapid.SampledFrom(attackTables).Draw(rt, "table")
		p := rapid.SampledFrom([]string{"alice", "bob"}).Draw(rt, "partition")
		q := rapid.SampledFrom([]string{"alice", "bob"}).Draw(rt, "other")
		body := strings.NewReplacer("%T", table, "%P", p, "%Q", q).Replace(req.body)
		body = m.f(body)
		auth := rapid.SampledFrom(authMutations).Draw(rt, "authorization")
		as.accesses()
		status, typ, msg := as.raw(t, "alice", req.op, body, auth.f)
		seen := as.accesses()
		carried += len(seen)
		checkAliceAccesses(rt, seen, alice)
		if status == 200 && (strings.Contains(table, "Locked") || strings.Contains(table, "999999999999") || strings.Contains(table, "eu-west-1")) {
			rt.Fatalf("%s %s answered 200, want a refusal", req.op, body)
		}
		_ = typ
		_ = msg
		as.checkBob(t)
	})
	// Rapid's draws may refuse every request (all on denied tables, say):
	// one request alice may make shows that accesses are observed at all,
	// so the checks above could have failed.
	as.accesses()
	if status, typ, msg := as.raw(t, "alice", "GetItem", `{"TableName":"GameScores","Key":{"pk":{"S":"alice"}}}`, nil); status != 200 {
		t.Fatalf("alice's GetItem of her item: %d %s %s", status, typ, msg)
	}
	if seen := as.accesses(); len(seen)+carried == 0 {
		t.Error("no request of alice's touched anything: the test checked nothing")
	}
}

// FuzzAuthzRequest sends any body as alice's signed request of any
// operation; whatever it is, the accesses carried out stay in alice's
// partition of GameScores and bob's item is untouched. Seeds in
// testdata/fuzz/FuzzAuthzRequest, written from attackRequests.
func FuzzAuthzRequest(f *testing.F) {
	ops := []string{"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem",
		"TransactWriteItems", "TransactGetItems", "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction"}
	for _, r := range attackRequests {
		for i, op := range ops {
			if op == r.op {
				f.Add(uint8(i), strings.NewReplacer("%T", "GameScores", "%P", "bob", "%Q", "alice").Replace(r.body))
			}
		}
	}
	as := newAttackServer(f)
	alice := packed(f, "alice")
	f.Fuzz(func(t *testing.T, op uint8, body string) {
		as.accesses()
		as.raw(t, "alice", ops[int(op)%len(ops)], body, nil)
		checkAliceAccesses(t, as.accesses(), alice)
		as.checkBob(t)
	})
}

// TestAuthzSeedCorpus keeps testdata/fuzz/FuzzAuthzRequest in step with
// attackRequests: each request's file exists (go test -fuzz reads them).
func TestAuthzSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzAuthzRequest")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < len(attackRequests) {
		t.Errorf("%d seed files in %s, want at least %d", len(entries), dir, len(attackRequests))
	}
}
