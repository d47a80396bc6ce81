package server

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"pgregory.net/rapid"
)

// scrape GETs /metrics as Prometheus would and parses the text.
func (ts *testServer) scrape(t testing.TB) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := ts.http.Client().Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("GET /metrics is not Prometheus text: %v", err)
	}
	return fams
}

// value returns the value of the counter, gauge or (its sample count)
// histogram of family name whose labels are exactly labels, or -1 if
// there is none.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
next:
	for _, m := range f.Metric {
		if len(m.Label) != len(want) {
			continue
		}
		for _, l := range m.Label {
			if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

// Requests are counted by operation and by result as the client saw it:
// success, or the DynamoDB error name the SDK received.
func TestMetricsRequests(t *testing.T) {
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1})
	createTable(t, c, "Music", "", "")
	tbl := aws.String("Music")
	for i := range 3 {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: avMap{"pk": s(fmt.Sprint(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: avMap{"pk": s("0")}, ConditionExpression: aws.String("attribute_not_exists(pk)")})
	wantAPIError(t, err, "ConditionalCheckFailedException", "")
	if _, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: avMap{"pk": s("1")}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Nope"), Key: avMap{"pk": s("1")}})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: avMap{"pk": n("1")}})
	wantAPIError(t, err, "ValidationException", "")
	// An operation the server does not serve is one "unknown" series,
	// whatever its name, so clients cannot add series at will.
	for _, op := range []string{"NoSuchOperation", "AnotherMadeUpOne"} {
		if status, name, _ := ts.post(t, targetPrefix+op, contentType, strings.NewReader("{}")); status != http.StatusBadRequest || name != "UnknownOperationException" {
			t.Fatalf("%s: status %d %s, want 400 UnknownOperationException", op, status, name)
		}
	}

	fams := ts.scrape(t)
	const reqs = "fdyno_requests_total"
	for _, tc := range []struct {
		op, result string
		want       float64
	}{
		{"CreateTable", "success", 1},
		{"PutItem", "success", 3},
		{"PutItem", "ConditionalCheckFailedException", 1},
		{"GetItem", "success", 1},
		{"GetItem", "ResourceNotFoundException", 1},
		{"GetItem", "ValidationException", 1},
		{"unknown", "UnknownOperationException", 2},
		{"DeleteItem", "success", -1}, // never called: no series
	} {
		if got := value(fams, reqs, "operation", tc.op, "result", tc.result); got != tc.want {
			t.Errorf("%s{operation=%q,result=%q} = %v, want %v", reqs, tc.op, tc.result, got, tc.want)
		}
	}
	const lat = "fdyno_request_duration_seconds"
	if got := value(fams, lat, "operation", "PutItem"); got != 4 {
		t.Errorf("%s{operation=PutItem} count = %v, want 4", lat, got)
	}
	if got := value(fams, lat, "operation", "GetItem"); got != 3 {
		t.Errorf("%s{operation=GetItem} count = %v, want 3", lat, got)
	}
	if f := fams[lat]; f == nil || f.GetType() != dto.MetricType_HISTOGRAM || len(f.Metric[0].Histogram.Bucket) != len(latencyBuckets)+1 {
		t.Errorf("%s is not a histogram with %d buckets and +Inf: %v", lat, len(latencyBuckets), f)
	}
	// Every write request ran at least one write transaction; CreateTable
	// and GetItem ran theirs too.
	if got := value(fams, "fdyno_fdb_transactions_total", "kind", "write"); got < 4 {
		t.Errorf("write transactions = %v, want at least 4 (the puts)", got)
	}
	if got := value(fams, "fdyno_fdb_transactions_total", "kind", "read"); got < 1 {
		t.Errorf("read transactions = %v, want at least 1 (the GetItem)", got)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "fdyno_fdb_transaction_conflicts_total", "fdyno_ttl_items_deleted_total", "fdyno_stream_records_trimmed_total"} {
		if fams[name] == nil {
			t.Errorf("no %s in the scrape", name)
		}
	}

	// Scrapes are not requests, and /metrics only answers GET.
	if got := value(ts.scrape(t), reqs, "operation", "unknown", "result", "UnknownOperationException"); got != 2 {
		t.Errorf("after two scrapes, unknown requests = %v, want 2", got)
	}
	if status, name, _ := ts.post(t, "", contentType, strings.NewReader("{}")); status != http.StatusBadRequest || name != "UnknownOperationException" {
		t.Errorf("POST without a target: status %d %s", status, name)
	}
}

// Every FoundationDB conflict (not_committed, 1020) that a request's
// transaction meets is counted and retried: the counts equal fdblite's
// own count of the conflicts it injected.
func TestMetricsConflictsAndRetries(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	ts, c := newTestClient(t, Config{DB: db, TTLSweepInterval: -1})
	createTable(t, c, "Counters", "", "")
	update := func(i int) error {
		_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String("Counters"), Key: avMap{"pk": s(fmt.Sprint(i % 3))},
			UpdateExpression: aws.String("ADD hits :one"), ExpressionAttributeValues: avMap{":one": n("1")}})
		return err
	}
	if err := update(0); err != nil { // the server opens its table handle
		t.Fatal(err)
	}
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 7, CommitNotCommitted: 0.3}); err != nil {
		t.Fatal(err)
	}
	before, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	m0 := ts.scrape(t)
	const n = 60
	for i := 1; i <= n; i++ {
		if err := update(i); err != nil {
			t.Fatalf("UpdateItem %d: %v", i, err)
		}
	}
	after, err := fdblitetest.ReadStats(db) // a read: commit faults do not touch it
	if err != nil {
		t.Fatal(err)
	}
	m1 := ts.scrape(t)
	if err := fdblitetest.ClearFaults(db); err != nil {
		t.Fatal(err)
	}
	injected := float64(after.Injected.CommitNotCommitted - before.Injected.CommitNotCommitted + after.Conflicts - before.Conflicts)
	if injected == 0 {
		t.Fatal("fdblite injected no conflict in 60 commits at a rate of 0.3")
	}
	delta := func(name string, labels ...string) float64 {
		return max(value(m1, name, labels...), 0) - max(value(m0, name, labels...), 0)
	}
	if got := delta("fdyno_fdb_transaction_conflicts_total"); got != injected {
		t.Errorf("conflicts counted = %v, want %v (fdblite's count)", got, injected)
	}
	if got := delta("fdyno_fdb_transaction_errors_total", "kind", "write", "code", "1020"); got != injected {
		t.Errorf("errors{code=1020} counted = %v, want %v", got, injected)
	}
	if got := delta("fdyno_fdb_transaction_retries_total", "kind", "write"); got != injected {
		t.Errorf("write retries counted = %v, want %v (every conflict retried)", got, injected)
	}
	if got := delta("fdyno_fdb_transactions_total", "kind", "write"); got != n {
		t.Errorf("write transactions = %v, want %d (retries are not new transactions)", got, n)
	}
	if got := delta("fdyno_requests_total", "operation", "UpdateItem", "result", "success"); got != n {
		t.Errorf("UpdateItem successes = %v, want %d", got, n)
	}
	// The ADDs applied exactly once each, conflicts notwithstanding.
	total := 0
	for i := range 3 {
		out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Counters"), Key: avMap{"pk": s(fmt.Sprint(i))}})
		if err != nil {
			t.Fatal(err)
		}
		var h int
		fmt.Sscan(out.Item["hits"].(*types.AttributeValueMemberN).Value, &h)
		total += h
	}
	if total != n+1 {
		t.Errorf("sum of hits = %d, want %d", total, n+1)
	}
}

