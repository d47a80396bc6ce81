package fdyno_test

import (
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno"
)

// A struct becomes an item and back; tags name the attributes, and the
// dynamodbav tags of the AWS SDK work too.
func ExampleMarshal() {
	type Song struct {
		Artist string   `fdyno:"pk"`
		Title  string   `fdyno:"sk"`
		Year   int      `dynamodbav:"year"`
		Tags   []string `fdyno:"tags,stringset,omitempty"`
	}

	item, _ := fdyno.Marshal(Song{Artist: "Nina Simone", Title: "Feeling Good", Year: 1965, Tags: []string{"jazz", "soul"}})
	var song Song
	_ = fdyno.Unmarshal(item, &song)

	fmt.Println(item)
	fmt.Printf("%+v\n", song)
	// Output:
	// {"pk":{"S":"Nina Simone"},"sk":{"S":"Feeling Good"},"tags":{"SS":["jazz","soul"]},"year":{"N":"1965"}}
	// {Artist:Nina Simone Title:Feeling Good Year:1965 Tags:[jazz soul]}
}

// Items can also be built directly from values.
func ExampleItem() {
	item := fdyno.Item{
		"pk":     fdyno.S("user#1"),
		"score":  fdyno.N("1.50"),
		"active": fdyno.Bool(true),
		"tags":   fdyno.SS("b", "a"),
		"nested": fdyno.M(fdyno.Item{"list": fdyno.L(fdyno.NInt(1), fdyno.Null())}),
	}
	fmt.Println(item["score"].N(), item["tags"].SS(), item.Size())
	fmt.Println(item.Validate())
	// Output:
	// 1.5 [a b] 51
	// <nil>
}

// Numbers follow DynamoDB: at most 38 significant digits, normalised.
func ExampleParseN() {
	v, _ := fdyno.ParseN("6.02E+23")
	fmt.Println(v.N())

	_, err := fdyno.ParseN("1" + "000000000000000000000000000000000000001")
	fmt.Println(errors.Is(err, fdyno.ErrValidation))
	fmt.Println(err)
	// Output:
	// 602000000000000000000000
	// true
	// fdyno: ValidationException: Attempting to store more than 38 significant digits in a Number
}

// The codec turns an item into compact, deterministic bytes and back.
func ExampleEncodeItem() {
	item := fdyno.Item{"pk": fdyno.S("a"), "n": fdyno.NInt(7)}
	data, _ := fdyno.EncodeItem(item)
	back, _ := fdyno.DecodeItem(data)
	fmt.Printf("%x\n%v\n", data, back)
	// Output:
	// 0102016e02013702706b010161
	// {"n":{"N":"7"},"pk":{"S":"a"}}
}

// exampleDB opens the default database (fdblite in tests) and returns a
// fresh root directory for the example's tables, so examples never see
// each other's tables.
func exampleDB(name string) (fdb.Database, fdyno.Option) {
	fdb.MustAPIVersion(730)
	db := fdb.MustOpenDefault()
	root := []string{"fdyno-examples", name}
	if _, err := directory.Root().Remove(db, root); err != nil {
		panic(err)
	}
	return db, fdyno.WithRoot(root...)
}

// musicSchema is the developer guide's Music table: Artist and SongTitle.
var musicSchema = fdyno.TableSchema{
	KeySchema: []fdyno.KeySchemaElement{
		{AttributeName: "Artist", KeyType: fdyno.KeyTypeHash},
		{AttributeName: "SongTitle", KeyType: fdyno.KeyTypeRange},
	},
	AttributeDefinitions: []fdyno.AttributeDefinition{
		{AttributeName: "Artist", AttributeType: fdyno.ScalarAttributeTypeS},
		{AttributeName: "SongTitle", AttributeType: fdyno.ScalarAttributeTypeS},
	},
}

