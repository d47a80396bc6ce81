package server

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testseed"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestManyServersSimulation runs three fdyno-servers on one database and
// kills and restarts them at random while clients write through every
// live one and the servers walk their tables for the TTL sweeper, as
// their background loops do (driven here round by round, on one clock).
// It checks what several servers must guarantee (issue 35):
//
//   - every acknowledged write is there at the end, unless it expired;
//     every expired item is gone;
//   - the sweep of a table is done by one server at a time: after each
//     round at most one live server holds the table's sweep lease, and
//     the servers together sweep the table at most once per round (work
//     is not multiplied by the servers);
//   - each expired item is swept once: the deletions the servers count
//     are the TTL deletions the stream shows;
//   - a killed holder's lease passes to a live server within a lease
//     period (three walk intervals): no table goes unswept for longer;
//   - an index created midway is built once by whichever servers live:
//     its backfill is leased, a dead builder's lease lapses, and a live
//     server's next resume takes it over from the cursor; of every
//     server that ever ran, exactly one reports the backfill done, and
//     the lease is released when it is;
//   - the stream trimmer (with the same leases) never trims a record a
//     registered consumer has not read, the consumer sees every change
//     (its last record of each key says what the table holds), and read
//     records older than the retention are trimmed.
func TestManyServersSimulation(t *testing.T) {
	runSimulation(t, fdblitetest.Latency{})
}

// TestManyServersSimulationLatency is the simulation under fdblite's
// latency model of a cluster (fdblitetest.DefaultLatency: every read
// version, read and commit takes as long as on a cluster below 75%
// load), so that the background work runs alongside the clients' writes
// for as long as it would there, and a backfill or a sweep is still
// under way when servers die and rounds pass.
func TestManyServersSimulationLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("the latency model makes it take seconds")
	}
	runSimulation(t, fdblitetest.DefaultLatency())
}

