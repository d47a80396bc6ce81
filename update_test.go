package fdyno

import (
	"errors"
	"strings"
	"testing"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// Update expressions of the developer guide's "Update expressions" page,
// applied one after another to the ProductCatalog item, with the results
// the guide shows.
func TestUpdateGuideSequence(t *testing.T) {
	db, tbl := openTestTable(t, productSchema)
	mustPut(t, db, tbl, productCatalogItem())
	key := Item{"Id": N("123")}
	steps := []struct {
		name   string
		in     UpdateInput
		want   Item // the returned Attributes
		check  string
		checkV Value
	}{
		{"SET decrement with UPDATED_NEW",
			UpdateInput{UpdateExpression: "SET Price = Price - :p", ExpressionAttributeValues: map[string]Value{":p": N("15")}, ReturnValues: ReturnValueUpdatedNew},
			Item{"Price": N("485")}, "Price", N("485")},
		{"SET increment with UPDATED_OLD",
			UpdateInput{UpdateExpression: "SET Price = Price + :p", ExpressionAttributeValues: map[string]Value{":p": N("5")}, ReturnValues: ReturnValueUpdatedOld},
			Item{"Price": N("485")}, "Price", N("490")},
		{"list_append to a nested list",
			UpdateInput{UpdateExpression: "SET #pr.FiveStar = list_append(#pr.FiveStar, :r)", ExpressionAttributeNames: map[string]string{"#pr": "ProductReviews"},
				ExpressionAttributeValues: map[string]Value{":r": L(S("Very happy with my purchase"))}, ReturnValues: ReturnValueUpdatedNew},
			Item{"ProductReviews": M(Item{"FiveStar": L(S("Excellent! Can't recommend it highly enough! Buy it!"), S("Do yourself a favor and buy this."), S("Very happy with my purchase"))})},
			"", Value{}},
		{"if_not_exists keeps an existing value",
			UpdateInput{UpdateExpression: "SET Price = if_not_exists(Price, :p)", ExpressionAttributeValues: map[string]Value{":p": N("100")}},
			nil, "Price", N("490")},
		{"SET a list element past the end appends",
			UpdateInput{UpdateExpression: "SET RelatedItems[9] = :ri", ExpressionAttributeValues: map[string]Value{":ri": N("999")}},
			nil, "RelatedItems", L(N("341"), N("472"), N("649"), N("999"))},
		{"REMOVE attributes and a list element",
			UpdateInput{UpdateExpression: "REMOVE #c, RelatedItems[1]", ExpressionAttributeNames: map[string]string{"#c": "Comment"}, ReturnValues: ReturnValueUpdatedOld},
			Item{"Comment": S("This product sells out quickly during the summer"), "RelatedItems": L(N("472"))}, "RelatedItems", L(N("341"), N("649"), N("999"))},
		{"ADD to a number",
			UpdateInput{UpdateExpression: "ADD QuantityOnHand :q", ExpressionAttributeValues: map[string]Value{":q": N("5")}, ReturnValues: ReturnValueUpdatedNew},
			Item{"QuantityOnHand": N("5")}, "QuantityOnHand", N("5")},
		{"ADD to a set",
			UpdateInput{UpdateExpression: "ADD Color :c", ExpressionAttributeValues: map[string]Value{":c": SS("Orange", "Purple")}},
			nil, "Color", SS("Black", "Orange", "Purple", "Red")},
		{"DELETE from a set",
			UpdateInput{UpdateExpression: "DELETE Color :p", ExpressionAttributeValues: map[string]Value{":p": SS("Yellow", "Purple")}},
			nil, "Color", SS("Black", "Orange", "Red")},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.in.Key = key
			out, err := tbl.Update(db, s.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.want, out.Attributes, itemCmp); diff != "" {
				t.Errorf("Attributes mismatch (-want +got):\n%s", diff)
			}
			if s.check != "" {
				got := mustGet(t, db, tbl, key)[s.check]
				if !got.Equal(s.checkV) {
					t.Errorf("%s = %v, want %v", s.check, got, s.checkV)
				}
			}
		})
	}
}

