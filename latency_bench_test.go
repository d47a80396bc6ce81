package fdyno

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Benchmarks under fdblite's latency model: what the operations cost on a
// FoundationDB cluster, where network round trips dominate. Each reports,
// per operation (or per key), the wall time beside the round trips it made
// (rv/op, waves/op, commits/op) and budget-ms/op, the time those round
// trips take at the model's base delays one after another; wall time above
// that is CPU and the jitter's spread. The model is
// fdblitetest.DefaultLatency() (FoundationDB's published typical
// latencies), or the FDBLITE_LATENCY environment variable's if set.
//
//	go test -run '^$' -bench Modelled -benchtime 200x .

// modelledDB opens a database of b's own under the latency model.
func modelledDB(b *testing.B) (fdb.Database, fdblitetest.Latency) {
	b.Helper()
	db := fdblitetest.OpenIsolated(b)
	l := fdblitetest.DefaultLatency()
	if env := os.Getenv(fdblitetest.LatencyEnv); env != "" {
		var err error
		if l, err = fdblitetest.ParseLatency(env); err != nil {
			b.Fatal(err)
		}
	}
	if err := fdblitetest.SetLatency(db, l); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = fdblitetest.SetLatency(db, fdblitetest.Latency{}) })
	return db, l
}

// runModelled runs op b.N times (each handling perOp keys) and reports its
// round trips and budget.
func runModelled(b *testing.B, db fdb.Database, l fdblitetest.Latency, perOp int, op func() error) {
	b.Helper()
	before, err := fdblitetest.ReadStats(db)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	after, err := fdblitetest.ReadStats(db)
	if err != nil {
		b.Fatal(err)
	}
	d := after.RoundTrips.Sub(before.RoundTrips)
	n := float64(b.N)
	b.ReportMetric(float64(d.ReadVersions)/n, "rv/op")
	b.ReportMetric(float64(d.ReadWaves)/n, "waves/op")
	b.ReportMetric(float64(d.Commits)/n, "commits/op")
	budget := float64(d.ReadVersions)*float64(l.GRV) + float64(d.ReadWaves)*float64(l.Read) + float64(d.Commits)*float64(l.Commit)
	b.ReportMetric(budget/n/float64(time.Millisecond), "budget-ms/op")
	b.ReportMetric(float64(b.Elapsed())/n/float64(time.Millisecond), "ms/op")
	if perOp > 1 {
		b.ReportMetric(float64(b.Elapsed())/n/float64(perOp)/float64(time.Millisecond), "ms/key")
	}
}

func BenchmarkModelled(b *testing.B) {
	db, l := modelledDB(b)
	tbl, err := Open(db, "Modelled", testRoot(b, db), WithSchema(hashOnly))
	if err != nil {
		b.Fatal(err)
	}
	stream := hashOnly
	stream.StreamViewType = StreamViewTypeNewAndOldImages
	streamTbl, err := Open(db, "ModelledStream", testRoot(b, db), WithSchema(stream))
	if err != nil {
		b.Fatal(err)
	}
	const n = 100
	var keys []Item
	var reqs []WriteRequest
	for i := range n {
		it := benchItem("k"+strconv.Itoa(i), 1024)
		reqs = append(reqs, putReq(it))
		keys = append(keys, Item{"pk": it["pk"]})
	}
	if _, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: reqs}}); err != nil {
		b.Fatal(err)
	}
	// A new table's first operation loads its schema (a directory open):
	// load both before measuring.
	if _, err := streamTbl.Get(db, GetInput{Key: keys[1]}); err != nil {
		b.Fatal(err)
	}
	item := benchItem("k1", 1024)
	seq := 0
	next := func(prefix string) Item {
		seq++
		it := benchItem(prefix+strconv.Itoa(seq%50), 1024)
		return it
	}

	b.Run("Get", func(b *testing.B) {
		runModelled(b, db, l, 1, func() error { return ignore(tbl.Get(db, GetInput{Key: keys[1]})) })
	})
	b.Run("BatchGet-100-keys", func(b *testing.B) {
		in := BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{tbl: {Keys: keys}}}
		runModelled(b, db, l, n, func() error { return ignore(BatchGet(db, in)) })
	})
	b.Run("Get-100-keys-one-after-another", func(b *testing.B) {
		runModelled(b, db, l, n, func() error {
			for _, k := range keys {
				if _, err := tbl.Get(db, GetInput{Key: k}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.Run("Put", func(b *testing.B) {
		runModelled(b, db, l, 1, func() error { return ignore(tbl.Put(db, PutInput{Item: next("p")})) })
	})
	b.Run("Put-stream-NEW_AND_OLD_IMAGES", func(b *testing.B) {
		runModelled(b, db, l, 1, func() error { return ignore(streamTbl.Put(db, PutInput{Item: next("s")})) })
	})
	b.Run("Put-with-condition", func(b *testing.B) {
		runModelled(b, db, l, 1, func() error {
			return ignore(tbl.Put(db, PutInput{Item: item, ConditionExpression: "attribute_exists(pk)"}))
		})
	})
	b.Run("Update", func(b *testing.B) {
		runModelled(b, db, l, 1, func() error {
			return ignore(tbl.Update(db, UpdateInput{Key: keys[1], UpdateExpression: "SET n = n + :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}}))
		})
	})
	b.Run("Delete", func(b *testing.B) {
		runModelled(b, db, l, 1, func() error { return ignore(tbl.Delete(db, DeleteInput{Key: Item{"pk": S("absent")}})) })
	})
	// A page takes one wave per batch FoundationDB sends (about 80 KB):
	// 50 items of 1 KB are one.
	b.Run("Scan-page-50-items", func(b *testing.B) {
		runModelled(b, db, l, 1, func() error {
			out, err := tbl.Scan(db, ScanInput{Limit: 50})
			if err == nil && len(out.Items) != 50 {
				err = fmt.Errorf("scan page of %d items, want 50", len(out.Items))
			}
			return err
		})
	})
	tw := func(i int) Item { return benchItem("tw"+strconv.Itoa(i), 1024) }
	b.Run("TransactWrite-10-items", func(b *testing.B) {
		var items []TransactWriteItem
		for i := range 10 {
			items = append(items, TransactWriteItem{Put: &TransactPut{Table: tbl, Item: tw(i)}})
		}
		runModelled(b, db, l, 10, func() error { return ignore(TransactWrite(db, TransactWriteInput{TransactItems: items})) })
	})
	b.Run("Put-10-items-one-after-another", func(b *testing.B) {
		runModelled(b, db, l, 10, func() error {
			for i := range 10 {
				if _, err := tbl.Put(db, PutInput{Item: tw(i)}); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