// Open creates a table from its schema, or opens it if it exists with the
// same schema; opening it with another schema is an error.
func ExampleOpen() {
	db, root := exampleDB("Open")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	desc, _ := music.Describe(db)
	fmt.Println(desc.TableName, desc.KeySchema)

	_, err = fdyno.Open(db, "Music", root) // no schema: open only
	fmt.Println(err)

	other := musicSchema
	other.KeySchema = other.KeySchema[:1]
	other.AttributeDefinitions = other.AttributeDefinitions[:1]
	_, err = fdyno.Open(db, "Music", root, fdyno.WithSchema(other))
	fmt.Println(errors.Is(err, fdyno.ErrResourceInUse))

	names, _ := fdyno.ListTables(db, root)
	fmt.Println(names)
	fmt.Println(fdyno.DeleteTable(db, "Music", root))
	_, err = music.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S("a"), "SongTitle": fdyno.S("b")}})
	fmt.Println(errors.Is(err, fdyno.ErrResourceNotFound))
	// Output:
	// Music [{Artist HASH} {SongTitle RANGE}]
	// <nil>
	// true
	// [Music]
	// <nil>
	// true
}

// A conditional put creates an item only if it does not exist yet.
func ExampleTable_Put() {
	db, root := exampleDB("Put")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	song := fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Today"), "Year": fdyno.NInt(2015)}
	create := fdyno.PutInput{Item: song, ConditionExpression: "attribute_not_exists(Artist)"}

	_, err := music.Put(db, create)
	fmt.Println(err)
	_, err = music.Put(db, create)
	fmt.Println(errors.Is(err, fdyno.ErrConditionalCheckFailed))

	// Replace it, returning the old item.
	song2 := fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Today"), "Year": fdyno.NInt(2016)}
	out, _ := music.Put(db, fdyno.PutInput{Item: song2, ReturnValues: fdyno.ReturnValueAllOld})
	fmt.Println(out.Attributes["Year"])
	// Output:
	// <nil>
	// true
	// {"N":"2015"}
}

// Get reads an item, optionally projecting attributes and nested paths.
func ExampleTable_Get() {
	db, root := exampleDB("Get")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	key := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day")}
	item := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day"),
		"Info": fdyno.M(fdyno.Item{"Genre": fdyno.S("Rock"), "Length": fdyno.NInt(219)}), "Plays": fdyno.NInt(1)}
	_, _ = music.Put(db, fdyno.PutInput{Item: item})

	out, _ := music.Get(db, fdyno.GetInput{Key: key, ProjectionExpression: "Info.Genre, Plays"})
	fmt.Println(out.Item)
	out, _ = music.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Sad Day")}})
	fmt.Println(out.Item == nil)
	// Output:
	// {"Info":{"M":{"Genre":{"S":"Rock"}}},"Plays":{"N":"1"}}
	// true
}

// Update applies an update expression, creating the item if needed, and
// returns what ReturnValues asks for.
func ExampleTable_Update() {
	db, root := exampleDB("Update")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	key := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day")}
	for range 2 {
		out, err := music.Update(db, fdyno.UpdateInput{
			Key:                       key,
			UpdateExpression:          "SET #y = if_not_exists(#y, :y) ADD Plays :one, Tags :t",
			ExpressionAttributeNames:  map[string]string{"#y": "Year"},
			ExpressionAttributeValues: map[string]fdyno.Value{":y": fdyno.NInt(2024), ":one": fdyno.NInt(1), ":t": fdyno.SS("pop")},
			ReturnValues:              fdyno.ReturnValueUpdatedNew,
		})
		if err != nil {
			panic(err)
		}
		fmt.Println(out.Attributes)
	}
	// Key attributes cannot be updated.
	_, err := music.Update(db, fdyno.UpdateInput{Key: key, UpdateExpression: "REMOVE SongTitle"})
	fmt.Println(err)
	// Output:
	// {"Plays":{"N":"1"},"Tags":{"SS":["pop"]},"Year":{"N":"2024"}}
	// {"Plays":{"N":"2"},"Tags":{"SS":["pop"]},"Year":{"N":"2024"}}
	// fdyno: ValidationException: UpdateItem: SongTitle: One or more parameter values were invalid: Cannot update attribute SongTitle. This attribute is part of the key
}

