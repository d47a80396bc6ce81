package fdyno

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testseed"
	"github.com/fdyno/fdyno/internal/testtime"
	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// exportSchema has a sort key and two global secondary indexes (an
// import creates no local ones, as DynamoDB's), so a round trip rebuilds
// both.
var exportSchema = TableSchema{
	KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN},
		{"g", ScalarAttributeTypeS}, {"h", ScalarAttributeTypeB}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{
		{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}, {"sk", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeAll}},
		{IndexName: "byH", KeySchema: []KeySchemaElement{{"h", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
	},
}

// exportItemGen generates items of exportSchema: keys, sometimes index
// keys, and any other attributes of any type.
func exportItemGen() *rapid.Generator[Item] {
	return rapid.Custom(func(t *rapid.T) Item {
		it := mapGen(1, 4).Draw(t, "attrs")
		it["pk"] = S("p" + strconv.Itoa(rapid.IntRange(0, 3).Draw(t, "pk")))
		it["sk"] = NInt(int64(rapid.IntRange(-5, 5).Draw(t, "sk")))
		delete(it, "g")
		delete(it, "h")
		if rapid.Bool().Draw(t, "hasG") {
			it["g"] = S(rapid.SampledFrom([]string{"x", "y"}).Draw(t, "g"))
		}
		if rapid.Bool().Draw(t, "hasH") {
			it["h"] = B([]byte{rapid.Byte().Draw(t, "h")})
		}
		return it
	})
}

// sameTable fails t unless got holds the items of want, and its indexes
// the same entries as want's, and its storage invariants hold.
func sameTable(t exportT, db fdb.Database, want map[string]Item, got *Table) {
	t.Helper()
	for _, p := range tableProblems(db, got) {
		t.Errorf("%s", p)
	}
	if diff := gocmp.Diff(want, tableItems(t, db, got), itemCmp); diff != "" {
		t.Fatalf("imported table (-want +got):\n%s", diff)
	}
}

// indexContents lists the base keys of each of exportSchema's indexes in
// index order.
func indexContents(t testing.TB, db fdb.Database, tbl *Table) map[string][]string {
	out := map[string][]string{}
	for _, g := range exportSchema.GlobalSecondaryIndexes {
		out[g.IndexName] = indexKeys(t, db, tbl, g.IndexName)
	}
	return out
}

// Round trip: a table of random items, exported (now, or through
// point-in-time recovery at the version of a random write) and imported
// into a new table, gives the table at that point: the same items and
// the same index entries.
func TestExportImportRoundTrip(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	base := t.TempDir()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		name := "Src" + strconv.Itoa(n)
		src, err := Open(db, name, root, WithSchema(exportSchema), WithChunkThreshold(300))
		if err != nil {
			rt.Fatal(err)
		}
		pitr := rapid.Bool().Draw(rt, "pitr")
		if pitr {
			if _, err := src.updateContinuousBackups(db, true, 1, rapid.IntRange(1, 3).Draw(rt, "baseBatch")); err != nil {
				rt.Fatal(err)
			}
		}
		model := map[string]Item{}
		type point struct {
			version int64
			items   map[string]Item
		}
		var history []point
		for range rapid.IntRange(0, 16).Draw(rt, "writes") {
			it := exportItemGen().Draw(rt, "item")
			v, err := commitVersion(db, func(tr fdb.Transaction) error {
				_, err := src.Put(tr, PutInput{Item: it})
				return err
			})
			if err != nil {
				rt.Fatal(err)
			}
			model[itemKeyString(it)] = it
			history = append(history, point{v, cloneModel(model)})
		}
		in := ExportTableToPointInTimeInput{TableName: name, S3Bucket: "b", S3Prefix: rapid.SampledFrom([]string{"", "p", "a/b/"}).Draw(rt, "prefix")}
		want := model
		if pitr && len(history) > 0 && rapid.Bool().Draw(rt, "atVersion") {
			i := rapid.IntRange(0, len(history)-1).Draw(rt, "point")
			in.Version, want = history[i].version+1, history[i].items
		}
		dir := bucketDir(rt, base, strconv.Itoa(n))
		d, err := StartExport(db, in, root)
		if err != nil {
			rt.Fatal(err)
		}
		d, err = runExport(db, d.ExportID, DirBucket{dir}, rapid.IntRange(1, 4).Draw(rt, "batch"), rapid.IntRange(1, 8).Draw(rt, "perFile"), root)
		if err != nil {
			rt.Fatal(err)
		}
		if d.ItemCount != int64(len(want)) {
			rt.Errorf("ItemCount = %d, want %d", d.ItemCount, len(want))
		}
		prefix := exportBase(in.S3Prefix, d.ExportID)
		if rapid.Bool().Draw(rt, "wholeBucket") {
			prefix = in.S3Prefix // the objects under the prefix, manifests and all
		}
		dst := "Dst" + strconv.Itoa(n)
		id, err := runImportInput(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: prefix, InputFormat: InputFormatDynamoDBJSON,
			InputCompressionType: InputCompressionGzip, TableName: dst, Schema: exportSchema}, DirBucket{dir}, rapid.IntRange(1, 5).Draw(rt, "importBatch"), root)
		if err != nil {
			rt.Fatal(err)
		}
		if id.ImportStatus != ImportStatusCompleted || id.ErrorCount != 0 || id.ImportedItemCount != int64(len(want)) {
			rt.Fatalf("import = %+v", id)
		}
		got := mustOpen(t, db, dst, root)
		sameTable(rt, db, want, got)
		// The indexes hold what those of a table written with the same
		// items hold.
		ref := mustOpen(t, db, "Ref"+strconv.Itoa(n), root, WithSchema(exportSchema))
		for _, it := range want {
			mustPut(t, db, ref, it)
		}
		if diff := gocmp.Diff(indexContents(t, db, ref), indexContents(t, db, got)); diff != "" {
			rt.Fatalf("imported indexes (-want +got):\n%s", diff)
		}
		for _, tn := range []string{name, dst, "Ref" + strconv.Itoa(n)} {
			if err := DeleteTable(db, tn, root); err != nil {
				rt.Fatal(err)
			}
		}
	})
}

