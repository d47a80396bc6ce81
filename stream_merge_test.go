package fdyno

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// TestFeed: the merged feed of several tables (with different shard
// counts) lists every record once, in commit order, with records of one
// transaction in feed-table order and then transaction order; pages and
// tails resume from feed cursors; another feed's cursor is refused.
func TestFeed(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	a := mustOpen(t, db, "Alpha", root, WithSchema(streamSchema(StreamViewTypeKeysOnly, 1)))
	b := mustOpen(t, db, "Beta", root, WithSchema(streamSchema(StreamViewTypeKeysOnly, 3)))
	feed, err := NewFeed(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	put := func(tbl *Table, pk string) {
		mustPut(t, db, tbl, Item{"pk": S(pk), "sk": N("0")})
		want = append(want, tbl.Name()+"/"+pk)
	}
	for i := range 6 {
		put(a, "a"+strconv.Itoa(i))
		put(b, "b"+strconv.Itoa(i))
		put(b, "c"+strconv.Itoa(i))
	}
	// One transaction writing Beta, then Alpha, then Beta.
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		for _, w := range []struct {
			tbl *Table
			pk  string
		}{{b, "t1"}, {a, "t2"}, {b, "t3"}} {
			if _, err := w.tbl.Put(tr, PutInput{Item: Item{"pk": S(w.pk), "sk": N("0")}}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, "Alpha/t2", "Beta/t1", "Beta/t3")
	put(a, "last")
	names := func(recs []FeedRecord) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r.TableName+"/"+r.Keys["pk"].S())
		}
		return out
	}
	var all []FeedRecord
	for r, err := range feed.Records(context.Background(), db, nil) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	if diff := cmp.Diff(want, names(all)); diff != "" {
		t.Fatalf("feed order mismatch (-want +got):\n%s", diff)
	}
	for _, limit := range []int{1, 4, 1000} {
		var got []FeedRecord
		var cursor []byte
		for {
			out, err := feed.GetRecords(db, FeedInput{ExclusiveStartCursor: cursor, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			got, cursor = append(got, out.Records...), out.LastEvaluatedCursor
			if !out.More {
				break
			}
		}
		if diff := cmp.Diff(want, names(got)); diff != "" {
			t.Errorf("limit %d: paged feed mismatch (-want +got):\n%s", limit, diff)
		}
	}
	// A tail resumed between the two Beta records of the transaction.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	i := len(all) - 3
	for r, err := range feed.Tail(ctx, db, all[i-1].Cursor) {
		if err != nil {
			t.Fatal(err)
		}
		if got := r.TableName + "/" + r.Keys["pk"].S(); got != want[i] {
			t.Fatalf("tail record %d = %s, want %s", i, got, want[i])
		}
		if i++; i == len(want) {
			break
		}
	}
	other, _ := NewFeed(b, a)
	if _, err := other.GetRecords(db, FeedInput{ExclusiveStartCursor: all[0].Cursor}); !errors.Is(err, ErrValidation) {
		t.Errorf("another feed's cursor: %v, want ErrValidation", err)
	}
	for _, tables := range [][]*Table{nil, {a, a}} {
		if _, err := NewFeed(tables...); !errors.Is(err, ErrValidation) {
			t.Errorf("NewFeed(%d tables) = %v, want ErrValidation", len(tables), err)
		}
	}
}
