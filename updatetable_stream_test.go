package fdyno

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestUpdateTableStream: UpdateTable enables and disables a table's
// stream by DynamoDB's rules (a view type to enable, none to disable; an
// enabled stream cannot be enabled again, even to change its view type;
// no disabling of a disabled stream), and a refused request changes
// nothing.
func TestUpdateTableStream(t *testing.T) {
	db := fdblitetest.Open(t)
	enable := func(v StreamViewType) UpdateTableInput {
		return UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: v}}
	}
	disable := UpdateTableInput{StreamSpecification: &StreamSpecification{}}
	for _, tc := range []struct {
		name   string
		start  StreamViewType
		shards int
		in     UpdateTableInput
		want   StreamViewType // the view type after; "" also when refused from ""
		ok     bool
	}{
		{"enable", "", 0, enable(StreamViewTypeNewImage), StreamViewTypeNewImage, true},
		{"enable keys only", "", 0, enable(StreamViewTypeKeysOnly), StreamViewTypeKeysOnly, true},
		{"disable", StreamViewTypeOldImage, 0, disable, "", true},
		{"enable enabled, same view", StreamViewTypeNewImage, 0, enable(StreamViewTypeNewImage), StreamViewTypeNewImage, false},
		{"enable enabled, other view", StreamViewTypeNewImage, 0, enable(StreamViewTypeOldImage), StreamViewTypeNewImage, false},
		{"disable disabled", "", 0, disable, "", false},
		{"enable without view type", "", 0, enable(""), "", false},
		{"disable with view type", StreamViewTypeKeysOnly, 0, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamViewType: StreamViewTypeKeysOnly}}, StreamViewTypeKeysOnly, false},
		{"unknown view type", "", 0, enable("ALL"), "", false},
		{"disable sharded stream", StreamViewTypeKeysOnly, 4, disable, StreamViewTypeKeysOnly, false},
		{"with a GSI update", "", 0, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeKeysOnly},
			GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &DeleteGlobalSecondaryIndexAction{IndexName: "x"}}}}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := newTestTable(t, db, streamSchema(tc.start, tc.shards))
			d, err := tbl.UpdateTable(db, tc.in)
			if tc.ok != (err == nil) {
				t.Fatalf("UpdateTable = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrValidation) {
				t.Fatalf("UpdateTable = %v, want ErrValidation", err)
			}
			if err == nil && d.StreamViewType != tc.want {
				t.Errorf("returned StreamViewType %q, want %q", d.StreamViewType, tc.want)
			}
			got, err := tbl.Describe(db)
			if err != nil {
				t.Fatal(err)
			}
			if got.StreamViewType != tc.want {
				t.Errorf("stored StreamViewType %q, want %q", got.StreamViewType, tc.want)
			}
			checkTable(t, db, tbl)
		})
	}
}

// TestUpdateTableStreamRecords: writes record changes exactly while the
// stream is enabled, for every handle (one opened before the change, whose
// cached schema is stale, records its next write); a disabled stream's
// records are kept, readable while disabled, and readable again, before the new ones, once it is
// enabled again, each with the view type it was written with.
func TestUpdateTableStreamRecords(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	h1 := mustOpen(t, db, "Strm", root, WithSchema(hashRange))
	h2 := mustOpen(t, db, "Strm", root)
	key := Item{"pk": S("a"), "sk": N("1")}
	v := func(n string) Item { return Item{"pk": S("a"), "sk": N("1"), "v": N(n)} }
	mustPut(t, db, h2, v("0")) // h2 caches the schema without a stream
	if _, err := h1.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeNewAndOldImages}}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, h2, v("1")) // stale handle: must record, with the old image
	if _, err := h2.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{}}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, h1, v("2")) // h1's cached schema has the stream: must not record
	// DynamoDB keeps a disabled stream readable for 24 hours
	// (stream_disabled_test.go): the one record, and nothing of the
	// write after disabling.
	if out, err := h1.GetRecords(db, GetRecordsInput{}); err != nil || len(out.Records) != 1 {
		t.Fatalf("GetRecords of a just disabled stream = %+v, %v, want its 1 record", out, err)
	}
	re, err := h2.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeKeysOnly}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h1.Delete(db, DeleteInput{Key: key}); err != nil {
		t.Fatal(err)
	}
	// The enabling is labelled with its time and marks a sequence number
	// between the records before it and those after (DynamoDB's new
	// stream at each enabling).
	if _, err := time.Parse(StreamLabelLayout, re.StreamLabel); err != nil || len(re.StreamStartAfter) != seqDigits {
		t.Fatalf("re-enabled stream: label %q (%v), start %q", re.StreamLabel, err, re.StreamStartAfter)
	}
	if recs := readStream(t, db, h1); len(recs) != 2 || !(recs[0].SequenceNumber <= re.StreamStartAfter && re.StreamStartAfter < recs[1].SequenceNumber) {
		t.Errorf("StreamStartAfter %s does not separate the records %v", re.StreamStartAfter, recs)
	}
	want := []StreamRecord{
		{TableName: "Strm", EventName: EventNameModify, Keys: key, NewImage: v("1"), OldImage: v("0"), StreamViewType: StreamViewTypeNewAndOldImages},
		{TableName: "Strm", EventName: EventNameRemove, Keys: key, StreamViewType: StreamViewTypeKeysOnly},
	}
	for _, h := range []*Table{h1, h2} {
		if diff := cmp.Diff(want, readStream(t, db, h), recordCmp); diff != "" {
			t.Fatalf("records mismatch (-want +got):\n%s", diff)
		}
	}
	checkTable(t, db, h1)
}

