package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/fdyno/fdyno"
)

// BenchmarkGetRecords reads a page of 100 change records of 1 KB items
// (NEW_IMAGE) from TRIM_HORIZON: one GetRecords through the SDK and the
// server over loopback, the same through the handler alone, the
// library's GetRecords, and the raw FoundationDB operation (one range
// read of 100 values of 1 KB).
func BenchmarkGetRecords(b *testing.B) {
	const n = 100
	ts, c := newTestClient(b, Config{Logger: slog.New(slog.DiscardHandler), TTLSweepInterval: -1})
	sc := ts.streamsClient()
	createStreamTable(b, c, "BenchStream", types.StreamViewTypeNewImage)
	for i := range n {
		if _, err := c.PutItem(ctx(b), &dynamodb.PutItemInput{TableName: aws.String("BenchStream"), Item: benchItem(fmt.Sprint(i))}); err != nil {
			b.Fatal(err)
		}
	}
	it, err := sc.GetShardIterator(ctx(b), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(ts.streamARN("BenchStream")),
		ShardId: aws.String(shardID), ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sdk-server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := sc.GetRecords(context.Background(), &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
			if err != nil || len(out.Records) != n {
				b.Fatal(len(out.Records), err)
			}
		}
	})
	b.Run("handler", func(b *testing.B) {
		b.ReportAllocs()
		body := `{"ShardIterator":"` + aws.ToString(it.ShardIterator) + `"}`
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("Content-Type", contentType)
			req.Header.Set("X-Amz-Target", streamsTargetPrefix+"GetRecords")
			rec := httptest.NewRecorder()
			ts.Server.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d %s", rec.Code, rec.Body)
			}
		}
	})
	tbl, err := ts.openTable("BenchStream")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := tbl.GetRecords(ts.db.DB, fdyno.GetRecordsInput{})
			if err != nil || len(out.Records) != n {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-fdb", func(b *testing.B) {
		benchRawRange(b, ts.db.DB, "server-bench/records/", n, []byte(strings.Repeat("x", benchPayload)))
	})
}
