package fdyno

import (
	"context"
	"encoding/binary"
	"errors"
	"github.com/fdyno/fdyno/internal/streamrec"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// streamSchema returns hashRange with a stream of view type v in shards
// shards.
func streamSchema(v StreamViewType, shards int) TableSchema {
	s := hashRange.clone()
	s.StreamViewType = v
	s.StreamShards = shards
	return s
}

// readStream returns every record of tbl's stream, paging through
// Records.
func readStream(t fataler, db fdb.ReadTransactor, tbl *Table) []StreamRecord {
	t.Helper()
	var recs []StreamRecord
	for r, err := range tbl.Records(context.Background(), db, "") {
		if err != nil {
			t.Fatalf("Records: %v", err)
		}
		recs = append(recs, r)
	}
	return recs
}

// recordCmp compares records on what a writer decides, ignoring the
// sequence number, creation time and size, which the tests check apart.
var recordCmp = cmp.Options{itemCmp, cmpopts.IgnoreFields(StreamRecord{}, "SequenceNumber", "ApproximateCreationDateTime", "SizeBytes")}

// TestStreamRecords checks the records of Put, Update and Delete for each
// view type against DynamoDB Streams' documented contents: INSERT when
// the item did not exist, MODIFY when it did, REMOVE on delete; Keys
// always; NewImage for NEW_IMAGE and NEW_AND_OLD_IMAGES (not for REMOVE);
// OldImage for OLD_IMAGE and NEW_AND_OLD_IMAGES (not for INSERT).
func TestStreamRecords(t *testing.T) {
	db := fdblitetest.Open(t)
	key := Item{"pk": S("a"), "sk": N("1")}
	v1 := Item{"pk": S("a"), "sk": N("1"), "x": S("one")}
	v2 := Item{"pk": S("a"), "sk": N("1"), "x": S("one"), "n": N("5")}
	for _, tc := range []struct {
		view             StreamViewType
		newImage, oldImg bool
	}{
		{StreamViewTypeKeysOnly, false, false},
		{StreamViewTypeNewImage, true, false},
		{StreamViewTypeOldImage, false, true},
		{StreamViewTypeNewAndOldImages, true, true},
	} {
		t.Run(string(tc.view), func(t *testing.T) {
			tbl := newTestTable(t, db, streamSchema(tc.view, 0))
			before := time.Now().Add(-time.Second)
			mustPut(t, db, tbl, v1)
			if _, err := tbl.Update(db, UpdateInput{Key: key, UpdateExpression: "SET n = :n", ExpressionAttributeValues: map[string]Value{":n": N("5")}}); err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Delete(db, DeleteInput{Key: key}); err != nil {
				t.Fatal(err)
			}
			img := func(ok bool, it Item) Item {
				if ok {
					return it
				}
				return nil
			}
			want := []StreamRecord{
				{TableName: "Test", EventName: EventNameInsert, Keys: key, NewImage: img(tc.newImage, v1), StreamViewType: tc.view},
				{TableName: "Test", EventName: EventNameModify, Keys: key, NewImage: img(tc.newImage, v2), OldImage: img(tc.oldImg, v1), StreamViewType: tc.view},
				{TableName: "Test", EventName: EventNameRemove, Keys: key, OldImage: img(tc.oldImg, v2), StreamViewType: tc.view},
			}
			got := readStream(t, db, tbl)
			if diff := cmp.Diff(want, got, recordCmp); diff != "" {
				t.Fatalf("records mismatch (-want +got):\n%s", diff)
			}
			for i, r := range got {
				if i > 0 && r.SequenceNumber <= got[i-1].SequenceNumber {
					t.Errorf("sequence numbers not increasing: %s then %s", got[i-1].SequenceNumber, r.SequenceNumber)
				}
				if len(r.SequenceNumber) < 21 || len(r.SequenceNumber) > 40 {
					t.Errorf("SequenceNumber %q: DynamoDB's are 21 to 40 digits", r.SequenceNumber)
				}
				if at := r.ApproximateCreationDateTime; at.Before(before) || at.After(time.Now().Add(time.Second)) {
					t.Errorf("ApproximateCreationDateTime %v is not about now", at)
				}
				if r.SizeBytes <= 0 || r.UserIdentity != nil {
					t.Errorf("record %d: SizeBytes %d, UserIdentity %v", i, r.SizeBytes, r.UserIdentity)
				}
			}
		})
	}
}

// TestStreamNoRecord: DynamoDB Streams writes no record for a write whose
// condition failed, nor for a PutItem or UpdateItem that changes no data,
// nor (nothing being deleted) for a DeleteItem of an absent item.
func TestStreamNoRecord(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeNewAndOldImages, 0))
	it := Item{"pk": S("a"), "sk": N("1"), "x": S("v")}
	mustPut(t, db, tbl, it)
	ops := []struct {
		name string
		op   func() error
	}{
		{"failed condition", func() error {
			_, err := tbl.Put(db, PutInput{Item: Item{"pk": S("a"), "sk": N("1")}, ConditionExpression: "attribute_not_exists(pk)"})
			if !errors.Is(err, ErrConditionalCheckFailed) {
				return errors.New("want ConditionalCheckFailed, got " + errString(err))
			}
			return nil
		}},
		{"identical put", func() error { _, err := tbl.Put(db, PutInput{Item: it}); return err }},
		{"update to the same value", func() error {
			_, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("a"), "sk": N("1")}, UpdateExpression: "SET x = :v", ExpressionAttributeValues: map[string]Value{":v": S("v")}})
			return err
		}},
		{"delete of an absent item", func() error {
			_, err := tbl.Delete(db, DeleteInput{Key: Item{"pk": S("zz"), "sk": N("1")}})
			return err
		}},
	}
	for _, o := range ops {
		if err := o.op(); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		if n := len(readStream(t, db, tbl)); n != 1 {
			t.Fatalf("after %s: %d records, want the first put's only", o.name, n)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// TestStreamOrderInTransaction: changes made in one transaction share its
// commit versionstamp and keep their order, across shards, and records of
// separate transactions follow commit order.
func TestStreamOrderInTransaction(t *testing.T) {
	db := fdblitetest.Open(t)
	for _, shards := range []int{1, 4} {
		tbl := newTestTable(t, db, streamSchema(StreamViewTypeKeysOnly, shards))
		var want []string
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			want = want[:0]
			for _, pk := range []string{"m", "a", "z", "q", "b"} {
				if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S(pk), "sk": N("1")}}); err != nil {
					return nil, err
				}
				want = append(want, pk)
			}
			_, err := tbl.Delete(tr, DeleteInput{Key: Item{"pk": S("a"), "sk": N("1")}})
			want = append(want, "a")
			return nil, err
		})
		if err != nil {
			t.Fatal(err)
		}
		mustPut(t, db, tbl, Item{"pk": S("after"), "sk": N("1")})
		want = append(want, "after")
		recs := readStream(t, db, tbl)
		var got []string
		for _, r := range recs {
			got = append(got, r.Keys["pk"].S())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("shards=%d: record order mismatch (-want +got):\n%s", shards, diff)
		}
		if len(recs) == len(want) {
			first := recs[0].SequenceNumber
			s0, _ := parseSequenceNumber("", first)
			for _, r := range recs[1 : len(recs)-1] {
				s, _ := parseSequenceNumber("", r.SequenceNumber)
				if string(s[:10]) != string(s0[:10]) {
					t.Errorf("shards=%d: records of one transaction have different versionstamps %x and %x", shards, s0[:10], s[:10])
				}
			}
			if recs[len(recs)-1].EventName != EventNameInsert || recs[len(recs)-2].EventName != EventNameRemove {
				t.Errorf("shards=%d: events %v", shards, recs)
			}
		}
	}
}

