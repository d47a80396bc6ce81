package fdyno

import (
	"context"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// BenchmarkParallelScan reads a table of 4,000 items of about 200 bytes
// (1,000 partitions of 4 items) whole, as a key-order Scan, as the 4
// segments of a parallel Scan read one after another, and as the raw
// FoundationDB range read + DecodeItem of the same heads. The segments'
// extra work over a whole Scan is the partition directory and one range
// read per partition.
func BenchmarkParallelScan(b *testing.B) {
	db, tbl := benchTableOf(b, hashRange)
	const n = 4000
	loadPartitions(b, db, tbl, n, 4, 200)
	count := func(b *testing.B, in ScanInput) int {
		c := 0
		for _, err := range tbl.ScanAll(context.Background(), db, in) {
			if err != nil {
				b.Fatal(err)
			}
			c++
		}
		return c
	}
	b.Run("whole/fdyno", func(b *testing.B) {
		for b.Loop() {
			if c := count(b, ScanInput{}); c != n {
				b.Fatalf("read %d items", c)
			}
		}
	})
	for _, total := range []int{4} {
		b.Run("segments="+strconv.Itoa(total)+"/fdyno", func(b *testing.B) {
			for b.Loop() {
				c := 0
				for seg := range total {
					c += count(b, ScanInput{Segment: seg, TotalSegments: total})
				}
				if c != n {
					b.Fatalf("read %d items", c)
				}
			}
		})
	}
	st := tbl.state.Load()
	b.Run("whole/raw-range-decode", func(b *testing.B) {
		for b.Loop() {
			c, err := ReadTransact(db, func(tr fdb.ReadTransaction) (int, error) {
				it := tr.GetRange(st.keys.items, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
				c := 0
				for it.Advance() {
					kv, err := it.Get()
					if err != nil {
						return 0, err
					}
					if _, err := DecodeItem(kv.Value); err != nil {
						return 0, err
					}
					c++
				}
				return c, nil
			})
			if err != nil || c != n {
				b.Fatalf("read %d items, %v", c, err)
			}
		}
	})
}
