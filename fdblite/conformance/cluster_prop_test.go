package conformance

import (
	"regexp"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"pgregory.net/rapid"
)

// Property: under read-your-writes, a read conflict range added after some
// writes conflicts with another transaction's write to key w exactly when w
// lies in the range and none of the earlier sets, clears or clear ranges
// covers w (an atomic operation alone leaves w depending on the database).
// Writes issued after the range was added change nothing.
func TestReadConflictRangeOverOwnWritesModel(t *testing.T) {
	s := newSpace(t)
	names := []string{"a", "b", "c", "d", "e", "f"}
	rapid.Check(t, func(rt *rapid.T) {
		key := func(i int) fdb.Key { return s.k(names[i]) }
		t1, err := db.CreateTransaction()
		if err != nil {
			rt.Fatal(err)
		}
		defer t1.Cancel()
		if _, err := t1.GetReadVersion().Get(); err != nil {
			rt.Fatal(err)
		}
		decided := map[int]bool{} // keys t1's sets and clears decide
		nops := rapid.IntRange(0, 4).Draw(rt, "ops")
		for op := 0; op < nops; op++ {
			i := rapid.IntRange(0, 4).Draw(rt, "key")
			switch rapid.SampledFrom([]string{"set", "clear", "clearRange", "add"}).Draw(rt, "op") {
			case "set":
				t1.Set(key(i), []byte("mine"))
				decided[i] = true
			case "clear":
				t1.Clear(key(i))
				decided[i] = true
			case "clearRange":
				j := rapid.IntRange(i, 5).Draw(rt, "end")
				t1.ClearRange(fdb.KeyRange{Begin: key(i), End: key(j)})
				for k := i; k < j; k++ {
					decided[k] = true
				}
			case "add":
				t1.Add(key(i), le64(1))
			}
		}
		b := rapid.IntRange(0, 5).Draw(rt, "begin")
		e := rapid.IntRange(b, 5).Draw(rt, "rangeEnd")
		must(t1.AddReadConflictRange(fdb.KeyRange{Begin: key(b), End: key(e)}))
		t1.Set(key(rapid.IntRange(0, 4).Draw(rt, "later")), []byte("later")) // read-write either way
		w := rapid.IntRange(0, 4).Draw(rt, "theirs")
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.Set(key(w), []byte("theirs"))
			return nil, nil
		}); err != nil {
			rt.Fatal(err)
		}
		want := 0
		if w >= b && w < e && !decided[w] {
			want = 1020
		}
		if got := codeOf(t1.Commit().Get()); got != want {
			rt.Fatalf("commit: code %d, want %d (range [%s, %s), their write %s, decided %v)",
				got, want, names[b], names[e], names[w], decided)
		}
	})
}

// FuzzOpenWithConnectionString: any string opens a database, which either
// works or fails its operations with connection_string_invalid (2104),
// never anything else; an
// opened database's \xff/coordinators is a connection string with the same
// description:ID (the database's identity; its coordinators are those of
// the string that first opened it).
func FuzzOpenWithConnectionString(f *testing.F) {
	for _, s := range []string{
		"", "desc:id@127.0.0.1:4500", "a_b:C0@[::1]:4500:tls,host.example:4501",
		"# comment\n d:i @ 10.0.0.1:1 # more\n", "d:i@1.2.3.4:4500,1.2.3.4:4500", "fdblite-memory:x",
		"d:i@h:65536", "@", ":@:",
	} {
		f.Add(s)
	}
	shape := regexp.MustCompile(`^[A-Za-z0-9_]+:[A-Za-z0-9]+@\S+$`)
	f.Fuzz(func(t *testing.T, s string) {
		fdbliteOnly(t)
		if s == "" || strings.HasPrefix(s, "fdblite-dir:") || strings.ContainsRune(s, 0) {
			return // would create directories; C strings end at NUL; Go refuses ""
		}
		d, err := fdb.OpenWithConnectionString(s)
		if err != nil {
			t.Fatalf("OpenWithConnectionString(%q): %v, want a database", s, err)
		}
		defer d.Close()
		v, err := d.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			if err := rt.(fdb.Transaction).Options().SetReadSystemKeys(); err != nil {
				return nil, err
			}
			return rt.Get(fdb.Key("\xff/coordinators")).Get()
		})
		if codeOf(err) == 2104 {
			return // malformed: the database reports it
		}
		if err != nil {
			t.Fatalf("OpenWithConnectionString(%q): %v, want success or code 2104", s, err)
		}
		cs := string(v.([]byte))
		if !shape.MatchString(cs) {
			t.Fatalf("OpenWithConnectionString(%q): coordinators %q is no connection string", s, cs)
		}
		if strings.HasPrefix(s, "fdblite-memory:") {
			return
		}
		var stripped strings.Builder
		lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
		for _, line := range lines {
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = line[:i]
			}
			stripped.WriteString(strings.Join(strings.Fields(line), ""))
		}
		want, _, _ := strings.Cut(stripped.String(), "@")
		if got, _, _ := strings.Cut(cs, "@"); got != want {
			t.Fatalf("OpenWithConnectionString(%q): coordinators %q, want description:ID %q", s, cs, want)
		}
	})
}