// bucketDir makes directory name under base, for one bucket.
func bucketDir(t fataler, base, name string) string {
	dir := filepath.Join(base, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runImportInput is ImportTable with batch items per transaction.
func runImportInput(db fdb.Database, in ImportTableInput, src ImportSource, batch int, opts ...Option) (*ImportTableDescription, error) {
	d, err := StartImport(db, in, opts...)
	if err != nil {
		return nil, err
	}
	return runImport(db, d.ImportID, src, nil, batch, opts...)
}

// changeLine is the expected line of one item of an incremental export,
// as DynamoDB documents it: Metadata.WriteTimestampMicros, Keys, NewImage
// (absent for a deletion) and OldImage (NEW_AND_OLD_IMAGES, absent for an
// item made in the window).
func changeLine(t fataler, micros int64, old, new Item, view ExportViewType) map[string]any {
	t.Helper()
	l := map[string]any{"Metadata": map[string]any{"WriteTimestampMicros": map[string]any{"N": strconv.FormatInt(micros, 10)}}}
	k := new
	if k == nil {
		k = old
	}
	l["Keys"] = generic(t, Item{"pk": k["pk"], "sk": k["sk"]}.String())
	if new != nil {
		l["NewImage"] = generic(t, new.String())
	}
	if old != nil && view == ExportViewNewAndOldImages {
		l["OldImage"] = generic(t, old.String())
	}
	return l
}

func generic(t fataler, s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// The incremental model: random writes and deletes at known versions and
// times on a table with point-in-time recovery; an incremental export of
// a random window, by versions or by times, in either view, holds one
// line per item whose state changed in the window (an item made and
// deleted in it has none): its last write's time, its keys, its state
// at the end (none if deleted) and, with old images, at the start. A
// full export at a random time holds the state then.
func TestIncrementalExportModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	base := t.TempDir()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		now := clock.Now
		opts := []Option{root, WithClock(now)}
		name := "Inc" + strconv.Itoa(n)
		src, err := Open(db, name, append(opts, WithSchema(exportSchema), WithChunkThreshold(300))...)
		if err != nil {
			rt.Fatal(err)
		}
		model := map[string]Item{}
		type point struct {
			version int64
			at      time.Time
			before  map[string]Item // the state before the write
			key     string
			changed bool // not a Delete of a missing item, which writes nothing
		}
		var history []point
		write := func(rt *rapid.T) {
			clock.Advance(time.Second)
			it := exportItemGen().Draw(rt, "item")
			k := itemKeyString(it)
			del := rapid.IntRange(0, 3).Draw(rt, "op") == 0
			before := cloneModel(model)
			v, err := commitVersion(db, func(tr fdb.Transaction) error {
				if del {
					_, err := src.Delete(tr, DeleteInput{Key: Item{"pk": it["pk"], "sk": it["sk"]}})
					return err
				}
				_, err := src.Put(tr, PutInput{Item: it})
				return err
			})
			if err != nil {
				rt.Fatal(err)
			}
			if del {
				delete(model, k)
			} else {
				model[k] = it
			}
			history = append(history, point{version: v, at: now(), before: before, key: k, changed: !del || before[k] != nil})
		}
		for range rapid.IntRange(0, 4).Draw(rt, "before") {
			write(rt)
		}
		if _, err := src.updateContinuousBackups(db, true, 1, rapid.IntRange(1, 3).Draw(rt, "baseBatch")); err != nil {
			rt.Fatal(err)
		}
		history = history[:0]
		for range rapid.IntRange(1, 10).Draw(rt, "after") {
			write(rt)
		}
		clock.Advance(time.Second)
		final := cloneModel(model)
		i := rapid.IntRange(0, len(history)-1).Draw(rt, "from")
		j := rapid.IntRange(i+1, len(history)).Draw(rt, "to") // the window is writes i..j-1
		view := rapid.SampledFrom([]ExportViewType{ExportViewNewImage, ExportViewNewAndOldImages}).Draw(rt, "view")
		spec := IncrementalExportSpecification{ExportViewType: view}
		if rapid.Bool().Draw(rt, "byTime") {
			spec.ExportFromTime = history[i].at
			if j < len(history) {
				spec.ExportToTime = history[j].at
			}
		} else {
			spec.ExportFromVersion = history[i].version
			if j < len(history) {
				spec.ExportToVersion = history[j].version
			}
		}
		end := final
		if j < len(history) {
			end = history[j].before
		}
		start := history[i].before
		var want []map[string]any
		last := map[string]int{}
		for w := i; w < j; w++ {
			if history[w].changed {
				last[history[w].key] = w
			}
		}
		for _, k := range sortedKeys(last) {
			old, new := start[k], end[k]
			if old == nil && new == nil {
				continue
			}
			want = append(want, changeLine(rt, history[last[k]].at.UnixMicro(), old, new, view))
		}
		dir := bucketDir(rt, base, strconv.Itoa(n)+"i")
		d, err := ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: name, S3Bucket: "b", ExportType: ExportTypeIncremental,
			IncrementalExportSpecification: spec}, DirBucket{dir}, opts...)
		if err != nil {
			rt.Fatal(err)
		}
		summary, lines := exportedFiles(rt, dir, d)
		if summary["exportType"] != "INCREMENTAL_EXPORT" || summary["outputView"] != string(view) {
			rt.Errorf("manifest-summary.json = %v", summary)
		}
		if diff := gocmp.Diff(want, lines); diff != "" {
			rt.Fatalf("window [%d, %d) of %d writes, %+v (-want +got):\n%s", i, j, len(history), spec, diff)
		}
		// A full export at the time of write i holds the state after it.
		dir = bucketDir(rt, base, strconv.Itoa(n)+"f")
		d, err = ExportTableToPointInTime(db, ExportTableToPointInTimeInput{TableName: name, S3Bucket: "b", ExportTime: history[i].at}, DirBucket{dir}, opts...)
		if err != nil {
			rt.Fatal(err)
		}
		wantItems := final
		if i+1 < len(history) {
			wantItems = history[i+1].before
		}
		_, lines = exportedFiles(rt, dir, d)
		var wantLines []map[string]any
		for _, k := range sortedKeys(wantItems) {
			wantLines = append(wantLines, map[string]any{"Item": generic(rt, wantItems[k].String())})
		}
		if diff := gocmp.Diff(wantLines, lines); diff != "" {
			rt.Fatalf("full export at write %d's time (-want +got):\n%s", i, diff)
		}
		if err := DeleteTable(db, name, root); err != nil {
			rt.Fatal(err)
		}
	})
}

