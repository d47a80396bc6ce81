package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
)

// The benchmarks compare one GetItem or PutItem of a 1 KB item made
// three ways in the same run: through the AWS SDK for Go v2 and the
// server over loopback HTTP (sequential, and from parallel goroutines),
// by calling the library directly, and as the raw FoundationDB operation
// (one Get or Set of a 1 KB value).

const benchPayload = 1000

func benchSetup(b *testing.B) (*testServer, *dynamodb.Client, *fdyno.Table, fdb.Database) {
	ts, c := newTestClient(b, Config{Logger: slog.New(slog.DiscardHandler)})
	createTable(b, c, "Bench", "", "")
	tbl, err := ts.openTable("Bench")
	if err != nil {
		b.Fatal(err)
	}
	return ts, c, tbl, ts.db.DB
}

func benchItem(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s(pk), "payload": s(strings.Repeat("x", benchPayload))}
}

func BenchmarkGetItem(b *testing.B) {
	ts, c, tbl, db := benchSetup(b)
	if _, err := c.PutItem(ctx(b), &dynamodb.PutItemInput{TableName: aws.String("Bench"), Item: benchItem("k")}); err != nil {
		b.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": s("k")}
	in := &dynamodb.GetItemInput{TableName: aws.String("Bench"), Key: key}
	b.Run("sdk-server", func(b *testing.B) { benchSDKGet(b, c, in) })
	b.Run("sdk-server-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				out, err := c.GetItem(context.Background(), in)
				if err != nil || out.Item == nil {
					b.Fatal(out, err)
				}
			}
		})
	})
	b.Run("http-server", func(b *testing.B) {
		benchRawHTTP(b, ts, "GetItem", func() string { return `{"TableName":"Bench","Key":{"pk":{"S":"k"}}}` })
	})
	b.Run("handler", func(b *testing.B) {
		benchHandler(b, ts, "GetItem", func() string { return `{"TableName":"Bench","Key":{"pk":{"S":"k"}}}` })
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		k := fdyno.Item{"pk": fdyno.S("k")}
		for b.Loop() {
			out, err := tbl.Get(db, fdyno.GetInput{Key: k})
			if err != nil || out.Item == nil {
				b.Fatal(out, err)
			}
		}
	})
	b.Run("raw-fdb", func(b *testing.B) {
		benchRawGet(b, db, fdb.Key("server-bench/get"))
	})
}

// benchRawRange is the raw FoundationDB sibling of a read of n items:
// it sets n keys under prefix to v, then reads their range in b's loop,
// one read transaction each.
func benchRawRange(b *testing.B, db fdb.Database, prefix string, n int, v []byte) {
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		for i := range n {
			tr.Set(fdb.Key(fmt.Sprintf("%s%03d", prefix, i)), v)
		}
		return nil, nil
	}); err != nil {
		b.Fatal(err)
	}
	r, err := fdb.PrefixRange([]byte(prefix))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		kvs, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			return rt.GetRange(r, fdb.RangeOptions{}).GetSliceWithError()
		})
		if err != nil || len(kvs.([]fdb.KeyValue)) != n {
			b.Fatal(kvs, err)
		}
	}
}

// benchSDKGet runs GetItem in through c in b's loop; the item must exist.
func benchSDKGet(b *testing.B, c *dynamodb.Client, in *dynamodb.GetItemInput) {
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		out, err := c.GetItem(context.Background(), in)
		if err != nil || out.Item == nil {
			b.Fatal(out, err)
		}
	}
	cpu.report(b)
}

// cpuClock measures the CPU time the process (client, server and the
// database's thread together) spends in a benchmark's loop: unlike
// ns/op, it does not grow when other work shares the machine's cores.
type cpuClock struct{ start time.Duration }

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{processCPU()} }

// report adds the CPU time per iteration as the metric cpu-ns/op.
func (c cpuClock) report(b *testing.B) {
	b.ReportMetric(float64(processCPU()-c.start)/float64(b.N), "cpu-ns/op")
}

// benchRawGet is the raw FoundationDB sibling of a GetItem: it sets key
// to a value of the item's size, then reads it in b's loop, one read
// transaction each.
func benchRawGet(b *testing.B, db fdb.Database, key fdb.Key) {
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(key, []byte(strings.Repeat("x", benchPayload)))
		return nil, nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) { return rt.Get(key).Get() }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPutItem(b *testing.B) {
	ts, c, tbl, db := benchSetup(b)
	var seq atomic.Int64
	b.Run("sdk-server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			it := benchItem(fmt.Sprint(seq.Add(1) % 1000))
			if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Bench"), Item: it}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk-server-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				it := benchItem(fmt.Sprint(seq.Add(1) % 1000))
				if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Bench"), Item: it}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("http-server", func(b *testing.B) {
		payload := strings.Repeat("x", benchPayload)
		benchRawHTTP(b, ts, "PutItem", func() string {
			return `{"TableName":"Bench","Item":{"pk":{"S":"` + fmt.Sprint(seq.Add(1)%1000) + `"},"payload":{"S":"` + payload + `"}}}`
		})
	})
	b.Run("handler", func(b *testing.B) {
		payload := strings.Repeat("x", benchPayload)
		benchHandler(b, ts, "PutItem", func() string {
			return `{"TableName":"Bench","Item":{"pk":{"S":"` + fmt.Sprint(seq.Add(1)%1000) + `"},"payload":{"S":"` + payload + `"}}}`
		})
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		payload := fdyno.S(strings.Repeat("x", benchPayload))
		for b.Loop() {
			it := fdyno.Item{"pk": fdyno.S(fmt.Sprint(seq.Add(1) % 1000)), "payload": payload}
			if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-fdb", func(b *testing.B) {
		b.ReportAllocs()
		v := []byte(strings.Repeat("x", benchPayload))
		for b.Loop() {
			key := fdb.Key(fmt.Sprint("server-bench/put/", seq.Add(1)%1000))
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				tr.Set(key, v)
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchRawHTTP posts prebuilt request bodies with net/http alone: the
// server's cost without the SDK's.
func benchRawHTTP(b *testing.B, ts *testServer, op string, body func() string) {
	b.ReportAllocs()
	c := ts.http.Client()
	for b.Loop() {
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body()))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("X-Amz-Target", targetPrefix+op)
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: status %d", op, resp.StatusCode)
		}
	}
}

// benchHandler calls the Server's ServeHTTP directly, without a network:
// the cost of decoding, dispatch, the library call and encoding.
func benchHandler(b *testing.B, ts *testServer, op string, body func() string) {
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body()))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("X-Amz-Target", targetPrefix+op)
		rec := httptest.NewRecorder()
		ts.Server.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: status %d %s", op, rec.Code, rec.Body)
		}
	}
}

