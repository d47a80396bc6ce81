package conformance

import (
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"
)

// Reads see the database as of the transaction's read version: commits after
// it are invisible (developer guide, "Transactions"; facts §5.2).
func TestGet_SeesSnapshotAtReadVersion(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "old", s.k("b"), "b0")

	tr := newTr(t)
	rv, err := tr.GetReadVersion().Get()
	if err != nil {
		t.Fatalf("GetReadVersion: %v", err)
	}
	put(t, s.k("a"), "new", s.k("c"), "c1")
	put(t, s.k("b"), nil)

	if got := tr.Get(s.k("a")).MustGet(); string(got) != "old" {
		t.Errorf("Get(a) at read version %d = %s, want old", rv, printable(got))
	}
	kvs, err := tr.GetRange(s.all(), fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		t.Fatalf("GetRange: %v", err)
	}
	if diff := cmp.Diff([]string{"a=old", "b=b0"}, s.kvStrings(kvs)); diff != "" {
		t.Errorf("GetRange at old read version mismatch (-want +got):\n%s", diff)
	}
	if got := getCommitted(t, s.k("a")); string(got) != "new" {
		t.Errorf("fresh Get(a) = %s, want new", printable(got))
	}
}

// rywFixture commits a base state and returns a transaction that has issued
// sets, clears, a clear range and atomic adds on top of it (facts §5.3).
func rywFixture(t *testing.T, s space) fdb.Transaction {
	put(t, s.k("a"), "1", s.k("b"), "2", s.k("c"), "3", s.k("d"), "4",
		s.k("f"), "6", s.k("fa"), "6a", s.k("n"), le64(10))
	tr := newTr(t)
	tr.Set(s.k("b"), []byte("B"))    // overwrite
	tr.Clear(s.k("c"))               // clear
	tr.Set(s.k("e"), []byte("E"))    // insert
	tr.ClearRange(s.kr("f", "g"))    // clear range (f, fa)
	tr.Add(s.k("n"), le64(5))        // atomic on a committed value: 15
	tr.Set(s.k("x"), le64(1))        // atomic on own set: 3
	tr.Add(s.k("x"), le64(2))        //
	tr.Add(s.k("y"), le64(7))        // atomic on an absent key: 7
	tr.Set(s.k("z"), []byte("gone")) // set then cleared by own clear
	tr.Clear(s.k("z"))
	return tr
}

func TestRYW_ReadsSeeOwnWrites(t *testing.T) {
	s := newSpace(t)
	wantGet := map[string][]byte{
		"a": []byte("1"), "b": []byte("B"), "c": nil, "d": []byte("4"), "e": []byte("E"),
		"f": nil, "fa": nil, "n": le64(15), "x": le64(3), "y": le64(7), "z": nil,
	}
	wantAll := []string{"a=1", "b=B", "d=4", "e=E",
		"n=" + string(le64(15)), "x=" + string(le64(3)), "y=" + string(le64(7))}
	for _, snapshot := range []bool{false, true} {
		name := "serializable"
		if snapshot {
			name = "snapshot" // snapshot RYW is on by default at API >= 300
		}
		t.Run(name, func(t *testing.T) {
			tr := rywFixture(t, s)
			defer tr.Cancel()
			var rt fdb.ReadTransaction = tr
			if snapshot {
				rt = tr.Snapshot()
			}
			for k, want := range wantGet {
				got, err := rt.Get(s.k(k)).Get()
				if err != nil {
					t.Errorf("Get(%s): %v", k, err)
					continue
				}
				if (got == nil) != (want == nil) || string(got) != string(want) {
					t.Errorf("Get(%s) = %s, want %s", k, printable(got), printable(want))
				}
			}
			ranges := []struct {
				name string
				opt  fdb.RangeOptions
				want []string
			}{
				{"forward", fdb.RangeOptions{}, wantAll},
				{"forward limit 3", fdb.RangeOptions{Limit: 3}, wantAll[:3]},
				{"reverse", fdb.RangeOptions{Reverse: true}, reversed(wantAll)},
				{"reverse limit 2", fdb.RangeOptions{Reverse: true, Limit: 2}, reversed(wantAll)[:2]},
			}
			for _, rc := range ranges {
				kvs, err := rt.GetRange(s.all(), rc.opt).GetSliceWithError()
				if err != nil {
					t.Errorf("GetRange %s: %v", rc.name, err)
					continue
				}
				if diff := cmp.Diff(rc.want, s.kvStrings(kvs)); diff != "" {
					t.Errorf("GetRange %s mismatch (-want +got):\n%s", rc.name, diff)
				}
			}
			selectors := []struct {
				name string
				sel  fdb.KeySelector
				want string
			}{
				{"FirstGreaterThan(b) skips own clear of c", fdb.FirstGreaterThan(s.k("b")), "d"},
				{"FirstGreaterOrEqual(c) skips own clear", fdb.FirstGreaterOrEqual(s.k("c")), "d"},
				{"LastLessThan(e) sees d", fdb.LastLessThan(s.k("e")), "d"},
				{"LastLessOrEqual(e) sees own insert", fdb.LastLessOrEqual(s.k("e")), "e"},
				{"LastLessOrEqual(g) skips own clear range", fdb.LastLessOrEqual(s.k("g")), "e"},
				{"FirstGreaterOrEqual(f) skips own clear range", fdb.FirstGreaterOrEqual(s.k("f")), "n"},
				{"FirstGreaterThan(x) sees own atomic on absent key", fdb.FirstGreaterThan(s.k("x")), "y"},
				{"FirstGreaterOrEqual(a)+2", fdb.KeySelector{Key: s.k("a"), OrEqual: false, Offset: 3}, "d"},
				{"LastLessThan(n)-1", fdb.KeySelector{Key: s.k("n"), OrEqual: false, Offset: -1}, "d"},
			}
			for _, sc := range selectors {
				got, err := rt.GetKey(sc.sel).Get()
				if err != nil {
					t.Errorf("GetKey %s: %v", sc.name, err)
					continue
				}
				if s.rel(got) != sc.want {
					t.Errorf("GetKey %s = %s, want %s", sc.name, s.rel(got), sc.want)
				}
			}
		})
	}
}