// sortedKeys returns m's keys in the order of the items' keys (pk, then
// sk numerically): the order of an export.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	less := func(a, b string) bool {
		pa, sa := splitModelKey(a)
		pb, sb := splitModelKey(b)
		if pa != pb {
			return pa < pb
		}
		return sa < sb
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && less(keys[j], keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func splitModelKey(k string) (string, int) {
	for i := len(k) - 1; i >= 0; i-- {
		if k[i] == '/' {
			n, _ := strconv.Atoi(k[i+1:])
			return k[:i], n
		}
	}
	return k, 0
}

// An export and an import under fdblite's injected faults (retryable
// errors, unknown commit results) are exact: the export holds the
// table's items, and the import gives a table of them, once each.
func TestExportImportUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(testseed.Seed(t, "FDYNO_EXPORT_FAULT_SEED")))
	src := mustOpen(t, db, "Faulty", WithSchema(exportSchema), WithChunkThreshold(400))
	for i := range 60 {
		it := backupItem("p"+strconv.Itoa(i%5), i, i, (i%3)*300)
		delete(it, "l")
		mustPut(t, db, src, it)
	}
	want := tableItems(t, db, src)
	dir := t.TempDir()
	d, err := StartExport(db, ExportTableToPointInTimeInput{TableName: "Faulty", S3Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = runExport(db, d.ExportID, DirBucket{dir}, 7, 25); err != nil {
		t.Fatal(err)
	}
	if d.ItemCount != int64(len(want)) {
		t.Errorf("ItemCount = %d, want %d", d.ItemCount, len(want))
	}
	im, err := runImportInput(db, ImportTableInput{S3Bucket: "b", S3KeyPrefix: exportBase("", d.ExportID), InputFormat: InputFormatDynamoDBJSON,
		InputCompressionType: InputCompressionGzip, TableName: "FaultyCopy", Schema: exportSchema}, DirBucket{dir}, 9)
	if err != nil {
		t.Fatal(err)
	}
	if im.ImportedItemCount != int64(len(want)) || im.ProcessedItemCount != int64(len(want)) || im.ErrorCount != 0 {
		t.Errorf("import = %+v", im)
	}
	sameTable(t, db, want, mustOpen(t, db, "FaultyCopy"))
	checkTable(t, db, src)
}

// stoppingTransactor runs n transactions, then answers context.Canceled,
// as fdyno-server's transactor does once the server closes: the
// interruption of an export or import between two of its transactions.
type stoppingTransactor struct {
	db fdb.Database
	n  *int
}

func (s stoppingTransactor) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	if *s.n <= 0 {
		return nil, context.Canceled
	}
	*s.n--
	return s.db.Transact(f)
}

