package server

import (
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// BenchmarkMetrics measures what instrumentation costs a request: the
// bookkeeping alone (one request counter, one histogram observation, one
// transaction counter), sequential and from parallel goroutines, and a
// whole GetItem through ServeHTTP with and without metrics, in the same
// run.
func BenchmarkMetrics(b *testing.B) {
	ts, c := newTestClient(b, Config{Logger: slog.New(slog.DiscardHandler), TTLSweepInterval: -1})
	createTable(b, c, "Bench", "", "")
	if _, err := c.PutItem(ctx(b), &dynamodb.PutItemInput{TableName: aws.String("Bench"), Item: benchItem("k")}); err != nil {
		b.Fatal(err)
	}
	m := ts.metrics
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.transaction("read")
			m.request("GetItem", nil, 250*time.Microsecond)
		}
	})
	b.Run("record-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.transaction("read")
				m.request("GetItem", nil, 250*time.Microsecond)
			}
		})
	})
	get := func() string { return `{"TableName":"Bench","Key":{"pk":{"S":"k"}}}` }
	b.Run("handler-GetItem/no-metrics", func(b *testing.B) {
		db := ts.db
		ts.metrics, ts.db = nil, newTransactor(db.DB, DefaultTransactionTimeout, nil)
		defer func() { ts.metrics, ts.db = m, db }()
		benchHandler(b, ts, "GetItem", get)
	})
	b.Run("handler-GetItem/metrics", func(b *testing.B) {
		benchHandler(b, ts, "GetItem", get)
	})
}
