// Package fdyno maps DynamoDB's data model onto FoundationDB.
//
// # Quick start
//
// Items are maps of attribute names to values of DynamoDB's ten types. Build
// them from Go structs with [Marshal] and read them back with [Unmarshal]:
//
//	type Song struct {
//		Artist string `fdyno:"pk"`
//		Title  string `fdyno:"sk"`
//		Year   int    `dynamodbav:"year"`
//	}
//	item, err := fdyno.Marshal(Song{"Nina Simone", "Feeling Good", 1965})
//	var s Song
//	err = fdyno.Unmarshal(item, &s)
//
// or directly from values:
//
//	item := fdyno.Item{"pk": fdyno.S("user#1"), "score": fdyno.N("1.5"), "tags": fdyno.SS("a", "b")}
//
// # Items and values
//
// [Value] covers S, N, B, BOOL, NULL, M, L, SS, NS and BS, with a
// constructor and an accessor of the same name for each ([S] and
// [Value.S], [NS] and [Value.NS], …). [Item.Validate] applies DynamoDB's
// rules (attribute names of 1 to 65535 bytes, nesting at most 32 levels,
// non-empty sets without duplicates, legal numbers) and reports a
// *[ValidationError] naming the attribute path; [Item.Size] computes the
// size DynamoDB charges against its 400 KB item limit.
//
// # Numbers
//
// N values are exact decimals under DynamoDB's rules: up to 38 significant
// digits and magnitudes from 1E-130 to 9.9999999999999999999999999999999999999E+125,
// normalised the way DynamoDB returns them ("1e3" is "1000", "-0" is "0").
// Decimal arithmetic uses github.com/cockroachdb/apd/v3 with a 38-digit
// context, and, like DynamoDB, fails rather than round.
//
// # Storage formats
//
// Items are stored in a compact, deterministic binary encoding
// ([EncodeItem], [DecodeItem]) that starts with a format version byte;
// testdata/codec_golden.txt freezes it. Key attribute values are
// FoundationDB tuple elements whose byte order is DynamoDB's order: S and B
// by bytes, N by numeric value. keys.go documents the keyspace.
//
// # Differences from DynamoDB
//
//   - Invalid UTF-8 in strings is stored as given; DynamoDB's JSON wire
//     protocol cannot carry it.
//   - Empty attribute names inside maps are accepted; only top-level
//     attribute names must be non-empty.
package fdyno
