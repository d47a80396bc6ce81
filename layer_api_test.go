package fdyno

import (
	"bytes"
	"errors"
	"testing"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// KeyAttributes reports the key schema the table was created with, of the
// table and of each index, and no index that does not exist.
func TestKeyAttributes(t *testing.T) {
	db := fdblitetest.Open(t)
	s := hashRange
	s.AttributeDefinitions = append(s.AttributeDefinitions[:2:2], AttributeDefinition{"g", ScalarAttributeTypeB}, AttributeDefinition{"l", ScalarAttributeTypeS})
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}}
	s.LocalSecondaryIndexes = []LocalSecondaryIndex{{IndexName: "byL", KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"l", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}
	tbl := newTestTable(t, db, s)
	tests := []struct {
		index      string
		hash, sort AttributeDefinition
		ok         bool
	}{
		{"", AttributeDefinition{"pk", ScalarAttributeTypeS}, AttributeDefinition{"sk", ScalarAttributeTypeN}, true},
		{"byG", AttributeDefinition{"g", ScalarAttributeTypeB}, AttributeDefinition{}, true},
		{"byL", AttributeDefinition{"pk", ScalarAttributeTypeS}, AttributeDefinition{"l", ScalarAttributeTypeS}, true},
		{"nope", AttributeDefinition{}, AttributeDefinition{}, false},
	}
	for _, tc := range tests {
		hash, sort, ok := tbl.KeyAttributes(tc.index)
		if diff := cmp.Diff([]any{tc.hash, tc.sort, tc.ok}, []any{hash, sort, ok}); diff != "" {
			t.Errorf("KeyAttributes(%q) (-want +got):\n%s", tc.index, diff)
		}
	}
}

// TokenKey is a 32-byte secret of the table: the same from every handle,
// different for another purpose or another table, and never the key of
// the table's own cursors.
func TestTokenKey(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	a := mustOpen(t, db, "TableA", root, WithSchema(hashRange))
	a2 := mustOpen(t, db, "TableA", root)
	b := mustOpen(t, db, "TableB", root, WithSchema(hashRange))
	k := a.TokenKey("x")
	if len(k) != 32 {
		t.Fatalf("TokenKey: %d bytes, want 32", len(k))
	}
	if !bytes.Equal(k, a2.TokenKey("x")) {
		t.Error("two handles of one table give different keys")
	}
	for name, other := range map[string][]byte{"another purpose": a.TokenKey("y"), "another table": b.TokenKey("x"),
		"the cursor key": a.state.Load().cursorKey} {
		if bytes.Equal(k, other) {
			t.Errorf("TokenKey equals the key of %s", name)
		}
	}
}

// ParseFilter decides as a Query's FilterExpression does, and refuses
// what a Query refuses with the same error.
func TestParseFilter(t *testing.T) {
	db, tbl := openTestTable(t, hashRange)
	items := []Item{
		{"pk": S("p"), "sk": N("1"), "a": N("5"), "tags": SS("x", "y")},
		{"pk": S("p"), "sk": N("2"), "a": N("50")},
		{"pk": S("p"), "sk": N("3"), "a": S("five")},
		{"pk": S("p"), "sk": N("4")},
	}
	for _, it := range items {
		if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	query := func(filter string, names map[string]string, values map[string]Value) ([]Item, error) {
		v := map[string]Value{":pk": S("p")}
		for k, x := range values {
			v[k] = x
		}
		out, err := tbl.Query(db, QueryInput{KeyConditionExpression: "pk = :pk", FilterExpression: filter,
			ExpressionAttributeNames: names, ExpressionAttributeValues: v})
		if err != nil {
			return nil, err
		}
		return out.Items, nil
	}
	for _, tc := range []struct {
		filter string
		names  map[string]string
		values map[string]Value
	}{
		{"a > :v", nil, map[string]Value{":v": N("10")}},
		{"#a < :v OR contains(tags, :t)", map[string]string{"#a": "a"}, map[string]Value{":v": N("10"), ":t": S("y")}},
		{"attribute_not_exists(a) OR attribute_type(a, :s)", nil, map[string]Value{":s": S("S")}},
		{"NOT (a BETWEEN :lo AND :hi)", nil, map[string]Value{":lo": N("1"), ":hi": N("9")}},
	} {
		want, err := query(tc.filter, tc.names, tc.values)
		if err != nil {
			t.Fatalf("Query with FilterExpression %q: %v", tc.filter, err)
		}
		f, err := ParseFilter(tc.filter, tc.names, tc.values)
		if err != nil {
			t.Fatalf("ParseFilter(%q): %v", tc.filter, err)
		}
		var got []Item
		for _, it := range items {
			if f.Match(it) {
				got = append(got, it)
			}
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b Value) bool { return a.Equal(b) })); diff != "" {
			t.Errorf("%q: (-query +filter):\n%s", tc.filter, diff)
		}
	}
	for _, tc := range []struct {
		filter string
		values map[string]Value
	}{
		{"a >", nil},
		{"a > :v", nil}, // undefined value
		{"a > :v", map[string]Value{":v": N("1"), ":w": N("2")}}, // unused value
		{"contains(a) AND a > :v", map[string]Value{":v": N("1")}},
	} {
		_, qerr := query(tc.filter, nil, tc.values)
		_, ferr := ParseFilter(tc.filter, nil, tc.values)
		var qv, fv *ValidationError
		if !errors.As(qerr, &qv) || !errors.As(ferr, &fv) {
			if (qerr == nil) != (ferr == nil) {
				t.Errorf("%q: Query: %v; ParseFilter: %v", tc.filter, qerr, ferr)
			}
			continue
		}
		if qv.Reason != fv.Reason {
			t.Errorf("%q: ParseFilter's reason %q, Query's %q", tc.filter, fv.Reason, qv.Reason)
		}
	}
}
