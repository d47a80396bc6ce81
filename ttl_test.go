package fdyno

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var ttlSchema = TableSchema{
	KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN}},
	TimeToLiveAttribute:  "exp",
}

// The expiry rule of DynamoDB's TTL guide: the attribute is a Number of
// epoch seconds; an item has expired when it is less than the current
// time, unless it lies more than five years in the past; any other type
// never expires.
func TestTTLExpiredRule(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	fiveYears := int64(5 * 365 * 24 * 3600)
	tests := []struct {
		name string
		item Item
		want bool
	}{
		{"no attribute", Item{"pk": S("a")}, false},
		{"a string", Item{"exp": S("1")}, false},
		{"a number set", Item{"exp": NS("1")}, false},
		{"one second ago", Item{"exp": NInt(1_799_999_999)}, true},
		{"now", Item{"exp": NInt(1_800_000_000)}, false},
		{"in the future", Item{"exp": NInt(1_800_000_001)}, false},
		{"half a second ago", Item{"exp": N("1799999999.5")}, true},
		{"five years ago", Item{"exp": NInt(1_800_000_000 - fiveYears)}, true},
		{"more than five years ago", Item{"exp": NInt(1_800_000_000 - fiveYears - 1)}, false},
		{"zero", Item{"exp": N("0")}, false},
		{"negative", Item{"exp": N("-5")}, false},
		{"milliseconds by mistake", Item{"exp": NInt(1_799_999_999_000)}, false},
	}
	cut := newTTLCutoff("exp", now)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := cut.expired(tc.item); got != tc.want {
				t.Errorf("expired(%v) = %v, want %v", tc.item, got, tc.want)
			}
		})
	}
	if newTTLCutoff("", now).expired(Item{"exp": NInt(1)}) {
		t.Errorf("a table without a TTL attribute expired an item")
	}
}

func ttlItem(pk string, sk int64, exp int64) Item {
	it := Item{"pk": S(pk), "sk": NInt(sk)}
	if exp != 0 {
		it["exp"] = NInt(exp)
	}
	return it
}

// batchScanKeys returns the keys of every item, as "pk/sk".
func batchScanKeys(t *testing.T, db fdb.Database, tbl *Table, in ScanInput) []string {
	t.Helper()
	var keys []string
	for it, err := range tbl.ScanAll(t.Context(), db, in) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, it["pk"].S()+"/"+it["sk"].N())
	}
	return keys
}

