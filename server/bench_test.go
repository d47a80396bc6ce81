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
	"testing"

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
	ts := newTestServer(b, Config{Logger: slog.New(slog.DiscardHandler)})
	c := ts.client(testCredentials)
	createTable(b, c, "Bench", "", "")
	tbl, err := ts.table("Bench")
	if err != nil {
		b.Fatal(err)
	}
	return ts, c, tbl, ts.db.db
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
	b.Run("sdk-server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := c.GetItem(context.Background(), in)
			if err != nil || out.Item == nil {
				b.Fatal(out, err)
			}
		}
	})
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
		b.ReportAllocs()
		key := fdb.Key("server-bench/get")
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.Set(key, []byte(strings.Repeat("x", benchPayload)))
			return nil, nil
		}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) { return rt.Get(key).Get() }); err != nil {
				b.Fatal(err)
			}
		}
	})
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
