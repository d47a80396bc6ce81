package tree

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// modelTree is the tree as a map from path ("a/b") to what is stored
// there: an item, or a link's target.
type modelTree map[string]modelEntry

type modelEntry struct {
	item fdyno.Item
	link Path // not nil for a link
}

// under reports whether path k is p or under p (p "" is the root).
func under(k, p string) bool { return p == "" || k == p || strings.HasPrefix(k, p+"/") }

// rows is the table the model stands for, in dynamotree's layout as its
// README describes it: one object row per path, and a listing row for each
// component of each path.
func (m modelTree) rows(tr *Tree) []row {
	set := map[row]bool{}
	for k, e := range m {
		path := p(k)
		attrs := e.item
		if e.link != nil {
			attrs = fdyno.Item{tr.r: fdyno.S(tr.r + strings.Join(e.link, tr.r))}
		}
		r := row{Key: tr.r + strings.Join(path, tr.r), Child: tr.r}
		if len(attrs) > 0 {
			r.Attrs = attrs.String()
		}
		set[r] = true
		for i := range path {
			set[row{Key: tr.r + strings.Join(path[:i], tr.r) + func() string {
				if i == 0 {
					return ""
				}
				return tr.r
			}(), Child: path[i]}] = true
		}
	}
	var rows []row
	for r := range set {
		rows = append(rows, r)
	}
	sortRows(rows)
	return rows
}

// get resolves a path as Get does, following at most maxLinks links.
func (m modelTree) get(path Path, maxLinks int) (fdyno.Item, error) {
	chain := []Path{path}
	cur := path
	for {
		e, ok := m[cur.String()]
		if !ok {
			return nil, ErrNotFound
		}
		if e.link == nil {
			return e.item, nil
		}
		for _, seen := range chain {
			if slices.Equal(seen, e.link) {
				return nil, ErrLinkCycle
			}
		}
		if len(chain) > maxLinks {
			return nil, ErrTooManyLinks
		}
		chain = append(chain, e.link)
		cur = e.link
	}
}

