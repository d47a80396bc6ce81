package fdyno_test

import (
	"errors"
	"fmt"

	"github.com/fdyno/fdyno"
)

// UpdateTimeToLive turns Time to Live on for an existing table; Describe
// then names the attribute. Enabling it twice is refused, as DynamoDB
// does: disable it first to change the attribute.
func ExampleTable_UpdateTimeToLive() {
	db, root := exampleDB("UpdateTimeToLive")
	sessions, _ := fdyno.Open(db, "Sessions", root, fdyno.WithSchema(batchAccountSchema))
	if _, err := sessions.UpdateTimeToLive(db, fdyno.TimeToLiveSpecification{AttributeName: "ExpiresAt", Enabled: true}); err != nil {
		panic(err)
	}
	d, _ := sessions.Describe(db)
	fmt.Println("TTL on", d.TimeToLiveAttribute)
	_, err := sessions.UpdateTimeToLive(db, fdyno.TimeToLiveSpecification{AttributeName: "Other", Enabled: true})
	fmt.Println(errors.Is(err, fdyno.ErrValidation))
	if _, err := sessions.UpdateTimeToLive(db, fdyno.TimeToLiveSpecification{AttributeName: "ExpiresAt", Enabled: false}); err != nil {
		panic(err)
	}
	d, _ = sessions.Describe(db)
	fmt.Printf("TTL on %q\n", d.TimeToLiveAttribute)
	// Output:
	// TTL on ExpiresAt
	// true
	// TTL on ""
}
