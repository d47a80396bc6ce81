package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/internal/testtime"
)

// sizedKey returns a key under s of exactly n bytes.
func (s space) sizedKey(n int) fdb.Key {
	k := s.k("")
	return fdb.Key(append(k, bytes.Repeat([]byte{'k'}, n-len(k))...))
}

// Size limits (developer guide, "Known limitations"): keys 10,000 bytes,
// values 100,000 bytes, transactions 10,000,000 bytes.
func TestLimits_SizesAndSystemKeys(t *testing.T) {
	s := newSpace(t)
	value100k := bytes.Repeat([]byte{'v'}, 100000)
	cases := []struct {
		name string
		op   func(tr fdb.Transaction)
		want int
	}{
		{"key of 10,000 bytes", func(tr fdb.Transaction) { tr.Set(s.sizedKey(10000), []byte("v")) }, 0},
		{"key of 10,001 bytes", func(tr fdb.Transaction) { tr.Set(s.sizedKey(10001), []byte("v")) }, 2102},
		{"atomic op key of 10,001 bytes", func(tr fdb.Transaction) { tr.Add(s.sizedKey(10001), le64(1)) }, 2102},
		{"value of 100,000 bytes", func(tr fdb.Transaction) { tr.Set(s.k("v"), value100k) }, 0},
		{"value of 100,001 bytes", func(tr fdb.Transaction) { tr.Set(s.k("v"), append(value100k, 'x')) }, 2103},
		{"atomic param of 100,001 bytes", func(tr fdb.Transaction) { tr.AppendIfFits(s.k("v"), append(value100k, 'x')) }, 2103},
		{"transaction over 10,000,000 bytes", func(tr fdb.Transaction) {
			for i := 0; i < 101; i++ {
				tr.Set(s.k(numbered(i)), value100k)
			}
		}, 2101},
		{"size_limit option", func(tr fdb.Transaction) {
			must(tr.Options().SetSizeLimit(1000))
			tr.Set(s.k("a"), bytes.Repeat([]byte{'v'}, 2000))
		}, 2101},
		{"size_limit option not reached", func(tr fdb.Transaction) {
			must(tr.Options().SetSizeLimit(100000))
			tr.Set(s.k("a"), bytes.Repeat([]byte{'v'}, 2000))
		}, 0},
		{"Set in system space without access", func(tr fdb.Transaction) { tr.Set(fdb.Key("\xff\x02/fdblite-conformance"), []byte("v")) }, 2004},
		{"Clear in system space without access", func(tr fdb.Transaction) { tr.Clear(fdb.Key("\xff\x02/fdblite-conformance")) }, 2004},
		{"ClearRange past \\xff without access", func(tr fdb.Transaction) {
			tr.ClearRange(fdb.KeyRange{Begin: fdb.Key("\xfe\xff\xff\xff\xff"), End: fdb.Key("\xff\x00")})
		}, 2004},
		{"ClearRange ending at \\xff", func(tr fdb.Transaction) {
			tr.ClearRange(fdb.KeyRange{Begin: fdb.Key("\xfe\xff\xff\xff\xff"), End: fdb.Key("\xff")})
		}, 0},
		{"Set \\xff with access system keys", func(tr fdb.Transaction) {
			must(tr.Options().SetAccessSystemKeys())
			tr.Set(fdb.Key("\xff\x02/fdblite-conformance"), []byte("v"))
			tr.Clear(fdb.Key("\xff\x02/fdblite-conformance"))
		}, 0},
		{"Set special key space with access system keys", func(tr fdb.Transaction) {
			must(tr.Options().SetAccessSystemKeys())
			tr.Set(fdb.Key("\xff\xff\xff"), []byte("v"))
		}, 2004},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			tc.op(tr)
			wantCode(t, "Commit", tr.Commit().Get(), tc.want)
		})
	}
}

