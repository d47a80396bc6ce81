package server

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// listAllTags pages through ListTagsOfResource and returns every tag.
func listAllTags(t testing.TB, c *dynamodb.Client, arn string) ([]types.Tag, error) {
	var all []types.Tag
	var token *string
	for range 100 {
		out, err := c.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn), NextToken: token})
		if err != nil {
			return nil, err
		}
		all = append(all, out.Tags...)
		if out.NextToken == nil {
			return all, nil
		}
		token = out.NextToken
	}
	t.Fatal("ListTagsOfResource: more than 100 pages")
	return nil, nil
}

func tagMap(tags []types.Tag) map[string]string {
	m := map[string]string{}
	for _, tg := range tags {
		m[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return m
}

// TestSDKTags checks DynamoDB's tagging API through the SDK: Tags on
// CreateTable, TagResource replacing a key's value, UntagResource
// ignoring absent keys, ListTagsOfResource paging with NextToken, the
// limits (50 tags, 128-character keys, 256-character values, no "aws:"
// keys), the ARN checks, and tags going with their table.
func TestSDKTags(t *testing.T) {
	_, c := newTestClient(t, Config{})
	_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName:            aws.String("Tagged"),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		Tags:                 []types.Tag{{Key: aws.String("env"), Value: aws.String("test")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Tagged"
	got, err := listAllTags(t, c, arn)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"env": "test"}, tagMap(got)); diff != "" {
		t.Errorf("tags from CreateTable (-want +got):\n%s", diff)
	}
	if _, err := c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{
		{Key: aws.String("env"), Value: aws.String("prod")}, {Key: aws.String("team"), Value: aws.String("db")}, {Key: aws.String("empty"), Value: aws.String("")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UntagResource(ctx(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"team", "absent"}}); err != nil {
		t.Fatal(err)
	}
	got, _ = listAllTags(t, c, arn)
	if diff := cmp.Diff(map[string]string{"env": "prod", "empty": ""}, tagMap(got)); diff != "" {
		t.Errorf("tags after tag and untag (-want +got):\n%s", diff)
	}

	// 50 tags in all, no more; pages of ListTagsOfResource cover them
	// all once.
	var many []types.Tag
	for i := range 48 {
		many = append(many, types.Tag{Key: aws.String(fmt.Sprintf("k%02d", i)), Value: aws.String("v")})
	}
	if _, err := c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: many}); err != nil {
		t.Fatalf("TagResource to 50 tags: %v", err)
	}
	got, _ = listAllTags(t, c, arn)
	if len(got) != 50 {
		t.Errorf("ListTagsOfResource pages hold %d tags, want 50", len(got))
	}
	_, err = c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Key: aws.String("one-more"), Value: aws.String("v")}}})
	wantAPIError(t, err, "ValidationException", "at most 50 tags")

	for _, tc := range []struct {
		name string
		tag  types.Tag
		msg  string
	}{
		{"reserved prefix", types.Tag{Key: aws.String("aws:owner"), Value: aws.String("x")}, "reserved"},
		{"long key", types.Tag{Key: aws.String(strings.Repeat("k", 129)), Value: aws.String("x")},
			"at 'tags.1.member.key' failed to satisfy constraint: Member must have length less than or equal to 128"},
		{"long value", types.Tag{Key: aws.String("k"), Value: aws.String(strings.Repeat("v", 257))},
			"at 'tags.1.member.value' failed to satisfy constraint: Member must have length less than or equal to 256"},
		{"bad character", types.Tag{Key: aws.String("a*b"), Value: aws.String("x")}, "letters, digits"},
	} {
		_, err := c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tc.tag}})
		wantAPIError(t, err, "ValidationException", tc.msg)
	}

	// The ARN, checked as DynamoDB checks it.
	for _, tc := range []struct{ arn, name, msg string }{
		{"not-a-valid-arn", "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input not-a-valid-arn"},
		{"arn:aws:s3:us-east-1:000000000000:table/Tagged", "AccessDeniedException", "not authorized"},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Tagged", "AccessDeniedException", "not authorized"},
		{"arn:aws:dynamodb:eu-west-1:000000000000:table/Tagged", "ValidationException", "region"},
		{"arn:aws:dynamodb:us-east-1:000000000000:table/Tagged/index/g", "ValidationException",
			"Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:us-east-1:000000000000:table/Tagged/index/g"},
		{"arn:aws:dynamodb:us-east-1:000000000000:table/ab", "ValidationException",
			"Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:us-east-1:000000000000:table/ab"},
		{"arn:aws:dynamodb:us-east-1:000000000000:table/Nope", "ResourceNotFoundException",
			"Requested resource not found: ResourcArn: arn:aws:dynamodb:us-east-1:000000000000:table/Nope not found"},
	} {
		_, err := c.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(tc.arn)})
		wantAPIError(t, err, tc.name, tc.msg)
	}
	_, err = c.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn), NextToken: aws.String("!!")})
	wantAPIError(t, err, "ValidationException", "Invalid NextToken")

	// Tags go with their table: a table created again under the name has
	// none.
	if _, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Tagged")}); err != nil {
		t.Fatal(err)
	}
	createTable(t, c, "Tagged", "", "")
	got, err = listAllTags(t, c, arn)
	if err != nil || len(got) != 0 {
		t.Errorf("tags of the recreated table: %v, %v; want none", got, err)
	}
}

