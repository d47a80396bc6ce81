package fdyno_test

import (
	"context"
	"fmt"

	"github.com/fdyno/fdyno"
)

// Query reads one artist's songs whose titles begin with a prefix, keeps
// those of one year with a filter, and projects two attributes. Limit
// counts items before the filter, so a page can hold fewer items than its
// ScannedCount.
func ExampleTable_Query() {
	db, root := exampleDB("Query")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	for _, s := range []struct {
		artist, title string
		year          int64
	}{
		{"No One You Know", "Call Me Today", 2001},
		{"No One You Know", "Call It Off", 1999},
		{"No One You Know", "Calling Collect", 2001},
		{"No One You Know", "Somewhere Down The Road", 2001},
		{"The Acme Band", "Call Me Today", 2001},
	} {
		it := fdyno.Item{"Artist": fdyno.S(s.artist), "SongTitle": fdyno.S(s.title), "Year": fdyno.NInt(s.year)}
		if _, err := music.Put(db, fdyno.PutInput{Item: it}); err != nil {
			panic(err)
		}
	}

	out, err := music.Query(db, fdyno.QueryInput{
		KeyConditionExpression:   "Artist = :a AND begins_with(SongTitle, :t)",
		FilterExpression:         "#y = :y",
		ProjectionExpression:     "SongTitle, #y",
		ExpressionAttributeNames: map[string]string{"#y": "Year"},
		ExpressionAttributeValues: map[string]fdyno.Value{
			":a": fdyno.S("No One You Know"),
			":t": fdyno.S("Call"),
			":y": fdyno.NInt(2001),
		},
		ScanIndexForward: fdyno.Forward(false),
	})
	if err != nil {
		panic(err)
	}
	for _, it := range out.Items {
		fmt.Println(it)
	}
	fmt.Println(out.Count, out.ScannedCount, out.LastEvaluatedKey)
	// Output:
	// {"SongTitle":{"S":"Calling Collect"},"Year":{"N":"2001"}}
	// {"SongTitle":{"S":"Call Me Today"},"Year":{"N":"2001"}}
	// 2 3 {}
}

// QueryAll walks every page of a query, each page in its own transaction,
// so a result of any size never meets FoundationDB's five-second limit.
// Breaking out of the loop stops the reads.
func ExampleTable_QueryAll() {
	db, root := exampleDB("QueryAll")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	for i := range 25 {
		it := fdyno.Item{"Artist": fdyno.S("Prolific"), "SongTitle": fdyno.S(fmt.Sprintf("Song %02d", i))}
		if _, err := music.Put(db, fdyno.PutInput{Item: it}); err != nil {
			panic(err)
		}
	}

	in := fdyno.QueryInput{
		KeyConditionExpression:    "Artist = :a",
		ExpressionAttributeValues: map[string]fdyno.Value{":a": fdyno.S("Prolific")},
		Limit:                     10, // items per page
	}
	n := 0
	for it, err := range music.QueryAll(context.Background(), db, in) {
		if err != nil {
			panic(err)
		}
		n++
		if n == 1 || n == 25 {
			fmt.Println(it["SongTitle"].S())
		}
	}
	pages := 0
	for page, err := range music.QueryPages(context.Background(), db, in) {
		if err != nil {
			panic(err)
		}
		pages++
		fmt.Println(page.ScannedCount, page.Cursor != nil)
	}
	fmt.Println(n, pages)
	// Output:
	// Song 00
	// Song 24
	// 10 true
	// 10 true
	// 5 false
	// 25 3
}
