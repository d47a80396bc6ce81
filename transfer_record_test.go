package fdyno

import (
	"errors"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
)

// The lease on running an export or import follows lease.go's rule: one
// holder at a time, taken over once it lapses, given up by its holder;
// an unknown job is not found.
func TestTransferLeases(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	root := testRoot(t, db)
	opts := []Option{root, WithClock(now)}
	if _, err := Open(db, "Src", append(opts, WithSchema(hashOnly))...); err != nil {
		t.Fatal(err)
	}
	e, err := StartExport(db, ExportTableToPointInTimeInput{TableName: "Src", S3Bucket: "b"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	im, err := StartImport(db, ImportTableInput{TableName: "Dst", Schema: hashOnly, S3Bucket: "b", InputFormat: InputFormatDynamoDBJSON}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	const d = time.Minute
	for _, k := range []struct {
		id      string
		try     func(id, holder string) (bool, error)
		release func(id, holder string) error
		missing error
	}{
		{e.ExportID, func(id, h string) (bool, error) { return TryExportLease(db, id, h, d, opts...) },
			func(id, h string) error { return ReleaseExportLease(db, id, h, opts...) }, ErrExportNotFound},
		{im.ImportID, func(id, h string) (bool, error) { return TryImportLease(db, id, h, d, opts...) },
			func(id, h string) error { return ReleaseImportLease(db, id, h, opts...) }, ErrImportNotFound},
	} {
		step := func(what, holder string, want bool) {
			t.Helper()
			got, err := k.try(k.id, holder)
			if err != nil || got != want {
				t.Fatalf("%s: %s takes %s: %v, %v; want %v", k.id, holder, what, got, err, want)
			}
		}
		step("the free lease", "a", true)
		step("a's lease", "b", false)
		step("its own lease again", "a", true)
		clock.Advance(d - time.Microsecond)
		step("a's renewed lease before it lapses", "b", false)
		clock.Advance(d)
		step("a's lapsed lease", "b", true)
		step("b's lease", "a", false)
		if err := k.release(k.id, "a"); err != nil { // not a's: nothing
			t.Fatal(err)
		}
		step("b's lease after a released nothing", "a", false)
		if err := k.release(k.id, "b"); err != nil {
			t.Fatal(err)
		}
		step("the released lease", "a", true)
		if _, err := k.try("01700000000000-abcdef12", "a"); !errors.Is(err, k.missing) {
			t.Errorf("lease on an unknown job: %v, want %v", err, k.missing)
		}
	}
	// Both kinds' leases are apart: an export's id is no import's.
	if ok, err := TryImportLease(db, e.ExportID, "a", d, opts...); !errors.Is(err, ErrImportNotFound) || ok {
		t.Errorf("an import lease on an export's id: %v, %v", ok, err)
	}
}
