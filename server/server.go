// Package server serves DynamoDB's JSON 1.0 wire protocol over HTTP on
// top of the fdyno library, so that the AWS SDKs, the AWS CLI and other
// DynamoDB clients work unchanged against a FoundationDB database.
//
// A request is a POST whose X-Amz-Target header names the operation
// (DynamoDB_20120810.PutItem) and whose body is the operation's JSON
// input, with Content-Type application/x-amz-json-1.0. The server decodes
// the input (attrvalue.go), applies DynamoDB's limits at the boundary,
// calls the library, and encodes the output, or an error in DynamoDB's
// wire form (errors.go). It adds no semantics of its own: conditions,
// expressions, validation and errors are the library's. DynamoDB's
// legacy parameters (Expected, AttributeUpdates, KeyConditions, ...) are
// translated into the expressions they stand for (legacy.go).
//
// Every request takes one path (handler): the body is decoded into the
// operation's input struct (decode, JSON errors are a
// SerializationException), the input's prepare method checks what
// DynamoDB checks before it looks at a table, in DynamoDB's order, and
// names the table (tableName, which also records it for the log), the
// table's handle is looked up, and the operation's run function calls the
// library and returns the output to encode. An operation is thus an input
// struct with a prepare method and one function,
// func (s *Server) op(c *call, in *opInput, t *fdyno.Table) (any, error),
// in the file of its concept (tables.go, items.go, read.go), with its
// input and output structs named after DynamoDB's shapes, and registered
// as handler((*Server).op) by its full X-Amz-Target in New; an operation
// of another service (DynamoDBStreams_20120810.GetRecords) registers the
// same way.
//
// See cmd/fdyno-server for the command, README.md for running it, and
// docs/differences.md for what is served and how it differs from
// DynamoDB.
package server

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	strictjson "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/partiql"
	"github.com/fdyno/fdyno/s3bucket"
)

// Limits of the wire protocol (DynamoDB's).
const (
	// MaxRequestBodySize is the largest request body, DynamoDB's 16 MB.
	MaxRequestBodySize = 16 << 20
	// targetPrefix starts the X-Amz-Target of every DynamoDB operation.
	targetPrefix = "DynamoDB_20120810."
	// contentType is the media type of requests and responses.
	contentType = "application/x-amz-json-1.0"
)