// runSimulation is the simulation, on a database under latency model l
// (the zero Latency: none).
func runSimulation(t *testing.T, l fdblitetest.Latency) {
	seed := testseed.Seed(t, "FDYNO_SIMULATION_SEED")
	r := rand.New(rand.NewPCG(seed, seed))
	db := fdblitetest.OpenIsolated(t)
	if l.Enabled() {
		if err := fdblitetest.SetLatency(db, l); err != nil {
			t.Fatal(err)
		}
	}
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	cfg := Config{DB: db, Now: now, TTLSweepInterval: -1, StreamRetention: -1}
	// Backfill batches of one item: the backfill lasts many batches, so
	// servers die while it runs and a live one takes it over.
	cfg.backfillBatchSize = 1
	const interval = time.Minute // the walk interval the rounds stand for
	period := leasePeriod(interval)
	var alive, all []*testServer // live servers, and every server started
	start := func() {
		ts := newTestServer(t, cfg)
		alive = append(alive, ts)
		all = append(all, ts)
	}
	for range 3 {
		start()
	}
	c := alive[0].client(testCredentials)
	createTable(t, c, "Sim", "", "")
	if _, err := c.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Sim"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Sim"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
		t.Fatal(err)
	}
	// A registered consumer reads the stream now and then; the trimmer
	// must never trim a record before it has read it.
	tbl, err := alive[0].tableFor(nil, "Sim")
	if err != nil {
		t.Fatal(err)
	}
	consumer, err := tbl.Consumer("audit")
	if err != nil {
		t.Fatal(err)
	}
	if err := consumer.Register(db, ""); err != nil {
		t.Fatal(err)
	}
	last := map[string]fdyno.StreamRecord{} // per pk, the last record the consumer read
	ttlRemoves := 0                         // TTL deletions the consumer read
	consume := func() int {
		n, err := consumer.ProcessBatch(db, 5, func(_ fdb.Transaction, recs []fdyno.StreamRecord) error {
			for _, rec := range recs {
				last[rec.Keys["pk"].S()] = rec
				if rec.EventName == fdyno.EventNameRemove && rec.UserIdentity != nil && rec.UserIdentity.Type == "Service" {
					ttlRemoves++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("seed %d: the consumer's batch: %v", seed, err) // ErrTrimmedDataAccess: trimmed unread
		}
		return n
	}
	const retention = 2 * interval
	model := map[string]int64{} // pk -> exp of its last acknowledged put
	// holders counts the live servers holding the sweep lease, and
	// sweeps the sweeps of every server that ever ran, read from their
	// metrics directly (gathering whole registries every round is slow
	// under -race).
	holders := func() int {
		n := 0
		for _, ts := range alive {
			if metricValue(t, ts.metrics.leases.WithLabelValues("ttl-sweep")) == 1 {
				n++
			}
		}
		return n
	}
	sweeps := func() float64 {
		sum := 0.0
		for _, ts := range all {
			sum += metricValue(t, ts.metrics.ttlSweeps.WithLabelValues("ok"))
		}
		return sum
	}
	// total sums a metric of every server that ever ran, as /metrics
	// shows it (a killed one keeps what it counted).
	total := func(name string, labels ...string) float64 {
		sum := 0.0
		for _, ts := range all {
			if v := value(gather(t, ts), name, labels...); v > 0 {
				sum += v
			}
		}
		return sum
	}
	unswept := 0 // rounds in a row in which no live server held the lease
	round := func() {
		clock.Advance(interval)
		before := sweeps()
		for _, ts := range alive {
			ts.sweepOnce(t.Context(), 1e9, period)
			ts.trimOnce(t.Context(), retention, period)
			ts.resumeBackfills(t.Context())
		}
		if n := sweeps() - before; n > 1 {
			t.Fatalf("seed %d: the table was swept %v times in one round, by %d live servers", seed, n, len(alive))
		}
		switch h := holders(); {
		case h > 1:
			t.Fatalf("seed %d: %d live servers hold the sweep lease", seed, h)
		case h == 0:
			unswept++
			if unswept > 3 {
				t.Fatalf("seed %d: no live server took the sweep lease for %d rounds (the period is 3)", seed, unswept)
			}
		default:
			unswept = 0
		}
	}
	kills, indexed := 0, false
	kill := func(i int) {
		ts := alive[i]
		ts.http.Close()
		ts.Close()
		alive = append(alive[:i:i], alive[i+1:]...)
		kills++
	}
	for step := range 300 {
		if step == 100 {
			// An index is created through a live server, and backfilled
			// in the background while servers die and start.
			if _, err := alive[r.IntN(len(alive))].client(testCredentials).UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Sim"),
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byG"),
					KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
				t.Fatal(err)
			}
			indexed = true
			// The server building the index dies while it builds (its
			// backfill started before UpdateTable answered).
			if len(alive) == 1 {
				start()
			}
			for i, ts := range alive {
				ts.bg.mu.Lock()
				building := len(ts.bg.running) > 0
				ts.bg.mu.Unlock()
				if building {
					kill(i)
					break
				}
			}
		}
		switch r.IntN(10) {
		case 0:
			if len(alive) > 1 {
				kill(r.IntN(len(alive)))
			}
		case 1:
			if len(alive) < 3 {
				start()
			}
		case 2, 3:
			round()
		case 4:
			consume()
		default:
			ts := alive[r.IntN(len(alive))]
			pk := "k" + strconv.Itoa(r.IntN(40))
			exp := now().Unix() + int64(r.IntN(7)-3)*60
			_, err := ts.client(testCredentials).PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Sim"),
				Item: map[string]types.AttributeValue{"pk": s(pk), "exp": n(strconv.FormatInt(exp, 10)), "g": s("g" + strconv.Itoa(r.IntN(3)))}})
			if err != nil {
				t.Fatalf("seed %d, step %d: PutItem through a live server: %v", seed, step, err)
			}
			model[pk] = exp
		}
	}
	if kills == 0 {
		t.Fatalf("seed %d: the run killed no server", seed)
	}
	// Time passes beyond every expiry and lease; the survivors walk.
	for range 5 {
		round()
	}
	// /metrics shows the holding: one live server holds the sweep lease.
	shown := 0.0
	for _, ts := range alive {
		shown += value(ts.scrape(t), "fdyno_background_leases", "job", "ttl-sweep")
	}
	if shown != 1 {
		t.Errorf("seed %d: /metrics of the live servers show %v sweep leases, want 1", seed, shown)
	}
	final := now().Unix()
	out, err := alive[0].client(testCredentials).Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String("Sim"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, it := range out.Items {
		got[it["pk"].(*types.AttributeValueMemberS).Value] = true
	}
	for pk, exp := range model {
		if want := exp >= final; got[pk] != want {
			t.Errorf("seed %d: %s (exp %d, now %d) present = %v, want %v", seed, pk, exp, final, got[pk], want)
		}
		delete(got, pk)
	}
	if len(got) > 0 {
		t.Errorf("seed %d: items no acknowledged write made: %v", seed, got)
	}
	// The index, built by whichever servers lived, holds every item.
	if !indexed {
		t.Fatalf("seed %d: no index was created", seed)
	}
	testtime.WaitUntil(t, "the index to be ACTIVE", func() bool {
		d, err := alive[0].client(testCredentials).DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Sim")})
		return err == nil && len(d.Table.GlobalSecondaryIndexes) == 1 && d.Table.GlobalSecondaryIndexes[0].IndexStatus == types.IndexStatusActive
	})
	ix, err := alive[0].client(testCredentials).Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String("Sim"), IndexName: aws.String("byG")})
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Items) != len(out.Items) {
		t.Errorf("seed %d: the index holds %d entries, the table %d items (every item has g)", seed, len(ix.Items), len(out.Items))
	}
	// The backfill finished once: one server, of all that ran, built it
	// to ACTIVE; the others left it (another held it) or were killed
	// while it ran. Its lease is released, and no server still runs it.
	for _, ts := range alive {
		waitBackfills(t, ts)
	}
	t.Logf("backfill runs: done %v, stopped %v, elsewhere %v", total("fdyno_index_backfills_total", "result", "done"),
		total("fdyno_index_backfills_total", "result", "stopped"), total("fdyno_index_backfills_total", "result", "elsewhere"))
	if done := total("fdyno_index_backfills_total", "result", "done"); done != 1 {
		t.Errorf("seed %d: %v servers report the backfill done, want exactly 1 (stopped %v, elsewhere %v)", seed, done,
			total("fdyno_index_backfills_total", "result", "stopped"), total("fdyno_index_backfills_total", "result", "elsewhere"))
	}
	for _, ts := range alive {
		if h := value(gather(t, ts), "fdyno_background_leases", "job", "backfill"); h > 0 {
			t.Errorf("seed %d: a live server still holds the lease of the finished backfill", seed)
		}
	}
	// The consumer, drained, read every change: the last record of each
	// key says what the table holds.
	for consume() > 0 {
	}
	// Each expired item was swept once: the servers' deletions, summed,
	// are the TTL deletions the stream holds.
	if deleted := total("fdyno_ttl_items_deleted_total"); deleted != float64(ttlRemoves) {
		t.Errorf("seed %d: the servers count %v TTL deletions, the stream holds %d", seed, deleted, ttlRemoves)
	}
	if ttlRemoves == 0 {
		t.Errorf("seed %d: no item expired and was swept", seed)
	}
	for pk, exp := range model {
		rec, ok := last[pk]
		switch {
		case !ok:
			t.Errorf("seed %d: the consumer read no record of %s", seed, pk)
		case exp >= final && (rec.EventName == fdyno.EventNameRemove || rec.NewImage["exp"].N() != strconv.FormatInt(exp, 10)):
			t.Errorf("seed %d: %s's last record %s %v, want its put of exp %d", seed, pk, rec.EventName, rec.NewImage, exp)
		case exp < final && rec.EventName != fdyno.EventNameRemove:
			t.Errorf("seed %d: %s expired, but its last record is %s", seed, pk, rec.EventName)
		}
	}
	// Read and older than the retention, records are trimmed.
	round()
	for rec, err := range tbl.Records(t.Context(), db, "") {
		if err != nil {
			t.Fatal(err)
		}
		if age := now().Sub(rec.ApproximateCreationDateTime); age > retention+interval {
			t.Errorf("seed %d: a record %v old outlived the %v retention", seed, age, retention)
			break
		}
	}
}

// gather returns ts's metrics as /metrics shows them, read from its
// registry, so that a killed server's (whose listener is closed) can be
// read too.
func gather(t testing.TB, ts *testServer) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := ts.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]*dto.MetricFamily, len(fams))
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// metricValue is the value of one counter or gauge.
func metricValue(t testing.TB, m prometheus.Metric) float64 {
	t.Helper()
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		t.Fatal(err)
	}
	if d.Counter != nil {
		return d.Counter.GetValue()
	}
	return d.Gauge.GetValue()
}