// waitMetric polls the scrape until name{labels} reaches want.
// checkRanWithoutError checks that the counter name of a background
// walk's runs by result counts at least one ok and no error.
func checkRanWithoutError(t *testing.T, fams map[string]*dto.MetricFamily, name string) {
	t.Helper()
	if ok, failed := value(fams, name, "result", "ok"), value(fams, name, "result", "error"); ok < 1 || failed != 0 {
		t.Errorf("%s: %v ok and %v error, want at least 1 ok and no error", name, ok, failed)
	}
}

func waitMetric(t *testing.T, ts *testServer, want float64, name string, labels ...string) {
	t.Helper()
	var got float64
	if !testtime.Poll(func() bool { got = value(ts.scrape(t), name, labels...); return got == want }) {
		t.Fatalf("%s%v = %v after %v, want %v", name, labels, got, testtime.Deadline, want)
	}
}

// Background work is counted: an index backfill that completes, and TTL
// sweeps that delete expired items.
func TestMetricsBackground(t *testing.T) {
	ts, c := newTestClient(t, Config{TTLSweepInterval: 20 * time.Millisecond})
	createTable(t, c, "Sessions", "", "")
	tbl := aws.String("Sessions")
	now := time.Now().Unix()
	for i := range 5 {
		exp := now + 3600
		if i < 3 {
			exp = now - 60 // expired
		}
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: avMap{"pk": s(fmt.Sprint(i)), "exp": n(fmt.Sprint(exp)), "user": s("u")}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: tbl,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	waitMetric(t, ts, 3, "fdyno_ttl_items_deleted_total")
	fams := ts.scrape(t)
	checkRanWithoutError(t, fams, "fdyno_ttl_sweeps_total")
	if got := value(fams, "fdyno_ttl_items_scanned_total"); got < 5 {
		t.Errorf("TTL items scanned = %v, want at least 5", got)
	}

	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{
		TableName:            tbl,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("user"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byUser"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("user"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}}},
	}); err != nil {
		t.Fatal(err)
	}
	waitIndexActive(t, c, "Sessions", "byUser")
	waitMetric(t, ts, 1, "fdyno_index_backfills_total", "result", "done")
	fams = ts.scrape(t)
	want := map[string]float64{"running": 0, "stopped": 0, "abandoned": 0}
	got := map[string]float64{
		"running":   value(fams, "fdyno_index_backfills_running"),
		"stopped":   value(fams, "fdyno_index_backfills_total", "result", "stopped"),
		"abandoned": value(fams, "fdyno_index_backfills_total", "result", "abandoned"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backfill metrics after one backfill (-want +got):\n%s", diff)
	}
}

// The stream trimmer removes records older than the retention and counts
// them; a reader from TRIM_HORIZON then finds none.
func TestMetricsStreamTrims(t *testing.T) {
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1, StreamRetention: time.Millisecond, StreamTrimInterval: 20 * time.Millisecond})
	createStreamTable(t, c, "Events", types.StreamViewTypeKeysOnly)
	createTable(t, c, "Quiet", "", "") // no stream: not trimmed, not an error
	for i := range 4 {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Events"), Item: avMap{"pk": s(fmt.Sprint(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	waitMetric(t, ts, 4, "fdyno_stream_records_trimmed_total")
	fams := ts.scrape(t)
	checkRanWithoutError(t, fams, "fdyno_stream_trims_total")

	sc := ts.streamsClient()
	arn := ts.streamARN("Events")
	d, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	it, err := sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
		ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs.Records) != 0 {
		t.Errorf("GetRecords from TRIM_HORIZON after the trim = %d records, want 0", len(recs.Records))
	}
}

