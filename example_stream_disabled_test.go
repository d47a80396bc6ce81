package fdyno_test

import (
	"context"
	"fmt"
	"time"

	"github.com/fdyno/fdyno"
)

// A disabled stream stays readable for 24 hours, as in DynamoDB: its
// records up to the disabling, and nothing written after; the table's
// properties note the disabled stream.
func ExampleTable_UpdateTable_disabledStream() {
	db, root := exampleDB("DisabledStream")
	tbl, err := fdyno.Open(db, "Orders", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "id", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "id", AttributeType: fdyno.ScalarAttributeTypeS}},
		StreamViewType:       fdyno.StreamViewTypeKeysOnly,
	}))
	if err != nil {
		panic(err)
	}
	put := func(id string) {
		if _, err := tbl.Put(db, fdyno.PutInput{Item: fdyno.Item{"id": fdyno.S(id)}}); err != nil {
			panic(err)
		}
	}
	put("recorded")
	d, err := tbl.UpdateTable(db, fdyno.UpdateTableInput{StreamSpecification: &fdyno.StreamSpecification{}})
	if err != nil {
		panic(err)
	}
	put("not recorded")
	for r, err := range tbl.Records(context.Background(), db, "") {
		if err != nil {
			panic(err)
		}
		fmt.Println(r.EventName, r.Keys["id"], r.SequenceNumber == d.DisabledStreams[0].LastSequenceNumber)
	}
	fmt.Println(fdyno.DisabledStreamRetention == 24*time.Hour)
	// Output:
	// INSERT {"S":"recorded"} true
	// true
}
