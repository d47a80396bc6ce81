package fdyno

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// queryBatchFixture puts partitions p0 … p3 of 5 items each (sk 0 … 4,
// a = "v<sk>") into a hash-range table.
func queryBatchFixture(t *testing.T) (fdb.Database, *Table, Option) {
	t.Helper()
	db := fdblitetest.OpenIsolated(t)
	root := testRoot(t, db)
	tbl, err := Open(db, "Batch", root, WithSchema(hashRange))
	if err != nil {
		t.Fatal(err)
	}
	for p := range 4 {
		for sk := range 5 {
			it := Item{"pk": S("p" + strconv.Itoa(p)), "sk": NInt(int64(sk)), "a": S("v" + strconv.Itoa(sk))}
			if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db, tbl, root
}

func pkQuery(pk string) QueryInput {
	return QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S(pk)}}
}

func TestQueryBatch(t *testing.T) {
	db, tbl, _ := queryBatchFixture(t)
	other := newTestTable(t, db, hashOnly)
	if _, err := other.Put(db, PutInput{Item: Item{"pk": S("p0"), "x": N("1")}}); err != nil {
		t.Fatal(err)
	}
	limited := pkQuery("p1")
	limited.Limit = 2
	desc := pkQuery("p2")
	desc.ScanIndexForward = Forward(false)
	desc.FilterExpression = "a <> :v"
	desc.ExpressionAttributeValues = map[string]Value{":p": S("p2"), ":v": S("v3")}
	desc.ProjectionExpression = "sk"
	count := pkQuery("p3")
	count.Select = SelectCount
	qs := []QueryBatchInput{
		{Table: tbl, Input: pkQuery("p0")},
		{Table: tbl, Input: limited},
		{Table: tbl, Input: desc},
		{Table: tbl, Input: count},
		{Table: tbl, Input: pkQuery("absent")},
		{Table: other, Input: pkQuery("p0")},
		{Table: tbl, Input: pkQuery("p0")}, // the same query twice
	}
	got, err := QueryBatch(db, qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(qs) {
		t.Fatalf("%d outputs, want %d", len(got), len(qs))
	}
	items := func(pk string, sks ...int) []Item {
		var its []Item
		for _, sk := range sks {
			its = append(its, Item{"pk": S(pk), "sk": NInt(int64(sk)), "a": S("v" + strconv.Itoa(sk))})
		}
		return its
	}
	// Expected from DynamoDB's Query semantics: Limit stops after 2 items
	// read with LastEvaluatedKey the last key read; the filter runs after
	// the read (ScannedCount 5, Count 4); COUNT returns no items.
	if d := cmp.Diff(items("p0", 0, 1, 2, 3, 4), got[0].Items); d != "" {
		t.Errorf("query 0 (-want +got):\n%s", d)
	}
	if got[0].LastEvaluatedKey != nil || got[0].Cursor != nil {
		t.Errorf("query 0: LastEvaluatedKey %v, want none", got[0].LastEvaluatedKey)
	}
	if d := cmp.Diff(items("p1", 0, 1), got[1].Items); d != "" {
		t.Errorf("query 1 (-want +got):\n%s", d)
	}
	if d := cmp.Diff(Item{"pk": S("p1"), "sk": NInt(1)}, got[1].LastEvaluatedKey); d != "" {
		t.Errorf("query 1 LastEvaluatedKey (-want +got):\n%s", d)
	}
	wantDesc := []Item{{"sk": NInt(4)}, {"sk": NInt(2)}, {"sk": NInt(1)}, {"sk": NInt(0)}}
	if d := cmp.Diff(wantDesc, got[2].Items); d != "" || got[2].Count != 4 || got[2].ScannedCount != 5 {
		t.Errorf("query 2: Count %d ScannedCount %d (-want +got):\n%s", got[2].Count, got[2].ScannedCount, d)
	}
	if got[3].Items != nil || got[3].Count != 5 {
		t.Errorf("query 3: %d items, Count %d, want none and 5", len(got[3].Items), got[3].Count)
	}
	if len(got[4].Items) != 0 || got[4].Count != 0 {
		t.Errorf("query 4: %v, want no items", got[4].Items)
	}
	if d := cmp.Diff([]Item{{"pk": S("p0"), "x": N("1")}}, got[5].Items); d != "" {
		t.Errorf("query 5 (-want +got):\n%s", d)
	}
	if d := cmp.Diff(got[0], got[6]); d != "" {
		t.Errorf("the same query twice differs (-first +second):\n%s", d)
	}

	// The cursor and LastEvaluatedKey of a batched page resume the query,
	// alone or in a batch.
	next := limited
	next.Cursor = got[1].Cursor
	byKey := limited
	byKey.ExclusiveStartKey = got[1].LastEvaluatedKey
	alone, err := tbl.Query(db, next)
	if err != nil {
		t.Fatal(err)
	}
	again, err := QueryBatch(db, []QueryBatchInput{{Table: tbl, Input: next}, {Table: tbl, Input: byKey}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(items("p1", 2, 3), alone.Items); d != "" {
		t.Errorf("second page (-want +got):\n%s", d)
	}
	if d := cmp.Diff(alone, again[0]); d != "" {
		t.Errorf("second page batched differs from Query (-Query +batch):\n%s", d)
	}
	if d := cmp.Diff(alone.Items, again[1].Items); d != "" {
		t.Errorf("second page by ExclusiveStartKey (-cursor +key):\n%s", d)
	}

	// In a caller's transaction the batch sees its writes.
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("new"), "sk": N("1")}}); err != nil {
			return nil, err
		}
		out, err := QueryBatch(tr, []QueryBatchInput{{Table: tbl, Input: pkQuery("new")}})
		if err == nil && len(out[0].Items) != 1 {
			err = fmt.Errorf("in-transaction batch: %d items, want the 1 just written", len(out[0].Items))
		}
		tr.Cancel()
		return nil, err
	})
	if err != nil && !isCancelled(err) {
		t.Fatal(err)
	}

	// An empty batch reads nothing.
	rts, err := fdblitetest.CountRoundTrips(db, func() error {
		out, err := QueryBatch(db, nil)
		if err == nil && len(out) != 0 {
			err = fmt.Errorf("empty batch: %d outputs", len(out))
		}
		return err
	})
	if err != nil || rts != (fdblitetest.RoundTrips{}) {
		t.Errorf("empty batch: %v round trips, %v; want none", rts, err)
	}
}

