package fdblitetest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// LatencyKey is the special key that holds a database's latency model.
// Writing it needs option special_key_space_enable_writes (714). Do not modify.
var LatencyKey = fdb.Key("\xff\xff/fdblite/latency")

// LatencyEnv is the environment variable that sets the latency model of
// every database a process opens, in the format of [Latency.String] (or
// "default"). It is read when fdblite creates a database.
const LatencyEnv = "FDBLITE_LATENCY"

// ErrInvalidLatency is returned by [SetLatency] and [ParseLatency] for a
// negative delay, a delay over [MaxLatency], a jitter outside [0, 1] or a
// malformed configuration string.
var ErrInvalidLatency = errors.New("fdblitetest: invalid latency configuration")

// MaxLatency is the longest delay the model accepts.
const MaxLatency = 10 * time.Second

// Latency is a latency model for one fdblite database: the delay of each
// kind of network round trip a FoundationDB client makes. The zero value
// is off: futures are ready as soon as the call returns.
//
// Results are computed when a call is made and their futures complete on
// the network thread once the delay has passed, so reads issued together
// overlap as on a cluster and reads issued one after another add up. A
// transaction's first read also waits for its read version; reading
// `\xff/metadataVersion` costs only the read version, which FoundationDB
// sends with it.
type Latency struct {
	// GRV is the delay of getting a read version (starting a transaction).
	GRV time.Duration
	// Read is the delay of one read: a point read, a range read (each batch
	// of a range iterator) or a key selector.
	Read time.Duration
	// Commit is the delay of a commit that goes to the cluster (a read-only
	// commit is local).
	Commit time.Duration
	// Jitter spreads each delay uniformly over base*(1±Jitter); in [0, 1].
	Jitter float64
	// Seed seeds the jitter: the same seed and the same sequence of calls
	// draw the same delays.
	Seed uint64
}

// DefaultLatency returns the model of a FoundationDB cluster below 75% load,
// from the typical latencies FoundationDB publishes
// (https://apple.github.io/foundationdb/performance.html: start transaction
// 0.3-1 ms, read 0.1-1 ms, commit 1.5-2.5 ms). Each base delay is near the
// middle of its range and the jitter keeps every delay inside it.
func DefaultLatency() Latency {
	return Latency{GRV: 650 * time.Microsecond, Read: 550 * time.Microsecond, Commit: 2 * time.Millisecond, Jitter: 0.25, Seed: 1}
}

// Enabled reports whether l delays anything.
func (l Latency) Enabled() bool { return l.GRV > 0 || l.Read > 0 || l.Commit > 0 }

// String returns the configuration string written to [LatencyKey], for
// example "grv=650us read=550us commit=2000us jitter=0.25 seed=1"; "" when
// l is off.
func (l Latency) String() string {
	if !l.Enabled() {
		return ""
	}
	us := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'g', -1, 64) + "us"
	}
	return "grv=" + us(l.GRV) + " read=" + us(l.Read) + " commit=" + us(l.Commit) +
		" jitter=" + strconv.FormatFloat(l.Jitter, 'g', -1, 64) + " seed=" + strconv.FormatUint(l.Seed, 10)
}

func (l Latency) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"grv", l.GRV}, {"read", l.Read}, {"commit", l.Commit}} {
		if d.v < 0 || d.v > MaxLatency {
			return fmt.Errorf("%w: %s=%v is outside [0, %v]", ErrInvalidLatency, d.name, d.v, MaxLatency)
		}
	}
	if math.IsNaN(l.Jitter) || l.Jitter < 0 || l.Jitter > 1 {
		return fmt.Errorf("%w: jitter=%v is outside [0, 1]", ErrInvalidLatency, l.Jitter)
	}
	return nil
}

