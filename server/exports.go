package server

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/s3bucket"
)

// exports.go: ExportTableToPointInTime, DescribeExport and ListExports,
// on the library's exports (export.go in the root package), and the
// buckets exports write to and imports read from (imports.go).
//
// A bucket is a local directory by default: S3Bucket names the directory
// Config.ExportDir/<account>/<bucket> with per-account namespaces, or
// Config.ExportDir/<bucket> with the shared one, so an account never
// reaches another's files. The directory must exist, as an S3 bucket
// must (an export into a missing one ends FAILED with S3NoSuchBucket).
// With Config.S3, S3Bucket is a real S3 bucket (package s3bucket), and
// per-account namespaces put the account's id and "/" before every key.
// With neither, the operations answer ValidationException.
//
// An export is recorded IN_PROGRESS in the request and runs in the
// background (background.go); DescribeExport follows it to COMPLETED or
// FAILED. As DynamoDB's, an export needs point-in-time recovery on its
// table. One stopped by Close, or by a crash, is run again when a server
// starts on the database (resumeTransfers).

var (
	errExportNotFound     = errType{nsDynamoDB + "ExportNotFoundException", 400}
	errExportConflict     = errType{nsDynamoDB + "ExportConflictException", 400}
	errInvalidExportTime  = errType{nsDynamoDB + "InvalidExportTimeException", 400}
	errImportNotFound     = errType{nsDynamoDB + "ImportNotFoundException", 400}
	errImportConflict     = errType{nsDynamoDB + "ImportConflictException", 400}
	errExportsUnavailable = "This server keeps no export or import files: start it with --export-dir or --s3-endpoint"
)

// transferError maps the library's export and import errors to
// DynamoDB's, and the rest as backupError does.
func transferError(err error) error {
	var ee *fdyno.ExportError
	if errors.As(err, &ee) {
		switch {
		case errors.Is(err, fdyno.ErrExportNotFound):
			return &apiError{typ: errExportNotFound, msg: ee.Reason}
		case errors.Is(err, fdyno.ErrExportConflict):
			return &apiError{typ: errExportConflict, msg: ee.Reason}
		case errors.Is(err, fdyno.ErrInvalidExportTime):
			return &apiError{typ: errInvalidExportTime, msg: ee.Reason}
		case errors.Is(err, fdyno.ErrImportNotFound):
			return &apiError{typ: errImportNotFound, msg: ee.Reason}
		case errors.Is(err, fdyno.ErrImportConflict):
			return &apiError{typ: errImportConflict, msg: ee.Reason}
		}
	}
	return backupError(err)
}

// bucketPattern is DynamoDB's pattern of S3Bucket; with the length
// bound it also keeps a bucket one directory name (no "/", no "..").
var bucketPattern = regexp.MustCompile(`^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`)

const maxBucketLength = 255

// checkBucket checks S3Bucket, S3BucketOwner and a key prefix.
func checkBucket(c *call, v *constraints, field, bucket string, owner *string, prefixField string, prefix *string) error {
	if len(bucket) > maxBucketLength {
		v.add(field, nil, "Member must have length less than or equal to 255")
	} else if !bucketPattern.MatchString(bucket) || strings.Contains(bucket, "..") {
		v.add(field, &bucket, "Member must satisfy regular expression pattern: ^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$")
	}
	if owner != nil && !regexp.MustCompile(`^[0-9]{12}$`).MatchString(*owner) {
		v.add(strings.TrimSuffix(field, "s3Bucket")+"s3BucketOwner", owner, "Member must satisfy regular expression pattern: [0-9]{12}")
	}
	if prefix != nil && len(*prefix) > 1024 {
		v.add(prefixField, nil, "Member must have length less than or equal to 1024")
	}
	if err := v.err(); err != nil {
		return err
	}
	if owner != nil && *owner != c.owner {
		return validation("S3BucketOwner " + *owner + " is not the caller's account: fdyno-server's buckets are the account's own")
	}
	if prefix != nil {
		for _, e := range strings.Split(strings.Trim(*prefix, "/"), "/") {
			if e == "." || e == ".." || strings.ContainsAny(e, "\\\x00") {
				return validation("The S3 key prefix may not hold \".\" or \"..\" path elements, backslashes or NUL: " + *prefix)
			}
		}
	}
	return nil
}

