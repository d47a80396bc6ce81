package server_test

import (
	"context"
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