func TestSweepExpiredOnce(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	tbl := newTestTable(t, db, ttlSchema, WithClock(clock.Now), WithChunkThreshold(300))
	now := clock.Now().Unix()
	items := []Item{
		ttlItem("a", 1, now-10),                             // expired
		ttlItem("a", 2, now+60),                             // expires in a minute
		ttlItem("a", 3, 0),                                  // never
		ttlItem("b", 1, now-1),                              // expired
		ttlItem("b", 2, now),                                // expires in a second
		{"pk": S("c"), "sk": N("1"), "exp": S("yesterday")}, // not a number: never
		ttlItem("d", 1, now-100),                            // expired, and chunked:
	}
	items[6]["big"] = S(strings.Repeat("z", 100_000))
	for _, it := range items {
		mustPut(t, db, tbl, it)
	}
	// Expired items stay readable until swept.
	if got := mustGet(t, db, tbl, Item{"pk": S("a"), "sk": N("1")}); got == nil {
		t.Fatalf("an expired item is gone before any sweep")
	}
	stats, err := tbl.SweepExpiredOnce(t.Context(), db, SweepOptions{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(SweepStats{Scanned: 7, Deleted: 3}, stats); diff != "" {
		t.Errorf("SweepStats mismatch (-want +got):\n%s", diff)
	}
	want := []string{"a/2", "a/3", "b/2", "c/1"}
	if diff := cmp.Diff(want, batchScanKeys(t, db, tbl, ScanInput{})); diff != "" {
		t.Errorf("items after the sweep (-want +got):\n%s", diff)
	}
	if n := countChunks(t, db, tbl); n != 0 {
		t.Errorf("%d chunks left; the chunked expired item's chunks must go with it", n)
	}
	clock.Advance(2 * time.Second)
	if stats, err = tbl.SweepExpiredOnce(t.Context(), db, SweepOptions{}); err != nil || stats.Deleted != 1 {
		t.Errorf("second sweep = %+v, %v; want b/2 deleted", stats, err)
	}
	clock.Advance(time.Hour)
	if stats, err = tbl.SweepExpiredOnce(t.Context(), db, SweepOptions{}); err != nil || stats.Deleted != 1 {
		t.Errorf("third sweep = %+v, %v; want a/2 deleted", stats, err)
	}
	if diff := cmp.Diff([]string{"a/3", "c/1"}, batchScanKeys(t, db, tbl, ScanInput{})); diff != "" {
		t.Errorf("items after an hour (-want +got):\n%s", diff)
	}

	// A table without a TimeToLiveAttribute has nothing to sweep.
	plain := newTestTable(t, db, hashRange, WithClock(clock.Now))
	mustPut(t, db, plain, ttlItem("x", 1, 5))
	if stats, err := plain.SweepExpiredOnce(t.Context(), db, SweepOptions{}); err != nil || stats.Deleted != 0 {
		t.Errorf("sweep of a table without TTL = %+v, %v", stats, err)
	}
	if _, err := tbl.SweepExpiredOnce(t.Context(), db, SweepOptions{BatchSize: -1}); !errors.Is(err, ErrValidation) {
		t.Errorf("negative BatchSize = %v, want ErrValidation", err)
	}
}

// The sweeper's deletions go through writeItem marked byTTL, with the old
// item known (the stream's REMOVE record of a TTL deletion needs both).
func TestSweepMarksTTLDeletions(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	tbl := newTestTable(t, db, ttlSchema, WithClock(clock.Now))
	old := ttlItem("a", 1, clock.Now().Unix()-1)
	mustPut(t, db, tbl, old)
	mustPut(t, db, tbl, ttlItem("a", 2, clock.Now().Unix()+1))
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		_, changes, err := tbl.sweepChanges(tr, nil, 10, clock.Now())
		if err != nil {
			return nil, err
		}
		if len(changes) != 1 {
			t.Fatalf("%d changes, want 1", len(changes))
		}
		c := changes[0]
		if !c.byTTL || !c.oldKnown || c.new != nil || !c.old.Equal(old) {
			t.Errorf("change = byTTL %v oldKnown %v new %v old %v; want a TTL deletion of %v", c.byTTL, c.oldKnown, c.new, c.old, old)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The sweeper re-reads each candidate with a conflict: an item rewritten
// by another transaction after the sweeper read it makes the sweeper's
// commit fail (and its retry keep the item), never delete the new
// version.
func TestSweepConflictsWithRewrite(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	tbl := newTestTable(t, db, ttlSchema, WithClock(clock.Now))
	mustPut(t, db, tbl, ttlItem("a", 1, clock.Now().Unix()-1))
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	step, err := tbl.sweepBatch(tr, nil, 10, clock.Now())
	if err != nil || step.deleted != 1 {
		t.Fatalf("sweepBatch = %+v, %v", step, err)
	}
	renewed := ttlItem("a", 1, clock.Now().Unix()+3600)
	mustPut(t, db, tbl, renewed)
	err = tr.Commit().Get()
	var fe fdb.Error
	if !errors.As(err, &fe) || fe.Code != 1020 {
		t.Fatalf("sweeper commit = %v, want not_committed (1020)", err)
	}
	if stats, err := tbl.SweepExpiredOnce(t.Context(), db, SweepOptions{}); err != nil || stats.Deleted != 0 {
		t.Errorf("sweep after the rewrite = %+v, %v; want nothing deleted", stats, err)
	}
	if diff := cmp.Diff(renewed, mustGet(t, db, tbl, Item{"pk": S("a"), "sk": N("1")}), itemCmp); diff != "" {
		t.Errorf("renewed item mismatch (-want +got):\n%s", diff)
	}
}

// SweepExpired runs until its context ends, at most ItemsPerSecond.
func TestSweepExpiredLoop(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	tbl := newTestTable(t, db, ttlSchema, WithClock(clock.Now))
	var reqs []WriteRequest
	for i := range 30 {
		reqs = append(reqs, putReq(ttlItem("p", int64(i), clock.Now().Unix()-1)))
	}
	if err := BatchWriteAll(t.Context(), db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: reqs}}); err != nil {
		t.Fatal(err)
	}
	// 30 items, 10 per batch, 100 items a second: the fourth batch (which
	// finds the end) may start only 0.3 s after the first.
	began := time.Now()
	stats, err := tbl.SweepExpiredOnce(t.Context(), db, SweepOptions{BatchSize: 10, ItemsPerSecond: 100})
	if err != nil || stats.Deleted != 30 {
		t.Fatalf("SweepExpiredOnce = %+v, %v", stats, err)
	}
	if d := time.Since(began); d < 290*time.Millisecond {
		t.Errorf("rate-limited sweep took %v, want at least 0.3 s", d)
	}

	mustPut(t, db, tbl, ttlItem("q", 1, clock.Now().Unix()+10))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- tbl.SweepExpired(ctx, db, SweepOptions{Interval: 5 * time.Millisecond}) }()
	clock.Advance(time.Minute)
	testtime.WaitUntil(t, "the running sweeper to delete the item that expired", func() bool {
		return mustGet(t, db, tbl, Item{"pk": S("q"), "sk": N("1")}) == nil
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("SweepExpired = %v, want context.Canceled", err)
	}
}

// HideExpired drops expired items from Query and Scan results, counting
// them as read (like a filter): ScannedCount includes them, Count does not.
func TestHideExpired(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	tbl := newTestTable(t, db, ttlSchema, WithClock(clock.Now))
	now := clock.Now().Unix()
	for i, exp := range []int64{now - 1, now + 1, 0, now - 30} {
		mustPut(t, db, tbl, ttlItem("p", int64(i), exp))
	}
	q := QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S("p")}}
	out, err := tbl.Query(db, q)
	if err != nil || out.Count != 4 {
		t.Fatalf("Query = %d items, %v; want all 4 (expired items stay readable)", out.Count, err)
	}
	q.HideExpired = true
	out, err = tbl.Query(db, q)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, it["sk"].N())
	}
	if diff := cmp.Diff([]string{"1", "2"}, got); diff != "" || out.Count != 2 || out.ScannedCount != 4 {
		t.Errorf("Query HideExpired: items %v (-want +got %s), Count %d, ScannedCount %d; want Count 2, ScannedCount 4", got, diff, out.Count, out.ScannedCount)
	}
	if diff := cmp.Diff([]string{"p/1", "p/2"}, batchScanKeys(t, db, tbl, ScanInput{HideExpired: true})); diff != "" {
		t.Errorf("Scan HideExpired mismatch (-want +got):\n%s", diff)
	}
	sc, err := tbl.Scan(db, ScanInput{HideExpired: true, Select: SelectCount})
	if err != nil || sc.Count != 2 || sc.ScannedCount != 4 {
		t.Errorf("Scan COUNT HideExpired = %+v, %v", sc, err)
	}
	clock.Advance(2 * time.Second)
	if diff := cmp.Diff([]string{"p/2"}, batchScanKeys(t, db, tbl, ScanInput{HideExpired: true})); diff != "" {
		t.Errorf("Scan HideExpired two seconds later mismatch (-want +got):\n%s", diff)
	}
	// Without a TimeToLiveAttribute, HideExpired hides nothing.
	plain := newTestTable(t, db, hashRange, WithClock(clock.Now))
	mustPut(t, db, plain, ttlItem("x", 1, 5))
	if got := batchScanKeys(t, db, plain, ScanInput{HideExpired: true}); len(got) != 1 {
		t.Errorf("HideExpired on a table without TTL = %v", got)
	}
}

