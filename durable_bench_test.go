package fdyno

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// BenchmarkDurableItem: fdyno's Put (1 and 64 goroutines) and Get of a
// 1 KB item on an in-memory and on a durable fdblite database, in the same
// run; the raw FoundationDB set-and-commit beside them.
func BenchmarkDurableItem(b *testing.B) {
	for _, mode := range []string{"memory", "durable"} {
		var db fdb.Database
		var root Option
		if mode == "durable" {
			var err error
			if db, err = fdblitetest.OpenDir(b.TempDir()); err != nil {
				b.Fatal(err)
			}
			root = WithRoot("bench")
		} else {
			db = fdblitetest.Open(b)
			root = testRoot(b, db)
		}
		tbl, err := Open(db, "Bench", root, WithSchema(hashOnly))
		if err != nil {
			b.Fatal(err)
		}
		it := benchItem("put", 1024)
		b.Run(fmt.Sprintf("mode=%s/Put", mode), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("mode=%s/Put/writers=64", mode), func(b *testing.B) {
			var n atomic.Int64
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					it := benchItem(fmt.Sprintf("put%d", n.Add(1)%1000), 1024)
					if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
		})
		k := rawKey(tbl, it)
		enc, _ := EncodeItem(it)
		b.Run(fmt.Sprintf("mode=%s/raw-set-commit", mode), func(b *testing.B) {
			for b.Loop() {
				if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					tr.Set(k, enc)
					return nil, nil
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("mode=%s/Get", mode), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tbl.Get(db, GetInput{Key: Item{"pk": S("put")}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
