package testseed

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Seed logs and whether it
// failed, instead of reporting it.
type recorder struct {
	testing.TB
	logs   []string
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.failed = true }

func withEnv(t *testing.T, env map[string]string) {
	old := lookupEnv
	lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	t.Cleanup(func() { lookupEnv = old })
}

func TestSeedFromEnv(t *testing.T) {
	withEnv(t, map[string]string{"X_SEED": "18446744073709551615"})
	r := &recorder{TB: t}
	if got := Seed(r, "X_SEED"); got != 1<<64-1 || r.failed {
		t.Fatalf("Seed = %d (failed %v), want the environment's 18446744073709551615", got, r.failed)
	}
}

func TestSeedFresh(t *testing.T) {
	withEnv(t, nil)
	r := &recorder{TB: t}
	seed := Seed(r, "X_SEED")
	if want := "replay with X_SEED=" + strconv.FormatUint(seed, 10); r.failed || len(r.logs) != 1 || !strings.Contains(r.logs[0], want) {
		t.Errorf("logs %q (failed %v): want one line saying %q", r.logs, r.failed, want)
	}
}

func TestSeedMalformed(t *testing.T) {
	withEnv(t, map[string]string{"X_SEED": "0x10"})
	r := &recorder{TB: t}
	Seed(r, "X_SEED")
	if !r.failed {
		t.Error("a malformed seed did not fail the test")
	}
}
