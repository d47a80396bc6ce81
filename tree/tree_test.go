package tree

import (
	"errors"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// The rows of an object and of a link are the ones dynamotree's README
// lists for Accounts/123456/Links/xyzpdq and for the link ¦Links¦xyzpdq.
func TestLayoutIsDynamotrees(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	if err := tr.Put(db, p("Accounts/123456/Links/xyzpdq"), fdyno.Item{"LinkTarget": fdyno.S("http://example.com/")}); err != nil {
		t.Fatal(err)
	}
	if err := tr.PutLink(db, p("Links/xyzpdq"), p("Accounts/123456/Links/xyzpdq")); err != nil {
		t.Fatal(err)
	}
	want := []row{
		{Key: "¦", Child: "Accounts"},
		{Key: "¦", Child: "Links"},
		{Key: "¦Accounts¦", Child: "123456"},
		{Key: "¦Accounts¦123456¦", Child: "Links"},
		{Key: "¦Accounts¦123456¦Links¦", Child: "xyzpdq"},
		{Key: "¦Accounts¦123456¦Links¦xyzpdq", Child: "¦", Attrs: `{"LinkTarget":{"S":"http://example.com/"}}`},
		{Key: "¦Links¦", Child: "xyzpdq"},
		{Key: "¦Links¦xyzpdq", Child: "¦", Attrs: `{"¦":{"S":"¦Accounts¦123456¦Links¦xyzpdq"}}`},
	}
	sortRows(want)
	if diff := cmp.Diff(want, allRows(t, db, tr)); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%s", diff)
	}
	got, err := tr.Get(db, p("Links/xyzpdq"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"LinkTarget":{"S":"http://example.com/"}}`, got.String()); diff != "" {
		t.Errorf("Get through the link mismatch (-want +got):\n%s", diff)
	}
}

// Another reserved character changes every delimiter, and only those.
func TestReservedCharacter(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{Reserved: "|"})
	if err := tr.Put(db, p("a/b"), fdyno.Item{"¦": fdyno.S("allowed now")}); err != nil {
		t.Fatal(err)
	}
	want := []row{
		{Key: "|", Child: "a"},
		{Key: "|a|", Child: "b"},
		{Key: "|a|b", Child: "|", Attrs: `{"¦":{"S":"allowed now"}}`},
	}
	if diff := cmp.Diff(want, allRows(t, db, tr)); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%s", diff)
	}
	if _, err := Open(db, tr.table, Options{Reserved: "ab"}); !errors.Is(err, fdyno.ErrValidation) {
		t.Errorf("Open(Reserved: two characters) = %v, want ValidationError", err)
	}
}

func TestOpenChecksSchema(t *testing.T) {
	db := fdblitetest.Open(t)
	dir := fdblitetest.UniqueDirectory(t, db)
	tbl, err := fdyno.Open(db, "Other", fdyno.WithRoot(dir.GetPath()...), fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "Key", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Key", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db, tbl, Options{}); !errors.Is(err, ErrSchema) {
		t.Errorf("Open(hash-only table) = %v, want ErrSchema", err)
	}
}

// Bad paths and items are typed errors that match ErrValidation too, and
// write nothing, in a caller's transaction either.
func TestBadInputWritesNothing(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	if err := tr.Put(db, p("keep/me"), fdyno.Item{"n": fdyno.NInt(1)}); err != nil {
		t.Fatal(err)
	}
	before := allRows(t, db, tr)
	long := strings.Repeat("x", MaxComponentBytes+1)
	deep := make(Path, 700)
	for i := range deep {
		deep[i] = "d"
	}
	ok := fdyno.Item{"n": fdyno.NInt(1)}
	tests := []struct {
		name string
		op   func(fdb.Transactor) error
		want error
	}{
		{"put empty path", func(tx fdb.Transactor) error { return tr.Put(tx, Path{}, ok) }, ErrInvalidPath},
		{"put empty component", func(tx fdb.Transactor) error { return tr.Put(tx, Path{"a", "", "b"}, ok) }, ErrInvalidPath},
		{"put reserved in component", func(tx fdb.Transactor) error { return tr.Put(tx, Path{"a", "x¦y"}, ok) }, ErrInvalidPath},
		{"put invalid UTF-8", func(tx fdb.Transactor) error { return tr.Put(tx, Path{"a", "\xff"}, ok) }, ErrInvalidPath},
		{"put component over 1024 bytes", func(tx fdb.Transactor) error { return tr.Put(tx, Path{long}, ok) }, ErrInvalidPath},
		{"put path over 2048 bytes", func(tx fdb.Transactor) error { return tr.Put(tx, deep, ok) }, ErrInvalidPath},
		{"put attribute Key", func(tx fdb.Transactor) error { return tr.Put(tx, p("a"), fdyno.Item{"Key": fdyno.S("x")}) }, ErrInvalidItem},
		{"put attribute Child", func(tx fdb.Transactor) error { return tr.Put(tx, p("a"), fdyno.Item{"Child": fdyno.S("x")}) }, ErrInvalidItem},
		{"put attribute starting with reserved", func(tx fdb.Transactor) error { return tr.Put(tx, p("a"), fdyno.Item{"¦x": fdyno.S("x")}) }, ErrInvalidItem},
		{"put empty string set", func(tx fdb.Transactor) error { return tr.Put(tx, p("a/b"), fdyno.Item{"s": fdyno.SS()}) }, fdyno.ErrValidation},
		{"put item over 400 KB", func(tx fdb.Transactor) error {
			return tr.Put(tx, p("a/b"), fdyno.Item{"s": fdyno.S(strings.Repeat("x", 400*1024))})
		}, fdyno.ErrValidation},
		{"link bad target", func(tx fdb.Transactor) error { return tr.PutLink(tx, p("a"), Path{"b", ""}) }, ErrInvalidPath},
		{"link empty target", func(tx fdb.Transactor) error { return tr.PutLink(tx, p("a"), Path{}) }, ErrInvalidPath},
		{"delete empty path", func(tx fdb.Transactor) error { return tr.Delete(tx, Path{}) }, ErrInvalidPath},
		{"delete reserved", func(tx fdb.Transactor) error { return tr.Delete(tx, Path{"keep", "¦"}) }, ErrInvalidPath},
		{"delete missing", func(tx fdb.Transactor) error { return tr.Delete(tx, p("keep/nothing")) }, ErrNotFound},
		{"delete directory only", func(tx fdb.Transactor) error { return tr.Delete(tx, p("keep")) }, ErrNotFound},
		{"deletetree bad", func(tx fdb.Transactor) error { return tr.DeleteTree(tx, Path{"keep", ""}) }, ErrInvalidPath},
		{"deletetree missing", func(tx fdb.Transactor) error { return tr.DeleteTree(tx, p("nothing")) }, ErrNotFound},
		{"move into itself", func(tx fdb.Transactor) error { return tr.Move(tx, p("keep"), p("keep/me/too")) }, ErrInvalidPath},
		{"move onto itself", func(tx fdb.Transactor) error { return tr.Move(tx, p("keep/me"), p("keep/me")) }, ErrInvalidPath},
		{"move onto a directory", func(tx fdb.Transactor) error { return tr.Move(tx, p("keep/me"), p("keep")) }, ErrExists},
		{"move missing", func(tx fdb.Transactor) error { return tr.Move(tx, p("nothing"), p("else")) }, ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, via := range []string{"database", "caller's transaction"} {
				var err error
				if via == "database" {
					err = tc.op(db)
				} else {
					_, _ = db.Transact(func(tx fdb.Transaction) (any, error) {
						err = tc.op(tx)
						return nil, nil // commit whatever the operation left in tx
					})
				}
				if !errors.Is(err, tc.want) {
					t.Errorf("%s: err = %v, want %v", via, err, tc.want)
				}
				if errors.Is(tc.want, ErrInvalidPath) || errors.Is(tc.want, ErrInvalidItem) {
					if !errors.Is(err, fdyno.ErrValidation) {
						t.Errorf("%s: err = %v, does not match fdyno.ErrValidation", via, err)
					}
				}
				if diff := cmp.Diff(before, allRows(t, db, tr)); diff != "" {
					t.Errorf("%s: rows changed (-before +after):\n%s", via, diff)
				}
			}
		})
	}
}

func TestPathErrorsOnReads(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	var pe *PathError
	if _, err := tr.Get(db, Path{"a", ""}); !errors.As(err, &pe) || pe.Reason != "empty component" {
		t.Errorf("Get(a/) = %v, want PathError empty component", err)
	}
	if _, err := tr.GetLink(db, Path{}); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("GetLink(root) = %v, want ErrInvalidPath", err)
	}
	if _, err := tr.List(db, Path{"x¦"}, ListInput{}); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("List(x¦) = %v, want ErrInvalidPath", err)
	}
	if _, err := tr.List(db, Path{}, ListInput{Limit: MaxListLimit + 1}); !errors.Is(err, fdyno.ErrValidation) {
		t.Errorf("List(Limit 1001) = %v, want ValidationError", err)
	}
}

func TestGetFollowsLinks(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{MaxLinks: 3})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tr.Put(db, p("obj"), fdyno.Item{"v": fdyno.S("here")}))
	must(tr.PutLink(db, p("l1"), p("obj")))
	must(tr.PutLink(db, p("l2"), p("l1")))
	must(tr.PutLink(db, p("l3"), p("l2")))
	must(tr.PutLink(db, p("l4"), p("l3")))
	must(tr.PutLink(db, p("cyc/a"), p("cyc/b")))
	must(tr.PutLink(db, p("cyc/b"), p("cyc/a")))
	must(tr.PutLink(db, p("self"), p("self")))
	must(tr.PutLink(db, p("dangling"), p("gone")))
	tests := []struct {
		path  string
		want  string
		err   error
		chain []string
	}{
		{path: "obj", want: `{"v":{"S":"here"}}`},
		{path: "l1", want: `{"v":{"S":"here"}}`},
		{path: "l3", want: `{"v":{"S":"here"}}`},
		{path: "l4", err: ErrTooManyLinks, chain: []string{"l4", "l3", "l2", "l1", "obj"}},
		{path: "cyc/a", err: ErrLinkCycle, chain: []string{"cyc/a", "cyc/b", "cyc/a"}},
		{path: "self", err: ErrLinkCycle, chain: []string{"self", "self"}},
		{path: "dangling", err: ErrNotFound},
		{path: "none", err: ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, err := tr.Get(db, p(tc.path))
			if !errors.Is(err, tc.err) {
				t.Fatalf("Get = %v, %v; want error %v", got, err, tc.err)
			}
			if tc.err == nil {
				if diff := cmp.Diff(tc.want, got.String()); diff != "" {
					t.Errorf("Get mismatch (-want +got):\n%s", diff)
				}
			}
			if tc.chain != nil {
				var le *LinkError
				if !errors.As(err, &le) {
					t.Fatalf("err %v is not a *LinkError", err)
				}
				var chain []string
				for _, c := range le.Chain {
					chain = append(chain, c.String())
				}
				if diff := cmp.Diff(tc.chain, chain); diff != "" {
					t.Errorf("chain mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
	if target, err := tr.GetLink(db, p("l2")); err != nil || target.String() != "l1" {
		t.Errorf("GetLink(l2) = %v, %v; want l1", target, err)
	}
	if _, err := tr.GetLink(db, p("obj")); !errors.Is(err, ErrNotLink) {
		t.Errorf("GetLink(obj) = %v, want ErrNotLink", err)
	}
	if _, err := tr.GetLink(db, p("none")); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetLink(none) = %v, want ErrNotFound", err)
	}
	if target, err := tr.GetLink(db, p("dangling")); err != nil || target.String() != "gone" {
		t.Errorf("GetLink(dangling) = %v, %v; want gone", target, err)
	}
}

// A link row written by someone else with a target that is not an object
// key is reported as corrupt, not followed.
func TestGetCorruptLink(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	for _, target := range []fdyno.Value{fdyno.S("no-leading-bar"), fdyno.S("¦a¦¦b"), fdyno.NInt(3)} {
		if _, err := tr.table.Put(db, fdyno.PutInput{Item: fdyno.Item{"Key": fdyno.S("¦bad"), "Child": fdyno.S("¦"), "¦": target}}); err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Get(db, p("bad")); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Get(link to %v) = %v, want ErrCorrupt", target, err)
		}
	}
	if _, err := tr.table.Delete(db, fdyno.DeleteInput{Key: fdyno.Item{"Key": fdyno.S("¦bad"), "Child": fdyno.S("¦")}}); err != nil {
		t.Fatal(err)
	}
}

// listing returns every listing row as "dir/: child" lines.
func listing(t *testing.T, db fdb.Database, tr *Tree) []string {
	t.Helper()
	var out []string
	for _, r := range allRows(t, db, tr) {
		if r.Child != tr.r {
			out = append(out, r.Key+" "+r.Child)
		} else {
			out = append(out, r.Key)
		}
	}
	return out
}

func TestDeleteKeepsListingsExact(t *testing.T) {
	tests := []struct {
		name   string
		puts   []string
		delete string
		want   []string
	}{
		{"last object removes every emptied ancestor", []string{"a/b/c"}, "a/b/c", nil},
		{"sibling keeps the directory", []string{"a/b/c", "a/b/d"}, "a/b/c",
			[]string{"¦ a", "¦a¦ b", "¦a¦b¦ d", "¦a¦b¦d"}},
		{"object at an ancestor keeps its listing", []string{"a/b/c", "a/b"}, "a/b/c",
			[]string{"¦ a", "¦a¦ b", "¦a¦b"}},
		{"children keep the deleted path's listing", []string{"a/b/c", "a/b"}, "a/b",
			[]string{"¦ a", "¦a¦ b", "¦a¦b¦ c", "¦a¦b¦c"}},
		{"emptied up to a non-empty ancestor", []string{"a/b/c/d", "a/x"}, "a/b/c/d",
			[]string{"¦ a", "¦a¦ x", "¦a¦x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := fdblitetest.Open(t)
			tr := newTestTree(t, db, Options{})
			for _, s := range tc.puts {
				if err := tr.Put(db, p(s), fdyno.Item{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := tr.Delete(db, p(tc.delete)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, listing(t, db, tr)); diff != "" {
				t.Errorf("rows mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDeleteTree(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	for _, s := range []string{"a/b", "a/b/c", "a/b/c/d", "a/b/e", "a/x", "z"} {
		if err := tr.Put(db, p(s), fdyno.Item{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.DeleteTree(db, p("a/b")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"¦ a", "¦ z", "¦a¦ x", "¦a¦x", "¦z"}, listing(t, db, tr)); diff != "" {
		t.Errorf("after DeleteTree(a/b) (-want +got):\n%s", diff)
	}
	if err := tr.DeleteTree(db, p("a/x")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"¦ z", "¦z"}, listing(t, db, tr)); diff != "" {
		t.Errorf("after DeleteTree(a/x) (-want +got):\n%s", diff)
	}
	if err := tr.DeleteTree(db, Path{}); err != nil {
		t.Fatal(err)
	}
	if got := listing(t, db, tr); got != nil {
		t.Errorf("after DeleteTree(root): %q", got)
	}
}

// Past Options.MaxRows, DeleteTree and Move read and write nothing but
// return a TooLargeError.
func TestTooLarge(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{MaxRows: 5})
	for _, s := range []string{"big/1", "big/2", "big/3"} {
		if err := tr.Put(db, p(s), fdyno.Item{}); err != nil {
			t.Fatal(err)
		}
	}
	before := allRows(t, db, tr)
	var tl *TooLargeError
	if err := tr.DeleteTree(db, p("big")); !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("DeleteTree = %v, want TooLargeError", err)
	}
	if tl.Rows != 6 || tl.MaxRows != 5 {
		t.Errorf("TooLargeError = %+v, want 6 rows counted against 5", tl)
	}
	if err := tr.Move(db, p("big"), p("small")); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Move = %v, want ErrTooLarge", err)
	}
	if diff := cmp.Diff(before, allRows(t, db, tr)); diff != "" {
		t.Errorf("rows changed (-before +after):\n%s", diff)
	}
	small := newTestTree(t, db, Options{MaxBytes: 300})
	if err := small.Put(db, p("x/y"), fdyno.Item{"s": fdyno.S(strings.Repeat("x", 300))}); err != nil {
		t.Fatal(err)
	}
	if err := small.Move(db, p("x"), p("w")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Move of 300 bytes with MaxBytes 300 = %v, want ErrTooLarge", err)
	}
	if err := small.DeleteTree(db, p("x")); err != nil {
		t.Errorf("DeleteTree (keys only) = %v", err)
	}
}

func TestMove(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	for _, s := range []string{"src/a", "src/a/b", "src/c/d", "other/x"} {
		if err := tr.Put(db, p(s), fdyno.Item{"was": fdyno.S(s)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.PutLink(db, p("src/l"), p("other/x")); err != nil {
		t.Fatal(err)
	}
	if err := tr.Move(db, p("src"), p("dst/new")); err != nil {
		t.Fatal(err)
	}
	want := []row{
		{Key: "¦", Child: "dst"},
		{Key: "¦", Child: "other"},
		{Key: "¦dst¦", Child: "new"},
		{Key: "¦dst¦new¦", Child: "a"},
		{Key: "¦dst¦new¦", Child: "c"},
		{Key: "¦dst¦new¦", Child: "l"},
		{Key: "¦dst¦new¦a", Child: "¦", Attrs: `{"was":{"S":"src/a"}}`},
		{Key: "¦dst¦new¦a¦", Child: "b"},
		{Key: "¦dst¦new¦a¦b", Child: "¦", Attrs: `{"was":{"S":"src/a/b"}}`},
		{Key: "¦dst¦new¦c¦", Child: "d"},
		{Key: "¦dst¦new¦c¦d", Child: "¦", Attrs: `{"was":{"S":"src/c/d"}}`},
		{Key: "¦dst¦new¦l", Child: "¦", Attrs: `{"¦":{"S":"¦other¦x"}}`},
		{Key: "¦other¦", Child: "x"},
		{Key: "¦other¦x", Child: "¦", Attrs: `{"was":{"S":"other/x"}}`},
	}
	if diff := cmp.Diff(want, allRows(t, db, tr)); diff != "" {
		t.Errorf("rows after Move mismatch (-want +got):\n%s", diff)
	}
	// Rename within one directory that it empties and fills again.
	if err := tr.Move(db, p("other/x"), p("other/y")); err != nil {
		t.Fatal(err)
	}
	if got, err := tr.Get(db, p("other/y")); err != nil || got["was"].S() != "other/x" {
		t.Errorf("Get(other/y) = %v, %v", got, err)
	}
	if _, err := tr.Get(db, p("dst/new/l")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(dst/new/l), a link to the moved other/x = %v, want ErrNotFound (targets are not rewritten)", err)
	}
	if err := tr.Move(db, p("dst/new/a/b"), p("other/y")); !errors.Is(err, ErrExists) {
		t.Errorf("Move onto an object = %v, want ErrExists", err)
	}
}

func TestListKindsAndCursors(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	for _, s := range []string{"d/obj", "d/both", "d/both/x", "d/dir/y"} {
		if err := tr.Put(db, p(s), fdyno.Item{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{{"d/link", "d/obj"}, {"d/linkdir", "d/obj"}} {
		if err := tr.PutLink(db, p(l[0]), p(l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Put(db, p("d/linkdir/z"), fdyno.Item{}); err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{"both", KindObject | KindDirectory},
		{"dir", KindDirectory},
		{"link", KindLink},
		{"linkdir", KindLink | KindDirectory},
		{"obj", KindObject},
	}
	var got []Entry
	var cursor []byte
	pages := 0
	for {
		out, err := tr.List(db, p("d"), ListInput{Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, out.Entries...)
		if out.Cursor == nil {
			break
		}
		cursor = out.Cursor
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List mismatch (-want +got):\n%s", diff)
	}
	if pages != 3 {
		t.Errorf("pages = %d, want 3 (2+2+1)", pages)
	}
	// A page that holds the last child has no cursor, even when it is
	// full (issue 35: Limit 5 of 5 children gave a cursor, then an empty
	// page).
	for _, limit := range []int{5, 6} {
		full, err := tr.List(db, p("d"), ListInput{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Entries) != 5 || full.Cursor != nil {
			t.Errorf("List(Limit %d) of 5 children: %d entries, cursor %q; want 5, nil", limit, len(full.Entries), full.Cursor)
		}
	}
	last, err := tr.List(db, p("d"), ListInput{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if last.Cursor == nil {
		t.Error("List(Limit 4) of 5 children: no cursor")
	} else if rest, err := tr.List(db, p("d"), ListInput{Limit: 1, Cursor: last.Cursor}); err != nil || len(rest.Entries) != 1 || rest.Cursor != nil {
		t.Errorf("last page of one: %+v, %v; want one entry, no cursor", rest, err)
	}
	out, err := tr.List(db, p("d"), ListInput{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.List(db, p("d/both"), ListInput{Cursor: out.Cursor}); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("List(other directory's cursor) = %v, want ErrInvalidCursor", err)
	}
	if _, err := tr.List(db, p("d"), ListInput{Cursor: []byte("junk")}); !errors.Is(err, ErrInvalidCursor) || !errors.Is(err, fdyno.ErrValidation) {
		t.Errorf("List(junk cursor) = %v, want ErrInvalidCursor", err)
	}
	names, err := tr.List(db, p("d"), ListInput{NamesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Entry{{"both", 0}, {"dir", 0}, {"link", 0}, {"linkdir", 0}, {"obj", 0}}, names.Entries); diff != "" {
		t.Errorf("List(NamesOnly) mismatch (-want +got):\n%s", diff)
	}
	root, err := tr.List(db, Path{}, ListInput{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Entry{{"d", KindDirectory}}, root.Entries); diff != "" {
		t.Errorf("List(root) mismatch (-want +got):\n%s", diff)
	}
	if root.Cursor != nil {
		t.Errorf("List(root).Cursor = %q, want nil", root.Cursor)
	}
}

func TestWalk(t *testing.T) {
	db := fdblitetest.Open(t)
	tr := newTestTree(t, db, Options{})
	for _, s := range []string{"a", "a/b/c", "a/d", "e/f"} {
		if err := tr.Put(db, p(s), fdyno.Item{}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for e, err := range tr.Walk(t.Context(), db, Path{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Path.String()+" "+e.Kind.String())
	}
	want := []string{"a object+directory", "a/b directory", "a/b/c object", "a/d object", "e directory", "e/f object"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk mismatch (-want +got):\n%s", diff)
	}
	got = nil
	for e, err := range tr.Walk(t.Context(), db, p("a")) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Path.String())
		if len(got) == 2 {
			break
		}
	}
	if diff := cmp.Diff([]string{"a/b", "a/b/c"}, got); diff != "" {
		t.Errorf("Walk(a) stopped after 2 mismatch (-want +got):\n%s", diff)
	}
}
