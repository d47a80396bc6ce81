package fdyno

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
)

// booksSchema is the ProductCatalog table of DynamoDB's export and import
// format pages: partition key Id (N).
var booksSchema = TableSchema{
	KeySchema:            []KeySchemaElement{{"Id", KeyTypeHash}},
	AttributeDefinitions: []AttributeDefinition{{"Id", ScalarAttributeTypeN}},
}

// The items of testdata/import/books/data.json, the item of DynamoDB's
// "Amazon S3 import formats" page and one more, written by hand.
var books = map[string]Item{
	"103": {"Authors": SS("Author1", "Author2"), "Dimensions": S("8.5 x 11.0 x 1.5"), "ISBN": S("333-3333333333"), "Id": NInt(103),
		"InPublication": Bool(false), "PageCount": NInt(600), "Price": NInt(2000), "ProductCategory": S("Book"), "Title": S("Book 103 Title")},
	"101": {"Id": NInt(101), "Title": S("Book 101 Title"), "ISBN": S("111-1111111111"), "Authors": SS("Author1"), "Price": NInt(2),
		"Dimensions": S("8.5 x 11.0 x 0.5"), "PageCount": NInt(500), "InPublication": Bool(true), "ProductCategory": S("Book")},
}

// itemsBy returns every item of tbl by the text of attribute key.
func itemsBy(t testing.TB, tbl *Table, db fdb.Database, key string) map[string]Item {
	t.Helper()
	out := map[string]Item{}
	for it, err := range tbl.ScanAll(t.Context(), db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		v := it[key]
		s := v.S()
		if v.Type() == TypeN {
			s = v.N()
		}
		out[s] = it
	}
	return out
}

