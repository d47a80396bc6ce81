// Command fdyno-server serves DynamoDB's JSON wire protocol on top of
// fdyno, so DynamoDB clients (the AWS SDKs, the AWS CLI) can use a
// FoundationDB database unchanged. By default it keeps its data durably in
// an embedded fdblite database in the directory fdyno-data (--data-dir),
// or in memory only with --in-memory, and accepts any credentials; see
// server/README.md.
//
// Usage:
//
//	fdyno-server [--listen 127.0.0.1:8000] [--data-dir DIR [--cache-size 64MiB] | --in-memory | --cluster-file PATH]
//	             [--auth KEYFILE [--policies POLICYFILE] [--audit-log]] [--shared-db] [--region us-east-1] [--log-level info]
//	             [--ttl-sweep=true] [--ttl-sweep-interval 1m] [--ttl-sweep-rate 1000] [--max-backfills 2]
//	             [--stream-retention 24h] [--count-build=true] [--tls-cert CERT --tls-key KEY]
//	             [--max-concurrent-requests 1024] [--max-requests-per-connection 64] [--max-header-bytes 65536]
//	fdyno-server backup-data [--data-dir DIR] DEST
//
// backup-data writes a consistent copy of the embedded database's data
// directory to DEST while a server serves it; --data-dir DEST serves the
// copy.
//
// GET /metrics answers the server's metrics in Prometheus's text format,
// with the process's resident memory and the embedded database's caches.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/s3bucket"
	"github.com/fdyno/fdyno/server"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "backup-data" {
		if err := backupData(os.Args[2:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "fdyno-server backup-data:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fdyno-server:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		listen      = flag.String("listen", "127.0.0.1:8000", "address to listen on")
		clusterFile = flag.String("cluster-file", "", "FoundationDB cluster file: use a FoundationDB cluster instead of the embedded fdblite database")
		dataDir     = flag.String("data-dir", DefaultDataDir, "directory of the embedded database's durable data (created if absent)")
		inMemory    = flag.Bool("in-memory", false, "keep the embedded database in memory only: every table is gone when the server exits")
		cacheSize   = flag.String("cache-size", "", "cache budget of the embedded durable database, such as 256MiB (default 64MiB); its memory is this, the last seconds' writes and a fixed overhead, whatever the data size (server/README.md)")
		authFile    = flag.String("auth", "", "file of access keys (`ID SECRET [ACCOUNT]` per line); requests must then be signed with AWS Signature Version 4")
		region      = flag.String("region", "us-east-1", "region of the shared namespace (--shared-db) and of unsigned requests")
		policyFile  = flag.String("policies", "", "JSON file of IAM-style policies by access key ID or account (needs --auth); a request no policy allows is refused")
		auditLog    = flag.Bool("audit-log", false, "log every authorization decision (refusals are always logged): key ID, account, action, resource, decision")
		sharedDB    = flag.Bool("shared-db", false, "serve every client one shared set of tables, as before accounts and regions (default: one namespace per account and region)")
		logLevel    = flag.String("log-level", "info", "log level: debug, info, warn or error")
		txnTimeout  = flag.Duration("txn-timeout", server.DefaultTransactionTimeout, "bound on a request's FoundationDB transaction, retries included")
		ttlSweep    = flag.Bool("ttl-sweep", true, "run the Time to Live sweeper, which deletes expired items of tables with TTL enabled")
		ttlInterval = flag.Duration("ttl-sweep-interval", fdyno.DefaultSweepInterval, "pause between two walks of the TTL sweeper over the tables")
		ttlRate     = flag.Float64("ttl-sweep-rate", server.DefaultTTLSweepItemsPerSecond, "most items per second the TTL sweeper examines")
		backfills   = flag.Int("max-backfills", server.DefaultMaxBackfills, "most global secondary index backfills run at once")
		retention   = flag.Duration("stream-retention", server.DefaultStreamRetention, "how long stream records are kept before the trimmer removes them; 0 keeps them all")
		countBuild  = flag.Bool("count-build", true, "build, in the background, the exact counts of tables created before fdyno kept them")
		tlsCert     = flag.String("tls-cert", "", "PEM certificate chain: serve HTTPS (with --tls-key) instead of plain HTTP")
		tlsKey      = flag.String("tls-key", "", "PEM private key of --tls-cert")
		maxRequests = flag.Int("max-concurrent-requests", server.DefaultMaxConcurrentRequests, "most requests served at once; more are refused with ThrottlingException")
		perConn     = flag.Int("max-requests-per-connection", server.DefaultMaxRequestsPerConnection, "most requests in flight on one HTTP/2 connection")
		headerBytes = flag.Int("max-header-bytes", server.DefaultMaxHeaderBytes, "largest request headers, in bytes")
		exportDir   = flag.String("export-dir", "", "directory of the buckets of ExportTableToPointInTime and ImportTable: S3Bucket names its subdirectory <account>/<bucket> (<bucket> with --shared-db), which must exist; empty: no exports or imports")
		s3Endpoint  = flag.String("s3-endpoint", "", "URL of an S3 endpoint (AWS's or an S3-compatible store's) holding the buckets of ExportTableToPointInTime and ImportTable instead of --export-dir; credentials from FDYNO_S3_ACCESS_KEY_ID, FDYNO_S3_SECRET_ACCESS_KEY and FDYNO_S3_SESSION_TOKEN")
		s3Region    = flag.String("s3-region", "", "region of the --s3-endpoint buckets (default: --region)")
		s3PathStyle = flag.Bool("s3-path-style", false, "address --s3-endpoint buckets as ENDPOINT/BUCKET/KEY (most S3-compatible stores want it) rather than BUCKET.HOST/KEY")
		jobPause    = flag.Duration("job-pause", 0, "least pause between two transactions of a background backup, restore, export or import, which otherwise pauses for as long as each took")
		jobLease    = flag.Duration("job-lease", server.DefaultJobLease, "lease on a background backup, restore, export or import; a server that dies has its jobs taken over within two")
		t           server.Timeouts
	)
	flag.DurationVar(&t.ReadHeader, "read-header-timeout", server.DefaultTimeouts.ReadHeader, "time to read a request's headers")
	flag.DurationVar(&t.Read, "read-timeout", server.DefaultTimeouts.Read, "time to read a whole request")
	flag.DurationVar(&t.Write, "write-timeout", server.DefaultTimeouts.Write, "time to answer a request")
	flag.DurationVar(&t.Idle, "idle-timeout", server.DefaultTimeouts.Idle, "time a keep-alive connection may idle")
	flag.DurationVar(&t.Shutdown, "shutdown-timeout", server.DefaultTimeouts.Shutdown, "time in-flight requests get on SIGINT/SIGTERM")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	opts := []server.ServeOption{server.WithMaxRequestsPerConnection(*perConn), server.WithMaxHeaderBytes(*headerBytes)}
	if *tlsCert != "" || *tlsKey != "" {
		cfg, err := server.LoadTLS(*tlsCert, *tlsKey)
		if err != nil {
			return err
		}
		opts = append(opts, server.WithTLS(cfg))
	}
	var keys, accounts map[string]string
	if *authFile != "" {
		f, err := os.Open(*authFile)
		if err != nil {
			return err
		}
		keys, accounts, err = server.LoadKeyFile(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	var policies map[string][]*server.Policy
	if *policyFile != "" {
		if keys == nil {
			return fmt.Errorf("--policies needs --auth: unsigned requests have no principal")
		}
		f, err := os.Open(*policyFile)
		if err != nil {
			return err
		}
		policies, err = server.LoadPolicies(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("--policies %s: %w", *policyFile, err)
		}
	}
	s3client, err := s3Client(*s3Endpoint, *s3Region, *region, *s3PathStyle, *exportDir)
	if err != nil {
		return err
	}
	if err := fdb.APIVersion(730); err != nil {
		return err
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	name, storage, err := databaseName(*clusterFile, *dataDir, *inMemory, set)
	if err != nil {
		return err
	}
	if err := applyCacheSize(*cacheSize, storage); err != nil {
		return err
	}
	db, err := fdb.OpenDatabase(name)
	if err == nil {
		err = checkDatabase(db, log)
	}
	if err != nil {
		return openError(err, storage)
	}
	cfg := server.Config{DB: db, Keys: keys, Region: *region, Logger: log, TransactionTimeout: *txnTimeout,
		MaxBackfills: *backfills, TTLSweepInterval: *ttlInterval, TTLSweepItemsPerSecond: *ttlRate,
		MaxConcurrentRequests: *maxRequests, Accounts: accounts, Policies: policies, Namespaces: server.PerAccountNamespaces, AuditLog: *auditLog,
		ExportDir: *exportDir, JobPause: *jobPause, JobLease: *jobLease}
	if s3client != nil {
		cfg.S3 = s3client
	}
	if *sharedDB {
		cfg.Namespaces = server.SharedNamespace
	}
	if !*ttlSweep {
		cfg.TTLSweepInterval = -1
	}
	if !*countBuild {
		cfg.CountBuildInterval = -1
	}
	cfg.StreamRetention = *retention
	if *retention <= 0 {
		cfg.StreamRetention = -1
	}
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	// Background work (backfills, the TTL sweeper) stops after the last
	// request; an unfinished backfill resumes at the next start.
	defer srv.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	log.Info("listening", slog.String("addr", ln.Addr().String()), slog.Bool("auth", keys != nil),
		slog.Bool("tls", *tlsCert != ""), slog.Bool("shared_db", *sharedDB), slog.String("storage", storage.Mode), slog.String("data_dir", storage.Dir), slog.String("cluster_file", *clusterFile))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return server.Serve(ctx, ln, srv, t, log, opts...)
}

// s3Client returns the client of --s3-endpoint (nil without it), with
// the credentials of the FDYNO_S3_* environment variables.
func s3Client(endpoint, region, defaultRegion string, pathStyle bool, exportDir string) (*s3.Client, error) {
	if endpoint == "" {
		return nil, nil
	}
	if exportDir != "" {
		return nil, fmt.Errorf("--s3-endpoint and --export-dir exclude each other: the buckets are in one place")
	}
	if region == "" {
		region = defaultRegion
	}
	c, err := s3bucket.NewClient(s3bucket.Config{Endpoint: endpoint, Region: region, PathStyle: pathStyle,
		AccessKeyID: os.Getenv("FDYNO_S3_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("FDYNO_S3_SECRET_ACCESS_KEY"),
		SessionToken: os.Getenv("FDYNO_S3_SESSION_TOKEN")})
	if err != nil {
		return nil, fmt.Errorf("--s3-endpoint: %w (set FDYNO_S3_ACCESS_KEY_ID and FDYNO_S3_SECRET_ACCESS_KEY)", err)
	}
	return c, nil
}
