package tree

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// ParsePath accepts exactly the slash paths without empty components and
// round-trips them through String.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"", "/", "a", "/a/b", "a//b", "a/", "Accounts/123456/Links/xyzpdq", "¦/x", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, err := ParsePath(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("ParsePath(%q) error %v is not ErrInvalidPath", s, err)
			}
			rest := strings.TrimPrefix(s, "/")
			if !strings.HasPrefix(rest, "/") && !strings.HasSuffix(rest, "/") && !strings.Contains(rest, "//") && utf8.ValidString(s) {
				t.Fatalf("ParsePath(%q) refused a path without empty components: %v", s, err)
			}
			return
		}
		for _, c := range path {
			if c == "" || strings.Contains(c, "/") || !utf8.ValidString(c) {
				t.Fatalf("ParsePath(%q) = %q: bad component %q", s, path, c)
			}
		}
		if got := path.String(); got != strings.TrimPrefix(s, "/") {
			t.Fatalf("ParsePath(%q).String() = %q", s, got)
		}
		again, err := ParsePath(path.String())
		if err != nil || !slices.Equal(again, path) {
			t.Fatalf("ParsePath(String()) = %q, %v; want %q", again, err, path)
		}
	})
}

// parseObjectKey (a link's target, a listing's directory) accepts exactly
// the keys objectKey makes from a valid path: decoding and re-encoding
// gives the input back, and anything else is ErrInvalidPath.
func FuzzParseObjectKey(f *testing.F) {
	for _, s := range []string{"", "¦", "¦a", "¦a¦b", "¦a¦", "¦¦", "a¦b", "|a|b", "¦Accounts¦123456¦Links¦xyzpdq", "¦\xc2"} {
		f.Add(s, "")
		f.Add(s, "|")
	}
	f.Fuzz(func(t *testing.T, s, reserved string) {
		if reserved == "" {
			reserved = DefaultReserved
		}
		if utf8.RuneCountInString(reserved) != 1 || !utf8.ValidString(reserved) {
			return
		}
		tr := &Tree{r: reserved}
		path, err := tr.parseObjectKey(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("parseObjectKey(%q) error %v is not ErrInvalidPath", s, err)
			}
			return
		}
		if err := tr.checkPath("fuzz", path); err != nil {
			t.Fatalf("parseObjectKey(%q) = %q, an invalid path: %v", s, path, err)
		}
		if got := tr.objectKey(path); got != s {
			t.Fatalf("objectKey(parseObjectKey(%q)) = %q", s, got)
		}
	})
}

// A List cursor decodes only for its own directory, into a valid
// component, and re-encodes to itself; a name's cursor decodes to the
// name.
func FuzzCursor(f *testing.F) {
	tr := &Tree{r: DefaultReserved}
	f.Add("a/b", []byte{}, "x")
	f.Add("", tr.encodeCursor(Path{}, "Accounts"), "Accounts")
	f.Add("a", tr.encodeCursor(Path{"a"}, "b"), "b")
	f.Add("a", tr.encodeCursor(Path{"b"}, "b"), "¦")
	f.Add("d", []byte("\x01junkjunkjunk"), "")
	f.Fuzz(func(t *testing.T, dir string, c []byte, name string) {
		path, err := ParsePath(dir)
		if err != nil || tr.checkDir("fuzz", path) != nil {
			return
		}
		got, err := tr.decodeCursor(path, c)
		if err != nil {
			if !errors.Is(err, ErrInvalidCursor) {
				t.Fatalf("decodeCursor(%q) error %v is not ErrInvalidCursor", c, err)
			}
		} else {
			if why := tr.checkComponent(got); why != "" {
				t.Fatalf("decodeCursor(%q) = %q: %s", c, got, why)
			}
			if again := tr.encodeCursor(path, got); !bytes.Equal(again, c) {
				t.Fatalf("encodeCursor(decodeCursor(%q)) = %q", c, again)
			}
		}
		if tr.checkComponent(name) != "" {
			return
		}
		back, err := tr.decodeCursor(path, tr.encodeCursor(path, name))
		if err != nil || back != name {
			t.Fatalf("decodeCursor(encodeCursor(%q)) = %q, %v", name, back, err)
		}
	})
}