// isCancelled reports whether err is FoundationDB's transaction_cancelled
// (1025), what a cancelled transaction's commit returns.
func isCancelled(err error) bool {
	var fe fdb.Error
	return errors.As(err, &fe) && fe.Code == 1025
}

func TestQueryBatchErrors(t *testing.T) {
	db, tbl, root := queryBatchFixture(t)
	bad := func(mut func(*QueryInput)) QueryInput {
		q := pkQuery("p0")
		mut(&q)
		return q
	}
	foreign, err := tbl.Query(db, QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("p1")}, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   QueryInput
	}{
		{"no key condition", bad(func(q *QueryInput) { q.KeyConditionExpression = "" })},
		{"unused value", bad(func(q *QueryInput) { q.ExpressionAttributeValues[":x"] = S("x") })},
		{"filter on a key", bad(func(q *QueryInput) { q.FilterExpression = "sk > :p" })},
		{"negative limit", bad(func(q *QueryInput) { q.Limit = -1 })},
		{"start key outside the range", bad(func(q *QueryInput) { q.ExclusiveStartKey = Item{"pk": S("p9"), "sk": N("1")} })},
		{"cursor of another query", bad(func(q *QueryInput) { q.Cursor = foreign.Cursor })},
		{"unknown index", bad(func(q *QueryInput) { q.IndexName = "nope" })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, want := tbl.Query(db, tc.in)
			if !errors.Is(want, ErrValidation) {
				t.Fatalf("Query: %v, want ErrValidation", want)
			}
			// The error is Query's, wherever the bad query stands.
			for pos := range 3 {
				qs := []QueryBatchInput{{Table: tbl, Input: pkQuery("p0")}, {Table: tbl, Input: pkQuery("p1")}}
				qs = append(qs[:pos], append([]QueryBatchInput{{Table: tbl, Input: tc.in}}, qs[pos:]...)...)
				out, err := QueryBatch(db, qs)
				if out != nil || err == nil || err.Error() != want.Error() || !errors.Is(err, ErrValidation) {
					t.Errorf("at %d: %v, %v; want Query's %v", pos, out, err, want)
				}
			}
		})
	}
	// The first failing query's error is returned.
	first, second := tests[1].in, tests[0].in
	_, want := tbl.Query(db, first)
	if _, err := QueryBatch(db, []QueryBatchInput{{Table: tbl, Input: first}, {Table: tbl, Input: second}}); err == nil || err.Error() != want.Error() {
		t.Errorf("two bad queries: %v, want the first's %v", err, want)
	}
	if _, err := QueryBatch(db, []QueryBatchInput{{Table: tbl, Input: pkQuery("p0")}, {Input: pkQuery("p0")}}); !errors.Is(err, ErrValidation) {
		t.Errorf("nil table: %v, want ErrValidation", err)
	}
	// A deleted table.
	if err := DeleteTable(db, tbl.Name(), root); err != nil {
		t.Fatal(err)
	}
	if _, err := QueryBatch(db, []QueryBatchInput{{Table: tbl, Input: pkQuery("p0")}}); !errors.Is(err, ErrResourceNotFound) {
		t.Errorf("deleted table: %v, want ErrResourceNotFound", err)
	}
}

