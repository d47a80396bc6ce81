package fdyno

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
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
			// Without counts: counted metadata is FormatVersion 4 whatever
			// its indexes (invariant 6).
			tbl := newTestTable(t, db, TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}},
				AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}}, WithoutCounts: true})
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

// TransactWrite and BatchWrite on a table with multi-attribute GSIs keep
// the entries exact: an action giving a key attribute another type refuses
// the whole request, which writes nothing; the others join, move and leave
// entries as single writes do; the stream carries the items' images, one
// record per item, never index entries.
func TestMultiKeyTransactAndBatchWrites(t *testing.T) {
	db := fdblitetest.Open(t)
	s := tournamentSchema()
	s.StreamViewType = StreamViewTypeNewAndOldImages
	tbl := newTestTable(t, db, s)
	for _, it := range tournamentMatches {
		mustPut(t, db, tbl, it)
	}
	regionIDs := func() []string {
		t.Helper()
		out, err := tbl.Query(db, QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: "tournamentId = :t AND #region = :r",
			ExpressionAttributeNames: map[string]string{"#region": "region"}, ExpressionAttributeValues: values(":t", S("WINTER2024"), ":r", S("NA-EAST"))})
		if err != nil {
			t.Fatal(err)
		}
		return matchIDs(out.Items)
	}
	before := []string{"match-003", "match-006", "match-002", "match-001"}
	if diff := cmp.Diff(before, regionIDs()); diff != "" {
		t.Fatalf("before (-want +got):\n%s", diff)
	}
	recs, err := tbl.GetRecords(db, GetRecordsInput{})
	if err != nil {
		t.Fatal(err)
	}
	after := recs.LastEvaluatedSequenceNumber
	newMatch := match("match-010", "WINTER2024", "NA-EAST", "FINALS", "UPPER", "101", "2024-01-22")
	refused := []TransactWriteInput{
		{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: tbl, Item: newMatch}},
			{Update: &TransactUpdate{Table: tbl, Key: Item{"matchId": S("match-001")}, UpdateExpression: "SET bracket = :n", ExpressionAttributeValues: values(":n", NInt(1))}}}},
		{TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Table: tbl, Key: Item{"matchId": S("match-002")}}},
			{Put: &TransactPut{Table: tbl, Item: newMatch.with("matchId", S("match-011")).with("region", B([]byte("x")))}}}},
	}
	for i, in := range refused {
		if _, err := TransactWrite(db, in); err == nil {
			t.Errorf("TransactWrite %d with a mistyped index key attribute: no error", i)
		}
	}
	if _, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {
		{PutRequest: &PutRequest{Item: newMatch}},
		{DeleteRequest: &DeleteRequest{Key: Item{"matchId": S("match-003")}}},
		{PutRequest: &PutRequest{Item: newMatch.with("matchId", S("match-012")).with("round", NInt(3))}},
	}}}); err == nil {
		t.Error("BatchWrite with a mistyped index key attribute: no error")
	}
	if diff := cmp.Diff(before, regionIDs()); diff != "" {
		t.Fatalf("a refused request changed the index (-want +got):\n%s", diff)
	}
	if recs, err := tbl.GetRecords(db, GetRecordsInput{ExclusiveStartSequenceNumber: after}); err != nil || len(recs.Records) != 0 {
		t.Fatalf("a refused request left stream records: %v, %v", recs, err)
	}
	// One transaction: match-007 joins (its bracket), match-002 moves to
	// the finals, match-006 leaves (no region), match-001 is deleted.
	if _, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
		{Update: &TransactUpdate{Table: tbl, Key: Item{"matchId": S("match-007")}, UpdateExpression: "SET bracket = :b", ExpressionAttributeValues: values(":b", S("LOWER"))}},
		{Update: &TransactUpdate{Table: tbl, Key: Item{"matchId": S("match-002")}, UpdateExpression: "SET round = :r", ExpressionAttributeValues: values(":r", S("FINALS"))}},
		{Update: &TransactUpdate{Table: tbl, Key: Item{"matchId": S("match-006")}, UpdateExpression: "REMOVE #region", ExpressionAttributeNames: map[string]string{"#region": "region"}}},
		{Delete: &TransactDelete{Table: tbl, Key: Item{"matchId": S("match-001")}}},
	}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"match-003", "match-002", "match-007"}, regionIDs()); diff != "" {
		t.Errorf("after the transaction (-want +got):\n%s", diff)
	}
	// One batch: match-010 joins, match-003 is deleted.
	if _, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {
		{PutRequest: &PutRequest{Item: newMatch}},
		{DeleteRequest: &DeleteRequest{Key: Item{"matchId": S("match-003")}}},
	}}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"match-002", "match-007", "match-010"}, regionIDs()); diff != "" {
		t.Errorf("after the batch (-want +got):\n%s", diff)
	}
	recs, err = tbl.GetRecords(db, GetRecordsInput{ExclusiveStartSequenceNumber: after})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]EventName{}
	for _, r := range recs.Records {
		id := r.Keys["matchId"].S()
		if len(r.Keys) != 1 {
			t.Errorf("record of %s has Keys %v, want the table key", id, r.Keys)
		}
		if _, dup := got[id]; dup {
			t.Errorf("two records of %s", id)
		}
		got[id] = r.EventName
		if img := r.NewImage; img != nil && img["score"].S() != id+" score" {
			t.Errorf("record of %s: NewImage %v is not the item", id, img)
		}
		if img := r.OldImage; img != nil && img["score"].S() != id+" score" {
			t.Errorf("record of %s: OldImage %v is not the item", id, img)
		}
	}
	want := map[string]EventName{"match-007": EventNameModify, "match-002": EventNameModify, "match-006": EventNameModify,
		"match-001": EventNameRemove, "match-010": EventNameInsert, "match-003": EventNameRemove}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream records (-want +got):\n%s", diff)
	}
}

