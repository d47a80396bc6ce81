package fdyno

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// TestDisabledStreamReadable: DynamoDB keeps a disabled stream's records
// readable for 24 hours ("Disabling a stream", DynamoDB Streams docs).
// Disabling records the stream (label, view type, time, last record) in
// the table's properties; GetRecords, Records, consumers and TrimStream
// read it until 24 hours after the disabling by the handle's clock, then
// refuse it as a table without a stream.
func TestDisabledStreamReadable(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	s := hashRange
	s.StreamViewType = StreamViewTypeKeysOnly
	tbl := newTestTable(t, db, s, WithClock(clock.Now))
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": N("1")})
	mustPut(t, db, tbl, Item{"pk": S("b"), "sk": N("1")})
	recs := readStream(t, db, tbl)
	if len(recs) != 2 {
		t.Fatalf("records before disabling: %d, want 2", len(recs))
	}
	d, err := tbl.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{}})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, tbl, Item{"pk": S("c"), "sk": N("1")}) // not recorded
	ds := d.DisabledStreams
	want := DisabledStream{StreamLabel: d.CreationDateTime.UTC().Format(StreamLabelLayout), StreamViewType: StreamViewTypeKeysOnly,
		DisabledAt: clock.Now().UTC(), LastSequenceNumber: recs[1].SequenceNumber}
	if len(ds) != 1 || ds[0] != want {
		t.Fatalf("DisabledStreams = %+v, want [%+v]", ds, want)
	}

	tests := []struct {
		name string
		read func() error
	}{
		{"GetRecords", func() error {
			out, err := tbl.GetRecords(db, GetRecordsInput{})
			if err == nil && len(out.Records) != 2 {
				t.Errorf("GetRecords: %d records, want 2", len(out.Records))
			}
			return err
		}},
		{"Records", func() error {
			n := 0
			for _, err := range tbl.Records(context.Background(), db, "") {
				if err != nil {
					return err
				}
				n++
			}
			if n != 2 {
				t.Errorf("Records: %d records, want 2", n)
			}
			return nil
		}},
		{"Consumer", func() error {
			c, err := tbl.Consumer("reader")
			if err != nil {
				return err
			}
			if err := c.Register(db, ""); err != nil {
				return err
			}
			defer c.Deregister(db)
			_, err = c.ProcessBatch(db, 10, func(fdb.Transaction, []StreamRecord) error { return nil })
			return err
		}},
		{"TrimStream", func() error {
			_, err := tbl.TrimStream(context.Background(), db, TrimStreamInput{OlderThan: 100 * 365 * 24 * time.Hour})
			return err
		}},
	}
	for _, phase := range []struct {
		name     string
		advance  time.Duration
		readable bool
	}{
		{"just disabled", 0, true},
		{"23h59m later", 24*time.Hour - time.Minute, true},
		{"24h later", time.Minute, false},
	} {
		clock.Advance(phase.advance)
		for _, tc := range tests {
			t.Run(phase.name+"/"+tc.name, func(t *testing.T) {
				err := tc.read()
				if phase.readable && err != nil {
					t.Errorf("%s: %v, want the disabled stream readable", tc.name, err)
				}
				if !phase.readable && !errors.Is(err, ErrValidation) {
					t.Errorf("%s: %v, want ErrValidation", tc.name, err)
				}
			})
		}
	}
}

// TestDisabledStreamsKept: each disabling appends the stream it ends;
// those disabled more than 24 hours before the latest are dropped. A
// re-enabled stream's disabling records its own label and start.
func TestDisabledStreamsKept(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	s := hashRange
	s.StreamViewType = StreamViewTypeNewImage
	tbl := newTestTable(t, db, s, WithClock(clock.Now))
	enable := func() *TableDescription {
		t.Helper()
		d, err := tbl.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeKeysOnly}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	disable := func() []DisabledStream {
		t.Helper()
		d, err := tbl.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{}})
		if err != nil {
			t.Fatal(err)
		}
		return d.DisabledStreams
	}
	if ds := disable(); len(ds) != 1 || ds[0].LastSequenceNumber != "" || ds[0].StreamViewType != StreamViewTypeNewImage {
		t.Fatalf("first disabling of an empty stream: %+v", ds)
	}
	clock.Advance(time.Hour)
	e := enable()
	mustPut(t, db, tbl, Item{"pk": S("a"), "sk": N("1")})
	recs := readStream(t, db, tbl)
	ds := disable()
	want := DisabledStream{StreamLabel: e.StreamLabel, StreamStartAfter: e.StreamStartAfter,
		StreamViewType: StreamViewTypeKeysOnly, DisabledAt: clock.Now().UTC(), LastSequenceNumber: recs[0].SequenceNumber}
	if len(ds) != 2 || ds[1] != want {
		t.Fatalf("second disabling: %+v, want 2 with last %+v", ds, want)
	}
	clock.Advance(24 * time.Hour) // the first is 25 h old, the second 24 h
	enable()
	if ds := disable(); len(ds) != 1 || !ds[0].DisabledAt.Equal(clock.Now()) {
		t.Fatalf("third disabling keeps %+v, want only itself", ds)
	}
}