// HideExpired on an index: an LSI without the TimeToLiveAttribute reads
// the base items to decide; a GSI projecting it decides from its entries;
// a GSI that does not project it cannot decide and refuses the request.
func TestHideExpiredOnIndexes(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	s := ttlSchema
	s.AttributeDefinitions = append(append([]AttributeDefinition(nil), s.AttributeDefinitions...),
		AttributeDefinition{"g", ScalarAttributeTypeS}, AttributeDefinition{"l", ScalarAttributeTypeS})
	s.LocalSecondaryIndexes = []LocalSecondaryIndex{{IndexName: "byL",
		KeySchema:  []KeySchemaElement{{"pk", KeyTypeHash}, {"l", KeyTypeRange}},
		Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{
		{IndexName: "withExp", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}},
			Projection: Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"exp"}}},
		{IndexName: "keysOnly", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}},
			Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
	}
	tbl := newTestTable(t, db, s, WithClock(clock.Now))
	now := clock.Now().Unix()
	for i, exp := range []int64{now - 1, now + 1, 0, now - 30} {
		it := ttlItem("p", int64(i), exp)
		it["g"], it["l"] = S("g"), S(strconv.Itoa(i))
		mustPut(t, db, tbl, it)
	}
	sks := func(items []Item) []string {
		var got []string
		for _, it := range items {
			got = append(got, it["sk"].N())
		}
		return got
	}
	for _, c := range []struct {
		index, cond string
		vals        map[string]Value
	}{
		{"byL", "pk = :v", map[string]Value{":v": S("p")}},
		{"withExp", "g = :v", map[string]Value{":v": S("g")}},
	} {
		out, err := tbl.Query(db, QueryInput{IndexName: c.index, KeyConditionExpression: c.cond, ExpressionAttributeValues: c.vals, HideExpired: true})
		if err != nil {
			t.Fatalf("%s: %v", c.index, err)
		}
		if diff := cmp.Diff([]string{"1", "2"}, sks(out.Items)); diff != "" || out.ScannedCount != 4 {
			t.Errorf("%s HideExpired (-want +got):\n%s ScannedCount %d, want 4", c.index, diff, out.ScannedCount)
		}
		if c.index == "byL" && !out.Items[0]["exp"].IsZero() {
			t.Errorf("byL returned exp, which its KEYS_ONLY projection excludes: %v", out.Items[0])
		}
	}
	_, err := tbl.Query(db, QueryInput{IndexName: "keysOnly", KeyConditionExpression: "g = :v",
		ExpressionAttributeValues: map[string]Value{":v": S("g")}, HideExpired: true})
	if !errors.Is(err, ErrValidation) {
		t.Errorf("HideExpired on a GSI without the TTL attribute = %v, want ErrValidation", err)
	}
}