// TestQueryBatchModel checks the property that defines QueryBatch: its
// outputs are those of each Query run alone at the same read version.
func TestQueryBatchModel(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	root := testRoot(t, db)
	runs := 0
	rapid.Check(t, func(rt *rapid.T) {
		runs++
		tbl, err := Open(db, "Batch"+strconv.Itoa(runs), root, WithSchema(hashRange))
		if err != nil {
			rt.Fatal(err)
		}
		for i := range rapid.IntRange(0, 40).Draw(rt, "items") {
			it := Item{"pk": S("p" + strconv.Itoa(rapid.IntRange(0, 3).Draw(rt, "pk"))), "sk": NInt(int64(rapid.IntRange(0, 20).Draw(rt, "sk"))), "n": NInt(int64(i))}
			if rapid.IntRange(0, 9).Draw(rt, "big") == 0 {
				it["big"] = S(string(make([]byte, 30_000)))
			}
			if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
				rt.Fatal(err)
			}
		}
		ops := []string{"", "<", "<=", ">", ">=", "between"}
		qs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) QueryInput {
			q := pkQuery("p" + strconv.Itoa(rapid.IntRange(0, 4).Draw(t, "qpk")))
			switch op := rapid.SampledFrom(ops).Draw(t, "op"); op {
			case "":
			case "between":
				q.KeyConditionExpression += " AND sk BETWEEN :a AND :b"
				a := rapid.IntRange(0, 20).Draw(t, "a")
				q.ExpressionAttributeValues[":a"] = NInt(int64(a))
				q.ExpressionAttributeValues[":b"] = NInt(int64(rapid.IntRange(a, 20).Draw(t, "b")))
			default:
				q.KeyConditionExpression += " AND sk " + op + " :a"
				q.ExpressionAttributeValues[":a"] = NInt(int64(rapid.IntRange(0, 20).Draw(t, "a")))
			}
			q.Limit = rapid.IntRange(0, 6).Draw(t, "limit")
			q.ScanIndexForward = Forward(rapid.Bool().Draw(t, "forward"))
			if rapid.Bool().Draw(t, "filter") {
				q.FilterExpression = "n > :n"
				q.ExpressionAttributeValues[":n"] = NInt(int64(rapid.IntRange(0, 40).Draw(t, "n")))
			}
			return q
		}), 0, 8).Draw(rt, "queries")
		in := make([]QueryBatchInput, len(qs))
		for i, q := range qs {
			in[i] = QueryBatchInput{Table: tbl, Input: q}
		}
		// Follow every query's pages to its end, batch against alone, in
		// one transaction so both read the same version.
		for page := 0; len(in) > 0 && page < 50; page++ {
			_, err := ReadTransact(db, func(tr fdb.ReadTransaction) (bool, error) {
				got, err := QueryBatch(tr, in)
				if err != nil {
					return false, err
				}
				next := in[:0:0]
				for i, q := range in {
					want, err := tbl.Query(tr, q.Input)
					if err != nil {
						return false, err
					}
					if d := cmp.Diff(want, got[i]); d != "" {
						rt.Fatalf("page %d of query %d %+v (-Query +QueryBatch):\n%s", page, i, q.Input, d)
					}
					if want.Cursor != nil {
						q.Input.Cursor = want.Cursor
						next = append(next, q)
					}
				}
				in = next
				return true, nil
			})
			if err != nil {
				rt.Fatal(err)
			}
		}
		if err := DeleteTable(db, tbl.Name(), root); err != nil {
			rt.Fatal(err)
		}
	})
}

