package tree_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/tree"
)

// openTree opens a fresh tree for one example: a table with the tree's key
// schema under the directory root, emptied first.
func openTree(root string) (fdb.Database, *tree.Tree) {
	fdb.MustAPIVersion(730)
	db := fdb.MustOpenDefault()
	if _, err := directory.Root().Remove(db, []string{root}); err != nil {
		panic(err)
	}
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.ClearRange(subspace.Sub(root + "-watch"))
		return nil, nil
	}); err != nil {
		panic(err)
	}
	tbl, err := fdyno.Open(db, "Tree", fdyno.WithRoot(root), fdyno.WithSchema(tree.TableSchema()))
	if err != nil {
		panic(err)
	}
	t, err := tree.Open(db, tbl, tree.Options{Watch: subspace.Sub(root + "-watch")})
	if err != nil {
		panic(err)
	}
	return db, t
}

// The link shortener of dynamotree's README: accounts own links, and a
// symbolic link under Links/ makes a short link one Get away without
// knowing its account.
func Example() {
	db, links := openTree("example-tree-shortener")

	_ = links.Put(db, tree.Path{"Accounts", "123456"}, fdyno.Item{
		"name": fdyno.S("Alice"), "email": fdyno.S("alice@example.com"),
	})
	_ = links.Put(db, tree.Path{"Accounts", "123456", "Links", "xyzpdq"}, fdyno.Item{
		"LinkTarget": fdyno.S("http://example.com/"),
	})
	_ = links.PutLink(db, tree.Path{"Links", "xyzpdq"}, tree.Path{"Accounts", "123456", "Links", "xyzpdq"})

	// Redirect: one Get, following the link.
	link, err := links.Get(db, tree.Path{"Links", "xyzpdq"})
	if err != nil {
		panic(err)
	}
	fmt.Println("redirect to", link["LinkTarget"].S())

	// The account is both an object and a directory.
	out, _ := links.List(db, tree.Path{"Accounts"}, tree.ListInput{})
	for _, e := range out.Entries {
		fmt.Println("Accounts/"+e.Name, e.Kind)
	}

	// Deleting the account's only link unlists Accounts/123456/Links; the
	// account object stays.
	_ = links.Delete(db, tree.Path{"Accounts", "123456", "Links", "xyzpdq"})
	out, _ = links.List(db, tree.Path{"Accounts"}, tree.ListInput{})
	fmt.Println("Accounts/"+out.Entries[0].Name, out.Entries[0].Kind)
	_, err = links.Get(db, tree.Path{"Links", "xyzpdq"})
	fmt.Println(errors.Is(err, tree.ErrNotFound))
	// Output:
	// redirect to http://example.com/
	// Accounts/123456 object+directory
	// Accounts/123456 object
	// true
}

// Put and your own writes commit together in your transaction.
func ExampleTree_Put() {
	db, t := openTree("example-tree-put")
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if err := t.Put(tr, tree.Path{"users", "ada"}, fdyno.Item{"born": fdyno.NInt(1815)}); err != nil {
			return nil, err
		}
		return nil, t.Put(tr, tree.Path{"users", "alan"}, fdyno.Item{"born": fdyno.NInt(1912)})
	})
	fmt.Println(err)

	// A component with the reserved character is refused; nothing is written.
	err = t.Put(db, tree.Path{"users", "a¦b"}, fdyno.Item{})
	fmt.Println(errors.Is(err, tree.ErrInvalidPath), errors.Is(err, fdyno.ErrValidation))
	// Output:
	// <nil>
	// true true
}

// Get follows links, but not around a cycle.
func ExampleTree_Get() {
	db, t := openTree("example-tree-get")
	_ = t.PutLink(db, tree.Path{"a"}, tree.Path{"b"})
	_ = t.PutLink(db, tree.Path{"b"}, tree.Path{"a"})
	_, err := t.Get(db, tree.Path{"a"})
	fmt.Println(err)
	var le *tree.LinkError
	fmt.Println(errors.As(err, &le), errors.Is(err, tree.ErrLinkCycle), len(le.Chain))
	// Output:
	// tree: symbolic link cycle: a -> b -> a
	// true true 3
}

// List pages through a directory with cursors.
func ExampleTree_List() {
	db, t := openTree("example-tree-list")
	for _, name := range []string{"c", "a", "b", "d", "e"} {
		_ = t.Put(db, tree.Path{"dir", name}, fdyno.Item{})
	}
	in := tree.ListInput{Limit: 2}
	for {
		out, err := t.List(db, tree.Path{"dir"}, in)
		if err != nil {
			panic(err)
		}
		fmt.Println(out.Entries)
		if out.Cursor == nil {
			break
		}
		in.Cursor = out.Cursor
	}
	// Output:
	// [{a object} {b object}]
	// [{c object} {d object}]
	// [{e object}]
}