func reversed(in []string) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[len(in)-1-i] = v
	}
	return out
}

// A read reflects the transaction's writes issued BEFORE the read call, never
// later ones, even if the future is waited on after them (facts §5.3).
func TestRYW_WritesAfterReadAreNotReflected(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "old", s.k("c"), "c")
	tr := newTr(t)
	defer tr.Cancel()
	fGet := tr.Get(s.k("a"))
	fRange := tr.GetRange(s.all(), fdb.RangeOptions{})
	fKey := tr.GetKey(fdb.FirstGreaterThan(s.k("a")))
	tr.Set(s.k("a"), []byte("new"))
	tr.Set(s.k("b"), []byte("b"))
	tr.Clear(s.k("c"))

	if got := fGet.MustGet(); string(got) != "old" {
		t.Errorf("Get(a) issued before Set = %s, want old", printable(got))
	}
	kvs, err := fRange.GetSliceWithError()
	if err != nil {
		t.Fatalf("GetRange: %v", err)
	}
	if diff := cmp.Diff([]string{"a=old", "c=c"}, s.kvStrings(kvs)); diff != "" {
		t.Errorf("GetRange issued before writes mismatch (-want +got):\n%s", diff)
	}
	if got := fKey.MustGet(); s.rel(got) != "c" {
		t.Errorf("GetKey(FirstGreaterThan(a)) issued before writes = %s, want c", s.rel(got))
	}
	// And reads issued after the writes do see them.
	if got := tr.Get(s.k("a")).MustGet(); string(got) != "new" {
		t.Errorf("Get(a) after Set = %s, want new", printable(got))
	}
}

// With read_your_writes_disable (option 51) reads see only the database at
// the read version, and watches fail with watches_disabled (1034).
func TestRYWDisable_ReadsIgnoreOwnWritesAndWatchFails(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "committed")
	tr := newTr(t)
	defer tr.Cancel()
	if err := tr.Options().SetReadYourWritesDisable(); err != nil {
		t.Fatalf("SetReadYourWritesDisable: %v", err)
	}
	tr.Set(s.k("a"), []byte("mine"))
	tr.Set(s.k("b"), []byte("mine"))
	if got := tr.Get(s.k("a")).MustGet(); string(got) != "committed" {
		t.Errorf("Get(a) with RYW disabled = %s, want committed", printable(got))
	}
	if got := tr.Get(s.k("b")).MustGet(); got != nil {
		t.Errorf("Get(b) with RYW disabled = %s, want absent", printable(got))
	}
	kvs, err := tr.GetRange(s.all(), fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		t.Fatalf("GetRange: %v", err)
	}
	if diff := cmp.Diff([]string{"a=committed"}, s.kvStrings(kvs)); diff != "" {
		t.Errorf("GetRange with RYW disabled mismatch (-want +got):\n%s", diff)
	}
	w := tr.Watch(s.k("a"))
	err, ready := wait(w, 2e9)
	if !ready {
		w.Cancel()
		t.Fatalf("Watch with RYW disabled did not complete; want error 1034")
	}
	wantCode(t, "Watch with RYW disabled", err, 1034)
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if got := getCommitted(t, s.k("b")); string(got) != "mine" {
		t.Errorf("after commit Get(b) = %s, want mine", printable(got))
	}
}

