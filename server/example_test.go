package server_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/server"
)

// An unchanged AWS SDK for Go v2 client talks to fdyno-server: only the
// endpoint is overridden, and any static credentials do.
func Example() {
	db, err := fdblitetest.OpenDatabase("server-example") // or fdb.OpenDatabase(clusterFile)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := server.New(server.Config{DB: db, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()             // stops backfills and the TTL sweeper, after hs
	hs := httptest.NewServer(srv) // fdyno-server --listen 127.0.0.1:8000 does this
	defer hs.Close()

	ctx := context.Background()
	client := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(hs.URL), // "http://127.0.0.1:8000"
		Region:       "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		}),
	})
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("Music"),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("Artist"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SongTitle"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("Artist"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SongTitle"), AttributeType: types.ScalarAttributeTypeS},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("Music"),
		Item: map[string]types.AttributeValue{
			"Artist":    &types.AttributeValueMemberS{Value: "No One You Know"},
			"SongTitle": &types.AttributeValueMemberS{Value: "Call Me Today"},
			"Plays":     &types.AttributeValueMemberN{Value: "0"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	out, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String("Music"),
		Key: map[string]types.AttributeValue{
			"Artist":    &types.AttributeValueMemberS{Value: "No One You Know"},
			"SongTitle": &types.AttributeValueMemberS{Value: "Call Me Today"},
		},
		UpdateExpression:          aws.String("SET Plays = Plays + :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Plays:", out.Attributes["Plays"].(*types.AttributeValueMemberN).Value)
	if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Music")}); err != nil {
		log.Fatal(err)
	}
	// Output: Plays: 1
}

// startExampleServer starts fdyno-server on the in-memory database name,
// as Example does step by step, and returns an SDK client of it with
// static credentials (optFns applied to its options), the HTTP server,
// and a function that stops both.
func startExampleServer(name string, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, *httptest.Server, func()) {
	db, err := fdblitetest.OpenDatabase(name)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := server.New(server.Config{DB: db, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	client := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(hs.URL),
		Region:       "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		}),
	}, optFns...)
	return client, hs, func() {
		hs.Close()
		srv.Close() // stops backfills and the TTL sweeper, after hs
	}
}

// A TransactWriteItems whose condition fails is canceled as a whole; the
// SDK's TransactionCanceledException carries one reason per action, with
// the item as it was for ReturnValuesOnConditionCheckFailure ALL_OLD.
func Example_transactWriteItems() {
	client, _, stop := startExampleServer("server-example-transact")
	defer stop()
	ctx := context.Background()
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Accounts"),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Accounts")})
	for id, bal := range map[string]string{"alice": "10", "bob": "0"} {
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Accounts"), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: id}, "balance": &types.AttributeValueMemberN{Value: bal}}}); err != nil {
			log.Fatal(err)
		}
	}
	amount := map[string]types.AttributeValue{":a": &types.AttributeValueMemberN{Value: "25"}}
	_, err = client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{TableName: aws.String("Accounts"), Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "alice"}},
			UpdateExpression: aws.String("SET balance = balance - :a"), ConditionExpression: aws.String("balance >= :a"),
			ExpressionAttributeValues: amount, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{Update: &types.Update{TableName: aws.String("Accounts"), Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "bob"}},
			UpdateExpression: aws.String("SET balance = balance + :a"), ExpressionAttributeValues: amount}},
	}})
	var canceled *types.TransactionCanceledException
	if errors.As(err, &canceled) {
		for _, r := range canceled.CancellationReasons {
			fmt.Print(aws.ToString(r.Code))
			if b, ok := r.Item["balance"].(*types.AttributeValueMemberN); ok {
				fmt.Print(" (balance ", b.Value, ")")
			}
			fmt.Println()
		}
	}
	// Output:
	// ConditionalCheckFailed (balance 10)
	// None
}
