package server

import (
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
)

// BenchmarkGetItemDuringRestore measures what a background restore costs
// the requests served meanwhile: the latency of GetItem (one client,
// through the SDK) with nothing else running, then while the server
// restores a backup of restoreBenchItems items of 1 KB in the background
// (paced: backup_jobs.go), and the restore's throughput. Run it with
// -benchtime 1x: each run loads, backs up and restores the table once.
func BenchmarkGetItemDuringRestore(b *testing.B) {
	const restoreBenchItems = 20000
	ts, c, tbl, db := benchSetup(b)
	for i := 0; i < restoreBenchItems; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < i+25; j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: benchItem("k" + strconv.Itoa(j))}})
		}
		if _, err := c.BatchWriteItem(ctx(b), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Bench": reqs}}); err != nil {
			b.Fatal(err)
		}
	}
	bk, err := tbl.CreateBackup(db, "bench")
	if err != nil {
		b.Fatal(err)
	}
	arn := ts.backupARN("Bench", bk.BackupID)
	get := func(i int) time.Duration {
		start := time.Now()
		out, err := c.GetItem(ctx(b), &dynamodb.GetItemInput{TableName: aws.String("Bench"),
			Key: map[string]types.AttributeValue{"pk": s("k" + strconv.Itoa(i%restoreBenchItems))}})
		if err != nil || out.Item == nil {
			b.Fatal(out, err)
		}
		return time.Since(start)
	}
	report := func(b *testing.B, lat []time.Duration) {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		b.ReportMetric(float64(len(lat)), "gets")
	}
	b.Run("idle", func(b *testing.B) {
		var lat []time.Duration
		for i := range 3000 {
			lat = append(lat, get(i))
		}
		report(b, lat)
	})
	run := 0
	b.Run("restoring", func(b *testing.B) {
		run++
		target := "Copy" + strconv.Itoa(run)
		start := time.Now()
		if _, err := c.RestoreTableFromBackup(ctx(b), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(target)}); err != nil {
			b.Fatal(err)
		}
		var lat []time.Duration
		for i := 0; ; i++ {
			lat = append(lat, get(i))
			if i%50 == 0 {
				if _, err := fdyno.DescribeRestore(db, target, ts.tableOptions()...); errors.Is(err, fdyno.ErrResourceNotFound) {
					break
				}
			}
		}
		took := time.Since(start)
		report(b, lat)
		b.ReportMetric(float64(restoreBenchItems)/took.Seconds(), "restored-items/s")
	})
}
