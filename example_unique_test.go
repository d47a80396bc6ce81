package fdyno_test

import (
	"errors"
	"fmt"

	"github.com/fdyno/fdyno"
)

// A unique global secondary index keeps "one account per email" without
// the sentinel items and transactions DynamoDB users write by hand: a
// write that would give a second account the same email is refused and
// writes nothing, and an account without an email is not indexed.
func ExampleGlobalSecondaryIndex_unique() {
	db, root := exampleDB("UniqueIndex")
	accounts, err := fdyno.Open(db, "Accounts", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema: []fdyno.KeySchemaElement{{AttributeName: "ID", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{
			{AttributeName: "ID", AttributeType: fdyno.ScalarAttributeTypeS},
			{AttributeName: "Email", AttributeType: fdyno.ScalarAttributeTypeS},
		},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{
			IndexName:  "ByEmail",
			KeySchema:  []fdyno.KeySchemaElement{{AttributeName: "Email", KeyType: fdyno.KeyTypeHash}},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly},
			Unique:     true,
		}},
	}))
	if err != nil {
		panic(err)
	}
	put := func(id, email string) error {
		it := fdyno.Item{"ID": fdyno.S(id)}
		if email != "" {
			it["Email"] = fdyno.S(email)
		}
		_, err := accounts.Put(db, fdyno.PutInput{Item: it})
		return err
	}
	fmt.Println(put("u1", "ann@example.com"))
	err = put("u2", "ann@example.com")
	var uv *fdyno.UniqueViolationError
	fmt.Println(errors.Is(err, fdyno.ErrUniqueViolation), errors.As(err, &uv) && uv.Index == "ByEmail")
	fmt.Println(put("u2", ""), put("u3", "")) // no email: no entry, no collision
	// Renaming frees the old address in the same write.
	_, err = accounts.Update(db, fdyno.UpdateInput{Key: fdyno.Item{"ID": fdyno.S("u1")}, UpdateExpression: "SET Email = :e",
		ExpressionAttributeValues: map[string]fdyno.Value{":e": fdyno.S("ann@example.org")}})
	fmt.Println(err, put("u2", "ann@example.com"))
	// Output:
	// <nil>
	// true true
	// <nil> <nil>
	// <nil> <nil>
}