// BenchmarkQueryBatch reads the first item of 20 partitions: one
// QueryBatch, 20 Queries in turn in one transaction, and the raw
// FoundationDB work (20 range reads in flight at once, and decoding).
// Under fdblite's latency model (latency_bench_test.go) the waves show.
func BenchmarkQueryBatch(b *testing.B) {
	const n = 20
	for _, modelled := range []bool{false, true} {
		var db fdb.Database
		var l fdblitetest.Latency
		name := "instant"
		if modelled {
			db, l = modelledDB(b)
			name = "modelled"
		} else {
			db = fdblitetest.Open(b)
		}
		tbl, err := Open(db, "Bench", testRoot(b, db), WithSchema(hashRange))
		if err != nil {
			b.Fatal(err)
		}
		loadPartitions(b, db, tbl, n*5, 5, 256)
		qs := make([]QueryBatchInput, n)
		for i := range qs {
			qs[i] = QueryBatchInput{Table: tbl, Input: pkQuery("p" + strconv.Itoa(i))}
			qs[i].Input.Limit = 1
		}
		st := tbl.state.Load()
		ranges := make([]fdb.KeyRange, n)
		for i := range ranges {
			p, _ := packKeyValues(S("p" + strconv.Itoa(i)))
			ranges[i] = fdb.KeyRange{Begin: st.keys.itemKey(p), End: st.keys.itemKey(append(p, 0xff))}
		}
		run := func(b *testing.B, op func() error) {
			if modelled {
				runModelled(b, db, l, n, op)
				return
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := op(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run("queries=20/"+name+"/QueryBatch", func(b *testing.B) {
			run(b, func() error {
				out, err := QueryBatch(db, qs)
				if err == nil && len(out[n-1].Items) != 1 {
					err = fmt.Errorf("QueryBatch: %d items", len(out[n-1].Items))
				}
				return err
			})
		})
		b.Run("queries=20/"+name+"/Query-each", func(b *testing.B) {
			run(b, func() error {
				_, err := ReadTransact(db, func(tr fdb.ReadTransaction) (bool, error) {
					for _, q := range qs {
						if out, err := tbl.Query(tr, q.Input); err != nil || len(out.Items) != 1 {
							return false, fmt.Errorf("Query: %v", err)
						}
					}
					return true, nil
				})
				return err
			})
		})
		b.Run("queries=20/"+name+"/raw-ranges-decode", func(b *testing.B) {
			run(b, func() error {
				_, err := ReadTransact(db, func(tr fdb.ReadTransaction) (bool, error) {
					rrs := make([]fdb.RangeResult, n)
					for i, r := range ranges {
						rrs[i] = tr.GetRange(r, fdb.RangeOptions{Limit: 1, Mode: fdb.StreamingModeWantAll})
					}
					for _, rr := range rrs {
						kvs, err := rr.GetSliceWithError()
						if err != nil || len(kvs) != 1 {
							return false, fmt.Errorf("raw: %d rows, %v", len(kvs), err)
						}
						if _, err := DecodeItem(kvs[0].Value); err != nil {
							return false, err
						}
					}
					return true, nil
				})
				return err
			})
		})
	}
}
