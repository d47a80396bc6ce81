package fdyno

import (
	"errors"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// The ProductCatalog item of the developer guide's expression chapter.
func productCatalogItem() Item {
	return Item{
		"Id":           N("123"),
		"Title":        S("Bicycle 123"),
		"Description":  S("123 description"),
		"Price":        N("500"),
		"Color":        SS("Red", "Black"),
		"RelatedItems": L(N("341"), N("472"), N("649")),
		"ProductReviews": M(Item{
			"FiveStar": L(S("Excellent! Can't recommend it highly enough! Buy it!"), S("Do yourself a favor and buy this.")),
			"OneStar":  L(S("Terrible product! Do not buy this.")),
		}),
		"Comment":        S("This product sells out quickly during the summer"),
		"Safety.Warning": S("Always wear a helmet"),
	}
}

var productSchema = TableSchema{
	KeySchema:            []KeySchemaElement{{"Id", KeyTypeHash}},
	AttributeDefinitions: []AttributeDefinition{{"Id", ScalarAttributeTypeN}},
}

func TestGetProjection(t *testing.T) {
	db, tbl := openTestTable(t, productSchema)
	mustPut(t, db, tbl, productCatalogItem())
	key := Item{"Id": N("123")}
	// Expected results follow the developer guide's "Projection
	// expressions" page: a list index returns a list of that element, a
	// nested path returns its enclosing maps, and a name with a dot needs
	// a placeholder.
	tests := []struct {
		name string
		in   GetInput
		want Item
	}{
		{"whole item", GetInput{Key: key}, productCatalogItem()},
		{"top-level attributes", GetInput{Key: key, ProjectionExpression: "Description, RelatedItems[0], ProductReviews.FiveStar"},
			Item{
				"Description":    S("123 description"),
				"RelatedItems":   L(N("341")),
				"ProductReviews": M(Item{"FiveStar": L(S("Excellent! Can't recommend it highly enough! Buy it!"), S("Do yourself a favor and buy this."))}),
			}},
		{"dotted name via placeholder", GetInput{Key: key, ProjectionExpression: "#sw", ExpressionAttributeNames: map[string]string{"#sw": "Safety.Warning"}},
			Item{"Safety.Warning": S("Always wear a helmet")}},
		{"missing attribute", GetInput{Key: key, ProjectionExpression: "NoSuchThing"}, Item{}},
		{"ConsistentRead", GetInput{Key: key, ProjectionExpression: "Price", ConsistentRead: true}, Item{"Price": N("500")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tbl.Get(db, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.Item, itemCmp); diff != "" {
				t.Errorf("Get() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	out, err := tbl.Get(db, GetInput{Key: Item{"Id": N("999")}})
	if err != nil || out.Item != nil {
		t.Errorf("Get(absent) = %v, %v; want nil item", out.Item, err)
	}
}

func TestGetValidation(t *testing.T) {
	db, tbl := openTestTable(t, hashRange)
	tests := []struct {
		name string
		in   GetInput
	}{
		{"no key", GetInput{}},
		{"missing range key", GetInput{Key: Item{"pk": S("a")}}},
		{"extra attribute in key", GetInput{Key: Item{"pk": S("a"), "sk": N("1"), "x": S("y")}}},
		{"wrong type", GetInput{Key: Item{"pk": S("a"), "sk": S("1")}}},
		{"unused name", GetInput{Key: Item{"pk": S("a"), "sk": N("1")}, ProjectionExpression: "a", ExpressionAttributeNames: map[string]string{"#b": "b"}}},
		{"overlapping paths", GetInput{Key: Item{"pk": S("a"), "sk": N("1")}, ProjectionExpression: "a, a.b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tbl.Get(db, tc.in); !errors.Is(err, ErrValidation) {
				t.Errorf("Get() = %v, want ErrValidation", err)
			}
		})
	}
}

// Reads take a ReadTransactor: a snapshot of the caller's transaction
// works, and sees the transaction's own writes.
func TestGetSnapshot(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("s"), "v": N("1")}}); err != nil {
			return nil, err
		}
		out, err := tbl.Get(tr.Snapshot(), GetInput{Key: Item{"pk": S("s")}})
		if err != nil {
			return nil, err
		}
		if out.Item == nil {
			t.Errorf("snapshot Get did not see its transaction's put")
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Get skips the schema check when it finds the item (Table.read), so these
// cases pin down that a stale handle still never answers from a dead table:
// a table recreated under the same name is read through its new directory,
// a deletion inside the caller's own transaction is seen by a Get in it,
// and a read at a version before a recreation sees the table as it was.
func TestGetThroughStaleHandle(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	stale := mustOpen(t, db, "T02", root, WithSchema(hashOnly))
	key := Item{"pk": S("k")}
	if _, err := stale.Put(db, PutInput{Item: Item{"pk": S("k"), "v": S("old")}}); err != nil {
		t.Fatal(err)
	}
	// A transaction whose read version predates the recreation.
	before, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := before.GetReadVersion().Get(); err != nil {
		t.Fatal(err)
	}

	if err := DeleteTable(db, "T02", root); err != nil {
		t.Fatal(err)
	}
	fresh := mustOpen(t, db, "T02", root, WithSchema(hashOnly))
	if _, err := fresh.Put(db, PutInput{Item: Item{"pk": S("k"), "v": S("new")}}); err != nil {
		t.Fatal(err)
	}
	out, err := stale.Get(db, GetInput{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Item{"pk": S("k"), "v": S("new")}, out.Item); diff != "" {
		t.Errorf("Get through a handle cached before the recreation (-want +got):\n%s", diff)
	}
	// stale now caches the new table; the old read version still sees the
	// old one.
	out, err = stale.Get(before, GetInput{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Item{"pk": S("k"), "v": S("old")}, out.Item); diff != "" {
		t.Errorf("Get at a read version before the recreation (-want +got):\n%s", diff)
	}
	before.Cancel()

	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		if err := DeleteTable(tr, "T02", root); err != nil {
			return nil, err
		}
		_, err := stale.Get(tr, GetInput{Key: key})
		if !errors.Is(err, ErrResourceNotFound) {
			t.Errorf("Get after DeleteTable in the same transaction = %v, want ErrResourceNotFound", err)
		}
		tr.Cancel()
		return nil, nil
	})
	if err != nil && !errors.As(err, new(fdb.Error)) {
		t.Fatal(err)
	}
}
