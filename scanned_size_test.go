package fdyno

import (
	"strings"
	"testing"
)

// DynamoDB charges a Query or Scan for the items it reads, whole, before
// the filter and the projection ("the amount of data returned ... does
// not change the capacity consumed"): ScannedSize is their summed
// Item.Size, however few attributes or items come back.
func TestScannedSize(t *testing.T) {
	db, tbl := openTestTable(t, hashRange)
	want := 0
	for i := 1; i <= 5; i++ {
		it := Item{"pk": S("p"), "sk": NInt(int64(i)), "payload": S(strings.Repeat("x", 1000*i))}
		mustPut(t, db, tbl, it)
		want += it.Size()
	}
	none := map[string]Value{":p": S("p"), ":no": S("nothing matches")}
	q, err := tbl.Query(db, QueryInput{KeyConditionExpression: "pk = :p", FilterExpression: "payload = :no", ProjectionExpression: "pk",
		ExpressionAttributeValues: none})
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != 0 || q.ScannedCount != 5 || q.ScannedSize != want {
		t.Errorf("Query Count, ScannedCount, ScannedSize = %d, %d, %d, want 0, 5, %d", q.Count, q.ScannedCount, q.ScannedSize, want)
	}
	s, err := tbl.Scan(db, ScanInput{ProjectionExpression: "sk"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Count != 5 || s.ScannedSize != want {
		t.Errorf("Scan Count, ScannedSize = %d, %d, want 5, %d", s.Count, s.ScannedSize, want)
	}
	// A page stopped by Limit counts only what it read.
	q, err = tbl.Query(db, QueryInput{KeyConditionExpression: "pk = :p", Limit: 2, ExpressionAttributeValues: map[string]Value{":p": S("p")}})
	if err != nil {
		t.Fatal(err)
	}
	first2 := Item{"pk": S("p"), "sk": NInt(1), "payload": S(strings.Repeat("x", 1000))}.Size() +
		Item{"pk": S("p"), "sk": NInt(2), "payload": S(strings.Repeat("x", 2000))}.Size()
	if q.ScannedSize != first2 {
		t.Errorf("Query Limit 2 ScannedSize = %d, want %d", q.ScannedSize, first2)
	}
}
