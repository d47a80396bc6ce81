package fdyno

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"go/ast"
	gotoken "go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var updateMeta = flag.Bool("update-meta", false, "write this version's golden metadata samples missing from testdata/meta (an existing sample is never rewritten)")

// The golden metadata: one sample of every format any version of fdyno
// has written, in testdata/meta, of one table (Music: hash and range key,
// an INCLUDE LSI, two GSIs of which byK is being backfilled, a two-shard
// stream, TTL, and every setting). The legacy samples were reconstructed
// from the history by encoding that table with each version's own stored
// types; they are never regenerated. The current version's samples are
// written by encodeMeta with -update-meta, once: a sample a version has
// stored is write-once, and -update-meta fails rather than rewrite one
// that differs (a changed format is a new version with its own sample).
var metaGoldens = []struct {
	file string
	// what the version added, and the commit that wrote it
	added string
	// want holds what the version stored; legacySettings, the settings
	// it kept among the properties.
	want           func(*tableMeta)
	legacySettings string
	// rewrite, if not empty, is the sample a rewrite of this one stores:
	// a later format of the same metadata.
	rewrite string
}{
	{"1-schema.json", "format 1: name and schema (c073444)", func(m *tableMeta) {
		m.format, m.schema.StreamShards = 1, 0
	}, "", ""},
	{"1-building.json", "GSIs being backfilled (f0e7be2)", func(m *tableMeta) {
		m.format, m.schema.StreamShards, m.building = 1, 0, []string{"byK"}
	}, "", ""},
	{"1-stream-shards.json", "stream shards (a6a78ad)", func(m *tableMeta) {
		m.format = 1
	}, "", ""},
	{"1-cursor-key.json", "the cursors' secret (effedfd)", func(m *tableMeta) {
		m.format, m.building, m.cursorKey = 1, []string{"byK"}, goldenCursorKey
	}, "", ""},
	{"1-properties.json", "identity and properties (2d54d6d)", func(m *tableMeta) {
		m.format, m.building, m.cursorKey, m.tableID, m.created = 1, []string{"byK"}, goldenCursorKey, goldenTableID, goldenCreated
	}, goldenSettings, ""},
	{"2-partition-directory.json", "format 2: the partition directory (454ab4b)", func(m *tableMeta) {
		m.building, m.cursorKey = []string{"byK"}, goldenCursorKey
	}, "", ""},
	{"2-point-in-time-recovery.json", "point-in-time recovery setting (841c4f9)", func(m *tableMeta) {
		m.building, m.cursorKey, m.tableID, m.created = []string{"byK"}, goldenCursorKey, goldenTableID, goldenCreated
	}, goldenSettingsPITR, ""},
	{"2-stream-label.json", "the stream's label (618dbe2)", func(m *tableMeta) {
		m.building, m.cursorKey, m.tableID, m.created = []string{"byK"}, goldenCursorKey, goldenTableID, goldenCreated
		m.streamLabel, m.streamStartAfter = goldenLabel, goldenStartAfter
	}, goldenSettingsPITR, ""},
	{"2-disabled-streams.json", "disabled streams (d8c8d44)", func(m *tableMeta) {
		m.building, m.cursorKey, m.tableID, m.created = []string{"byK"}, goldenCursorKey, goldenTableID, goldenCreated
		m.streamLabel, m.streamStartAfter, m.disabledStreams = goldenLabel, goldenStartAfter, goldenDisabled
	}, goldenSettings, ""},
	{"2-settings-record.json", "this version: the settings record", currentGolden(2), "", ""},
	{"1-settings-record.json", "this version, a format 1 table", currentGolden(1), "", ""},
	{"3-multi-attribute-keys.json", "this version: a GSI with a multi-attribute key (FormatVersion 3)", multiKeyGolden(2), "", ""},
	{"3-multi-attribute-keys-layout-1.json", "this version: a format 1 table with a multi-attribute GSI key", multiKeyGolden(1), "", ""},
	{"2-counted.json", "exact counters, before invariant 6 (acb3bc4)", countedGolden(2, false), "", "4-counted.json"},
	{"4-counted.json", "this version: exact counters (FormatVersion 4, invariant 6)", countedGolden(2, false), "", ""},
	{"4-counted-layout-1.json", "this version: a format 1 table with exact counters", countedGolden(1, false), "", ""},
	{"4-counting.json", "this version: the counting pass under way", countedGolden(2, true), "", ""},
}

