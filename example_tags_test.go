package fdyno_test

import (
	"fmt"

	"github.com/fdyno/fdyno"
)

// Tags are key-value pairs kept with a table: set them at creation with
// WithProperties, change them with TagResource (a key already present
// takes the new value) and UntagResource, and read them back in key
// order. They go when the table is deleted.
func ExampleTable_TagResource() {
	db, root := exampleDB("Tags")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema),
		fdyno.WithProperties(fdyno.TableProperties{Tags: []fdyno.Tag{{Key: "env", Value: "test"}}}))
	if err != nil {
		panic(err)
	}
	if err := music.TagResource(db, []fdyno.Tag{{Key: "team", Value: "catalog"}, {Key: "env", Value: "prod"}}); err != nil {
		panic(err)
	}
	if err := music.UntagResource(db, []string{"team"}); err != nil {
		panic(err)
	}
	tags, err := music.ListTags(db)
	if err != nil {
		panic(err)
	}
	fmt.Println(tags)

	err = music.TagResource(db, []fdyno.Tag{{Key: "aws:owner", Value: "me"}})
	fmt.Println(err)
	// Output:
	// [{env prod}]
	// fdyno: ValidationException: TagResource: Tags: One or more parameter values were invalid: tag keys starting with 'aws:' are reserved for system use: "aws:owner"
}