// Against a model: after any sequence of requests of known outcome, the
// request counters and latency counts equal the model's tallies. The
// server and the model live across rapid's runs (a server per run would
// cost more than the requests), so each run checks the running totals;
// after a first failure, shrunk runs may report the same drift.
func TestRapidMetricsRequests(t *testing.T) {
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1})
	createTable(t, c, "Model", "", "")
	model := map[[2]string]float64{{"CreateTable", "success"}: 1}
	rapid.Check(t, func(rt *rapid.T) {
		type action struct {
			op, result string
			do         func() error
		}
		tbl := aws.String("Model")
		actions := []action{
			{"PutItem", "success", func() error {
				_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: avMap{"pk": s("a")}})
				return err
			}},
			{"PutItem", "ConditionalCheckFailedException", func() error {
				if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: avMap{"pk": s("x")}}); err != nil {
					return err
				}
				model[[2]string{"PutItem", "success"}]++
				_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: tbl, Item: avMap{"pk": s("x")}, ConditionExpression: aws.String("attribute_not_exists(pk)")})
				return err
			}},
			{"GetItem", "success", func() error {
				_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: tbl, Key: avMap{"pk": s("a")}})
				return err
			}},
			{"GetItem", "ResourceNotFoundException", func() error {
				_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Missing"), Key: avMap{"pk": s("a")}})
				return err
			}},
			{"DeleteItem", "ValidationException", func() error {
				_, err := c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: tbl, Key: avMap{"pk": n("1")}})
				return err
			}},
			{"Query", "success", func() error {
				_, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :a"), ExpressionAttributeValues: avMap{":a": s("a")}})
				return err
			}},
			{"unknown", "UnknownOperationException", func() error {
				name := rapid.StringMatching(`[A-Za-z]{1,12}`).Draw(rt, "target")
				if status, _, _ := ts.post(t, targetPrefix+"X"+name, contentType, strings.NewReader("{}")); status != http.StatusBadRequest {
					return fmt.Errorf("status %d", status)
				}
				return fmt.Errorf("UnknownOperationException")
			}},
		}
		for range rapid.IntRange(1, 8).Draw(rt, "steps") {
			a := rapid.SampledFrom(actions).Draw(rt, "action")
			err := a.do()
			if (err == nil) != (a.result == "success") || err != nil && !strings.Contains(err.Error(), a.result) {
				rt.Fatalf("%s: error %v, want %s", a.op, err, a.result)
			}
			model[[2]string{a.op, a.result}]++
		}
		fams := ts.scrape(t)
		got := map[[2]string]float64{}
		for _, m := range fams["fdyno_requests_total"].GetMetric() {
			var k [2]string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "operation":
					k[0] = l.GetValue()
				case "result":
					k[1] = l.GetValue()
				}
			}
			got[k] = m.GetCounter().GetValue()
		}
		if diff := cmp.Diff(model, got); diff != "" {
			rt.Fatalf("fdyno_requests_total mismatch (-model +scrape):\n%s", diff)
		}
		perOp := map[string]float64{}
		for k, v := range model {
			perOp[k[0]] += v
		}
		for op, want := range perOp {
			if got := value(fams, "fdyno_request_duration_seconds", "operation", op); got != want {
				rt.Fatalf("latency count of %s = %v, want %v", op, got, want)
			}
		}
	})
}