// TestStreamLargeImages: a record whose images exceed FoundationDB's value
// limit is stored in parts and read back whole.
func TestStreamLargeImages(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeNewAndOldImages, 0))
	big1 := Item{"pk": S("big"), "sk": N("1"), "blob": B([]byte(strings.Repeat("x", 380_000)))}
	big2 := Item{"pk": S("big"), "sk": N("1"), "blob": B([]byte(strings.Repeat("y", 390_000)))}
	mustPut(t, db, tbl, big1)
	mustPut(t, db, tbl, big2)
	mustPut(t, db, tbl, Item{"pk": S("small"), "sk": N("1")})
	recs := readStream(t, db, tbl)
	want := []StreamRecord{
		{TableName: "Test", EventName: EventNameInsert, Keys: Item{"pk": S("big"), "sk": N("1")}, NewImage: big1, StreamViewType: StreamViewTypeNewAndOldImages},
		{TableName: "Test", EventName: EventNameModify, Keys: Item{"pk": S("big"), "sk": N("1")}, NewImage: big2, OldImage: big1, StreamViewType: StreamViewTypeNewAndOldImages},
		{TableName: "Test", EventName: EventNameInsert, Keys: Item{"pk": S("small"), "sk": N("1")}, NewImage: Item{"pk": S("small"), "sk": N("1")}, StreamViewType: StreamViewTypeNewAndOldImages},
	}
	if diff := cmp.Diff(want, recs, recordCmp); diff != "" {
		t.Fatalf("records mismatch (-want +got):\n%s", diff)
	}
	if recs[1].SizeBytes < 770_000 {
		t.Errorf("SizeBytes = %d, want both images counted", recs[1].SizeBytes)
	}
	// One record per page when it is large: a page stops after 1 MB.
	out, err := tbl.GetRecords(db, GetRecordsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Records) != 2 || !out.More {
		t.Errorf("first page has %d records (More %v), want the two large ones, then More", len(out.Records), out.More)
	}
}

