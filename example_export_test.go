package fdyno_test

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fdyno/fdyno"
)

// An export writes DynamoDB's export layout into a bucket (here a local
// directory); an import of its files makes a new table with the same
// items.
func ExampleExportTableToPointInTime() {
	db, root := exampleDB("Export")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	song := fdyno.Item{"Artist": fdyno.S("Nina Simone"), "SongTitle": fdyno.S("Feeling Good"), "Year": fdyno.NInt(1965)}
	if _, err := music.Put(db, fdyno.PutInput{Item: song}); err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "bucket")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	bucket := fdyno.DirBucket{Dir: dir}
	export, err := fdyno.ExportTableToPointInTime(db, fdyno.ExportTableToPointInTimeInput{TableName: "Music", S3Bucket: "music-exports"}, bucket, root)
	if err != nil {
		panic(err)
	}
	fmt.Println(export.ExportStatus, export.ItemCount)

	// The data files hold one {"Item": ...} per line.
	files, _ := filepath.Glob(filepath.Join(dir, "AWSDynamoDB", export.ExportID, "data", "*.json.gz"))
	f, err := os.Open(files[0])
	if err != nil {
		panic(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		panic(err)
	}
	lines := bufio.NewScanner(zr)
	for lines.Scan() {
		fmt.Println(lines.Text())
	}

	imported, err := fdyno.ImportTable(db, fdyno.ImportTableInput{TableName: "MusicCopy", Schema: musicSchema, S3Bucket: "music-exports",
		S3KeyPrefix: "AWSDynamoDB/" + export.ExportID + "/", InputFormat: fdyno.InputFormatDynamoDBJSON,
		InputCompressionType: fdyno.InputCompressionGzip}, bucket, nil, root)
	if err != nil {
		panic(err)
	}
	copied, err := fdyno.Open(db, "MusicCopy", root)
	if err != nil {
		panic(err)
	}
	got, err := copied.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": song["Artist"], "SongTitle": song["SongTitle"]}})
	if err != nil {
		panic(err)
	}
	fmt.Println(imported.ImportStatus, imported.ImportedItemCount, got.Item["Year"])
	// Output:
	// COMPLETED 1
	// {"Item":{"Artist":{"S":"Nina Simone"},"SongTitle":{"S":"Feeling Good"},"Year":{"N":"1965"}}}
	// COMPLETED 1 {"N":"1965"}
}
