package fdyno_test

import (
	"fmt"

	"github.com/fdyno/fdyno"
)

// QueryBatch reads the latest song of each of several artists: one
// Query page per artist, every range read in flight at once, in one
// read transaction.
func ExampleQueryBatch() {
	db, root := exampleDB("QueryBatch")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	for _, s := range [][2]string{
		{"No One You Know", "Call Me Today"},
		{"No One You Know", "Somewhere Down The Road"},
		{"The Acme Band", "Look Out, World"},
		{"The Acme Band", "Still In Love"},
	} {
		it := fdyno.Item{"Artist": fdyno.S(s[0]), "SongTitle": fdyno.S(s[1])}
		if _, err := music.Put(db, fdyno.PutInput{Item: it}); err != nil {
			panic(err)
		}
	}

	artists := []string{"No One You Know", "The Acme Band", "Nobody"}
	queries := make([]fdyno.QueryBatchInput, len(artists))
	for i, a := range artists {
		queries[i] = fdyno.QueryBatchInput{Table: music, Input: fdyno.QueryInput{
			KeyConditionExpression:    "Artist = :a",
			ExpressionAttributeValues: map[string]fdyno.Value{":a": fdyno.S(a)},
			ScanIndexForward:          fdyno.Forward(false),
			Limit:                     1,
		}}
	}
	outs, err := fdyno.QueryBatch(db, queries)
	if err != nil {
		panic(err)
	}
	for i, out := range outs {
		for _, it := range out.Items {
			fmt.Printf("%s: %s (more: %t)\n", artists[i], it["SongTitle"].S(), out.LastEvaluatedKey != nil)
		}
		if out.Count == 0 {
			fmt.Printf("%s: no songs\n", artists[i])
		}
	}
	// Output:
	// No One You Know: Somewhere Down The Road (more: true)
	// The Acme Band: Still In Love (more: true)
	// Nobody: no songs
}
