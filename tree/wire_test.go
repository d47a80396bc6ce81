package tree

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/server"
	"github.com/google/go-cmp/cmp"
)

// wireFixture is fdyno-server on a root of the test's own, an AWS SDK
// client of it, and a function opening the package's tree on the table the
// client created.
type wireFixture struct {
	db     fdb.Database
	client *dynamodb.Client
	open   func() *Tree
}

func newWireFixture(t *testing.T) *wireFixture {
	db := fdblitetest.Open(t)
	root := fdblitetest.UniqueDirectory(t, db).GetPath()
	s, err := server.New(server.Config{DB: db, Root: root, TTLSweepInterval: -1, StreamRetention: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	client := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(hs.URL),
		Region:       "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "test"}, nil
		}),
		HTTPClient: hs.Client(),
	})
	// The table as dynamotree's CreateTable makes it.
	_, err = client.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName: aws.String("Tree"),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("Key"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("Child"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("Key"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("Child"), AttributeType: types.ScalarAttributeTypeS},
		},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &wireFixture{db: db, client: client, open: func() *Tree {
		tbl, err := fdyno.Open(db, "Tree", fdyno.WithRoot(root...))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Open(db, tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { checkTree(t, db, tr) })
		return tr
	}}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// Rows a dynamotree client writes with BatchWriteItem through fdyno-server
// (its Put: a listing row per component, then the object row; its PutLink:
// the same with the ¦ attribute) are the package's tree.
func TestWireDynamotreeWritesTreeReads(t *testing.T) {
	f := newWireFixture(t)
	put := func(rows ...map[string]types.AttributeValue) {
		t.Helper()
		var reqs []types.WriteRequest
		for _, r := range rows {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: r}})
		}
		out, err := f.client.BatchWriteItem(t.Context(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Tree": reqs}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.UnprocessedItems) != 0 {
			t.Fatalf("unprocessed: %v", out.UnprocessedItems)
		}
	}
	listing := func(key, child string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"Key": s(key), "Child": s(child)}
	}
	put(listing("¦", "Accounts"), listing("¦Accounts¦", "123456"),
		map[string]types.AttributeValue{"Key": s("¦Accounts¦123456"), "Child": s("¦"), "name": s("Alice")})
	put(listing("¦", "Accounts"), listing("¦Accounts¦", "123456"), listing("¦Accounts¦123456¦", "Links"), listing("¦Accounts¦123456¦Links¦", "xyzpdq"),
		map[string]types.AttributeValue{"Key": s("¦Accounts¦123456¦Links¦xyzpdq"), "Child": s("¦"), "LinkTarget": s("http://example.com/")})
	put(listing("¦", "Links"), listing("¦Links¦", "xyzpdq"),
		map[string]types.AttributeValue{"Key": s("¦Links¦xyzpdq"), "Child": s("¦"), "¦": s("¦Accounts¦123456¦Links¦xyzpdq")})

	tr := f.open()
	got, err := tr.Get(f.db, p("Links/xyzpdq"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"LinkTarget":{"S":"http://example.com/"}}`, got.String()); diff != "" {
		t.Errorf("Get through dynamotree's link (-want +got):\n%s", diff)
	}
	var walked []string
	for e, err := range tr.Walk(t.Context(), f.db, Path{}) {
		if err != nil {
			t.Fatal(err)
		}
		walked = append(walked, e.Path.String()+" "+e.Kind.String())
	}
	want := []string{
		"Accounts directory",
		"Accounts/123456 object+directory",
		"Accounts/123456/Links directory",
		"Accounts/123456/Links/xyzpdq object",
		"Links directory",
		"Links/xyzpdq link",
	}
	if diff := cmp.Diff(want, walked); diff != "" {
		t.Errorf("Walk mismatch (-want +got):\n%s", diff)
	}
	// The package's Delete then keeps the listings exact on those rows.
	if err := tr.Delete(f.db, p("Accounts/123456/Links/xyzpdq")); err != nil {
		t.Fatal(err)
	}
	out, err := tr.List(f.db, p("Accounts/123456"), ListInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Entries) != 0 {
		t.Errorf("after Delete, Accounts/123456 lists %v, want nothing", out.Entries)
	}
}

// What the package writes, a dynamotree client reads through fdyno-server:
// its Get is GetItem of (¦path, ¦), its link target the ¦ attribute split
// at ¦, its List a Query on Key = ¦prefix¦.
func TestWireTreeWritesDynamotreeReads(t *testing.T) {
	f := newWireFixture(t)
	tr := f.open()
	if err := tr.Put(f.db, p("Accounts/123456/Links/xyzpdq"), fdyno.Item{"LinkTarget": fdyno.S("http://example.com/")}); err != nil {
		t.Fatal(err)
	}
	if err := tr.PutLink(f.db, p("Links/xyzpdq"), p("Accounts/123456/Links/xyzpdq")); err != nil {
		t.Fatal(err)
	}
	get := func(key string) map[string]types.AttributeValue {
		t.Helper()
		out, err := f.client.GetItem(t.Context(), &dynamodb.GetItemInput{
			TableName: aws.String("Tree"),
			Key:       map[string]types.AttributeValue{"Key": s(key), "Child": s("¦")},
		})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	link := get("¦Links¦xyzpdq")
	target, ok := link["¦"].(*types.AttributeValueMemberS)
	if !ok {
		t.Fatalf("link row %v has no ¦ string attribute", link)
	}
	parts := strings.Split(target.Value, "¦")[1:]
	if diff := cmp.Diff([]string{"Accounts", "123456", "Links", "xyzpdq"}, parts); diff != "" {
		t.Errorf("link target mismatch (-want +got):\n%s", diff)
	}
	obj := get("¦" + strings.Join(parts, "¦"))
	if v, ok := obj["LinkTarget"].(*types.AttributeValueMemberS); !ok || v.Value != "http://example.com/" {
		t.Errorf("object row = %v", obj)
	}
	list := func(key string) []string {
		t.Helper()
		out, err := f.client.Query(t.Context(), &dynamodb.QueryInput{
			TableName:                 aws.String("Tree"),
			KeyConditionExpression:    aws.String("#K = :key"),
			ExpressionAttributeNames:  map[string]string{"#K": "Key"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":key": s(key)},
		})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, it := range out.Items {
			names = append(names, it["Child"].(*types.AttributeValueMemberS).Value)
		}
		return names
	}
	if diff := cmp.Diff([]string{"Accounts", "Links"}, list("¦")); diff != "" {
		t.Errorf("root listing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Links"}, list("¦Accounts¦123456¦")); diff != "" {
		t.Errorf("Accounts/123456 listing (-want +got):\n%s", diff)
	}
}
