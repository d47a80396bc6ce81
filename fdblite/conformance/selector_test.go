package conformance

import (
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Key selectors resolve as documented in the developer guide ("Key
// selectors"): (key, orEqual, offset) → key at index i+offset-1 where i is the
// number of keys < key (or <= key with orEqual).
func TestGetKey_AllSelectorFormsWithOffsets(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("a"), "", s.k("c"), "", s.k("e"), "", s.k("g"), "", s.k("i"), "")
	cases := []struct {
		name string
		sel  fdb.KeySelector
		want string
	}{
		{"FirstGreaterOrEqual existing", fdb.FirstGreaterOrEqual(s.k("c")), "c"},
		{"FirstGreaterOrEqual missing", fdb.FirstGreaterOrEqual(s.k("b")), "c"},
		{"FirstGreaterThan existing", fdb.FirstGreaterThan(s.k("c")), "e"},
		{"FirstGreaterThan missing", fdb.FirstGreaterThan(s.k("d")), "e"},
		{"LastLessThan existing", fdb.LastLessThan(s.k("e")), "c"},
		{"LastLessThan missing", fdb.LastLessThan(s.k("d")), "c"},
		{"LastLessOrEqual existing", fdb.LastLessOrEqual(s.k("e")), "e"},
		{"LastLessOrEqual missing", fdb.LastLessOrEqual(s.k("f")), "e"},
		{"FirstGreaterOrEqual+1", fdb.KeySelector{Key: s.k("c"), OrEqual: false, Offset: 2}, "e"},
		{"FirstGreaterOrEqual+3", fdb.KeySelector{Key: s.k("a"), OrEqual: false, Offset: 4}, "g"},
		{"FirstGreaterThan+2", fdb.KeySelector{Key: s.k("a"), OrEqual: true, Offset: 3}, "g"},
		{"LastLessThan-1", fdb.KeySelector{Key: s.k("g"), OrEqual: false, Offset: -1}, "c"},
		{"LastLessOrEqual-2", fdb.KeySelector{Key: s.k("i"), OrEqual: true, Offset: -2}, "e"},
		{"offset 0 orEqual false is LastLessThan", fdb.KeySelector{Key: s.k("f"), OrEqual: false, Offset: 0}, "e"},
		{"offset 1 orEqual true is FirstGreaterThan", fdb.KeySelector{Key: s.k("e"), OrEqual: true, Offset: 1}, "g"},
	}
	tr := newTr(t)
	defer tr.Cancel()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, rt := range []fdb.ReadTransaction{tr, tr.Snapshot()} {
				got, err := rt.GetKey(tc.sel).Get()
				if err != nil {
					t.Fatalf("GetKey: %v", err)
				}
				if s.rel(got) != tc.want {
					t.Errorf("GetKey(%s, %v, %d) = %s, want %s", fdb.Printable(tc.sel.Key.FDBKey()), tc.sel.OrEqual, tc.sel.Offset, fdb.Printable(got), tc.want)
				}
			}
		})
	}
}

// Resolution clamps at the ends of the readable keyspace: before the first
// key → "" and past the last → the max read key, \xff (or \xff\xff with
// system-key access). Facts §5.4. The "top" keys sit just below \xff so no
// other data lies beyond them (on a real cluster, nothing may be stored in
// [\xfe\xff\xff\xff, \xff)).
func TestGetKey_ClampsAtKeyspaceEnds(t *testing.T) {
	top := fdb.Key("\xfe\xff\xff\xfffdblite-conformance-top")
	put(t, top, "x")
	t.Cleanup(func() { put(t, top, nil) })
	// A system key beyond \xff must stay invisible without system access
	// (the metadata version key exists once any layer has bumped it).
	bumpMetadataVersion(t)
	cases := []struct {
		name   string
		system bool
		sel    fdb.KeySelector
		want   fdb.Key
	}{
		{"LastLessThan empty key", false, fdb.LastLessThan(fdb.Key("")), fdb.Key("")},
		{"LastLessOrEqual empty key", false, fdb.LastLessOrEqual(fdb.Key("")), fdb.Key("")},
		{"negative offset before first key", false, fdb.KeySelector{Key: fdb.Key(""), OrEqual: false, Offset: -5}, fdb.Key("")},
		{"FirstGreaterThan last key", false, fdb.FirstGreaterThan(top), fdb.Key("\xff")},
		{"FirstGreaterOrEqual \\xff", false, fdb.FirstGreaterOrEqual(fdb.Key("\xff")), fdb.Key("\xff")},
		{"big positive offset from last key", false, fdb.KeySelector{Key: top, OrEqual: false, Offset: 1000}, fdb.Key("\xff")},
		{"LastLessOrEqual last key", false, fdb.LastLessOrEqual(top), top},
		{"LastLessThan \\xff", false, fdb.LastLessThan(fdb.Key("\xff")), top},
		{"system: FirstGreaterOrEqual \\xff\\xff", true, fdb.FirstGreaterOrEqual(fdb.Key("\xff\xff")), fdb.Key("\xff\xff")},
		{"system: big offset past end", true, fdb.KeySelector{Key: fdb.Key("\xff\xfe"), OrEqual: false, Offset: 1000}, fdb.Key("\xff\xff")},
		{"system: LastLessOrEqual metadata version", true, fdb.LastLessOrEqual(metadataVersionKey), metadataVersionKey},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			if tc.system {
				must(tr.Options().SetReadSystemKeys())
			}
			got, err := tr.GetKey(tc.sel).Get()
			if err != nil {
				t.Fatalf("GetKey(%s, %v, %d): %v", fdb.Printable(tc.sel.Key.FDBKey()), tc.sel.OrEqual, tc.sel.Offset, err)
			}
			if string(got) != string(tc.want) {
				t.Errorf("GetKey(%s, %v, %d) = %s, want %s", fdb.Printable(tc.sel.Key.FDBKey()), tc.sel.OrEqual, tc.sel.Offset, fdb.Printable(got), fdb.Printable(tc.want))
			}
		})
	}
}

// A selector key beyond the max read key is key_outside_legal_range (2004);
// exactly \xff is allowed (facts §5.3).
func TestGetKey_SelectorKeyPastMaxReadKeyFails(t *testing.T) {
	cases := []struct {
		name   string
		system bool
		key    fdb.Key
		want   int
	}{
		{"\\xff\\x00 without system access", false, fdb.Key("\xff\x00"), 2004},
		{"\\xff\\xff\\x00 with read system keys", true, fdb.Key("\xff\xff\x00"), 2004},
		{"\\xff\\x00 with read system keys", true, fdb.Key("\xff\x00"), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			if tc.system {
				must(tr.Options().SetReadSystemKeys())
			}
			_, err := tr.GetKey(fdb.FirstGreaterOrEqual(tc.key)).Get()
			wantCode(t, "GetKey", err, tc.want)
		})
	}
}
