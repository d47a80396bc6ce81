package server

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// PartiQL through the AWS SDK for Go v2, with the results DynamoDB's
// PartiQL reference and API reference state.
func TestSDKExecuteStatement(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Music", "sk", types.ScalarAttributeTypeN)
	exec := func(stmt string, params ...types.AttributeValue) (*dynamodb.ExecuteStatementOutput, error) {
		in := &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt)}
		if len(params) > 0 {
			in.Parameters = params
		}
		return c.ExecuteStatement(ctx(t), in)
	}
	for i := 1; i <= 5; i++ {
		if _, err := exec(`INSERT INTO "Music" VALUE {'pk': 'a', 'sk': ?, 'tags': <<'x', 'y'>>, 'm': {'deep': [1, 'two']}}`, n(fmt.Sprint(i))); err != nil {
			t.Fatalf("INSERT %d: %v", i, err)
		}
	}
	_, err := exec(`INSERT INTO "Music" VALUE {'pk': 'a', 'sk': 1}`)
	wantAPIError(t, err, "DuplicateItemException", "Duplicate primary key exists in table")

	out, err := exec(`SELECT sk, m.deep[1] FROM "Music" WHERE pk = ? AND sk BETWEEN 2 AND 3 ORDER BY sk DESC`, s("a"))
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]types.AttributeValue{{"sk": n("3"), "deep": s("two")}, {"sk": n("2"), "deep": s("two")}}
	if diff := cmp.Diff(want, out.Items, cmpAV); diff != "" {
		t.Errorf("SELECT mismatch (-want +got):\n%s", diff)
	}

	// Paging: Limit and NextToken walk the partition, each page a new
	// request.
	var got []string
	in := &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Music" WHERE pk = 'a'`), Limit: aws.Int32(2)}
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("too many pages")
		}
		o, err := c.ExecuteStatement(ctx(t), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range o.Items {
			got = append(got, it["sk"].(*types.AttributeValueMemberN).Value)
		}
		if o.NextToken == nil {
			break
		}
		if o.LastEvaluatedKey == nil {
			t.Error("a page with a NextToken has no LastEvaluatedKey")
		}
		in.NextToken = o.NextToken
	}
	if diff := cmp.Diff([]string{"1", "2", "3", "4", "5"}, got); diff != "" {
		t.Errorf("pages mismatch (-want +got):\n%s", diff)
	}

	out, err = exec(`UPDATE "Music" SET n = 1 SET tags = set_delete(tags, <<'x'>>) REMOVE m WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *`)
	if err != nil {
		t.Fatal(err)
	}
	wantItem := []map[string]types.AttributeValue{{"pk": s("a"), "sk": n("1"), "n": n("1"), "tags": &types.AttributeValueMemberSS{Value: []string{"y"}}}}
	if diff := cmp.Diff(wantItem, out.Items, cmpAV); diff != "" {
		t.Errorf("UPDATE RETURNING ALL NEW mismatch (-want +got):\n%s", diff)
	}
	_, err = exec(`UPDATE "Music" SET n = 1 WHERE pk = 'nobody' AND sk = 1`)
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	out, err = exec(`DELETE FROM "Music" WHERE pk = 'a' AND sk = 5 RETURNING ALL OLD *`)
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("DELETE RETURNING ALL OLD *: %v, %v", out, err)
	}

	// ReturnConsumedCapacity: read units for a SELECT, write units for a
	// write, in the statement's table.
	cc, err := c.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Music" WHERE pk = 'a' AND sk = 1`),
		ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || cc.ConsumedCapacity == nil || aws.ToString(cc.ConsumedCapacity.TableName) != "Music" || aws.ToFloat64(cc.ConsumedCapacity.ReadCapacityUnits) != 1 {
		t.Errorf("SELECT ConsumedCapacity = %+v, %v", cc, err)
	}
	cc, err = c.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`UPDATE "Music" SET x = 1 WHERE pk = 'a' AND sk = 1`),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || cc.ConsumedCapacity == nil || aws.ToString(cc.ConsumedCapacity.TableName) != "Music" || aws.ToFloat64(cc.ConsumedCapacity.WriteCapacityUnits) != 1 {
		t.Errorf("UPDATE ConsumedCapacity = %+v, %v", cc, err)
	}

	_, err = exec(`SELECTT * FROMM "Music"`)
	wantAPIError(t, err, "ValidationException", "Statement wasn't well formed")
	_, err = exec(`SELECT * FROM "Nope" WHERE pk = 'x'`)
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("unknown table: %v, want ResourceNotFoundException", err)
	}
	_, err = exec(`SELECT * FROM "Music" WHERE pk = ?`)
	wantAPIError(t, err, "ValidationException", "Number of parameters in request and statement don't match.")
	_, err = c.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Music"`), Parameters: []types.AttributeValue{}})
	wantAPIError(t, err, "ValidationException", "Value '[]' at 'parameters' failed to satisfy constraint: Member must have length greater than or equal to 1")
}

