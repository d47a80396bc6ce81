package server

import (
	"encoding/json"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics_storage.go: the embedded database's memory in /metrics, read
// from fdblite's stats (storage.go) at each scrape, so the figures are
// those of the moment. A durable database's memory is its caches (bounded
// by fdyno-server's --cache-size) plus the writes of its MVCC window
// (bounded by FDBLITE_WINDOW_BYTES) plus what does not depend on the data
// (the conflict history, requests in flight, the runtime); the process's
// resident set is process_resident_memory_bytes, from the process
// collector (metrics.go). A FoundationDB cluster has no such stats: the
// figures are then absent.

// storageScrapeTimeoutMS bounds the read of the stats at a scrape, so a
// cluster that does not answer never holds a scrape.
const storageScrapeTimeoutMS = 1000

// storageStats is what the collector reads of fdblite's stats.
type storageStats struct {
	Mode      string `json:"mode"`
	HeapBytes int64  `json:"heap_bytes"`
	Durable   struct {
		CacheBytes        int64 `json:"cache_bytes"`
		CacheUsedBytes    int64 `json:"cache_used_bytes"`
		WindowBytes       int64 `json:"window_bytes"`
		WindowBudgetBytes int64 `json:"window_budget_bytes"`
	} `json:"durable"`
}

// storageCollector reports the embedded database's memory gauges.
type storageCollector struct {
	db                                                   fdb.Database
	memory, cacheBudget, cacheUsed, window, windowBudget *prometheus.Desc
}

// registerStorage adds db's memory gauges to the registry.
func (m *metrics) registerStorage(db fdb.Database) {
	if m == nil {
		return
	}
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName("fdyno", "storage", name), help, nil, nil)
	}
	m.reg.MustRegister(&storageCollector{
		db:           db,
		memory:       desc("memory_bytes", "Memory the embedded database's versioned store and conflict history hold: all the data of an in-memory database, the writes of the MVCC window of a durable one."),
		cacheBudget:  desc("cache_budget_bytes", "The durable embedded database's cache budget (--cache-size): SQLite's page caches and the row cache."),
		cacheUsed:    desc("cache_used_bytes", "What the durable embedded database's caches hold now, at most the budget."),
		window:       desc("window_bytes", "Memory the writes of the durable embedded database's MVCC window added; over the budget, reads' window shrinks."),
		windowBudget: desc("window_budget_bytes", "The durable embedded database's budget for its MVCC window's writes (FDBLITE_WINDOW_BYTES)."),
	})
}

func (c *storageCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.memory, c.cacheBudget, c.cacheUsed, c.window, c.windowBudget} {
		ch <- d
	}
}

// Collect reads the stats; a database without them (a cluster), or one
// that does not answer within storageScrapeTimeoutMS, reports nothing.
func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
	st, ok := readStorageStats(c.db)
	if !ok {
		return
	}
	gauge := func(d *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	gauge(c.memory, st.HeapBytes)
	if st.Mode != "durable" {
		return
	}
	gauge(c.cacheBudget, st.Durable.CacheBytes)
	gauge(c.cacheUsed, st.Durable.CacheUsedBytes)
	gauge(c.window, st.Durable.WindowBytes)
	gauge(c.windowBudget, st.Durable.WindowBudgetBytes)
}

// readStorageStats reads fdblite's stats from db, in one transaction
// that gives up after storageScrapeTimeoutMS.
func readStorageStats(db fdb.Database) (storageStats, bool) {
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		if tr, ok := rt.(fdb.Transaction); ok {
			if err := tr.Options().SetTimeout(storageScrapeTimeoutMS); err != nil {
				return nil, err
			}
		}
		return rt.Get(fdbliteStatsKey).Get()
	})
	raw, _ := v.([]byte)
	if err != nil || raw == nil {
		return storageStats{}, false
	}
	var st storageStats
	if json.Unmarshal(raw, &st) != nil {
		return storageStats{}, false
	}
	return st, true
}
