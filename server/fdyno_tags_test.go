package server

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/fdyno/fdyno"
)

func TestParseFdynoTags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tags   []tag
		unique []string // nil: no fdyno:unique-indexes
		counts string
		err    string // a substring of the ValidationException, "" for none
	}{
		{name: "none", tags: []tag{{"team", "db"}}},
		{name: "unique, spaces", tags: []tag{{"fdyno:unique-indexes", " byEmail  by.Handle-2\tx_y "}}, unique: []string{"by.Handle-2", "byEmail", "x_y"}},
		{name: "unique, empty", tags: []tag{{"fdyno:unique-indexes", ""}}, unique: []string{}},
		{name: "counts off", tags: []tag{{"fdyno:counts", "off"}}, counts: "off"},
		{name: "counts on", tags: []tag{{"fdyno:counts", "on"}}, counts: "on"},
		{name: "counts, bad value", tags: []tag{{"fdyno:counts", "OFF"}}, err: "must be on or off"},
		{name: "unique, comma", tags: []tag{{"fdyno:unique-indexes", "a1b,c1d"}}, err: "separated by spaces"},
		{name: "unique, short name", tags: []tag{{"fdyno:unique-indexes", "ab"}}, err: "separated by spaces"},
		{name: "unknown fdyno key", tags: []tag{{"fdyno:unique", "byEmail"}}, err: "unknown fdyno tag"},
		{name: "fdyno key in another case", tags: []tag{{"Fdyno:counts", "off"}}, err: "unknown fdyno tag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := parseFdynoTags(tc.tags)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || toAPIError(err).typ != errValidation {
					t.Fatalf("parseFdynoTags = %v, want a ValidationException with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(fs.unique)); (fs.unique == nil) != (tc.unique == nil) || !slices.Equal(got, tc.unique) {
				t.Errorf("unique = %q (nil %v), want %q", got, fs.unique == nil, tc.unique)
			}
			if fs.counts != tc.counts {
				t.Errorf("counts = %q, want %q", fs.counts, tc.counts)
			}
		})
	}
}

// checkTableTags refuses only changes of an fdyno tag that contradict
// the table: byU unique, byP not, an LSI byL, counts on.
func TestCheckTableTags(t *testing.T) {
	d := &fdyno.TableDescription{TableSchema: fdyno.TableSchema{
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "byU", Unique: true}, {IndexName: "byP"}},
		LocalSecondaryIndexes:  []fdyno.LocalSecondaryIndex{{IndexName: "byL"}},
	}}
	blind := &fdyno.TableDescription{TableSchema: fdyno.TableSchema{WithoutCounts: true}}
	u := func(v string) tag { return tag{"fdyno:unique-indexes", v} }
	c := func(v string) tag { return tag{"fdyno:counts", v} }
	for _, tc := range []struct {
		name     string
		d        *fdyno.TableDescription
		old, new []tag
		ok       bool
	}{
		{"other tags, no fdyno tag on a table with a unique GSI", d, nil, []tag{{"a", "b"}}, true},
		{"unique: the truth", d, nil, []tag{u("byU")}, true},
		{"unique: the truth and a future index", d, nil, []tag{u("byU byLater")}, true},
		{"unique: leaves byU out", d, nil, []tag{u("byLater")}, false},
		{"unique: adds byP", d, []tag{u("byU")}, []tag{u("byU byP")}, false},
		{"unique: names an LSI", d, nil, []tag{u("byU byL")}, false},
		{"unique: untag while byU is unique", d, []tag{u("byU")}, nil, false},
		{"unique: unchanged false tag is kept", d, []tag{u("byP")}, []tag{u("byP"), {"a", "b"}}, true},
		{"counts: on, as kept", d, nil, []tag{c("on")}, true},
		{"counts: off on a counted table", d, nil, []tag{c("off")}, false},
		{"counts: off, as kept", blind, nil, []tag{c("off")}, true},
		{"counts: untag off", blind, []tag{c("off")}, nil, false},
		{"counts: untag on", d, []tag{c("on")}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkTableTags(tc.d, tc.old, tc.new)
			if (err == nil) != tc.ok {
				t.Errorf("checkTableTags = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// FuzzFdynoTags: parsing any tag never panics; an accepted
// fdyno:unique-indexes lists exactly the value's fields, each a valid
// index name, and the list written back (sorted, one space apart)
// parses to the same set; fdyno:counts is accepted exactly for on and
// off.
func FuzzFdynoTags(f *testing.F) {
	for _, seed := range [][2]string{{"fdyno:unique-indexes", "byEmail byName"}, {"fdyno:counts", "off"}, {"fdyno:unique-indexes", "a,b"},
		{"FDYNO:counts", "on"}, {"team", "x"}, {"fdyno:unique-indexes", " \t "}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		fs, err := parseFdynoTags([]tag{{key, value}})
		switch {
		case !strings.HasPrefix(strings.ToLower(key), fdynoTagPrefix):
			if err != nil || fs.unique != nil || fs.counts != "" {
				t.Fatalf("a plain tag %q = %+v, %v", key, fs, err)
			}
		case key == tagCounts:
			if ok := value == "on" || value == "off"; ok != (err == nil) || ok && fs.counts != value {
				t.Fatalf("fdyno:counts=%q = %+v, %v", value, fs, err)
			}
		case key == tagUniqueIndexes:
			if err != nil {
				return
			}
			fields := strings.Fields(value)
			for _, n := range fields {
				if !fs.unique[n] || !validTableName(n) || len(n) < minTableNameLength || len(n) > maxTableNameLength {
					t.Fatalf("%q: field %q accepted as %v", value, n, fs.unique[n])
				}
			}
			if len(fs.unique) > len(fields) {
				t.Fatalf("%q: %d names from %d fields", value, len(fs.unique), len(fields))
			}
			again, err := parseFdynoTags([]tag{{key, strings.Join(slices.Sorted(maps.Keys(fs.unique)), " ")}})
			if err != nil || !maps.Equal(again.unique, fs.unique) {
				t.Fatalf("%q: written back parses to %v, %v; want %v", value, again.unique, err, fs.unique)
			}
		default:
			if err == nil {
				t.Fatalf("unknown fdyno key %q accepted", key)
			}
		}
	})
}
