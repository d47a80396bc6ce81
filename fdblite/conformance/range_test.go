package conformance

import (
	"fmt"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"
)

func numbered(i int) string { return fmt.Sprintf("%05d", i) }

// putNumbered commits keys 00000..n-1 with values "v<i>" in batches.
func putNumbered(t testing.TB, s space, n int, valueSize int) {
	t.Helper()
	for start := 0; start < n; start += 1000 {
		mustTransact(t, func(tr fdb.Transaction) {
			for i := start; i < n && i < start+1000; i++ {
				v := []byte("v" + numbered(i))
				for len(v) < valueSize {
					v = append(v, '.')
				}
				tr.Set(s.k(numbered(i)), v)
			}
		})
	}
}

func TestGetRange_LimitAndReverse(t *testing.T) {
	s := newSpace(t)
	putNumbered(t, s, 10, 0)
	all := []string{}
	for i := 0; i < 10; i++ {
		all = append(all, numbered(i))
	}
	cases := []struct {
		name string
		r    fdb.Range
		opt  fdb.RangeOptions
		want []string
	}{
		{"all", s.all(), fdb.RangeOptions{}, all},
		{"limit 3 keeps the first rows", s.all(), fdb.RangeOptions{Limit: 3}, all[:3]},
		{"reverse", s.all(), fdb.RangeOptions{Reverse: true}, reversed(all)},
		{"reverse limit 3 keeps the last rows", s.all(), fdb.RangeOptions{Reverse: true, Limit: 3}, []string{"00009", "00008", "00007"}},
		{"limit larger than range", s.all(), fdb.RangeOptions{Limit: 100}, all},
		{"limit equal to range", s.all(), fdb.RangeOptions{Limit: 10}, all},
		{"limit -1 is unlimited", s.all(), fdb.RangeOptions{Limit: -1}, all},
		{"sub range end exclusive", s.kr("00002", "00005"), fdb.RangeOptions{}, all[2:5]},
		{"sub range reverse limit", s.kr("00002", "00008"), fdb.RangeOptions{Reverse: true, Limit: 2}, []string{"00007", "00006"}},
		{"selector range", fdb.SelectorRange{Begin: fdb.FirstGreaterThan(s.k("00002")), End: fdb.LastLessOrEqual(s.k("00005"))}, fdb.RangeOptions{}, all[3:5]},
		{"selector range with offsets", fdb.SelectorRange{
			Begin: fdb.KeySelector{Key: s.k("00002"), OrEqual: false, Offset: 3},
			End:   fdb.KeySelector{Key: s.k("00008"), OrEqual: true, Offset: -1}}, fdb.RangeOptions{}, all[4:7]},
		{"empty range", s.kr("00002x", "00003"), fdb.RangeOptions{}, []string{}},
		{"inverted key range is empty", s.kr("00005", "00002"), fdb.RangeOptions{}, []string{}},
		{"inverted selector range is empty", fdb.SelectorRange{Begin: fdb.FirstGreaterOrEqual(s.k("00006")), End: fdb.FirstGreaterOrEqual(s.k("00003"))}, fdb.RangeOptions{}, []string{}},
	}
	tr := newTr(t)
	defer tr.Cancel()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kvs, err := tr.GetRange(tc.r, tc.opt).GetSliceWithError()
			if err != nil {
				t.Fatalf("GetSliceWithError: %v", err)
			}
			if diff := cmp.Diff(tc.want, s.keyStrings(kvs)); diff != "" {
				t.Errorf("GetRange mismatch (-want +got):\n%s", diff)
			}
			// The same through the iterator.
			got := []string{}
			it := tr.GetRange(tc.r, tc.opt).Iterator()
			for it.Advance() {
				kv, err := it.Get()
				if err != nil {
					t.Fatalf("iterator: %v", err)
				}
				got = append(got, s.rel(kv.Key))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Iterator mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Every streaming mode returns the same rows; only batching differs
// (API reference, FDBStreamingMode).
func TestGetRange_EveryStreamingModeReturnsSameRows(t *testing.T) {
	s := newSpace(t)
	const n = 2000
	putNumbered(t, s, n, 100) // ~220 KB: several batches in every byte-capped mode
	modes := []struct {
		name string
		mode fdb.StreamingMode
	}{
		{"WantAll", fdb.StreamingModeWantAll},
		{"Iterator", fdb.StreamingModeIterator},
		{"Exact", fdb.StreamingModeExact},
		{"Small", fdb.StreamingModeSmall},
		{"Medium", fdb.StreamingModeMedium},
		{"Large", fdb.StreamingModeLarge},
		{"Serial", fdb.StreamingModeSerial},
	}
	tr := newTr(t)
	defer tr.Cancel()
	for _, m := range modes {
		for _, reverse := range []bool{false, true} {
			for _, limit := range []int{0, 1, 777, n} {
				if m.mode == fdb.StreamingModeExact && limit == 0 {
					continue // covered by TestGetRange_ExactModeWithoutLimitFails
				}
				name := fmt.Sprintf("%s/reverse=%v/limit=%d", m.name, reverse, limit)
				t.Run(name, func(t *testing.T) {
					want := limit
					if want == 0 {
						want = n
					}
					// The iterator uses the caller's mode for every batch.
					it := tr.GetRange(s.all(), fdb.RangeOptions{Mode: m.mode, Reverse: reverse, Limit: limit}).Iterator()
					count := 0
					for it.Advance() {
						kv, err := it.Get()
						if err != nil {
							t.Fatalf("row %d: %v", count, err)
						}
						wantKey := numbered(count)
						if reverse {
							wantKey = numbered(n - 1 - count)
						}
						if s.rel(kv.Key) != wantKey {
							t.Fatalf("row %d = %s, want %s", count, s.rel(kv.Key), wantKey)
						}
						count++
					}
					if count != want {
						t.Errorf("iterator returned %d rows, want %d", count, want)
					}
				})
			}
		}
	}
}

// EXACT streaming mode without a limit is exact_mode_without_limits (2210).
func TestGetRange_ExactModeWithoutLimitFails(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "1")
	tr := newTr(t)
	defer tr.Cancel()
	it := tr.GetRange(s.all(), fdb.RangeOptions{Mode: fdb.StreamingModeExact}).Iterator()
	if !it.Advance() {
		t.Fatalf("Advance = false, want true with a pending error")
	}
	_, err := it.Get()
	wantCode(t, "EXACT without limit", err, 2210)
}

// A limit below -1 is range_limits_invalid (2012).
func TestGetRange_NegativeLimitFails(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	defer tr.Cancel()
	_, err := tr.GetRange(s.all(), fdb.RangeOptions{Limit: -2}).GetSliceWithError()
	wantCode(t, "GetRange limit -2", err, 2012)
}

// The iterator crosses many batches over a 10k-key range, in both directions,
// including keys this transaction wrote and cleared.
func TestGetRange_IteratorOverBigRange(t *testing.T) {
	s := newSpace(t)
	const n = 10000
	putNumbered(t, s, n, 0)
	tr := newTr(t)
	defer tr.Cancel()
	tr.Clear(s.k(numbered(5000)))
	tr.Set(s.k(numbered(5000)+"x"), []byte("mine"))
	tr.ClearRange(s.kr(numbered(7000), numbered(7100)))
	want := []string{}
	for i := 0; i < n; i++ {
		if i == 5000 {
			want = append(want, numbered(5000)+"x")
			continue
		}
		if i >= 7000 && i < 7100 {
			continue
		}
		want = append(want, numbered(i))
	}
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reverse=%v", reverse), func(t *testing.T) {
			got := make([]string, 0, n)
			it := tr.GetRange(s.all(), fdb.RangeOptions{Reverse: reverse}).Iterator()
			for it.Advance() {
				got = append(got, s.rel(it.MustGet().Key))
			}
			w := want
			if reverse {
				w = reversed(want)
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("iterator mismatch (-want +got):\n%s", diff)
			}
			kvs, err := tr.GetRange(s.all(), fdb.RangeOptions{Reverse: reverse}).GetSliceWithError()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, s.keyStrings(kvs)); diff != "" {
				t.Errorf("GetSliceWithError mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Range reads with begin or end beyond the max read key fail with 2004;
// an end of exactly \xff is fine (facts §5.3).
func TestGetRange_KeysPastMaxReadKey(t *testing.T) {
	cases := []struct {
		name       string
		begin, end string
		system     bool
		want       int
	}{
		{"end \\xff", "\xfe\xff\xff\xff\xff", "\xff", false, 0},
		{"end \\xff\\x00", "\xfe\xff\xff\xff\xff", "\xff\x00", false, 2004},
		{"begin \\xff\\x00", "\xff\x00", "\xff\x01", false, 2004},
		{"system access end \\xff\\xff", "\xff\xfe", "\xff\xff", true, 0},
		{"system access end \\xff\\xff\\x00", "\xff\xfe", "\xff\xff\x00", true, 2004},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			if tc.system {
				must(tr.Options().SetReadSystemKeys())
			}
			_, err := tr.GetRange(fdb.KeyRange{Begin: fdb.Key(tc.begin), End: fdb.Key(tc.end)}, fdb.RangeOptions{}).GetSliceWithError()
			wantCode(t, "GetRange", err, tc.want)
		})
	}
}

// Inverted ranges: reads are empty, but clear_range and the range getters
// fail with inverted_range (2005) (facts §3, §5.5).
func TestInvertedRanges(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "1", s.k("z"), "2")
	inv := s.kr("z", "a")

	t.Run("ClearRange fails the commit", func(t *testing.T) {
		tr := newTr(t)
		tr.ClearRange(inv)
		wantCode(t, "commit after inverted ClearRange", tr.Commit().Get(), 2005)
		if got := getCommitted(t, s.k("a")); string(got) != "1" {
			t.Errorf("a = %s after failed commit, want 1", printable(got))
		}
	})
	t.Run("AddReadConflictRange fails at once", func(t *testing.T) {
		tr := newTr(t)
		defer tr.Cancel()
		wantCode(t, "AddReadConflictRange", tr.AddReadConflictRange(inv), 2005)
	})
	t.Run("AddWriteConflictRange fails at once", func(t *testing.T) {
		tr := newTr(t)
		defer tr.Cancel()
		wantCode(t, "AddWriteConflictRange", tr.AddWriteConflictRange(inv), 2005)
	})
	t.Run("GetEstimatedRangeSizeBytes", func(t *testing.T) {
		tr := newTr(t)
		defer tr.Cancel()
		_, err := tr.GetEstimatedRangeSizeBytes(inv).Get()
		wantCode(t, "GetEstimatedRangeSizeBytes", err, 2005)
	})
	t.Run("GetRangeSplitPoints", func(t *testing.T) {
		tr := newTr(t)
		defer tr.Cancel()
		_, err := tr.GetRangeSplitPoints(inv, 1000).Get()
		wantCode(t, "GetRangeSplitPoints", err, 2005)
	})
	t.Run("GetRange is empty", func(t *testing.T) {
		tr := newTr(t)
		defer tr.Cancel()
		kvs, err := tr.GetRange(inv, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil || len(kvs) != 0 {
			t.Errorf("GetRange(inverted) = %d rows, %v; want 0 rows, no error", len(kvs), err)
		}
	})
	t.Run("empty ClearRange is a no-op", func(t *testing.T) {
		tr := newTr(t)
		tr.ClearRange(s.kr("a", "a"))
		wantCode(t, "commit", tr.Commit().Get(), 0)
	})
}
