package fdyno_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/fdyno/fdyno"
)

// After an upgrade, the counters of tables created before fdyno kept
// them are built by one BuildCounts per table, which may run while the
// tables take writes (fdyno-server runs it in the background). A table
// counted already is done at once; one created WithoutCounts keeps none.
func ExampleTable_BuildCounts() {
	db, root := exampleDB("BuildCounts")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	blind := musicSchema
	blind.WithoutCounts = true
	if _, err := fdyno.Open(db, "Blind", root, fdyno.WithSchema(blind)); err != nil {
		panic(err)
	}
	if _, err := music.Put(db, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Today")}}); err != nil {
		panic(err)
	}
	names, err := fdyno.ListTables(db, root)
	if err != nil {
		panic(err)
	}
	for _, name := range names {
		t, err := fdyno.Open(db, name, root)
		if err != nil {
			panic(err)
		}
		p, err := t.BuildCounts(context.Background(), db, fdyno.BuildCountsInput{})
		switch {
		case errors.Is(err, fdyno.ErrCountsDisabled):
			fmt.Println(name, "keeps no counts")
		case err != nil:
			panic(err)
		default:
			c, err := t.Count(db)
			fmt.Println(name, p.Done, c.ItemCount, err)
		}
	}
	// Output:
	// Blind keeps no counts
	// Music true 1 <nil>
}
