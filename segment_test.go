package fdyno

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"pgregory.net/rapid"
)

// partitionProblems checks segment.go's invariant 1 on the items of a
// table (packed key values → item) and its index entries: every item's
// partition, and every index entry's, has its directory entry; every
// entry decodes; a table without a sort key has no entry without its
// item; no directory exists but the table's and its indexes'. Tables of
// format 1 have no directory.
func partitionProblems(rt fdb.ReadTransaction, st *tableState, items map[string]Item, errorf func(string, ...any)) error {
	all, err := rt.GetRange(st.keys.partitions, fdb.RangeOptions{}).GetSliceWithError()
	if err != nil {
		return err
	}
	if st.format < metaFormatVersion {
		if len(all) > 0 {
			errorf("format %d table has %d partition entries", st.format, len(all))
		}
		return nil
	}
	// dirs maps each directory's prefix to its partitions; parts of each
	// directory are what its items or entries need.
	type dirCheck struct {
		name        string
		dir         partitionDir
		hashAttrs   int
		have, needs map[string]bool
	}
	dirs := []*dirCheck{{name: "table", dir: st.keys.tablePartitions(), hashAttrs: 1}}
	for _, ix := range st.indexes {
		dirs = append(dirs, &dirCheck{name: "index " + ix.name, dir: ix.parts, hashAttrs: len(ix.hash)})
	}
	for _, e := range all {
		var d *dirCheck
		for _, c := range dirs {
			if r := c.dir.all(); bytes.Compare(e.Key, r.Begin.FDBKey()) >= 0 && bytes.Compare(e.Key, r.End.FDBKey()) < 0 {
				d = c
			}
		}
		if d == nil {
			errorf("partition entry %s belongs to no directory", fdb.Printable(e.Key))
			continue
		}
		h, err := d.dir.split(e.Key, d.hashAttrs)
		if err != nil {
			errorf("%s partition entry %s: %v", d.name, fdb.Printable(e.Key), err)
			continue
		}
		if d.have == nil {
			d.have = map[string]bool{}
		}
		d.have[string(h)] = true
	}
	need := func(d *dirCheck, kv []byte) {
		h, err := hashValues(kv, d.hashAttrs)
		if err != nil {
			errorf("%s key %s: %v", d.name, fdb.Printable(kv), err)
			return
		}
		if d.needs == nil {
			d.needs = map[string]bool{}
		}
		d.needs[string(h)] = true
		if !d.have[string(h)] {
			errorf("%s: partition %s has no directory entry", d.name, fdb.Printable(h))
		}
	}
	for kv := range items {
		need(dirs[0], []byte(kv))
	}
	for i, ix := range st.indexes {
		if ix.building {
			continue // the backfill adds them
		}
		entries, err := rt.GetRange(indexRange(ix.prefix), fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return err
		}
		for _, e := range entries {
			need(dirs[i+1], e.Key[len(ix.prefix):])
		}
	}
	if st.rng.Name == "" {
		for h := range dirs[0].have {
			if !dirs[0].needs[h] {
				errorf("partition entry %s has no item", fdb.Printable([]byte(h)))
			}
		}
	}
	return nil
}

// segmentKeySets are partition key sets whose keys share long prefixes or
// cluster in a few leading bytes: a byte-range split puts nearly all of
// them in one segment.
var segmentKeySets = []struct {
	name string
	typ  ScalarAttributeType
	key  func(i int) Value
}{
	{"shared prefix", ScalarAttributeTypeS, func(i int) Value { return S(fmt.Sprintf("k%04d", i)) }},
	{"user ids", ScalarAttributeTypeS, func(i int) Value { return S(fmt.Sprintf("user#%08x", uint32(i)*2654435761)) }},
	{"timestamps", ScalarAttributeTypeS, func(i int) Value { return S(fmt.Sprintf("2026-11-24T10:%02d:%02d.%03dZ", i/600, i/10%60, i%10*100)) }},
	{"small numbers", ScalarAttributeTypeN, func(i int) Value { return NInt(int64(i)) }},
	{"large numbers", ScalarAttributeTypeN, func(i int) Value { return NInt(1_700_000_000_000 + int64(i)) }},
	{"binary counters", ScalarAttributeTypeB, func(i int) Value { return B(binary.BigEndian.AppendUint64(nil, uint64(i))) }},
	{"random", ScalarAttributeTypeB, func(i int) Value {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		return B(binary.BigEndian.AppendUint64(nil, r.Uint64()))
	}},
}

