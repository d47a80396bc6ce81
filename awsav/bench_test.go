package awsav_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/awsav"
)

// benchItem is a typical item: a key, scalars, a set, a small map and a
// list, about 300 bytes.
func benchItem() fdyno.Item {
	return fdyno.Item{
		"pk":      fdyno.S("user#1234567"),
		"sk":      fdyno.S("order#2026-11-24T16:40:00Z"),
		"total":   fdyno.N("1234.56"),
		"count":   fdyno.NInt(7),
		"paid":    fdyno.Bool(true),
		"note":    fdyno.Null(),
		"blob":    fdyno.B([]byte("0123456789abcdef")),
		"tags":    fdyno.SS("gift", "express", "fragile"),
		"address": fdyno.M(fdyno.Item{"street": fdyno.S("1 Infinite Loop"), "city": fdyno.S("Cupertino"), "zip": fdyno.S("95014")}),
		"lines": fdyno.L(
			fdyno.M(fdyno.Item{"sku": fdyno.S("A-1"), "qty": fdyno.NInt(2), "price": fdyno.N("9.99")}),
			fdyno.M(fdyno.Item{"sku": fdyno.S("B-2"), "qty": fdyno.NInt(1), "price": fdyno.N("1214.58")}),
		),
	}
}

// BenchmarkConvert measures both conversions of benchItem, next to two
// references in the same run: fdyno's own encoding of the item (what every
// Put does anyway) and the SDK's attributevalue.UnmarshalMap of the same
// SDK item into map[string]any.
func BenchmarkConvert(b *testing.B) {
	it := benchItem()
	av, err := awsav.AttributeValueMap(it)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fdyno-to-sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := awsav.AttributeValueMap(it); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk-to-fdyno", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := awsav.Item(av); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference/fdyno.EncodeItem", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := fdyno.EncodeItem(it); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference/attributevalue.UnmarshalMap", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]any
			if err := attributevalue.UnmarshalMap(av, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkValue converts one scalar each way: the floor of the per-value
// cost.
func BenchmarkValue(b *testing.B) {
	v := fdyno.N("1234.56")
	av := types.AttributeValue(&types.AttributeValueMemberN{Value: "1234.56"})
	b.Run("fdyno-to-sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := awsav.AttributeValue(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk-to-fdyno", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := awsav.Value(av); err != nil {
				b.Fatal(err)
			}
		}
	})
}