// The first failed write poisons the transaction: later reads fail with the
// same code (facts §5.1 deferred errors).
func TestLimits_DeferredErrorFailsLaterReads(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	defer tr.Cancel()
	tr.Set(s.sizedKey(10001), []byte("v"))
	_, err := tr.Get(s.k("a")).Get()
	wantCode(t, "Get after oversized Set", err, 2102)
	_, err = tr.GetRange(s.all(), fdb.RangeOptions{}).GetSliceWithError()
	wantCode(t, "GetRange after oversized Set", err, 2102)
	tr.Reset()
	_, err = tr.Get(s.k("a")).Get()
	wantCode(t, "Get after Reset", err, 0)
}

// Reads of keys >= \xff need read_system_keys/access_system_keys.
func TestLimits_SystemKeyReads(t *testing.T) {
	cases := []struct {
		name   string
		option func(tr fdb.Transaction) error
		want   int
	}{
		{"no option", nil, 2004},
		{"read system keys", func(tr fdb.Transaction) error { return tr.Options().SetReadSystemKeys() }, 0},
		{"access system keys", func(tr fdb.Transaction) error { return tr.Options().SetAccessSystemKeys() }, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			if tc.option != nil {
				must(tc.option(tr))
			}
			_, err := tr.Get(fdb.Key("\xff\x02/fdblite-conformance")).Get()
			wantCode(t, "Get(\\xff\\x02/...)", err, tc.want)
		})
	}
}

// Operations after Commit fail with used_during_commit (2017), also after the
// commit succeeded, until Reset (facts §5.1).
func TestTransaction_UsedDuringCommit(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	tr.Set(s.k("a"), []byte("1"))
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	_, err := tr.Get(s.k("a")).Get()
	wantCode(t, "Get after commit", err, 2017)
	wantCode(t, "second Commit", tr.Commit().Get(), 2017)
	tr.Reset()
	v, err := tr.Get(s.k("a")).Get()
	if err != nil || string(v) != "1" {
		t.Errorf("Get after Reset = %s, %v; want 1, nil", printable(v), err)
	}
}

// A cancelled transaction fails every later operation with
// transaction_cancelled (1025) until reset.
func TestTransaction_Cancelled(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	tr.Set(s.k("a"), []byte("1"))
	tr.Cancel()
	_, err := tr.Get(s.k("a")).Get()
	wantCode(t, "Get after Cancel", err, 1025)
	wantCode(t, "Commit after Cancel", tr.Commit().Get(), 1025)
	wantCode(t, "OnError after Cancel", tr.OnError(fdb.Error{Code: 1020}).Get(), 1025)
	if got := getCommitted(t, s.k("a")); got != nil {
		t.Errorf("cancelled transaction's write is visible: %s", printable(got))
	}
	tr.Reset()
	tr.Set(s.k("a"), []byte("2"))
	wantCode(t, "Commit after Reset", tr.Commit().Get(), 0)
}

// Timeout option (500, ms): after it expires operations fail with
// transaction_timed_out (1031), and db.Transact gives up with it.
func TestTransaction_TimeoutOption(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	must(tr.Options().SetTimeout(20))
	time.Sleep(100 * time.Millisecond) // the thing tested: the timeout elapses
	_, err := tr.Get(s.k("a")).Get()
	wantCode(t, "Get after timeout", err, 1031)
	wantCode(t, "Commit after timeout", tr.Commit().Get(), 1031)

	attempts := 0
	start := time.Now()
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		attempts++
		must(tr.Options().SetTimeout(50))
		tr.Get(s.k("a")).MustGet()
		return nil, fdb.Error{Code: 1020} // retryable forever, until the timeout
	})
	wantCode(t, "Transact with timeout", err, 1031)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Transact with 50 ms timeout took %v (%d attempts)", d, attempts)
	}
}

// retry_limit (501) bounds Transact's retries: with limit 2 the function
// runs 3 times and the last error is returned.
func TestTransaction_RetryLimitHonouredByTransact(t *testing.T) {
	attempts := 0
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		attempts++
		must(tr.Options().SetRetryLimit(2))
		return nil, fdb.Error{Code: 1020}
	})
	wantCode(t, "Transact", err, 1020)
	if attempts != 3 {
		t.Errorf("attempts = %d, want 3 (first try + 2 retries)", attempts)
	}
}