func TestSDKBatchExecuteStatement(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Things", "", "")
	out, err := c.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`INSERT INTO "Things" VALUE {'pk': 'a', 'v': 1}`)},
		{Statement: aws.String(`INSERT INTO "Things" VALUE {'pk': 'b'}`)},
		{Statement: aws.String(`INSERT INTO "Nope" VALUE {'pk': 'b'}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 3 || out.Responses[0].Error != nil || out.Responses[2].Error == nil || out.Responses[2].Error.Code != types.BatchStatementErrorCodeEnumResourceNotFound {
		t.Fatalf("writes: %+v", out.Responses)
	}
	out, err = c.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`SELECT v FROM "Things" WHERE pk = 'a'`)},
		{Statement: aws.String(`SELECT * FROM "Things" WHERE pk = ?`), Parameters: []types.AttributeValue{s("zzz")}},
		{Statement: aws.String(`INSERT INTO "Things" VALUE {'pk': 'a'}`)},
	}})
	wantAPIError(t, err, "ValidationException", "all reads or all writes")
	out, err = c.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`SELECT v FROM "Things" WHERE pk = 'a'`)},
		{Statement: aws.String(`SELECT * FROM "Things" WHERE pk = ?`), Parameters: []types.AttributeValue{s("zzz")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]types.AttributeValue{"v": n("1")}, out.Responses[0].Item, cmpAV); diff != "" || out.Responses[1].Item != nil {
		t.Errorf("reads mismatch (-want +got):\n%s; second: %v", diff, out.Responses[1].Item)
	}
	many := make([]types.BatchStatementRequest, 26)
	for i := range many {
		many[i].Statement = aws.String(`SELECT * FROM "Things" WHERE pk = 'a'`)
	}
	_, err = c.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: many})
	wantAPIError(t, err, "ValidationException", "less than or equal to 25")
}

func TestSDKExecuteTransaction(t *testing.T) {
	_, c := newTestClient(t, Config{})
	createTable(t, c, "Things", "", "")
	stmts := func(ss ...string) []types.ParameterizedStatement {
		out := make([]types.ParameterizedStatement, len(ss))
		for i, st := range ss {
			out[i].Statement = aws.String(st)
		}
		return out
	}
	if _, err := c.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: stmts(
		`INSERT INTO "Things" VALUE {'pk': 'a', 'v': 1}`, `INSERT INTO "Things" VALUE {'pk': 'b', 'v': 2}`)}); err != nil {
		t.Fatal(err)
	}
	_, err := c.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: stmts(
		`UPDATE "Things" SET v = v + 1 WHERE pk = 'a'`, `INSERT INTO "Things" VALUE {'pk': 'b'}`)})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if diff := cmp.Diff([]string{"None", "DuplicateItem"}, codes); diff != "" {
		t.Errorf("reasons mismatch (-want +got):\n%s", diff)
	}
	out, err := c.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: stmts(
		`SELECT v FROM "Things" WHERE pk = 'a'`, `SELECT v FROM "Things" WHERE pk = 'zzz'`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 2 || out.Responses[1].Item != nil {
		t.Fatalf("responses: %+v", out.Responses)
	}
	if diff := cmp.Diff(map[string]types.AttributeValue{"v": n("1")}, out.Responses[0].Item, cmpAV); diff != "" {
		t.Errorf("the canceled UPDATE was applied (-want +got):\n%s", diff)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = `SELECT * FROM "Things" WHERE pk = 'a'`
	}
	_, err = c.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: stmts(many...)})
	wantAPIError(t, err, "ValidationException", "less than or equal to 100")
	_, err = c.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{}})
	wantAPIError(t, err, "ValidationException", "")
}
