package fdyno

import (
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// BenchmarkCounts measures what exact counts cost and buy, next to the raw
// FoundationDB operations: a Put on a counted table (which reads its old
// item and adds to its counters) against a Put on a table WithoutCounts
// (blind), a raw Set, and a raw Get and Set plus the four atomic adds the
// counters make (table items and bytes, item collection items and bytes);
// a conditional Put, which reads its old item either way, on both tables
// (what the counters alone cost); and Count and Scan with Select=COUNT on
// tables of 1,000 and 100,000 items, which must take the same time, next
// to a raw range read of the items, which a counting Scan would read.
func BenchmarkCounts(b *testing.B) {
	db, tbl := benchTable(b)
	it := benchItem("k", 200)
	enc, err := EncodeItem(it)
	if err != nil {
		b.Fatal(err)
	}
	st := tbl.state.Load()
	kv, _ := packKeyValues(S("k"))
	key := st.keys.itemKey(kv)
	var one [8]byte
	binary.LittleEndian.PutUint64(one[:], 1)
	blindSchema := hashOnly
	blindSchema.WithoutCounts = true
	_, blind := benchTableOf(b, blindSchema)
	benchRun(b, "Put", len(enc), func() error { _, err := tbl.Put(db, PutInput{Item: it}); return err })
	benchRun(b, "Put/WithoutCounts", len(enc), func() error { _, err := blind.Put(db, PutInput{Item: it}); return err })
	// A write that reads its old item anyway: what the counters add.
	cond := PutInput{Item: it, ConditionExpression: "attribute_not_exists(absent)"}
	benchRun(b, "PutCondition", len(enc), func() error { _, err := tbl.Put(db, cond); return err })
	benchRun(b, "PutCondition/WithoutCounts", len(enc), func() error { _, err := blind.Put(db, cond); return err })
	benchRun(b, "raw/Set", len(enc), txOp(db, func(tr fdb.Transaction) (any, error) { tr.Set(key, enc); return nil, nil }))
	benchRun(b, "raw/Get+Set+4Adds", len(enc), txOp(db, func(tr fdb.Transaction) (any, error) {
		if _, err := tr.Get(key).Get(); err != nil {
			return nil, err
		}
		tr.Set(key, enc)
		for f := range 2 {
			tr.Add(st.keys.tableCountKey(f, counterShard(kv)), one[:])
			tr.Add(st.keys.partitionCountKey(kv, f), one[:])
		}
		return nil, nil
	}))
	for _, n := range []int{1_000, 100_000} {
		db, tbl := benchTable(b)
		for i := 0; i < n; i += 1000 {
			var reqs []WriteRequest
			for j := i; j < i+1000 && j < n; j++ {
				reqs = append(reqs, WriteRequest{PutRequest: &PutRequest{Item: Item{"pk": S("k" + strconv.Itoa(j))}}})
			}
			if err := BatchWriteAll(b.Context(), db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: reqs}}); err != nil {
				b.Fatal(err)
			}
		}
		items := strconv.Itoa(n) + "items"
		benchRun(b, "Count/"+items, 0, func() error {
			c, err := tbl.Count(db)
			if err == nil && c.ItemCount != int64(n) {
				b.Fatalf("Count = %d, want %d", c.ItemCount, n)
			}
			return err
		})
		benchRun(b, "ScanCount/"+items, 0, func() error {
			out, err := tbl.Scan(db, ScanInput{Select: SelectCount})
			if err == nil && out.Count != n {
				b.Fatalf("Scan COUNT = %d, want %d", out.Count, n)
			}
			return err
		})
		// What a Scan reading the items reads: every item key.
		st := tbl.state.Load()
		r := fdb.KeyRange{Begin: st.keys.itemKey(nil), End: st.keys.itemKey([]byte{0xff})}
		benchRun(b, "raw/RangeOfItems/"+items, 0, txOp(db, func(tr fdb.Transaction) (any, error) {
			kvs, err := tr.GetRange(r, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).GetSliceWithError()
			if err == nil && len(kvs) != n {
				b.Fatalf("raw range: %d keys, want %d", len(kvs), n)
			}
			return nil, err
		}))
	}
}

// BenchmarkBuildCounts measures the counting pass (counts_build.go) of a
// table of 10,000 items of 200 bytes with a GSI, next to the raw
// FoundationDB reads it cannot do without: the same items read by range
// reads of 500 keys, one transaction each. It reports the time of one
// batch (one transaction), which must stay far below FoundationDB's 5 s.
// Put/counting is a Put while the pass runs (it reads the pass's cursor
// in its item's wave), next to a Put on a counted table.
func BenchmarkBuildCounts(b *testing.B) {
	const n = 10_000
	s := hashOnly
	s.AttributeDefinitions = append(s.AttributeDefinitions[:1:1], AttributeDefinition{"name", ScalarAttributeTypeS})
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byName", KeySchema: []KeySchemaElement{{"name", KeyTypeHash}},
		Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}
	db, tbl := benchTableOf(b, s)
	for i := 0; i < n; i += 1000 {
		var reqs []WriteRequest
		for j := i; j < i+1000; j++ {
			reqs = append(reqs, WriteRequest{PutRequest: &PutRequest{Item: benchItem("k"+strconv.Itoa(j), 200)}})
		}
		if err := BatchWriteAll(b.Context(), db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: reqs}}); err != nil {
			b.Fatal(err)
		}
	}
	batches := n/DefaultCountBatchSize + 2 // the start and the last, empty, batch
	b.Run("items=10k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			makeLegacy(b, db, tbl)
			b.StartTimer()
			if _, err := tbl.BuildCounts(b.Context(), db, BuildCountsInput{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(batches), "ms/batch")
	})
	st := tbl.state.Load()
	b.Run("items=10k/raw-range", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			begin, end := st.keys.items.FDBRangeKeys()
			for {
				kvs, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
					return rt.GetRange(fdb.KeyRange{Begin: begin, End: end}, fdb.RangeOptions{Limit: DefaultCountBatchSize, Mode: fdb.StreamingModeWantAll}).GetSliceWithError()
				})
				if err != nil {
					b.Fatal(err)
				}
				rows := kvs.([]fdb.KeyValue)
				if len(rows) < DefaultCountBatchSize {
					break
				}
				begin = append(rows[len(rows)-1].Key, 0)
			}
		}
	})
	// A pass started and left before its end: writes count by the cursor.
	makeLegacy(b, db, tbl)
	for range 3 {
		if _, err := countsStep(db, tbl, DefaultCountBatchSize); err != nil {
			b.Fatal(err)
		}
	}
	it := benchItem("k1", 200)
	benchRun(b, "Put/counting", 200, func() error { _, err := tbl.Put(db, PutInput{Item: it}); return err })
	if _, err := tbl.BuildCounts(b.Context(), db, BuildCountsInput{}); err != nil {
		b.Fatal(err)
	}
	benchRun(b, "Put/counted", 200, func() error { _, err := tbl.Put(db, PutInput{Item: it}); return err })
}
