package fdyno

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"io"
	"strconv"
	"strings"
	"time"
)

// export_files.go writes an export's objects in DynamoDB's documented
// layout ("DynamoDB table export output format"), under
// export-prefix/AWSDynamoDB/ExportId/:
//
//	_started                    empty, written first
//	data/<name>.json.gz         the items, one per line, gzip-compressed
//	                            (.ion.gz for ION)
//	manifest-files.json         one JSON line per data file: itemCount,
//	                            md5Checksum (base64 MD5 of the object),
//	                            etag (S3's ETag of a one-part multipart
//	                            upload: hex MD5 of the part's MD5, "-1"),
//	                            dataFileS3Key
//	manifest-files.checksum     hex MD5 of manifest-files.json
//	manifest-summary.json       the export: version 2020-06-30, ARNs,
//	                            times, bucket, manifestFilesS3Key,
//	                            billedSizeBytes, itemCount, outputFormat
//	                            (and for an incremental export exportType,
//	                            outputView, exportFromTime, exportToTime)
//	manifest-summary.checksum   hex MD5 of manifest-summary.json
//
// The summary is written last: a reader that finds it finds every file.
// A data file's name is derived from the export's id and the file's
// number, so an export run again replaces its files.

// exportFileItems is the most items one data file holds; DynamoDB writes
// at least one file per partition, fdyno one per exportFileItems items
// (and one empty file for an empty table, as DynamoDB for an empty
// partition).
const exportFileItems = 100_000

// manifestSummary is manifest-summary.json, in the documented order.
type manifestSummary struct {
	Version            string  `json:"version"`
	ExportArn          string  `json:"exportArn"`
	StartTime          string  `json:"startTime"`
	EndTime            string  `json:"endTime"`
	TableArn           string  `json:"tableArn"`
	TableID            string  `json:"tableId"`
	ExportTime         string  `json:"exportTime"`
	S3Bucket           string  `json:"s3Bucket"`
	S3Prefix           *string `json:"s3Prefix"`
	S3SseAlgorithm     *string `json:"s3SseAlgorithm"`
	S3SseKmsKeyID      *string `json:"s3SseKmsKeyId"`
	ManifestFilesS3Key string  `json:"manifestFilesS3Key"`
	BilledSizeBytes    int64   `json:"billedSizeBytes"`
	ItemCount          int64   `json:"itemCount"`
	OutputFormat       string  `json:"outputFormat"`
	ExportType         string  `json:"exportType,omitempty"`
	OutputView         string  `json:"outputView,omitempty"`
	ExportFromTime     string  `json:"exportFromTime,omitempty"`
	ExportToTime       string  `json:"exportToTime,omitempty"`
}

// manifestFile is one line of an export's manifest-files.json.
type manifestFile struct {
	ItemCount     int64  `json:"itemCount"`
	MD5Checksum   string `json:"md5Checksum"`
	ETag          string `json:"etag"`
	DataFileS3Key string `json:"dataFileS3Key"`
}

// manifestTime is a manifest's time text, as DynamoDB's examples.
func manifestTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// exportWriter writes the objects of one export.
type exportWriter struct {
	dest ExportDestination
	base string // export-prefix/AWSDynamoDB/ExportId/
	id   string
	ext  string // ".json.gz" or ".ion.gz"
	// perFile is the most items of one data file (exportFileItems).
	perFile int64
	files   []manifestFile
	cur     *dataFile
	items   int64
	bytes   int64
}

// dataFile is the data file being written: lines go through gzip to the
// object, whose bytes are hashed on the way.
type dataFile struct {
	obj   io.WriteCloser
	sum   hash.Hash
	gz    *gzip.Writer
	buf   *bufio.Writer
	key   string
	items int64
}

func newExportWriter(dest ExportDestination, prefix, id string, format ExportFormat, perFile int) (*exportWriter, error) {
	w := &exportWriter{dest: dest, base: exportBase(prefix, id), id: id, ext: ".json.gz", perFile: int64(perFile)}
	if format == ExportFormatIon {
		w.ext = ".ion.gz"
	}
	return w, w.put("_started", nil)
}

// put writes a whole object.
func (w *exportWriter) put(name string, body []byte) error {
	obj, err := w.dest.Create(w.base + name)
	if err != nil {
		return err
	}
	if _, err := obj.Write(body); err != nil {
		_ = obj.Close()
		return err
	}
	return obj.Close()
}

// dataFileName is the name of data file n of export id: 26 lowercase
// base32 characters, as DynamoDB's, derived from both.
func dataFileName(id string, n int) string {
	h := sha256.Sum256([]byte(id + "/" + strconv.Itoa(n)))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h[:16]))
}

// line writes one item line (without its newline); size is the item's
// size for billedSizeBytes.
func (w *exportWriter) line(b []byte, size int) error {
	if w.cur == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	if _, err := w.cur.buf.Write(b); err != nil {
		return err
	}
	if err := w.cur.buf.WriteByte('\n'); err != nil {
		return err
	}
	w.cur.items++
	w.items++
	w.bytes += int64(size)
	if w.cur.items >= w.perFile {
		return w.closeFile()
	}
	return nil
}