// UpdateTimeToLive follows DynamoDB's UpdateTimeToLive: enable, disable,
// and refuse enabling twice, disabling twice or disabling another
// attribute; the sweeper of another handle follows the change.
func TestUpdateTimeToLive(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	root := testRoot(t, db)
	tbl := mustOpen(t, db, "Test", root, WithSchema(hashRange), WithClock(clock.Now))
	other := mustOpen(t, db, "Test", root, WithClock(clock.Now))
	now := clock.Now().Unix()
	mustPut(t, db, tbl, ttlItem("a", 1, now-10))
	mustPut(t, db, tbl, Item{"pk": S("b"), "sk": N("1"), "gone": NInt(now - 10)})
	steps := []struct {
		spec    TimeToLiveSpecification
		wantErr error
		wantTTL string // the TimeToLiveAttribute after the step
	}{
		{TimeToLiveSpecification{AttributeName: "exp", Enabled: false}, ErrValidation, ""}, // already disabled
		{TimeToLiveSpecification{AttributeName: "", Enabled: true}, ErrValidation, ""},
		{TimeToLiveSpecification{AttributeName: strings.Repeat("x", 256), Enabled: true}, ErrValidation, ""},
		{TimeToLiveSpecification{AttributeName: "exp", Enabled: true}, nil, "exp"},
		{TimeToLiveSpecification{AttributeName: "exp", Enabled: true}, ErrValidation, "exp"},  // already enabled
		{TimeToLiveSpecification{AttributeName: "gone", Enabled: true}, ErrValidation, "exp"}, // disable first
		{TimeToLiveSpecification{AttributeName: "gone", Enabled: false}, ErrValidation, "exp"},
		{TimeToLiveSpecification{AttributeName: "exp", Enabled: false}, nil, ""},
		{TimeToLiveSpecification{AttributeName: "gone", Enabled: true}, nil, "gone"},
	}
	for i, s := range steps {
		got, err := tbl.UpdateTimeToLive(db, s.spec)
		if s.wantErr != nil {
			if !errors.Is(err, s.wantErr) || got != nil {
				t.Errorf("step %d: UpdateTimeToLive(%+v) = %v, %v; want %v", i, s.spec, got, err, s.wantErr)
			}
		} else if err != nil || *got != s.spec {
			t.Errorf("step %d: UpdateTimeToLive(%+v) = %v, %v", i, s.spec, got, err)
		}
		d, err := other.Describe(db)
		if err != nil {
			t.Fatal(err)
		}
		if d.TimeToLiveAttribute != s.wantTTL {
			t.Errorf("step %d: TimeToLiveAttribute = %q, want %q", i, d.TimeToLiveAttribute, s.wantTTL)
		}
	}
	// Only the item expired by the attribute now enabled ("gone") goes.
	stats, err := other.SweepExpiredOnce(t.Context(), db, SweepOptions{})
	if err != nil || stats.Deleted != 1 {
		t.Errorf("sweep = %+v, %v; want 1 deleted", stats, err)
	}
	if diff := cmp.Diff([]string{"a/1"}, batchScanKeys(t, db, tbl, ScanInput{})); diff != "" {
		t.Errorf("items after the sweep (-want +got):\n%s", diff)
	}
	checkTable(t, db, tbl)
	if err := DeleteTable(db, tbl.Name(), root); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.UpdateTimeToLive(db, TimeToLiveSpecification{AttributeName: "exp"}); !errors.Is(err, ErrResourceNotFound) {
		t.Errorf("UpdateTimeToLive of a deleted table = %v, want ErrResourceNotFound", err)
	}
}

