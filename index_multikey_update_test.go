package fdyno

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// UpdateTable adding a GSI with a multi-attribute key to a populated table
// of either format (1: before the partition directory, 2: current): the
// stored metadata moves to FormatVersion 3 with the format in Layout
// (table_meta.go, invariant 5), the backfill indexes exactly the items
// that hold every key attribute with its declared type, Query and a
// parallel Scan of the index read them, and deleting the index stores the
// metadata as before.
func TestMultiKeyAddAndDeleteIndex(t *testing.T) {
	for _, format := range []int{firstFormatVersion, metaFormatVersion} {
		t.Run("format="+strconv.Itoa(format), func(t *testing.T) {
			db := fdblitetest.Open(t)
			tbl := newTestTable(t, db, TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}},
				AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}}})
			stored := func() (version, layout int) {
				t.Helper()
				raw, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
					st, err := tbl.current(rt, rt.Get(metadataVersionKey))
					if err != nil {
						return nil, err
					}
					return rt.Get(st.keys.meta).Get()
				})
				if err != nil {
					t.Fatal(err)
				}
				var s struct{ FormatVersion, Layout int }
				if err := json.Unmarshal(raw.([]byte), &s); err != nil {
					t.Fatal(err)
				}
				return s.FormatVersion, s.Layout
			}
			if format == firstFormatVersion {
				if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					st, err := tbl.load(tr, nil)
					if err != nil {
						return nil, err
					}
					if err := putMeta(tr, st.keys, &tableMeta{format: format, name: tbl.name, schema: st.schema, cursorKey: st.cursorKey}); err != nil {
						return nil, err
					}
					bumpMetadataVersion(tr)
					return nil, nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if v, l := stored(); v != format || l != 0 {
				t.Fatalf("before: FormatVersion %d Layout %d, want %d and none", v, l, format)
			}
			var want []string // the items the index must hold, in index order
			for i := range 40 {
				it := Item{"pk": S("p" + strconv.Itoa(i)), "t": S("T" + strconv.Itoa(i%3)), "u": NInt(int64(i % 2)), "r": NInt(int64(40 - i)), "s": B([]byte{byte(i % 4)})}
				switch i % 10 {
				case 3:
					delete(it, "u") // sparse: a partition attribute missing
				case 7:
					delete(it, "s") // sparse: a sort attribute missing
				case 9:
					it["r"] = S("not a number") // another type: skipped
				}
				mustPut(t, db, tbl, it)
			}
			_, err := tbl.UpdateTable(db, UpdateTableInput{
				AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"t", ScalarAttributeTypeS}, {"u", ScalarAttributeTypeN}, {"r", ScalarAttributeTypeN}, {"s", ScalarAttributeTypeB}},
				GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: "byTU",
					KeySchema: cat(hashes("t", "u"), ranges("s", "r")), Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}}}}})
			if err != nil {
				t.Fatal(err)
			}
			if v, l := stored(); v != multiKeyFormatVersion || l != format {
				t.Errorf("with the index: FormatVersion %d Layout %d, want %d and %d", v, l, multiKeyFormatVersion, format)
			}
			if _, err := tbl.Backfill(t.Context(), db, BackfillInput{IndexName: "byTU", BatchSize: 7}); err != nil {
				t.Fatal(err)
			}
			checkTable(t, db, tbl)
			// Partition (T1, 0): i%3 == 1 and i even, without i%10 in {3, 7, 9}.
			type entry struct {
				s  byte
				r  int
				pk string
			}
			var es []entry
			for i := range 40 {
				if i%3 == 1 && i%2 == 0 && i%10 != 3 && i%10 != 7 && i%10 != 9 {
					es = append(es, entry{byte(i % 4), 40 - i, "p" + strconv.Itoa(i)})
				}
			}
			slices.SortFunc(es, func(a, b entry) int {
				if a.s != b.s {
					return int(a.s) - int(b.s)
				}
				return a.r - b.r
			})
			for _, e := range es {
				want = append(want, e.pk)
			}
			var got []string
			for it, err := range tbl.QueryAll(t.Context(), db, QueryInput{IndexName: "byTU", KeyConditionExpression: "t = :t AND u = :u",
				ExpressionAttributeValues: values(":t", S("T1"), ":u", NInt(0)), Limit: 2}) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, it["pk"].S())
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("partition (T1, 0) (-want +got):\n%s", diff)
			}
			// A parallel Scan of the index reads every entry exactly once.
			seen := map[string]int{}
			for seg := range 3 {
				for it, err := range tbl.ScanAll(t.Context(), db, ScanInput{IndexName: "byTU", Segment: seg, TotalSegments: 3, Limit: 3}) {
					if err != nil {
						t.Fatal(err)
					}
					seen[it["pk"].S()]++
				}
			}
			for i := range 40 {
				pk, n := "p"+strconv.Itoa(i), 1
				if i%10 == 3 || i%10 == 7 || i%10 == 9 {
					n = 0
				}
				if seen[pk] != n {
					t.Errorf("parallel Scan read %s %d times, want %d", pk, seen[pk], n)
				}
			}
			if _, err := tbl.UpdateTable(db, UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "byTU"}}}}); err != nil {
				t.Fatal(err)
			}
			if v, l := stored(); v != format || l != 0 {
				t.Errorf("after deleting the index: FormatVersion %d Layout %d, want %d and none", v, l, format)
			}
			if st := reopen(t, db, tbl).state.Load(); st.format != format {
				t.Errorf("reopened table of format %d", st.format)
			}
		})
	}
}
