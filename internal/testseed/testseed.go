// Package testseed gives randomized tests a seed they can replay: a fresh
// one each run, unless an environment variable names the seed of a run to
// repeat. The seed is logged, so a failing run prints it with the command
// that replays it.
package testseed

import (
	"strconv"
	"testing"
	"time"
)

// Seed returns the seed for t: the value of the environment variable env
// when it is set (a decimal uint64), otherwise one drawn from the time.
// It logs the seed and how to replay it; go test shows the log of a test
// that fails (and of every test under -v). A malformed env fails t.
func Seed(t testing.TB, env string) uint64 {
	t.Helper()
	if s, ok := lookupEnv(env); ok {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want a decimal seed: %v", env, s, err)
		}
		t.Logf("seed %d (from %s)", seed, env)
		return seed
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (replay with %s=%d)", seed, env, seed)
	return seed
}
