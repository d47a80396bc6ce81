package fdyno

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
)

// exportT is what the export tests need of a *testing.T or *rapid.T.
type exportT interface {
	fataler
	Errorf(format string, args ...any)
}

// exportedFiles reads an export written to dir the way a reader of
// DynamoDB's documented layout does: manifest-summary.json, the
// manifest-files.json it names, each data file it lists (checking its
// md5Checksum and itemCount), and returns the summary and every data
// line, each decoded as generic JSON.
func exportedFiles(t exportT, dir string, d *ExportDescription) (map[string]any, []map[string]any) {
	t.Helper()
	read := func(key string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	base := strings.TrimSuffix(d.ExportManifest, "manifest-summary.json")
	if got := read(base + "_started"); len(got) != 0 {
		t.Errorf("_started holds %d bytes, want an empty file", len(got))
	}
	raw := read(d.ExportManifest)
	var summary map[string]any
	if err := json.Unmarshal(raw, &summary); err != nil {
		t.Fatalf("manifest-summary.json: %v", err)
	}
	if sum := md5.Sum(raw); string(read(base+"manifest-summary.checksum")) != hex.EncodeToString(sum[:]) {
		t.Errorf("manifest-summary.checksum is not the summary's MD5")
	}
	files := read(summary["manifestFilesS3Key"].(string))
	var lines []map[string]any
	total := 0.0
	for _, fl := range bytes.Split(bytes.TrimSpace(files), []byte("\n")) {
		var f struct {
			ItemCount     float64 `json:"itemCount"`
			MD5Checksum   string  `json:"md5Checksum"`
			ETag          string  `json:"etag"`
			DataFileS3Key string  `json:"dataFileS3Key"`
		}
		if err := json.Unmarshal(fl, &f); err != nil {
			t.Fatalf("manifest-files.json line %q: %v", fl, err)
		}
		data := read(f.DataFileS3Key)
		sum := md5.Sum(data)
		if f.MD5Checksum != base64.StdEncoding.EncodeToString(sum[:]) {
			t.Errorf("%s: md5Checksum %s is not the file's MD5", f.DataFileS3Key, f.MD5Checksum)
		}
		if !strings.HasSuffix(f.ETag, "-1") || len(f.ETag) != 34 {
			t.Errorf("%s: etag %q is not a one-part multipart ETag", f.DataFileS3Key, f.ETag)
		}
		if !strings.HasPrefix(f.DataFileS3Key, base+"data/") {
			t.Errorf("data file %s is not under %sdata/", f.DataFileS3Key, base)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		n := 0.0
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			var l map[string]any
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("data line %q: %v", sc.Bytes(), err)
			}
			lines = append(lines, l)
			n++
		}
		if n != f.ItemCount {
			t.Errorf("%s holds %v lines, its itemCount is %v", f.DataFileS3Key, n, f.ItemCount)
		}
		total += n
	}
	if total != summary["itemCount"] {
		t.Errorf("the data files hold %v lines, the summary's itemCount is %v", total, summary["itemCount"])
	}
	return summary, lines
}