// Config configures a [Server]. Only DB is required.
type Config struct {
	// DB is the FoundationDB database the tables live in.
	DB fdb.Database
	// Root is the directory-layer path under which tables live (default
	// fdyno.DefaultRoot); see fdyno.WithRoot.
	Root []string
	// Keys maps AWS access key IDs to their secret access keys. When it is
	// nil, any credentials (or none) are accepted, as DynamoDB Local does;
	// otherwise every request must carry a valid AWS Signature Version 4
	// made with one of them (auth.go).
	Keys map[string]string
	// Region names the region in the ARNs the server reports (default
	// "us-east-1"). Requests signed for any region are accepted. With
	// PerAccountNamespaces it is the region of the shared namespace and
	// of unsigned requests (namespace.go).
	Region string
	// Namespaces chooses how tables are scoped: SharedNamespace (the zero
	// value: every client sees the tables under Root, today's layout) or
	// PerAccountNamespaces (one namespace per account and region, as
	// DynamoDB). See namespace.go.
	Namespaces NamespaceMode
	// Accounts maps access key IDs to the 12-digit AWS account they
	// belong to (the third column of the key file). A key ID not in it
	// belongs to the account [AccountOf] derives from it.
	Accounts map[string]string
	// Policies are the IAM-style identity policies of access key IDs and
	// accounts (see LoadPolicies). When it is nil every authenticated
	// request is allowed; otherwise a request needs a policy of its key
	// or its account that allows it (policy.go). It requires Keys.
	Policies map[string][]*Policy
	// Logger receives one record per request (default: slog.Default()).
	Logger *slog.Logger
	// Now returns the current time (default time.Now). It is the server's
	// only clock: the signature's date check, shard iterator expiry, and
	// the clock of every table it opens (fdyno.WithClock: Time to Live,
	// change record times, stream trimming). Only pacing and latency
	// measurements keep real elapsed time.
	Now func() time.Time
	// TransactionTimeout bounds each request's FoundationDB transaction,
	// retries included (default DefaultTransactionTimeout).
	TransactionTimeout time.Duration
	// MaxBackfills bounds the index backfills that run at once
	// (default DefaultMaxBackfills); see background.go.
	MaxBackfills int
	// backfillBatchSize is the most base items a backfill batch walks
	// (fdyno.BackfillInput.BatchSize; 0: the library's default). Tests
	// set it small so that a backfill lasts many batches.
	backfillBatchSize int
	// TTLSweepInterval is the pause between two walks of the Time to Live
	// sweeper over the tables with TTL enabled (default
	// fdyno.DefaultSweepInterval); a negative value disables the sweeper.
	TTLSweepInterval time.Duration
	// TTLSweepItemsPerSecond bounds how many items per second the TTL
	// sweeper examines (default DefaultTTLSweepItemsPerSecond).
	TTLSweepItemsPerSecond float64
	// StreamRetention is how long the stream trimmer keeps change records
	// (default DefaultStreamRetention, DynamoDB's 24 hours); a negative
	// value disables the trimmer, and records are then kept until
	// something else trims them.
	StreamRetention time.Duration
	// StreamTrimInterval is the pause between two walks of the stream
	// trimmer over the tables with a stream (default
	// DefaultStreamTrimInterval).
	StreamTrimInterval time.Duration
	// CountBuildInterval is the pause between two walks of the count
	// builder, which builds the exact counts of tables created before
	// fdyno kept them (default DefaultCountBuildInterval); a negative
	// value disables it, and such tables report no counts until something
	// else runs fdyno's Table.BuildCounts.
	CountBuildInterval time.Duration
	// AuditLog logs every authorization decision, allowed ones too, at
	// info level (refusals are always logged, at warning level); see
	// audit.go.
	AuditLog bool
	// ExportDir is the directory of the buckets ExportTableToPointInTime
	// writes to and ImportTable reads from: S3Bucket names its
	// subdirectory <account>/<bucket> with PerAccountNamespaces, <bucket>
	// otherwise, which must exist (exports.go). Empty: no exports or
	// imports.
	ExportDir string
	// S3, when set, holds the buckets instead of ExportDir: S3Bucket names
	// a bucket this client (its endpoint and credentials) reaches, and
	// with PerAccountNamespaces every object key starts with the
	// account's id and "/", so an account never reaches another's
	// objects (exports.go). See package s3bucket.
	S3 s3bucket.API
	// JobPause is the least pause between two transactions of a
	// background backup, restore (backup_jobs.go), export or import
	// (exports.go), which otherwise pauses after each for as long as it
	// took.
	JobPause time.Duration
	// JobLease is the lease a server takes on a background backup,
	// restore, export or import it runs, and how often every server looks
	// for jobs whose server died (default DefaultJobLease).
	JobLease time.Duration
	// MaxConcurrentRequests bounds the requests the server runs at once
	// (default DefaultMaxConcurrentRequests); one more is refused with a
	// ThrottlingException (limits.go).
	MaxConcurrentRequests int
}

