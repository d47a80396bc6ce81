package server

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics.go: what GET /metrics reports, in Prometheus's text format,
// through the official Go client. Each Server has its own registry, so
// servers in one process (tests, embedders) do not share counters; it also
// holds the Go runtime and process collectors.
//
// Label values come from fixed sets only, never from the request: the
// operation is one the server registered ("unknown" otherwise), the result
// is "success" or the name of one of the server's wire errors, and a
// FoundationDB error is its numeric code. Table names are not labels.
//
// The counters are updated where the work happens: ServeHTTP (requests),
// transactor.go (FoundationDB transactions and their retries), and
// background.go (index backfills, TTL sweeps, stream trims, counting
// passes) and backup_jobs.go (backups and restores). Every method
// of *metrics accepts a nil receiver, for servers built without New.

// metricsPath is where the server answers GET with its metrics.
const metricsPath = "/metrics"

// latencyBuckets are the request latency histogram's upper bounds, in
// seconds: 100 µs to about 10 s, 2.5 times apart, since most requests
// take a millisecond or less on a local cluster.
var latencyBuckets = prometheus.ExponentialBuckets(0.0001, 2.5, 13)

// The FoundationDB error behind a write conflict.
const codeNotCommitted = 1020

type metrics struct {
	decisions *prometheus.CounterVec // authorization decisions (audit.go)
	reg       *prometheus.Registry
	handler   http.Handler
	// ops returns the operations the server serves, without their
	// X-Amz-Target prefix; computed at the first request, once New has
	// registered them all.
	ops func() map[string]bool

	requests *prometheus.CounterVec   // operation, result
	latency  *prometheus.HistogramVec // operation

	transactions *prometheus.CounterVec // kind
	retries      *prometheus.CounterVec // kind
	fdbErrors    *prometheus.CounterVec // kind, code
	conflicts    prometheus.Counter

	backfills        *prometheus.CounterVec // result
	backfillRetries  prometheus.Counter
	backfillsRunning prometheus.Gauge
	leases           *prometheus.GaugeVec
	ttlSweeps        *prometheus.CounterVec // result
	ttlScanned       prometheus.Counter
	ttlDeleted       prometheus.Counter
	streamTrims      *prometheus.CounterVec // result
	streamTrimmed    prometheus.Counter
	countBuilds      *prometheus.CounterVec // result
	countedItems     prometheus.Counter
	jobs             *prometheus.CounterVec // kind, result
	jobsRunning      *prometheus.GaugeVec   // kind
	jobItems         *prometheus.CounterVec // kind
	jobBytes         *prometheus.CounterVec // kind
}

