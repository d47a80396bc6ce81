package fdyno

import (
	"maps"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// countEncodings runs f and returns how many times an item equal to it
// was encoded meanwhile (encodeHook).
func countEncodings(t *testing.T, it Item, f func() error) int {
	t.Helper()
	var n atomic.Int64
	hook := func(enc Item) {
		if enc.Equal(it) {
			n.Add(1)
		}
	}
	encodeHook.Store(&hook)
	err := f()
	encodeHook.Store(nil)
	if err != nil {
		t.Fatal(err)
	}
	return int(n.Load())
}

// TestWriteEncodesOnce: a write encodes its new item once, whatever
// needs the encoding: the head or the chunks, the entry of an index
// projecting ALL, and the change record's new image; and a write that
// replaces or deletes an item reuses the encoding it read of the old one
// for an old image. The tables have a GSI projecting ALL, one projecting
// KEYS_ONLY and a stream with both images (or the old only).
func TestWriteEncodesOnce(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	schema := func(view StreamViewType) TableSchema {
		s := hashRange.clone()
		s.AttributeDefinitions = append(s.AttributeDefinitions, AttributeDefinition{"g", ScalarAttributeTypeS})
		s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{
			{IndexName: "all", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}},
			{IndexName: "keys", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}, {"sk", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
		}
		s.StreamViewType = view
		return s
	}
	open := func(name string, view StreamViewType) *Table {
		tbl := mustOpen(t, db, name, root, WithSchema(schema(view)), WithChunkThreshold(1000))
		t.Cleanup(func() { checkTable(t, db, tbl) })
		return tbl
	}
	both, old := open("Both", StreamViewTypeNewAndOldImages), open("Old", StreamViewTypeOldImage)
	item := func(sk, a string) Item { return Item{"pk": S("p"), "sk": N(sk), "g": S("g"), "a": S(a)} }
	big := strings.Repeat("x", 5000) // chunked: over the threshold
	updated := func(it Item) Item {
		u := maps.Clone(it)
		u["n"] = N("1")
		return u
	}

	for _, tc := range []struct {
		name string
		new  Item
		run  func() error
	}{
		{"Put inserts", item("1", "a"), func() error {
			_, err := both.Put(db, PutInput{Item: item("1", "a")})
			return err
		}},
		{"Put replaces a chunked item", item("1", big), func() error {
			_, err := both.Put(db, PutInput{Item: item("1", big), ReturnValues: ReturnValueAllOld})
			return err
		}},
		{"Update", updated(item("1", big)), func() error {
			_, err := both.Update(db, UpdateInput{Key: Item{"pk": S("p"), "sk": N("1")}, UpdateExpression: "SET n = :one",
				ExpressionAttributeValues: map[string]Value{":one": N("1")}, ReturnValues: ReturnValueAllNew})
			return err
		}},
		{"TransactWrite put with a token", item("2", "b"), func() error {
			_, err := TransactWrite(db, TransactWriteInput{ClientRequestToken: "tok", TransactItems: []TransactWriteItem{
				{Put: &TransactPut{Table: both, Item: item("2", "b"), ConditionExpression: "attribute_not_exists(pk)"}}}})
			return err
		}},
		{"TransactWrite update", updated(item("2", "b")), func() error {
			_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
				{Update: &TransactUpdate{Table: both, Key: Item{"pk": S("p"), "sk": N("2")}, UpdateExpression: "SET n = :one",
					ExpressionAttributeValues: map[string]Value{":one": N("1")}}}}})
			return err
		}},
		{"BatchWrite put", item("3", big), func() error {
			_, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{both: {{PutRequest: &PutRequest{Item: item("3", big)}}}}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n := countEncodings(t, tc.new, tc.run); n != 1 {
				t.Errorf("the new item was encoded %d times, want 1", n)
			}
		})
	}

	// Old images: the old item as read is never encoded again.
	for _, tc := range []struct {
		name string
		run  func(key Item) error
	}{
		{"Put", func(key Item) error {
			_, err := old.Put(db, PutInput{Item: item(key["sk"].N(), "new")})
			return err
		}},
		{"Delete", func(key Item) error {
			_, err := old.Delete(db, DeleteInput{Key: key, ReturnValues: ReturnValueAllOld})
			return err
		}},
		{"TransactWrite delete", func(key Item) error {
			_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Table: old, Key: key}}}})
			return err
		}},
		{"BatchWrite delete", func(key Item) error {
			_, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{old: {{DeleteRequest: &DeleteRequest{Key: key}}}}})
			return err
		}},
	} {
		for _, a := range []string{"small", big} {
			t.Run(tc.name+"/"+a[:1], func(t *testing.T) {
				it := item("9", a)
				mustPut(t, db, old, it)
				key := Item{"pk": it["pk"], "sk": it["sk"]}
				if n := countEncodings(t, it, func() error { return tc.run(key) }); n != 0 {
					t.Errorf("the old item was encoded %d times, want 0", n)
				}
			})
		}
	}

	// The hook sees encodings at all: a record with both images of a
	// replaced item holds its changed attributes, which are encoded.
	mustPut(t, db, both, item("5", "before"))
	if n := countEncodings(t, Item{"a": S("before")}, func() error {
		_, err := both.Put(db, PutInput{Item: item("5", "after")})
		return err
	}); n != 1 {
		t.Errorf("the old image's delta was encoded %d times, want 1", n)
	}
}
