package fdyno

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// FuzzImportJSONLine: the DYNAMODB_JSON line decoder never panics; a
// line it accepts is valid JSON, and its item written back as an export
// line decodes to an equal item (the round trip of import_json.go's
// invariant 2).
func FuzzImportJSONLine(f *testing.F) {
	for _, s := range []string{
		`{"Item":{"Id":{"N":"103"},"Authors":{"SS":["Author1","Author2"]},"InPublication":{"BOOL":false}}}`,
		`{"Item":{"b":{"B":"aGk="},"bs":{"BS":["AAE="]},"n":{"NULL":true},"m":{"M":{"l":{"L":[{"N":"1e3"},{"S":""}]}}},"ns":{"NS":["1","2.50"]}}}`,
		`{"Item":{"a":{"S":"x","N":"1"}}}`,
		`{"Item":{"a":{}}}`,
		`{"Item":{"a":{"NULL":false}}}`,
		`{"Item":{"a":{"B":"!!"}}}`,
		`{"Item":{},"Item":{}}`,
		`{"Item":{"a":{"S":"\u00e9\ud83d\ude00"}}} {}`,
		`not json`,
		`{"Item":{"d":` + strings.Repeat(`{"L":[`, 40) + `{"S":"x"}` + strings.Repeat(`]}`, 40) + `}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		it, err := decodeImportJSONLine(line)
		if err != nil {
			var le *ImportLineError
			if !errors.As(err, &le) || !errors.Is(err, ErrValidation) {
				t.Fatalf("error %v is not an *ImportLineError", err)
			}
			return
		}
		if !json.Valid(line) {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		back := appendExportItem(nil, ExportFormatDynamoDBJSON, it)
		again, err := decodeImportJSONLine(back)
		if err != nil {
			t.Fatalf("the export line %s of an accepted item does not decode: %v", back, err)
		}
		if !again.Equal(it) {
			t.Fatalf("round trip: %v became %v", it, again)
		}
	})
}

// csvFields returns the records of data as encoding/csv reads them with
// the same options, with the header first (the reference the fuzz target
// checks the items against).
func csvFields(data []byte, delim rune) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = delim
	return r.ReadAll()
}

// FuzzImportCSV: the CSV reader never panics; each item it returns holds
// exactly the header's names of the record's non-empty fields, as
// strings (no typed columns here), and writing the items back as CSV
// under the same header reads back the same items.
func FuzzImportCSV(f *testing.F) {
	f.Add([]byte("pk,title,artist,year_of_release\nAlbums::Rock::Classic::1973::AlbumId::ALB25,The Dark Side of the Moon,Pink Floyd,1973\n"), byte(','), false)
	f.Add([]byte("a;b\n\"x;y\";\"multi\nline\"\n;\n1;2;3\n"), byte(';'), false)
	f.Add([]byte("1|2\n3|4\n"), byte('|'), true)
	f.Add([]byte("a,a\n1,2\n"), byte(','), false)
	f.Add([]byte("a\tb\n\"unterminated\tx\n"), byte('\t'), false)
	f.Fuzz(func(t *testing.T, data []byte, delimByte byte, withHeader bool) {
		delim := string(csvDelimiters[int(delimByte)%len(csvDelimiters)])
		o := CsvOptions{Delimiter: delim}
		if withHeader {
			o.HeaderList = []string{"h1", "h2"}
		}
		c := newCSVReader(bytes.NewReader(data), o, nil)
		var items []Item
		for n := 0; ; n++ {
			if n > len(data)+2 {
				t.Fatalf("more records than lines")
			}
			it, err := c.next()
			if err == io.EOF {
				break
			}
			var le *ImportLineError
			if errors.As(err, &le) {
				continue
			}
			if err != nil {
				break // the rest of the file is unreadable
			}
			for name, v := range it {
				if !containsName(c.header, name) {
					t.Fatalf("item %v has %q, not in the header %q", it, name, c.header)
				}
				if v.Type() != TypeS || v.S() == "" {
					t.Fatalf("item %v: %q is not a non-empty string", it, name)
				}
			}
			if len(it) > 0 { // a record of empty fields is a blank line when written back
				items = append(items, it)
			}
		}
		if len(items) == 0 || c.header == nil {
			return
		}
		// Write them back under the header; read them again.
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Comma = rune(delim[0])
		if !withHeader {
			_ = w.Write(c.header)
		}
		for _, it := range items {
			rec := make([]string, len(c.header))
			for i, h := range c.header {
				rec[i] = it[h].S()
			}
			_ = w.Write(rec)
		}
		w.Flush()
		if w.Error() != nil {
			return // a field encoding/csv cannot write back with this delimiter
		}
		if _, err := csvFields(buf.Bytes(), rune(delim[0])); err != nil {
			return // leading spaces and the like, which csv does not round-trip
		}
		c2 := newCSVReader(bytes.NewReader(buf.Bytes()), o, nil)
		var again []Item
		for {
			it, err := c2.next()
			if err != nil {
				break
			}
			if len(it) > 0 {
				again = append(again, it)
			}
		}
		if diff := gocmp.Diff(items, again, itemCmp); diff != "" {
			t.Fatalf("written back and read again (-first +again):\n%s", diff)
		}
	})
}

func containsName(h []string, n string) bool {
	for _, x := range h {
		if x == n {
			return true
		}
	}
	return false
}

// FuzzManifestFiles: the manifest-files.json decoder never panics, and
// the entries it accepts, written back as JSON lines, decode to the same
// entries.
func FuzzManifestFiles(f *testing.F) {
	f.Add([]byte(`{"itemCount":8,"md5Checksum":"sQMSpEILNgoQmarvDFonGQ==","etag":"af83d6f217c19b8b0fff8023d8ca4716-1","dataFileS3Key":"AWSDynamoDB/11111111111111-22222222/data/33334444EXAMPLE.json.gz"}` + "\n"))
	f.Add([]byte("\n\n{\"itemCount\":0,\"md5Checksum\":\"\",\"etag\":\"\",\"dataFileS3Key\":\"a\"}\r\n{\"dataFileS3Key\":\"b\"}"))
	f.Add([]byte(`{"itemCount":-1,"dataFileS3Key":"a"}`))
	f.Add([]byte(`{"itemCount":1,"dataFileS3Key":"a","extra":1}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := decodeManifestFiles(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		for _, mf := range files {
			b, err := json.Marshal(mf)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
		again, err := decodeManifestFiles(&buf)
		if err != nil {
			t.Fatalf("written back, the manifest does not decode: %v", err)
		}
		if diff := gocmp.Diff(files, again); diff != "" {
			t.Fatalf("round trip (-first +again):\n%s", diff)
		}
	})
}

// A line longer than the limit is one error and reading goes on with the
// next line; a manifest line over its limit is a malformed manifest.
func TestImportLineLimits(t *testing.T) {
	long := `{"Item":{"a":{"S":"` + strings.Repeat("x", maxImportLine) + `"}}}`
	run := &importRun{im: &storedImport{ImportTableDescription: ImportTableDescription{InputFormat: InputFormatDynamoDBJSON}}}
	next := run.lineSource(strings.NewReader(long + "\n" + `{"Item":{"a":{"S":"ok"}}}` + "\n"))
	if _, err := next(); !errors.As(err, new(*ImportLineError)) {
		t.Errorf("a line over %d bytes: %v, want an *ImportLineError", maxImportLine, err)
	}
	if it, err := next(); err != nil || it["a"].S() != "ok" {
		t.Errorf("the line after it: %v, %v", it, err)
	}
	if _, err := next(); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
	if _, err := decodeManifestFiles(strings.NewReader(`{"dataFileS3Key":"` + strings.Repeat("k", maxManifestLine) + `"}`)); !errors.Is(err, errManifest) {
		t.Errorf("a manifest line over %d bytes: %v", maxManifestLine, err)
	}
	// A CSV record longer than the limit ends the file.
	c := newCSVReader(strings.NewReader("a\n\""+strings.Repeat("y", maxImportLine+10)+"\"\n"), CsvOptions{}, nil)
	if _, err := c.next(); !errors.Is(err, errRecordTooLarge) {
		t.Errorf("a CSV record over %d bytes: %v", maxImportLine, err)
	}
}
