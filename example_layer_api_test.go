package fdyno_test

import (
	"fmt"

	"github.com/fdyno/fdyno"
)

// A Filter decides, as a Query's FilterExpression would, whether an item
// read some other way (here by GetItem, which has no filter) is kept.
func ExampleParseFilter() {
	f, err := fdyno.ParseFilter("Plays >= :n AND attribute_exists(#t)",
		map[string]string{"#t": "Tags"}, map[string]fdyno.Value{":n": fdyno.NInt(10)})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Match(fdyno.Item{"Plays": fdyno.NInt(12), "Tags": fdyno.SS("pop")}))
	fmt.Println(f.Match(fdyno.Item{"Plays": fdyno.NInt(12)}))
	_, err = fdyno.ParseFilter("Plays >= :n", nil, nil)
	fmt.Println(err)
	// Output:
	// true
	// false
	// fdyno: ValidationException: Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :n
}
