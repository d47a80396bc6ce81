package tree

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
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

// modelOp is one change: put (path, item), link (path to target), delete
// (path), deletetree (path), move (path to target).
type modelOp struct {
	kind         string
	path, target Path
	item         fdyno.Item
}

func (op modelOp) String() string { return fmt.Sprintf("%s %v %v", op.kind, op.path, op.target) }

// run applies op to the tree through tx.
func (op modelOp) run(tr *Tree, tx fdb.Transactor) error {
	switch op.kind {
	case "put":
		return tr.Put(tx, op.path, op.item)
	case "link":
		return tr.PutLink(tx, op.path, op.target)
	case "delete":
		return tr.Delete(tx, op.path)
	case "deletetree":
		return tr.DeleteTree(tx, op.path)
	default:
		return tr.Move(tx, op.path, op.target)
	}
}

// apply applies op to m, as the package documents it, and returns the
// error the tree must return; m changes only when that is nil.
func (op modelOp) apply(m modelTree) error {
	p := op.path.String()
	switch op.kind {
	case "put":
		m[p] = modelEntry{item: op.item}
	case "link":
		m[p] = modelEntry{link: op.target}
	case "delete":
		if _, ok := m[p]; !ok {
			return ErrNotFound
		}
		delete(m, p)
	case "deletetree":
		found := false
		for k := range m {
			if under(k, p) {
				delete(m, k)
				found = true
			}
		}
		if !found {
			return ErrNotFound
		}
	default:
		to := op.target.String()
		if under(to, p) {
			return ErrInvalidPath
		}
		for k := range m {
			if under(k, to) {
				return ErrExists
			}
		}
		moved := modelTree{}
		for k, e := range m {
			if under(k, p) {
				moved[to+strings.TrimPrefix(k, p)] = e
			}
		}
		if len(moved) == 0 {
			return ErrNotFound
		}
		for k := range m {
			if under(k, p) {
				delete(m, k)
			}
		}
		maps.Copy(m, moved)
	}
	return nil
}

// The state machine: random Puts, PutLinks, Deletes, DeleteTrees, Moves,
// Gets, Lists and Walks against the model, alone or several changes in
// one caller's transaction; after every step the table
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
	opGen := func(rt *rapid.T, kind string) modelOp {
		op := modelOp{kind: kind}
		switch kind {
		case "put":
			op.path = pathGen(1).Draw(rt, "path")
			op.item = fdyno.Item{"v": fdyno.NInt(rapid.Int64Range(0, 9).Draw(rt, "v"))}
		case "link", "move":
			op.path = pathGen(1).Draw(rt, "path")
			op.target = pathGen(1).Draw(rt, "target")
		case "delete":
			op.path = pathGen(1).Draw(rt, "path")
		case "deletetree":
			op.path = pathGen(0).Draw(rt, "path")
		}
		return op
	}
	rapid.Check(t, func(rt *rapid.T) {
		tr := newTestTree(t, db, Options{MaxLinks: maxLinks})
		m := modelTree{}
		wantErr := func(op string, got, want error) {
			if want == nil && got != nil || want != nil && !errors.Is(got, want) {
				rt.Fatalf("%s: err = %v, want %v", op, got, want)
			}
		}
		do := func(rt *rapid.T, op modelOp) {
			wantErr(op.String(), op.run(tr, db), op.apply(m))
		}
		rt.Repeat(map[string]func(*rapid.T){
			"put":        func(rt *rapid.T) { do(rt, opGen(rt, "put")) },
			"link":       func(rt *rapid.T) { do(rt, opGen(rt, "link")) },
			"delete":     func(rt *rapid.T) { do(rt, opGen(rt, "delete")) },
			"deletetree": func(rt *rapid.T) { do(rt, opGen(rt, "deletetree")) },
			"move":       func(rt *rapid.T) { do(rt, opGen(rt, "move")) },
			// Several changes in one caller's transaction: each sees the
			// ones before it, and an error rolls them all back.
			"transaction": func(rt *rapid.T) {
				n := rapid.IntRange(2, 4).Draw(rt, "ops")
				ops := make([]modelOp, n)
				for i := range ops {
					ops[i] = opGen(rt, rapid.SampledFrom([]string{"put", "link", "delete", "deletetree", "move"}).Draw(rt, "kind"))
				}
				after := maps.Clone(m)
				wants := make([]error, n)
				for i, op := range ops {
					wants[i] = op.apply(after)
				}
				var gots []error
				_, err := db.Transact(func(tx fdb.Transaction) (any, error) {
					gots = gots[:0]
					for _, op := range ops {
						err := op.run(tr, tx)
						gots = append(gots, err)
						if err != nil {
							return nil, err
						}
					}
					return nil, nil
				})
				for i, got := range gots {
					wantErr(ops[i].String(), got, wants[i])
				}
				if len(gots) < n && err == nil {
					rt.Fatalf("transaction ran %d of %d operations", len(gots), n)
				}
				if err == nil {
					m = after
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
