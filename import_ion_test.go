package fdyno

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// decodeImportIonLine reads Ion text as DynamoDB's Ion conversion
// defines it ("DynamoDB to Ion datatype conversion"), and the Ion text
// specification's literals: each case's want is written from those.
func TestDecodeImportIonLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want Item // nil with err: an error; nil without: no item
		err  bool
	}{
		{line: `$ion_1_0`},
		{line: `  $ion_1_0  // the version marker alone`},
		{line: `$ion_1_0 {Item:{a:"x"}}`, want: Item{"a": S("x")}},
		{line: `{Item:{a:"x"}}`, want: Item{"a": S("x")}},
		// Numbers: int, decimal (d exponent, trailing point), float, hex,
		// binary, underscores; all are N.
		{line: `{Item:{a:103,b:103.,c:6d2,d:-1.5d-3,e:2.50,f:1e3,g:0x1F,h:-0b101,i:1_000}}`,
			want: Item{"a": N("103"), "b": N("103"), "c": N("6e2"), "d": N("-1.5e-3"), "e": N("2.50"), "f": N("1e3"), "g": N("31"), "h": N("-5"), "i": N("1000")}},
		// Strings: escapes, long strings joined, quoted field names.
		{line: `{Item:{'a b':"q\"\\\n\t\x41\u00e9\U0001F600", "c":'''x''' '''y''', d:"", e:'''it's'''}}`,
			want: Item{"a b": S("q\"\\\n\tAé😀"), "c": S("xy"), "d": S(""), "e": S("it's")}},
		// Blobs, bools, nulls, structs, lists, sets.
		{line: `{Item:{b:{{aGk=}},c:{{ aG k= }},t:true,f:false,n:null,nn:null.null,m:{x:{y:[]}},l:[1,"s",[true]],` +
			`ss:$dynamodb_SS::["a","b"],ns:$dynamodb_NS::[1,2.5],bs:$dynamodb_BS::[{{AAE=}}]}}`,
			want: Item{"b": B([]byte("hi")), "c": B([]byte("hi")), "t": Bool(true), "f": Bool(false), "n": Null(), "nn": Null(),
				"m": M(Item{"x": M(Item{"y": L()})}), "l": L(N("1"), S("s"), L(Bool(true))),
				"ss": SS("a", "b"), "ns": NS("1", "2.5"), "bs": BS([]byte{0, 1})}},
		{line: `{Item:{a:1},}`, want: Item{"a": N("1")}},
		// Errors: no DynamoDB value, or not Ion.
		{line: `{Item:{a:sym}}`, err: true},
		{line: `{Item:{a:null.string}}`, err: true},
		{line: `{Item:{a:2007-02-23T12:14Z}}`, err: true},
		{line: `{Item:{a:{{"clob"}}}}`, err: true},
		{line: `{Item:{a:nan}}`, err: true},
		{line: `{Item:{a:+inf}}`, err: true},
		{line: `{Item:{a:other::1}}`, err: true},
		{line: `{Item:{a:$dynamodb_SS::[1]}}`, err: true},
		{line: `{Item:{a:$dynamodb_NS::["1"]}}`, err: true},
		{line: `{Item:{a:$dynamodb_BS::"x"}}`, err: true},
		{line: `{Item:{a:1__0}}`, err: true},
		{line: `{Item:{a:1.2.3}}`, err: true},
		{line: `{Item:{a:0xZZ}}`, err: true},
		{line: `{Item:{a:"\q"}}`, err: true},
		{line: `{Item:{a:"\u12"}}`, err: true},
		{line: `{Item:{a:"\uD800"}}`, err: true},
		{line: `{Item:{a:"x}}`, err: true},
		{line: `{Item:{a:{{!!}}}}`, err: true},
		{line: `{Item:{a:1,a:2}}`, err: true},
		{line: `{Item:{a:1}} {Item:{a:2}}`, err: true},
		{line: `{Item:{a:1},Other:{}}`, err: true},
		{line: `{Other:{a:1}}`, err: true},
		{line: `{}`, err: true},
		{line: `{Item:{a:1}`, err: true},
		{line: `{Item:{a:1}} /* open`, err: true},
		{line: `[1]`, err: true},
		{line: `{Item:{a:"` + "\xff" + `"}}`, err: true},
		{line: `{Item:{d:` + strings.Repeat(`[`, MaxNestingDepth+1) + strings.Repeat(`]`, MaxNestingDepth+1) + `}}`, err: true},
	} {
		got, err := decodeImportIonLine([]byte(c.line))
		if c.err {
			var le *ImportLineError
			if err == nil || !errors.As(err, &le) || !errors.Is(err, ErrValidation) {
				t.Errorf("%s: %v, %v; want an *ImportLineError", c.line, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if diff := gocmp.Diff(c.want, got, itemCmp); diff != "" || (c.want == nil) != (got == nil) {
			t.Errorf("%s (-want +got):\n%s", c.line, diff)
		}
	}
}

// FuzzImportIonLine: the ION line decoder never panics and fails only
// with an *ImportLineError; an item it accepts, written back as an ION
// export line, decodes to an equal item.
func FuzzImportIonLine(f *testing.F) {
	for _, s := range []string{
		`$ion_1_0 {Item:{Authors:$dynamodb_SS::["Author1","Author2"],Id:103.,PageCount:6d2,InPublication:false}}`,
		`{Item:{b:{{aGk=}},n:null,m:{l:[1e3,"",'''x''']},ns:$dynamodb_NS::[1,2.50],bs:$dynamodb_BS::[{{AAE=}}]}}`,
		`{Item:{'a b':"\x41\u00e9\U0001F600", g:0x1F, h:-0b1_01}}`,
		`{Item:{a:sym}}`,
		`{Item:{a:"x}}`,
		`/* c */ {Item:{a:1}} // c`,
		`{Item:{d:` + strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40) + `}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		it, err := decodeImportIonLine(line)
		if err != nil {
			var le *ImportLineError
			if !errors.As(err, &le) || !errors.Is(err, ErrValidation) {
				t.Fatalf("error %v is not an *ImportLineError", err)
			}
			return
		}
		if it == nil {
			return
		}
		back := appendExportItem(nil, ExportFormatIon, it)
		again, err := decodeImportIonLine(back)
		if err != nil {
			t.Fatalf("the export line %s of an accepted item does not decode: %v", back, err)
		}
		if !again.Equal(it) {
			t.Fatalf("round trip: %v became %v", it, again)
		}
	})
}

// The ION fixtures, written by hand in the Ion text DynamoDB's Ion
// conversion describes: the books of the DYNAMODB_JSON fixture, and a
// file whose malformed lines are counted in ErrorCount (the version
// marker and blank lines are no lines).
func TestImportIonFixtures(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	bucket := fixtureBucket(t)
	for _, comp := range []struct {
		dir string
		typ InputCompressionType
	}{{"", InputCompressionNone}, {"gzip/", InputCompressionGzip}} {
		name := "IonBooks" + string(comp.typ)
		d, err := ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: comp.dir + "books-ion/", InputFormat: InputFormatIon,
			InputCompressionType: comp.typ, TableName: name, Schema: booksSchema}, bucket, nil, root)
		if err != nil {
			t.Fatal(err)
		}
		if d.ImportStatus != ImportStatusCompleted || d.ProcessedItemCount != 2 || d.ImportedItemCount != 2 || d.ErrorCount != 0 {
			t.Errorf("ImportTable = %+v", d)
		}
		if diff := gocmp.Diff(books, itemsBy(t, mustOpen(t, db, name, root), db, "Id"), itemCmp); diff != "" {
			t.Errorf("imported items (-want +got):\n%s", diff)
		}
	}
	var log bytes.Buffer
	d, err := ImportTable(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: "mixed-ion/", InputFormat: InputFormatIon,
		InputCompressionType: InputCompressionNone, TableName: "IonMixed", Schema: booksSchema}, bucket, &log, root)
	if err != nil {
		t.Fatal(err)
	}
	if d.ImportStatus != ImportStatusFailed || d.FailureCode != "ItemValidationError" || d.ProcessedItemCount != 8 ||
		d.ImportedItemCount != 3 || d.ErrorCount != 5 {
		t.Errorf("ImportTable = %+v", d)
	}
	if n := strings.Count(strings.TrimSpace(log.String()), "\n") + 1; n != 5 {
		t.Errorf("the error log holds %d records, want 5:\n%s", n, log.String())
	}
	want := map[string]Item{
		"1":  {"Id": NInt(1), "Title": S("one")},
		"2":  {"Id": NInt(2), "Title": S("two"), "Note": S("tab\there é")},
		"16": {"Id": NInt(16), "Bits": B([]byte("hi")), "Nested": M(Item{"L": L(Null(), Bool(true), N("-0.0015"))}), "Nums": NS("1", "2.5", "300")},
	}
	if diff := gocmp.Diff(want, itemsBy(t, mustOpen(t, db, "IonMixed", root), db, "Id"), itemCmp); diff != "" {
		t.Errorf("imported items (-want +got):\n%s", diff)
	}
}

// Round trip: a table of random items exported as ION and imported from
// those files is the same table.
func TestIonExportImportRoundTrip(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	base := t.TempDir()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		name := "IonSrc" + strconv.Itoa(n)
		src, err := Open(db, name, root, WithSchema(exportSchema))
		if err != nil {
			rt.Fatal(err)
		}
		want := map[string]Item{}
		for range rapid.IntRange(0, 12).Draw(rt, "writes") {
			it := exportItemGen().Draw(rt, "item")
			mustPut(t, db, src, it)
			want[itemKeyString(it)] = it
		}
		dir := bucketDir(rt, base, strconv.Itoa(n))
		d, err := ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: name, S3Bucket: "b", ExportFormat: ExportFormatIon}, DirBucket{dir}, root)
		if err != nil {
			rt.Fatal(err)
		}
		dst := "IonDst" + strconv.Itoa(n)
		im, err := runImportInput(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: exportBase("", d.ExportID), InputFormat: InputFormatIon,
			InputCompressionType: InputCompressionGzip, TableName: dst, Schema: exportSchema}, DirBucket{dir}, rapid.IntRange(1, 5).Draw(rt, "batch"), root)
		if err != nil {
			rt.Fatal(err)
		}
		if im.ImportStatus != ImportStatusCompleted || im.ErrorCount != 0 || im.ImportedItemCount != int64(len(want)) {
			rt.Fatalf("import = %+v", im)
		}
		sameTable(rt, db, want, mustOpen(t, db, dst, root))
		for _, tn := range []string{name, dst} {
			if err := DeleteTable(db, tn, root); err != nil {
				rt.Fatal(err)
			}
		}
	})
}