// on_error of a non-retryable code returns it; code 0 is invalid (2000).
func TestTransaction_OnErrorNonRetryable(t *testing.T) {
	cases := []struct {
		code, want int
	}{
		{2004, 2004}, {1031, 1031}, {0, 2000}, {1025, 1025}, {1020, 0}, {1007, 0}, {1009, 0}, {1021, 0},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			wantCode(t, "OnError", tr.OnError(fdb.Error{Code: tc.code}).Get(), tc.want)
		})
	}
}

// Committed version: the commit's version for a read-write transaction
// (>= its read version), -1 for read-only ones.
func TestTransaction_CommittedAndReadVersions(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	rv := tr.GetReadVersion().MustGet()
	tr.Set(s.k("a"), []byte("1"))
	if err := tr.Commit().Get(); err != nil {
		t.Fatal(err)
	}
	cv, err := tr.GetCommittedVersion()
	if err != nil {
		t.Fatal(err)
	}
	if cv <= rv {
		t.Errorf("committed version %d <= read version %d", cv, rv)
	}
	tr2 := newTr(t)
	defer tr2.Cancel()
	if rv2 := tr2.GetReadVersion().MustGet(); rv2 < cv {
		t.Errorf("next read version %d < last committed version %d (reads must be causal)", rv2, cv)
	}
}

// set_read_version: the read version is what was set; reads happen at it;
// setting it twice (2010), to 0 (2011), or after a read (2010) fails.
func TestTransaction_SetReadVersion(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "old")
	tr := newTr(t)
	old := tr.GetReadVersion().MustGet()
	tr.Cancel()
	put(t, s.k("a"), "new")

	t.Run("reads at set version", func(t *testing.T) {
		tr := newTr(t)
		defer tr.Cancel()
		tr.SetReadVersion(old)
		if got := tr.GetReadVersion().MustGet(); got != old {
			t.Errorf("GetReadVersion = %d, want %d", got, old)
		}
		if got := tr.Get(s.k("a")).MustGet(); string(got) != "old" {
			t.Errorf("Get at old read version = %s, want old", printable(got))
		}
	})
	errCases := []struct {
		name string
		run  func(tr fdb.Transaction)
		want int
	}{
		{"twice", func(tr fdb.Transaction) { tr.SetReadVersion(old); tr.SetReadVersion(old) }, 2010},
		{"after read", func(tr fdb.Transaction) { tr.Get(s.k("a")).MustGet(); tr.SetReadVersion(old) }, 2010},
		{"zero", func(tr fdb.Transaction) { tr.SetReadVersion(0) }, 2011},
		{"negative", func(tr fdb.Transaction) { tr.SetReadVersion(-5) }, 2011},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			tc.run(tr)
			_, err := tr.Get(s.k("a")).Get()
			wantCode(t, "Get", err, tc.want)
		})
	}
}

// transaction_too_old (1007): reads at a version more than 5,000,000 versions
// (≈5 s) behind the latest fail, and so does a commit with read conflicts.
// SetReadVersion reaches such a version without sleeping, as long as the
// database's version is already > 6e6 (versions grow ~1e6/s, so a fresh
// database may need up to 6 s: the test then waits in parallel).
func TestTransaction_TooOld(t *testing.T) {
	t.Parallel()
	s := newSpace(t)
	var latest int64
	testtime.WaitUntil(t, "the database's version to pass 6.1e6", func() bool {
		latest = newTr(t).GetReadVersion().MustGet()
		return latest > 6_100_000
	})
	old := latest - 6_000_000

	tr := newTr(t)
	defer tr.Cancel()
	tr.SetReadVersion(old)
	_, err := tr.Get(s.k("a")).Get()
	wantCode(t, "Get at a read version 6e6 behind", err, 1007)
	wantCode(t, "OnError(1007)", tr.OnError(fdb.Error{Code: 1007}).Get(), 0)

	tr2 := newTr(t)
	defer tr2.Cancel()
	tr2.SetReadVersion(old)
	must(tr2.AddReadConflictKey(s.k("a")))
	tr2.Set(s.k("b"), []byte("x"))
	wantCode(t, "Commit with read conflicts at an old read version", tr2.Commit().Get(), 1007)
}