func TestUpdateReturnValues(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	old := Item{"pk": S("k"), "a": N("1"), "b": S("x")}
	in := UpdateInput{Key: Item{"pk": S("k")}, UpdateExpression: "SET a = :two", ExpressionAttributeValues: map[string]Value{":two": N("2")}}
	want := map[ReturnValue]Item{
		"":                    nil,
		ReturnValueNone:       nil,
		ReturnValueAllOld:     old,
		ReturnValueAllNew:     {"pk": S("k"), "a": N("2"), "b": S("x")},
		ReturnValueUpdatedOld: {"a": N("1")},
		ReturnValueUpdatedNew: {"a": N("2")},
	}
	for rv, w := range want {
		t.Run(string(rv), func(t *testing.T) {
			mustPut(t, db, tbl, old)
			in.ReturnValues = rv
			out, err := tbl.Update(db, in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, out.Attributes, itemCmp); diff != "" {
				t.Errorf("Attributes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// UpdateItem "Edits an existing item's attributes, or adds a new item to
// the table if it does not already exist" (API_UpdateItem).
func TestUpdateCreatesItem(t *testing.T) {
	db, tbl := openTestTable(t, hashRange)
	key := Item{"pk": S("new"), "sk": N("7")}
	out, err := tbl.Update(db, UpdateInput{Key: key, UpdateExpression: "SET n = :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}, ReturnValues: ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	if out.Attributes != nil {
		t.Errorf("ALL_OLD of a created item = %v, want nil", out.Attributes)
	}
	want := Item{"pk": S("new"), "sk": N("7"), "n": N("1")}
	if diff := cmp.Diff(want, mustGet(t, db, tbl, key), itemCmp); diff != "" {
		t.Errorf("created item mismatch (-want +got):\n%s", diff)
	}
	// Without an UpdateExpression, the item is created from its key.
	key2 := Item{"pk": S("bare"), "sk": N("1")}
	if _, err := tbl.Update(db, UpdateInput{Key: key2}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(key2, mustGet(t, db, tbl, key2), itemCmp); diff != "" {
		t.Errorf("bare update mismatch (-want +got):\n%s", diff)
	}
}

func TestUpdateCondition(t *testing.T) {
	db, tbl := openTestTable(t, productSchema)
	mustPut(t, db, tbl, productCatalogItem())
	// The developer guide's conditional update: reduce the price only if
	// it is above 500 (it is 500, so the condition fails).
	in := UpdateInput{
		Key:                                 Item{"Id": N("123")},
		UpdateExpression:                    "SET Price = Price - :discount",
		ConditionExpression:                 "Price > :limit",
		ExpressionAttributeValues:           map[string]Value{":discount": N("75"), ":limit": N("500")},
		ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailureAllOld,
	}
	_, err := tbl.Update(db, in)
	var ccf *ConditionalCheckFailedError
	if !errors.As(err, &ccf) {
		t.Fatalf("Update() = %v, want ConditionalCheckFailedError", err)
	}
	if diff := cmp.Diff(productCatalogItem(), ccf.Item, itemCmp); diff != "" {
		t.Errorf("ConditionalCheckFailedError.Item mismatch (-want +got):\n%s", diff)
	}
	in.ExpressionAttributeValues[":limit"] = N("400")
	if _, err := tbl.Update(db, in); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, db, tbl, Item{"Id": N("123")})["Price"]; !got.Equal(N("425")) {
		t.Errorf("Price = %v, want 425", got)
	}
	// On an absent item, attribute_exists fails and nothing is created.
	_, err = tbl.Update(db, UpdateInput{Key: Item{"Id": N("1")}, UpdateExpression: "SET a = :a", ConditionExpression: "attribute_exists(Id)", ExpressionAttributeValues: map[string]Value{":a": N("1")}})
	if !errors.Is(err, ErrConditionalCheckFailed) {
		t.Errorf("Update(absent, attribute_exists) = %v, want ErrConditionalCheckFailed", err)
	}
	if got := mustGet(t, db, tbl, Item{"Id": N("1")}); got != nil {
		t.Errorf("failed update created %v", got)
	}
}

func TestUpdateValidation(t *testing.T) {
	db, tbl := openTestTable(t, hashRange, WithMaxItemSize(200))
	key := Item{"pk": S("a"), "sk": N("1")}
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": N("1"), "n": N("1"), "s": S("str"), "l": L(N("1"))})
	tests := []struct {
		name string
		in   UpdateInput
	}{
		{"extra key attribute", UpdateInput{Key: Item{"pk": S("a"), "sk": N("1"), "x": N("1")}}},
		{"update the hash key", UpdateInput{Key: key, UpdateExpression: "SET pk = :v", ExpressionAttributeValues: values(":v", S("b"))}},
		{"remove the range key", UpdateInput{Key: key, UpdateExpression: "REMOVE sk"}},
		{"overlapping paths", UpdateInput{Key: key, UpdateExpression: "SET a = :v, a.b = :v", ExpressionAttributeValues: values(":v", N("1"))}},
		{"clause twice", UpdateInput{Key: key, UpdateExpression: "SET a = :v SET b = :v", ExpressionAttributeValues: values(":v", N("1"))}},
		{"arithmetic on a string", UpdateInput{Key: key, UpdateExpression: "SET s = s + :v", ExpressionAttributeValues: values(":v", N("1"))}},
		{"ADD to a string", UpdateInput{Key: key, UpdateExpression: "ADD s :v", ExpressionAttributeValues: values(":v", N("1"))}},
		{"DELETE from a number", UpdateInput{Key: key, UpdateExpression: "DELETE n :v", ExpressionAttributeValues: values(":v", NS("1"))}},
		{"list_append of a number", UpdateInput{Key: key, UpdateExpression: "SET l = list_append(l, :v)", ExpressionAttributeValues: values(":v", N("1"))}},
		{"parent missing", UpdateInput{Key: key, UpdateExpression: "SET nope.x = :v", ExpressionAttributeValues: values(":v", N("1"))}},
		{"over the size limit", UpdateInput{Key: key, UpdateExpression: "SET big = :v", ExpressionAttributeValues: values(":v", S(strings.Repeat("x", 300)))}},
		{"ReturnValues bad", UpdateInput{Key: key, ReturnValues: "ALL"}},
		{"unused name", UpdateInput{Key: key, UpdateExpression: "SET a = :v", ExpressionAttributeNames: map[string]string{"#x": "x"}, ExpressionAttributeValues: values(":v", N("1"))}},
	}
	before := mustGet(t, db, tbl, key)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tbl.Update(db, tc.in); !errors.Is(err, ErrValidation) {
				t.Fatalf("Update() = %v, want ErrValidation", err)
			}
		})
	}
	if diff := cmp.Diff(before, mustGet(t, db, tbl, key), itemCmp); diff != "" {
		t.Errorf("rejected updates changed the item (-want +got):\n%s", diff)
	}
}

// An UpdateItem whose actions are only REMOVE and DELETE, on a key with no
// item, creates nothing: API_UpdateItem creates a missing item only to
// give it attributes, and DynamoDB answers ALL_NEW with no attributes.
// Neither index entries nor a stream record appear for an item that does
// not exist. SET and ADD still create the item.
func TestUpdateRemoveOnlyCreatesNothing(t *testing.T) {
	db := fdblitetest.Open(t)
	s := streamSchema(StreamViewTypeNewAndOldImages, 1)
	s.AttributeDefinitions = append(s.AttributeDefinitions, AttributeDefinition{"g", ScalarAttributeTypeS})
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}},
		Projection: Projection{ProjectionType: ProjectionTypeAll}}}
	tbl := newTestTable(t, db, s)
	for i, tc := range []struct {
		expr   string
		values map[string]Value
	}{
		{"REMOVE a", nil},
		{"REMOVE a.b, c[0], g", nil},
		{"DELETE ss :s", map[string]Value{":s": SS("x")}},
		{"REMOVE a DELETE ss :s", map[string]Value{":s": SS("x")}},
	} {
		key := Item{"pk": S("missing"), "sk": NInt(int64(i))}
		for _, rv := range []ReturnValue{ReturnValueAllNew, ReturnValueUpdatedNew, ReturnValueAllOld} {
			out, err := tbl.Update(db, UpdateInput{Key: key, UpdateExpression: tc.expr, ExpressionAttributeValues: tc.values, ReturnValues: rv})
			if err != nil {
				t.Fatalf("Update(%q): %v", tc.expr, err)
			}
			if out.Attributes != nil {
				t.Errorf("Update(%q) %s Attributes = %v, want none", tc.expr, rv, out.Attributes)
			}
		}
		_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Update: &TransactUpdate{Table: tbl, Key: key,
			UpdateExpression: tc.expr, ExpressionAttributeValues: tc.values}}}})
		if err != nil {
			t.Fatalf("TransactWrite update %q: %v", tc.expr, err)
		}
		if got := mustGet(t, db, tbl, key); got != nil {
			t.Errorf("Update(%q) on a missing item created %v", tc.expr, got)
		}
	}
	if recs := readStream(t, db, tbl); len(recs) != 0 {
		t.Errorf("stream has %d records for updates that changed nothing: %+v", len(recs), recs)
	}
	// A SET or ADD beside a REMOVE creates the item.
	key := Item{"pk": S("created"), "sk": N("1")}
	out, err := tbl.Update(db, UpdateInput{Key: key, UpdateExpression: "REMOVE a ADD n :one", ExpressionAttributeValues: map[string]Value{":one": N("1")},
		ReturnValues: ReturnValueAllNew})
	if err != nil {
		t.Fatal(err)
	}
	want := Item{"pk": S("created"), "sk": N("1"), "n": N("1")}
	if diff := cmp.Diff(want, out.Attributes, itemCmp); diff != "" {
		t.Errorf("ALL_NEW mismatch (-want +got):\n%s", diff)
	}
	if recs := readStream(t, db, tbl); len(recs) != 1 || recs[0].EventName != "INSERT" {
		t.Errorf("stream records = %+v, want one INSERT", recs)
	}
}