// TestUpdateTableStreamModel: random enables (any view type), disables,
// puts and deletes through two handles, checked against the model of a
// stream: a change records exactly while the stream is enabled, with the
// view type then in force, and a refused enable or disable (DynamoDB's
// rules) changes nothing. The records are read after each disabling and,
// at the end, with the stream enabled.
func TestUpdateTableStreamModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	var n atomic.Int64
	views := []StreamViewType{StreamViewTypeKeysOnly, StreamViewTypeNewImage, StreamViewTypeOldImage, StreamViewTypeNewAndOldImages}
	rapid.Check(t, func(rt *rapid.T) {
		name := fmt.Sprint("Model", n.Add(1))
		h1, err := Open(db, name, root, WithSchema(hashRange))
		if err != nil {
			rt.Fatal(err)
		}
		h2, err := Open(db, name, root)
		if err != nil {
			rt.Fatal(err)
		}
		handles := []*Table{h1, h2}
		var view StreamViewType // the model: "" is disabled
		items := map[string]Item{}
		var want []StreamRecord
		for range rapid.IntRange(1, 20).Draw(rt, "steps") {
			h := handles[rapid.IntRange(0, 1).Draw(rt, "handle")]
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0:
				v := rapid.SampledFrom(views).Draw(rt, "view")
				_, err := h.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: v}})
				if (view == "") != (err == nil) || err != nil && !errors.Is(err, ErrValidation) {
					rt.Fatalf("enable %s with view %q: %v", v, view, err)
				}
				if err == nil {
					view = v
				}
			case 1:
				_, err := h.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{}})
				if (view != "") != (err == nil) || err != nil && !errors.Is(err, ErrValidation) {
					rt.Fatalf("disable with view %q: %v", view, err)
				}
				view = ""
				// A just disabled stream is readable (DynamoDB's 24
				// hours): every record so far.
				if err == nil {
					if diff := cmp.Diff(want, readStream(rt, db, h), recordCmp); diff != "" {
						rt.Fatalf("records of the disabled stream (-want +got):\n%s", diff)
					}
				}
			case 2:
				pk := rapid.SampledFrom([]string{"a", "b"}).Draw(rt, "pk")
				key := Item{"pk": S(pk), "sk": N("1")}
				old, existed := items[pk]
				if _, err := h.Delete(db, DeleteInput{Key: key}); err != nil {
					rt.Fatal(err)
				}
				if existed && view != "" {
					want = append(want, modelRecord(name, view, EventNameRemove, key, nil, old))
				}
				delete(items, pk)
			default:
				pk := rapid.SampledFrom([]string{"a", "b"}).Draw(rt, "pk")
				key := Item{"pk": S(pk), "sk": N("1")}
				it := Item{"pk": S(pk), "sk": N("1"), "v": N(fmt.Sprint(rapid.IntRange(0, 2).Draw(rt, "v")))}
				old, existed := items[pk]
				if _, err := h.Put(db, PutInput{Item: it}); err != nil {
					rt.Fatal(err)
				}
				switch {
				case view == "":
				case !existed:
					want = append(want, modelRecord(name, view, EventNameInsert, key, it, nil))
				case !old.Equal(it):
					want = append(want, modelRecord(name, view, EventNameModify, key, it, old))
				}
				items[pk] = it
			}
		}
		if view == "" {
			if _, err := h1.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeKeysOnly}}); err != nil {
				rt.Fatal(err)
			}
		}
		if diff := cmp.Diff(want, readStream(rt, db, h2), recordCmp); diff != "" {
			rt.Fatalf("records mismatch (-want +got):\n%s", diff)
		}
	})
}

