package server

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const gameARN = "arn:aws:dynamodb:us-west-2:123456789012:table/GameScores"

// Policies shaped after AWS's documented examples: the GameScores policy
// of DynamoDB's "Using IAM policy conditions for fine-grained access
// control" (LeadingKeys, here with ${aws:userid} for the web identity
// variable), the attribute policy of IAM's "Amazon DynamoDB: Allows
// access to specific attributes", a table-and-indexes read-only policy,
// and IAM's explicit-deny example ("The difference between explicit and
// implicit denies") on DynamoDB actions.
var (
	leadingKeysPolicy = `{"Version":"2012-10-17","Statement":[{"Sid":"AllowAccessToOnlyItemsMatchingUserID","Effect":"Allow",
		"Action":["dynamodb:GetItem","dynamodb:BatchGetItem","dynamodb:Query","dynamodb:PutItem","dynamodb:UpdateItem","dynamodb:DeleteItem","dynamodb:BatchWriteItem"],
		"Resource":["` + gameARN + `"],
		"Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:userid}"]}}}]}`
	attributesPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Action":["dynamodb:GetItem","dynamodb:BatchGetItem","dynamodb:Query","dynamodb:PutItem","dynamodb:UpdateItem","dynamodb:DeleteItem","dynamodb:BatchWriteItem"],
		"Resource":["arn:aws:dynamodb:*:*:table/GameScores"],
		"Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["UserId","GameTitle","TopScore","TopScoreDateTime"]},
			"StringEqualsIfExists":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES","dynamodb:ReturnValues":["NONE","UPDATED_OLD","UPDATED_NEW"]}}}]}`
	readOnlyPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:Get*","dynamodb:Query","dynamodb:Scan","dynamodb:Describe*","dynamodb:List*"],
		"Resource":["` + gameARN + `","` + gameARN + `/index/*"]}]}`
	explicitDenyPolicy = `{"Version":"2012-10-17","Statement":[{"Sid":"AllowAll","Effect":"Allow","Action":"dynamodb:*","Resource":"*"},
		{"Sid":"DenyDeletes","Effect":"Deny","Action":["dynamodb:Delete*"],"Resource":"*"}]}`
)

func mustPolicy(t testing.TB, doc string) *Policy {
	t.Helper()
	p, err := ParsePolicy([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPolicyEvaluation(t *testing.T) {
	alice := principal{keyID: "alice", account: "123456789012"}
	vals := func(v ...string) ctxValue { return ctxValue{values: v} }
	for _, tc := range []struct {
		name   string
		policy string
		check  authzCheck
		want   decision
	}{
		// LeadingKeys: the caller's own partition key only.
		{"own item", leadingKeysPolicy, authzCheck{"dynamodb:GetItem", gameARN, map[string]ctxValue{"dynamodb:leadingkeys": vals("alice")}}, allowed},
		{"another's item", leadingKeysPolicy, authzCheck{"dynamodb:GetItem", gameARN, map[string]ctxValue{"dynamodb:leadingkeys": vals("bob")}}, implicitDeny},
		{"batch of own and another's", leadingKeysPolicy, authzCheck{"dynamodb:BatchGetItem", gameARN, map[string]ctxValue{"dynamodb:leadingkeys": vals("alice", "bob")}}, implicitDeny},
		{"batch of own", leadingKeysPolicy, authzCheck{"dynamodb:BatchGetItem", gameARN, map[string]ctxValue{"dynamodb:leadingkeys": vals("alice", "alice")}}, allowed},
		{"unknown keys fail closed", leadingKeysPolicy, authzCheck{"dynamodb:Query", gameARN, map[string]ctxValue{"dynamodb:leadingkeys": {unknown: true}}}, implicitDeny},
		{"action not listed", leadingKeysPolicy, authzCheck{"dynamodb:Scan", gameARN, nil}, implicitDeny},
		{"other table", leadingKeysPolicy, authzCheck{"dynamodb:GetItem", strings.Replace(gameARN, "GameScores", "Other", 1), map[string]ctxValue{"dynamodb:leadingkeys": vals("alice")}}, implicitDeny},
		{"index of the table is another resource", leadingKeysPolicy, authzCheck{"dynamodb:Query", gameARN + "/index/ByTitle", map[string]ctxValue{"dynamodb:leadingkeys": vals("alice")}}, implicitDeny},
		// ForAllValues with the key absent is true (IAM's documented
		// behaviour for an empty set).
		{"ForAllValues over an absent key", leadingKeysPolicy, authzCheck{"dynamodb:PutItem", gameARN, nil}, allowed},

		// Attributes and Select.
		{"allowed attributes", attributesPolicy, authzCheck{"dynamodb:GetItem", gameARN, map[string]ctxValue{"dynamodb:attributes": vals("UserId", "TopScore"), "dynamodb:select": vals("SPECIFIC_ATTRIBUTES")}}, allowed},
		{"a forbidden attribute", attributesPolicy, authzCheck{"dynamodb:GetItem", gameARN, map[string]ctxValue{"dynamodb:attributes": vals("UserId", "PersonalDetails"), "dynamodb:select": vals("SPECIFIC_ATTRIBUTES")}}, implicitDeny},
		{"all attributes", attributesPolicy, authzCheck{"dynamodb:Query", gameARN, map[string]ctxValue{"dynamodb:select": vals("ALL_ATTRIBUTES")}}, implicitDeny},
		{"ReturnValues ALL_OLD", attributesPolicy, authzCheck{"dynamodb:PutItem", gameARN, map[string]ctxValue{"dynamodb:attributes": vals("UserId", "GameTitle"), "dynamodb:returnvalues": vals("ALL_OLD")}}, implicitDeny},
		{"ReturnValues NONE", attributesPolicy, authzCheck{"dynamodb:PutItem", gameARN, map[string]ctxValue{"dynamodb:attributes": vals("UserId", "GameTitle"), "dynamodb:returnvalues": vals("NONE")}}, allowed},

		// Wildcard actions and index resources.
		{"Get* covers GetItem", readOnlyPolicy, authzCheck{"dynamodb:GetItem", gameARN, nil}, allowed},
		{"action names are case-insensitive", readOnlyPolicy, authzCheck{"dynamodb:getitem", gameARN, nil}, allowed},
		{"index wildcard", readOnlyPolicy, authzCheck{"dynamodb:Query", gameARN + "/index/ByTitle", nil}, allowed},
		{"no write", readOnlyPolicy, authzCheck{"dynamodb:PutItem", gameARN, nil}, implicitDeny},
		{"resources are case-sensitive", readOnlyPolicy, authzCheck{"dynamodb:GetItem", strings.ToLower(gameARN), nil}, implicitDeny},

		// Explicit deny wins over allow.
		{"allowed by *", explicitDenyPolicy, authzCheck{"dynamodb:PutItem", gameARN, nil}, allowed},
		{"denied explicitly", explicitDenyPolicy, authzCheck{"dynamodb:DeleteItem", gameARN, nil}, explicitDeny},
		{"denied table deletion", explicitDenyPolicy, authzCheck{"dynamodb:DeleteTable", gameARN, nil}, explicitDeny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := evaluate([]*Policy{mustPolicy(t, tc.policy)}, alice, tc.check); got != tc.want {
				t.Errorf("evaluate = %d, want %d", got, tc.want)
			}
		})
	}
}

// Condition operators, one case per documented rule of IAM's "Condition
// operators" page.
func TestConditionOperators(t *testing.T) {
	who := principal{keyID: "k", account: "123456789012"}
	p := &Policy{version: "2012-10-17"}
	for _, tc := range []struct {
		name    string
		c       condition
		vals    []string
		present bool
		want    bool
	}{
		{"StringEquals match", condition{op: "StringEquals", values: []string{"a", "b"}}, []string{"b"}, true, true},
		{"StringEquals absent", condition{op: "StringEquals", values: []string{"a"}}, nil, false, false},
		{"StringEqualsIfExists absent", condition{op: "StringEquals", ifExists: true, values: []string{"a"}}, nil, false, true},
		{"StringNotEquals other", condition{op: "StringNotEquals", values: []string{"a"}}, []string{"b"}, true, true},
		{"StringNotEquals same", condition{op: "StringNotEquals", values: []string{"a"}}, []string{"a"}, true, false},
		// "If the policy condition requires that the key is not matched
		// ... and the requested key is not present, the condition is true."
		{"StringNotEquals absent", condition{op: "StringNotEquals", values: []string{"a"}}, nil, false, true},
		// Several values of a negated operator act as a logical AND.
		{"StringNotEquals of several", condition{op: "StringNotEquals", values: []string{"a", "b"}}, []string{"b"}, true, false},
		{"StringLike wildcard", condition{op: "StringLike", values: []string{"user-*"}}, []string{"user-42"}, true, true},
		{"StringLike ?", condition{op: "StringLike", values: []string{"a?c"}}, []string{"abbc"}, true, false},
		{"IgnoreCase", condition{op: "StringEqualsIgnoreCase", values: []string{"ALL_ATTRIBUTES"}}, []string{"all_attributes"}, true, true},
		{"ForAnyValue one", condition{op: "StringEquals", set: "ForAnyValue", values: []string{"a"}}, []string{"x", "a"}, true, true},
		{"ForAnyValue absent", condition{op: "StringEquals", set: "ForAnyValue", values: []string{"a"}}, nil, false, false},
		{"ForAllValues one off", condition{op: "StringEquals", set: "ForAllValues", values: []string{"a"}}, []string{"a", "x"}, true, false},
		{"Null true absent", condition{op: "Null", values: []string{"true"}}, nil, false, true},
		{"Null false present", condition{op: "Null", values: []string{"false"}}, []string{"v"}, true, true},
		{"variable", condition{op: "StringEquals", values: []string{"${aws:username}"}}, []string{"k"}, true, true},
		{"escaped star is literal", condition{op: "StringLike", values: []string{"a${*}"}}, []string{"ab"}, true, false},
		{"escaped star matches star", condition{op: "StringLike", values: []string{"a${*}"}}, []string{"a*"}, true, true},
	} {
		if got := tc.c.holds(p, who, tc.vals, tc.present); got != tc.want {
			t.Errorf("%s: holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A policy that does not parse is an error, never "allow all".
func TestParsePolicyErrors(t *testing.T) {
	for _, doc := range []string{
		``, `[]`, `{}`, `{"Statement":[]}`, `{"Version":"2020-01-01","Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*"}}`,
		`{"Statement":{"Effect":"Maybe","Action":"*","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","NotAction":"*","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Principal":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"NumericEquals":{"dynamodb:Select":"1"}}}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringEquals":{"aws:SourceIp":"1.2.3.4"}}}}`,
		`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"arn:${aws:SourceIp}"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*"},"Extra":1}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*"}} {}`,
	} {
		if _, err := ParsePolicy([]byte(doc)); !errors.Is(err, ErrPolicy) {
			t.Errorf("ParsePolicy(%s) = %v, want ErrPolicy", doc, err)
		}
	}
}