// BenchmarkBatchGetItem reads 100 items of 1 KB: one BatchGetItem through
// the SDK and the server, the same through the handler alone, the
// library's BatchGet, 100 GetItems through the SDK and the server, and the
// raw FoundationDB operation (100 Gets in flight in one read
// transaction).
func BenchmarkBatchGetItem(b *testing.B) {
	ts, c, tbl, db := benchSetup(b)
	const n = 100
	var reqs []types.WriteRequest
	keys := make([]map[string]types.AttributeValue, n)
	libKeys := make([]fdyno.Item, n)
	var body strings.Builder
	body.WriteString(`{"RequestItems":{"Bench":{"Keys":[`)
	for i := range n {
		pk := fmt.Sprint("b", i)
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: benchItem(pk)}})
		keys[i] = map[string]types.AttributeValue{"pk": s(pk)}
		libKeys[i] = fdyno.Item{"pk": fdyno.S(pk)}
		if i > 0 {
			body.WriteString(",")
		}
		body.WriteString(`{"pk":{"S":"` + pk + `"}}`)
		if len(reqs) == 25 {
			if _, err := c.BatchWriteItem(ctx(b), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Bench": reqs}}); err != nil {
				b.Fatal(err)
			}
			reqs = nil
		}
	}
	body.WriteString(`]}}}`)
	b.Run("sdk-server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := c.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"Bench": {Keys: keys}}})
			if err != nil || len(out.Responses["Bench"]) != n {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk-server-100-GetItems", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, k := range keys {
				if _, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("Bench"), Key: k}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("handler", func(b *testing.B) {
		benchHandler(b, ts, "BatchGetItem", body.String)
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := fdyno.BatchGet(db, fdyno.BatchGetInput{RequestItems: map[*fdyno.Table]fdyno.KeysAndAttributes{tbl: {Keys: libKeys}}})
			if err != nil || len(out.Responses[tbl]) != n {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-fdb", func(b *testing.B) {
		b.ReportAllocs()
		v := []byte(strings.Repeat("x", benchPayload))
		rawKeys := make([]fdb.Key, n)
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			for i := range rawKeys {
				rawKeys[i] = fdb.Key(fmt.Sprint("server-bench/batch/", i))
				tr.Set(rawKeys[i], v)
			}
			return nil, nil
		}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
				fs := make([]fdb.FutureByteSlice, n)
				for i, k := range rawKeys {
					fs[i] = rt.Get(k)
				}
				for _, f := range fs {
					if _, err := f.Get(); err != nil {
						return nil, err
					}
				}
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTransactWriteItems writes 10 items of 1 KB all or nothing: one
// TransactWriteItems through the SDK and the server, through the handler
// alone, the library's TransactWrite, and the raw FoundationDB operation
// (10 Sets in one transaction).
func BenchmarkTransactWriteItems(b *testing.B) {
	ts, c, tbl, db := benchSetup(b)
	const n = 10
	var seq atomic.Int64
	payload := strings.Repeat("x", benchPayload)
	b.Run("sdk-server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items := make([]types.TransactWriteItem, n)
			for i := range items {
				items[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String("Bench"), Item: benchItem(fmt.Sprint("t", seq.Add(1)%1000))}}
			}
			if _, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handler", func(b *testing.B) {
		benchHandler(b, ts, "TransactWriteItems", func() string {
			var sb strings.Builder
			sb.WriteString(`{"TransactItems":[`)
			for i := range n {
				if i > 0 {
					sb.WriteString(",")
				}
				sb.WriteString(`{"Put":{"TableName":"Bench","Item":{"pk":{"S":"t` + fmt.Sprint(seq.Add(1)%1000) + `"},"payload":{"S":"` + payload + `"}}}}`)
			}
			sb.WriteString(`]}`)
			return sb.String()
		})
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items := make([]fdyno.TransactWriteItem, n)
			for i := range items {
				items[i] = fdyno.TransactWriteItem{Put: &fdyno.TransactPut{Table: tbl, Item: fdyno.Item{"pk": fdyno.S(fmt.Sprint("t", seq.Add(1)%1000)), "payload": fdyno.S(payload)}}}
			}
			if _, err := fdyno.TransactWrite(db, fdyno.TransactWriteInput{TransactItems: items}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-fdb", func(b *testing.B) {
		b.ReportAllocs()
		v := []byte(payload)
		for b.Loop() {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				for range n {
					tr.Set(fdb.Key(fmt.Sprint("server-bench/tx/", seq.Add(1)%1000)), v)
				}
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