// TestTagsModel is a state machine over TagResource, UntagResource and
// ListTagsOfResource (paged with NextToken) against a map: after any
// sequence of tag and untag calls, the pages list exactly the model's
// tags, in key order, each once; a call that would pass 50 tags fails and
// changes nothing.
func TestTagsModel(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Model", "", "")
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Model"
	rapid.Check(t, func(rt *rapid.T) {
		// Start each run from no tags.
		all, err := listAllTags(t, c, arn)
		if err != nil {
			rt.Fatal(err)
		}
		if len(all) > 0 {
			keys := make([]string, len(all))
			for i, tg := range all {
				keys[i] = aws.ToString(tg.Key)
			}
			if _, err := c.UntagResource(ctx(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: keys}); err != nil {
				rt.Fatal(err)
			}
		}
		model := map[string]string{}
		key := rapid.StringMatching(`[a-z]{1,2}`)
		rt.Repeat(map[string]func(*rapid.T){
			"tag": func(rt *rapid.T) {
				n := rapid.IntRange(1, 12).Draw(rt, "n")
				var tags []types.Tag
				next := map[string]string{}
				for k, v := range model {
					next[k] = v
				}
				for range n {
					k, v := key.Draw(rt, "key"), rapid.StringMatching(`[a-z0-9 ]{0,3}`).Draw(rt, "value")
					tags = append(tags, types.Tag{Key: aws.String(k), Value: aws.String(v)})
					next[k] = v
				}
				_, err := c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tags})
				if len(next) > 50 {
					var ae interface{ ErrorCode() string }
					if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" {
						rt.Fatalf("TagResource to %d tags: %v, want ValidationException", len(next), err)
					}
					return
				}
				if err != nil {
					rt.Fatal(err)
				}
				model = next
			},
			"untag": func(rt *rapid.T) {
				keys := rapid.SliceOfN(key, 1, 5).Draw(rt, "keys")
				if _, err := c.UntagResource(ctx(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: keys}); err != nil {
					rt.Fatal(err)
				}
				for _, k := range keys {
					delete(model, k)
				}
			},
			"": func(rt *rapid.T) {
				got, err := listAllTags(t, c, arn)
				if err != nil {
					rt.Fatal(err)
				}
				keys := make([]string, len(got))
				for i, tg := range got {
					keys[i] = aws.ToString(tg.Key)
				}
				if !slices.IsSorted(keys) {
					rt.Errorf("ListTagsOfResource keys not in order: %v", keys)
				}
				if diff := cmp.Diff(model, tagMap(got), cmpopts.EquateEmpty()); diff != "" {
					rt.Fatalf("tags (-model +server):\n%s", diff)
				}
			},
		})
	})
}