// fixtureBucket copies testdata/import into a temporary bucket, adding
// gzip and zstd copies of each object under gzip/ and zstd/.
func fixtureBucket(t testing.TB) DirBucket {
	t.Helper()
	dir := t.TempDir()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir("testdata/import", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata/import", p)
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		_, _ = w.Write(raw)
		_ = w.Close()
		for sub, b := range map[string][]byte{"": raw, "gzip": gz.Bytes(), "zstd": zw.EncodeAll(raw, nil)} {
			dst := filepath.Join(dir, sub, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return DirBucket{dir}
}

// Imports of files written by hand from DynamoDB's documentation, in
// each compression: the items, counts and statuses DynamoDB documents.
func TestImportFixtures(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	bucket := fixtureBucket(t)
	for _, comp := range []struct {
		dir string
		typ InputCompressionType
	}{{"", InputCompressionNone}, {"gzip/", InputCompressionGzip}, {"zstd/", InputCompressionZstd}} {
		t.Run("books/"+string(comp.typ), func(t *testing.T) {
			name := "Books" + string(comp.typ)
			d, err := ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: comp.dir + "books/", InputFormat: InputFormatDynamoDBJSON,
				InputCompressionType: comp.typ, TableName: name, Schema: booksSchema}, bucket, nil, root)
			if err != nil {
				t.Fatal(err)
			}
			if d.ImportStatus != ImportStatusCompleted || d.ProcessedItemCount != 2 || d.ImportedItemCount != 2 || d.ErrorCount != 0 || d.ProcessedSizeBytes == 0 {
				t.Errorf("ImportTable = %+v", d)
			}
			tbl := mustOpen(t, db, name, root)
			if diff := gocmp.Diff(books, itemsBy(t, tbl, db, "Id"), itemCmp); diff != "" {
				t.Errorf("imported items (-want +got):\n%s", diff)
			}
			for _, p := range tableProblems(db, tbl) {
				t.Error(p)
			}
		})
		t.Run("mixed/"+string(comp.typ), func(t *testing.T) {
			name := "Mixed" + string(comp.typ)
			var log bytes.Buffer
			d, err := ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: comp.dir + "mixed/", InputFormat: InputFormatDynamoDBJSON,
				InputCompressionType: comp.typ, TableName: name, Schema: booksSchema}, bucket, &log, root)
			if err != nil {
				t.Fatal(err)
			}
			// Nine lines (the blank one is none): six are no items, and the
			// two items with key 1 overwrite each other, as DynamoDB's.
			if d.ImportStatus != ImportStatusFailed || d.FailureCode != "ItemValidationError" || d.ProcessedItemCount != 9 ||
				d.ImportedItemCount != 3 || d.ErrorCount != 6 {
				t.Errorf("ImportTable = %+v", d)
			}
			tbl := mustOpen(t, db, name, root)
			want := map[string]Item{"1": {"Id": NInt(1), "v": S("one again")}, "5": {"Id": NInt(5), "list": L(M(Item{"a": NS("1.5", "2")}))}}
			if diff := gocmp.Diff(want, itemsBy(t, tbl, db, "Id"), itemCmp); diff != "" {
				t.Errorf("imported items (-want +got):\n%s", diff)
			}
			logged := strings.Split(strings.TrimSpace(log.String()), "\n")
			if len(logged) != 6 || !strings.Contains(log.String(), "Missing the key Id in the item") {
				t.Errorf("error log:\n%s", log.String())
			}
			for _, l := range logged {
				var rec struct {
					ItemS3Pointer map[string]any
					ErrorMessages []string
				}
				if err := json.Unmarshal([]byte(l), &rec); err != nil || len(rec.ErrorMessages) != 1 || rec.ItemS3Pointer["bucket"] != "b" {
					t.Errorf("error log line %s: %v", l, err)
				}
			}
		})
		t.Run("csv/"+string(comp.typ), func(t *testing.T) {
			name := "Albums" + string(comp.typ)
			schema := TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}}, AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}}}
			d, err := ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: comp.dir + "albums/", InputFormat: InputFormatCSV,
				InputCompressionType: comp.typ, TableName: name, Schema: schema}, bucket, nil, root)
			if err != nil || d.ImportStatus != ImportStatusCompleted || d.ImportedItemCount != 1 {
				t.Fatalf("ImportTable = %+v, %v", d, err)
			}
			// Every column but the keys is a string.
			want := map[string]Item{"Albums::Rock::Classic::1973::AlbumId::ALB25": {"pk": S("Albums::Rock::Classic::1973::AlbumId::ALB25"),
				"title": S("The Dark Side of the Moon"), "artist": S("Pink Floyd"), "year_of_release": S("1973")}}
			if diff := gocmp.Diff(want, itemsBy(t, mustOpen(t, db, name, root), db, "pk"), itemCmp); diff != "" {
				t.Errorf("imported items (-want +got):\n%s", diff)
			}
		})
		t.Run("csv-missing-key/"+string(comp.typ), func(t *testing.T) {
			// DynamoDB's troubleshooting example: the key column pk is
			// missing; the import fails with ItemValidationError and the
			// table exists, empty.
			name := "NoKey" + string(comp.typ)
			schema := TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}}, AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}}}
			var log bytes.Buffer
			d, err := ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: comp.dir + "nokey/", InputFormat: InputFormatCSV,
				InputCompressionType: comp.typ, TableName: name, Schema: schema}, bucket, &log, root)
			if err != nil || d.ImportStatus != ImportStatusFailed || d.ErrorCount != 1 || d.ProcessedItemCount != 1 || d.ImportedItemCount != 0 {
				t.Fatalf("ImportTable = %+v, %v", d, err)
			}
			if !strings.Contains(log.String(), "One or more parameter values were invalid: Missing the key pk in the item") {
				t.Errorf("error log: %s", log.String())
			}
			if got := itemsBy(t, mustOpen(t, db, name, root), db, "pk"); len(got) != 0 {
				t.Errorf("table holds %v", got)
			}
		})
	}
	// A target that exists is DynamoDB's ResourceInUseException, and an
	// import whose bucket does not exist fails without a table.
	_, err := ImportTable(db, ImportTableInput{S3Bucket: "b", InputFormat: InputFormatDynamoDBJSON, TableName: "BooksNONE", Schema: booksSchema}, bucket, nil, root)
	if !errors.Is(err, ErrResourceInUse) {
		t.Errorf("import into an existing table: %v, want ErrResourceInUse", err)
	}
	d, err := StartImport(db, ImportTableInput{S3Bucket: "nope", InputFormat: InputFormatDynamoDBJSON, TableName: "Nowhere", Schema: booksSchema}, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RunImport(db, d.ImportID, DirBucket{filepath.Join(t.TempDir(), "nope")}, nil, root); !errors.Is(err, ErrNoSuchBucket) {
		t.Errorf("RunImport from a missing bucket: %v", err)
	}
	if d, err := DescribeImport(db, d.ImportID, root); err != nil || d.ImportStatus != ImportStatusFailed || d.FailureCode != "S3NoSuchBucket" {
		t.Errorf("DescribeImport = %+v, %v", d, err)
	}
	if _, err := Open(db, "Nowhere", root); !errors.Is(err, ErrResourceNotFound) {
		t.Errorf("Open of a failed import's table: %v, want ErrResourceNotFound", err)
	}
	tables, err := ListTables(db, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range tables {
		if strings.HasPrefix(n, "!") {
			t.Errorf("ListTables shows %q", n)
		}
	}
}

// A prefix holding two exports imports the files both manifests list
// (an item in both overwrites itself), checked against their MD5s; a
// data file changed after its export is one error and is skipped.
func TestImportExportsUnderOnePrefix(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, booksSchema)
	root := testRootOf(tbl)
	bucket := DirBucket{t.TempDir()}
	mustPut(t, db, tbl, books["101"])
	first, err := ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", S3Prefix: "p"}, bucket, root)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, tbl, books["103"])
	if _, err := ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: "Test", S3Bucket: "b", S3Prefix: "p"}, bucket, root); err != nil {
		t.Fatal(err)
	}
	d, err := ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: "p/", InputFormat: InputFormatDynamoDBJSON,
		InputCompressionType: InputCompressionGzip, TableName: "Both", Schema: booksSchema}, bucket, nil, root)
	if err != nil || d.ImportStatus != ImportStatusCompleted || d.ProcessedItemCount != 3 || d.ImportedItemCount != 3 {
		t.Fatalf("ImportTable = %+v, %v", d, err)
	}
	if diff := gocmp.Diff(books, itemsBy(t, mustOpen(t, db, "Both", root), db, "Id"), itemCmp); diff != "" {
		t.Errorf("imported (-want +got):\n%s", diff)
	}
	// Change the first export's data file: its checksum no longer holds.
	files, err := filepath.Glob(filepath.Join(bucket.Dir, "p", "AWSDynamoDB", first.ExportID, "data", "*.json.gz"))
	if err != nil || len(files) != 1 {
		t.Fatalf("data files %v, %v", files, err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte(`{"Item":{"Id":{"N":"666"}}}` + "\n"))
	_ = w.Close()
	if err := os.WriteFile(files[0], gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	d, err = ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: "p/AWSDynamoDB/" + first.ExportID + "/", InputFormat: InputFormatDynamoDBJSON,
		InputCompressionType: InputCompressionGzip, TableName: "Tampered", Schema: booksSchema}, bucket, &log, root)
	if err != nil || d.ImportStatus != ImportStatusFailed || d.ErrorCount != 1 || d.ImportedItemCount != 0 || !strings.Contains(log.String(), "md5Checksum") {
		t.Fatalf("import of a changed file: %+v, %v, log %s", d, err, log.String())
	}
}
