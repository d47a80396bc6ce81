package fdyno

import (
	"fmt"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Multi-attribute GSI keys against the synthetic keys they replace: an
// index whose partition key is a, b, c (S) and sort key d (S), e (N)
// beside an index on two attributes holding the same values concatenated
// ("a#b#c", "d#e" with e zero-padded), and beside the raw FoundationDB
// work of a put or a query page.

// multiKeyBenchSchema returns hashOnly with GSI byM (3+2 attributes) or,
// if concat, GSI byC on abc and de; both project ALL.
func multiKeyBenchSchema(concat bool) TableSchema {
	s := hashOnly.clone()
	str := func(n string) AttributeDefinition { return AttributeDefinition{n, ScalarAttributeTypeS} }
	if concat {
		s.AttributeDefinitions = append(s.AttributeDefinitions, str("abc"), str("de"))
		s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byC", KeySchema: cat(hashes("abc"), ranges("de")),
			Projection: Projection{ProjectionType: ProjectionTypeAll}}}
		return s
	}
	s.AttributeDefinitions = append(s.AttributeDefinitions, str("a"), str("b"), str("c"), str("d"), AttributeDefinition{"e", ScalarAttributeTypeN})
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byM", KeySchema: cat(hashes("a", "b", "c"), ranges("d", "e")),
		Projection: Projection{ProjectionType: ProjectionTypeAll}}}
	return s
}

// multiKeyBenchItem returns a 1 KB item of key pk in partition
// (tournament, region, group) with sort values round, n, in the form of
// either index.
func multiKeyBenchItem(pk string, concat bool, round string, n int64) Item {
	it := benchItem(pk, 1024)
	if concat {
		it["abc"], it["de"] = S("WINTER2024#NA-EAST#G1"), S(fmt.Sprintf("%s#%010d", round, n))
	} else {
		it["a"], it["b"], it["c"], it["d"], it["e"] = S("WINTER2024"), S("NA-EAST"), S("G1"), S(round), NInt(n)
	}
	return it
}

// BenchmarkMultiKeyIndex puts a 1 KB item whose index sort values change
// at every put (the entry moves: one clear, one set), and queries a page
// of 100 items of one partition, through the 3+2-attribute index and the
// concatenated one; raw-get-set-move is the put's work on FoundationDB
// directly (read the old item, set it, move the entry), raw-range-decode
// the query's (one range read and DecodeItem).
func BenchmarkMultiKeyIndex(b *testing.B) {
	for _, concat := range []bool{false, true} {
		name := map[bool]string{false: "multi-3+2", true: "concat-1+1"}[concat]
		db, tbl := benchTableOf(b, multiKeyBenchSchema(concat))
		items := [2]Item{multiKeyBenchItem("k", concat, "SEMIFINALS", 1), multiKeyBenchItem("k", concat, "FINALS", 2)}
		i := 0
		benchRun(b, "put/"+name+"/fdyno", 0, func() error {
			i++
			_, err := tbl.Put(db, PutInput{Item: items[i%2]})
			return err
		})
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			for j := range 100 {
				if _, err := tbl.Put(tr, PutInput{Item: multiKeyBenchItem(fmt.Sprint("q", j), concat, "ROUND", int64(j))}); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			b.Fatal(err)
		}
		in := QueryInput{IndexName: "byM", KeyConditionExpression: "a = :a AND b = :b AND c = :c AND d = :d",
			ExpressionAttributeValues: values(":a", S("WINTER2024"), ":b", S("NA-EAST"), ":c", S("G1"), ":d", S("ROUND"))}
		if concat {
			in = QueryInput{IndexName: "byC", KeyConditionExpression: "abc = :abc AND begins_with(de, :d)",
				ExpressionAttributeValues: values(":abc", S("WINTER2024#NA-EAST#G1"), ":d", S("ROUND#"))}
		}
		benchRun(b, "query-100/"+name+"/fdyno", 0, queryOp(db, tbl, in, 100))
		if concat {
			continue
		}
		st := tbl.state.Load()
		prefix := st.keys.indexPrefix("byM")
		p, _ := packKeyValues(S("WINTER2024"), S("NA-EAST"), S("G1"), S("ROUND"))
		benchRun(b, "query-100/raw-range-decode", 0, rawRangeDecode(db, fdb.KeyRange{Begin: indexKey(prefix, p), End: indexKey(prefix, prefixEnd(p))}, 100))
		enc, _ := EncodeItem(items[0])
		kv, _ := packKeyValues(S("k"))
		key := st.keys.itemKey(kv)
		entry := func(j int) fdb.Key {
			ikv, _ := packKeyValues(S("WINTER2024"), S("NA-EAST"), S("G1"), items[j]["d"], items[j]["e"])
			return indexKey(prefix, append(ikv, kv...))
		}
		benchRun(b, "put/raw-get-set-move", 0, txOp(db, func(tr fdb.Transaction) (any, error) {
			i++
			if _, err := tr.Get(key).Get(); err != nil {
				return nil, err
			}
			tr.Set(key, enc)
			tr.Clear(entry(i % 2))
			tr.Set(entry((i+1)%2), enc)
			return nil, nil
		}))
	}
}