// Setting read_your_writes_disable after a write is an invalid operation
// (2000), surfaced by the next future (real RYW setOption throws
// client_invalid_operation; ThreadSafeTransaction defers it).
func TestRYWDisable_AfterWriteFailsWithInvalidOperation(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	defer tr.Cancel()
	tr.Set(s.k("a"), []byte("v"))
	optErr := tr.Options().SetReadYourWritesDisable()
	_, getErr := tr.Get(s.k("a")).Get()
	if codeOf(optErr) == 2000 {
		return // reported synchronously: also acceptable
	}
	wantCode(t, "SetReadYourWritesDisable after Set", optErr, 0)
	wantCode(t, "Get after late SetReadYourWritesDisable", getErr, 2000)
}

// Snapshot reads see own writes while the snapshot-RYW counter (starts at 1)
// is > 0; options 600/601 move it by ±1 (facts §5.3). Serializable reads
// always see own writes.
func TestSnapshotRYW_OptionsMoveCounter(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "committed")
	cases := []struct {
		name    string
		options []string
		sees    bool
	}{
		{"default", nil, true},
		{"disable", []string{"disable"}, false},
		{"disable enable", []string{"disable", "enable"}, true},
		{"disable disable enable", []string{"disable", "disable", "enable"}, false},
		{"enable disable", []string{"enable", "disable"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			for _, o := range tc.options {
				var err error
				if o == "enable" {
					err = tr.Options().SetSnapshotRywEnable()
				} else {
					err = tr.Options().SetSnapshotRywDisable()
				}
				if err != nil {
					t.Fatalf("snapshot RYW %s: %v", o, err)
				}
			}
			tr.Set(s.k("a"), []byte("mine"))
			tr.Set(s.k("b"), []byte("mine"))
			want := map[string]string{"a": "committed", "b": "<absent>"}
			wantRange := []string{"a=committed"}
			if tc.sees {
				want = map[string]string{"a": "mine", "b": "mine"}
				wantRange = []string{"a=mine", "b=mine"}
			}
			for _, k := range []string{"a", "b"} {
				if got := printable(tr.Snapshot().Get(s.k(k)).MustGet()); got != want[k] {
					t.Errorf("snapshot Get(%s) = %s, want %s", k, got, want[k])
				}
				if got := printable(tr.Get(s.k(k)).MustGet()); got != "mine" {
					t.Errorf("serializable Get(%s) = %s, want mine", k, got)
				}
			}
			kvs, err := tr.Snapshot().GetRange(s.all(), fdb.RangeOptions{}).GetSliceWithError()
			if err != nil {
				t.Fatalf("snapshot GetRange: %v", err)
			}
			if diff := cmp.Diff(wantRange, s.kvStrings(kvs)); diff != "" {
				t.Errorf("snapshot GetRange mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Database options 26/27 (snapshot_ryw_enable/disable) move the counter of
// transactions created afterwards.
func TestSnapshotRYW_DatabaseOptionAppliesToNewTransactions(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "committed")
	if err := db.Options().SetSnapshotRywDisable(); err != nil {
		t.Fatalf("db SetSnapshotRywDisable: %v", err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			if err := db.Options().SetSnapshotRywEnable(); err != nil {
				t.Errorf("db SetSnapshotRywEnable: %v", err)
			}
		}
	}
	defer restore()
	tr := newTr(t)
	defer tr.Cancel()
	tr.Set(s.k("a"), []byte("mine"))
	if got := printable(tr.Snapshot().Get(s.k("a")).MustGet()); got != "committed" {
		t.Errorf("snapshot Get with DB snapshot RYW disabled = %s, want committed", got)
	}
	restore()
	tr2 := newTr(t)
	defer tr2.Cancel()
	tr2.Set(s.k("a"), []byte("mine"))
	if got := printable(tr2.Snapshot().Get(s.k("a")).MustGet()); got != "mine" {
		t.Errorf("snapshot Get after DB snapshot RYW re-enabled = %s, want mine", got)
	}
}

// A plain snapshot read returns the database value at the read version.
func TestSnapshotRead_SeesReadVersion(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "v1")
	tr := newTr(t)
	defer tr.Cancel()
	tr.GetReadVersion().MustGet()
	put(t, s.k("a"), "v2")
	if got := printable(tr.Snapshot().Get(s.k("a")).MustGet()); got != "v1" {
		t.Errorf("snapshot Get = %s, want v1", got)
	}
}
