package fdyno

import (
	"encoding/base64"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
)

// import_csv.go reads a CSV import file with DynamoDB's rules ("Amazon S3
// import formats for DynamoDB", CSV): items delimited by newlines, columns
// by the Delimiter (a comma by default); the first line is the header
// unless the request gives a HeaderList, and then it is data. Every
// column is a string (S), except the key attributes of the table and of
// its global secondary indexes, which take the type their attribute
// definition declares (N as decimal text, B as base64). An empty field
// sets no attribute (fdyno's choice: DynamoDB does not document it; see
// docs/differences.md).
//
// Invariants (FuzzImportCSV):
//
//  1. It never panics and holds at most maxImportLine bytes of one
//     record, however long a quoted field runs.
//  2. Every item it returns has exactly the header's names of the
//     record's non-empty fields.

// csvDelimiters are the delimiters DynamoDB's CsvOptions allows.
const csvDelimiters = ",\t:;| "

// maxCSVHeaders is the most names in a CsvOptions HeaderList (DynamoDB's
// limit).
const maxCSVHeaders = 255

// CsvOptions is DynamoDB's CsvOptions: the delimiter (one of , \t : ; |
// and space; default ",") and, if not nil, the header of every file.
type CsvOptions struct {
	Delimiter  string
	HeaderList []string
}

// check validates o.
func (o *CsvOptions) check() error {
	invalid := func(reason string) error { return &ValidationError{Op: "ImportTable", Reason: reason} }
	if o.Delimiter != "" && (len(o.Delimiter) != 1 || !strings.Contains(csvDelimiters, o.Delimiter)) {
		return invalid("CSV delimiter must be one of , \\t : ; | and space")
	}
	if o.HeaderList != nil {
		if len(o.HeaderList) == 0 || len(o.HeaderList) > maxCSVHeaders {
			return invalid("HeaderList must have 1 to 255 names")
		}
		if err := checkHeader(o.HeaderList); err != nil {
			return invalid(err.Error())
		}
	}
	return nil
}

func checkHeader(h []string) error {
	seen := map[string]bool{}
	for _, n := range h {
		if n == "" || len(n) > MaxAttributeNameLength {
			return errors.New("a CSV header name is empty or too long")
		}
		if seen[n] {
			return errors.New("the CSV header repeats the name " + strconv.Quote(truncateForMessage(n)))
		}
		seen[n] = true
	}
	return nil
}

// csvReader reads the items of one CSV file.
type csvReader struct {
	r      *csv.Reader
	lim    *budgetReader
	header []string
	types  map[string]ScalarAttributeType // typed columns: the keys
}

// budgetReader fails a read past its budget: csv.Reader buffers a whole
// record, so its budget, moved up after each record, bounds a record.
type budgetReader struct {
	r      io.Reader
	read   int64
	budget int64
}

var errRecordTooLarge = errors.New("fdyno: a CSV record is larger than the largest item")

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.read >= b.budget {
		return 0, errRecordTooLarge
	}
	if rest := b.budget - b.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// newCSVReader returns the reader of one file; types are the declared
// types of the table's and its global secondary indexes' key attributes.
func newCSVReader(r io.Reader, o CsvOptions, types map[string]ScalarAttributeType) *csvReader {
	lim := &budgetReader{r: r, budget: maxImportLine}
	cr := csv.NewReader(lim)
	if o.Delimiter != "" {
		cr.Comma = rune(o.Delimiter[0])
	}
	cr.ReuseRecord = true
	c := &csvReader{r: cr, lim: lim, header: o.HeaderList, types: types}
	if c.header != nil {
		cr.FieldsPerRecord = len(c.header)
	}
	return c
}

// next returns the next item; a *ImportLineError for a record that is
// not one (reading goes on after it); io.EOF at the end; any other error
// ends the file.
func (c *csvReader) next() (Item, error) {
	rec, err := c.r.Read()
	c.lim.budget = c.r.InputOffset() + maxImportLine
	if errors.Is(err, errRecordTooLarge) {
		return nil, err
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return nil, lineError("malformed CSV: " + pe.Err.Error())
	}
	if err != nil {
		return nil, err
	}
	if c.header == nil {
		h := make([]string, len(rec))
		copy(h, rec)
		if err := checkHeader(h); err != nil {
			return nil, err // a bad header ends the file
		}
		c.header = h
		c.r.FieldsPerRecord = len(h)
		return c.next()
	}
	it := make(Item, len(rec))
	for i, f := range rec {
		if f == "" {
			continue
		}
		name := c.header[i]
		switch c.types[name] {
		case ScalarAttributeTypeN:
			it[name] = N(f)
		case ScalarAttributeTypeB:
			b, err := base64.StdEncoding.DecodeString(f)
			if err != nil {
				return nil, lineError("invalid base64 in the B key attribute " + strconv.Quote(truncateForMessage(name)))
			}
			it[name] = B(b)
		default:
			it[name] = S(f)
		}
	}
	return it, nil
}
