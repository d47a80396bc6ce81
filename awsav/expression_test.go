package awsav_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/awsav"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// The SDK's built expression is a BuiltExpression.
var _ awsav.BuiltExpression = expression.Expression{}

func TestFromExpression(t *testing.T) {
	cond := expression.AttributeNotExists(expression.Name("pk"))
	upd := expression.Set(expression.Name("n"), expression.Value(1.5)).Add(expression.Name("s"), expression.Value(&types.AttributeValueMemberSS{Value: []string{"b", "a"}}))
	expr, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		t.Fatal(err)
	}
	x, err := awsav.FromExpression(expr)
	if err != nil {
		t.Fatal(err)
	}
	want := awsav.Expressions{
		Condition: *expr.Condition(),
		Update:    *expr.Update(),
		Names:     expr.Names(),
		Values:    map[string]fdyno.Value{},
	}
	for k, av := range expr.Values() {
		switch av := av.(type) {
		case *types.AttributeValueMemberN:
			want.Values[k] = fdyno.N(av.Value)
		case *types.AttributeValueMemberSS:
			want.Values[k] = fdyno.SS(av.Value...)
		default:
			t.Fatalf("unexpected placeholder value %#v", av)
		}
	}
	if diff := cmp.Diff(want, x); diff != "" {
		t.Errorf("FromExpression() mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(x.Update, "SET") || !strings.Contains(x.Update, "ADD") || x.Condition == "" || len(x.Values) != 2 {
		t.Errorf("FromExpression() = %+v; want a SET and ADD update, a condition and two values", x)
	}
}

// badValues is a built expression whose :v value is not an attribute
// value DynamoDB accepts.
type badValues struct{ expression.Expression }

func (badValues) Values() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{":v": &types.AttributeValueMemberNS{Value: []string{"1", "01"}}}
}