// newMetrics registers the server's metrics in a new registry; ops holds
// the operations the server serves (by full X-Amz-Target), and is read at
// the first request.
func newMetrics(ops map[string]operation) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.ops = sync.OnceValue(func() map[string]bool {
		names := make(map[string]bool, len(ops))
		for target := range ops {
			names[target[strings.IndexByte(target, '.')+1:]] = true
		}
		return names
	})
	reg := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "fdyno", Name: name, Help: help})
		reg(c)
		return c
	}
	counterVec := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "fdyno", Name: name, Help: help}, labels)
		reg(c)
		return c
	}
	gauge := func(name, help string) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "fdyno", Name: name, Help: help})
		reg(g)
		return g
	}
	m.decisions = counterVec("authorization_decisions_total", "Authorization decisions of the policies (with --policies): allow, explicit_deny, implicit_deny, and refused_at_access for an access a request's allowed checks did not grant.", "decision")
	m.requests = counterVec("requests_total", "Requests answered, by operation and result: success, or the DynamoDB error name sent.", "operation", "result")
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "fdyno", Name: "request_duration_seconds",
		Help:    "Time from the request's arrival to its answer, by operation.",
		Buckets: latencyBuckets,
	}, []string{"operation"})
	reg(m.latency)
	m.transactions = counterVec("fdb_transactions_total", "FoundationDB transactions run, retries not counted, by kind (read or write).", "kind")
	m.retries = counterVec("fdb_transaction_retries_total", "FoundationDB transaction attempts retried after a retryable error, by kind.", "kind")
	m.fdbErrors = counterVec("fdb_transaction_errors_total", "FoundationDB errors that ended a transaction attempt, retried or not, by kind and error code.", "kind", "code")
	m.conflicts = counter("fdb_transaction_conflicts_total", "Commits that failed with not_committed (1020): a conflict with another transaction.")
	m.backfills = counterVec("index_backfills_total", "Index backfills ended, by result: done (index ACTIVE), stopped (server closing; another server, or this one when it starts again, takes it over), elsewhere (another server holds its lease and builds it, or built it) or abandoned (index or table deleted).", "result")
	m.backfillRetries = counter("index_backfill_retries_total", "Index backfill runs that failed with an error that may pass, and were retried.")
	m.backfillsRunning = gauge("index_backfills_running", "Index backfills running now (holding one of the MaxBackfills slots).")
	m.leases = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "fdyno", Name: "background_leases",
		Help: "Leases on tables' background work this server holds, by job (ttl-sweep, trim, counts, backfill): of several servers on one database, the holder does the job."}, []string{"job"})
	reg(m.leases)
	m.ttlSweeps = counterVec("ttl_sweeps_total", "Time to Live sweeps of one table, by result (ok or error).", "result")
	m.ttlScanned = counter("ttl_items_scanned_total", "Items the Time to Live sweeper examined.")
	m.ttlDeleted = counter("ttl_items_deleted_total", "Expired items the Time to Live sweeper deleted.")
	m.streamTrims = counterVec("stream_trims_total", "Stream retention trims of one table, by result (ok or error).", "result")
	m.streamTrimmed = counter("stream_records_trimmed_total", "Stream records removed by retention trims.")
	m.countBuilds = counterVec("count_builds_total", "Runs of the counting pass of a table created before exact counts, by result: done (counts exact), stopped (server closing or lease lost; resumes at a later walk) or error.", "result")
	m.countedItems = counter("count_build_items_total", "Items the counting passes of this server counted.")
	m.jobs = counterVec("background_jobs_total", "Runs of background backups, restores (backup_jobs.go), exports and imports (exports.go) ended here, by kind (backup, restore, export, import) and result: done (AVAILABLE, COMPLETED, or the table ACTIVE), failed (a backup or restore removed, an export or import FAILED), stopped (server closing; resumed by the next), elsewhere (another server holds or took its lease) or retried (an error that may pass; run again).", "kind", "result")
	m.jobsRunning = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "fdyno", Name: "background_jobs_running",
		Help: "Background backups, restores, exports and imports running in this server now, by kind; Describe* reports each one's progress."}, []string{"kind"})
	reg(m.jobsRunning)
	m.jobItems = counterVec("background_job_items_total", "Items background backups copied and restores wrote, as their records report them while they run, and items the exports wrote and the imports imported, when they end, by kind.", "kind")
	m.jobBytes = counterVec("background_job_bytes_total", "Encoded bytes of the items background backups copied and restores wrote, by kind.", "kind")
	reg(collectors.NewGoCollector())
	reg(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Results and kinds start at zero, so that rate() sees the first
	// event; operations appear with their first request.
	for _, k := range []string{"read", "write"} {
		m.transactions.WithLabelValues(k)
		m.retries.WithLabelValues(k)
	}
	for _, r := range []string{"done", "stopped", "elsewhere", "abandoned"} {
		m.backfills.WithLabelValues(r)
	}
	for _, r := range []string{"ok", "error"} {
		m.ttlSweeps.WithLabelValues(r)
		m.streamTrims.WithLabelValues(r)
	}
	for _, r := range []string{"done", "stopped", "error"} {
		m.countBuilds.WithLabelValues(r)
	}
	for _, k := range []string{jobBackup, jobRestore, jobExport, jobImport} {
		for _, r := range []string{"done", "failed", "stopped", "elsewhere", "retried"} {
			m.jobs.WithLabelValues(k, r)
		}
		m.jobsRunning.WithLabelValues(k)
		m.jobItems.WithLabelValues(k)
		m.jobBytes.WithLabelValues(k)
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
	return m
}

// serveMetrics answers GET /metrics.
func (m *metrics) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if m == nil {
		http.NotFound(w, r)
		return
	}
	m.handler.ServeHTTP(w, r)
}