// A read version in the future fails with future_version (1009) (after up to
// 1 s of waiting in real FoundationDB).
func TestTransaction_FutureVersion(t *testing.T) {
	t.Parallel()
	s := newSpace(t)
	latest := newTr(t).GetReadVersion().MustGet()
	tr := newTr(t)
	defer tr.Cancel()
	tr.SetReadVersion(latest + 1_000_000_000)
	_, err := tr.Get(s.k("a")).Get()
	wantCode(t, "Get at a future read version", err, 1009)
}

// The approximate size grows with mutations and conflict ranges.
func TestTransaction_ApproximateSizeGrows(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	defer tr.Cancel()
	size0 := tr.GetApproximateSize().MustGet()
	tr.Set(s.k("a"), bytes.Repeat([]byte{'v'}, 1000))
	size1 := tr.GetApproximateSize().MustGet()
	if size1 < size0+1000 {
		t.Errorf("approximate size after a 1000-byte Set = %d, want >= %d", size1, size0+1000)
	}
	tr.Get(s.k("b")).MustGet()
	must(tr.AddReadConflictRange(s.kr("c", "d")))
	tr.Clear(s.k("e"))
	size2 := tr.GetApproximateSize().MustGet()
	if size2 <= size1 {
		t.Errorf("approximate size after reads and a clear = %d, want > %d", size2, size1)
	}
}

// Estimated range size and split points are plausible for ~4 MB of data
// (real FoundationDB samples; estimates are documented as trustworthy above
// ~3 MB, so accept a factor of two).
func TestTransaction_EstimatedRangeSizeAndSplitPoints(t *testing.T) {
	s := newSpace(t)
	const n, valueSize = 400, 10000
	v := bytes.Repeat([]byte{'v'}, valueSize)
	for start := 0; start < n; start += 50 {
		mustTransact(t, func(tr fdb.Transaction) {
			for i := start; i < start+50; i++ {
				tr.Set(s.k(numbered(i)), v)
			}
		})
	}
	total := int64(n * (valueSize + len(s.k(numbered(0)))))
	tr := newTr(t)
	defer tr.Cancel()
	est, err := tr.GetEstimatedRangeSizeBytes(s.all()).Get()
	if err != nil {
		t.Fatalf("GetEstimatedRangeSizeBytes: %v", err)
	}
	if est < total/2 || est > total*2 {
		t.Errorf("estimated size = %d, want within a factor 2 of %d", est, total)
	}
	r := s.all()
	points, err := tr.GetRangeSplitPoints(r, 1_000_000).Get()
	if err != nil {
		t.Fatalf("GetRangeSplitPoints: %v", err)
	}
	if len(points) < 3 || len(points) > 20 {
		t.Errorf("got %d split points for ~4 MB in 1 MB chunks, want 3..20", len(points))
	}
	if len(points) >= 2 {
		if !bytes.Equal(points[0], r.Begin.FDBKey()) || !bytes.Equal(points[len(points)-1], r.End.FDBKey()) {
			t.Errorf("split points run %s..%s, want the range's begin and end %s..%s",
				fdb.Printable(points[0]), fdb.Printable(points[len(points)-1]), fdb.Printable(r.Begin.FDBKey()), fdb.Printable(r.End.FDBKey()))
		}
		for i := 1; i < len(points); i++ {
			if bytes.Compare(points[i-1], points[i]) >= 0 {
				t.Errorf("split points not increasing at %d: %s >= %s", i, fdb.Printable(points[i-1]), fdb.Printable(points[i]))
			}
		}
	}
}