func TestFromExpressionErrors(t *testing.T) {
	_, err := awsav.FromExpression(badValues{})
	var ve *fdyno.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Reason, ":v") || !strings.Contains(ve.Reason, "duplicates") {
		t.Errorf("FromExpression(bad :v) error = %v; want a ValidationError naming :v and the duplicates", err)
	}
	x, err := awsav.FromExpression(expression.Expression{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(awsav.Expressions{}, x); diff != "" {
		t.Errorf("FromExpression(empty) mismatch (-want +got):\n%s", diff)
	}
}

// Each request type takes only the expressions its operation has.
func TestExpressionsInputs(t *testing.T) {
	all := awsav.Expressions{Condition: "c", Filter: "f", KeyCondition: "k", Projection: "p", Update: "u"}
	key := fdyno.Item{"pk": fdyno.S("a")}
	vals := map[string]fdyno.Value{":v": fdyno.S("x")}
	names := map[string]string{"#n": "n"}
	tests := []struct {
		name    string
		allowed []string
		build   func(awsav.Expressions) (any, error)
		want    any // with x = the allowed expressions, names and values
	}{
		{"PutInput", []string{"Condition"}, func(x awsav.Expressions) (any, error) { return x.PutInput(key) },
			fdyno.PutInput{Item: key, ConditionExpression: "c", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
		{"UpdateInput", []string{"Update", "Condition"}, func(x awsav.Expressions) (any, error) { return x.UpdateInput(key) },
			fdyno.UpdateInput{Key: key, UpdateExpression: "u", ConditionExpression: "c", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
		{"DeleteInput", []string{"Condition"}, func(x awsav.Expressions) (any, error) { return x.DeleteInput(key) },
			fdyno.DeleteInput{Key: key, ConditionExpression: "c", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
		{"QueryInput", []string{"KeyCondition", "Filter", "Projection"}, func(x awsav.Expressions) (any, error) { return x.QueryInput() },
			fdyno.QueryInput{KeyConditionExpression: "k", FilterExpression: "f", ProjectionExpression: "p", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
		{"ScanInput", []string{"Filter", "Projection"}, func(x awsav.Expressions) (any, error) { return x.ScanInput() },
			fdyno.ScanInput{FilterExpression: "f", ProjectionExpression: "p", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
		{"ConditionCheck", []string{"Condition"}, func(x awsav.Expressions) (any, error) { return x.ConditionCheck(nil, key) },
			&fdyno.ConditionCheck{Key: key, ConditionExpression: "c", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
		{"TransactPut", []string{"Condition"}, func(x awsav.Expressions) (any, error) { return x.TransactPut(nil, key) },
			&fdyno.TransactPut{Item: key, ConditionExpression: "c", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
		{"TransactUpdate", []string{"Update", "Condition"}, func(x awsav.Expressions) (any, error) { return x.TransactUpdate(nil, key) },
			&fdyno.TransactUpdate{Key: key, UpdateExpression: "u", ConditionExpression: "c", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
		{"TransactDelete", []string{"Condition"}, func(x awsav.Expressions) (any, error) { return x.TransactDelete(nil, key) },
			&fdyno.TransactDelete{Key: key, ConditionExpression: "c", ExpressionAttributeNames: names, ExpressionAttributeValues: vals}},
	}
	pick := func(allowed []string) awsav.Expressions {
		x := awsav.Expressions{Names: names, Values: vals}
		for _, a := range allowed {
			switch a {
			case "Condition":
				x.Condition = all.Condition
			case "Filter":
				x.Filter = all.Filter
			case "KeyCondition":
				x.KeyCondition = all.KeyCondition
			case "Projection":
				x.Projection = all.Projection
			case "Update":
				x.Update = all.Update
			}
		}
		return x
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.build(pick(tc.allowed))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			for _, extra := range []string{"Condition", "Filter", "KeyCondition", "Projection", "Update"} {
				x := pick(append(tc.allowed[:len(tc.allowed):len(tc.allowed)], extra))
				_, err := tc.build(x)
				isAllowed := false
				for _, a := range tc.allowed {
					isAllowed = isAllowed || a == extra
				}
				switch {
				case isAllowed && err != nil:
					t.Errorf("with %s: unexpected error %v", extra, err)
				case !isAllowed && !errors.Is(err, fdyno.ErrValidation):
					t.Errorf("with a %sExpression: error = %v, want ErrValidation", extra, err)
				}
			}
		})
	}

	get, err := awsav.Expressions{Projection: "#n", Names: names}.GetInput(key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fdyno.GetInput{Key: key, ProjectionExpression: "#n", ExpressionAttributeNames: names}, get); diff != "" {
		t.Errorf("GetInput() mismatch (-want +got):\n%s", diff)
	}
	if _, err := (awsav.Expressions{Projection: "#n", Names: names, Values: vals}).GetInput(key); !errors.Is(err, fdyno.ErrValidation) {
		t.Errorf("GetInput with values: error = %v, want ErrValidation", err)
	}
	if _, err := (awsav.Expressions{Condition: "c"}).GetInput(key); !errors.Is(err, fdyno.ErrValidation) {
		t.Errorf("GetInput with a condition: error = %v, want ErrValidation", err)
	}
}

// Builder output runs on fdyno as it does on DynamoDB: a condition built
// with the SDK fails the way DynamoDB's would.
func TestBuiltExpressionsRun(t *testing.T) {
	db := fdblitetest.Open(t)
	root := fdblitetest.UniqueDirectory(t, db)
	tbl, err := fdyno.Open(db, "Things", fdyno.WithRoot(root.GetPath()...), fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	item := fdyno.Item{"pk": fdyno.S("a"), "n": fdyno.NInt(1)}
	createOnly, _ := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name("pk"))).Build()
	x, err := awsav.FromExpression(createOnly)
	if err != nil {
		t.Fatal(err)
	}
	put, err := x.PutInput(item)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Put(db, put); err != nil {
		t.Fatalf("first conditional put: %v", err)
	}
	if _, err := tbl.Put(db, put); !errors.Is(err, fdyno.ErrConditionalCheckFailed) {
		t.Fatalf("second conditional put: error = %v, want ErrConditionalCheckFailed", err)
	}

	upd, _ := expression.NewBuilder().
		WithUpdate(expression.Add(expression.Name("n"), expression.Value(41))).
		WithCondition(expression.Name("n").Equal(expression.Value(1))).Build()
	if x, err = awsav.FromExpression(upd); err != nil {
		t.Fatal(err)
	}
	in, err := x.UpdateInput(fdyno.Item{"pk": fdyno.S("a")})
	if err != nil {
		t.Fatal(err)
	}
	in.ReturnValues = fdyno.ReturnValueAllNew
	out, err := tbl.Update(db, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fdyno.Item{"pk": fdyno.S("a"), "n": fdyno.NInt(42)}, out.Attributes); diff != "" {
		t.Errorf("Update() mismatch (-want +got):\n%s", diff)
	}

	// A transaction built from two builder expressions: both conditions
	// hold, so both writes happen.
	check, _ := expression.NewBuilder().WithCondition(expression.Name("n").Equal(expression.Value(42))).Build()
	incr, _ := expression.NewBuilder().WithUpdate(expression.Add(expression.Name("n"), expression.Value(1))).
		WithCondition(expression.AttributeNotExists(expression.Name("n"))).Build()
	xc, err := awsav.FromExpression(check)
	if err != nil {
		t.Fatal(err)
	}
	xi, err := awsav.FromExpression(incr)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := xc.ConditionCheck(tbl, fdyno.Item{"pk": fdyno.S("a")})
	if err != nil {
		t.Fatal(err)
	}
	tu, err := xi.TransactUpdate(tbl, fdyno.Item{"pk": fdyno.S("b")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fdyno.TransactWrite(db, fdyno.TransactWriteInput{TransactItems: []fdyno.TransactWriteItem{{ConditionCheck: cc}, {Update: tu}}}); err != nil {
		t.Fatalf("TransactWrite: %v", err)
	}
	if _, err := fdyno.TransactWrite(db, fdyno.TransactWriteInput{TransactItems: []fdyno.TransactWriteItem{{ConditionCheck: cc}, {Update: tu}}}); !errors.Is(err, fdyno.ErrTransactionCanceled) {
		t.Fatalf("second TransactWrite: error = %v, want ErrTransactionCanceled (b.n exists now)", err)
	}

	scan, _ := expression.NewBuilder().WithFilter(expression.Name("n").GreaterThan(expression.Value(40))).
		WithProjection(expression.NamesList(expression.Name("n"))).Build()
	if x, err = awsav.FromExpression(scan); err != nil {
		t.Fatal(err)
	}
	sin, err := x.ScanInput()
	if err != nil {
		t.Fatal(err)
	}
	sout, err := tbl.Scan(db, sin)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]fdyno.Item{{"n": fdyno.NInt(42)}}, sout.Items); diff != "" { // b.n is 1
		t.Errorf("Scan() mismatch (-want +got):\n%s", diff)
	}
}