// ParseLatency parses a configuration string in the format of
// [Latency.String]; durations take a unit (ns, us, ms or s), "default" (or
// "on") stands for [DefaultLatency] and "off" or "" for the zero Latency.
// Later fields override earlier ones, so "default read=1ms" is the default
// model with slower reads.
func ParseLatency(s string) (Latency, error) {
	var l Latency
	for _, word := range strings.Fields(s) {
		switch word {
		case "off":
			continue
		case "default", "on":
			l = DefaultLatency()
			continue
		}
		name, val, ok := strings.Cut(word, "=")
		if !ok || val == "" {
			return Latency{}, fmt.Errorf("%w: %q is not name=value", ErrInvalidLatency, word)
		}
		var err error
		switch name {
		case "seed":
			l.Seed, err = strconv.ParseUint(val, 10, 64)
		case "jitter":
			l.Jitter, err = strconv.ParseFloat(val, 64)
		case "grv":
			l.GRV, err = parseDelay(val)
		case "read":
			l.Read, err = parseDelay(val)
		case "commit":
			l.Commit, err = parseDelay(val)
		default:
			return Latency{}, fmt.Errorf("%w: unknown field %q", ErrInvalidLatency, name)
		}
		if err != nil {
			return Latency{}, fmt.Errorf("%w: %s: %v", ErrInvalidLatency, name, err)
		}
	}
	if err := l.validate(); err != nil {
		return Latency{}, err
	}
	return l, nil
}

// parseDelay reads a duration with one of fdblite's units (ns, us, ms, s).
func parseDelay(s string) (time.Duration, error) {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}} {
		num, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		if num == "" || num[0] == '-' || num[0] == '+' {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		if v*u.scale > float64(MaxLatency) {
			return 0, fmt.Errorf("%q is over %v", s, MaxLatency)
		}
		return time.Duration(math.Round(v * u.scale)), nil
	}
	return 0, fmt.Errorf("%q has no unit (ns, us, ms or s)", s)
}

// SetLatency replaces db's latency model with l; the zero Latency turns it
// off. It runs its own transaction and returns the first non-retryable
// error, or an error wrapping [ErrInvalidLatency] before touching db.
func SetLatency(db fdb.Database, l Latency) error {
	if err := l.validate(); err != nil {
		return err
	}
	value := []byte(l.String())
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetSpecialKeySpaceEnableWrites(); err != nil {
			return nil, err
		}
		tr.Set(LatencyKey, value)
		return nil, nil
	})
	if err != nil {
		return fmt.Errorf("fdblitetest: set latency on database: %w", err)
	}
	return nil
}

// ReadLatency returns db's latency model.
func ReadLatency(db fdb.Database) (Latency, error) {
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(LatencyKey).Get()
	})
	if err != nil {
		return Latency{}, fmt.Errorf("fdblitetest: read latency: %w", err)
	}
	return ParseLatency(string(v.([]byte)))
}

// RoundTrips counts the network round trips a FoundationDB client makes:
// read-version requests, read waves (reads in flight together count once:
// a read joins the current wave until the caller waits for any read of it)
// and commits sent to the cluster. fdblite counts them whether or not a
// latency model is on.
type RoundTrips struct {
	ReadVersions int64 `json:"read_versions"`
	ReadWaves    int64 `json:"read_waves"`
	Commits      int64 `json:"commits"`
}

// Total returns the number of round trips of all kinds.
func (r RoundTrips) Total() int64 { return r.ReadVersions + r.ReadWaves + r.Commits }

// Sub returns r - o, field by field.
func (r RoundTrips) Sub(o RoundTrips) RoundTrips {
	return RoundTrips{r.ReadVersions - o.ReadVersions, r.ReadWaves - o.ReadWaves, r.Commits - o.Commits}
}

// String formats r as "rv=1 waves=1 commits=1".
func (r RoundTrips) String() string {
	return fmt.Sprintf("rv=%d waves=%d commits=%d", r.ReadVersions, r.ReadWaves, r.Commits)
}

// CountRoundTrips runs fn and returns the round trips db served meanwhile
// (reading the counters costs none). Counts are per database: nothing else
// may use db while fn runs, so open it with [OpenIsolated]. The error is
// fn's, or the error reading the counters.
func CountRoundTrips(db fdb.Database, fn func() error) (RoundTrips, error) {
	before, err := ReadStats(db)
	if err != nil {
		return RoundTrips{}, err
	}
	if err := fn(); err != nil {
		return RoundTrips{}, err
	}
	after, err := ReadStats(db)
	if err != nil {
		return RoundTrips{}, err
	}
	return after.RoundTrips.Sub(before.RoundTrips), nil
}
