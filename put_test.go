package fdyno

import (
	"errors"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// itemCmp compares items with Item.Equal in cmp.Diff.
var itemCmp = cmp.Comparer(func(a, b Item) bool { return a.Equal(b) })

func mustGet(t *testing.T, db fdb.ReadTransactor, tbl *Table, key Item) Item {
	t.Helper()
	out, err := tbl.Get(db, GetInput{Key: key})
	if err != nil {
		t.Fatalf("Get(%v): %v", key, err)
	}
	return out.Item
}

func mustPut(t *testing.T, db fdb.Transactor, tbl *Table, it Item) {
	t.Helper()
	if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
		t.Fatalf("Put(%v): %v", it, err)
	}
}

func TestPut(t *testing.T) {
	db, tbl := openTestTable(t, hashRange)
	old := Item{"pk": S("Amazon DynamoDB"), "sk": N("1"), "Message": S("first")}
	mustPut(t, db, tbl, old)
	newer := Item{"pk": S("Amazon DynamoDB"), "sk": N("1.0"), "Subject": S("second")}

	// PutItem replaces the whole item; ReturnValues ALL_OLD returns the
	// replaced one (API_PutItem: "ALL_OLD - If PutItem overwrote an
	// attribute name-value pair, then the content of the old item is
	// returned").
	out, err := tbl.Put(db, PutInput{Item: newer, ReturnValues: ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(old, out.Attributes, itemCmp); diff != "" {
		t.Errorf("Put(ALL_OLD) mismatch (-want +got):\n%s", diff)
	}
	// N key values are equal by value and returned canonically: 1.0 is 1.
	want := Item{"pk": S("Amazon DynamoDB"), "sk": N("1"), "Subject": S("second")}
	if diff := cmp.Diff(want, mustGet(t, db, tbl, Item{"pk": S("Amazon DynamoDB"), "sk": N("1e0")}), itemCmp); diff != "" {
		t.Errorf("Get() mismatch (-want +got):\n%s", diff)
	}
	// ALL_OLD of a new item returns nothing.
	out, err = tbl.Put(db, PutInput{Item: Item{"pk": S("x"), "sk": N("2")}, ReturnValues: ReturnValueAllOld})
	if err != nil || out.Attributes != nil {
		t.Errorf("Put(ALL_OLD, new item) = %v, %v; want no attributes", out, err)
	}
}

func TestPutCondition(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	first := Item{"pk": S("p1"), "Price": N("500")}
	// attribute_not_exists(pk): put only if absent (the developer guide's
	// "Preventing overwrites of an existing item").
	notExists := PutInput{Item: first, ConditionExpression: "attribute_not_exists(pk)"}
	if _, err := tbl.Put(db, notExists); err != nil {
		t.Fatalf("first conditional put: %v", err)
	}
	second := notExists
	second.Item = Item{"pk": S("p1"), "Price": N("1")}
	_, err := tbl.Put(db, second)
	var ccf *ConditionalCheckFailedError
	if !errors.As(err, &ccf) || !errors.Is(err, ErrConditionalCheckFailed) || ccf.Item != nil {
		t.Fatalf("second conditional put = %v, want ConditionalCheckFailedError without Item", err)
	}
	second.ReturnValuesOnConditionCheckFailure = ReturnValuesOnConditionCheckFailureAllOld
	_, err = tbl.Put(db, second)
	if !errors.As(err, &ccf) {
		t.Fatalf("put = %v, want ConditionalCheckFailedError", err)
	}
	if diff := cmp.Diff(first, ccf.Item, itemCmp); diff != "" {
		t.Errorf("ConditionalCheckFailedError.Item mismatch (-want +got):\n%s", diff)
	}
	// A failed condition writes nothing.
	if diff := cmp.Diff(first, mustGet(t, db, tbl, Item{"pk": S("p1")}), itemCmp); diff != "" {
		t.Errorf("item after failed put (-want +got):\n%s", diff)
	}
	// Price < :limit with a placeholder.
	_, err = tbl.Put(db, PutInput{
		Item:                      Item{"pk": S("p1"), "Price": N("400")},
		ConditionExpression:       "#p > :limit",
		ExpressionAttributeNames:  map[string]string{"#p": "Price"},
		ExpressionAttributeValues: map[string]Value{":limit": N("499")},
	})
	if err != nil {
		t.Fatalf("put with a true condition: %v", err)
	}
}

func TestPutValidation(t *testing.T) {
	db, tbl := openTestTable(t, hashRange, WithMaxItemSize(1000))
	big := strings.Repeat("x", 1000)
	tests := []struct {
		name string
		in   PutInput
	}{
		{"no item", PutInput{}},
		{"missing hash key", PutInput{Item: Item{"sk": N("1")}}},
		{"missing range key", PutInput{Item: Item{"pk": S("a")}}},
		{"hash key of the wrong type", PutInput{Item: Item{"pk": N("1"), "sk": N("1")}}},
		{"empty string key", PutInput{Item: Item{"pk": S(""), "sk": N("1")}}},
		{"empty set", PutInput{Item: Item{"pk": S("a"), "sk": N("1"), "s": SS()}}},
		{"over the item size limit", PutInput{Item: Item{"pk": S("a"), "sk": N("1"), "big": S(big)}}},
		{"ReturnValues ALL_NEW", PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ReturnValues: ReturnValueAllNew}},
		{"bad ReturnValuesOnConditionCheckFailure", PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ReturnValuesOnConditionCheckFailure: "ALL_NEW"}},
		{"names without expression", PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ExpressionAttributeNames: map[string]string{"#a": "a"}}},
		{"values without expression", PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ExpressionAttributeValues: map[string]Value{":a": N("1")}}},
		{"unused value", PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ConditionExpression: "attribute_exists(pk)", ExpressionAttributeValues: map[string]Value{":a": N("1")}}},
		{"undefined value", PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ConditionExpression: "x = :nope"}},
		{"reserved word", PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ConditionExpression: "attribute_exists(Size)"}},
		{"syntax error", PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ConditionExpression: "a = "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tbl.Put(db, tc.in)
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrValidation) {
				t.Fatalf("Put() = %v, want a *ValidationError", err)
			}
		})
	}
	// Nothing was written by any of them.
	if got := mustGet(t, db, tbl, Item{"pk": S("a"), "sk": N("1")}); got != nil {
		t.Errorf("rejected puts wrote %v", got)
	}
}

// A non-key attribute that is an index key must have the declared type
// (DynamoDB facts: "A non-key attribute that is a GSI/LSI key must have
// the declared index type, or the write fails").
func TestPutIndexKeyType(t *testing.T) {
	db := fdblitetest.Open(t)
	s := hashOnly.clone()
	s.AttributeDefinitions = append(s.AttributeDefinitions, AttributeDefinition{"g", ScalarAttributeTypeN})
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}
	tbl := newTestTable(t, db, s)
	if _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("a"), "g": S("not a number")}}); !errors.Is(err, ErrValidation) {
		t.Errorf("Put(g: S) = %v, want ErrValidation", err)
	}
	mustPut(t, db, tbl, Item{"pk": S("a"), "g": N("1")})
	mustPut(t, db, tbl, Item{"pk": S("b")}) // absent index key: not indexed, fine
	_, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("a")}, UpdateExpression: "SET g = :s", ExpressionAttributeValues: map[string]Value{":s": S("x")}})
	if !errors.Is(err, ErrValidation) {
		t.Errorf("Update(g = S) = %v, want ErrValidation", err)
	}
}
