package awsav_test

import (
	"context"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/awsav"
)

// Movie is the item type of the AWS SDK for Go v2's DynamoDB "Movies"
// example, with its dynamodbav tags.
type Movie struct {
	Title string         `dynamodbav:"title"`
	Year  int            `dynamodbav:"year"`
	Info  map[string]any `dynamodbav:"info"`
}

// GetKey returns the movie's key as the SDK example does.
func (movie Movie) GetKey() map[string]types.AttributeValue {
	title, _ := attributevalue.Marshal(movie.Title)
	year, _ := attributevalue.Marshal(movie.Year)
	return map[string]types.AttributeValue{"title": title, "year": year}
}

// An UpdateItem and a Query written for the AWS SDK for Go v2, ported line
// for line: the expression builder, the SDK's attributevalue package and
// the Movie type stay as they are; the comments are the SDK lines each
// fdyno line replaces.
func Example_port() {
	fdb.MustAPIVersion(730)
	db := fdb.MustOpenDefault()
	if _, err := directory.Root().Remove(db, []string{"awsav-example"}); err != nil {
		panic(err)
	}
	movies, err := fdyno.Open(db, "Movies", fdyno.WithRoot("awsav-example"), fdyno.WithSchema(fdyno.TableSchema{
		KeySchema: []fdyno.KeySchemaElement{
			{AttributeName: "year", KeyType: fdyno.KeyTypeHash},
			{AttributeName: "title", KeyType: fdyno.KeyTypeRange},
		},
		AttributeDefinitions: []fdyno.AttributeDefinition{
			{AttributeName: "year", AttributeType: fdyno.ScalarAttributeTypeN},
			{AttributeName: "title", AttributeType: fdyno.ScalarAttributeTypeS},
		},
	}))
	if err != nil {
		panic(err)
	}
	movie := Movie{Title: "The Big New Movie", Year: 2015, Info: map[string]any{"rating": 0.0, "plot": "Nothing happens at all."}}
	av, _ := attributevalue.MarshalMap(movie)
	item, _ := awsav.Item(av)
	if _, err := movies.Put(db, fdyno.PutInput{Item: item}); err != nil {
		panic(err)
	}

	// UpdateItem.
	movie.Info = map[string]any{"rating": 7.4, "plot": "Everything happens all at once."}
	update := expression.Set(expression.Name("info.rating"), expression.Value(movie.Info["rating"]))
	update.Set(expression.Name("info.plot"), expression.Value(movie.Info["plot"]))
	expr, err := expression.NewBuilder().WithUpdate(update).Build()
	if err != nil {
		panic(err)
	}
	x, err := awsav.FromExpression(expr) // new: the placeholder values become fdyno values
	if err != nil {
		panic(err)
	}
	key, err := awsav.Item(movie.GetKey()) // new
	if err != nil {
		panic(err)
	}
	// response, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
	response, err := movies.Update(db, fdyno.UpdateInput{
		// TableName: aws.String(tableName), Key: movie.GetKey(),
		Key: key,
		// ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeNames: x.Names,
		// ExpressionAttributeValues: expr.Values(),
		ExpressionAttributeValues: x.Values,
		// UpdateExpression:          expr.Update(),
		UpdateExpression: x.Update,
		// ReturnValues:              types.ReturnValueUpdatedNew,
		ReturnValues: fdyno.ReturnValueUpdatedNew,
	})
	if err != nil {
		panic(err)
	}
	var attributeMap map[string]map[string]any
	attributes, err := awsav.AttributeValueMap(response.Attributes) // new
	if err != nil {
		panic(err)
	}
	// err = attributevalue.UnmarshalMap(response.Attributes, &attributeMap)
	err = attributevalue.UnmarshalMap(attributes, &attributeMap)
	if err != nil {
		panic(err)
	}
	fmt.Println(attributeMap)

	// Query.
	keyEx := expression.Key("year").Equal(expression.Value(2015))
	expr, err = expression.NewBuilder().WithKeyCondition(keyEx).Build()
	if err != nil {
		panic(err)
	}
	x, err = awsav.FromExpression(expr) // new
	if err != nil {
		panic(err)
	}
	var found []Movie
	// queryPaginator := dynamodb.NewQueryPaginator(client, &dynamodb.QueryInput{
	queryPages := movies.QueryPages(context.Background(), db, fdyno.QueryInput{
		// TableName:                 aws.String(tableName),
		// ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeNames: x.Names,
		// ExpressionAttributeValues: expr.Values(),
		ExpressionAttributeValues: x.Values,
		// KeyConditionExpression:    expr.KeyCondition(),
		KeyConditionExpression: x.KeyCondition,
	})
	// for queryPaginator.HasMorePages() { response, err = queryPaginator.NextPage(ctx)
	for page, err := range queryPages {
		if err != nil {
			panic(err)
		}
		items, err := awsav.AttributeValueMaps(page.Items) // new
		if err != nil {
			panic(err)
		}
		var moviePage []Movie
		// err = attributevalue.UnmarshalListOfMaps(response.Items, &moviePage)
		err = attributevalue.UnmarshalListOfMaps(items, &moviePage)
		if err != nil {
			panic(err)
		}
		found = append(found, moviePage...)
	}
	fmt.Printf("%+v\n", found)
	// Output:
	// map[info:map[plot:Everything happens all at once. rating:7.4]]
	// [{Title:The Big New Movie Year:2015 Info:map[plot:Everything happens all at once. rating:7.4]}]
}

// The expression methods fill fdyno's request types; the caller adds the
// key or item and the other parameters.
func ExampleExpressions_QueryInput() {
	keyEx := expression.Key("year").Equal(expression.Value(2015)).And(expression.Key("title").BeginsWith("The"))
	filt := expression.Name("info.rating").GreaterThan(expression.Value(7))
	proj := expression.NamesList(expression.Name("title"), expression.Name("info.rating"))
	expr, err := expression.NewBuilder().WithKeyCondition(keyEx).WithFilter(filt).WithProjection(proj).Build()
	if err != nil {
		panic(err)
	}
	x, err := awsav.FromExpression(expr)
	if err != nil {
		panic(err)
	}
	in, err := x.QueryInput()
	if err != nil {
		panic(err)
	}
	in.Limit = 10
	fmt.Println(in.KeyConditionExpression)
	fmt.Println(in.FilterExpression)
	fmt.Println(in.ProjectionExpression)
	fmt.Println(in.ExpressionAttributeValues)

	_, err = x.ScanInput()
	fmt.Println(err)
	// Output:
	// (#2 = :1) AND (begins_with (#3, :2))
	// #0.#1 > :0
	// #3, #0.#1
	// map[:0:{"N":"7"} :1:{"N":"2015"} :2:{"S":"The"}]
	// fdyno: ValidationException: Scan: the expression builder built a KeyConditionExpression, which Scan does not take
}
