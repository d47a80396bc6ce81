package fdyno

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Query benchmarks, each beside the raw FoundationDB
// work it rests on: one range read of the same keys and DecodeItem of
// every value, without fdyno's metadata-version check, planning,
// key splitting and page bookkeeping.

// loadPartitions puts n items of about size bytes, per items in each
// partition p0, p1, …, in transactions of up to 500 items.
func loadPartitions(b *testing.B, db fdb.Database, tbl *Table, n, per, size int) {
	pad := strings.Repeat("x", max(size-60, 0))
	for start := 0; start < n; start += 500 {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			for i := start; i < min(start+500, n); i++ {
				it := Item{"pk": S("p" + strconv.Itoa(i/per)), "sk": NInt(int64(i % per)), "name": S("benchmark item"), "pad": S(pad)}
				if _, err := tbl.Put(tr, PutInput{Item: it}); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// rawRangeDecode is an op that reads range r in one transaction of db,
// decodes every value as an item and fails unless there are want.
func rawRangeDecode(db fdb.Database, r fdb.KeyRange, want int) func() error {
	return func() error {
		items, err := ReadTransact(db, func(tr fdb.ReadTransaction) ([]Item, error) {
			kvs, err := tr.GetRange(r, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).GetSliceWithError()
			if err != nil {
				return nil, err
			}
			items := make([]Item, len(kvs))
			for i, kv := range kvs {
				if items[i], err = DecodeItem(kv.Value); err != nil {
					return nil, err
				}
			}
			return items, nil
		})
		if err == nil && len(items) != want {
			err = fmt.Errorf("raw: %d items, want %d", len(items), want)
		}
		return err
	}
}

// queryOp is an op that runs Query in on tbl and fails unless it returns
// want items.
func queryOp(db fdb.Database, tbl *Table, in QueryInput, want int) func() error {
	return func() error {
		out, err := tbl.Query(db, in)
		if err == nil && len(out.Items) != want {
			err = fmt.Errorf("Query: %d items, want %d", len(out.Items), want)
		}
		return err
	}
}

func BenchmarkQuery(b *testing.B) {
	db, tbl := benchTableOf(b, hashRange)
	loadPartitions(b, db, tbl, 300, 100, 1024)
	in := QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("p1")}}
	out, err := tbl.Query(db, in)
	if err != nil || len(out.Items) != 100 {
		b.Fatalf("Query: %d items, %v", len(out.Items), err)
	}
	enc, _ := EncodeItem(out.Items[0])
	benchRun(b, "items=100/size=1KB/fdyno", 100*len(enc), queryOp(db, tbl, in, 100))
	st := tbl.state.Load()
	p, _ := packKeyValues(S("p1"))
	r := fdb.KeyRange{Begin: st.keys.itemKey(p), End: st.keys.itemKey(append(p, 0xff))}
	benchRun(b, "items=100/size=1KB/raw-range-decode", 100*len(enc), rawRangeDecode(db, r, 100))
}

// BenchmarkQueryTableSize queries 10 items of one partition of tables of
// 10k, 100k and 1M items: the cost follows the result, not the table.
// (Loading 1M items takes about half a minute.)
func BenchmarkQueryTableSize(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run("items="+strconv.Itoa(n/1000)+"k", func(b *testing.B) {
			db, tbl := benchTableOf(b, hashRange)
			loadPartitions(b, db, tbl, n, 10, 100)
			in := QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("p" + strconv.Itoa(n/20))}}
			b.ReportAllocs()
			benchLoop(b, queryOp(db, tbl, in, 10))
		})
	}
}
