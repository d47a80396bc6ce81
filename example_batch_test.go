package fdyno_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fdyno/fdyno"
)

var batchAccountSchema = fdyno.TableSchema{
	KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "Id", KeyType: fdyno.KeyTypeHash}},
	AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Id", AttributeType: fdyno.ScalarAttributeTypeS}},
}

// BatchWrite puts and deletes items across tables in one transaction;
// BatchGet reads many keys from several tables at once, each table with
// its own projection. Missing keys are simply absent.
func ExampleBatchGet() {
	db, root := exampleDB("BatchGet")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	accounts, _ := fdyno.Open(db, "Accounts", root, fdyno.WithSchema(batchAccountSchema))
	_, err := fdyno.BatchWrite(db, fdyno.BatchWriteInput{RequestItems: map[*fdyno.Table][]fdyno.WriteRequest{
		music: {
			{PutRequest: &fdyno.PutRequest{Item: fdyno.Item{"Artist": fdyno.S("Nina Simone"), "SongTitle": fdyno.S("Feeling Good"), "Year": fdyno.NInt(1965)}}},
			{PutRequest: &fdyno.PutRequest{Item: fdyno.Item{"Artist": fdyno.S("Nina Simone"), "SongTitle": fdyno.S("Sinnerman"), "Year": fdyno.NInt(1965)}}},
		},
		accounts: {{PutRequest: &fdyno.PutRequest{Item: fdyno.Item{"Id": fdyno.S("alice"), "Balance": fdyno.NInt(100)}}}},
	}})
	if err != nil {
		panic(err)
	}
	out, err := fdyno.BatchGet(db, fdyno.BatchGetInput{RequestItems: map[*fdyno.Table]fdyno.KeysAndAttributes{
		music: {
			Keys: []fdyno.Item{
				{"Artist": fdyno.S("Nina Simone"), "SongTitle": fdyno.S("Sinnerman")},
				{"Artist": fdyno.S("Nina Simone"), "SongTitle": fdyno.S("No Such Song")},
				{"Artist": fdyno.S("Nina Simone"), "SongTitle": fdyno.S("Feeling Good")},
			},
			ProjectionExpression: "SongTitle",
		},
		accounts: {Keys: []fdyno.Item{{"Id": fdyno.S("alice")}}},
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Responses[music])
	fmt.Println(out.Responses[accounts])
	fmt.Println(len(out.UnprocessedKeys))
	// Output:
	// [{"SongTitle":{"S":"Sinnerman"}} {"SongTitle":{"S":"Feeling Good"}}]
	// [{"Balance":{"N":"100"},"Id":{"S":"alice"}}]
	// 0
}

// BatchWriteAll writes a batch of any size, one FoundationDB transaction
// per part that fits FoundationDB's limits; every item is written whole.
func ExampleBatchWriteAll() {
	db, root := exampleDB("BatchWriteAll")
	accounts, _ := fdyno.Open(db, "Accounts", root, fdyno.WithSchema(batchAccountSchema))
	var reqs []fdyno.WriteRequest
	for i := range 1000 {
		reqs = append(reqs, fdyno.WriteRequest{PutRequest: &fdyno.PutRequest{Item: fdyno.Item{"Id": fdyno.S(fmt.Sprintf("user%04d", i))}}})
	}
	err := fdyno.BatchWriteAll(context.Background(), db, fdyno.BatchWriteInput{RequestItems: map[*fdyno.Table][]fdyno.WriteRequest{accounts: reqs}})
	fmt.Println(err)
	page, _ := accounts.Scan(db, fdyno.ScanInput{Select: fdyno.SelectCount})
	fmt.Println(page.Count)
	// Output:
	// <nil>
	// 1000
}

// TransactWrite moves money between two accounts all or nothing: the
// debit's condition keeps the balance from going negative, and a failed
// condition cancels the whole transaction with one reason per action.
// The ClientRequestToken makes a retry of the same transfer a no-op.
func ExampleTransactWrite() {
	db, root := exampleDB("TransactWrite")
	accounts, _ := fdyno.Open(db, "Accounts", root, fdyno.WithSchema(batchAccountSchema))
	for _, id := range []string{"alice", "bob"} {
		if _, err := accounts.Put(db, fdyno.PutInput{Item: fdyno.Item{"Id": fdyno.S(id), "Balance": fdyno.NInt(100)}}); err != nil {
			panic(err)
		}
	}
	transfer := func(token string, from, to string, amount int64) error {
		amt := map[string]fdyno.Value{":a": fdyno.NInt(amount)}
		_, err := fdyno.TransactWrite(db, fdyno.TransactWriteInput{
			ClientRequestToken: token,
			TransactItems: []fdyno.TransactWriteItem{
				{Update: &fdyno.TransactUpdate{Table: accounts, Key: fdyno.Item{"Id": fdyno.S(from)},
					UpdateExpression: "SET Balance = Balance - :a", ConditionExpression: "Balance >= :a", ExpressionAttributeValues: amt,
					ReturnValuesOnConditionCheckFailure: fdyno.ReturnValuesOnConditionCheckFailureAllOld}},
				{Update: &fdyno.TransactUpdate{Table: accounts, Key: fdyno.Item{"Id": fdyno.S(to)},
					UpdateExpression: "ADD Balance :a", ExpressionAttributeValues: amt}},
			},
		})
		return err
	}
	fmt.Println(transfer("t1", "alice", "bob", 30))
	fmt.Println(transfer("t1", "alice", "bob", 30)) // a retry: applied once
	err := transfer("t2", "alice", "bob", 500)
	var tce *fdyno.TransactionCanceledError
	if errors.As(err, &tce) {
		fmt.Println(tce.CancellationReasons[0].Code, tce.CancellationReasons[0].Item["Balance"].N(), tce.CancellationReasons[1].Code)
	}
	fmt.Println(errors.Is(transfer("t1", "alice", "bob", 31), fdyno.ErrIdempotentParameterMismatch))

	out, _ := fdyno.TransactGet(db, fdyno.TransactGetInput{TransactItems: []fdyno.TransactGetItem{
		{Table: accounts, Key: fdyno.Item{"Id": fdyno.S("alice")}, ProjectionExpression: "Balance"},
		{Table: accounts, Key: fdyno.Item{"Id": fdyno.S("bob")}, ProjectionExpression: "Balance"},
	}})
	fmt.Println(out.Responses[0].Item["Balance"].N(), out.Responses[1].Item["Balance"].N())
	// Output:
	// <nil>
	// <nil>
	// ConditionalCheckFailed 70 None
	// true
	// 70 130
}

// A table's TimeToLiveAttribute holds the epoch second after which an
// item has expired. Expired items stay readable until the sweeper deletes
// them; Query and Scan can hide them. WithClock injects the time.
func ExampleTable_SweepExpiredOnce() {
	db, root := exampleDB("SweepExpiredOnce")
	now := time.Unix(1_800_000_000, 0)
	sessions, _ := fdyno.Open(db, "Sessions", root, fdyno.WithClock(func() time.Time { return now }), fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "Id", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Id", AttributeType: fdyno.ScalarAttributeTypeS}},
		TimeToLiveAttribute:  "ExpiresAt",
	}))
	for id, exp := range map[string]int64{"old": now.Unix() - 60, "fresh": now.Unix() + 3600} {
		_, _ = sessions.Put(db, fdyno.PutInput{Item: fdyno.Item{"Id": fdyno.S(id), "ExpiresAt": fdyno.NInt(exp)}})
	}
	all, _ := sessions.Scan(db, fdyno.ScanInput{Select: fdyno.SelectCount})
	live, _ := sessions.Scan(db, fdyno.ScanInput{Select: fdyno.SelectCount, HideExpired: true})
	fmt.Println(all.Count, live.Count)

	stats, err := sessions.SweepExpiredOnce(context.Background(), db, fdyno.SweepOptions{BatchSize: 100})
	fmt.Println(stats, err)
	all, _ = sessions.Scan(db, fdyno.ScanInput{Select: fdyno.SelectCount})
	fmt.Println(all.Count)
	// Output:
	// 2 1
	// {2 1} <nil>
	// 1
}