// transferBucket is where exports write and imports read.
type transferBucket interface {
	fdyno.ExportDestination
	fdyno.ImportSource
}

// hasBuckets reports whether s keeps export and import files.
func (s *Server) hasBuckets() bool { return s.bgConfig.S3 != nil || s.bgConfig.ExportDir != "" }

// bucket returns the bucket named name in the caller's namespace; ctx
// bounds its requests.
func (s *Server) bucket(ctx context.Context, name string) (transferBucket, error) {
	perAccount := s.bgConfig.Namespaces == PerAccountNamespaces
	if s.bgConfig.S3 != nil {
		b := &s3bucket.Bucket{Client: s.bgConfig.S3, Name: name, Context: ctx}
		if perAccount {
			b.KeyPrefix = s.account + "/"
		}
		return b, nil
	}
	root := s.bgConfig.ExportDir
	if root == "" {
		return nil, validation(errExportsUnavailable)
	}
	if perAccount {
		root = filepath.Join(root, s.account)
	}
	return fdyno.DirBucket{Dir: filepath.Join(root, name)}, nil
}

// startTransfer reports whether export or import id may start here: it
// is not running in this server already (a namespace kept while its
// import starts would otherwise resume it a second time).
func (s *Server) startTransfer(id string) bool {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	if s.bg.transfers == nil {
		s.bg.transfers = map[string]bool{}
	}
	if s.bg.transfers[id] {
		return false
	}
	s.bg.transfers[id] = true
	return true
}

func (s *Server) endTransfer(id string) {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	delete(s.bg.transfers, id)
}

// Of several servers on one database, the one holding a job's lease
// (fdyno's TryExportLease, TryImportLease) runs the export or import; it
// renews the lease every third of Config.JobLease and stops when a
// renewal fails. Unlike backups and restores, whose jobTransactor renews
// between two transactions (backup_jobs.go), a transfer renews from a
// goroutine of its own: between two transactions it reads or writes its
// bucket (an S3 part, a file), which may take longer than a lease. Every
// server looks for IN_PROGRESS jobs at start and every JobLease, so the
// job of a server that died is taken over once its lease lapses.

// transferJob is an export or import to run in the background.
type transferJob struct {
	kind string // "export" or "import": the metrics' label, the logs' key
	id   string
	name string // what the logs name it by
	// lease takes or renews holder's lease; release gives it up.
	lease   func(holder string) (bool, error)
	release func(holder string) error
	// run runs the job through tx and returns its items and whether it
	// ended FAILED.
	run func(ctx context.Context, tx fdb.Transactor) (items int64, failed bool, err error)
}

// runTransfer runs j in the background if this server does not run it
// already and takes its lease.
func (s *Server) runTransfer(j transferJob) {
	if !s.startTransfer(j.id) {
		return
	}
	started := s.goBackground(func(ctx context.Context) {
		defer s.endTransfer(j.id)
		if ok, err := j.lease(s.holder); err != nil || !ok {
			return // another server runs it (or it is gone)
		}
		run, cancel := context.WithCancel(ctx)
		var lost atomic.Bool
		renewed := make(chan struct{})
		go func() {
			defer close(renewed)
			for {
				select {
				case <-run.Done():
					return
				case <-time.After(s.jobLease() / 3):
				}
				if ok, err := j.lease(s.holder); err != nil || !ok {
					lost.Store(true)
					cancel()
					return
				}
			}
		}()
		s.metrics.jobStarted(j.kind)
		// Paced as backups and restores are, so foreground requests are
		// not starved.
		items, failed, err := j.run(run, s.pacedTx(run))
		cancel()
		<-renewed
		result := "done"
		switch {
		case errors.Is(err, context.Canceled) && lost.Load():
			result = "elsewhere" // a renewal failed: another server took it
			s.log.Info(j.kind+" taken over by another server", slog.String(j.kind, j.name))
		case errors.Is(err, context.Canceled):
			result = "stopped" // closing: this or another server resumes it
		case err != nil || failed:
			result = "failed"
			if err != nil {
				s.log.Warn(j.kind+" failed", slog.String(j.kind, j.name), slog.String("account", s.account), slog.String("error", err.Error()))
			}
		}
		if result == "done" || result == "failed" {
			if err := j.release(s.holder); err != nil {
				s.log.Warn("lease release failed", slog.String(j.kind, j.name), slog.String("error", err.Error()))
			}
		}
		s.metrics.jobProgress(j.kind, items, 0)
		s.metrics.jobEnded(j.kind, result)
	})
	if !started {
		s.endTransfer(j.id) // closed: the next server resumes it
	}
}

