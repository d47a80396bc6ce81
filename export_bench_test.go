package fdyno

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// BenchmarkExport measures, on a table of 100,000 items of 1 KB, a full
// export "now" (a backup taken with the log, then its items written as
// gzip-compressed DYNAMODB_JSON), a full export at a version through
// point-in-time recovery, and an import of the export's files, beside the
// raw floor: a range read of the same rows in transactions of the same
// size, alone and with their values gzip-compressed. Each reports
// items/s.
func BenchmarkExport(b *testing.B) {
	const n = 100_000
	db := fdblitetest.Open(b)
	root := testRoot(b, db)
	src := mustOpen(b, db, "BenchExport", root, WithSchema(hashOnly))
	loadKB(b, db, src, n)
	if _, err := src.UpdateContinuousBackups(db, true, 1); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	perItem := func(b *testing.B) {
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	}
	var last *ExportDescription
	export := func(in ExportTableToPointInTimeInput) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				d, err := ExportTableToPointInTime(db, in, DirBucket{dir}, root)
				if err != nil {
					b.Fatal(err)
				}
				if d.ItemCount != n {
					b.Fatalf("exported %d items, want %d", d.ItemCount, n)
				}
				last = d
			}
			perItem(b)
		}
	}
	b.Run("export-now", export(ExportTableToPointInTimeInput{TableName: "BenchExport", S3Bucket: "b"}))
	v, err := ReadTransact(db, func(tr fdb.ReadTransaction) (int64, error) { return tr.GetReadVersion().Get() })
	if err != nil {
		b.Fatal(err)
	}
	b.Run("export-at-version", export(ExportTableToPointInTimeInput{TableName: "BenchExport", S3Bucket: "b", Version: v}))
	r := 0
	b.Run("import", func(b *testing.B) {
		for b.Loop() {
			r++
			name := "BenchImport" + strconv.Itoa(r)
			d, err := ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: exportBase("", last.ExportID), InputFormat: InputFormatDynamoDBJSON,
				InputCompressionType: InputCompressionGzip, TableName: name, Schema: hashOnly}, DirBucket{dir}, nil, root)
			if err != nil || d.ImportedItemCount != n {
				b.Fatalf("import: %+v, %v", d, err)
			}
			b.StopTimer()
			if err := DeleteTable(db, name, root); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		perItem(b)
	})
	st := src.state.Load()
	rawRead := func(w io.Writer) error {
		begin, end := st.keys.items.FDBRangeKeys()
		for {
			rows, err := ReadTransact(db, func(tr fdb.ReadTransaction) ([]fdb.KeyValue, error) {
				return tr.Snapshot().GetRange(fdb.KeyRange{Begin: begin, End: end}, fdb.RangeOptions{Limit: exportReadItems}).GetSliceWithError()
			})
			if err != nil {
				return err
			}
			for _, row := range rows {
				if _, err := w.Write(row.Value); err != nil {
					return err
				}
			}
			if len(rows) < exportReadItems {
				return nil
			}
			begin = fdb.Key(append(rows[len(rows)-1].Key, 0x00))
		}
	}
	b.Run("raw-range", func(b *testing.B) {
		for b.Loop() {
			if err := rawRead(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		perItem(b)
	})
	b.Run("raw-range-gzip-file", func(b *testing.B) {
		for b.Loop() {
			f, err := os.Create(filepath.Join(dir, "raw.gz"))
			if err != nil {
				b.Fatal(err)
			}
			zw := gzip.NewWriter(f)
			if err := rawRead(zw); err != nil {
				b.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
		}
		perItem(b)
	})
}
