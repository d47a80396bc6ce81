package s3bucket

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/s3fake"
	gocmp "github.com/google/go-cmp/cmp"
)

const deniedKey = s3fake.DeniedKey

// fakeS3 starts an in-process S3 holding bucket "exports" and returns a
// client of it for key ID akid.
func fakeS3(t *testing.T) func(akid string) *s3.Client {
	t.Helper()
	url := s3fake.Start(t, "exports")
	return func(akid string) *s3.Client {
		c, err := NewClient(Config{Endpoint: url, AccessKeyID: akid, SecretAccessKey: "secret", PathStyle: true})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

var schema = fdyno.TableSchema{
	KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
	AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS}},
}

// An export written to S3 through a Bucket lies under its S3Prefix in
// DynamoDB's layout, its manifests' checksums are the objects' MD5s, and
// an import of it gives the table back.
func TestExportImportThroughS3(t *testing.T) {
	client := fakeS3(t)
	db := fdblitetest.Open(t)
	root := fdyno.WithRoot(fdblitetest.UniqueDirectory(t, db).GetPath()...)
	src, err := fdyno.Open(db, "Src", root, fdyno.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fdyno.Item{}
	for i := range 300 {
		it := fdyno.Item{"pk": fdyno.S("k" + strconv.Itoa(i)), "n": fdyno.NInt(int64(i)), "b": fdyno.B([]byte{byte(i)})}
		if _, err := src.Put(db, fdyno.PutInput{Item: it}); err != nil {
			t.Fatal(err)
		}
		want["k"+strconv.Itoa(i)] = it
	}
	b := &Bucket{Client: client("AKIDOK"), Name: "exports"}
	d, err := fdyno.ExportTableToPointInTime(db, fdyno.ExportTableToPointInTimeInput{TableName: "Src", S3Bucket: "exports", S3Prefix: "team/daily"}, b, root)
	if err != nil {
		t.Fatal(err)
	}
	if d.ExportStatus != fdyno.ExportStatusCompleted || d.ItemCount != 300 {
		t.Fatalf("export = %+v", d)
	}
	base := "team/daily/AWSDynamoDB/" + d.ExportID + "/"
	if d.ExportManifest != base+"manifest-summary.json" {
		t.Errorf("ExportManifest = %q, want %q", d.ExportManifest, base+"manifest-summary.json")
	}
	all, err := b.List("")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range all {
		if !strings.HasPrefix(k, base) {
			t.Errorf("object %q lies outside the export's prefix %q", k, base)
		}
	}
	read := func(key string) []byte {
		rc, err := b.Open(key)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		body, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	summary := read(d.ExportManifest)
	if sum := md5.Sum(summary); string(read(base+"manifest-summary.checksum")) != hex.EncodeToString(sum[:]) {
		t.Error("manifest-summary.checksum is not the summary's MD5")
	}
	var s struct {
		ManifestFilesS3Key string `json:"manifestFilesS3Key"`
		S3Bucket           string `json:"s3Bucket"`
		S3Prefix           string `json:"s3Prefix"`
		ItemCount          int    `json:"itemCount"`
	}
	if err := json.Unmarshal(summary, &s); err != nil {
		t.Fatal(err)
	}
	if s.S3Bucket != "exports" || s.S3Prefix != "team/daily" || s.ItemCount != 300 || s.ManifestFilesS3Key != base+"manifest-files.json" {
		t.Errorf("manifest-summary.json = %s", summary)
	}
	lines := 0
	for _, l := range bytes.Split(bytes.TrimSpace(read(s.ManifestFilesS3Key)), []byte("\n")) {
		var f struct {
			ItemCount     int    `json:"itemCount"`
			MD5Checksum   string `json:"md5Checksum"`
			DataFileS3Key string `json:"dataFileS3Key"`
		}
		if err := json.Unmarshal(l, &f); err != nil {
			t.Fatal(err)
		}
		data := read(f.DataFileS3Key)
		if sum := md5.Sum(data); f.MD5Checksum != base64.StdEncoding.EncodeToString(sum[:]) {
			t.Errorf("%s: md5Checksum is not the object's MD5", f.DataFileS3Key)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(plain, []byte("\n")); n != f.ItemCount {
			t.Errorf("%s: %d lines, manifest says %d", f.DataFileS3Key, n, f.ItemCount)
		}
		lines += f.ItemCount
	}
	if lines != 300 {
		t.Errorf("data files hold %d items, want 300", lines)
	}

	im, err := fdyno.ImportTable(db, fdyno.ImportTableInput{TableName: "Copy", Schema: schema, S3Bucket: "exports", S3KeyPrefix: base,
		InputFormat: fdyno.InputFormatDynamoDBJSON, InputCompressionType: fdyno.InputCompressionGzip}, b, nil, root)
	if err != nil {
		t.Fatal(err)
	}
	if im.ImportStatus != fdyno.ImportStatusCompleted || im.ImportedItemCount != 300 || im.ErrorCount != 0 {
		t.Fatalf("import = %+v", im)
	}
	cp, err := fdyno.Open(db, "Copy", root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]fdyno.Item{}
	for page, err := range cp.ScanPages(context.Background(), db, fdyno.ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			got[it["pk"].S()] = it
		}
	}
	if diff := gocmp.Diff(want, got, gocmp.Comparer(func(a, b fdyno.Value) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("imported table (-want +got):\n%s", diff)
	}
}

// A missing bucket is fdyno.ErrNoSuchBucket and a refused key
// fdyno.ErrAccessDenied, to exports (which end FAILED with DynamoDB's
// FailureCode) and imports alike.
func TestS3Errors(t *testing.T) {
	client := fakeS3(t)
	db := fdblitetest.Open(t)
	root := fdyno.WithRoot(fdblitetest.UniqueDirectory(t, db).GetPath()...)
	if _, err := fdyno.Open(db, "Src", root, fdyno.WithSchema(schema)); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		bucket *Bucket
		kind   error
		code   string
	}{
		{&Bucket{Client: client("AKIDOK"), Name: "missing"}, fdyno.ErrNoSuchBucket, "S3NoSuchBucket"},
		{&Bucket{Client: client(deniedKey), Name: "exports"}, fdyno.ErrAccessDenied, "S3AccessDenied"},
	} {
		d, err := fdyno.StartExport(db, fdyno.ExportTableToPointInTimeInput{TableName: "Src", S3Bucket: c.bucket.Name}, root)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fdyno.RunExport(db, d.ExportID, c.bucket, root); !errors.Is(err, c.kind) {
			t.Errorf("export to %s: %v, want %v", c.bucket.Name, err, c.kind)
		}
		if d, err := fdyno.DescribeExport(db, d.ExportID, root); err != nil || d.ExportStatus != fdyno.ExportStatusFailed || d.FailureCode != c.code {
			t.Errorf("export to %s: %+v, %v; want FAILED %s", c.bucket.Name, d, err, c.code)
		}
		name := "Dst" + strconv.Itoa(i)
		im, err := fdyno.StartImport(db, fdyno.ImportTableInput{TableName: name, Schema: schema, S3Bucket: c.bucket.Name,
			InputFormat: fdyno.InputFormatDynamoDBJSON, InputCompressionType: fdyno.InputCompressionNone}, root)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fdyno.RunImport(db, im.ImportID, c.bucket, nil, root); !errors.Is(err, c.kind) {
			t.Errorf("import from %s: %v, want %v", c.bucket.Name, err, c.kind)
		}
		if d, err := fdyno.DescribeImport(db, im.ImportID, root); err != nil || d.ImportStatus != fdyno.ImportStatusFailed || d.FailureCode != c.code {
			t.Errorf("import from %s: %+v, %v; want FAILED %s", c.bucket.Name, d, err, c.code)
		}
		if _, err := fdyno.Open(db, name, root); !errors.Is(err, fdyno.ErrResourceNotFound) {
			t.Errorf("the failed import's table is visible: %v", err)
		}
	}
	if _, err := (&Bucket{Client: client("AKIDOK"), Name: "exports"}).Open("absent"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing key: %v, want fs.ErrNotExist", err)
	}
}

// An object larger than a part goes up as a multipart upload and reads
// back whole; KeyPrefix keeps a Bucket's objects apart from another's
// in the same S3 bucket.
func TestBucketObjects(t *testing.T) {
	client := fakeS3(t)("AKIDOK")
	a := &Bucket{Client: client, Name: "exports", KeyPrefix: "111111111111/", PartSize: 5 << 20}
	other := &Bucket{Client: client, Name: "exports", KeyPrefix: "222222222222/"}
	body := make([]byte, 11<<20+123)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range body {
		body[i] = byte(r.Uint32())
	}
	for _, o := range []struct {
		b    *Bucket
		key  string
		body []byte
	}{{a, "x/big", body}, {a, "x/small", []byte("small")}, {a, "y", nil}, {other, "x/theirs", []byte("theirs")}} {
		w, err := o.b.Create(o.key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(o.body); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", o.key, err)
		}
	}
	keys, err := a.List("x/")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x/big", "x/small"}; !slices.Equal(keys, want) {
		t.Errorf("List(x/) = %q, want %q", keys, want)
	}
	rc, err := a.Open("x/big")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("x/big read back %d bytes (%v), want the %d written", len(got), err, len(body))
	}
	if _, err := a.Open("x/theirs"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("another prefix's object: %v, want fs.ErrNotExist", err)
	}
	raw, err := client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("exports"), Key: aws.String("111111111111/x/small")})
	if err != nil {
		t.Fatalf("the object is not at KeyPrefix+key: %v", err)
	}
	raw.Body.Close()
}