// runExportInBackground runs export id in the background.
func (s *Server) runExportInBackground(id, bucket string) {
	opts := s.tableOptions()
	s.runTransfer(transferJob{kind: jobExport, id: id, name: id,
		lease:   func(h string) (bool, error) { return fdyno.TryExportLease(s.db, id, h, s.jobLease(), opts...) },
		release: func(h string) error { return fdyno.ReleaseExportLease(s.db, id, h, opts...) },
		run: func(ctx context.Context, tx fdb.Transactor) (int64, bool, error) {
			dest, err := s.bucket(ctx, bucket)
			if err != nil {
				return 0, false, err
			}
			d, err := fdyno.RunExport(tx, id, dest, opts...)
			if err != nil {
				return 0, false, err
			}
			return d.ItemCount, d.ExportStatus == fdyno.ExportStatusFailed, nil
		}})
}

// resumeTransfers runs the exports and imports of s's namespace that are
// IN_PROGRESS and whose lease no server holds (those of a server that
// stopped): at start, and every Config.JobLease.
func (s *Server) resumeTransfers(ctx context.Context) {
	if !s.hasBuckets() {
		return
	}
	tx := s.pacedTx(ctx)
	if l, err := fdyno.ListExports(tx, fdyno.ListExportsInput{}, s.tableOptions()...); err == nil {
		for _, e := range l.ExportSummaries {
			if e.ExportStatus == fdyno.ExportStatusInProgress {
				s.runExportInBackground(e.ExportID, e.S3Bucket)
			}
		}
	}
	if l, err := fdyno.ListImports(tx, fdyno.ListImportsInput{}, s.tableOptions()...); err == nil {
		for _, im := range l.ImportSummaries {
			if im.ImportStatus == fdyno.ImportStatusInProgress {
				s.runImportInBackground(im.ImportID, im.S3Bucket, s.importARN(im.TableName, im.ImportID))
			}
		}
	}
}

// exportARN is the ARN of export id of table, DynamoDB's form.
func (s *Server) exportARN(table, id string) string { return s.tableARN(table) + "/export/" + id }

// splitChildARN splits the ARN of a table's export or import (kind
// "export" or "import") into its parts; ok is false for anything else.
func splitChildARN(arn, kind string) (region, account, table, id string, ok bool) {
	head, id, found := strings.Cut(arn, "/"+kind+"/")
	if !found || id == "" || strings.Contains(id, "/") {
		return "", "", "", "", false
	}
	region, account, table, ok = splitTableARN(head)
	return region, account, table, id, ok
}

// childOf resolves an ExportArn or ImportArn member: the caller's own ARN
// names (table, id); another account's or region's is refused as a table
// ARN is; anything else is not found.
func childOf(c *call, kind, field string, arn *string, notFound errType) (table, id string, err error) {
	if arn == nil {
		return "", "", missing(field)
	}
	if len(*arn) < 37 || len(*arn) > 1024 {
		var cs constraints
		v := *arn
		if len(v) < 37 {
			cs.add(field, &v, "Member must have length greater than or equal to 37")
		} else {
			cs.add(field, nil, "Member must have length less than or equal to 1024")
		}
		return "", "", cs.err()
	}
	region, account, table, id, ok := splitChildARN(*arn, kind)
	if !ok {
		return "", "", &apiError{typ: notFound, msg: strings.ToUpper(kind[:1]) + kind[1:] + " not found: " + *arn}
	}
	if err := checkARNOwner(c, *arn, region, account); err != nil {
		return "", "", err
	}
	return table, id, nil
}