// TestGetRecordsPaging: ExclusiveStartSequenceNumber is exclusive, Limit
// bounds the page, and LastEvaluatedSequenceNumber resumes it.
func TestGetRecordsPaging(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeKeysOnly, 3))
	const n = 25
	for i := range n {
		mustPut(t, db, tbl, Item{"pk": S(string(rune('a' + i))), "sk": N("1")})
	}
	all := readStream(t, db, tbl)
	if len(all) != n {
		t.Fatalf("%d records, want %d", len(all), n)
	}
	for _, limit := range []int{1, 2, 7, 25, 1000} {
		var got []StreamRecord
		cursor := ""
		for pages := 0; ; pages++ {
			out, err := tbl.GetRecords(db, GetRecordsInput{ExclusiveStartSequenceNumber: cursor, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Records) > limit {
				t.Fatalf("limit %d: page of %d", limit, len(out.Records))
			}
			got = append(got, out.Records...)
			cursor = out.LastEvaluatedSequenceNumber
			if !out.More {
				break
			}
			if pages > n {
				t.Fatalf("limit %d: no progress", limit)
			}
		}
		if diff := cmp.Diff(all, got, itemCmp); diff != "" {
			t.Errorf("limit %d: pages mismatch (-want +got):\n%s", limit, diff)
		}
	}
	out, err := tbl.GetRecords(db, GetRecordsInput{ExclusiveStartSequenceNumber: all[n-1].SequenceNumber})
	if err != nil || len(out.Records) != 0 || out.More || out.LastEvaluatedSequenceNumber != all[n-1].SequenceNumber {
		t.Errorf("after the last record: %+v, %v; want no records and the same cursor", out, err)
	}
}