// Error codes and messages as documented ("Error codes" in the API
// reference), reachable with errors.As through wrapping.
func TestErrors_CodesAndMessages(t *testing.T) {
	cases := []struct {
		code int
		msg  string
	}{
		{1007, "Transaction is too old to perform reads or be committed"},
		{1009, "Request for future version"},
		{1020, "Transaction not committed due to conflict with another transaction"},
		{1021, "Transaction may or may not have committed"},
		{1025, "Operation aborted because the transaction was cancelled"},
		{1031, "Operation aborted because the transaction timed out"},
		{1032, "Too many watches currently set"},
		{1034, "Watches cannot be set if read your writes is disabled"},
		{1036, "Read or wrote an unreadable key"},
		{1101, "Asynchronous operation cancelled"},
		{2000, "Invalid API call"},
		{2004, "Key outside legal range"},
		{2005, "Range begin key larger than end key"},
		{2010, "Transaction already has a read version set"},
		{2011, "Version not valid"},
		{2012, "Range limits not valid"},
		{2017, "Operation issued while a commit was outstanding"},
		{2021, "Transaction is read-only and therefore does not have a commit version"},
		{2101, "Transaction exceeds byte limit"},
		{2102, "Key length exceeds limit"},
		{2103, "Value length exceeds limit"},
		{2210, "EXACT streaming mode requires limits, but none were given"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			e := fdb.Error{Code: tc.code}
			want := fmt.Sprintf("FoundationDB error code %d (%s)", tc.code, tc.msg)
			if e.Error() != want {
				t.Errorf("Error() = %q, want %q", e.Error(), want)
			}
			wrapped := fmt.Errorf("layer: %w", e)
			var got fdb.Error
			if !errors.As(wrapped, &got) || got.Code != tc.code {
				t.Errorf("errors.As through wrapping = %v", got)
			}
		})
	}
	if got := (fdb.Error{Code: 29999}).Error(); !strings.Contains(got, "UNKNOWN_ERROR") {
		t.Errorf("unknown code message = %q, want it to contain UNKNOWN_ERROR", got)
	}
}

// A commit conflict reaches the caller as an fdb.Error with code 1020.
func TestErrors_ConflictIsFDBError(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	defer tr.Cancel()
	tr.Get(s.k("k")).MustGet()
	tr.Set(s.k("o"), nil)
	put(t, s.k("k"), "x")
	err := tr.Commit().Get()
	var fe fdb.Error
	if !errors.As(err, &fe) || fe.Code != 1020 {
		t.Fatalf("commit error = %v, want fdb.Error 1020", err)
	}
}

// The Go binding itself rejects a second, different API version (2201) and
// accepts the same one again.
func TestErrors_APIVersion(t *testing.T) {
	if err := fdb.APIVersion(730); err != nil {
		t.Errorf("APIVersion(730) again: %v, want nil", err)
	}
	wantCode(t, "APIVersion(710) after 730", fdb.APIVersion(710), 2201)
	wantCode(t, "APIVersion(731) after 730", fdb.APIVersion(731), 2201)
	if v := fdb.MustGetAPIVersion(); v != 730 {
		t.Errorf("MustGetAPIVersion = %d, want 730", v)
	}
}

// An out-of-range option value is invalid_option_value (2006), reported
// synchronously or deferred to the next operation (facts §9).
func TestErrors_InvalidOptionValue(t *testing.T) {
	cases := []struct {
		name string
		set  func(o fdb.TransactionOptions) error
	}{
		{"size_limit below 32", func(o fdb.TransactionOptions) error { return o.SetSizeLimit(10) }},
		{"size_limit above 10,000,000", func(o fdb.TransactionOptions) error { return o.SetSizeLimit(10_000_001) }},
		{"retry_limit below -1", func(o fdb.TransactionOptions) error { return o.SetRetryLimit(-2) }},
		{"timeout negative", func(o fdb.TransactionOptions) error { return o.SetTimeout(-1) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			if err := tc.set(tr.Options()); err != nil {
				wantCode(t, "set option", err, 2006)
				return
			}
			_, err := tr.Get(fdb.Key("a")).Get()
			wantCode(t, "Get after invalid option value", err, 2006)
		})
	}
}