// Delete removes an item if its condition holds, and can return it.
// Every path of an UpdateExpression names the item as it was before the
// update: list indexes past the end append in index order, and several
// REMOVEd indexes are the original list's. REMOVE alone never creates an
// item.
func ExampleTable_Update_lists() {
	db, root := exampleDB("UpdateLists")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	key := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day")}
	item := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day"),
		"Charts": fdyno.L(fdyno.NInt(1), fdyno.NInt(3)), "Reviews": fdyno.L(fdyno.S("a"), fdyno.S("b"), fdyno.S("c"), fdyno.S("d"))}
	if _, err := music.Put(db, fdyno.PutInput{Item: item}); err != nil {
		panic(err)
	}
	out, err := music.Update(db, fdyno.UpdateInput{
		Key:                       key,
		UpdateExpression:          "SET Charts[4] = :x, Charts[2] = :y REMOVE Reviews[3], Reviews[1]",
		ExpressionAttributeValues: map[string]fdyno.Value{":x": fdyno.NInt(40), ":y": fdyno.NInt(20)},
		ReturnValues:              fdyno.ReturnValueAllNew,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Attributes["Charts"], out.Attributes["Reviews"])
	missing := fdyno.Item{"Artist": fdyno.S("Nobody"), "SongTitle": fdyno.S("Silence")}
	out, err = music.Update(db, fdyno.UpdateInput{Key: missing, UpdateExpression: "REMOVE Charts", ReturnValues: fdyno.ReturnValueAllNew})
	fmt.Println(out.Attributes, err)
	// Output:
	// {"L":[{"N":"1"},{"N":"3"},{"N":"20"},{"N":"40"}]} {"L":[{"S":"a"},{"S":"c"}]}
	// {} <nil>
}

func ExampleTable_Delete() {
	db, root := exampleDB("Delete")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	key := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day")}
	_, _ = music.Put(db, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day"), "Plays": fdyno.NInt(3)}})

	in := fdyno.DeleteInput{
		Key:                                 key,
		ConditionExpression:                 "Plays < :n",
		ExpressionAttributeValues:           map[string]fdyno.Value{":n": fdyno.NInt(3)},
		ReturnValuesOnConditionCheckFailure: fdyno.ReturnValuesOnConditionCheckFailureAllOld,
	}
	_, err := music.Delete(db, in)
	var ccf *fdyno.ConditionalCheckFailedError
	if errors.As(err, &ccf) {
		fmt.Println("kept:", ccf.Item["Plays"])
	}
	in.ExpressionAttributeValues[":n"] = fdyno.NInt(10)
	in.ReturnValues = fdyno.ReturnValueAllOld
	out, _ := music.Delete(db, in)
	fmt.Println("deleted:", out.Attributes["Plays"])
	// Output:
	// kept: {"N":"3"}
	// deleted: {"N":"3"}
}

// Item operations compose with the caller's own transaction: they commit,
// or roll back, together with its other writes.
func ExampleTable_Put_transaction() {
	db, root := exampleDB("Transaction")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	from := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Draft")}
	_, _ = music.Put(db, fdyno.PutInput{Item: from})

	// Rename a song: delete the old key and create the new one, atomically.
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := music.Delete(tr, fdyno.DeleteInput{Key: from, ConditionExpression: "attribute_exists(Artist)"}); err != nil {
			return nil, err
		}
		return music.Put(tr, fdyno.PutInput{
			Item:                fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Final")},
			ConditionExpression: "attribute_not_exists(Artist)",
		})
	})
	fmt.Println(err)
	out, _ := music.Get(db, fdyno.GetInput{Key: from})
	fmt.Println(out.Item == nil)
	// Output:
	// <nil>
	// true
}