// TestGetRecordsRejects: bad cursors, limits and tables without a stream
// are ValidationExceptions.
func TestGetRecordsRejects(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeKeysOnly, 0))
	plain := newTestTable(t, db, hashOnly)
	for _, tc := range []struct {
		name string
		tbl  *Table
		in   GetRecordsInput
	}{
		{"short cursor", tbl, GetRecordsInput{ExclusiveStartSequenceNumber: "123"}},
		{"letters", tbl, GetRecordsInput{ExclusiveStartSequenceNumber: "0000000000000000000000000000x"}},
		{"too large", tbl, GetRecordsInput{ExclusiveStartSequenceNumber: "99999999999999999999999999999"}},
		{"negative limit", tbl, GetRecordsInput{Limit: -1}},
		{"limit over 1000", tbl, GetRecordsInput{Limit: 1001}},
		{"no stream", plain, GetRecordsInput{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.tbl.GetRecords(db, tc.in)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("GetRecords = %v, want a *ValidationError", err)
			}
		})
	}
}

// TestStreamTTLIdentity: a deletion by the TTL sweeper (itemChange.byTTL)
// carries DynamoDB's service identity; other deletions carry none.
func TestStreamTTLIdentity(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeOldImage, 0))
	it := Item{"pk": S("a"), "sk": N("1"), "exp": N("1")}
	mustPut(t, db, tbl, it)
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		st := tbl.state.Load()
		kv, err := keyOf("test", it, st.hash, st.rng, false)
		if err != nil {
			return nil, err
		}
		return nil, writeItem(tr, tbl, itemChange{st: st, kv: kv, old: it, oldKnown: true, byTTL: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	recs := readStream(t, db, tbl)
	want := []StreamRecord{
		{TableName: "Test", EventName: EventNameInsert, Keys: Item{"pk": S("a"), "sk": N("1")}, StreamViewType: StreamViewTypeOldImage},
		{TableName: "Test", EventName: EventNameRemove, Keys: Item{"pk": S("a"), "sk": N("1")}, OldImage: it, StreamViewType: StreamViewTypeOldImage,
			UserIdentity: &UserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}},
	}
	if diff := cmp.Diff(want, recs, recordCmp); diff != "" {
		t.Fatalf("records mismatch (-want +got):\n%s", diff)
	}
}

// TestStreamShardsSchema: StreamShards is 0 to MaxStreamShards and needs
// a stream; 0 and 1 are the same schema.
func TestStreamShardsSchema(t *testing.T) {
	db := fdblitetest.Open(t)
	for _, tc := range []struct {
		name string
		s    TableSchema
		ok   bool
	}{
		{"default", streamSchema(StreamViewTypeKeysOnly, 0), true},
		{"max", streamSchema(StreamViewTypeKeysOnly, MaxStreamShards), true},
		{"too many", streamSchema(StreamViewTypeKeysOnly, MaxStreamShards+1), false},
		{"negative", streamSchema(StreamViewTypeKeysOnly, -1), false},
		{"without a stream", streamSchema("", 2), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.validate()
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrValidation) {
				t.Fatalf("validate = %v, want ok=%v", err, tc.ok)
			}
		})
	}
	root := testRoot(t, db)
	if _, err := Open(db, "Shards", root, WithSchema(streamSchema(StreamViewTypeKeysOnly, 1))); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db, "Shards", root, WithSchema(streamSchema(StreamViewTypeKeysOnly, 0))); err != nil {
		t.Errorf("reopening with StreamShards 0 after 1: %v, want the same schema", err)
	}
}

// TestSequenceNumberRoundTrip: the decimal form is 29 digits, parses back,
// and orders like the bytes.
func TestSequenceNumberRoundTrip(t *testing.T) {
	for _, b := range []seqNo{{}, {0: 1}, {11: 1}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
		s := b.String()
		got, err := parseSequenceNumber("", s)
		if err != nil || got != b || len(s) != seqDigits {
			t.Errorf("%x: String %q parses to %x, %v", b, s, got, err)
		}
	}
	if (seqNo{0: 1}).String() <= (seqNo{11: 0xff}).String() {
		t.Error("decimal order differs from byte order")
	}
}

