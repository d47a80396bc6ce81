package fdyno

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// Round-trip budgets. On a FoundationDB cluster an operation's latency is
// its network round trips: getting a read version (rv), each wave of reads
// in flight together, and the commit. fdblite counts them
// (fdblitetest.CountRoundTrips), so every operation's budget is asserted
// here with counts, never timings. The budgets are what the operation
// cannot do without:
//
//   - a read needs a read version and one wave for all it reads (a chunked
//     item's chunks are named by its head: one more wave);
//   - a write that decides nothing from the stored item (no condition, no
//     index entries, change record or counters (counts.go) to derive from
//     the old item, no old values to return) needs no read: read version +
//     commit;
//   - anything else reads the old items in one wave first.
//
// `\xff/metadataVersion`, which every operation checks, comes with the
// read version and costs no wave.

// rt is a budget: read versions, read waves, commits.
func rt(rv, waves, commits int64) fdblitetest.RoundTrips {
	return fdblitetest.RoundTrips{ReadVersions: rv, ReadWaves: waves, Commits: commits}
}

// budgetFixture holds the tables the budget tests run on, on a database of
// their own (round trips are counted per database).
type budgetFixture struct {
	db                          fdb.Database
	plain, gsi, stream, sharded *Table
	blind                       *Table // plain, created WithoutCounts
	counting                    *Table // plain, its counting pass under way (counts_build.go)
	big                         string // an attribute value that makes an item chunked
	// streamAfter is the sequence number of the stream's chunked record:
	// after it come small records only.
	streamAfter string
}

func newBudgetFixture(t *testing.T) *budgetFixture {
	t.Helper()
	db := fdblitetest.OpenIsolated(t)
	f := &budgetFixture{db: db, big: strings.Repeat("x", 50_000)}
	f.plain = newTestTable(t, db, hashRange)
	gsi := hashRange
	gsi.AttributeDefinitions = append(gsi.AttributeDefinitions[:2:2], AttributeDefinition{"g", ScalarAttributeTypeS})
	gsi.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}},
		// A multi-attribute key (index_keys.go): partition g and pk, sort sk.
		{IndexName: "byGP", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}, {"pk", KeyTypeHash}, {"sk", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}}
	blind := hashRange
	blind.WithoutCounts = true
	var err error
	if f.blind, err = Open(db, "WithoutCounts", testRoot(t, db), WithSchema(blind)); err != nil {
		t.Fatal(err)
	}
	if f.gsi, err = Open(db, "WithIndex", testRoot(t, db), WithSchema(gsi)); err != nil {
		t.Fatal(err)
	}
	stream := hashRange
	stream.StreamViewType = StreamViewTypeNewAndOldImages
	if f.stream, err = Open(db, "WithStream", testRoot(t, db), WithSchema(stream)); err != nil {
		t.Fatal(err)
	}
	stream.StreamShards = 4
	if f.sharded, err = Open(db, "WithShardedStream", testRoot(t, db), WithSchema(stream)); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if _, err := f.sharded.Put(db, PutInput{Item: Item{"pk": S(fmt.Sprint("p", i)), "sk": N("1")}}); err != nil {
			t.Fatal(err)
		}
	}
	// Items: a small one and a chunked one in each table.
	for _, tbl := range []*Table{f.plain, f.gsi, f.stream, f.blind} {
		for _, it := range []Item{
			{"pk": S("p"), "sk": N("1"), "a": S("small"), "g": S("g1")},
			{"pk": S("p"), "sk": N("2"), "a": S(f.big), "g": S("g1")},
		} {
			if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
				t.Fatal(err)
			}
		}
	}
	recs, err := f.stream.GetRecords(db, GetRecordsInput{})
	if err != nil || len(recs.Records) != 2 {
		t.Fatalf("GetRecords: %v, %v", recs, err)
	}
	f.streamAfter = recs.Records[1].SequenceNumber
	// Small items: inline in the GSI, small records in the stream.
	for _, tbl := range []*Table{f.gsi, f.stream} {
		for _, sk := range []string{"7", "8"} {
			if _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("p"), "sk": N(sk), "a": S("small"), "g": S("gs")}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A partition of 300 items of about 130 bytes: one page, under the
	// 80 KB FoundationDB sends in one batch.
	var many []WriteRequest
	for i := range 300 {
		many = append(many, WriteRequest{PutRequest: &PutRequest{Item: Item{"pk": S("many"), "sk": N(fmt.Sprint(i)), "a": S(strings.Repeat("m", 100))}}})
	}
	if err := BatchWriteAll(context.Background(), db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{f.plain: many}}); err != nil {
		t.Fatal(err)
	}
	// A table created before counters, its counting pass started and one
	// batch done: p/1 is passed, p/5 and after are not.
	if f.counting, err = Open(db, "Counting", testRoot(t, db), WithSchema(hashRange)); err != nil {
		t.Fatal(err)
	}
	makeLegacy(t, db, f.counting)
	for _, sk := range []string{"1", "5", "6"} {
		if _, err := f.counting.Put(db, PutInput{Item: Item{"pk": S("p"), "sk": N(sk)}}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := countsStep(db, f.counting, 1); err != nil {
			t.Fatal(err)
		}
	}
	// Those changed the metadata version: every handle loads its table's
	// state again now, not in a budget.
	for _, tbl := range []*Table{f.plain, f.gsi, f.stream, f.sharded, f.blind, f.counting} {
		if _, err := tbl.Get(db, GetInput{Key: Item{"pk": S("none"), "sk": N("0")}}); err != nil {
			t.Fatal(err)
		}
	}
	// The first TransactWrite with a ClientRequestToken opens the root
	// directory (a read per path element) and caches it with the table's
	// state; the budgets are those of the later ones.
	if _, err := TransactWrite(db, TransactWriteInput{ClientRequestToken: "warm-up", TransactItems: []TransactWriteItem{{ConditionCheck: &ConditionCheck{Table: f.plain, Key: Item{"pk": S("p"), "sk": N("1")}, ConditionExpression: "attribute_exists(pk)"}}}}); err != nil {
		t.Fatal(err)
	}
	return f
}

