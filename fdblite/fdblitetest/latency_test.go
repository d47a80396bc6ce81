package fdblitetest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

func TestParseLatency(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    fdblitetest.Latency
		wantErr bool
	}{
		{name: "empty is off", in: "", want: fdblitetest.Latency{}},
		{name: "off", in: "off", want: fdblitetest.Latency{}},
		{name: "default", in: "default", want: fdblitetest.DefaultLatency()},
		{name: "on", in: "on", want: fdblitetest.DefaultLatency()},
		{
			name: "all fields and units",
			in:   "grv=1ms read=250us commit=0.003s jitter=0.5 seed=7",
			want: fdblitetest.Latency{GRV: time.Millisecond, Read: 250 * time.Microsecond, Commit: 3 * time.Millisecond, Jitter: 0.5, Seed: 7},
		},
		{name: "nanoseconds", in: "read=1500ns", want: fdblitetest.Latency{Read: 1500 * time.Nanosecond}},
		{
			name: "default then override",
			in:   "default read=1ms",
			want: func() fdblitetest.Latency { l := fdblitetest.DefaultLatency(); l.Read = time.Millisecond; return l }(),
		},
		{name: "no unit", in: "grv=1", wantErr: true},
		{name: "negative", in: "read=-1ms", wantErr: true},
		{name: "over the maximum", in: "commit=11s", wantErr: true},
		{name: "jitter above one", in: "jitter=1.5", wantErr: true},
		{name: "jitter NaN", in: "jitter=NaN", wantErr: true},
		{name: "unknown field", in: "write=1ms", wantErr: true},
		{name: "no value", in: "read=", wantErr: true},
		{name: "not name=value", in: "fast", wantErr: true},
		{name: "negative seed", in: "seed=-1", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fdblitetest.ParseLatency(tc.in)
			if tc.wantErr {
				if !errors.Is(err, fdblitetest.ErrInvalidLatency) {
					t.Fatalf("ParseLatency(%q) error = %v, want ErrInvalidLatency", tc.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLatency(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseLatency(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if !got.Enabled() {
				return
			}
			back, err := fdblitetest.ParseLatency(got.String())
			if err != nil {
				t.Fatalf("ParseLatency(%q): %v", got.String(), err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("round trip through %q mismatch (-want +got):\n%s", got.String(), diff)
			}
		})
	}
}

// TestDefaultLatencyInsidePublishedRanges checks the default model against
// FoundationDB's published typical latencies below 75% load: start
// transaction 0.3-1 ms, read 0.1-1 ms, commit 1.5-2.5 ms.
func TestDefaultLatencyInsidePublishedRanges(t *testing.T) {
	l := fdblitetest.DefaultLatency()
	for _, c := range []struct {
		name   string
		base   time.Duration
		lo, hi time.Duration
	}{
		{"grv", l.GRV, 300 * time.Microsecond, time.Millisecond},
		{"read", l.Read, 100 * time.Microsecond, time.Millisecond},
		{"commit", l.Commit, 1500 * time.Microsecond, 2500 * time.Microsecond},
	} {
		lo := time.Duration(float64(c.base) * (1 - l.Jitter))
		hi := time.Duration(float64(c.base) * (1 + l.Jitter))
		if lo < c.lo || hi > c.hi {
			t.Errorf("%s: delays %v-%v, want inside %v-%v", c.name, lo, hi, c.lo, c.hi)
		}
	}
}

func FuzzParseLatency(f *testing.F) {
	for _, s := range []string{"", "default", "grv=1ms read=250us commit=0.003s jitter=0.5 seed=7", "read=1e3ns", "read=-0s", "jitter=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := fdblitetest.ParseLatency(s)
		if err != nil {
			if !errors.Is(err, fdblitetest.ErrInvalidLatency) {
				t.Fatalf("ParseLatency(%q) error %v does not wrap ErrInvalidLatency", s, err)
			}
			return
		}
		if l.GRV < 0 || l.Read < 0 || l.Commit < 0 || l.Jitter < 0 || l.Jitter > 1 {
			t.Fatalf("ParseLatency(%q) = %+v, outside the valid ranges", s, l)
		}
		if !l.Enabled() {
			return
		}
		back, err := fdblitetest.ParseLatency(l.String())
		if err != nil || back != l {
			t.Fatalf("round trip of %q through %q = %+v, %v", s, l.String(), back, err)
		}
	})
}

func TestSetLatencyReadsBack(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	want := fdblitetest.Latency{GRV: time.Millisecond, Read: 2 * time.Millisecond, Commit: 3 * time.Millisecond, Jitter: 0.1, Seed: 9}
	if err := fdblitetest.SetLatency(db, want); err != nil {
		t.Fatal(err)
	}
	got, err := fdblitetest.ReadLatency(db)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadLatency mismatch (-want +got):\n%s", diff)
	}
	if err := fdblitetest.SetLatency(db, fdblitetest.Latency{Jitter: 2}); !errors.Is(err, fdblitetest.ErrInvalidLatency) {
		t.Errorf("SetLatency(jitter 2) = %v, want ErrInvalidLatency", err)
	}
	if err := fdblitetest.SetLatency(db, fdblitetest.Latency{}); err != nil {
		t.Fatal(err)
	}
	if got, err := fdblitetest.ReadLatency(db); err != nil || got.Enabled() {
		t.Errorf("after SetLatency(off): %+v, %v; want off", got, err)
	}
}

// TestCountRoundTrips checks the counts of transactions whose round trips
// FoundationDB's client protocol fixes: one read version per transaction,
// one wave per set of reads issued before any is waited for, one commit per
// read-write transaction.
func TestCountRoundTrips(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tests := []struct {
		name string
		fn   func(tr fdb.Transaction)
		want fdblitetest.RoundTrips
	}{
		{"blind write", func(tr fdb.Transaction) { tr.Set(fdb.Key("a"), []byte("1")) }, fdblitetest.RoundTrips{ReadVersions: 1, Commits: 1}},
		{"one read", func(tr fdb.Transaction) { tr.Get(fdb.Key("a")).MustGet() }, fdblitetest.RoundTrips{ReadVersions: 1, ReadWaves: 1}},
		{"reads issued together", func(tr fdb.Transaction) {
			fs := []fdb.FutureByteSlice{tr.Get(fdb.Key("a")), tr.Get(fdb.Key("b")), tr.Get(fdb.Key("c"))}
			for _, f := range fs {
				f.MustGet()
			}
		}, fdblitetest.RoundTrips{ReadVersions: 1, ReadWaves: 1}},
		{"reads one after another", func(tr fdb.Transaction) {
			tr.Get(fdb.Key("a")).MustGet()
			tr.Get(fdb.Key("b")).MustGet()
		}, fdblitetest.RoundTrips{ReadVersions: 1, ReadWaves: 2}},
		{"metadata version costs no wave", func(tr fdb.Transaction) {
			tr.Snapshot().Get(fdb.Key("\xff/metadataVersion")).MustGet()
		}, fdblitetest.RoundTrips{ReadVersions: 1}},
		{"read, then write", func(tr fdb.Transaction) {
			tr.Get(fdb.Key("a")).MustGet()
			tr.Set(fdb.Key("a"), []byte("2"))
		}, fdblitetest.RoundTrips{ReadVersions: 1, ReadWaves: 1, Commits: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var inTxn fdblitetest.RoundTrips
			got, err := fdblitetest.CountRoundTrips(db, func() error {
				_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					tc.fn(tr)
					var err error
					inTxn, err = fdblitetest.TransactionRoundTrips(tr)
					return nil, err
				})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("round trips mismatch (-want +got):\n%s", diff)
			}
			// The transaction's own counts, read before its commit (a blind
			// write takes its read version at commit).
			wantInTxn := tc.want
			wantInTxn.Commits = 0
			if tc.want.ReadWaves == 0 && tc.want.Commits == 1 {
				wantInTxn.ReadVersions = 0
			}
			if diff := cmp.Diff(wantInTxn, inTxn); diff != "" {
				t.Errorf("transaction's own round trips mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLatencyDelaysReads checks the model through the bindings: a read
// takes at least its delay, and reads issued together overlap.
func TestLatencyDelaysReads(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	const read = 100 * time.Millisecond
	if err := fdblitetest.SetLatency(db, fdblitetest.Latency{Read: read}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fdblitetest.SetLatency(db, fdblitetest.Latency{}) })
	_, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		start := time.Now()
		fs := make([]fdb.FutureByteSlice, 10)
		for i := range fs {
			fs[i] = rt.Get(fdb.Key{byte('a' + i)})
		}
		for _, f := range fs {
			f.MustGet()
		}
		if el := time.Since(start); el < read {
			t.Errorf("10 reads issued together took %v, want at least %v", el, read)
		} else if el >= 5*read {
			t.Errorf("10 reads issued together took %v: they did not overlap", el)
		}
		start = time.Now()
		rt.Get(fdb.Key("x")).MustGet()
		rt.Get(fdb.Key("y")).MustGet()
		if el := time.Since(start); el < 2*read {
			t.Errorf("2 reads one after another took %v, want at least %v", el, 2*read)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