// countingLists counts an API's ListObjectsV2 calls.
type countingLists struct {
	API
	calls int
}

func (c *countingLists) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	c.calls++
	return c.API.ListObjectsV2(ctx, in, opts...)
}

// List follows S3's pages (at most 1,000 keys each): every key of the
// prefix, in order, none of another prefix.
func TestListPages(t *testing.T) {
	client := fakeS3(t)("AKIDOK")
	const n = 2345
	var want []string
	for i := range n {
		key := fmt.Sprintf("p/%05d", i)
		want = append(want, key)
		if _, err := client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("exports"),
			Key: aws.String("111111111111/" + key), Body: bytes.NewReader(nil)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"111111111111/q", "111111111111/p", "222222222222/p/00001"} {
		if _, err := client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("exports"), Key: aws.String(key), Body: bytes.NewReader(nil)}); err != nil {
			t.Fatal(err)
		}
	}
	lists := &countingLists{API: client}
	b := &Bucket{Client: lists, Name: "exports", KeyPrefix: "111111111111/"}
	got, err := b.List("p/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("List(p/) (-want +got):\n%s", diff)
	}
	if lists.calls != 3 {
		t.Errorf("List(p/) of %d keys made %d ListObjectsV2 calls, want 3 (pages of 1,000)", n, lists.calls)
	}
}