// TestSegmentFairness checks that parallel Scan segments share 1,200
// items fairly whatever their keys look like: every item is read by
// exactly one segment, and no segment reads more than twice the mean
// share, for tables with and without a sort key.
func TestSegmentFairness(t *testing.T) {
	db := fdblitetest.Open(t)
	const n = 1200
	for _, ks := range segmentKeySets {
		for _, sortKey := range []bool{false, true} {
			name := ks.name
			schema := TableSchema{
				KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}},
				AttributeDefinitions: []AttributeDefinition{{"pk", ks.typ}},
			}
			if sortKey {
				// 200 partitions of 6 items each.
				name += "/sort key"
				schema.KeySchema = append(schema.KeySchema, KeySchemaElement{"sk", KeyTypeRange})
				schema.AttributeDefinitions = append(schema.AttributeDefinitions, AttributeDefinition{"sk", ScalarAttributeTypeN})
			}
			t.Run(name, func(t *testing.T) {
				tbl := newTestTable(t, db, schema)
				var writes []WriteRequest
				flush := func() {
					if err := BatchWriteAll(context.Background(), db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: writes}}); err != nil {
						t.Fatal(err)
					}
					writes = writes[:0]
				}
				for i := range n {
					it := Item{"pk": ks.key(i)}
					if sortKey {
						it = Item{"pk": ks.key(i / 6), "sk": NInt(int64(i % 6))}
					}
					writes = append(writes, WriteRequest{PutRequest: &PutRequest{Item: it}})
					if len(writes) == 25 {
						flush()
					}
				}
				for _, total := range []int{2, 4, 8} {
					seen := map[string]int{}
					counts := make([]int, total)
					for seg := range total {
						for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{Segment: seg, TotalSegments: total, Limit: 100}) {
							if err != nil {
								t.Fatal(err)
							}
							seen[it.String()]++
							counts[seg]++
						}
					}
					if len(seen) != n {
						t.Fatalf("TotalSegments %d: read %d distinct items, stored %d", total, len(seen), n)
					}
					for k, c := range seen {
						if c != 1 {
							t.Fatalf("TotalSegments %d: item %s read %d times", total, k, c)
						}
					}
					mean := n / total
					for seg, c := range counts {
						if c > 2*mean {
							t.Errorf("TotalSegments %d: segment %d read %d items, over twice the mean %d (all: %v)", total, seg, c, mean, counts)
						}
					}
				}
			})
		}
	}
}

// recordingReader is an fdb.ReadTransactor whose transactions record the
// ranges they read (snapshot reads, the metadata version's, are not
// recorded).
type recordingReader struct {
	db     fdb.Database
	ranges *[]fdb.KeyRange
}

type recordingTransaction struct {
	fdb.ReadTransaction
	ranges *[]fdb.KeyRange
}

func (r recordingReader) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return r.db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		*r.ranges = (*r.ranges)[:0] // a retry starts again
		return f(recordingTransaction{rt, r.ranges})
	})
}

func (r recordingTransaction) GetRange(rg fdb.Range, opts fdb.RangeOptions) fdb.RangeResult {
	b, e := rg.FDBRangeKeySelectors()
	*r.ranges = append(*r.ranges, fdb.KeyRange{Begin: b.FDBKeySelector().Key.FDBKey(), End: e.FDBKeySelector().Key.FDBKey()})
	return r.ReadTransaction.GetRange(rg, opts)
}

// TestSegmentReadsItsOwnPartitions checks that a parallel Scan segment
// reads only its own slice of the partition directory and the items of
// the partitions in it, never the rest of the table.
func TestSegmentReadsItsOwnPartitions(t *testing.T) {
	db, tbl := openTestTable(t, TableSchema{
		KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
		AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN}},
	})
	for i := range 300 {
		if _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("p" + strconv.Itoa(i/3)), "sk": NInt(int64(i % 3))}}); err != nil {
			t.Fatal(err)
		}
	}
	st := tbl.state.Load()
	const total = 5
	for seg := range total {
		lo, hi := segmentBuckets(seg, total)
		dr := st.keys.tablePartitions().buckets(lo, hi)
		dir := struct{ Begin, End fdb.Key }{dr.Begin.FDBKey(), dr.End.FDBKey()}
		var ranges []fdb.KeyRange
		in := ScanInput{Segment: seg, TotalSegments: total, Limit: 7}
		for {
			out, err := tbl.Scan(recordingReader{db, &ranges}, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, rg := range ranges {
				r := struct{ Begin, End fdb.Key }{rg.Begin.FDBKey(), rg.End.FDBKey()}
				if bytes.Compare(r.Begin, dir.Begin) >= 0 && bytes.Compare(r.End, dir.End) <= 0 {
					continue // the segment's directory slice
				}
				// A partition's read ends at itemKey(prefixEnd(h)).
				var h []byte
				kv, err := st.keys.splitItemKey(r.End[:max(len(r.End)-1, 0)])
				if err == nil {
					h, err = hashValue(kv)
				}
				if err != nil || len(h) != len(kv) || r.End[len(r.End)-1] != 0xff || !bytes.HasPrefix(r.Begin, st.keys.itemKey(h)) {
					t.Fatalf("segment %d read %s..%s, neither its directory nor one partition", seg, fdb.Printable(r.Begin), fdb.Printable(r.End))
				}
				if b := uint64(partitionBucket(h)); b < lo || b >= hi {
					t.Fatalf("segment %d read partition %s of bucket %d, outside [%d, %d)", seg, fdb.Printable(h), b, lo, hi)
				}
			}
			if out.Cursor == nil {
				break
			}
			in.Cursor = out.Cursor
		}
	}
}

