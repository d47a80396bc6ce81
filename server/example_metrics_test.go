package server_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GET /metrics answers in Prometheus's text format: here, the request
// counters after two ListTables and a PutItem on a table that does not
// exist.
func Example_metrics() {
	client, hs, stop := startExampleServer("server-metrics-example", func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
	defer stop()
	ctx := context.Background()
	for range 2 {
		if _, err := client.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			log.Fatal(err)
		}
	}
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("NoSuchTable"),
		Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
	})
	fmt.Println(err != nil)

	resp, err := hs.Client().Get(hs.URL + "/metrics") // what Prometheus scrapes
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "fdyno_requests_total") {
			fmt.Println(sc.Text())
		}
	}
	// Output:
	// true
	// fdyno_requests_total{operation="ListTables",result="success"} 2
	// fdyno_requests_total{operation="PutItem",result="ResourceNotFoundException"} 1
}