// count returns the round trips of fn on f's database.
func (f *budgetFixture) count(t *testing.T, fn func() error) fdblitetest.RoundTrips {
	t.Helper()
	got, err := fdblitetest.CountRoundTrips(f.db, fn)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// ignore drops an operation's result.
func ignore[T any](_ T, err error) error { return err }

func TestRoundTripBudgets(t *testing.T) {
	f := newBudgetFixture(t)
	db := f.db
	key := func(sk string) Item { return Item{"pk": S("p"), "sk": N(sk)} }
	item := func(sk, a string) Item { return Item{"pk": S("p"), "sk": N(sk), "a": S(a), "g": S("g2")} }
	tests := []struct {
		name string
		fn   func() error
		want fdblitetest.RoundTrips
	}{
		// Reads.
		{"Get", func() error { return ignore(f.plain.Get(db, GetInput{Key: key("1")})) }, rt(1, 1, 0)},
		{"Get missing item", func() error { return ignore(f.plain.Get(db, GetInput{Key: key("9")})) }, rt(1, 1, 0)},
		{"Get chunked item", func() error { return ignore(f.plain.Get(db, GetInput{Key: key("2")})) }, rt(1, 2, 0)},
		{"BatchGet 2 keys", func() error {
			return ignore(BatchGet(db, BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{f.plain: {Keys: []Item{key("1"), key("9")}}}}))
		}, rt(1, 1, 0)},
		{"BatchGet 100 keys in 3 tables", func() error {
			keys := func(n int) []Item {
				var ks []Item
				for i := range n {
					ks = append(ks, Item{"pk": S("p"), "sk": N(fmt.Sprint(100 + i))})
				}
				return ks
			}
			return ignore(BatchGet(db, BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{
				f.plain: {Keys: append(keys(40), key("1"))}, f.gsi: {Keys: keys(30)}, f.stream: {Keys: keys(29)},
			}}))
		}, rt(1, 1, 0)},
		{"BatchGet with chunked items", func() error {
			return ignore(BatchGet(db, BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{
				f.plain: {Keys: []Item{key("1"), key("2")}}, f.gsi: {Keys: []Item{key("2")}},
			}}))
		}, rt(1, 2, 0)},
		{"TransactGet", func() error {
			return ignore(TransactGet(db, TransactGetInput{TransactItems: []TransactGetItem{{Table: f.plain, Key: key("1")}, {Table: f.gsi, Key: key("1")}}}))
		}, rt(1, 1, 0)},
		{"Query page", func() error {
			return ignore(f.plain.Query(db, QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("p")}, Limit: 1}))
		}, rt(1, 1, 0)},
		{"Query page on a GSI", func() error {
			return ignore(f.gsi.Query(db, QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]Value{":g": S("gs")}}))
		}, rt(1, 1, 0)},
		// A multi-attribute key's condition is one range too.
		{"Query page on a GSI with a multi-attribute key", func() error {
			return ignore(f.gsi.Query(db, QueryInput{IndexName: "byGP", KeyConditionExpression: "g = :g AND pk = :p AND sk > :s",
				ExpressionAttributeValues: map[string]Value{":g": S("gs"), ":p": S("p"), ":s": N("7")}}))
		}, rt(1, 1, 0)},
		// An index entry too long to hold its projection refers to the
		// item: the item's key is known only once the entry is read, and a
		// chunked item's chunks once its head is.
		{"Query page on a GSI through a chunked item", func() error {
			return ignore(f.gsi.Query(db, QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]Value{":g": S("g1")}}))
		}, rt(1, 3, 0)},
		{"Query page of 300 items", func() error {
			return ignore(f.plain.Query(db, QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("many")}}))
		}, rt(1, 1, 0)},
		{"Scan page", func() error { return ignore(f.plain.Scan(db, ScanInput{Limit: 1})) }, rt(1, 1, 0)},
		// A QueryBatch has every range read in flight at once, and every
		// chunk of every page in one more wave.
		{"QueryBatch of 20 queries in 2 tables", func() error {
			var qs []QueryBatchInput
			for i := range 20 {
				tbl, pk := f.plain, fmt.Sprint("p", i)
				if i%2 == 1 {
					tbl = f.stream
				}
				if i == 0 {
					pk = "many"
				}
				qs = append(qs, QueryBatchInput{Table: tbl, Input: QueryInput{KeyConditionExpression: "pk = :p AND sk < :s", ExpressionAttributeValues: map[string]Value{":p": S(pk), ":s": N("2")}}})
			}
			return ignore(QueryBatch(db, qs))
		}, rt(1, 1, 0)},
		{"QueryBatch with a GSI page", func() error {
			return ignore(QueryBatch(db, []QueryBatchInput{
				{Table: f.plain, Input: QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("many")}, Limit: 5}},
				{Table: f.gsi, Input: QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]Value{":g": S("gs")}}},
			}))
		}, rt(1, 1, 0)},
		{"QueryBatch with chunked items in 3 pages", func() error {
			q := QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("p")}}
			return ignore(QueryBatch(db, []QueryBatchInput{{Table: f.plain, Input: q}, {Table: f.stream, Input: q}, {Table: f.gsi, Input: q}}))
		}, rt(1, 2, 0)},
		{"GetRecords page", func() error {
			out, err := f.stream.GetRecords(db, GetRecordsInput{ExclusiveStartSequenceNumber: f.streamAfter})
			if err == nil && len(out.Records) != 2 {
				err = fmt.Errorf("GetRecords: %d records, want 2", len(out.Records))
			}
			return err
		}, rt(1, 1, 0)},
		{"GetRecords page, 4 shards", func() error {
			out, err := f.sharded.GetRecords(db, GetRecordsInput{})
			if err == nil && len(out.Records) != 8 {
				err = fmt.Errorf("GetRecords: %d records, want 8", len(out.Records))
			}
			return err
		}, rt(1, 1, 0)},

		{"Describe", func() error { return ignore(f.plain.Describe(db)) }, rt(1, 1, 0)},

		// Writes that read only their own item: the exact counters
		// (counts.go) add the difference from the old item.
		{"Put", func() error { return ignore(f.plain.Put(db, PutInput{Item: item("3", "v")})) }, rt(1, 1, 1)},
		{"Delete", func() error { return ignore(f.plain.Delete(db, DeleteInput{Key: key("3")})) }, rt(1, 1, 1)},

		// While the counting pass runs, a write reads the pass's cursor
		// with its item (counts_build.go), in the same wave.
		{"Put, counting pass under way, key passed", func() error { return ignore(f.counting.Put(db, PutInput{Item: item("1", "v")})) }, rt(1, 1, 1)},
		{"Put, counting pass under way, key not passed", func() error { return ignore(f.counting.Put(db, PutInput{Item: item("5", "v")})) }, rt(1, 1, 1)},
		{"Update, counting pass under way", func() error {
			return ignore(f.counting.Update(db, UpdateInput{Key: key("6"), UpdateExpression: "SET a = :a", ExpressionAttributeValues: map[string]Value{":a": S("u")}}))
		}, rt(1, 1, 1)},
		{"BatchWrite of 10 items, counting pass under way", func() error {
			var reqs []WriteRequest
			for i := range 10 {
				reqs = append(reqs, WriteRequest{PutRequest: &PutRequest{Item: item(fmt.Sprint(i), "b")}})
			}
			return ignore(BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{f.counting: reqs}}))
		}, rt(1, 1, 1)},
		{"TransactWrite of 2 items, counting pass under way", func() error {
			return ignore(TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: f.counting, Item: item("1", "t")}},
				{Delete: &TransactDelete{Table: f.counting, Key: key("5")}}}}))
		}, rt(1, 1, 1)},

		// Writes that read nothing: a table created WithoutCounts.
		{"Put, WithoutCounts", func() error { return ignore(f.blind.Put(db, PutInput{Item: item("3", "v")})) }, rt(1, 0, 1)},
		{"Delete, WithoutCounts", func() error { return ignore(f.blind.Delete(db, DeleteInput{Key: key("3")})) }, rt(1, 0, 1)},
		{"BatchWrite of 10 items, WithoutCounts", func() error {
			var reqs []WriteRequest
			for i := range 10 {
				reqs = append(reqs, WriteRequest{PutRequest: &PutRequest{Item: item(fmt.Sprint(20+i), "b")}})
			}
			return ignore(BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{f.blind: reqs}}))
		}, rt(1, 0, 1)},

		// Writes that read the old item first.
		{"Put with condition", func() error {
			return ignore(f.plain.Put(db, PutInput{Item: item("3", "v"), ConditionExpression: "attribute_not_exists(pk)"}))
		}, rt(1, 1, 1)},
		{"Put returning ALL_OLD", func() error {
			return ignore(f.plain.Put(db, PutInput{Item: item("3", "w"), ReturnValues: ReturnValueAllOld}))
		}, rt(1, 1, 1)},
		{"Put with a GSI", func() error { return ignore(f.gsi.Put(db, PutInput{Item: item("3", "v")})) }, rt(1, 1, 1)},
		{"Put with a stream", func() error { return ignore(f.stream.Put(db, PutInput{Item: item("3", "v")})) }, rt(1, 1, 1)},
		{"Put over a chunked item with a stream", func() error { return ignore(f.stream.Put(db, PutInput{Item: item("2", f.big+"y")})) }, rt(1, 2, 1)},
		{"Update", func() error {
			return ignore(f.plain.Update(db, UpdateInput{Key: key("3"), UpdateExpression: "SET a = :a", ExpressionAttributeValues: map[string]Value{":a": S("u")}}))
		}, rt(1, 1, 1)},
		{"Update with a condition and a GSI", func() error {
			return ignore(f.gsi.Update(db, UpdateInput{Key: key("3"), UpdateExpression: "SET g = :g", ConditionExpression: "attribute_exists(pk)", ExpressionAttributeValues: map[string]Value{":g": S("g3")}}))
		}, rt(1, 1, 1)},
		{"Delete with condition", func() error {
			return ignore(f.plain.Delete(db, DeleteInput{Key: key("3"), ConditionExpression: "attribute_exists(pk)"}))
		}, rt(1, 1, 1)},
		{"Delete with a stream", func() error { return ignore(f.stream.Delete(db, DeleteInput{Key: key("3")})) }, rt(1, 1, 1)},

		// Writes with a stream cost the same whoever owns the transaction:
		// a wrapper of the database fdyno cannot see through, fdyno's
		// RetryLoop, or the caller's transaction (transactor.go).
		{"Put with a stream through a wrapped database", func() error {
			return ignore(f.stream.Put(wrapped{db: db}, PutInput{Item: item("3", "w")}))
		}, rt(1, 1, 1)},
		{"Update with a stream through a wrapped database", func() error {
			return ignore(f.stream.Update(wrapped{db: db}, UpdateInput{Key: key("3"), UpdateExpression: "SET a = :a", ExpressionAttributeValues: map[string]Value{":a": S("x")}}))
		}, rt(1, 1, 1)},
		{"Delete with a stream through a wrapped database", func() error {
			return ignore(f.stream.Delete(wrapped{db: db}, DeleteInput{Key: key("3")}))
		}, rt(1, 1, 1)},
		{"Put with 4 stream shards through a wrapped database", func() error {
			return ignore(f.sharded.Put(wrapped{db: db}, PutInput{Item: Item{"pk": S("p0"), "sk": N("2")}}))
		}, rt(1, 1, 1)},
		{"Put with a stream through a RetryLoop", func() error {
			return ignore(f.stream.Put(RetryLoop{DB: db}, PutInput{Item: item("3", "r")}))
		}, rt(1, 1, 1)},
		{"Put with a stream in the caller's transaction", func() error {
			_, err := db.Transact(func(tr fdb.Transaction) (any, error) { return f.stream.Put(tr, PutInput{Item: item("3", "c")}) })
			return err
		}, rt(1, 1, 1)},
		{"TransactWrite of 10 items in 3 tables", func() error {
			var items []TransactWriteItem
			for i := range 4 {
				items = append(items, TransactWriteItem{Put: &TransactPut{Table: f.plain, Item: item(fmt.Sprint(10+i), "t")}})
			}
			for i := range 3 {
				items = append(items, TransactWriteItem{Put: &TransactPut{Table: f.gsi, Item: item(fmt.Sprint(10+i), "t"), ConditionExpression: "attribute_not_exists(pk)"}})
			}
			for i := range 2 {
				items = append(items, TransactWriteItem{Update: &TransactUpdate{Table: f.stream, Key: key(fmt.Sprint(10 + i)), UpdateExpression: "SET a = :a", ExpressionAttributeValues: map[string]Value{":a": S("t")}}})
			}
			items = append(items, TransactWriteItem{ConditionCheck: &ConditionCheck{Table: f.plain, Key: key("1"), ConditionExpression: "attribute_exists(pk)"}})
			return ignore(TransactWrite(db, TransactWriteInput{TransactItems: items, ClientRequestToken: "budget-token"}))
		}, rt(1, 1, 1)},
		{"BatchWrite of 10 items in 3 tables", func() error {
			reqs := map[*Table][]WriteRequest{}
			for i, tbl := range []*Table{f.plain, f.gsi, f.stream, f.stream, f.gsi, f.plain, f.stream, f.gsi, f.plain, f.stream} {
				reqs[tbl] = append(reqs[tbl], WriteRequest{PutRequest: &PutRequest{Item: item(fmt.Sprint(20+i), "b")}})
			}
			return ignore(BatchWrite(db, BatchWriteInput{RequestItems: reqs}))
		}, rt(1, 1, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := f.count(t, tc.fn)
			t.Logf("%-40s %v", tc.name, got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: round trips over budget (-budget +got):\n%s", tc.name, diff)
			}
		})
	}
}