// Server is an http.Handler that speaks DynamoDB's JSON protocol.
//
// A Server is safe for concurrent use by multiple goroutines: each
// request runs its own FoundationDB transactions.
type Server struct {
	db     fdyno.RetryLoop // transactor.go
	root   []string
	keys   map[string]string
	region string
	// account is the AWS account of the namespace s serves, in its ARNs.
	account string
	log     *slog.Logger
	now     func() time.Time
	ops     map[string]operation
	// iterKey authenticates the shard iterators this server issues
	// (streams.go).
	iterKey []byte
	// holder names this server in the leases of background work
	// (background.go), unique per process.
	holder string

	mu     sync.Mutex
	tables map[string]*fdyno.Table // handles by name; see table
	// pq runs PartiQL on the tables of s, keeping statements it has
	// parsed (newPartiQL).
	pq *partiql.Executor

	bg background // backfills, the TTL sweeper, the stream trimmer (background.go)

	metrics *metrics // what GET /metrics reports (metrics.go)

	inFlight chan struct{} // one token per request in its operation (limits.go)

	bgConfig Config      // the background work's settings (startBackground)
	spaces   *namespaces // the per-account namespaces, nil when shared (namespace.go)

	accounts     map[string]string    // Config.Accounts
	accountStats *accountMetrics      // requests by account (metrics_account.go)
	policies     map[string][]*Policy // Config.Policies (policy_authz.go)
	auditAll     bool                 // Config.AuditLog (audit.go)
	// observeAccess, when set (by tests), sees every access a guarded
	// handle asks about, and the guard's answer (authz.go).
	observeAccess func(a fdyno.Access, err error)
}

// operation handles one X-Amz-Target: it decodes body, sets c.table, runs
// the library call and returns the output to encode as JSON.
type operation func(s *Server, c *call, body []byte) (any, error)

// call is what the server knows about one request, for its handler and
// its log record.
type call struct {
	ctx context.Context
	op  string
	// table is the table the request acts on, as tableName resolved it
	// ("" for none or several).
	table string
	host  string // the request's Host, the endpoint the client reached
	// account and region name the request's namespace (namespace.go):
	// with a shared namespace and keys, account is the principal's, for
	// logs and metrics, and owner is the namespace's, in its ARNs.
	account, region string
	owner           string
	// who is the principal the verified identity is: the policies' and
	// the audit log's (authz.go).
	who principal
	// guard is what the request's allowed checks granted, asked by its
	// handles before every access (authz.go); nil without policies.
	guard *requestGuard
	// body is the request body, kept for the debug log (logCall) only
	// when the logger records debug.
	body []byte
}

// request is an operation's input struct, as decoded from the body.
type request interface {
	// prepare checks what DynamoDB checks before it looks at a table, in
	// DynamoDB's order, and returns the name of the table whose handle
	// the operation runs on, or "" when it needs none (or resolves its
	// tables itself).
	prepare(c *call) (table string, err error)
	// authz returns the checks the policies must allow for the request to
	// run in s, computed from its decoded fields before prepare, so that a
	// caller the policies refuse learns nothing from validation
	// (policy_request.go).
	authz(s *Server, c *call) ([]accessCheck, error)
}

// handler returns the operation that decodes the body into an In,
// prepares it, looks up the table it names and runs run with them: the
// one request path of every operation.
func handler[In any, P interface {
	*In
	request
}](run func(s *Server, c *call, in P, t *fdyno.Table) (any, error)) operation {
	return func(s *Server, c *call, body []byte) (any, error) {
		in := P(new(In))
		if err := decode(body, in); err != nil {
			return nil, err
		}
		if s.policies != nil {
			checks, err := in.authz(s, c)
			if err != nil {
				return nil, err
			}
			if err := s.authorize(c, checks); err != nil {
				// A denial may rest on a partition key that a handle
				// cached before the table was changed through another
				// server: decided again if the key changed.
				if !s.refreshPartitionKeys(checks) {
					return nil, err
				}
				if checks, err = in.authz(s, c); err != nil {
					return nil, err
				}
				if err := s.authorize(c, checks); err != nil {
					return nil, err
				}
			}
		}
		name, err := in.prepare(c)
		if err != nil {
			return nil, err
		}
		var t *fdyno.Table
		if name != "" {
			if t, err = s.tableFor(c, name); err != nil {
				return nil, err
			}
		}
		return run(s, c, in, t)
	}
}

