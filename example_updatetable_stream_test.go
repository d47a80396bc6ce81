package fdyno_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/fdyno/fdyno"
)

// Enabling a table's stream with UpdateTable: the writes after the change
// record their changes; disabling it stops recording.
func ExampleTable_UpdateTable_stream() {
	db, root := exampleDB("UpdateTableStream")
	tbl, err := fdyno.Open(db, "Playlists", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "id", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "id", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))
	if err != nil {
		panic(err)
	}
	put := func(id string) {
		if _, err := tbl.Put(db, fdyno.PutInput{Item: fdyno.Item{"id": fdyno.S(id)}}); err != nil {
			panic(err)
		}
	}
	put("before") // no stream yet: not recorded
	if _, err := tbl.UpdateTable(db, fdyno.UpdateTableInput{StreamSpecification: &fdyno.StreamSpecification{
		StreamEnabled: true, StreamViewType: fdyno.StreamViewTypeKeysOnly}}); err != nil {
		panic(err)
	}
	put("during")
	_, err = tbl.UpdateTable(db, fdyno.UpdateTableInput{StreamSpecification: &fdyno.StreamSpecification{
		StreamEnabled: true, StreamViewType: fdyno.StreamViewTypeNewImage}})
	fmt.Println(errors.Is(err, fdyno.ErrValidation)) // disable first to change the view type
	for r, err := range tbl.Records(context.Background(), db, "") {
		if err != nil {
			panic(err)
		}
		fmt.Println(r.EventName, r.Keys["id"])
	}
	// Output:
	// true
	// INSERT {"S":"during"}
}