// childResource is the resource of an export or import ARN for the
// checks: the caller's ARN in its canonical form, or the text itself when
// it names none (the request then fails as childOf refuses it).
func (s *Server) childResource(c *call, kind string, arn *string) (string, error) {
	if arn == nil {
		return "", nil
	}
	region, account, table, id, ok := splitChildARN(*arn, kind)
	if !ok {
		return *arn, nil
	}
	if err := checkARNOwner(c, *arn, region, account); err != nil {
		return "", err
	}
	return s.tableARN(table) + "/" + kind + "/" + id, nil
}

// ExportTableToPointInTime.

type incrementalExportSpecification struct {
	ExportFromTime *float64 `json:",omitempty"`
	ExportToTime   *float64 `json:",omitempty"`
	ExportViewType string   `json:",omitempty"`
}

type exportTableInput struct {
	TableArn                       *string
	ExportTime                     *float64
	ClientToken                    *string
	S3Bucket                       *string
	S3BucketOwner                  *string
	S3Prefix                       *string
	S3SseAlgorithm                 string
	S3SseKmsKeyId                  *string
	ExportFormat                   string
	ExportType                     string
	IncrementalExportSpecification *incrementalExportSpecification
}

// table resolves TableArn: the caller's own table ARN.
func (in *exportTableInput) table(c *call) (string, error) {
	if in.TableArn == nil {
		return "", missing("tableArn")
	}
	region, account, name, ok := splitTableARN(*in.TableArn)
	if !ok {
		return "", validation("Invalid TableArn: " + *in.TableArn)
	}
	if err := checkARNOwner(c, *in.TableArn, region, account); err != nil {
		return "", err
	}
	c.table = name
	return name, nil
}

func (in *exportTableInput) prepare(c *call) (string, error) {
	var v constraints
	if in.S3Bucket == nil {
		v.add("s3Bucket", nil, "Member must not be null")
	}
	v.enum("exportFormat", in.ExportFormat, "DYNAMODB_JSON", "ION")
	v.enum("exportType", in.ExportType, "FULL_EXPORT", "INCREMENTAL_EXPORT")
	v.enum("s3SseAlgorithm", in.S3SseAlgorithm, "AES256", "KMS")
	if spec := in.IncrementalExportSpecification; spec != nil {
		v.enum("incrementalExportSpecification.exportViewType", spec.ExportViewType, "NEW_IMAGE", "NEW_AND_OLD_IMAGES")
	}
	if t := in.ClientToken; t != nil && (*t == "" || strings.Contains(*t, "$")) {
		v.add("clientToken", t, "Member must satisfy regular expression pattern: ^[^\\$]+$")
	}
	if err := v.err(); err != nil {
		return "", err
	}
	if err := checkBucket(c, &v, "s3Bucket", *in.S3Bucket, in.S3BucketOwner, "s3Prefix", in.S3Prefix); err != nil {
		return "", err
	}
	if _, err := in.table(c); err != nil {
		return "", err
	}
	switch {
	case in.ExportType == "INCREMENTAL_EXPORT" && in.ExportTime != nil:
		return "", validation("ExportTime is not allowed for an INCREMENTAL_EXPORT; use IncrementalExportSpecification")
	case in.ExportType == "INCREMENTAL_EXPORT" && (in.IncrementalExportSpecification == nil || in.IncrementalExportSpecification.ExportFromTime == nil):
		return "", validation("IncrementalExportSpecification.ExportFromTime must be given for an INCREMENTAL_EXPORT")
	case in.ExportType != "INCREMENTAL_EXPORT" && in.IncrementalExportSpecification != nil:
		return "", validation("IncrementalExportSpecification is only allowed for an INCREMENTAL_EXPORT")
	}
	return "", nil
}