// TestTagWireAnswers checks the tagging operations' answers at the wire:
// TagResource and UntagResource answer HTTP 200 with an empty body (their
// output has no members; clients such as erlcloud handle DynamoDB's
// empty answer specially), and a Tag needs both members, Value as well
// as Key (DynamoDB's Tag shape requires both; an empty Value is a valid
// tag, an absent one is not), in DynamoDB's constraint words.
func TestTagWireAnswers(t *testing.T) {
	ts := newTestServer(t, Config{})
	createTable(t, ts.client(testCredentials), "Wire", "", "")
	arn := ts.tableARN("Wire")
	for _, tc := range []struct {
		name, op, body string
	}{
		{"tag", "TagResource", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"env","Value":""}]}`},
		{"untag", "UntagResource", `{"ResourceArn":"` + arn + `","TagKeys":["env","absent"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rawCall(t, ts, tc.op, tc.body); got != "" {
				t.Errorf("%s answered %q, want an empty body", tc.op, got)
			}
		})
	}
	for _, tc := range []struct {
		name, op, body, msg string
	}{
		{"tag without value", "TagResource", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"env"}]}`,
			"1 validation error detected: Value null at 'tags.1.member.value' failed to satisfy constraint: Member must not be null"},
		{"tag value null", "TagResource", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"a","Value":"b"},{"Key":"env","Value":null}]}`,
			"1 validation error detected: Value null at 'tags.2.member.value' failed to satisfy constraint: Member must not be null"},
		{"tag without key or value", "TagResource", `{"ResourceArn":"` + arn + `","Tags":[{}]}`,
			"2 validation errors detected: Value null at 'tags.1.member.key' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'tags.1.member.value' failed to satisfy constraint: Member must not be null"},
		{"create table tag without value", "CreateTable", `{"TableName":"NoValue","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],` +
			`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"Tags":[{"Key":"env"}]}`,
			"1 validation error detected: Value null at 'tags.1.member.value' failed to satisfy constraint: Member must not be null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, name, msg := ts.post(t, targetPrefix+tc.op, contentType, strings.NewReader(tc.body))
			if status != 400 || name != "ValidationException" || msg != tc.msg {
				t.Errorf("got %d %s %q\nwant 400 ValidationException %q", status, name, msg, tc.msg)
			}
		})
	}
	// Nothing was written by the refused requests.
	got, err := listAllTags(t, ts.client(testCredentials), arn)
	if err != nil || len(got) != 0 {
		t.Errorf("tags after the refused requests: %v, %v; want none", got, err)
	}
}

// checkTag applies DynamoDB's tagging restrictions (the TagResource API
// reference and the tagging restrictions of the developer guide).
func TestCheckTag(t *testing.T) {
	for _, tc := range []struct {
		tag tag
		ok  bool
	}{
		{tag{"env", "prod"}, true},
		{tag{"a b:c/d=e+f-g.h_i@j", ""}, true},
		{tag{"ключ", "значение"}, true},
		{tag{strings.Repeat("k", maxTagKeyLength), strings.Repeat("v", maxTagValueLength)}, true},
		{tag{strings.Repeat("é", maxTagKeyLength), ""}, true}, // characters, not bytes
		{tag{"", "v"}, false},
		{tag{strings.Repeat("k", maxTagKeyLength+1), "v"}, false},
		{tag{"k", strings.Repeat("v", maxTagValueLength+1)}, false},
		{tag{"aws:cost", "v"}, false},
		{tag{"AWS:cost", "v"}, false},
		{tag{"a*b", "v"}, false},
		{tag{"k", "v!"}, false},
		{tag{"k\xff", "v"}, false},
	} {
		err := checkTag(tc.tag)
		if (err == nil) != tc.ok {
			t.Errorf("checkTag(%q) = %v, want ok %v", tc.tag, err, tc.ok)
		}
		var ae *apiError
		if err != nil && (!errors.As(err, &ae) || ae.typ != errValidation) {
			t.Errorf("checkTag(%q) = %v, not a ValidationException", tc.tag, err)
		}
	}
}

func TestMergeTags(t *testing.T) {
	have := []tag{{"a", "1"}, {"c", "3"}}
	got, err := mergeTags(have, []tag{{"b", "2"}, {"a", "x"}, {"b", "y"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]tag{{"a", "x"}, {"b", "y"}, {"c", "3"}}, got); diff != "" {
		t.Errorf("mergeTags (-want +got):\n%s", diff)
	}
	if have[0].Value != "1" {
		t.Errorf("mergeTags changed its input: %v", have)
	}
	var fifty []tag
	for i := range maxTags {
		fifty = append(fifty, tag{fmt.Sprintf("k%02d", i), ""})
	}
	if _, err := mergeTags(nil, fifty); err != nil {
		t.Errorf("50 tags: %v", err)
	}
	if _, err := mergeTags(fifty, []tag{{"one-more", ""}}); err == nil {
		t.Errorf("51 tags accepted")
	}
	if _, err := mergeTags(fifty, []tag{{"k00", "replaced"}}); err != nil {
		t.Errorf("replacing a value at 50 tags: %v", err)
	}
}
