package server

import (
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
)

// BenchmarkBackgroundWork measures the background work per item of the
// TTL sweeper (N expired items deleted) and of the stream trimmer (N
// records past the retention removed), with one server and with three
// servers on one database walking at once, as their loops do on a
// cluster. The leases (background.go) make one server do each table's
// job: per item, the work (items examined, transactions, read waves,
// commits) is the same with three servers as with one, the others paying
// only a fixed cost per walk (listing the tables, describing them, and
// finding the lease held), whatever the number of items: two sizes show
// it. It reports, per item: scanned (items the
// servers examined, or records they trimmed), txns (read versions),
// reads (read waves), commits, and ns. raw is the same deletion made
// with FoundationDB's own operations: pages of 100 keys read and
// cleared, a transaction each.
func BenchmarkBackgroundWork(b *testing.B) {
	for _, job := range []string{"ttl-sweep", "stream-trim"} {
		for _, items := range []int{1000, 4000} {
			for _, servers := range []int{1, 3} {
				b.Run(job+"/items="+strconv.Itoa(items)+"/servers="+strconv.Itoa(servers), func(b *testing.B) {
					benchBackgroundWork(b, job, servers, items)
				})
			}
		}
	}
	const items = 1000
	b.Run("raw", func(b *testing.B) {
		db := fdblitetest.OpenIsolated(b)
		var trips fdblitetest.RoundTrips
		var took time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				for k := range items {
					tr.Set(fdb.Key("raw/"+strconv.Itoa(100000+k)), make([]byte, 64))
				}
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			start := time.Now()
			rt, err := fdblitetest.CountRoundTrips(db, func() error {
				begin := fdb.Key("raw/")
				for {
					n, err := db.Transact(func(tr fdb.Transaction) (any, error) {
						kvs, err := tr.GetRange(fdb.KeyRange{Begin: begin, End: fdb.Key("raw0")}, fdb.RangeOptions{Limit: 100}).GetSliceWithError()
						if err != nil || len(kvs) == 0 {
							return 0, err
						}
						tr.ClearRange(fdb.KeyRange{Begin: kvs[0].Key, End: append(kvs[len(kvs)-1].Key, 0)})
						begin = append(kvs[len(kvs)-1].Key, 0)
						return len(kvs), nil
					})
					if err != nil || n.(int) == 0 {
						return err
					}
				}
			})
			took += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			trips = addTrips(trips, rt)
		}
		reportPerItem(b, trips, took, float64(items*b.N), float64(items*b.N))
	})
}

// benchBackgroundWork is one case of BenchmarkBackgroundWork: each
// iteration writes items items (expired, or with a change record each)
// untimed, moves the servers' clock past their expiry or the stream's
// retention, and times one walk of every server at once.
func benchBackgroundWork(b *testing.B, job string, servers, items int) {
	db := fdblitetest.OpenIsolated(b)
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	cfg := Config{DB: db, Now: now, Logger: slog.New(slog.DiscardHandler), TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1}
	var all []*testServer
	for range servers {
		all = append(all, newTestServer(b, cfg))
	}
	c := all[0].client(testCredentials)
	createTable(b, c, "Work", "", "")
	switch job {
	case "ttl-sweep":
		if _, err := c.UpdateTimeToLive(ctx(b), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Work"),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
			b.Fatal(err)
		}
	case "stream-trim":
		if _, err := c.UpdateTable(ctx(b), &dynamodb.UpdateTableInput{TableName: aws.String("Work"),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}}); err != nil {
			b.Fatal(err)
		}
	}
	tbl, err := all[0].openTable("Work")
	if err != nil {
		b.Fatal(err)
	}
	const interval = time.Minute
	const retention = time.Hour
	work := func() float64 { // items examined, or records trimmed, by every server so far
		sum := 0.0
		for _, ts := range all {
			name := "fdyno_ttl_items_scanned_total"
			if job == "stream-trim" {
				name = "fdyno_stream_records_trimmed_total"
			}
			sum += value(gather(b, ts), name)
		}
		return sum
	}
	var trips fdblitetest.RoundTrips
	var took time.Duration
	var scanned float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		exp := fdyno.N(strconv.FormatInt(now().Unix()-60, 10))
		for first := 0; first < items; first += 100 {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				for k := first; k < first+100 && k < items; k++ {
					if _, err := tbl.Put(tr, fdyno.PutInput{Item: fdyno.Item{"pk": fdyno.S("k" + strconv.Itoa(k)), "exp": exp}}); err != nil {
						return nil, err
					}
				}
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		clock.Advance(retention + interval)
		before := work()
		b.StartTimer()
		start := time.Now()
		rt, err := fdblitetest.CountRoundTrips(db, func() error {
			var wg sync.WaitGroup
			for _, ts := range all {
				wg.Add(1)
				go func() {
					defer wg.Done()
					switch job {
					case "ttl-sweep":
						ts.sweepOnce(b.Context(), 0, leasePeriod(interval))
					case "stream-trim":
						ts.trimOnce(b.Context(), retention, leasePeriod(interval))
					}
				}()
			}
			wg.Wait()
			return nil
		})
		took += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		trips = addTrips(trips, rt)
		scanned += work() - before
		b.StartTimer()
	}
	reportPerItem(b, trips, took, scanned, float64(items*b.N))
}

// reportPerItem reports the work of b per item.
func reportPerItem(b *testing.B, trips fdblitetest.RoundTrips, took time.Duration, scanned, items float64) {
	b.ReportMetric(scanned/items, "scanned/item")
	b.ReportMetric(float64(trips.ReadVersions)/items, "txns/item")
	b.ReportMetric(float64(trips.ReadWaves)/items, "reads/item")
	b.ReportMetric(float64(trips.Commits)/items, "commits/item")
	b.ReportMetric(float64(took.Nanoseconds())/items, "ns/item")
}

func addTrips(a, b fdblitetest.RoundTrips) fdblitetest.RoundTrips {
	return fdblitetest.RoundTrips{ReadVersions: a.ReadVersions + b.ReadVersions, ReadWaves: a.ReadWaves + b.ReadWaves, Commits: a.Commits + b.Commits}
}