// New returns a Server for cfg. It starts the server's background work
// (background.go): resuming the backfills of CREATING indexes and, unless
// disabled, the TTL sweeper and the stream trimmer; [Server.Close] stops
// it.
func New(cfg Config) (*Server, error) {
	timeout := cfg.TransactionTimeout
	if timeout <= 0 {
		timeout = DefaultTransactionTimeout
	}
	s := &Server{
		root:    slices.Clone(cfg.Root),
		region:  cfg.Region,
		account: accountID,
		log:     cfg.Logger,
		now:     cfg.Now,
		tables:  map[string]*fdyno.Table{},

		iterKey: newIteratorKey(),
		holder:  newHolderID(),

		inFlight: make(chan struct{}, cmp.Or(max(cfg.MaxConcurrentRequests, 0), DefaultMaxConcurrentRequests)),
	}
	s.pq = s.newPartiQL()
	if len(s.root) == 0 {
		s.root = []string{fdyno.DefaultRoot}
	}
	if s.region == "" {
		s.region = "us-east-1"
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if cfg.Keys != nil {
		s.keys = make(map[string]string, len(cfg.Keys))
		for id, secret := range cfg.Keys {
			if id == "" || secret == "" {
				return nil, errors.New("server: an access key ID or secret is empty")
			}
			s.keys[id] = secret
		}
	}
	if cfg.Policies != nil && s.keys == nil {
		return nil, errors.New("server: policies need access keys (Config.Keys, --auth): unsigned requests have no principal")
	}
	s.policies, s.accounts, s.auditAll = cfg.Policies, cfg.Accounts, cfg.AuditLog
	s.ops = map[string]operation{
		targetPrefix + "CreateTable":   handler((*Server).createTable),
		targetPrefix + "DeleteTable":   handler((*Server).deleteTable),
		targetPrefix + "DescribeTable": handler((*Server).describeTable),
		targetPrefix + "ListTables":    handler((*Server).listTables),
		targetPrefix + "PutItem":       handler((*Server).putItem),
		targetPrefix + "GetItem":       handler((*Server).getItem),
		targetPrefix + "UpdateItem":    handler((*Server).updateItem),
		targetPrefix + "DeleteItem":    handler((*Server).deleteItem),
		targetPrefix + "Query":         handler((*Server).query),
		targetPrefix + "Scan":          handler((*Server).scan),

		targetPrefix + "UpdateTable":        handler((*Server).updateTable),
		targetPrefix + "BatchGetItem":       handler((*Server).batchGetItem),
		targetPrefix + "BatchWriteItem":     handler((*Server).batchWriteItem),
		targetPrefix + "TransactWriteItems": handler((*Server).transactWriteItems),
		targetPrefix + "TransactGetItems":   handler((*Server).transactGetItems),
		targetPrefix + "UpdateTimeToLive":   handler((*Server).updateTimeToLive),
		targetPrefix + "DescribeTimeToLive": handler((*Server).describeTimeToLive),
		targetPrefix + "TagResource":        handler((*Server).tagResource),
		targetPrefix + "UntagResource":      handler((*Server).untagResource),
		targetPrefix + "ListTagsOfResource": handler((*Server).listTagsOfResource),

		targetPrefix + "ExecuteStatement":      handler((*Server).executeStatement),
		targetPrefix + "BatchExecuteStatement": handler((*Server).batchExecuteStatement),
		targetPrefix + "ExecuteTransaction":    handler((*Server).executeTransaction),

		targetPrefix + "DescribeEndpoints":         handler((*Server).describeEndpoints),
		targetPrefix + "DescribeLimits":            handler((*Server).describeLimits),
		targetPrefix + "DescribeContinuousBackups": handler((*Server).describeContinuousBackups),
		targetPrefix + "UpdateContinuousBackups":   handler((*Server).updateContinuousBackups),
		targetPrefix + "CreateBackup":              handler((*Server).createBackup),
		targetPrefix + "DescribeBackup":            handler((*Server).describeBackup),
		targetPrefix + "ListBackups":               handler((*Server).listBackups),
		targetPrefix + "DeleteBackup":              handler((*Server).deleteBackup),
		targetPrefix + "RestoreTableFromBackup":    handler((*Server).restoreTableFromBackup),
		targetPrefix + "RestoreTableToPointInTime": handler((*Server).restoreTableToPointInTime),
		targetPrefix + "ExportTableToPointInTime":  handler((*Server).exportTableToPointInTime),
		targetPrefix + "DescribeExport":            handler((*Server).describeExport),
		targetPrefix + "ListExports":               handler((*Server).listExports),
		targetPrefix + "ImportTable":               handler((*Server).importTable),
		targetPrefix + "DescribeImport":            handler((*Server).describeImport),
		targetPrefix + "ListImports":               handler((*Server).listImports),

		streamsTargetPrefix + "ListStreams":      handler((*Server).listStreams),
		streamsTargetPrefix + "DescribeStream":   handler((*Server).describeStream),
		streamsTargetPrefix + "GetShardIterator": handler((*Server).getShardIterator),
		streamsTargetPrefix + "GetRecords":       handler((*Server).getRecords),
	}
	s.metrics = newMetrics(s.ops)
	s.accountStats = s.metrics.registerAccounts()
	s.metrics.registerStorage(cfg.DB)
	s.db = newTransactor(cfg.DB, timeout, s.metrics)
	s.bg.ctx, s.bg.cancel = context.WithCancel(context.Background())
	s.bg.slots = newBackfillSlots(cfg.MaxBackfills)
	s.bg.running = map[backfillID]bool{}
	s.bgConfig = cfg
	s.startBackground()
	if err := s.startNamespaces(cfg); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// startBackground starts the background work of s's namespace: resuming
// its backfills and, unless disabled, its TTL sweeper, stream trimmer and
// count builder.
func (s *Server) startBackground() {
	cfg := s.bgConfig
	s.goBackground(func(ctx context.Context) {
		everyInterval(ctx, backfillResumeInterval, func() { s.resumeBackfills(ctx) })
	})
	s.goBackground(func(ctx context.Context) {
		everyInterval(ctx, s.jobLease(), func() { s.resumeTransfers(ctx) })
	})
	s.goBackground(s.resumeJobs)
	if cfg.TTLSweepInterval >= 0 {
		interval, perSecond := cfg.TTLSweepInterval, cfg.TTLSweepItemsPerSecond
		if interval == 0 {
			interval = fdyno.DefaultSweepInterval
		}
		if perSecond <= 0 {
			perSecond = DefaultTTLSweepItemsPerSecond
		}
		// The sweeper walks every table with a TimeToLiveAttribute once
		// per interval, deleting expired items.
		s.goBackground(func(ctx context.Context) {
			everyInterval(ctx, interval, func() { s.sweepOnce(ctx, perSecond, leasePeriod(interval)) })
		})
	}
	if cfg.StreamRetention >= 0 {
		retention, interval := cmp.Or(cfg.StreamRetention, DefaultStreamRetention), cmp.Or(cfg.StreamTrimInterval, DefaultStreamTrimInterval)
		// The trimmer removes, once per interval, the stream records older
		// than retention of every table with a stream.
		s.goBackground(func(ctx context.Context) {
			everyInterval(ctx, interval, func() { s.trimOnce(ctx, retention, leasePeriod(interval)) })
		})
	}
	if cfg.CountBuildInterval >= 0 {
		interval := cmp.Or(cfg.CountBuildInterval, DefaultCountBuildInterval)
		// The count builder counts, at start and once per interval, the
		// tables created before exact counts.
		s.goBackground(func(ctx context.Context) {
			everyInterval(ctx, interval, func() { s.buildCountsOnce(ctx, interval) })
		})
	}
}

// ServeHTTP answers one request. A GET of / is a health check and
// answers 200 "healthy: <host>", as DynamoDB's endpoints answer GET / with
// "healthy: <endpoint>", with the storage mode in the header
// X-Fdyno-Storage (see [Storage]); it answers 503 "unhealthy: ..." when
// the database cannot be read or its durable storage failed. A GET of
// /metrics answers the server's metrics in Prometheus's text format
// (metrics.go), without authentication, as the health check. CORS
// preflights are answered as DynamoDB's (cors.go).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if serveCORS(w, r) {
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/" {
		s.health(w, r.Host)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == metricsPath {
		s.metrics.serveMetrics(w, r)
		return
	}
	start := time.Now() // latency is real elapsed time, not Config.Now
	c := &call{ctx: r.Context(), host: r.Host}
	id := requestID()
	out, err := s.handleSafely(w, r, c)
	status := http.StatusOK
	var body []byte
	if a, ok := out.(appender); ok && err == nil {
		body = a.appendJSON(make([]byte, 0, 512))
	} else if err == nil {
		body, err = json.Marshal(out)
		if err != nil {
			err = &apiError{typ: errInternal, msg: "Internal server error"}
		}
	}
	var ae *apiError
	if err != nil {
		ae = opError(c.op, toAPIError(err))
		status, body = ae.typ.status, ae.body()
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Amzn-Requestid", id)
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
	latency := time.Since(start)
	if ae != nil && ae.refusedAtAccess {
		s.auditRefusedAtAccess(c, ae)
	}
	s.metrics.request(c.op, ae, latency)
	s.accountRequest(c, ae)
	s.logCall(c, id, status, latency, ae, err, body)
}

// handleSafely is handle, with a panic (a bug) turned into a 500
// InternalServerError whose cause is logged, so a client always gets
// DynamoDB's error shape and the connection stays usable.
func (s *Server) handleSafely(w http.ResponseWriter, r *http.Request, c *call) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return s.handle(w, r, c)
}

// handle routes and authenticates the request and runs its operation.
func (s *Server) handle(w http.ResponseWriter, r *http.Request, c *call) (any, error) {
	target := r.Header.Get("X-Amz-Target")
	c.op = strings.TrimPrefix(strings.TrimPrefix(target, targetPrefix), streamsTargetPrefix)
	if r.Method != http.MethodPost {
		return nil, &apiError{typ: errUnknownOperation, msg: "Only POST requests are supported"}
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != contentType && mt != "application/json" {
		return nil, &apiError{typ: errUnknownOperation, msg: "Unsupported Content-Type; use " + contentType}
	}
	// The body is read and its signature checked before the request takes
	// one of the slots that bound the requests run at once (limits.go): a
	// client that is slow to send, or cannot sign, holds no slot, so it
	// cannot keep signed clients waiting.
	body, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	if s.log.Enabled(c.ctx, slog.LevelDebug) {
		c.body = body
	}
	id, err := s.identify(r, body)
	if err != nil {
		return nil, err
	}
	if err := s.admit(); err != nil {
		return nil, err
	}
	defer s.release()
	op, ok := s.ops[target]
	if !ok {
		return nil, &apiError{typ: errUnknownOperation, msg: "Unknown operation: " + strconv.Quote(target)}
	}
	ns, err := s.namespaceOf(id, c)
	if err != nil {
		return nil, err
	}
	c.who, c.owner = principal{keyID: id.keyID, account: c.account}, ns.account
	out, err := op(ns, c, body)
	if ns != s {
		s.settleNamespace(ns, err == nil && (c.op == "CreateTable" || strings.HasPrefix(c.op, "RestoreTable") || c.op == "ImportTable"))
	}
	return out, err
}

// readBody reads the request body, at most MaxRequestBodySize bytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxRequestBodySize {
		return nil, tooLarge()
	}
	// The buffer grows with the bytes that arrive, from at most 64 KB:
	// a declared length alone reserves no more (a client that declares
	// 16 MB and sends nothing holds 64 KB until the read timeout).
	size := 512
	if r.ContentLength > 0 {
		size = int(min(r.ContentLength, 64<<10))
	}
	buf := make([]byte, 0, size)
	rd := http.MaxBytesReader(w, r.Body, MaxRequestBodySize)
	for {
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, tooLarge()
			}
			return nil, serialization("Cannot read the request body: " + err.Error())
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
	}
}