type exportDescription struct {
	ExportArn                      string
	ExportStatus                   string
	StartTime                      *float64
	EndTime                        *float64 `json:",omitempty"`
	ExportManifest                 string   `json:",omitempty"`
	TableArn                       string
	TableId                        string
	ExportTime                     *float64 `json:",omitempty"`
	ClientToken                    string   `json:",omitempty"`
	S3Bucket                       string
	S3BucketOwner                  string `json:",omitempty"`
	S3Prefix                       string `json:",omitempty"`
	S3SseAlgorithm                 string `json:",omitempty"`
	S3SseKmsKeyId                  string `json:",omitempty"`
	FailureCode                    string `json:",omitempty"`
	FailureMessage                 string `json:",omitempty"`
	ExportFormat                   string
	BilledSizeBytes                *int64 `json:",omitempty"`
	ItemCount                      *int64 `json:",omitempty"`
	ExportType                     string
	IncrementalExportSpecification *incrementalExportSpecification `json:",omitempty"`
}

type exportOutput struct {
	ExportDescription exportDescription
}

func optTime(t time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	return epochSeconds(t)
}

// exported is the wire form of d.
func (s *Server) exported(d *fdyno.ExportDescription) exportDescription {
	out := exportDescription{ExportArn: s.exportARN(d.TableName, d.ExportID), ExportStatus: string(d.ExportStatus), StartTime: epochSeconds(d.StartTime),
		EndTime: optTime(d.EndTime), TableArn: s.tableARN(d.TableName), TableId: d.TableID, ExportTime: optTime(d.ExportTime),
		ClientToken: d.ClientToken, S3Bucket: d.S3Bucket, S3BucketOwner: d.S3BucketOwner, S3Prefix: d.S3Prefix, S3SseAlgorithm: d.S3SseAlgorithm,
		S3SseKmsKeyId: d.S3SseKmsKeyId, FailureCode: d.FailureCode, FailureMessage: d.FailureMessage, ExportFormat: string(d.ExportFormat),
		ExportType: string(d.ExportType)}
	if d.ExportStatus == fdyno.ExportStatusCompleted {
		out.ExportManifest = d.ExportManifest
		billed, items := d.BilledSizeBytes, d.ItemCount
		out.BilledSizeBytes, out.ItemCount = &billed, &items
	}
	if spec := d.IncrementalExportSpecification; spec != nil {
		out.IncrementalExportSpecification = &incrementalExportSpecification{ExportFromTime: optTime(spec.ExportFromTime),
			ExportToTime: optTime(spec.ExportToTime), ExportViewType: string(spec.ExportViewType)}
	}
	return out
}

func (s *Server) exportTableToPointInTime(c *call, in *exportTableInput, _ *fdyno.Table) (any, error) {
	name, err := in.table(c)
	if err != nil {
		return nil, err
	}
	if !s.hasBuckets() {
		return nil, validation(errExportsUnavailable)
	}
	t, err := s.backupTable(c, &name)
	if err != nil {
		return nil, err
	}
	// DynamoDB exports only from a table with point-in-time recovery.
	cb, err := t.DescribeContinuousBackups(s.db)
	if err != nil {
		return nil, backupError(err)
	}
	if cb.PointInTimeRecoveryStatus != "ENABLED" {
		return nil, &apiError{typ: errPITRUnavailable, msg: "Point in time recovery is not enabled for table '" + name + "'"}
	}
	q := fdyno.ExportTableToPointInTimeInput{TableName: name, TableArn: s.tableARN(name), S3Bucket: *in.S3Bucket,
		S3SseAlgorithm: in.S3SseAlgorithm, ExportFormat: fdyno.ExportFormat(in.ExportFormat), ExportType: fdyno.ExportType(in.ExportType)}
	for _, p := range []struct {
		dst *string
		src *string
	}{{&q.S3BucketOwner, in.S3BucketOwner}, {&q.S3Prefix, in.S3Prefix}, {&q.S3SseKmsKeyId, in.S3SseKmsKeyId}, {&q.ClientToken, in.ClientToken}} {
		if p.src != nil {
			*p.dst = *p.src
		}
	}
	if in.ExportTime != nil {
		q.ExportTime = epochTime(*in.ExportTime)
	}
	if spec := in.IncrementalExportSpecification; spec != nil {
		q.IncrementalExportSpecification.ExportViewType = fdyno.ExportViewType(spec.ExportViewType)
		q.IncrementalExportSpecification.ExportFromTime = epochTime(*spec.ExportFromTime)
		if spec.ExportToTime != nil {
			q.IncrementalExportSpecification.ExportToTime = epochTime(*spec.ExportToTime)
		}
	}
	d, err := fdyno.StartExport(s.db, q, s.tableOptions()...)
	if err != nil {
		return nil, transferError(err)
	}
	if d.ExportStatus == fdyno.ExportStatusInProgress {
		s.runExportInBackground(d.ExportID, d.S3Bucket)
	}
	return exportOutput{ExportDescription: s.exported(d)}, nil
}