// Under injected faults, each UpdateTimeToLive leaves the table in the
// state asked for. Should a retry of a commit that applied (reported as
// commit_unknown_result) find the change made, it answers DynamoDB's
// "already enabled/disabled" ValidationException, never a FoundationDB
// error; with automatic idempotency, as here, it did not happen in the
// runs seen.
func TestUpdateTimeToLiveUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(7))
	tbl := mustOpen(t, fdblitetest.Idempotent{DB: db}, "FaultyTTL", WithSchema(hashRange))
	already := 0
	for i := range 40 {
		spec := TimeToLiveSpecification{AttributeName: "exp", Enabled: i%2 == 0}
		if _, err := tbl.UpdateTimeToLive(fdblitetest.Idempotent{DB: db}, spec); err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(ve.Reason, "already") {
				t.Fatalf("step %d: UpdateTimeToLive(%+v) = %v", i, spec, err)
			}
			already++
		}
		d, err := tbl.Describe(fdblitetest.Idempotent{DB: db})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: "exp", false: ""}[spec.Enabled]; d.TimeToLiveAttribute != want {
			t.Fatalf("step %d: TimeToLiveAttribute = %q after %+v", i, d.TimeToLiveAttribute, spec)
		}
	}
	t.Logf("%d of 40 changes answered \"already\" after an unknown commit result", already)
}

// UpdateTimeToLive against a model of DynamoDB's rule: one attribute or
// none; enabling needs none, disabling needs the enabled one.
func TestUpdateTimeToLiveModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	var n int
	rapid.Check(t, func(rt *rapid.T) {
		n++
		tbl, err := Open(db, "Model"+strconv.Itoa(n), root, WithSchema(hashRange))
		if err != nil {
			rt.Fatal(err)
		}
		model := ""
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for range steps {
			spec := TimeToLiveSpecification{AttributeName: rapid.SampledFrom([]string{"a", "b"}).Draw(rt, "attr"), Enabled: rapid.Bool().Draw(rt, "enabled")}
			ok := spec.Enabled && model == "" || !spec.Enabled && model == spec.AttributeName
			_, err := tbl.UpdateTimeToLive(db, spec)
			switch {
			case ok && err != nil:
				rt.Fatalf("UpdateTimeToLive(%+v) with %q enabled: %v", spec, model, err)
			case !ok && !errors.Is(err, ErrValidation):
				rt.Fatalf("UpdateTimeToLive(%+v) with %q enabled = %v, want ErrValidation", spec, model, err)
			case ok && spec.Enabled:
				model = spec.AttributeName
			case ok:
				model = ""
			}
			d, err := tbl.Describe(db)
			if err != nil {
				rt.Fatal(err)
			}
			if d.TimeToLiveAttribute != model {
				rt.Fatalf("TimeToLiveAttribute = %q, model %q", d.TimeToLiveAttribute, model)
			}
		}
	})
}