// TestStreamShardsGrow: a stream's shards can grow (records in the old
// shards stay in the merged order) but not shrink.
func TestStreamShardsGrow(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeKeysOnly, 0))
	putN(t, db, tbl, 0, 5)
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		return nil, tbl.replaceSchema(tr, streamSchema(StreamViewTypeKeysOnly, 4))
	})
	if err != nil {
		t.Fatal(err)
	}
	putN(t, db, tbl, 5, 5)
	recs := readStream(t, db, tbl)
	var got []int64
	for _, r := range recs {
		n, _ := r.Keys["sk"].Int64()
		got = append(got, n)
	}
	if diff := cmp.Diff([]int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, got); diff != "" {
		t.Errorf("records across the shard change mismatch (-want +got):\n%s", diff)
	}
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		return nil, tbl.replaceSchema(tr, streamSchema(StreamViewTypeKeysOnly, 2))
	})
	if !errors.Is(err, ErrValidation) {
		t.Errorf("shrinking StreamShards: %v, want ErrValidation", err)
	}
}

// TestStreamRecordTooLarge: an item and its change record must fit a
// FoundationDB transaction; one that would not is a ValidationException
// and writes nothing.
func TestStreamRecordTooLarge(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeNewAndOldImages, 0), WithMaxItemSize(MaxItemSizeLimit))
	key := Item{"pk": S("big"), "sk": N("1")}
	first := Item{"pk": S("big"), "sk": N("1"), "b": B([]byte(strings.Repeat("a", 3<<20)))}
	mustPut(t, db, tbl, first)
	second := Item{"pk": S("big"), "sk": N("1"), "b": B([]byte(strings.Repeat("b", 3<<20)))}
	if _, err := tbl.Put(db, PutInput{Item: second}); !errors.Is(err, ErrValidation) {
		t.Fatalf("Put of a 3 MB item over a 3 MB item = %v, want ErrValidation (item and record over 8 MB)", err)
	}
	if got := mustGet(t, db, tbl, key); !got.Equal(first) {
		t.Error("the refused put changed the item")
	}
	if n := len(readStream(t, db, tbl)); n != 1 {
		t.Errorf("%d records, want 1", n)
	}
}

// TestStreamTooManyChanges: the order within a transaction is 16 bits, so
// the 65,537th change to a table in one transaction is refused with a
// ValidationException (the write-order key is set to the last order here,
// instead of making 65,536 changes).
func TestStreamTooManyChanges(t *testing.T) {
	db, tbl := openTestTable(t, streamSchema(StreamViewTypeKeysOnly, 0))
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("a"), "sk": N("1")}}); err != nil {
			return nil, err
		}
		rv, err := tr.GetReadVersion().Get()
		if err != nil {
			return nil, err
		}
		st := tbl.state.Load()
		last := binary.BigEndian.AppendUint64(nil, uint64(rv))
		tr.Set(st.keys.streamOrderKey(int(uint64(rv)%uint64(st.streamShards()))), binary.BigEndian.AppendUint16(last, MaxChangesPerTransaction-1))
		_, err = tbl.Put(tr, PutInput{Item: Item{"pk": S("b"), "sk": N("1")}})
		return nil, err
	})
	if !errors.Is(err, ErrValidation) {
		t.Fatalf("change after order %d = %v, want ErrValidation", MaxChangesPerTransaction-1, err)
	}
}