// jsonOf decodes JSON text written by hand in a test.
func jsonOf(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

// A full export "now" writes DynamoDB's documented layout: the summary
// (version 2020-06-30, the counts, DYNAMODB_JSON), the files manifest
// with each file's MD5, and one {"Item": …} line per item in DynamoDB's
// marshalled JSON. The expected lines are written by hand.
func TestExportFull(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, backupSchema)
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": NInt(1), "tags": SS("x", "y"), "b": B([]byte("hi")), "ok": Bool(true),
		"n": Null(), "m": M(Item{"k": L(NInt(1), S("two"))}), "ns": NS("2.5", "10"), "bs": BS([]byte{0, 1})})
	mustPut(t, db, tbl, Item{"pk": S("b"), "sk": NInt(-2), "g": S("G")})
	dir := t.TempDir()
	d, err := ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: "Test", TableArn: "arn:aws:dynamodb:us-east-1:123456789012:table/Test",
		S3Bucket: "bucket", S3Prefix: "2026-Jan"}, DirBucket{dir}, testRootOf(tbl))
	if err != nil {
		t.Fatal(err)
	}
	if d.ExportStatus != ExportStatusCompleted || d.ItemCount != 2 || d.Version == 0 || d.ExportFormat != ExportFormatDynamoDBJSON || d.ExportType != ExportTypeFull {
		t.Errorf("ExportTableToPointInTime = %+v", d)
	}
	if want := "2026-Jan/AWSDynamoDB/" + d.ExportID + "/manifest-summary.json"; d.ExportManifest != want {
		t.Errorf("ExportManifest = %q, want %q", d.ExportManifest, want)
	}
	if len(d.ExportID) != 23 || d.ExportID[14] != '-' {
		t.Errorf("ExportID %q is not of DynamoDB's form 01234567890123-a1b2c3d4", d.ExportID)
	}
	summary, lines := exportedFiles(t, dir, d)
	for k, want := range map[string]any{"version": "2020-06-30", "itemCount": 2.0, "outputFormat": "DYNAMODB_JSON", "s3Bucket": "bucket",
		"s3Prefix": "2026-Jan", "tableArn": "arn:aws:dynamodb:us-east-1:123456789012:table/Test",
		"exportArn": "arn:aws:dynamodb:us-east-1:123456789012:table/Test/export/" + d.ExportID, "s3SseKmsKeyId": nil} {
		if got, ok := summary[k]; !ok || !gocmp.Equal(got, want) {
			t.Errorf("manifest-summary.json %s = %v, want %v", k, got, want)
		}
	}
	want := []map[string]any{
		jsonOf(t, `{"Item":{"pk":{"S":"a"},"sk":{"N":"1"},"tags":{"SS":["x","y"]},"b":{"B":"aGk="},"ok":{"BOOL":true},"n":{"NULL":true},
			"m":{"M":{"k":{"L":[{"N":"1"},{"S":"two"}]}}},"ns":{"NS":["2.5","10"]},"bs":{"BS":["AAE="]}}}`),
		jsonOf(t, `{"Item":{"pk":{"S":"b"},"sk":{"N":"-2"},"g":{"S":"G"}}}`),
	}
	if diff := gocmp.Diff(want, lines); diff != "" {
		t.Errorf("exported lines (-want +got):\n%s", diff)
	}
	got, err := DescribeExport(db, d.ExportID, testRootOf(tbl))
	if err != nil || !gocmp.Equal(got, d) {
		t.Errorf("DescribeExport = %+v, %v; want %+v", got, err, d)
	}
	// The snapshot is gone and was never a backup anyone could list.
	l, err := ListBackups(db, ListBackupsInput{BackupType: "ALL"}, testRootOf(tbl))
	if err != nil || len(l.BackupSummaries) != 0 {
		t.Errorf("ListBackups(ALL) = %+v, %v; want none", l, err)
	}
}

// An empty table exports one empty data file, as DynamoDB's empty
// partition.
func TestExportEmptyTable(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashOnly)
	dir := t.TempDir()
	d, err := ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b"}, DirBucket{dir}, testRootOf(tbl))
	if err != nil {
		t.Fatal(err)
	}
	summary, lines := exportedFiles(t, dir, d)
	if summary["itemCount"] != 0.0 || len(lines) != 0 {
		t.Errorf("empty export: summary %v, lines %v", summary, lines)
	}
}

// An ION export writes DynamoDB's documented Ion text: a version marker
// and the item per line, sets annotated $dynamodb_SS/NS/BS, numbers as
// decimals (the documentation's PageCount:6d2 and Price:2d3 are the
// decimals 600. and 2000. with another precision), blobs as {{base64}}.
func TestExportIon(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, booksSchema)
	mustPut(t, db, tbl, books["103"])
	mustPut(t, db, tbl, Item{"Id": NInt(1), "b": B([]byte("hi")), "n": Null(), "l": L(N("1.5"), N("-0.25")), "ns": NS("1", "2"),
		"bs": BS([]byte{1}), "m": M(Item{"a b": S("q\"\n")})})
	dir := t.TempDir()
	d, err := ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", ExportFormat: ExportFormatIon}, DirBucket{dir}, testRootOf(tbl))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(d.ExportManifest)))
	if err != nil {
		t.Fatal(err)
	}
	var summary manifestSummary
	if err := json.Unmarshal(raw, &summary); err != nil || summary.OutputFormat != "ION" {
		t.Fatalf("summary %s: %v", raw, err)
	}
	files, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(summary.ManifestFilesS3Key)))
	if err != nil {
		t.Fatal(err)
	}
	var f manifestFile
	if err := json.Unmarshal(bytes.TrimSpace(files), &f); err != nil || !strings.HasSuffix(f.DataFileS3Key, ".ion.gz") {
		t.Fatalf("manifest-files.json %s: %v", files, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.DataFileS3Key)))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(zr)
	want := `$ion_1_0 {Item:{Id:1.,b:{{aGk=}},bs:$dynamodb_BS::[{{AQ==}}],l:[1.5,-0.25],m:{"a b":"q\"\n"},n:null,ns:$dynamodb_NS::[1.,2.]}}` + "\n" +
		`$ion_1_0 {Item:{Authors:$dynamodb_SS::["Author1","Author2"],Dimensions:"8.5 x 11.0 x 1.5",ISBN:"333-3333333333",Id:103.,InPublication:false,PageCount:600.,Price:2000.,ProductCategory:"Book",Title:"Book 103 Title"}}` + "\n"
	if diff := gocmp.Diff(want, string(text)); diff != "" {
		t.Errorf("ION lines (-want +got):\n%s", diff)
	}
}

