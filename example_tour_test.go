package fdyno_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno"
)

// The README's five-minute tour, run as written: open a table, write with
// a condition, update, read, query, and compose fdyno's writes with your
// own FoundationDB transaction. The README's snippets are this function's
// lines (TestDocSnippets checks).
func Example_tour() {
	fdb.MustAPIVersion(730)
	if _, err := directory.Root().Remove(fdb.MustOpenDefault(), []string{"tour"}); err != nil {
		panic(err)
	}
	tour := func() error {
		fdb.MustAPIVersion(730)
		db := fdb.MustOpenDefault() // fdblite in-process, or your cluster's libfdb_c

		music, err := fdyno.Open(db, "Music", fdyno.WithRoot("tour"), fdyno.WithSchema(fdyno.TableSchema{
			KeySchema: []fdyno.KeySchemaElement{
				{AttributeName: "Artist", KeyType: fdyno.KeyTypeHash},
				{AttributeName: "SongTitle", KeyType: fdyno.KeyTypeRange},
			},
			AttributeDefinitions: []fdyno.AttributeDefinition{
				{AttributeName: "Artist", AttributeType: fdyno.ScalarAttributeTypeS},
				{AttributeName: "SongTitle", AttributeType: fdyno.ScalarAttributeTypeS},
			},
		}))
		if err != nil {
			return err
		}

		// Conditional put: create only.
		_, err = music.Put(db, fdyno.PutInput{
			Item:                fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Today"), "Plays": fdyno.NInt(0)},
			ConditionExpression: "attribute_not_exists(Artist)",
		})
		if errors.Is(err, fdyno.ErrConditionalCheckFailed) {
			fmt.Println("already there")
		}

		key := fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Today")}
		out, err := music.Update(db, fdyno.UpdateInput{
			Key:                       key,
			UpdateExpression:          "SET Plays = Plays + :one",
			ExpressionAttributeValues: map[string]fdyno.Value{":one": fdyno.NInt(1)},
			ReturnValues:              fdyno.ReturnValueUpdatedNew,
		})
		if err != nil {
			return err
		}
		fmt.Println(out.Attributes)
		got, err := music.Get(db, fdyno.GetInput{Key: key, ProjectionExpression: "Plays"})
		if err != nil {
			return err
		}
		fmt.Println(got.Item)

		// Rename a song atomically: fdyno's writes join your transaction.
		_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
			if _, err := music.Put(tr, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Tonight")}}); err != nil {
				return nil, err
			}
			tr.Set(fdb.Key("my-app/renamed"), []byte("Call Me Tonight")) // your own FoundationDB write
			return nil, nil
		})
		if err != nil {
			return err
		}

		// Every song of one artist whose title begins with "Call", one page per
		// transaction, however many pages there are.
		for item, err := range music.QueryAll(context.Background(), db, fdyno.QueryInput{
			KeyConditionExpression:    "Artist = :a AND begins_with(SongTitle, :t)",
			ExpressionAttributeValues: map[string]fdyno.Value{":a": fdyno.S("No One You Know"), ":t": fdyno.S("Call")},
		}) {
			if err != nil {
				return err
			}
			fmt.Println(item["SongTitle"].S())
		}

		// A failed condition writes nothing and says why.
		_, err = music.Delete(db, fdyno.DeleteInput{Key: key, ConditionExpression: "Plays > :n",
			ExpressionAttributeValues: map[string]fdyno.Value{":n": fdyno.NInt(10)}})
		var ccf *fdyno.ConditionalCheckFailedError
		fmt.Println(errors.As(err, &ccf) && errors.Is(err, fdyno.ErrConditionalCheckFailed), ccf != nil)
		return nil
	}
	if err := tour(); err != nil {
		panic(err)
	}
	// Output:
	// {"Plays":{"N":"1"}}
	// {"Plays":{"N":"1"}}
	// Call Me Today
	// Call Me Tonight
	// true true
}
