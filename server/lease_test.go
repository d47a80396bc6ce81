package server

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
)

// Two servers on one database walk a table's background work one at a
// time: the first to take a job's lease does it and renews the lease at
// each walk; the other skips it until the lease lapses (a holder that
// died), then takes over. fdyno_background_leases{job} counts what each
// server holds.
func TestBackgroundLeases(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	cfg := Config{DB: db, Now: now, TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1}
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	if a.holder == b.holder {
		t.Fatalf("two servers share the holder name %q", a.holder)
	}
	if _, err := fdyno.Open(db, "Leased", a.tableOptions(fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))...); err != nil {
		t.Fatal(err)
	}
	ta, err := a.tableFor(nil, "Leased")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.tableFor(nil, "Leased")
	if err != nil {
		t.Fatal(err)
	}
	const period = 3 * time.Minute
	held := func(ts *testServer) float64 {
		return value(ts.scrape(t), "fdyno_background_leases", "job", "ttl-sweep")
	}
	step := func(what string, ts *testServer, tbl *fdyno.Table, want bool) {
		t.Helper()
		if got := ts.holdsLease(tbl, "ttl-sweep", period); got != want {
			t.Fatalf("%s: holdsLease = %v, want %v", what, got, want)
		}
	}
	step("a takes the free lease", a, ta, true)
	step("b finds it held", b, tb, false)
	clock.Advance(2 * time.Minute)
	step("a renews it", a, ta, true)
	clock.Advance(2 * time.Minute)
	step("b finds it renewed", b, tb, false)
	if ha, hb := held(a), held(b); ha != 1 || hb > 0 {
		t.Errorf("fdyno_background_leases{job=ttl-sweep}: a %v, b %v; want 1 and 0", ha, hb)
	}
	clock.Advance(period) // a stops renewing: it died
	step("b takes over the lapsed lease", b, tb, true)
	step("a, back, finds it held", a, ta, false)
	if ha, hb := held(a), held(b); ha != 0 || hb != 1 {
		t.Errorf("fdyno_background_leases{job=ttl-sweep}: a %v, b %v; want 0 and 1", ha, hb)
	}
}

// A backfill whose builder died is taken over: server a holds the lease
// of index byG's backfill and dies before building it; b's resume leaves
// the index to a while the lease lasts, and builds it once the lease has
// lapsed, from the backfill's cursor, to ACTIVE.
func TestBackfillTakenOver(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	cfg := Config{DB: db, Now: now, TTLSweepInterval: -1, StreamRetention: -1}
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	c := a.client(testCredentials)
	createTable(t, c, "Built", "", "")
	for i := range 30 {
		putPK(t, c, "Built", "k"+strconv.Itoa(i), "g"+strconv.Itoa(i%3))
	}
	ta, err := a.tableFor(nil, "Built")
	if err != nil {
		t.Fatal(err)
	}
	// a takes the backfill's lease, then dies before it builds anything:
	// its background stops before the index is created.
	if !a.holdsLease(ta, backfillJob("byG"), backfillLeasePeriod) {
		t.Fatal("a could not take the free lease")
	}
	a.Close()
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Built"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byG"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	status := func() types.IndexStatus {
		d, err := b.client(testCredentials).DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Built")})
		if err != nil {
			t.Fatal(err)
		}
		return d.Table.GlobalSecondaryIndexes[0].IndexStatus
	}
	b.resumeBackfills(t.Context())
	waitBackfills(t, b)
	if got := status(); got != types.IndexStatusCreating {
		t.Fatalf("while a's lease lasts: %s, want CREATING (b leaves it to a)", got)
	}
	clock.Advance(backfillLeasePeriod + time.Second)
	b.resumeBackfills(t.Context())
	testtime.WaitUntil(t, "b to build the index", func() bool { return status() == types.IndexStatusActive })
	out, err := b.client(testCredentials).Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String("Built"), IndexName: aws.String("byG"), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 30 {
		t.Errorf("the index holds %d entries, want the 30 items", out.Count)
	}
}

// waitBackfills waits until ts runs no backfill.
func waitBackfills(t *testing.T, ts *testServer) {
	testtime.WaitUntil(t, "the server's backfills to end", func() bool {
		ts.bg.mu.Lock()
		defer ts.bg.mu.Unlock()
		return len(ts.bg.running) == 0
	})
}