// request records one answered request of operation op (as call.op has
// it), ending with the wire error ae, or success if nil.
func (m *metrics) request(op string, ae *apiError, latency time.Duration) {
	if m == nil {
		return
	}
	if !m.ops()[op] {
		op = "unknown"
	}
	result := "success"
	if ae != nil {
		result = ae.typ.short()
	}
	m.requests.WithLabelValues(op, result).Inc()
	m.latency.WithLabelValues(op).Observe(latency.Seconds())
}

// transaction records the start of a transaction of kind "read" or
// "write".
func (m *metrics) transaction(kind string) {
	if m == nil {
		return
	}
	m.transactions.WithLabelValues(kind).Inc()
}

// attemptFailed records a transaction attempt that ended with err, and
// whether it is retried.
func (m *metrics) attemptFailed(kind string, err error, retried bool) {
	if m == nil {
		return
	}
	var fe fdb.Error
	if !errors.As(err, &fe) {
		return // not FoundationDB's: the library's or the caller's error
	}
	m.fdbErrors.WithLabelValues(kind, strconv.Itoa(fe.Code)).Inc()
	if fe.Code == codeNotCommitted {
		m.conflicts.Inc()
	}
	if retried {
		m.retries.WithLabelValues(kind).Inc()
	}
}

// backfillStarted and backfillEnded bracket a backfill holding a slot;
// backfillEnded's result is done, stopped, elsewhere or abandoned.
func (m *metrics) backfillStarted() {
	if m != nil {
		m.backfillsRunning.Inc()
	}
}

func (m *metrics) backfillEnded(result string) {
	if m != nil {
		m.backfillsRunning.Dec()
		m.backfills.WithLabelValues(result).Inc()
	}
}

func (m *metrics) backfillRetried() {
	if m != nil {
		m.backfillRetries.Inc()
	}
}

// ttlSwept records one sweep of one table, failed or not.
func (m *metrics) ttlSwept(scanned, deleted int, failed bool) {
	if m == nil {
		return
	}
	m.ttlScanned.Add(float64(scanned))
	m.ttlDeleted.Add(float64(deleted))
	m.ttlSweeps.WithLabelValues(okOrError(failed)).Inc()
}

// countBuilt records one run of a table's counting pass, which counted
// items; result is done, stopped or error.
func (m *metrics) countBuilt(result string, items int64) {
	if m == nil {
		return
	}
	m.countBuilds.WithLabelValues(result).Inc()
	m.countedItems.Add(float64(items))
}

// jobStarted and jobEnded bracket a background job's run; result is
// one of jobs_total's.
func (m *metrics) jobStarted(kind string) {
	if m != nil {
		m.jobsRunning.WithLabelValues(kind).Inc()
	}
}

func (m *metrics) jobEnded(kind, result string) {
	if m != nil {
		m.jobsRunning.WithLabelValues(kind).Dec()
		m.jobs.WithLabelValues(kind, result).Inc()
	}
}

// jobProgress adds the items and bytes a job did since its last report.
func (m *metrics) jobProgress(kind string, items, bytes int64) {
	if m == nil || items < 0 || bytes < 0 {
		return
	}
	m.jobItems.WithLabelValues(kind).Add(float64(items))
	m.jobBytes.WithLabelValues(kind).Add(float64(bytes))
}

// leaseHeld counts a lease on background work taken (held) or lost.
func (m *metrics) leaseHeld(job string, held bool) {
	if m == nil {
		return
	}
	if held {
		m.leases.WithLabelValues(job).Inc()
	} else {
		m.leases.WithLabelValues(job).Dec()
	}
}

// streamTrimmedRecords records one retention trim of one table's stream.
func (m *metrics) streamTrimmedRecords(trimmed int, failed bool) {
	if m == nil {
		return
	}
	m.streamTrimmed.Add(float64(trimmed))
	m.streamTrims.WithLabelValues(okOrError(failed)).Inc()
}

func okOrError(failed bool) string {
	if failed {
		return "error"
	}
	return "ok"
}

// decision counts one authorization decision (audit.go).
func (m *metrics) decision(name string) {
	if m == nil {
		return
	}
	m.decisions.WithLabelValues(name).Inc()
}