// DescribeExport.

type describeExportInput struct {
	ExportArn *string
}

func (in *describeExportInput) prepare(c *call) (string, error) {
	_, _, err := childOf(c, "export", "exportArn", in.ExportArn, errExportNotFound)
	return "", err
}

func (s *Server) describeExport(c *call, in *describeExportInput, _ *fdyno.Table) (any, error) {
	table, id, err := childOf(c, "export", "exportArn", in.ExportArn, errExportNotFound)
	if err != nil {
		return nil, err
	}
	c.table = table
	d, err := fdyno.DescribeExport(s.db, id, s.tableOptions()...)
	if err == nil && d.TableName != table {
		err = &fdyno.ExportError{ID: id, Err: fdyno.ErrExportNotFound, Reason: "Export not found: " + *in.ExportArn}
	}
	if err != nil {
		return nil, transferError(err)
	}
	return exportOutput{ExportDescription: s.exported(d)}, nil
}

// ListExports.

type listExportsInput struct {
	TableArn   *string
	MaxResults *int
	NextToken  *string
}

// maxListExports is the bound of ListExports' MaxResults and of
// ListImports' PageSize.
const maxListExports = 25

// checkPage checks a page size member.
func checkPage(v *constraints, field string, n *int) {
	if n != nil && (*n < 1 || *n > maxListExports) {
		ns := strconv.Itoa(*n)
		if *n < 1 {
			v.add(field, &ns, "Member must have value greater than or equal to 1")
		} else {
			v.add(field, &ns, "Member must have value less than or equal to 25")
		}
	}
}

// listTable resolves the optional TableArn of a listing.
func listTable(c *call, arn *string) (string, error) {
	if arn == nil {
		return "", nil
	}
	region, account, name, ok := splitTableARN(*arn)
	if !ok {
		return "", validation("Invalid TableArn: " + *arn)
	}
	if err := checkARNOwner(c, *arn, region, account); err != nil {
		return "", err
	}
	c.table = name
	return name, nil
}

func (in *listExportsInput) prepare(c *call) (string, error) {
	var v constraints
	checkPage(&v, "maxResults", in.MaxResults)
	if err := v.err(); err != nil {
		return "", err
	}
	_, err := listTable(c, in.TableArn)
	return "", err
}

type exportSummary struct {
	ExportArn    string
	ExportStatus string
	ExportType   string
}

type listExportsOutput struct {
	ExportSummaries []exportSummary
	NextToken       string `json:",omitempty"`
}

func (s *Server) listExports(c *call, in *listExportsInput, _ *fdyno.Table) (any, error) {
	table, err := listTable(c, in.TableArn)
	if err != nil {
		return nil, err
	}
	q := fdyno.ListExportsInput{TableName: table, MaxResults: maxListExports}
	if in.MaxResults != nil {
		q.MaxResults = *in.MaxResults
	}
	if in.NextToken != nil {
		q.ExclusiveStartExportID = *in.NextToken
	}
	l, err := fdyno.ListExports(s.db, q, s.tableOptions()...)
	if err != nil {
		return nil, transferError(err)
	}
	out := listExportsOutput{ExportSummaries: make([]exportSummary, 0, len(l.ExportSummaries)), NextToken: l.LastEvaluatedExportID}
	for _, d := range l.ExportSummaries {
		out.ExportSummaries = append(out.ExportSummaries, exportSummary{ExportArn: s.exportARN(d.TableName, d.ExportID),
			ExportStatus: string(d.ExportStatus), ExportType: string(d.ExportType)})
	}
	return out, nil
}