func tooLarge() error {
	return &apiError{typ: errTooLarge, msg: "Request size exceeded " + strconv.Itoa(MaxRequestBodySize) + " bytes"}
}

// decode decodes a request body into in, once, strictly, as DynamoDB
// reads its JSON protocol, mapping JSON errors to DynamoDB's
// SerializationException. A body that is not UTF-8 text is one of them
// (checkJSONText), checked first because a decoder would rewrite it.
//
// The decoded in is what the request's authorization is computed from
// (authz.go) and what its operation runs, so the two cannot read the
// request differently:
//
//  1. Member names match exactly: DynamoDB's members are case-sensitive
//     (a "tablename" is not TableName, and a TransactItem's "put" is not
//     a Put).
//  2. An unknown member is ignored, as DynamoDB ignores members its
//     model does not have (the AWS JSON protocol's forward
//     compatibility): a TransactItem with only "put" has no action, and
//     is refused as one.
//  3. A member given twice in one object is a SerializationException:
//     JSON leaves duplicates undefined (RFC 8259, section 4), so no
//     reading of one is more right than another; refusing it keeps every
//     reader of the request, ours and any proxy's, on the one value.
func decode(body []byte, in any) error {
	if err := checkJSONText(body); err != nil {
		return err
	}
	if err := strictjson.Unmarshal(body, in); err != nil {
		return strictError(body, in, err)
	}
	return checkEmptyExpressions(body)
}

