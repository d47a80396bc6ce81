package fdyno_test

import (
	"context"
	"fmt"

	"github.com/fdyno/fdyno"
)

// A global secondary index on Genre and Year answers "songs of a genre,
// newest first". Its entries are written in the transaction that writes
// the song, so the query sees a write at once: fdyno's GSIs are never
// stale, unlike DynamoDB's eventually consistent ones.
func ExampleTable_Query_index() {
	db, root := exampleDB("QueryIndex")
	schema := musicSchema
	schema.AttributeDefinitions = append(schema.AttributeDefinitions[:2:2],
		fdyno.AttributeDefinition{AttributeName: "Genre", AttributeType: fdyno.ScalarAttributeTypeS},
		fdyno.AttributeDefinition{AttributeName: "Year", AttributeType: fdyno.ScalarAttributeTypeN})
	schema.GlobalSecondaryIndexes = []fdyno.GlobalSecondaryIndex{{
		IndexName: "GenreYear",
		KeySchema: []fdyno.KeySchemaElement{
			{AttributeName: "Genre", KeyType: fdyno.KeyTypeHash},
			{AttributeName: "Year", KeyType: fdyno.KeyTypeRange},
		},
		Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly},
	}}
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(schema))
	if err != nil {
		panic(err)
	}
	put := func(artist, title, genre string, year int64) {
		it := fdyno.Item{"Artist": fdyno.S(artist), "SongTitle": fdyno.S(title), "Genre": fdyno.S(genre), "Year": fdyno.NInt(year)}
		if _, err := music.Put(db, fdyno.PutInput{Item: it}); err != nil {
			panic(err)
		}
	}
	put("No One You Know", "Call Me Today", "Rock", 2001)
	put("The Acme Band", "Look Out, World", "Rock", 2015)
	put("No One You Know", "Scared of My Shadow", "Jazz", 1998)

	rock := fdyno.QueryInput{
		IndexName:                 "GenreYear",
		KeyConditionExpression:    "Genre = :g AND #y >= :y",
		ExpressionAttributeNames:  map[string]string{"#y": "Year"},
		ExpressionAttributeValues: map[string]fdyno.Value{":g": fdyno.S("Rock"), ":y": fdyno.NInt(2000)},
		ScanIndexForward:          fdyno.Forward(false),
	}
	show := func() {
		out, err := music.Query(db, rock)
		if err != nil {
			panic(err)
		}
		for _, it := range out.Items {
			fmt.Println(it)
		}
	}
	show()
	put("The Acme Band", "Still in Love", "Rock", 2020) // seen at once
	fmt.Println("after a put:")
	show()
	// Output:
	// {"Artist":{"S":"The Acme Band"},"Genre":{"S":"Rock"},"SongTitle":{"S":"Look Out, World"},"Year":{"N":"2015"}}
	// {"Artist":{"S":"No One You Know"},"Genre":{"S":"Rock"},"SongTitle":{"S":"Call Me Today"},"Year":{"N":"2001"}}
	// after a put:
	// {"Artist":{"S":"The Acme Band"},"Genre":{"S":"Rock"},"SongTitle":{"S":"Still in Love"},"Year":{"N":"2020"}}
	// {"Artist":{"S":"The Acme Band"},"Genre":{"S":"Rock"},"SongTitle":{"S":"Look Out, World"},"Year":{"N":"2015"}}
	// {"Artist":{"S":"No One You Know"},"Genre":{"S":"Rock"},"SongTitle":{"S":"Call Me Today"},"Year":{"N":"2001"}}
}

// UpdateTable adds a global secondary index to a table that holds data.
// The index is CREATING, maintained by every write from then on; Backfill
// indexes the items written before, in batches of their own transactions
// (resumable after a crash), and makes it ACTIVE.
func ExampleTable_UpdateTable() {
	db, root := exampleDB("UpdateTable")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	for i, title := range []string{"A", "B", "C", "D", "E"} {
		it := fdyno.Item{"Artist": fdyno.S("Band"), "SongTitle": fdyno.S(title), "Plays": fdyno.NInt(int64(i % 2))}
		if _, err := music.Put(db, fdyno.PutInput{Item: it}); err != nil {
			panic(err)
		}
	}
	d, err := music.UpdateTable(db, fdyno.UpdateTableInput{
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Plays", AttributeType: fdyno.ScalarAttributeTypeN}},
		GlobalSecondaryIndexUpdates: []fdyno.GlobalSecondaryIndexUpdate{{Create: &fdyno.CreateGlobalSecondaryIndexAction{
			IndexName:  "ByPlays",
			KeySchema:  []fdyno.KeySchemaElement{{AttributeName: "Plays", KeyType: fdyno.KeyTypeHash}},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly},
		}}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", d.GlobalSecondaryIndexDescriptions[0])
	p, err := music.Backfill(context.Background(), db, fdyno.BackfillInput{
		IndexName: "ByPlays",
		BatchSize: 2,
		Progress:  func(p fdyno.BackfillProgress) { fmt.Println("scanned", p.ItemsScanned) },
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("done:", p.Done)
	out, err := music.Query(db, fdyno.QueryInput{IndexName: "ByPlays", KeyConditionExpression: "Plays = :p",
		ExpressionAttributeValues: map[string]fdyno.Value{":p": fdyno.NInt(1)}, Select: fdyno.SelectCount})
	if err != nil {
		panic(err)
	}
	fmt.Println("songs played once:", out.Count)
	// Output:
	// {IndexName:ByPlays IndexStatus:CREATING Backfilling:true BackfillItems:0}
	// scanned 2
	// scanned 4
	// scanned 5
	// done: true
	// songs played once: 2
}
