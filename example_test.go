package fdyno_test

import (
	"errors"
	"fmt"

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