// modelRecord is the record DynamoDB Streams documents for a change
// under view.
func modelRecord(table string, view StreamViewType, event EventName, keys, newImg, oldImg Item) StreamRecord {
	r := StreamRecord{TableName: table, EventName: event, Keys: keys, StreamViewType: view}
	if view == StreamViewTypeNewImage || view == StreamViewTypeNewAndOldImages {
		r.NewImage = newImg
	}
	if view == StreamViewTypeOldImage || view == StreamViewTypeNewAndOldImages {
		r.OldImage = oldImg
	}
	return r
}

// Under injected faults, each stream change leaves the stream in the
// state asked for (a retried commit that had applied answers DynamoDB's
// "already" error, never a FoundationDB error), and the writes between
// them record exactly while the stream is enabled.
func TestUpdateTableStreamUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(11))
	tbl := mustOpen(t, fdblitetest.Idempotent{DB: db}, "FaultyStream", WithSchema(hashRange))
	var want []StreamRecord
	for i := range 30 {
		enable := i%2 == 0
		spec := StreamSpecification{StreamEnabled: enable}
		if enable {
			spec.StreamViewType = StreamViewTypeNewImage
		}
		if _, err := tbl.UpdateTable(fdblitetest.Idempotent{DB: db}, UpdateTableInput{StreamSpecification: &spec}); err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(ve.Reason, "already has an enabled stream") && !strings.Contains(ve.Reason, "does not have an enabled stream") {
				t.Fatalf("step %d: UpdateTable(%+v) = %v", i, spec, err)
			}
		}
		d, err := tbl.Describe(fdblitetest.Idempotent{DB: db})
		if err != nil {
			t.Fatal(err)
		}
		if d.StreamViewType != spec.StreamViewType {
			t.Fatalf("step %d: StreamViewType %q after %+v", i, d.StreamViewType, spec)
		}
		it := Item{"pk": S("a"), "sk": N("1"), "v": N(fmt.Sprint(i))}
		if _, err := tbl.Put(fdblitetest.Idempotent{DB: db}, PutInput{Item: it}); err != nil {
			t.Fatalf("step %d: Put: %v", i, err)
		}
		if enable {
			event := EventNameModify
			if i == 0 {
				event = EventNameInsert
			}
			want = append(want, StreamRecord{TableName: "FaultyStream", EventName: event, Keys: Item{"pk": S("a"), "sk": N("1")}, NewImage: it, StreamViewType: StreamViewTypeNewImage})
		}
	}
	if _, err := tbl.UpdateTable(fdblitetest.Idempotent{DB: db}, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeKeysOnly}}); err != nil {
		t.Fatal(err)
	}
	recs := readStream(t, fdblitetest.Idempotent{DB: db}, tbl)
	if diff := cmp.Diff(want, recs, recordCmp); diff != "" {
		t.Fatalf("records mismatch (-want +got):\n%s", diff)
	}
	// Each disabling noted the stream's last record exactly once: the
	// record of the step before it.
	d, err := tbl.Describe(fdblitetest.Idempotent{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	var lasts, wantLasts []string
	for _, ds := range d.DisabledStreams {
		lasts = append(lasts, ds.LastSequenceNumber)
	}
	for _, r := range recs {
		wantLasts = append(wantLasts, r.SequenceNumber)
	}
	if diff := cmp.Diff(wantLasts, lasts); diff != "" {
		t.Errorf("DisabledStreams' last sequence numbers (-want +got):\n%s", diff)
	}
	checkTable(t, db, tbl)
}
