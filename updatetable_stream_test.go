package fdyno

import (
	"errors"
	"testing"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
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
// records are kept and readable again, before the new ones, once it is
// enabled again, each with the view type it was written with.
func TestUpdateTableStreamRecords(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	h1, err := Open(db, "Strm", root, WithSchema(hashRange))
	if err != nil {
		t.Fatal(err)
	}
	h2, err := Open(db, "Strm", root)
	if err != nil {
		t.Fatal(err)
	}
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
	if _, err := h1.GetRecords(db, GetRecordsInput{}); !errors.Is(err, ErrValidation) {
		t.Fatalf("GetRecords of a disabled stream = %v, want ErrValidation", err)
	}
	if _, err := h2.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeKeysOnly}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h1.Delete(db, DeleteInput{Key: key}); err != nil {
		t.Fatal(err)
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
