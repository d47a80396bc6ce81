package fdblitetest_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

func TestParseFaults(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    fdblitetest.Faults
		wantErr bool
	}{
		{name: "empty", in: "", want: fdblitetest.Faults{}},
		{name: "seed only", in: "seed=42", want: fdblitetest.Faults{Seed: 42}},
		{
			name: "all fields",
			in:   "seed=18446744073709551615 read_too_old=0.1 read_future_version=0.2 commit_not_committed=0.3 commit_too_old=0.4 commit_unknown_result=1",
			want: fdblitetest.Faults{Seed: 1<<64 - 1, ReadTooOld: 0.1, ReadFutureVersion: 0.2, CommitNotCommitted: 0.3, CommitTooOld: 0.4, CommitUnknownResult: 1},
		},
		{name: "omitted rates are zero", in: "commit_unknown_result=0.5", want: fdblitetest.Faults{CommitUnknownResult: 0.5}},
		{name: "extra spaces", in: "  seed=1   read_too_old=0.5 ", want: fdblitetest.Faults{Seed: 1, ReadTooOld: 0.5}},
		{name: "rate above one", in: "read_too_old=1.5", wantErr: true},
		{name: "negative rate", in: "commit_too_old=-0.1", wantErr: true},
		{name: "NaN rate", in: "commit_too_old=NaN", wantErr: true},
		{name: "unknown field", in: "latency=0.1", wantErr: true},
		{name: "no equals sign", in: "seed", wantErr: true},
		{name: "negative seed", in: "seed=-1", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fdblitetest.ParseFaults(tc.in)
			if tc.wantErr {
				if !errors.Is(err, fdblitetest.ErrInvalidFaults) {
					t.Fatalf("ParseFaults(%q) error = %v, want ErrInvalidFaults", tc.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFaults(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseFaults(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			// String is the inverse of ParseFaults.
			back, err := fdblitetest.ParseFaults(got.String())
			if err != nil {
				t.Fatalf("ParseFaults(%q): %v", got.String(), err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("round trip through %q mismatch (-want +got):\n%s", got.String(), diff)
			}
		})
	}
}

func TestSetFaultsRejectsBadRates(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	err := fdblitetest.SetFaults(db, fdblitetest.Faults{CommitTooOld: 2})
	if !errors.Is(err, fdblitetest.ErrInvalidFaults) {
		t.Fatalf("SetFaults(CommitTooOld: 2) error = %v, want ErrInvalidFaults", err)
	}
}

func TestSetFaultsRoundTrip(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	got, err := fdblitetest.ReadFaults(db)
	if err != nil {
		t.Fatal(err)
	}
	if got.Enabled() {
		t.Fatalf("new database has faults %v, want none", got)
	}
	want := fdblitetest.Faults{Seed: 7, ReadTooOld: 0.25, CommitNotCommitted: 0.5, CommitUnknownResult: 0.125}
	if err := fdblitetest.SetFaults(db, want); err != nil {
		t.Fatal(err)
	}
	// The configuration is readable back, with faults on, from this database
	// only.
	got, err = fdblitetest.ReadFaults(db)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadFaults() mismatch (-want +got):\n%s", diff)
	}
	other := fdblitetest.OpenIsolated(t)
	if f, err := fdblitetest.ReadFaults(other); err != nil || f.Enabled() {
		t.Errorf("ReadFaults(other database) = %v, %v; want no faults", f, err)
	}
	if err := fdblitetest.ClearFaults(db); err != nil {
		t.Fatal(err)
	}
	if got, err := fdblitetest.ReadFaults(db); err != nil || got.Enabled() {
		t.Errorf("ReadFaults() after ClearFaults = %v, %v; want no faults", got, err)
	}
}

// TestFaultsCounter increments a counter under faults. Transact retries every
// injected error; with automatic idempotency an applied commit is never
// reported as unknown, so the counter equals the number of increments. Without
// it, a commit_unknown_result retry may apply an increment twice, so the
// counter is only bounded below.
func TestFaultsCounter(t *testing.T) {
	for _, idempotent := range []bool{true, false} {
		name := "plain"
		if idempotent {
			name = "automatic_idempotency"
		}
		t.Run(name, func(t *testing.T) {
			db := fdblitetest.OpenIsolated(t)
			if err := fdblitetest.SetFaults(db, fdblitetest.Faults{
				Seed:                3,
				ReadTooOld:          0.1,
				ReadFutureVersion:   0.1,
				CommitNotCommitted:  0.1,
				CommitTooOld:        0.1,
				CommitUnknownResult: 0.2,
			}); err != nil {
				t.Fatal(err)
			}
			key := fdb.Key("counter")
			one := make([]byte, 8)
			binary.LittleEndian.PutUint64(one, 1)
			const n = 300
			for i := range n {
				if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					if idempotent {
						if err := tr.Options().SetAutomaticIdempotency(); err != nil {
							return nil, err
						}
					}
					tr.Get(key).MustGet() // a read, so read faults apply too
					tr.Add(key, one)
					return nil, nil
				}); err != nil {
					t.Fatalf("increment %d: %v", i, err)
				}
			}
			st, err := fdblitetest.ReadStats(db)
			if err != nil {
				t.Fatal(err)
			}
			if err := fdblitetest.ClearFaults(db); err != nil {
				t.Fatal(err)
			}
			v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
				return rt.Get(key).Get()
			})
			if err != nil {
				t.Fatal(err)
			}
			got := binary.LittleEndian.Uint64(v.([]byte))
			t.Logf("counter=%d injected=%+v", got, st.Injected)
			in := st.Injected
			if in.ReadTooOld == 0 || in.ReadFutureVersion == 0 || in.CommitNotCommitted == 0 || in.CommitTooOld == 0 || in.CommitUnknownResult == 0 {
				t.Errorf("some fault kind was never injected: %+v", in)
			}
			switch {
			case idempotent && got != n:
				t.Errorf("counter = %d, want exactly %d with automatic idempotency", got, n)
			case !idempotent && got < n:
				t.Errorf("counter = %d, want >= %d (lost update)", got, n)
			case !idempotent && got > n+uint64(in.CommitUnknownResult):
				t.Errorf("counter = %d, want <= %d (increments + unknown results)", got, n+uint64(in.CommitUnknownResult))
			}
		})
	}
}

func TestReadStats(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	before, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		for _, k := range []string{"a", "b", "c"} {
			tr.Set(fdb.Key(k), []byte("v"))
		}
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	after, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Keys - before.Keys; got != 3 {
		t.Errorf("Keys grew by %d, want 3 (before %+v, after %+v)", got, before, after)
	}
	if got := after.Commits - before.Commits; got != 1 {
		t.Errorf("Commits grew by %d, want 1", got)
	}
	if after.HeapBytes <= before.HeapBytes {
		t.Errorf("HeapBytes did not grow: before %d, after %d", before.HeapBytes, after.HeapBytes)
	}
}

func TestUniquePrefix(t *testing.T) {
	db := fdblitetest.Open(t)
	a := fdblitetest.UniquePrefix(t, db)
	b := fdblitetest.UniquePrefix(t, db)
	if a.Contains(fdb.Key(b.Bytes())) || b.Contains(fdb.Key(a.Bytes())) {
		t.Errorf("UniquePrefix returned overlapping subspaces %s and %s", a, b)
	}
	dir := fdblitetest.UniqueDirectory(t, db)
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(dir.Pack(nil), []byte("x"))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}
