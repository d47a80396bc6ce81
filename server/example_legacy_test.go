package server_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Code written against DynamoDB's legacy parameters runs unchanged:
// Expected and ConditionalOperator on writes, AttributeUpdates on
// UpdateItem, KeyConditions and QueryFilter on Query. The server
// translates each into the expression it stands for.
func Example_legacyParameters() {
	client, _, stop := startExampleServer("server-example-legacy")
	defer stop()
	ctx := context.Background()
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("Scores"),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("Player"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("Game"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("Player"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("Game"), AttributeType: types.ScalarAttributeTypeN},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Scores")})
	player := &types.AttributeValueMemberS{Value: "ana"}
	for _, game := range []string{"1", "2", "3"} {
		// Create each game once: Exists false on the key.
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String("Scores"),
			Item:      map[string]types.AttributeValue{"Player": player, "Game": &types.AttributeValueMemberN{Value: game}},
			Expected:  map[string]types.ExpectedAttributeValue{"Player": {Exists: aws.Bool(false)}},
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	// Score game 2 twice: ADD creates the number, then adds to it.
	for range 2 {
		_, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String("Scores"),
			Key:       map[string]types.AttributeValue{"Player": player, "Game": &types.AttributeValueMemberN{Value: "2"}},
			AttributeUpdates: map[string]types.AttributeValueUpdate{
				"Points": {Action: types.AttributeActionAdd, Value: &types.AttributeValueMemberN{Value: "50"}},
				"Badges": {Action: types.AttributeActionAdd, Value: &types.AttributeValueMemberSS{Value: []string{"first"}}},
			},
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	// The games from 2 on that have points.
	out, err := client.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String("Scores"),
		KeyConditions: map[string]types.Condition{
			"Player": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{player}},
			"Game":   {ComparisonOperator: types.ComparisonOperatorGe, AttributeValueList: []types.AttributeValue{&types.AttributeValueMemberN{Value: "2"}}},
		},
		QueryFilter: map[string]types.Condition{"Points": {ComparisonOperator: types.ComparisonOperatorNotNull}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range out.Items {
		fmt.Println("game", it["Game"].(*types.AttributeValueMemberN).Value, "points", it["Points"].(*types.AttributeValueMemberN).Value,
			"badges", it["Badges"].(*types.AttributeValueMemberSS).Value)
	}
	// A failed Expected is a ConditionalCheckFailedException.
	_, err = client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String("Scores"),
		Key:       map[string]types.AttributeValue{"Player": player, "Game": &types.AttributeValueMemberN{Value: "2"}},
		Expected: map[string]types.ExpectedAttributeValue{
			"Points": {ComparisonOperator: types.ComparisonOperatorLt, AttributeValueList: []types.AttributeValue{&types.AttributeValueMemberN{Value: "100"}}},
		},
	})
	var ccf *types.ConditionalCheckFailedException
	fmt.Println("deleted:", !errors.As(err, &ccf))
	// Output:
	// game 2 points 100 badges [first]
	// deleted: false
}