// TestParallelScanWhileWriting checks segment.go's invariant 3: while
// other items are inserted, overwritten and deleted between the pages of
// the segments, every item present for the whole scan is read exactly
// once, and nothing is read that was never written.
func TestParallelScanWhileWriting(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		schema := TableSchema{
			KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}},
			AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}},
		}
		sortKey := rapid.Bool().Draw(rt, "sortKey")
		if sortKey {
			schema.KeySchema = append(schema.KeySchema, KeySchemaElement{"sk", KeyTypeRange})
			schema.AttributeDefinitions = append(schema.AttributeDefinitions, AttributeDefinition{"sk", ScalarAttributeTypeN})
		}
		tbl, err := Open(db, "Seg"+strconv.Itoa(n), root, WithSchema(schema))
		if err != nil {
			rt.Fatal(err)
		}
		key := func(p, s int) Item {
			if sortKey {
				return Item{"pk": S("k" + strconv.Itoa(p)), "sk": NInt(int64(s))}
			}
			return Item{"pk": S("k" + strconv.Itoa(p*10+s))}
		}
		// Stable items live in partitions 0..19, sort keys 0..2; churn
		// uses sort keys 3..5 of the same partitions and partitions
		// 20..29.
		stable := map[string]Item{}
		for _, k := range rapid.SliceOfNDistinct(rapid.IntRange(0, 59), 1, 40, rapid.ID).Draw(rt, "stable") {
			it := key(k/3, k%3)
			if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
				rt.Fatal(err)
			}
			stable[it.String()] = it
		}
		churn := func() {
			for range rapid.IntRange(0, 3).Draw(rt, "writes") {
				p := rapid.IntRange(0, 29).Draw(rt, "partition")
				it := key(p, 3+rapid.IntRange(0, 2).Draw(rt, "sort"))
				if rapid.Bool().Draw(rt, "delete") {
					if _, err := tbl.Delete(db, DeleteInput{Key: it}); err != nil {
						rt.Fatal(err)
					}
				} else if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
					rt.Fatal(err)
				}
			}
			// Overwrite a stable item: it stays present.
			for _, it := range stable {
				if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
					rt.Fatal(err)
				}
				break
			}
		}
		total := rapid.IntRange(2, 6).Draw(rt, "total")
		limit := rapid.IntRange(1, 4).Draw(rt, "limit")
		seen := map[string]int{}
		for seg := range total {
			in := ScanInput{Segment: seg, TotalSegments: total, Limit: limit, ProjectionExpression: "pk, sk"}
			if !sortKey {
				in.ProjectionExpression = "pk"
			}
			for {
				churn()
				out, err := tbl.Scan(db, in)
				if err != nil {
					rt.Fatal(err)
				}
				for _, it := range out.Items {
					seen[it.String()]++
				}
				if out.LastEvaluatedKey == nil {
					break
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		}
		for k := range stable {
			if seen[k] != 1 {
				rt.Fatalf("stable item %s read %d times", k, seen[k])
			}
		}
		for k, c := range seen {
			if c != 1 {
				rt.Fatalf("item %s read %d times", k, c)
			}
		}
		if problems := tableProblems(db, tbl); len(problems) > 0 {
			rt.Fatalf("table problems: %v", problems)
		}
	})
}