// list is the model's listing of dir.
func (m modelTree) list(dir Path) []Entry {
	kinds := map[string]Kind{}
	prefix := dir.String()
	for k, e := range m {
		if !under(k, prefix) || k == prefix {
			continue
		}
		rest := strings.Split(strings.TrimPrefix(k, prefix), "/")
		if prefix != "" {
			rest = rest[1:]
		}
		switch {
		case len(rest) > 1:
			kinds[rest[0]] |= KindDirectory
		case e.link != nil:
			kinds[rest[0]] |= KindLink
		default:
			kinds[rest[0]] |= KindObject
		}
	}
	var out []Entry
	for name, k := range kinds {
		out = append(out, Entry{Name: name, Kind: k})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// walk is the model's Walk of prefix.
func (m modelTree) walk(dir Path) []WalkEntry {
	var out []WalkEntry
	for _, e := range m.list(dir) {
		q := dir.join(e.Name)
		out = append(out, WalkEntry{Path: q, Kind: e.Kind})
		if e.Kind&KindDirectory != 0 {
			out = append(out, m.walk(q)...)
		}
	}
	return out
}

// The state machine: random Puts, PutLinks, Deletes, DeleteTrees, Moves,
// Gets, Lists and Walks against the model; after every step the table
// holds exactly the model's rows, so every listing row has something
// beneath it and every object is listed in each ancestor. A failure prints
// its seed and writes a failfile under testdata/rapid; replay with
// -rapid.failfile.
func TestTreeModel(t *testing.T) {
	db := fdblitetest.Open(t)
	const maxLinks = 3
	names := []string{"a", "b", "c", "é"}
	pathGen := func(min int) *rapid.Generator[Path] {
		return rapid.Custom(func(rt *rapid.T) Path {
			return Path(rapid.SliceOfN(rapid.SampledFrom(names), min, 3).Draw(rt, "components"))
		})
	}
	rapid.Check(t, func(rt *rapid.T) {
		tr := newTestTree(t, db, Options{MaxLinks: maxLinks})
		m := modelTree{}
		wantErr := func(op string, got, want error) {
			if want == nil && got != nil || want != nil && !errors.Is(got, want) {
				rt.Fatalf("%s: err = %v, want %v", op, got, want)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"put": func(rt *rapid.T) {
				path := pathGen(1).Draw(rt, "path")
				it := fdyno.Item{"v": fdyno.NInt(rapid.Int64Range(0, 9).Draw(rt, "v"))}
				wantErr("Put", tr.Put(db, path, it), nil)
				m[path.String()] = modelEntry{item: it}
			},
			"link": func(rt *rapid.T) {
				path := pathGen(1).Draw(rt, "path")
				target := pathGen(1).Draw(rt, "target")
				wantErr("PutLink", tr.PutLink(db, path, target), nil)
				m[path.String()] = modelEntry{link: target}
			},
			"delete": func(rt *rapid.T) {
				path := pathGen(1).Draw(rt, "path")
				var want error
				if _, ok := m[path.String()]; ok {
					delete(m, path.String())
				} else {
					want = ErrNotFound
				}
				wantErr("Delete", tr.Delete(db, path), want)
			},
			"deletetree": func(rt *rapid.T) {
				path := pathGen(0).Draw(rt, "path")
				want := ErrNotFound
				for k := range m {
					if under(k, path.String()) {
						delete(m, k)
						want = nil
					}
				}
				wantErr("DeleteTree", tr.DeleteTree(db, path), want)
			},
			"move": func(rt *rapid.T) {
				from := pathGen(1).Draw(rt, "from")
				to := pathGen(1).Draw(rt, "to")
				err := tr.Move(db, from, to)
				if under(to.String(), from.String()) {
					wantErr("Move", err, ErrInvalidPath)
					return
				}
				for k := range m {
					if under(k, to.String()) {
						wantErr("Move", err, ErrExists)
						return
					}
				}
				moved := modelTree{}
				for k, e := range m {
					if under(k, from.String()) {
						moved[to.String()+strings.TrimPrefix(k, from.String())] = e
						delete(m, k)
					}
				}
				if len(moved) == 0 {
					wantErr("Move", err, ErrNotFound)
					return
				}
				wantErr("Move", err, nil)
				for k, e := range moved {
					m[k] = e
				}
			},
			"get": func(rt *rapid.T) {
				path := pathGen(1).Draw(rt, "path")
				want, wantE := m.get(path, maxLinks)
				got, err := tr.Get(db, path)
				wantErr("Get", err, wantE)
				if wantE == nil && !got.Equal(want) {
					rt.Fatalf("Get(%v) = %v, want %v", path, got, want)
				}
			},
			"list": func(rt *rapid.T) {
				dir := pathGen(0).Draw(rt, "dir")
				limit := rapid.IntRange(1, 3).Draw(rt, "limit")
				var got []Entry
				in := ListInput{Limit: limit}
				for {
					out, err := tr.List(db, dir, in)
					if err != nil {
						rt.Fatalf("List: %v", err)
					}
					got = append(got, out.Entries...)
					if out.Cursor == nil {
						break
					}
					in.Cursor = out.Cursor
				}
				if diff := cmp.Diff(m.list(dir), got); diff != "" {
					rt.Fatalf("List(%v) mismatch (-want +got):\n%s", dir, diff)
				}
			},
			"walk": func(rt *rapid.T) {
				dir := pathGen(0).Draw(rt, "dir")
				var got []WalkEntry
				for e, err := range tr.Walk(t.Context(), db, dir) {
					if err != nil {
						rt.Fatalf("Walk: %v", err)
					}
					got = append(got, e)
				}
				if diff := cmp.Diff(m.walk(dir), got); diff != "" {
					rt.Fatalf("Walk(%v) mismatch (-want +got):\n%s", dir, diff)
				}
			},
			"": func(rt *rapid.T) {
				if diff := cmp.Diff(m.rows(tr), allRows(t, db, tr)); diff != "" {
					rt.Fatalf("rows mismatch (-model +table):\n%s", diff)
				}
			},
		})
	})
}