// The table's partition key as a sort attribute of a GSI (the guide's
// TournamentRegionIndex ends with matchId): a value the table takes (up to
// 2048 bytes) but a sort attribute cannot (over 1024) is an index key
// violation, and DynamoDB rejects such writes ("Detecting and correcting
// index key violations": after the backfill, all writes to items that
// violate the index's key schema are rejected), rather than leaving the
// item out of the index. Each partition attribute keeps 2048 bytes.
func TestMultiKeyTableKeyAsSortAttributeSize(t *testing.T) {
	tbl, db, _ := newTournamentTable(t)
	long := strings.Repeat("m", 1025)
	const want = "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes IndexName: TournamentRegionIndex"
	_, err := tbl.Put(db, PutInput{Item: match(long, "WINTER2024", "NA-EAST", "FINALS", "UPPER", "105", "2024-01-21")})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Reason != want {
		t.Errorf("Put of a matchId of 1025 bytes: %v, want ValidationException %q", err, want)
	}
	_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Update: &TransactUpdate{Table: tbl,
		Key: Item{"matchId": S(long)}, UpdateExpression: "SET tournamentId = :t, #region = :r, round = :x, bracket = :b",
		ExpressionAttributeNames:  map[string]string{"#region": "region"},
		ExpressionAttributeValues: values(":t", S("WINTER2024"), ":r", S("NA-EAST"), ":x", S("FINALS"), ":b", S("UPPER"))}}}})
	var tce *TransactionCanceledError
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 1 || tce.CancellationReasons[0].Code != "ValidationError" || !strings.HasSuffix(tce.CancellationReasons[0].Message, want) {
		t.Errorf("TransactWrite creating an item with a matchId of 1025 bytes: %v, want the cancellation for %q", err, want)
	}
	if out, err := tbl.Get(db, GetInput{Key: Item{"matchId": S(long)}}); err != nil || out.Item != nil {
		t.Errorf("a refused write left an item (%v)", err)
	}
	// Not in TournamentRegionIndex (no bracket): the item is not an entry
	// of it, and PlayerMatchHistoryIndex does not hold matchId.
	if _, err := tbl.Put(db, PutInput{Item: match(long, "WINTER2024", "NA-EAST", "FINALS", "", "105", "2024-01-21")}); err != nil {
		t.Errorf("Put of a matchId of 1025 bytes outside the index: %v", err)
	}
	// 1024 bytes: indexed.
	ok := strings.Repeat("m", 1024)
	if _, err := tbl.Put(db, PutInput{Item: match(ok, "WINTER2024", "NA-WEST", "FINALS", "UPPER", "105", "2024-01-21")}); err != nil {
		t.Fatal(err)
	}
	out, err := tbl.Query(db, QueryInput{IndexName: "TournamentRegionIndex", KeyConditionExpression: "tournamentId = :t AND #region = :r AND round = :x",
		ExpressionAttributeNames: map[string]string{"#region": "region"}, ExpressionAttributeValues: values(":t", S("WINTER2024"), ":r", S("NA-WEST"), ":x", S("FINALS"))})
	if err != nil || len(out.Items) != 1 || out.Items[0]["matchId"].S() != ok {
		t.Errorf("the item with a matchId of 1024 bytes: %v, %v", out, err)
	}
	// A partition attribute of 2048 bytes is taken, of 2049 refused.
	if _, err := tbl.Put(db, PutInput{Item: match("match-020", strings.Repeat("t", 2048), "NA-EAST", "FINALS", "UPPER", "105", "2024-01-21")}); err != nil {
		t.Errorf("Put of a tournamentId of 2048 bytes: %v", err)
	}
	_, err = tbl.Put(db, PutInput{Item: match("match-021", strings.Repeat("t", 2049), "NA-EAST", "FINALS", "UPPER", "105", "2024-01-21")})
	if !errors.As(err, &ve) || !strings.HasPrefix(ve.Reason, "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes") {
		t.Errorf("Put of a tournamentId of 2049 bytes: %v, want the hash key size refusal", err)
	}
}

// An item giving two key attributes of a multi-attribute index another
// type is refused naming the first of them in key schema order, every
// time (the refusal does not depend on map iteration order).
func TestMultiKeyTypeMismatchNamesFirst(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, rangeGridSchema)
	const want = "One or more parameter values were invalid: Type mismatch for Index Key hn Expected: N Actual: S IndexName: grid"
	it := Item{"pk": S("p"), "h": S("x"), "hn": S("seven"), "a": N("1"), "b": NInt(5), "c": B([]byte{1})}
	for range 50 {
		_, err := tbl.Put(db, PutInput{Item: it})
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Reason != want {
			t.Fatalf("Put with hn and b mistyped: %v, want ValidationException %q", err, want)
		}
	}
}