// strictError maps an error of the strict decoder to DynamoDB's. The
// texts of type errors are encoding/json's, which the error mapping
// knows (serializationOf): the body is decoded by it into a scratch
// value only to name the error, and is never used.
func strictError(body []byte, in any, err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, jsontext.ErrDuplicateName) {
		return serialization("Duplicate member in the request: " + duplicateName(err))
	}
	scratch := reflect.New(reflect.TypeOf(in).Elem()).Interface()
	if verr := json.Unmarshal(body, scratch); verr != nil {
		return serializationOf(verr)
	}
	return serialization("Malformed JSON: " + err.Error())
}

// duplicateName is the JSON pointer of the duplicated member an error of
// the strict decoder names, or "a member".
func duplicateName(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && se.JSONPointer != "" {
		return strconv.Quote(string(se.JSONPointer))
	}
	return "a member"
}

// maxDebugBody bounds the bytes of a request or response body the debug
// log shows.
const maxDebugBody = 4 << 10

// logCall logs the request's record: at info level, what it was and how
// it ended; at debug level also the request and response bodies
// (truncated to maxDebugBody bytes). Headers are never logged, so no
// signature, credential scope or secret is.
func (s *Server) logCall(c *call, id string, status int, latency time.Duration, ae *apiError, err error, answer []byte) {
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	debug := s.log.Enabled(c.ctx, slog.LevelDebug)
	if debug && level == slog.LevelInfo {
		level = slog.LevelDebug
	}
	if !s.log.Enabled(c.ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", c.op),
		slog.String("account", c.account),
		slog.String("region", c.region),
		slog.String("table", c.table),
		slog.Int("status", status),
		slog.Duration("latency", latency),
		slog.String("request_id", id),
	}
	if ae != nil {
		attrs = append(attrs, slog.String("error", ae.typ.short()), slog.String("message", ae.msg))
		if ae.typ == errInternal {
			// The cause of a 500 is logged, never sent.
			attrs = append(attrs, slog.String("cause", err.Error()))
		}
	}
	if debug {
		attrs = append(attrs, slog.String("request", debugBody(c.body)), slog.String("response", debugBody(answer)))
	}
	s.log.LogAttrs(c.ctx, level, "request", attrs...)
}

// debugBody is b for the debug log: at most maxDebugBody bytes, cut at a
// rune boundary, with the size when cut.
func debugBody(b []byte) string {
	if len(b) <= maxDebugBody {
		return string(b)
	}
	n := maxDebugBody
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "… (" + strconv.Itoa(len(b)) + " bytes)"
}

// requestID returns a fresh x-amzn-RequestId.
func requestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

// sortedNames returns the attribute names of it in byte order.
func sortedNames(it fdyno.Item) []string {
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