// TestRoundTripBudgetTail checks a stream tail's delivery: once the watch
// set by an empty page fires, the next page is one transaction of a read
// version and one wave.
func TestRoundTripBudgetTail(t *testing.T) {
	f := newBudgetFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Start after every record so far: the first page is empty.
	var last string
	for r, err := range f.stream.Tail(ctx, f.db, "") {
		if err != nil {
			t.Fatal(err)
		}
		last = r.SequenceNumber
		if r.Keys["sk"].N() == "8" {
			break
		}
	}
	next, stop := iter.Pull2(f.stream.Tail(ctx, f.db, last))
	defer stop()
	put := PutInput{Item: Item{"pk": S("p"), "sk": N("5"), "a": S("tail")}}
	// The put's own round trips, measured alone on another item.
	putAlone := f.count(t, func() error {
		return ignore(f.stream.Put(f.db, PutInput{Item: Item{"pk": S("p"), "sk": N("6"), "a": S("alone")}}))
	})
	// Skip the record of that put, then the tail waits on an empty page.
	if r, err, ok := next(); !ok || err != nil || r.Keys["sk"].N() != "6" {
		t.Fatalf("tail: %v, %v, %v; want the record of sk 6", r, err, ok)
	}
	// From here: the tail's empty page (rv + 1 wave, then the watch), the
	// put, and the delivery page after the watch fires.
	var got StreamRecord
	total := f.count(t, func() error {
		base, err := fdblitetest.ReadStats(f.db)
		if err != nil {
			return err
		}
		go func() {
			// Put once the tail's empty page has its read version and
			// wave: the page misses the put, and the watch the page sets
			// fires for it (a watch fires for any change after the
			// page's read version, even before the watch is set).
			testtime.Poll(func() bool {
				s, err := fdblitetest.ReadStats(f.db)
				d := s.RoundTrips.Sub(base.RoundTrips)
				return err != nil || d.ReadVersions >= 1 && d.ReadWaves >= 1
			})
			_, _ = f.stream.Put(f.db, put)
		}()
		r, err, ok := next()
		if !ok {
			return fmt.Errorf("tail ended")
		}
		got = r
		return err
	})
	if got.Keys["sk"].N() != "5" {
		t.Fatalf("tail delivered %v, want the record of sk 5", got.Keys)
	}
	delivery := total.Sub(putAlone).Sub(rt(1, 1, 0))
	t.Logf("tail delivery %v (total %v, put %v)", delivery, total, putAlone)
	if diff := cmp.Diff(rt(1, 1, 0), delivery); diff != "" {
		t.Errorf("tail delivery over budget (-budget +got):\n%s", diff)
	}
}