// Walk visits a subtree depth first.
func ExampleTree_Walk() {
	db, t := openTree("example-tree-walk")
	for _, p := range []string{"docs/guide", "docs/api/v1", "docs/api/v2", "src/main"} {
		path, _ := tree.ParsePath(p)
		_ = t.Put(db, path, fdyno.Item{})
	}
	for e, err := range t.Walk(context.Background(), db, tree.Path{}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(e.Path, e.Kind)
	}
	// Output:
	// docs directory
	// docs/api directory
	// docs/api/v1 object
	// docs/api/v2 object
	// docs/guide object
	// src directory
	// src/main object
}

// Move renames a whole subtree in one transaction.
func ExampleTree_Move() {
	db, t := openTree("example-tree-move")
	_ = t.Put(db, tree.Path{"drafts", "post"}, fdyno.Item{"title": fdyno.S("Hello")})
	_ = t.Put(db, tree.Path{"drafts", "post", "image"}, fdyno.Item{})
	fmt.Println(t.Move(db, tree.Path{"drafts", "post"}, tree.Path{"published", "2026", "post"}))
	for e := range t.Walk(context.Background(), db, tree.Path{}) {
		fmt.Println(e.Path, e.Kind)
	}
	// Output:
	// <nil>
	// published directory
	// published/2026 directory
	// published/2026/post object+directory
	// published/2026/post/image object
}

// DeleteTree removes a subtree and the directories it leaves empty.
func ExampleTree_DeleteTree() {
	db, t := openTree("example-tree-deletetree")
	_ = t.Put(db, tree.Path{"tmp", "a", "b"}, fdyno.Item{})
	_ = t.Put(db, tree.Path{"tmp", "c"}, fdyno.Item{})
	_ = t.Put(db, tree.Path{"keep"}, fdyno.Item{})
	fmt.Println(t.DeleteTree(db, tree.Path{"tmp"}))
	out, _ := t.List(db, tree.Path{}, tree.ListInput{})
	fmt.Println(out.Entries)
	// Output:
	// <nil>
	// [{keep object}]
}

// Watch reports changes to a directory's children as they commit.
func ExampleTree_Watch() {
	db, t := openTree("example-tree-watch")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for ev, err := range t.Watch(ctx, db, tree.Path{"inbox"}, nil) {
		if err != nil {
			panic(err)
		}
		out, _ := t.List(db, ev.Dir, tree.ListInput{})
		fmt.Println(out.Entries)
		if n++; n == 3 {
			break
		}
		// Stands for a writer elsewhere.
		_ = t.Put(db, tree.Path{"inbox", fmt.Sprint("msg", n)}, fdyno.Item{})
	}
	// Output:
	// []
	// [{msg1 object}]
	// [{msg1 object} {msg2 object}]
}

// Open checks the table's key schema; TableSchema is the one to create it
// with.
func ExampleOpen() {
	fdb.MustAPIVersion(730)
	db := fdb.MustOpenDefault()
	if _, err := directory.Root().Remove(db, []string{"example-tree-open"}); err != nil {
		panic(err)
	}
	tbl, err := fdyno.Open(db, "Files", fdyno.WithRoot("example-tree-open"), fdyno.WithSchema(tree.TableSchema()))
	if err != nil {
		panic(err)
	}
	files, err := tree.Open(db, tbl, tree.Options{Reserved: "|"})
	fmt.Println(files.Reserved(), err)

	other, _ := fdyno.Open(db, "Other", fdyno.WithRoot("example-tree-open"), fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "id", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "id", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))
	_, err = tree.Open(db, other, tree.Options{})
	fmt.Println(errors.Is(err, tree.ErrSchema))
	// Output:
	// | <nil>
	// true
}

// GetLink reads a link itself, not its target.
func ExampleTree_GetLink() {
	db, t := openTree("example-tree-getlink")
	_ = t.PutLink(db, tree.Path{"latest"}, tree.Path{"releases", "v2"})
	target, err := t.GetLink(db, tree.Path{"latest"})
	fmt.Println(target, err)
	_, err = t.Get(db, tree.Path{"latest"}) // the target does not exist
	fmt.Println(errors.Is(err, tree.ErrNotFound))
	// Output:
	// releases/v2 <nil>
	// true
}

// Delete removes an object, and the directories it leaves empty.
func ExampleTree_Delete() {
	db, t := openTree("example-tree-delete")
	_ = t.Put(db, tree.Path{"a", "b", "c"}, fdyno.Item{})
	_ = t.Put(db, tree.Path{"a", "x"}, fdyno.Item{})
	fmt.Println(t.Delete(db, tree.Path{"a", "b", "c"}))
	out, _ := t.List(db, tree.Path{"a"}, tree.ListInput{})
	fmt.Println(out.Entries)
	fmt.Println(errors.Is(t.Delete(db, tree.Path{"a", "b", "c"}), tree.ErrNotFound))
	// Output:
	// <nil>
	// [{x object}]
	// true
}

// ParsePath reads slash-separated paths.
func ExampleParsePath() {
	p, err := tree.ParsePath("/Accounts/123456/Links")
	fmt.Println(len(p), p, err)
	_, err = tree.ParsePath("a//b")
	fmt.Println(err)
	// Output:
	// 3 Accounts/123456/Links <nil>
	// tree: parse "a//b": invalid path: empty component
}