// TestSegmentsOfFormat1Table checks that a table made before the
// partition directory (format 1) keeps working: writes add no directory
// entries, and its parallel Scan segments, slices of the key bytes, still
// read every item exactly once.
func TestSegmentsOfFormat1Table(t *testing.T) {
	db, tbl := openTestTable(t, TableSchema{
		KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}},
		AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}},
	})
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		st, err := tbl.load(tr, nil)
		if err != nil {
			return nil, err
		}
		if err := putMeta(tr, st.keys, &tableMeta{format: firstFormatVersion, name: tbl.name, schema: st.schema, cursorKey: st.cursorKey}); err != nil {
			return nil, err
		}
		bumpMetadataVersion(tr)
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := tbl.Put(db, PutInput{Item: Item{"pk": S(fmt.Sprintf("k%03d", i))}}); err != nil {
			t.Fatal(err)
		}
	}
	if st := tbl.state.Load(); st.format != firstFormatVersion {
		t.Fatalf("table format %d, want %d", st.format, firstFormatVersion)
	}
	seen := map[string]int{}
	for seg := range 3 {
		for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{Segment: seg, TotalSegments: 3, Limit: 4}) {
			if err != nil {
				t.Fatal(err)
			}
			seen[it["pk"].S()]++
		}
	}
	if len(seen) != 50 {
		t.Fatalf("read %d items, want 50", len(seen))
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("item %s read %d times", k, c)
		}
	}
	// checkTable (newTestTable's cleanup) checks that no directory
	// entry was written.
}

// TestSegmentStartKeyValidation checks DynamoDB's error for an
// ExclusiveStartKey that another segment owns, and that a cursor cannot
// move to another segment.
func TestSegmentStartKeyValidation(t *testing.T) {
	db, tbl := openTestTable(t, TableSchema{
		KeySchema:            []KeySchemaElement{{"pk", KeyTypeHash}},
		AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}},
	})
	for i := range 20 {
		if _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k" + strconv.Itoa(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := tbl.Scan(db, ScanInput{Segment: 0, TotalSegments: 2, Limit: 1})
	if err != nil || out.LastEvaluatedKey == nil {
		t.Fatalf("Scan() = %v, %v; want a page with LastEvaluatedKey", out, err)
	}
	_, err = tbl.Scan(db, ScanInput{Segment: 1, TotalSegments: 2, ExclusiveStartKey: out.LastEvaluatedKey})
	want := "The provided Exclusive start key does not map to the provided Segment: TotalSegments: 2 Segment: 1"
	if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), want) {
		t.Errorf("Scan(start key of segment 0, Segment 1) error = %v, want ErrValidation %q", err, want)
	}
	_, err = tbl.Scan(db, ScanInput{Segment: 1, TotalSegments: 2, Cursor: out.Cursor})
	if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "cursor is invalid") {
		t.Errorf("Scan(cursor of segment 0, Segment 1) error = %v, want an invalid cursor", err)
	}
	_, err = tbl.Scan(db, ScanInput{Segment: 0, TotalSegments: 3, Cursor: out.Cursor})
	if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "cursor is invalid") {
		t.Errorf("Scan(cursor of 2 segments, 3 segments) error = %v, want an invalid cursor", err)
	}
}

func FuzzSplitPartitionKey(f *testing.F) {
	keys := newTableKeys(subspace.Sub("t"))
	dirs := []partitionDir{keys.tablePartitions(), keys.indexPartitions("byDate")}
	for _, v := range []Value{S(""), S("k0001"), NInt(-5), B([]byte{0, 0xff, 1})} {
		h, err := packKeyValues(v)
		if err != nil {
			f.Fatal(err)
		}
		for _, d := range dirs {
			f.Add([]byte(d.key(h)))
		}
	}
	// A multi-attribute partition key of three values.
	if h, err := packKeyValues(S("T1"), NInt(7), B([]byte{0})); err == nil {
		f.Add([]byte(dirs[1].key(h)))
	}
	f.Fuzz(func(t *testing.T, key []byte) {
		for _, d := range dirs {
			h, err := d.split(key, 1)
			if err != nil {
				if h3, err3 := d.split(key, 3); err3 == nil && !bytes.Equal(d.key(h3), key) {
					t.Fatalf("split(%x, 3) = %x, whose key is %x", key, h3, d.key(h3))
				}
				var ce *CorruptError
				if !errors.As(err, &ce) {
					t.Fatalf("split(%x) error %T, want *CorruptError", key, err)
				}
				continue
			}
			if got := d.key(h); !bytes.Equal(got, key) {
				t.Fatalf("split(%x) = %x, whose key is %x", key, h, got)
			}
		}
	})
}