var (
	goldenCursorKey  = []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}
	goldenTableID    = "0f8fad5b-d9cb-469f-a165-70867728950e"
	goldenCreated    = time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC)
	goldenLabel      = "2026-11-24T13:00:00.000"
	goldenStartAfter = "00000000000000001234567890123"
	goldenDisabled   = []DisabledStream{{StreamLabel: "2026-11-24T12:00:00.123", StreamViewType: StreamViewTypeKeysOnly,
		DisabledAt: time.Date(2026, 11, 24, 12, 30, 0, 0, time.UTC), LastSequenceNumber: "00000000000000001234500000001"}}
	goldenSettings = `{"BillingMode":"PROVISIONED","DeletionProtectionEnabled":true,
		"IndexThroughput":{"byG":{"ReadCapacityUnits":1,"WriteCapacityUnits":2},"byK":{"ReadCapacityUnits":3,"WriteCapacityUnits":4}},
		"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":6},
		"Tags":[{"Key":"env","Value":"prod"},{"Key":"team","Value":"catalog"}]}`
	goldenSettingsPITR = strings.Replace(goldenSettings, `{"BillingMode"`, `{"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":35,"BillingMode"`, 1)
)

// goldenSchema is the Music table's schema, canonical.
func goldenSchema() TableSchema {
	return TableSchema{
		KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
		AttributeDefinitions: []AttributeDefinition{{"g", ScalarAttributeTypeS}, {"lsk", ScalarAttributeTypeS}, {"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN}},
		LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "byL", KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"lsk", KeyTypeRange}},
			Projection: Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"a", "b"}}}},
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{
			{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}},
			{IndexName: "byK", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}, {"sk", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
		},
		StreamViewType: StreamViewTypeNewAndOldImages, TimeToLiveAttribute: "expires", StreamShards: 2,
	}
}

// currentGolden returns the metadata this version writes for the Music
// table in format format.
func currentGolden(format int) func(*tableMeta) {
	return func(m *tableMeta) {
		m.format, m.building, m.cursorKey, m.tableID, m.created = format, []string{"byK"}, goldenCursorKey, goldenTableID, goldenCreated
		m.streamLabel, m.streamStartAfter, m.disabledStreams = goldenLabel, goldenStartAfter, goldenDisabled
		m.settings = []byte("\x00server's own bytes\xff")
	}
}

// multiKeyGolden returns the metadata this version writes for the Music
// table in format format with a third GSI, byM, whose partition key is g
// and lsk and whose sort key is sk and pk (index_keys.go).
func multiKeyGolden(format int) func(*tableMeta) {
	return func(m *tableMeta) {
		currentGolden(format)(m)
		m.building = nil
		m.schema.GlobalSecondaryIndexes = append(m.schema.GlobalSecondaryIndexes, GlobalSecondaryIndex{IndexName: "byM",
			KeySchema:  []KeySchemaElement{{"g", KeyTypeHash}, {"lsk", KeyTypeHash}, {"sk", KeyTypeRange}, {"pk", KeyTypeRange}},
			Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}})
	}
}

// countedGolden returns the metadata this version writes for the Music
// table in format format with exact counters, or with its counting pass
// under way (counts_build.go).
func countedGolden(format int, counting bool) func(*tableMeta) {
	return func(m *tableMeta) {
		currentGolden(format)(m)
		m.counted, m.counting = !counting, counting
	}
}