func (s stoppingTransactor) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	if *s.n <= 0 {
		return nil, context.Canceled
	}
	*s.n--
	return s.db.ReadTransact(f)
}

// An export or import stopped after any number of its transactions stays
// IN_PROGRESS, shows no table, and, run again, ends exactly as one never
// stopped: nothing lost, nothing doubled.
func TestExportImportInterrupted(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	src := mustOpen(t, db, "Stopped", root, WithSchema(exportSchema))
	for i := range 30 {
		it := backupItem("p"+strconv.Itoa(i%3), i, i, 0)
		delete(it, "l")
		mustPut(t, db, src, it)
	}
	want := tableItems(t, db, src)
	base := t.TempDir()
	for stopAfter := 0; stopAfter < 40; stopAfter += 3 {
		dir := bucketDir(t, base, strconv.Itoa(stopAfter))
		d, err := StartExport(db, ExportTableToPointInTimeInput{TableName: "Stopped", S3Bucket: "b"}, root)
		if err != nil {
			t.Fatal(err)
		}
		n := stopAfter
		_, err = runExport(stoppingTransactor{db, &n}, d.ExportID, DirBucket{dir}, 4, 7, root)
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped after %d: %v", stopAfter, err)
		}
		if err == nil {
			break // finished before the stop: later stops would too
		}
		if got, err := DescribeExport(db, d.ExportID, root); err != nil || got.ExportStatus != ExportStatusInProgress {
			t.Fatalf("a stopped export: %+v, %v; want IN_PROGRESS", got, err)
		}
		if d, err = runExport(db, d.ExportID, DirBucket{dir}, 4, 7, root); err != nil || d.ItemCount != int64(len(want)) {
			t.Fatalf("the export run again after %d transactions: %+v, %v", stopAfter, d, err)
		}
		in := ImportTableInput{S3Bucket: "b", S3KeyPrefix: exportBase("", d.ExportID), InputFormat: InputFormatDynamoDBJSON,
			InputCompressionType: InputCompressionGzip, TableName: "Copy" + strconv.Itoa(stopAfter), Schema: exportSchema}
		im, err := StartImport(db, in, root)
		if err != nil {
			t.Fatal(err)
		}
		n = stopAfter
		if _, err := runImport(stoppingTransactor{db, &n}, im.ImportID, DirBucket{dir}, nil, 4, root); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("import stopped after %d: %v", stopAfter, err)
		} else if err != nil {
			if _, err := Open(db, in.TableName, root); !errors.Is(err, ErrResourceNotFound) {
				t.Fatalf("a stopped import's table is visible: %v", err)
			}
		}
		if im, err = runImport(db, im.ImportID, DirBucket{dir}, nil, 4, root); err != nil || im.ImportStatus != ImportStatusCompleted ||
			im.ImportedItemCount != int64(len(want)) || im.ProcessedItemCount != int64(len(want)) {
			t.Fatalf("the import run again after %d transactions: %+v, %v", stopAfter, im, err)
		}
		sameTable(t, db, want, mustOpen(t, db, in.TableName, root))
	}
}