func (w *exportWriter) open() error {
	key := w.base + "data/" + dataFileName(w.id, len(w.files)) + w.ext
	obj, err := w.dest.Create(key)
	if err != nil {
		return err
	}
	f := &dataFile{obj: obj, sum: md5.New(), key: key}
	f.gz = gzip.NewWriter(io.MultiWriter(obj, f.sum))
	f.buf = bufio.NewWriterSize(f.gz, 64<<10)
	w.cur = f
	return nil
}

func (w *exportWriter) closeFile() error {
	f := w.cur
	w.cur = nil
	err := f.buf.Flush()
	if err == nil {
		err = f.gz.Close()
	}
	if cerr := f.obj.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	sum := f.sum.Sum(nil)
	part := md5.Sum(sum)
	w.files = append(w.files, manifestFile{ItemCount: f.items, MD5Checksum: base64.StdEncoding.EncodeToString(sum),
		ETag: hex.EncodeToString(part[:]) + "-1", DataFileS3Key: f.key})
	return nil
}

// finish closes the last data file (writing an empty one if there was
// none), then writes the manifests, the summary last.
func (w *exportWriter) finish(e *ExportDescription, end time.Time) error {
	if w.cur == nil && len(w.files) == 0 {
		if err := w.open(); err != nil {
			return err
		}
	}
	if w.cur != nil {
		if err := w.closeFile(); err != nil {
			return err
		}
	}
	var files bytes.Buffer
	for _, f := range w.files {
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		files.Write(b)
		files.WriteByte('\n')
	}
	if err := w.put("manifest-files.json", files.Bytes()); err != nil {
		return err
	}
	if err := w.put("manifest-files.checksum", hexMD5(files.Bytes())); err != nil {
		return err
	}
	s := manifestSummary{Version: "2020-06-30", ExportArn: e.ExportArn, StartTime: manifestTime(e.StartTime), EndTime: manifestTime(end),
		TableArn: e.TableArn, TableID: e.TableID, ExportTime: manifestTime(e.ExportTime), S3Bucket: e.S3Bucket,
		S3Prefix: optional(e.S3Prefix), S3SseAlgorithm: optional(e.S3SseAlgorithm), S3SseKmsKeyID: optional(e.S3SseKmsKeyId),
		ManifestFilesS3Key: w.base + "manifest-files.json", BilledSizeBytes: w.bytes, ItemCount: w.items, OutputFormat: string(e.ExportFormat)}
	if inc := e.IncrementalExportSpecification; inc != nil {
		s.ExportType, s.OutputView = string(e.ExportType), string(inc.ExportViewType)
		if !inc.ExportFromTime.IsZero() {
			s.ExportFromTime = manifestTime(inc.ExportFromTime)
		}
		s.ExportToTime = manifestTime(e.ExportTime)
	}
	summary, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := w.put("manifest-summary.json", summary); err != nil {
		return err
	}
	return w.put("manifest-summary.checksum", hexMD5(summary))
}

// abort closes a data file left open by an error.
func (w *exportWriter) abort() {
	if w.cur != nil {
		_ = w.cur.obj.Close()
		w.cur = nil
	}
}

func hexMD5(b []byte) []byte {
	s := md5.Sum(b)
	return []byte(hex.EncodeToString(s[:]))
}

// Limits of the manifests an import reads (untrusted bytes).
const (
	// maxManifestLine bounds one line of manifest-files.json.
	maxManifestLine = 64 << 10
	// MaxImportObjects is the most objects one import reads,
	// DynamoDB's quota (50,000 S3 objects per import).
	MaxImportObjects = 50_000
)

// errManifest reports a malformed manifest.
var errManifest = errors.New("fdyno: malformed manifest-files.json")

// decodeManifestFiles reads manifest-files.json: JSON lines of
// [manifestFile], blank lines skipped, at most MaxImportObjects of them
// and maxManifestLine bytes each. It never panics and allocates in
// proportion to its input.
func decodeManifestFiles(r io.Reader) ([]manifestFile, error) {
	br := bufio.NewReaderSize(r, 4096)
	var out []manifestFile
	for {
		line, err := readLine(br, maxManifestLine)
		if errors.Is(err, errLineTooLong) {
			return nil, errManifest
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if len(out) == MaxImportObjects {
				return nil, errManifest
			}
			var f manifestFile
			d := json.NewDecoder(bytes.NewReader(t))
			d.DisallowUnknownFields()
			if derr := d.Decode(&f); derr != nil || d.More() || f.DataFileS3Key == "" || f.ItemCount < 0 {
				return nil, errManifest
			}
			out = append(out, f)
		}
		if err == io.EOF {
			return out, nil
		}
	}
}

// errLineTooLong reports a line over readLine's limit.
var errLineTooLong = errors.New("fdyno: line too long")

// readLine returns the next line of br without its "\n" (or "\r\n"),
// io.EOF with the last line, or errLineTooLong (having skipped the rest
// of that line) for a line over max bytes; it never holds more than max
// bytes of a line.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			if err == io.EOF {
				return nil, errLineTooLong // the last line; EOF comes next
			}
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, err
	}
}