// writeGoldenOnce creates the golden sample path holding raw. A sample
// that exists already is left as it is: if it differs from raw, the
// format changed under a stored version, and the test fails.
func writeGoldenOnce(t *testing.T, path string, raw []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, raw) {
			t.Fatalf("-update-meta: %s exists and encodeMeta now writes something else; a stored version's sample is write-once: give the new format a new version and sample", path)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(raw); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func wantGolden(i int) *tableMeta {
	m := &tableMeta{name: "Music", schema: goldenSchema(), format: 2}
	metaGoldens[i].want(m)
	return m
}

// metaCmp compares metadata as stored: storedVersion is what decodeMeta
// read, not part of the metadata.
var metaCmp = cmp.Options{cmp.AllowUnexported(tableMeta{}), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmpopts.IgnoreFields(tableMeta{}, "storedVersion")}

// Every later version decodes every format ever written, to the table it
// stored; legacy settings become the settings record, and a rewrite keeps
// everything while storing them as one (invariant 4). This version's
// samples are exactly what encodeMeta writes.
func TestMetaGoldens(t *testing.T) {
	for i, g := range metaGoldens {
		t.Run(g.file, func(t *testing.T) {
			path := filepath.Join("testdata", "meta", g.file)
			want := wantGolden(i)
			if *updateMeta && g.legacySettings == "" && (strings.HasSuffix(g.file, "-settings-record.json") || strings.HasPrefix(g.file, "3-") || strings.HasPrefix(g.file, "4-")) {
				raw, err := encodeMeta(want)
				if err != nil {
					t.Fatal(err)
				}
				writeGoldenOnce(t, path, append(raw, '\n'))
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			raw = bytes.TrimSpace(raw)
			got, err := decodeMeta(raw, "Music")
			if err != nil {
				t.Fatalf("decodeMeta(%s, the format of %s): %v", g.file, g.added, err)
			}
			settings := got.settings
			got.settings = nil
			if g.legacySettings == "" {
				got.settings = settings
			} else if !sameJSON(t, g.legacySettings, settings) {
				t.Errorf("legacy settings = %s, want %s", settings, g.legacySettings)
			}
			if diff := cmp.Diff(want, got, metaCmp); diff != "" {
				t.Errorf("decodeMeta(%s) mismatch (-want +got):\n%s", g.file, diff)
			}
			got.settings = settings
			again, err := encodeMeta(got)
			if err != nil {
				t.Fatal(err)
			}
			rewritten := raw
			if g.rewrite != "" {
				if rewritten, err = os.ReadFile(filepath.Join("testdata", "meta", g.rewrite)); err != nil {
					t.Fatal(err)
				}
				rewritten = bytes.TrimSpace(rewritten)
			}
			if g.legacySettings == "" && !bytes.Equal(again, rewritten) {
				t.Errorf("encodeMeta(decodeMeta(%s)) differs:\n got %s\nwant %s", g.file, again, rewritten)
			}
			back, err := decodeMeta(again, "Music")
			if err != nil {
				t.Fatalf("decoding the rewrite: %v", err)
			}
			if diff := cmp.Diff(got, back, metaCmp); diff != "" {
				t.Errorf("a rewrite of %s loses (-before +after):\n%s", g.file, diff)
			}
			var stored struct{ Properties map[string]any }
			if err := json.Unmarshal(again, &stored); err != nil {
				t.Fatal(err)
			}
			for k := range stored.Properties {
				if !strings.HasPrefix(k, "Stream") && k != "DisabledStreams" {
					t.Errorf("the rewrite keeps the legacy setting %s among the properties", k)
				}
			}
		})
	}
}

func sameJSON(t *testing.T, want string, got []byte) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal([]byte(want), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// Tables stored by every version stay usable: a table whose metadata is a
// golden sample opens, describes itself as stored, takes writes (which
// keep its settings) and reads them back through its indexes and stream.
func TestMetaGoldenTablesOpen(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	for i, g := range metaGoldens {
		t.Run(g.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "meta", g.file))
			if err != nil {
				t.Fatal(err)
			}
			root := testRoot(t, db)
			want := wantGolden(i)
			// A table of the golden's schema, whose metadata is then
			// replaced by the golden's. An index being built is added by
			// UpdateTable, whose backfill has not run.
			schema := want.schema
			if want.building != nil {
				schema = want.schema.clone()
				schema.GlobalSecondaryIndexes = schema.GlobalSecondaryIndexes[:1]
			}
			tbl := mustOpen(t, db, "Music", root, WithSchema(schema))
			if want.building != nil {
				byK := want.schema.GlobalSecondaryIndexes[1]
				// The request defines the new index's keys (DynamoDB's
				// rule), with the types the golden's schema gives them.
				var defs []AttributeDefinition
				for _, k := range byK.KeySchema {
					for _, d := range want.schema.AttributeDefinitions {
						if d.AttributeName == k.AttributeName {
							defs = append(defs, d)
						}
					}
				}
				if _, err := tbl.UpdateTable(db, UpdateTableInput{AttributeDefinitions: defs, GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{
					IndexName: byK.IndexName, KeySchema: byK.KeySchema, Projection: byK.Projection}}}}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				st, err := tbl.load(tr, nil)
				if err != nil {
					return nil, err
				}
				tr.Set(st.keys.meta, bytes.TrimSpace(raw))
				if want.counting {
					// The counting pass's start: nothing counted, nothing passed.
					tr.ClearRange(st.keys.counts)
					tr.Set(st.keys.countProgressKey(), backfillCursor{}.encode())
				}
				bumpMetadataVersion(tr)
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
			tbl, err = Open(db, "Music", root)
			if err != nil {
				t.Fatalf("Open of a %s table: %v", g.added, err)
			}
			t.Cleanup(func() { checkTable(t, db, tbl) })
			d, err := tbl.Describe(db)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.schema, d.TableSchema); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
			if d.TableID != want.tableID || !d.CreationDateTime.Equal(want.created) || d.StreamLabel != want.streamLabel {
				t.Errorf("identity %q %v %q, want %q %v %q", d.TableID, d.CreationDateTime, d.StreamLabel, want.tableID, want.created, want.streamLabel)
			}
			for _, gsi := range d.GlobalSecondaryIndexDescriptions {
				if building := gsi.IndexName == "byK" && want.building != nil; (gsi.IndexStatus == IndexStatusCreating) != building {
					t.Errorf("index %s is %s", gsi.IndexName, gsi.IndexStatus)
				}
			}
			it := Item{"pk": S("Acme"), "sk": N("1"), "g": S("rock"), "lsk": S("x"), "a": S("kept")}
			if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
				t.Fatal(err)
			}
			q, err := tbl.Query(db, QueryInput{IndexName: "byG", KeyConditionExpression: "g = :g", ExpressionAttributeValues: map[string]Value{":g": S("rock")}})
			if err != nil || len(q.Items) != 1 || !q.Items[0].Equal(it) {
				t.Errorf("Query byG: %v, %v; want the item", q, err)
			}
			recs, err := tbl.GetRecords(db, GetRecordsInput{})
			if err != nil || len(recs.Records) != 1 || recs.Records[0].EventName != EventNameInsert {
				t.Errorf("GetRecords: %v, %v; want the INSERT", recs, err)
			}
			// A metadata rewrite keeps the settings.
			if _, err := tbl.UpdateTable(db, UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"h", ScalarAttributeTypeS}},
				GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "byH",
					KeySchema: []KeySchemaElement{{"h", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}}}); err != nil {
				t.Fatal(err)
			}
			d2, err := tbl.Describe(db)
			if err != nil {
				t.Fatal(err)
			}
			if want := d.Settings; g.legacySettings != "" && !sameJSON(t, g.legacySettings, d2.Settings) || g.legacySettings == "" && !bytes.Equal(want, d2.Settings) {
				t.Errorf("settings after UpdateTable %s, before %s", d2.Settings, d.Settings)
			}
		})
	}
}

