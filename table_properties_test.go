package fdyno

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

func TestCheckTag(t *testing.T) {
	for _, tc := range []struct {
		tag Tag
		ok  bool
	}{
		{Tag{"env", "prod"}, true},
		{Tag{"a b:c/d=e+f-g.h_i@j", ""}, true},
		{Tag{"ключ", "значение"}, true},
		{Tag{strings.Repeat("k", MaxTagKeyLength), strings.Repeat("v", MaxTagValueLength)}, true},
		{Tag{strings.Repeat("é", MaxTagKeyLength), ""}, true}, // characters, not bytes
		{Tag{"", "v"}, false},
		{Tag{strings.Repeat("k", MaxTagKeyLength+1), "v"}, false},
		{Tag{"k", strings.Repeat("v", MaxTagValueLength+1)}, false},
		{Tag{"aws:cost", "v"}, false},
		{Tag{"AWS:cost", "v"}, false},
		{Tag{"a*b", "v"}, false},
		{Tag{"k", "v!"}, false},
		{Tag{"k\xff", "v"}, false},
	} {
		err := checkTag("TagResource", tc.tag)
		if (err == nil) != tc.ok {
			t.Errorf("checkTag(%q) = %v, want ok %v", tc.tag, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrValidation) {
			t.Errorf("checkTag(%q) = %v, not a validation error", tc.tag, err)
		}
	}
}

func TestMergeTags(t *testing.T) {
	have := []Tag{{"a", "1"}, {"c", "3"}}
	got, err := mergeTags(have, []Tag{{"b", "2"}, {"a", "x"}, {"b", "y"}}, "TagResource")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Tag{{"a", "x"}, {"b", "y"}, {"c", "3"}}, got); diff != "" {
		t.Errorf("mergeTags (-want +got):\n%s", diff)
	}
	if have[0].Value != "1" {
		t.Errorf("mergeTags changed its input: %v", have)
	}
	var fifty []Tag
	for i := range MaxTags {
		fifty = append(fifty, Tag{fmt.Sprintf("k%02d", i), ""})
	}
	if _, err := mergeTags(nil, fifty, "TagResource"); err != nil {
		t.Errorf("50 tags: %v", err)
	}
	if _, err := mergeTags(fifty, []Tag{{"one-more", ""}}, "TagResource"); !errors.Is(err, ErrValidation) {
		t.Errorf("51 tags: %v, want ErrValidation", err)
	}
	if _, err := mergeTags(fifty, []Tag{{"k00", "replaced"}}, "TagResource"); err != nil {
		t.Errorf("replacing a value at 50 tags: %v", err)
	}
}

// TestTableProperties checks what a table keeps beside its schema: a
// TableID (a version 4 UUID, stable, new for a new table of the same
// name), its CreationDateTime, its properties kept through a schema
// change, and deletion protection, which makes DeleteTable refuse the
// table until it is turned off.
func TestTableProperties(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	root := testRoot(t, db)
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	props := TableProperties{
		BillingMode:               BillingModeProvisioned,
		ProvisionedThroughput:     &ProvisionedThroughput{ReadCapacityUnits: 5, WriteCapacityUnits: 6},
		DeletionProtectionEnabled: true,
		Tags:                      []Tag{{"b", "2"}, {"a", "1"}},
	}
	tbl, err := Open(db, "Props", root, WithSchema(hashOnly), WithProperties(props), WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
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
	want := props
	want.Tags = []Tag{{"a", "1"}, {"b", "2"}} // in key order
	if diff := cmp.Diff(want, d.Properties); diff != "" {
		t.Errorf("Properties (-want +got):\n%s", diff)
	}

	// A schema change keeps identity and properties.
	if _, err := tbl.UpdateTable(db, UpdateTableInput{StreamSpecification: &StreamSpecification{StreamEnabled: true, StreamViewType: StreamViewTypeKeysOnly}}); err != nil {
		t.Fatal(err)
	}
	d2, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	// Enabling the stream records its label (the table's clock) and start;
	// the rest is unchanged.
	if d2.Properties.StreamLabel != clock.UTC().Format(StreamLabelLayout) || d2.Properties.StreamStartAfter == "" {
		t.Errorf("after enabling the stream: StreamLabel %q, StreamStartAfter %q", d2.Properties.StreamLabel, d2.Properties.StreamStartAfter)
	}
	d2.Properties.StreamLabel, d2.Properties.StreamStartAfter = "", ""
	if d2.TableID != d.TableID || !d2.CreationDateTime.Equal(d.CreationDateTime) || !cmp.Equal(d2.Properties, d.Properties) {
		t.Errorf("after UpdateTable: %q %v %+v, want %q %v %+v", d2.TableID, d2.CreationDateTime, d2.Properties, d.TableID, d.CreationDateTime, d.Properties)
	}

	// Deletion protection.
	err = DeleteTable(db, "Props", root)
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Reason, "protected against deletion") {
		t.Fatalf("DeleteTable of a protected table: %v, want a ValidationError", err)
	}
	if _, err := tbl.Describe(db); err != nil {
		t.Fatalf("the protected table is gone: %v", err)
	}
	if _, err := tbl.UpdateProperties(db, func(p *TableProperties) error { p.DeletionProtectionEnabled = false; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTable(db, "Props", root); err != nil {
		t.Fatalf("DeleteTable without protection: %v", err)
	}

	// A new table of the name is another table.
	tbl, err = Open(db, "Props", root, WithSchema(hashOnly))
	if err != nil {
		t.Fatal(err)
	}
	d3, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if d3.TableID == d.TableID || d3.TableID == "" {
		t.Errorf("recreated table's TableID %q, want a new one (old %q)", d3.TableID, d.TableID)
	}
	if len(d3.Properties.Tags) != 0 || d3.Properties.DeletionProtectionEnabled {
		t.Errorf("recreated table has the old properties: %+v", d3.Properties)
	}

	// An invalid change is refused and changes nothing.
	_, err = tbl.UpdateProperties(db, func(p *TableProperties) error {
		p.Tags = append(p.Tags, Tag{"aws:x", "y"})
		return nil
	})
	if !errors.Is(err, ErrValidation) {
		t.Errorf("UpdateProperties with a reserved tag: %v, want ErrValidation", err)
	}
	if tags, _ := tbl.ListTags(db); len(tags) != 0 {
		t.Errorf("refused change stored tags %v", tags)
	}

}