// End to end through the SDK, with signed requests: a LeadingKeys policy
// lets alice read and write her own items only; a refusal is DynamoDB's
// AccessDeniedException with AWS's message and happens before anything
// is written; a key without any policy is denied everything.
func TestSDKPolicies(t *testing.T) {
	const account = "123456789012"
	arn := "arn:aws:dynamodb:us-west-2:" + account + ":table/GameScores"
	admin := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`
	policies, err := LoadPolicies(strings.NewReader(`{"alice":` + strings.ReplaceAll(leadingKeysPolicy, gameARN, arn) + `,"admin":` + admin + `}`))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{"alice": "secret-of-alice", "admin": "secret-of-admin", "nobody": "secret-of-nobody"}
	accounts := map[string]string{"alice": account, "admin": account, "nobody": account}
	ts := newTestServer(t, Config{Keys: keys, Accounts: accounts, Policies: policies, Namespaces: PerAccountNamespaces})
	adminC, aliceC, nobodyC := ts.regionClient("admin", "us-west-2"), ts.regionClient("alice", "us-west-2"), ts.regionClient("nobody", "us-west-2")
	createTable(t, adminC, "GameScores", "", "")
	item := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(pk), "v": s("1")}
	}
	if _, err := aliceC.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("GameScores"), Item: item("alice")}); err != nil {
		t.Errorf("alice puts her item: %v", err)
	}
	_, err = aliceC.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("GameScores"), Item: item("bob")})
	wantAPIErrorExact(t, err, "AccessDeniedException", "User: arn:aws:iam::"+account+":user/alice is not authorized to perform: dynamodb:PutItem on resource: "+arn+
		" because no identity-based policy allows the dynamodb:PutItem action")
	out, err := adminC.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("GameScores"), Key: map[string]types.AttributeValue{"pk": s("bob")}})
	if err != nil || out.Item != nil {
		t.Errorf("the refused PutItem wrote: %v %v", out, err)
	}
	q, err := aliceC.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("GameScores"), KeyConditionExpression: aws.String("#p = :v"),
		ExpressionAttributeNames: map[string]string{"#p": "pk"}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("alice")}})
	if err != nil || q.Count != 1 {
		t.Errorf("alice queries her partition: %v %v", q, err)
	}
	_, err = aliceC.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String("GameScores"), KeyConditionExpression: aws.String("pk = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("bob")}})
	wantAPIError(t, err, "AccessDeniedException", "dynamodb:Query on resource: "+arn)
	_, err = aliceC.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"GameScores": {
		{PutRequest: &types.PutRequest{Item: item("alice")}}, {PutRequest: &types.PutRequest{Item: item("carol")}}}}})
	wantAPIError(t, err, "AccessDeniedException", "dynamodb:BatchWriteItem on resource: "+arn)
	out, err = adminC.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("GameScores"), Key: map[string]types.AttributeValue{"pk": s("carol")}})
	if err != nil || out.Item != nil {
		t.Errorf("the refused BatchWriteItem wrote: %v %v", out, err)
	}
	_, err = aliceC.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("GameScores")})
	wantAPIError(t, err, "AccessDeniedException", "dynamodb:DeleteTable on resource: "+arn)
	_, err = aliceC.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "GameScores" WHERE pk = 'alice'`)})
	wantAPIError(t, err, "AccessDeniedException", "dynamodb:PartiQLSelect on resource: "+arn)
	_, err = nobodyC.ListTables(ctx(t), &dynamodb.ListTablesInput{})
	wantAPIErrorExact(t, err, "AccessDeniedException", "User: arn:aws:iam::"+account+":user/nobody is not authorized to perform: dynamodb:ListTables on resource: * because no identity-based policy allows the dynamodb:ListTables action")
	for _, secret := range []string{"secret-of-alice", "secret-of-admin"} {
		if strings.Contains(ts.logs.String(), secret) {
			t.Errorf("the log holds %s", secret)
		}
	}
}

// Policies without access keys are refused: unsigned requests have no
// principal to evaluate them for.
func TestPoliciesNeedKeys(t *testing.T) {
	if _, err := New(Config{Policies: map[string][]*Policy{}}); err == nil {
		t.Error("New with policies and no keys succeeded")
	}
	if _, err := LoadPolicies(strings.NewReader(`{"k":{"Statement":{"Effect":"Allow"}}}`)); !errors.Is(err, ErrPolicy) {
		t.Errorf("LoadPolicies of a bad policy: %v", err)
	}
}
