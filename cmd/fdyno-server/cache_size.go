package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno/server"
)

// cache_size.go: --cache-size, the embedded durable database's cache
// budget (SQLite's page caches and fdblite's row cache). fdblite reads it
// from the environment variable FDBLITE_CACHE_BYTES when the database
// opens (fdblite/README.md, "Durable mode"); the Go bindings cannot set
// fdblite's own database option, so the server sets the variable before
// it opens the database.

// cacheBytesEnv is the environment variable fdblite reads its cache
// budget from.
const cacheBytesEnv = "FDBLITE_CACHE_BYTES"

// byteUnits are the suffixes parseByteSize accepts, lower case, with
// their multipliers: powers of 1024, whichever spelling.
var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
}

// errByteSize is the error of a malformed size.
var errByteSize = errors.New("want a byte count, optionally with a K, M or G suffix (powers of 1024), such as 256MiB")

// parseByteSize parses a byte count: decimal digits, then optionally a
// unit (K, KB, KiB, M, MB, MiB, G, GB, GiB, B; any case).
func parseByteSize(s string) (int64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, errByteSize
	}
	mult, ok := byteUnits[strings.ToLower(s[i:])]
	if !ok {
		return 0, errByteSize
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%s: too large", s)
	}
	return n * mult, nil
}

// applyCacheSize sets the cache budget of the embedded durable database
// st names to size (a parseByteSize string); an empty size keeps
// fdblite's default (or FDBLITE_CACHE_BYTES from the environment).
func applyCacheSize(size string, st server.Storage) error {
	if size == "" {
		return nil
	}
	if st.Mode != "durable" {
		return errors.New("--cache-size is for the embedded durable database (--data-dir): an in-memory database holds all its data in memory anyway, and a cluster's storage servers have their own caches")
	}
	n, err := parseByteSize(size)
	if err != nil {
		return fmt.Errorf("--cache-size %s: %w", size, err)
	}
	return os.Setenv(cacheBytesEnv, strconv.FormatInt(n, 10))
}
