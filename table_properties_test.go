package fdyno

import (
	"bytes"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// TestTableIdentityAndSettings checks what a table keeps beside its
// schema: a TableID (a version 4 UUID, stable, new for a new table of the
// same name), its CreationDateTime, and its settings record, stored as
// given, kept through schema and stream changes, replaced only by
// UpdateSettings, gone with the table.
func TestTableIdentityAndSettings(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	root := testRoot(t, db)
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	settings := []byte("\x00opaque \xff bytes")
	tbl := mustOpen(t, db, "Props", root, WithSchema(hashOnly), WithSettings(settings), WithClock(func() time.Time { return clock }))
	d, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(d.TableID) {
		t.Errorf("TableID %q is not a version 4 UUID", d.TableID)
	}
	if !d.CreationDateTime.Equal(clock) {
		t.Errorf("CreationDateTime %v, want %v", d.CreationDateTime, clock)
	}
	if !bytes.Equal(d.Settings, settings) {
		t.Errorf("Settings %q, want %q", d.Settings, settings)
	}

	// A schema change keeps identity and settings.
	if _, err := tbl.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeKeysOnly}}); err != nil {
		t.Fatal(err)
	}
	d2, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	// Enabling the stream records its label (the table's clock) and start.
	if d2.StreamLabel != clock.UTC().Format(StreamLabelLayout) || d2.StreamStartAfter == "" {
		t.Errorf("after enabling the stream: StreamLabel %q, StreamStartAfter %q", d2.StreamLabel, d2.StreamStartAfter)
	}
	if d2.TableID != d.TableID || !d2.CreationDateTime.Equal(d.CreationDateTime) || !bytes.Equal(d2.Settings, settings) {
		t.Errorf("after UpdateTable: %q %v %q, want %q %v %q", d2.TableID, d2.CreationDateTime, d2.Settings, d.TableID, d.CreationDateTime, settings)
	}

	// UpdateSettings sees the record and replaces it; an error from f or
	// a record over the limit changes nothing.
	d3, err := tbl.UpdateSettings(db, func(old []byte) ([]byte, error) {
		if !bytes.Equal(old, settings) {
			t.Errorf("UpdateSettings got %q, want %q", old, settings)
		}
		return []byte("next"), nil
	})
	if err != nil || string(d3.Settings) != "next" {
		t.Fatalf("UpdateSettings: %q, %v", d3.Settings, err)
	}
	mine := errors.New("refused")
	if _, err := tbl.UpdateSettings(db, func([]byte) ([]byte, error) { return []byte("lost"), mine }); err != mine {
		t.Errorf("UpdateSettings with f failing: %v, want f's error", err)
	}
	_, err = tbl.UpdateSettings(db, func([]byte) ([]byte, error) { return make([]byte, MaxSettingsSize+1), nil })
	if !errors.Is(err, ErrValidation) {
		t.Errorf("UpdateSettings over MaxSettingsSize: %v, want ErrValidation", err)
	}
	if d, _ := tbl.Describe(db); string(d.Settings) != "next" {
		t.Errorf("refused changes stored %q", d.Settings)
	}

	// The library enforces nothing the settings hold: DeleteTable deletes.
	if err := DeleteTable(db, "Props", root); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	// A new table of the name is another table, without settings.
	tbl, err = Open(db, "Props", root, WithSchema(hashOnly))
	if err != nil {
		t.Fatal(err)
	}
	d4, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if d4.TableID == d.TableID || d4.TableID == "" || d4.Settings != nil {
		t.Errorf("recreated table: TableID %q (old %q), settings %q; want a new ID and none", d4.TableID, d.TableID, d4.Settings)
	}
	if _, err := Open(db, "Big", root, WithSchema(hashOnly), WithSettings(make([]byte, MaxSettingsSize+1))); !errors.Is(err, ErrValidation) {
		t.Errorf("Open with settings over MaxSettingsSize: %v, want ErrValidation", err)
	}
}