// FuzzDecodeMeta: decodeMeta never panics, and what it decodes encodes and
// decodes again to the same metadata.
func FuzzDecodeMeta(f *testing.F) {
	for _, g := range metaGoldens {
		raw, err := os.ReadFile(filepath.Join("testdata", "meta", g.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.TrimSpace(raw))
	}
	f.Add([]byte(`{"FormatVersion":3}`))
	f.Add([]byte(`{"FormatVersion":1,"Properties":{"Tags":7}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := decodeMeta(raw, "T")
		if err != nil {
			return
		}
		enc, err := encodeMeta(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeMeta(enc, "T")
		if err != nil {
			t.Fatalf("decoding the re-encoding %s: %v", enc, err)
		}
		if diff := cmp.Diff(m, back, metaCmp, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}

// Exported types carry no storage tags: what is stored is table_meta.go's
// unexported types, so an exported field can be renamed without changing
// any table's stored bytes.
func TestExportedTypesHaveNoStorageTags(t *testing.T) {
	fset := gotoken.NewFileSet()
	for _, src := range parseSources(t, fset) {
		ast.Inspect(src.f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fld := range st.Fields.List {
				if fld.Tag != nil {
					t.Errorf("%s: exported type %s has the field tag %s", fset.Position(fld.Pos()), ts.Name.Name, fld.Tag.Value)
				}
			}
			return true
		})
	}
}

// Open with the schema an existing table has succeeds whether its empty
// lists are nil or empty, as they store the same.
func TestOpenSameSchemaEmptyLists(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	root := testRoot(t, db)
	s := hashRange
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byA", KeySchema: []KeySchemaElement{{"sk", KeyTypeHash}},
		Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}
	if _, err := Open(db, "Same", root, WithSchema(s)); err != nil {
		t.Fatal(err)
	}
	s.LocalSecondaryIndexes = []LocalSecondaryIndex{}
	s.GlobalSecondaryIndexes[0].Projection.NonKeyAttributes = []string{}
	if _, err := Open(db, "Same", root, WithSchema(s)); err != nil {
		t.Errorf("Open with empty lists for absent ones: %v", err)
	}
}

// TestMetaMultiKeyFormat checks invariant 5: metadata with a GSI whose key
// has several HASH or RANGE attributes is stored under a FormatVersion
// the versions before multi-attribute keys refuse (they accept 1 and 2
// only), the format moving to Layout; any other metadata keeps its old
// form, also after its last multi-attribute GSI is deleted. Metadata
// claiming one form with the other's schema is refused.
func TestMetaMultiKeyFormat(t *testing.T) {
	stored := func(m *tableMeta) (version, layout int) {
		raw, err := encodeMeta(m)
		if err != nil {
			t.Fatal(err)
		}
		var s struct{ FormatVersion, Layout int }
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s.FormatVersion, s.Layout
	}
	for _, format := range []int{1, 2} {
		m := &tableMeta{name: "Music", schema: goldenSchema(), format: format}
		multiKeyGolden(format)(m)
		if v, l := stored(m); v <= 2 || l != format {
			t.Errorf("format %d with a multi-attribute GSI stored as FormatVersion %d Layout %d, want > 2 and %d", format, v, l, format)
		}
		m.schema.GlobalSecondaryIndexes = m.schema.GlobalSecondaryIndexes[:2] // byM deleted
		if v, l := stored(m); v != format || l != 0 {
			t.Errorf("format %d without one stored as FormatVersion %d Layout %d, want %d and none", format, v, l, format)
		}
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "meta", "3-multi-attribute-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		strings.Replace(string(raw), `"FormatVersion":3,"Layout":2`, `"FormatVersion":2`, 1),
		strings.Replace(string(raw), `"Layout":2`, `"Layout":3`, 1),
		strings.Replace(string(raw), `"Layout":2,`, ``, 1),
	} {
		if _, err := decodeMeta([]byte(bad), "Music"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decodeMeta(%.60s…) error = %v, want ErrCorrupt", bad, err)
		}
	}
}

// TestMetaUniqueFormat checks invariant 5 for unique GSIs (unique.go):
// metadata with one is stored as FormatVersion 4, which every version
// before them refuses (they would write duplicates), with the format in
// Layout; without one it returns to its old form. It decodes to what was
// encoded, and metadata claiming another FormatVersion is refused.
func TestMetaUniqueFormat(t *testing.T) {
	for _, format := range []int{1, 2} {
		for _, multi := range []bool{false, true} {
			m := &tableMeta{name: "Music", schema: goldenSchema(), format: format}
			if multi {
				multiKeyGolden(format)(m)
			}
			m.schema.GlobalSecondaryIndexes[0].Unique = true
			raw, err := encodeMeta(m)
			if err != nil {
				t.Fatal(err)
			}
			var s struct{ FormatVersion, Layout int }
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			if s.FormatVersion != uniqueFormatVersion || s.Layout != format {
				t.Errorf("format %d (multi %v) with a unique GSI stored as FormatVersion %d Layout %d, want %d and %d", format, multi, s.FormatVersion, s.Layout, uniqueFormatVersion, format)
			}
			got, err := decodeMeta(raw, "Music")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(m.schema, got.schema); d != "" || got.format != format {
				t.Errorf("decoded schema (-want +got):\n%s; format %d, want %d", d, got.format, format)
			}
			for _, v := range []int{format, multiKeyFormatVersion} {
				bad := strings.Replace(string(raw), `"FormatVersion":4`, `"FormatVersion":`+strconv.Itoa(v), 1)
				if v == format {
					bad = strings.Replace(bad, `"Layout":`+strconv.Itoa(format)+`,`, ``, 1)
				}
				if _, err := decodeMeta([]byte(bad), "Music"); !errors.Is(err, ErrCorrupt) {
					t.Errorf("decodeMeta of a unique GSI under FormatVersion %d = %v, want ErrCorrupt", v, err)
				}
			}
			m.schema.GlobalSecondaryIndexes[0].Unique = false
			if raw, err = encodeMeta(m); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			if want := m.schema.storedFormatVersion(format, false); s.FormatVersion != want {
				t.Errorf("without the unique GSI stored as FormatVersion %d, want %d", s.FormatVersion, want)
			}
		}
	}
}

// TestMetaFormatVersion checks invariants 6 and 7: metadata with exact
// counters, with the counting pass under way, or whose change log is
// captured (a backup being taken, point-in-time recovery) is stored as
// FormatVersion 4 (the format in Layout), which versions before counters
// and backups refuse. Counting under any other FormatVersion, or both
// counted and counting, was written by no version and is refused; counted
// or captured metadata under the FormatVersion of the versions before the
// rules is read as it is, and written back as FormatVersion 4.
func TestMetaFormatVersion(t *testing.T) {
	for _, tc := range []struct {
		name              string
		counted, counting bool
		multi             bool
		captures          []string
		stored            string // the FormatVersion and Layout members stored
		storeAs           string // another form to decode ("": none)
		storeAsOK         bool
	}{
		{"counted", true, false, false, nil, `"FormatVersion":4,"Layout":2`, `"FormatVersion":2`, true},
		{"counted, multi-attribute key", true, false, true, nil, `"FormatVersion":4,"Layout":2`, `"FormatVersion":3,"Layout":2`, true},
		{"counting", false, true, false, nil, `"FormatVersion":4,"Layout":2`, `"FormatVersion":2`, false},
		{"counting, multi-attribute key", false, true, true, nil, `"FormatVersion":4,"Layout":2`, `"FormatVersion":3,"Layout":2`, false},
		{"captured", false, false, false, []string{"b1"}, `"FormatVersion":4,"Layout":2`, `"FormatVersion":2`, true},
		{"captured, multi-attribute key", false, false, true, []string{"b1", "b2"}, `"FormatVersion":4,"Layout":2`, `"FormatVersion":3,"Layout":2`, true},
		{"captured and counted", true, false, false, []string{"b1"}, `"FormatVersion":4,"Layout":2`, `"FormatVersion":2`, true},
		{"neither", false, false, false, nil, `"FormatVersion":2`, `"FormatVersion":4,"Layout":2`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &tableMeta{name: "Music", schema: goldenSchema(), format: 2}
			if tc.multi {
				multiKeyGolden(2)(m)
			}
			m.counted, m.counting, m.captures = tc.counted, tc.counting, tc.captures
			raw, err := encodeMeta(m)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(raw), "{"+tc.stored+",") {
				t.Fatalf("stored as %.40s…, want %s", raw, tc.stored)
			}
			got, err := decodeMeta(raw, "Music")
			if err != nil {
				t.Fatal(err)
			}
			if got.counted != tc.counted || got.counting != tc.counting || !cmp.Equal(got.captures, tc.captures, cmpopts.EquateEmpty()) || got.format != 2 {
				t.Errorf("decoded counted %v counting %v captures %v format %d, want %v %v %v 2",
					got.counted, got.counting, got.captures, got.format, tc.counted, tc.counting, tc.captures)
			}
			other := strings.Replace(string(raw), tc.stored, tc.storeAs, 1)
			got, err = decodeMeta([]byte(other), "Music")
			if (err == nil) != tc.storeAsOK || err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decodeMeta stored as %s = %v, want ok %v", tc.storeAs, err, tc.storeAsOK)
			}
			if err != nil {
				return
			}
			again, err := encodeMeta(got)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(again), "{"+tc.stored+",") {
				t.Errorf("rewritten as %.40s…, want %s", again, tc.stored)
			}
		})
	}
	m := &tableMeta{name: "Music", schema: goldenSchema(), format: 2, counted: true}
	raw, err := encodeMeta(m)
	if err != nil {
		t.Fatal(err)
	}
	both := strings.Replace(string(raw), `"Counted":true`, `"Counted":true,"Counting":true`, 1)
	if _, err := decodeMeta([]byte(both), "Music"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("decodeMeta of counted and counting = %v, want ErrCorrupt", err)
	}
}

// A table without counters is stored under its plain format until
// point-in-time recovery captures its log, as FormatVersion 4 while it
// does, and under its plain format again once recovery is off.
func TestCapturedTableRefusedByOlderVersions(t *testing.T) {
	db := fdblitetest.Open(t)
	schema := hashOnly
	schema.WithoutCounts = true
	tbl := newTestTable(t, db, schema)
	if fv := storedFormatVersionOf(t, db, tbl); fv != metaFormatVersion {
		t.Fatalf("before recovery: FormatVersion %d, want %d", fv, metaFormatVersion)
	}
	if _, err := tbl.UpdateContinuousBackups(db, true, 1); err != nil {
		t.Fatal(err)
	}
	if fv := storedFormatVersionOf(t, db, tbl); fv != uniqueFormatVersion {
		t.Fatalf("with recovery on: FormatVersion %d, want %d", fv, uniqueFormatVersion)
	}
	if _, err := tbl.UpdateContinuousBackups(db, false, 0); err != nil {
		t.Fatal(err)
	}
	if fv := storedFormatVersionOf(t, db, tbl); fv != metaFormatVersion {
		t.Fatalf("with recovery off again: FormatVersion %d, want %d", fv, metaFormatVersion)
	}
}
