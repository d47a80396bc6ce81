package server

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Two servers on one database walk a table's background work one at a
// time: the first to take a job's lease does it and renews the lease at
// each walk; the other skips it until the lease lapses (a holder that
// died), then takes over. fdyno_background_leases{job} counts what each
// server holds.
func TestBackgroundLeases(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro())
	now := func() time.Time { return time.UnixMicro(clock.Load()) }
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
	clock.Add(int64(2 * time.Minute / time.Microsecond))
	step("a renews it", a, ta, true)
	clock.Add(int64(2 * time.Minute / time.Microsecond))
	step("b finds it renewed", b, tb, false)
	if ha, hb := held(a), held(b); ha != 1 || hb > 0 {
		t.Errorf("fdyno_background_leases{job=ttl-sweep}: a %v, b %v; want 1 and 0", ha, hb)
	}
	clock.Add(int64(period / time.Microsecond)) // a stops renewing: it died
	step("b takes over the lapsed lease", b, tb, true)
	step("a, back, finds it held", a, ta, false)
	if ha, hb := held(a), held(b); ha != 0 || hb != 1 {
		t.Errorf("fdyno_background_leases{job=ttl-sweep}: a %v, b %v; want 0 and 1", ha, hb)
	}
}
