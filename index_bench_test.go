package fdyno

import (
	"context"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Index benchmarks, beside the raw FoundationDB work
// they amount to.

// gsiSchema returns hashOnly with n GSIs g0…g(n-1), each on its own S
// attribute, projecting KEYS_ONLY.
func gsiSchema(n int) TableSchema {
	s := hashOnly.clone()
	for i := range n {
		a := "g" + strconv.Itoa(i)
		s.AttributeDefinitions = append(s.AttributeDefinitions, AttributeDefinition{a, ScalarAttributeTypeS})
		s.GlobalSecondaryIndexes = append(s.GlobalSecondaryIndexes, GlobalSecondaryIndex{IndexName: "by" + a,
			KeySchema: []KeySchemaElement{{a, KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}})
	}
	return s
}

// BenchmarkPutIndexes puts a 1 KB item whose index attributes change at
// every put (so every entry moves: one clear and one set per index), on
// tables with 0 to 3 GSIs; raw-2gsi is the same work on FoundationDB
// directly: read the old item, set the item, clear two entries, set two.
func BenchmarkPutIndexes(b *testing.B) {
	for _, n := range []int{0, 1, 2, 3} {
		b.Run("gsis="+strconv.Itoa(n)+"/fdyno", func(b *testing.B) {
			db := fdblitetest.Open(b)
			tbl, err := Open(db, "Bench", testRoot(b, db), WithSchema(gsiSchema(n)))
			if err != nil {
				b.Fatal(err)
			}
			items := [2]Item{benchItem("k", 1024), benchItem("k", 1024)}
			for i := range n {
				a := "g" + strconv.Itoa(i)
				items[0][a], items[1][a] = S("x"), S("y")
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := tbl.Put(db, PutInput{Item: items[i%2]}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	b.Run("gsis=2/raw-get-set-move2", func(b *testing.B) {
		db := fdblitetest.Open(b)
		tbl, err := Open(db, "Bench", testRoot(b, db), WithSchema(gsiSchema(2)))
		if err != nil {
			b.Fatal(err)
		}
		st := tbl.state.Load()
		it := benchItem("k", 1024)
		enc, _ := EncodeItem(it)
		kv, _ := packKeyValues(S("k"))
		key := st.keys.itemKey(kv)
		entry := func(ix int, v string) fdb.Key {
			ikv, _ := packKeyValues(S(v))
			return indexKey(st.keys.indexPrefix("byg"+strconv.Itoa(ix)), append(ikv, kv...))
		}
		val, _ := EncodeItem(Item{"pk": S("k"), "g0": S("x")})
		vals := [2]string{"x", "y"}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				if _, err := tr.Get(key).Get(); err != nil {
					return nil, err
				}
				tr.Set(key, enc)
				for ix := range 2 {
					tr.Clear(entry(ix, vals[i%2]))
					tr.Set(entry(ix, vals[(i+1)%2]), val)
				}
				return nil, nil
			})
			if err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkQueryIndex reads 100 items of 1 KB through a GSI projecting
// ALL and through the table, and the GSI's entries by a raw range read
// plus DecodeItem.
func BenchmarkQueryIndex(b *testing.B) {
	db := fdblitetest.Open(b)
	s := hashRange.clone()
	s.AttributeDefinitions = append(s.AttributeDefinitions, AttributeDefinition{"g", ScalarAttributeTypeS})
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}, {"sk", KeyTypeRange}},
		Projection: Projection{ProjectionType: ProjectionTypeAll}}}
	tbl, err := Open(db, "Bench", testRoot(b, db), WithSchema(s))
	if err != nil {
		b.Fatal(err)
	}
	loadPartitions(b, db, tbl, 300, 100, 1024)
	// g mirrors pk, so the GSI partition g = p1 holds the table
	// partition p1's 100 items.
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		for i := 100; i < 200; i++ {
			_, err := tbl.Update(tr, UpdateInput{Key: Item{"pk": S("p1"), "sk": NInt(int64(i % 100))}, UpdateExpression: "SET g = :g", ExpressionAttributeValues: map[string]Value{":g": S("p1")}})
			if err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, index, attr string }{{"gsi", "byG", "g"}, {"table", "", "pk"}} {
		in := QueryInput{IndexName: tc.index, KeyConditionExpression: tc.attr + " = :p", ExpressionAttributeValues: map[string]Value{":p": S("p1")}}
		benchRun(b, "items=100/size=1KB/"+tc.name+"/fdyno", 0, queryOp(db, tbl, in, 100))
	}
	st := tbl.state.Load()
	p, _ := packKeyValues(S("p1"))
	prefix := st.keys.indexPrefix("byG")
	r := fdb.KeyRange{Begin: indexKey(prefix, p), End: indexKey(prefix, append(p, 0xff))}
	benchRun(b, "items=100/size=1KB/gsi/raw-range-decode", 0, rawRangeDecode(db, r, 100))
}

// BenchmarkBackfill creates a GSI on a table of 10k items of 100 bytes,
// backfills it in batches of DefaultBackfillBatchSize and deletes it,
// reporting items/s.
func BenchmarkBackfill(b *testing.B) {
	db, tbl := benchTableOf(b, hashRange)
	const n = 10_000
	loadPartitions(b, db, tbl, n, 100, 100)
	create := UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"name", ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "byName",
			KeySchema: []KeySchemaElement{{"name", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}}}
	drop := UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byName"}}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tbl.UpdateTable(db, create); err != nil {
			b.Fatal(err)
		}
		p, err := tbl.Backfill(context.Background(), db, BackfillInput{IndexName: "byName"})
		if err != nil || p.ItemsScanned != n {
			b.Fatalf("Backfill = %+v, %v", p, err)
		}
		if _, err := tbl.UpdateTable(db, drop); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkPutUnique puts a 1 KB item whose email changes at every put
// (its entry moves), on a table whose GSI on email is unique and on the
// same table with a plain GSI: the unique check reads the new slot in
// the wave that reads the old item, so the two differ by that range read
// and its check only.
func BenchmarkPutUnique(b *testing.B) {
	for _, unique := range []bool{false, true} {
		name := "plain"
		if unique {
			name = "unique"
		}
		b.Run(name, func(b *testing.B) {
			s := gsiSchema(1)
			s.GlobalSecondaryIndexes[0].Unique = unique
			db := fdblitetest.Open(b)
			tbl, err := Open(db, "Bench", testRoot(b, db), WithSchema(s))
			if err != nil {
				b.Fatal(err)
			}
			items := [2]Item{benchItem("k", 1024), benchItem("k", 1024)}
			items[0]["g0"], items[1]["g0"] = S("x"), S("y")
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := tbl.Put(db, PutInput{Item: items[i%2]}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
