package fdblitetest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// FaultsKey is the special key that holds a database's fault configuration.
// Writing it needs option special_key_space_enable_writes (714). Do not modify.
var FaultsKey = fdb.Key("\xff\xff/fdblite/faults")

// ErrInvalidFaults is returned by [SetFaults] and [ParseFaults] for a rate
// outside [0, 1] or a malformed configuration string.
var ErrInvalidFaults = errors.New("fdblitetest: invalid fault configuration")

// Faults is a fault-injection configuration for one fdblite database. Each
// rate is the probability, in [0, 1], that one operation of that kind fails;
// the zero value injects nothing.
//
// The same Seed and the same sequence of operations inject the same faults,
// as far as the operations themselves are deterministic (goroutine
// interleavings are not).
type Faults struct {
	// Seed seeds fdblite's fault generator.
	Seed uint64
	// ReadTooOld is the rate of transaction attempts whose reads fail with
	// transaction_too_old (1007). As on FoundationDB, the fault belongs to
	// the read version, not to each read: a transaction reading many keys
	// is no likelier to fail than one reading one. A failing attempt lets
	// its first 0 to 3 reads through, then fails every read.
	ReadTooOld float64
	// ReadFutureVersion is the same for future_version (1009).
	ReadFutureVersion float64
	// CommitNotCommitted is the rate of commits failing with not_committed
	// (1020) without applying.
	CommitNotCommitted float64
	// CommitTooOld is the rate of commits failing with transaction_too_old
	// (1007) without applying.
	CommitTooOld float64
	// CommitUnknownResult is the rate of commits that apply and then report
	// commit_unknown_result (1021). A transaction with the
	// automatic_idempotency option (505) is told the commit succeeded.
	CommitUnknownResult float64
}

// faultField names one field of the configuration string, in canonical order.
type faultField struct {
	name string
	rate func(*Faults) *float64
}

var faultFields = []faultField{
	{"read_too_old", func(f *Faults) *float64 { return &f.ReadTooOld }},
	{"read_future_version", func(f *Faults) *float64 { return &f.ReadFutureVersion }},
	{"commit_not_committed", func(f *Faults) *float64 { return &f.CommitNotCommitted }},
	{"commit_too_old", func(f *Faults) *float64 { return &f.CommitTooOld }},
	{"commit_unknown_result", func(f *Faults) *float64 { return &f.CommitUnknownResult }},
}

// Enabled reports whether f injects anything.
func (f Faults) Enabled() bool {
	for _, fld := range faultFields {
		if *fld.rate(&f) > 0 {
			return true
		}
	}
	return false
}

// String returns the configuration string written to [FaultsKey], for example
// "seed=1 read_too_old=0.01 read_future_version=0 commit_not_committed=0.05
// commit_too_old=0 commit_unknown_result=0".
func (f Faults) String() string {
	var b strings.Builder
	b.WriteString("seed=")
	b.WriteString(strconv.FormatUint(f.Seed, 10))
	for _, fld := range faultFields {
		b.WriteByte(' ')
		b.WriteString(fld.name)
		b.WriteByte('=')
		b.WriteString(strconv.FormatFloat(*fld.rate(&f), 'g', -1, 64))
	}
	return b.String()
}

func (f Faults) validate() error {
	for _, fld := range faultFields {
		r := *fld.rate(&f)
		if math.IsNaN(r) || r < 0 || r > 1 {
			return fmt.Errorf("%w: %s=%v is outside [0, 1]", ErrInvalidFaults, fld.name, r)
		}
	}
	return nil
}

// ParseFaults parses a configuration string in the format of [Faults.String].
// Omitted fields are zero; an empty string is the zero Faults. Unknown fields
// and rates outside [0, 1] return an error wrapping [ErrInvalidFaults].
func ParseFaults(s string) (Faults, error) {
	var f Faults
	for _, word := range strings.Fields(s) {
		name, val, ok := strings.Cut(word, "=")
		if !ok {
			return Faults{}, fmt.Errorf("%w: %q is not name=value", ErrInvalidFaults, word)
		}
		if name == "seed" {
			seed, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				return Faults{}, fmt.Errorf("%w: seed: %v", ErrInvalidFaults, err)
			}
			f.Seed = seed
			continue
		}
		i := indexField(name)
		if i < 0 {
			return Faults{}, fmt.Errorf("%w: unknown field %q", ErrInvalidFaults, name)
		}
		r, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return Faults{}, fmt.Errorf("%w: %s: %v", ErrInvalidFaults, name, err)
		}
		*faultFields[i].rate(&f) = r
	}
	if err := f.validate(); err != nil {
		return Faults{}, err
	}
	return f, nil
}

func indexField(name string) int {
	for i, fld := range faultFields {
		if fld.name == name {
			return i
		}
	}
	return -1
}

// SetFaults replaces db's fault configuration with f; the zero Faults turns
// injection off. It runs its own transaction (retried like any other, so it
// may itself meet faults that are already on) and returns the first
// non-retryable error, or an error wrapping [ErrInvalidFaults] before
// touching db if a rate is outside [0, 1].
func SetFaults(db fdb.Database, f Faults) error {
	if err := f.validate(); err != nil {
		return err
	}
	value := []byte(f.String())
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetSpecialKeySpaceEnableWrites(); err != nil {
			return nil, err
		}
		tr.Set(FaultsKey, value)
		return nil, nil
	})
	if err != nil {
		return fmt.Errorf("fdblitetest: set faults on database: %w", err)
	}
	return nil
}

// ClearFaults turns fault injection off for db by clearing [FaultsKey].
func ClearFaults(db fdb.Database) error {
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetSpecialKeySpaceEnableWrites(); err != nil {
			return nil, err
		}
		tr.Clear(FaultsKey)
		return nil, nil
	})
	if err != nil {
		return fmt.Errorf("fdblitetest: clear faults: %w", err)
	}
	return nil
}

// ReadFaults returns db's current fault configuration, as fdblite reports it.
func ReadFaults(db fdb.Database) (Faults, error) {
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(FaultsKey).Get()
	})
	if err != nil {
		return Faults{}, fmt.Errorf("fdblitetest: read faults: %w", err)
	}
	return ParseFaults(string(v.([]byte)))
}

// InjectFaults turns on fault configuration f for db and fails t if it
// cannot. When t ends it logs how many faults were injected, so a failing
// run says what it met.
func InjectFaults(t testing.TB, db fdb.Database, f Faults) {
	t.Helper()
	if err := SetFaults(db, f); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if st, err := ReadStats(db); err == nil {
			t.Logf("injected: %+v", st.Injected)
		}
	})
}

// OpenFaulty opens a database of t's own with [OpenIsolated] and turns on
// fault configuration f for it with [InjectFaults].
func OpenFaulty(t testing.TB, f Faults) fdb.Database {
	t.Helper()
	db := OpenIsolated(t)
	InjectFaults(t, db, f)
	return db
}

// RetryableFaults is the configuration the write-path fault tests share,
// reproducible from seed: reads too old (2%), commits not committed (10%)
// and commits that applied but report commit_unknown_result (10%). Every
// one of them is retryable.
func RetryableFaults(seed uint64) Faults {
	return Faults{
		Seed:                seed,
		ReadTooOld:          0.02,
		CommitNotCommitted:  0.1,
		CommitUnknownResult: 0.1,
	}
}