// The errors of ExportTableToPointInTime, as DynamoDB names them.
func TestExportErrors(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, booksSchema)
	root := testRootOf(tbl)
	mustPut(t, db, tbl, books["101"])
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		in   ExportTableToPointInTimeInput
		want error
	}{
		{"no bucket", ExportTableToPointInTimeInput{TableName: "Test"}, ErrValidation},
		{"bad format", ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", ExportFormat: "CSV"}, ErrValidation},
		{"missing table", ExportTableToPointInTimeInput{TableName: "Nope", S3Bucket: "b"}, ErrResourceNotFound},
		{"time without recovery", ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", ExportTime: time.Now()}, ErrPointInTimeRecoveryUnavailable},
		{"incremental without recovery", ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", ExportType: ExportTypeIncremental,
			IncrementalExportSpecification: IncrementalExportSpecification{ExportFromTime: time.Now().Add(-time.Hour)}}, ErrPointInTimeRecoveryUnavailable},
		{"incremental without a start", ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", ExportType: ExportTypeIncremental}, ErrValidation},
		{"window over 24 hours", ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", ExportType: ExportTypeIncremental,
			IncrementalExportSpecification: IncrementalExportSpecification{ExportFromTime: time.Now().Add(-48 * time.Hour), ExportToTime: time.Now()}}, ErrValidation},
		{"spec on a full export", ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b",
			IncrementalExportSpecification: IncrementalExportSpecification{ExportFromVersion: 1}}, ErrValidation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ExportTableToPointInTime(db, tc.in, DirBucket{dir}, root); !errors.Is(err, tc.want) {
				t.Errorf("ExportTableToPointInTime: %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := tbl.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{time.Now().Add(-time.Hour), time.Now().Add(time.Hour)} {
		if _, err := StartExport(db, ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", ExportTime: at}, root); !errors.Is(err, ErrInvalidExportTime) {
			t.Errorf("export at %v: %v, want ErrInvalidExportTime", at, err)
		}
	}
	// A ClientToken names one export: the same request gets it again,
	// another request is ExportConflictException.
	in := ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", ClientToken: "tok"}
	d1, err := StartExport(db, in, root)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := StartExport(db, in, root)
	if err != nil || d2.ExportID != d1.ExportID {
		t.Errorf("the same token and request: %+v, %v; want export %s", d2, err, d1.ExportID)
	}
	in.S3Prefix = "other"
	if _, err := StartExport(db, in, root); !errors.Is(err, ErrExportConflict) {
		t.Errorf("the same token, another request: %v, want ErrExportConflict", err)
	}
	if _, err := DescribeExport(db, "00000000000000-00000000", root); !errors.Is(err, ErrExportNotFound) {
		t.Errorf("DescribeExport of no export: %v", err)
	}
	// The export runs once; a missing bucket fails it.
	if _, err := RunExport(db, d1.ExportID, DirBucket{filepath.Join(dir, "missing")}, root); !errors.Is(err, ErrNoSuchBucket) {
		t.Errorf("RunExport into a missing bucket: %v", err)
	}
	d, err := DescribeExport(db, d1.ExportID, root)
	if err != nil || d.ExportStatus != ExportStatusFailed || d.FailureCode != "S3NoSuchBucket" {
		t.Errorf("DescribeExport = %+v, %v", d, err)
	}
	if _, err := ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b"}, DirBucket{dir}, root); err != nil {
		t.Fatal(err)
	}
	l, err := ListExports(db, ListExportsInput{TableName: "Test", MaxResults: 1}, root)
	if err != nil || len(l.ExportSummaries) != 1 || l.LastEvaluatedExportID == "" {
		t.Fatalf("ListExports = %+v, %v", l, err)
	}
	l2, err := ListExports(db, ListExportsInput{ExclusiveStartExportID: l.LastEvaluatedExportID}, root)
	if err != nil || l2.LastEvaluatedExportID != "" || len(l2.ExportSummaries) != 1 || l2.ExportSummaries[0].ExportStatus != ExportStatusCompleted {
		t.Errorf("ListExports page 2 = %+v, %v", l2, err)
	}
}