// TestStreamStaleHandle: a handle whose cached schema has no stream, used
// after another handle added one, writes the right record: the old item
// is read even though the request, validated with the old schema, did not
// need it.
func TestStreamStaleHandle(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	stale := mustOpen(t, db, "Stale", root, WithSchema(hashRange))
	old := Item{"pk": S("a"), "sk": N("1"), "v": N("1")}
	mustPut(t, db, stale, old)
	other := mustOpen(t, db, "Stale", root)
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		return nil, other.replaceSchema(tr, streamSchema(StreamViewTypeNewAndOldImages, 0))
	}); err != nil {
		t.Fatal(err)
	}
	updated := Item{"pk": S("a"), "sk": N("1"), "v": N("2")}
	mustPut(t, db, stale, updated) // a blind put for the stale handle
	if _, err := stale.Delete(db, DeleteInput{Key: Item{"pk": S("zz"), "sk": N("1")}}); err != nil {
		t.Fatal(err) // a blind delete of an absent item: no record
	}
	want := []StreamRecord{{TableName: "Stale", EventName: EventNameModify, Keys: Item{"pk": S("a"), "sk": N("1")}, NewImage: updated, OldImage: old, StreamViewType: StreamViewTypeNewAndOldImages}}
	if diff := cmp.Diff(want, readStream(t, db, other), recordCmp); diff != "" {
		t.Fatalf("records mismatch (-want +got):\n%s", diff)
	}
}

// TestSequenceNumberDecimal: the decimal form is the 96-bit big-endian
// number, checked against math/big.
func TestSequenceNumberDecimal(t *testing.T) {
	for _, s := range []seqNo{{}, {11: 9}, {11: 10}, {3: 1}, {4: 1}, {0: 0x80}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}} {
		want := new(big.Int).SetBytes(s[:]).Text(10)
		want = strings.Repeat("0", seqDigits-len(want)) + want
		if got := s.String(); got != want {
			t.Errorf("%x: String() = %s, want %s", s, got, want)
		}
	}
}

// TestStreamCorruptRecords: damaged record keys and parts are reported as
// ErrCorrupt, never decoded or skipped.
func TestStreamCorruptRecords(t *testing.T) {
	db := fdblitetest.Open(t)
	for _, tc := range []struct {
		name string
		kvs  func(k tableKeys) []fdb.KeyValue
	}{
		{"second part alone", func(k tableKeys) []fdb.KeyValue {
			return []fdb.KeyValue{{Key: append(k.streamKeyAt(0, seqNo{11: 1}), 0x15, 0x01), Value: []byte{partLast, 1}}}
		}},
		{"no last part", func(k tableKeys) []fdb.KeyValue {
			return []fdb.KeyValue{{Key: append(k.streamKeyAt(0, seqNo{11: 1}), 0x14), Value: []byte{partMore, 1}}}
		}},
		{"parts of two records", func(k tableKeys) []fdb.KeyValue {
			return []fdb.KeyValue{
				{Key: append(k.streamKeyAt(0, seqNo{11: 1}), 0x14), Value: []byte{partMore, 1}},
				{Key: append(k.streamKeyAt(0, seqNo{11: 2}), 0x15, 0x01), Value: []byte{partLast, 1}},
			}
		}},
		{"bad flag", func(k tableKeys) []fdb.KeyValue {
			return []fdb.KeyValue{{Key: append(k.streamKeyAt(0, seqNo{11: 1}), 0x14), Value: []byte{7, 1}}}
		}},
		{"not a record key", func(k tableKeys) []fdb.KeyValue {
			return []fdb.KeyValue{{Key: append(k.streamShardPrefix(0), 0x02, 'x', 0x00), Value: []byte{partLast}}}
		}},
		{"record bytes", func(k tableKeys) []fdb.KeyValue {
			return []fdb.KeyValue{{Key: append(k.streamKeyAt(0, seqNo{11: 1}), 0x14), Value: []byte{partLast, streamrec.Version, 9, 0, 1}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := newTestTable(t, db, streamSchema(StreamViewTypeKeysOnly, 0))
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				for _, kv := range tc.kvs(tbl.state.Load().keys) {
					tr.Set(kv.Key, kv.Value)
				}
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.GetRecords(db, GetRecordsInput{}); !errors.Is(err, ErrCorrupt) {
				t.Errorf("GetRecords = %v, want ErrCorrupt", err)
			}
		})
	}
}
