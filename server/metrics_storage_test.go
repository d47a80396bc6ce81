package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// The embedded database's memory is in /metrics, with the process's
// resident set: an in-memory database reports what its store holds; a
// durable one also its cache budget (FDBLITE_CACHE_BYTES, which
// fdyno-server's --cache-size sets), what its caches hold, and what the
// writes of its MVCC window hold, against fdblite's documented default
// budget of 128 MiB.
func TestMetricsStorageMemory(t *testing.T) {
	const cacheBytes = 3 << 20
	t.Setenv("FDBLITE_CACHE_BYTES", fmt.Sprint(cacheBytes))
	durable, err := fdblitetest.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		cfg     Config
		durable bool
	}{
		{"memory", Config{TTLSweepInterval: -1}, false},
		{"durable", Config{DB: durable, TTLSweepInterval: -1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := newTestClient(t, tc.cfg)
			createTable(t, c, "Things", "", "")
			big := strings.Repeat("x", 2000)
			for i := range 50 {
				if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Things"),
					Item: avMap{"pk": s(fmt.Sprint(i)), "b": s(big)}}); err != nil {
					t.Fatal(err)
				}
			}
			fams := ts.scrape(t)
			if got := value(fams, "process_resident_memory_bytes"); got <= 0 {
				t.Errorf("process_resident_memory_bytes = %v, want > 0", got)
			}
			// 50 items of 2 KB are in memory: in the store, or the window.
			if got := value(fams, "fdyno_storage_memory_bytes"); got < 50*2000 {
				t.Errorf("fdyno_storage_memory_bytes = %v, want at least 100,000", got)
			}
			budget := value(fams, "fdyno_storage_cache_budget_bytes")
			used := value(fams, "fdyno_storage_cache_used_bytes")
			window := value(fams, "fdyno_storage_window_bytes")
			windowBudget := value(fams, "fdyno_storage_window_budget_bytes")
			if !tc.durable {
				if budget != -1 || used != -1 || window != -1 || windowBudget != -1 {
					t.Errorf("an in-memory database reports durable figures: cache %v/%v, window %v/%v", used, budget, window, windowBudget)
				}
				return
			}
			if budget != cacheBytes {
				t.Errorf("fdyno_storage_cache_budget_bytes = %v, want %d (FDBLITE_CACHE_BYTES)", budget, cacheBytes)
			}
			if used < 0 || used > cacheBytes {
				t.Errorf("fdyno_storage_cache_used_bytes = %v, want within [0, %d]", used, cacheBytes)
			}
			if window < 50*2000 {
				t.Errorf("fdyno_storage_window_bytes = %v, want at least the 100,000 bytes just written", window)
			}
			if windowBudget != 128<<20 {
				t.Errorf("fdyno_storage_window_budget_bytes = %v, want 128 MiB", windowBudget)
			}
		})
	}
}