// Reads that fail with transaction_too_old (1007) are retried and
// counted as read retries, each under its error code; no request fails.
func TestMetricsReadRetries(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	ts, c := newTestClient(t, Config{DB: db, TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1})
	createTable(t, c, "Reads", "", "")
	get := func() error {
		_, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Reads"), Key: avMap{"pk": s("a")}})
		return err
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	if err := fdblitetest.SetFaults(db, fdblitetest.Faults{Seed: 11, ReadTooOld: 0.25}); err != nil {
		t.Fatal(err)
	}
	before, err := fdblitetest.ReadStats(db)
	for err != nil { // the stats read itself may draw a fault
		before, err = fdblitetest.ReadStats(db)
	}
	m0 := ts.scrape(t)
	const n = 40
	for i := range n {
		if err := get(); err != nil {
			t.Fatalf("GetItem %d: %v", i, err)
		}
	}
	m1 := ts.scrape(t)
	if err := fdblitetest.ClearFaults(db); err != nil {
		t.Fatal(err)
	}
	after, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	delta := func(name string, labels ...string) float64 {
		return max(value(m1, name, labels...), 0) - max(value(m0, name, labels...), 0)
	}
	retries := delta("fdyno_fdb_transaction_retries_total", "kind", "read")
	tooOld := delta("fdyno_fdb_transaction_errors_total", "kind", "read", "code", "1007")
	injected := float64(after.Injected.ReadTooOld - before.Injected.ReadTooOld)
	if retries == 0 || retries != tooOld {
		t.Errorf("read retries = %v, errors{code=1007} = %v; want the same, above 0", retries, tooOld)
	}
	if tooOld > injected {
		t.Errorf("errors{code=1007} = %v, more than the %v fdblite injected", tooOld, injected)
	}
	if got := delta("fdyno_fdb_transactions_total", "kind", "read"); got != n {
		t.Errorf("read transactions = %v, want %d (retries are not new transactions)", got, n)
	}
	if got := delta("fdyno_requests_total", "operation", "GetItem", "result", "success"); got != n {
		t.Errorf("GetItem successes = %v, want %d", got, n)
	}
}
