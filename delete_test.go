package fdyno

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDelete(t *testing.T) {
	db, tbl := openTestTable(t, productSchema)
	key := Item{"Id": N("123")}
	// Deleting an absent item succeeds and returns nothing.
	out, err := tbl.Delete(db, DeleteInput{Key: key, ReturnValues: ReturnValueAllOld})
	if err != nil || out.Attributes != nil {
		t.Fatalf("Delete(absent) = %v, %v", out, err)
	}
	mustPut(t, db, tbl, productCatalogItem())
	// The developer guide's conditional delete: only if the product is
	// one of some colours and its price is in a range.
	in := DeleteInput{
		Key:                 key,
		ConditionExpression: "(ProductCategory IN (:cat1, :cat2)) and (Price between :lo and :hi)",
		ExpressionAttributeValues: map[string]Value{
			":cat1": S("Sporting Goods"), ":cat2": S("Gardening Supplies"), ":lo": N("500"), ":hi": N("600"),
		},
		ReturnValues: ReturnValueAllOld,
	}
	if _, err := tbl.Delete(db, in); !errors.Is(err, ErrConditionalCheckFailed) {
		t.Fatalf("Delete() = %v, want ErrConditionalCheckFailed (no ProductCategory)", err)
	}
	if mustGet(t, db, tbl, key) == nil {
		t.Fatal("a failed conditional delete deleted the item")
	}
	in.ConditionExpression = "Price between :lo and :hi AND NOT (ProductCategory IN (:cat1, :cat2))"
	out, err = tbl.Delete(db, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(productCatalogItem(), out.Attributes, itemCmp); diff != "" {
		t.Errorf("Delete(ALL_OLD) mismatch (-want +got):\n%s", diff)
	}
	if got := mustGet(t, db, tbl, key); got != nil {
		t.Errorf("item after delete = %v", got)
	}
	for _, bad := range []DeleteInput{
		{Key: Item{"Id": S("123")}},
		{Key: Item{"Id": N("1"), "x": N("1")}},
		{Key: key, ReturnValues: ReturnValueAllNew},
		{Key: key, ConditionExpression: "attribute_exists(#a)"},
	} {
		if _, err := tbl.Delete(db, bad); !errors.Is(err, ErrValidation) {
			t.Errorf("Delete(%+v) = %v, want ErrValidation", bad, err)
		}
	}
}
