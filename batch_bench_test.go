package fdyno

import (
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Batch and transaction benchmarks, each beside the
// item-at-a-time way and the raw FoundationDB operations it amounts to,
// on the same fdblite database.

// batchPerKey starts measuring a benchmark whose op handles n keys; the
// function it returns, called after the loop, reports the wall time per
// key and the process's CPU time per key (user and system, every thread:
// fdblite's included), which a busy machine disturbs less than wall time.
func batchPerKey(b *testing.B, n int) func() {
	cpu0 := batchCPUTime()
	return func() {
		ops := float64(b.N) * float64(n)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ops, "ns/key")
		b.ReportMetric(float64((batchCPUTime()-cpu0).Nanoseconds())/ops, "cpu-ns/key")
	}
}

// benchRunPerKey runs op, which handles n keys, as the sub-benchmark
// name, reporting allocations and the times per key of [batchPerKey].
func benchRunPerKey(b *testing.B, name string, n int, op func() error) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		done := batchPerKey(b, n)
		benchLoop(b, op)
		done()
	})
}

func batchCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkBatchGet(b *testing.B) {
	for _, size := range []int{100, 1024} {
		benchmarkBatchGet(b, size)
	}
}

func benchmarkBatchGet(b *testing.B, size int) {
	db, tbl := benchTable(b)
	const n = 100
	name := "keys=100/size=" + strconv.Itoa(size) + "B/"
	var keys []Item
	var raw []fdb.Key
	var reqs []WriteRequest
	for i := range n {
		it := benchItem("k"+strconv.Itoa(i), size)
		reqs = append(reqs, putReq(it))
		keys = append(keys, Item{"pk": it["pk"]})
		raw = append(raw, rawKey(tbl, it))
	}
	if _, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: reqs}}); err != nil {
		b.Fatal(err)
	}
	in := BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{tbl: {Keys: keys}}}
	benchRunPerKey(b, name+"fdyno-BatchGet", n, func() error {
		out, err := BatchGet(db, in)
		if err == nil && len(out.Responses[tbl]) != n {
			err = fmt.Errorf("BatchGet returned %d items, want %d", len(out.Responses[tbl]), n)
		}
		return err
	})
	benchRunPerKey(b, name+"fdyno-Get-each-own-transaction", n, func() error {
		for _, k := range keys {
			if _, err := tbl.Get(db, GetInput{Key: k}); err != nil {
				return err
			}
		}
		return nil
	})
	benchRunPerKey(b, name+"fdyno-Get-all-in-one-transaction", n, readOp(db, func(rt fdb.ReadTransaction) (any, error) {
		for _, k := range keys {
			if _, err := tbl.Get(rt, GetInput{Key: k}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}))
	// What BatchGet amounts to: the metadata version and 100 gets started
	// at once, then awaited and decoded.
	benchRunPerKey(b, name+"raw-parallel-gets-decode", n, readOp(db, func(rt fdb.ReadTransaction) (any, error) {
		mv := rt.Snapshot().Get(metadataVersionKey)
		fs := make([]fdb.FutureByteSlice, len(raw))
		for i, k := range raw {
			fs[i] = rt.Get(k)
		}
		if _, err := mv.Get(); err != nil {
			return nil, err
		}
		for _, f := range fs {
			v, err := f.Get()
			if err != nil {
				return nil, err
			}
			if _, err := DecodeItem(v); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}))
	// And what 100 separate Gets amount to: 100 one-get transactions.
	benchRunPerKey(b, name+"raw-get-each-own-transaction", n, func() error {
		for _, k := range raw {
			if err := readOp(db, rawGetDecode(k))(); err != nil {
				return err
			}
		}
		return nil
	})
}

func BenchmarkTransactWrite(b *testing.B) {
	db, tbl := benchTable(b)
	const n = 10
	var items []Item
	var raw []fdb.Key
	for i := range n {
		it := benchItem("t"+strconv.Itoa(i), 1024)
		items = append(items, it)
		raw = append(raw, rawKey(tbl, it))
	}
	puts := make([]TransactWriteItem, n)
	conditional := make([]TransactWriteItem, n)
	var batch []WriteRequest
	for i, it := range items {
		puts[i] = TransactWriteItem{Put: &TransactPut{Table: tbl, Item: it}}
		conditional[i] = TransactWriteItem{Put: &TransactPut{Table: tbl, Item: it, ConditionExpression: "attribute_not_exists(pk) OR n = :one",
			ExpressionAttributeValues: map[string]Value{":one": N("1")}}}
		batch = append(batch, putReq(it))
	}
	// The items exist, so that every sub-benchmark (run alone too)
	// overwrites them and the conditional ones read them.
	if _, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: batch}}); err != nil {
		b.Fatal(err)
	}
	benchRunPerKey(b, "items=10/size=1KB/fdyno-TransactWrite", n, func() error {
		_, err := TransactWrite(db, TransactWriteInput{TransactItems: puts})
		return err
	})
	benchRunPerKey(b, "items=10/size=1KB/fdyno-TransactWrite-conditional", n, func() error {
		_, err := TransactWrite(db, TransactWriteInput{TransactItems: conditional})
		return err
	})
	// Tokens are numbered across runs of the sub-benchmark (-count), so
	// none is a repeat that DynamoDB would answer without writing.
	token := 0
	benchRunPerKey(b, "items=10/size=1KB/fdyno-TransactWrite-token", n, func() error {
		token++
		_, err := TransactWrite(db, TransactWriteInput{TransactItems: puts, ClientRequestToken: "bench-" + strconv.Itoa(token)})
		return err
	})
	batchIn := BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: batch}}
	benchRunPerKey(b, "items=10/size=1KB/fdyno-BatchWrite", n, func() error {
		_, err := BatchWrite(db, batchIn)
		return err
	})
	benchRunPerKey(b, "items=10/size=1KB/fdyno-Put-each-own-transaction", n, func() error {
		for _, it := range items {
			if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
				return err
			}
		}
		return nil
	})
	// What an unconditional TransactWrite of puts amounts to: encode, ten
	// sets, one commit.
	benchRunPerKey(b, "items=10/size=1KB/raw-encode-sets-one-commit", n, txOp(db, func(tr fdb.Transaction) (any, error) {
		for i, it := range items {
			enc, err := EncodeItem(it)
			if err != nil {
				return nil, err
			}
			tr.Set(raw[i], enc)
		}
		return nil, nil
	}))
	// What a conditional TransactWrite amounts to: the ten old items read
	// at once and decoded, then encode, ten sets, one commit.
	benchRunPerKey(b, "items=10/size=1KB/raw-parallel-gets-decode-encode-sets-one-commit", n, txOp(db, func(tr fdb.Transaction) (any, error) {
		fs := make([]fdb.FutureByteSlice, len(raw))
		for i, k := range raw {
			fs[i] = tr.Get(k)
		}
		for i, f := range fs {
			v, err := f.Get()
			if err != nil {
				return nil, err
			}
			if _, err := DecodeItem(v); err != nil {
				return nil, err
			}
			enc, err := EncodeItem(items[i])
			if err != nil {
				return nil, err
			}
			tr.Set(raw[i], enc)
		}
		return nil, nil
	}))
	benchRunPerKey(b, "items=10/size=1KB/raw-encode-set-commit-each", n, func() error {
		for i, it := range items {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				enc, err := EncodeItem(it)
				if err != nil {
					return nil, err
				}
				tr.Set(raw[i], enc)
				return nil, nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
}
