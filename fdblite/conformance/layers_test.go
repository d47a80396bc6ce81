package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/google/go-cmp/cmp"
)

// dirBase returns a directory path private to t, removed at the end.
func dirBase(t *testing.T) []string {
	base := []string{"fdblite-conformance", t.Name(), fmt.Sprint(spaceSeq.Add(1))}
	t.Cleanup(func() {
		if _, err := directory.Root().Remove(db, base); err != nil {
			t.Errorf("removing %v: %v", base, err)
		}
	})
	return base
}

func path(base []string, elems ...string) []string {
	return append(append([]string{}, base...), elems...)
}

// The directory layer end to end: create, open, list, exists, move, remove,
// nesting, and data written in directory subspaces (directory layer docs in
// the developer guide).
func TestDirectory_Lifecycle(t *testing.T) {
	base := dirBase(t)
	users, err := directory.CreateOrOpen(db, path(base, "users"), nil)
	if err != nil {
		t.Fatalf("CreateOrOpen(users): %v", err)
	}
	if _, err := directory.Create(db, path(base, "users"), nil); !errors.Is(err, directory.ErrDirAlreadyExists) {
		t.Errorf("Create(existing) error = %v, want ErrDirAlreadyExists", err)
	}
	if _, err := directory.Open(db, path(base, "nope"), nil); !errors.Is(err, directory.ErrDirNotExists) {
		t.Errorf("Open(missing) error = %v, want ErrDirNotExists", err)
	}
	again, err := directory.Open(db, path(base, "users"), nil)
	if err != nil {
		t.Fatalf("Open(users): %v", err)
	}
	if !bytes.Equal(again.Bytes(), users.Bytes()) {
		t.Errorf("Open returned prefix %s, CreateOrOpen %s", fdb.Printable(again.Bytes()), fdb.Printable(users.Bytes()))
	}
	for _, name := range []string{"orders", "accounts", "zeta"} {
		if _, err := directory.Create(db, path(base, name), []byte("layer-"+name)); err != nil {
			t.Fatalf("Create(%s): %v", name, err)
		}
	}
	nested, err := users.CreateOrOpen(db, []string{"eu", "fr"}, nil)
	if err != nil {
		t.Fatalf("nested CreateOrOpen: %v", err)
	}
	if diff := cmp.Diff(path(base, "users", "eu", "fr"), nested.GetPath()); diff != "" {
		t.Errorf("nested path mismatch (-want +got):\n%s", diff)
	}
	list, err := directory.List(db, base)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if diff := cmp.Diff([]string{"accounts", "orders", "users", "zeta"}, list); diff != "" {
		t.Errorf("List mismatch (-want +got):\n%s", diff)
	}
	orders, err := directory.Open(db, path(base, "orders"), []byte("layer-orders"))
	if err != nil {
		t.Fatalf("Open with layer: %v", err)
	}
	if string(orders.GetLayer()) != "layer-orders" {
		t.Errorf("layer = %q", orders.GetLayer())
	}
	if _, err := directory.Open(db, path(base, "orders"), []byte("other")); err == nil {
		t.Errorf("Open with wrong layer succeeded")
	}

	// Data lives under the directory's prefix and moves with it.
	mustTransact(t, func(tr fdb.Transaction) {
		tr.Set(users.Pack(tuple.Tuple{"alice", 1}), []byte("A"))
		tr.Set(nested.Pack(tuple.Tuple{"bob"}), []byte("B"))
	})
	moved, err := directory.Move(db, path(base, "users"), path(base, "people"))
	if err != nil {
		t.Fatalf("Move: %v", err)
	}
	if !bytes.Equal(moved.Bytes(), users.Bytes()) {
		t.Errorf("Move changed the prefix")
	}
	for _, c := range []struct {
		p    []string
		want bool
	}{
		{path(base, "users"), false},
		{path(base, "people"), true},
		{path(base, "people", "eu", "fr"), true},
		{path(base, "users", "eu"), false},
	} {
		ok, err := directory.Exists(db, c.p)
		if err != nil || ok != c.want {
			t.Errorf("Exists(%v) = %v, %v; want %v", c.p, ok, err, c.want)
		}
	}
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		d, err := directory.Open(rt, path(base, "people"), nil)
		if err != nil {
			return nil, err
		}
		return rt.Get(d.Pack(tuple.Tuple{"alice", 1})).Get()
	})
	if err != nil || string(v.([]byte)) != "A" {
		t.Errorf("value under moved directory = %v, %v; want A", v, err)
	}
	if _, err := directory.Move(db, path(base, "people"), path(base, "orders")); err == nil {
		t.Errorf("Move onto an existing directory succeeded")
	}

	ok, err := directory.Root().Remove(db, path(base, "people"))
	if err != nil || !ok {
		t.Fatalf("Remove(people) = %v, %v", ok, err)
	}
	kvs := rangeCommitted(t, moved, fdb.RangeOptions{})
	if len(kvs) != 0 {
		t.Errorf("Remove left %d keys in the directory's subspace", len(kvs))
	}
	kvs = rangeCommitted(t, nested, fdb.RangeOptions{})
	if len(kvs) != 0 {
		t.Errorf("Remove left %d keys in the nested subspace", len(kvs))
	}
	if ok, _ := directory.Exists(db, path(base, "people", "eu")); ok {
		t.Errorf("nested directory survived Remove of its parent")
	}
	ok, err = directory.Root().Remove(db, path(base, "people"))
	if err != nil || ok {
		t.Errorf("second Remove = %v, %v; want false, nil", ok, err)
	}
}

// Partitions: directories created inside share the partition's prefix and
// cannot be moved out of it.
func TestDirectory_Partitions(t *testing.T) {
	base := dirBase(t)
	part, err := directory.Create(db, path(base, "tenant"), []byte("partition"))
	if err != nil {
		t.Fatalf("Create partition: %v", err)
	}
	inner, err := part.Create(db, []string{"inner"}, nil)
	if err != nil {
		t.Fatalf("Create inside partition: %v", err)
	}
	names, err := part.List(db, nil)
	if err != nil || !cmp.Equal([]string{"inner"}, names) {
		t.Errorf("partition List = %v, %v", names, err)
	}
	outside, err := directory.Create(db, path(base, "outside"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// (A partition's own prefix is not exposed: Bytes() panics by design.)
	if bytes.HasPrefix(outside.Bytes(), inner.Bytes()) || bytes.HasPrefix(inner.Bytes(), outside.Bytes()) {
		t.Errorf("prefixes overlap: inner %s, outside %s", fdb.Printable(inner.Bytes()), fdb.Printable(outside.Bytes()))
	}
	if _, err := directory.Move(db, path(base, "tenant", "inner"), path(base, "escaped")); err == nil {
		t.Errorf("Move out of a partition succeeded")
	}
	mustTransact(t, func(tr fdb.Transaction) { tr.Set(inner.Pack(tuple.Tuple{1}), []byte("x")) })
	if ok, err := directory.Root().Remove(db, path(base, "tenant")); err != nil || !ok {
		t.Fatalf("Remove partition = %v, %v", ok, err)
	}
	if kvs := rangeCommitted(t, inner, fdb.RangeOptions{}); len(kvs) != 0 {
		t.Errorf("Remove of partition left %d keys", len(kvs))
	}
}

// Tuple-packed keys sort like the tuples, so range reads over subspaces
// return rows in tuple order (tuple layer spec).
func TestTupleSubspace_OrderAndRangeRead(t *testing.T) {
	s := newSpace(t)
	ss := s.ss.Sub("items")
	tuples := []tuple.Tuple{
		{nil}, {[]byte{0}}, {[]byte{0, 0}}, {"a"}, {"a\x00"}, {"b"}, {int64(-1000)}, {int64(-1)}, {int64(0)},
		{int64(1)}, {int64(1 << 40)}, {float32(-1.5)}, {float64(2.5)}, {false}, {true},
		{tuple.Tuple{"nested", 1}}, {tuple.UUID{1, 2, 3}},
	}
	mustTransact(t, func(tr fdb.Transaction) {
		for i := len(tuples) - 1; i >= 0; i-- {
			tr.Set(ss.Pack(tuples[i]), []byte(fmt.Sprint(i)))
		}
	})
	kvs := rangeCommitted(t, ss, fdb.RangeOptions{})
	got := []string{}
	for _, kv := range kvs {
		got = append(got, string(kv.Value))
	}
	// The range read returns rows in packed-byte order, which the tuple
	// spec makes the order of the tuples.
	order := make([]int, len(tuples))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		return bytes.Compare(tuples[order[a]].Pack(), tuples[order[b]].Pack()) < 0
	})
	sortedByPacking := []string{}
	for _, i := range order {
		sortedByPacking = append(sortedByPacking, fmt.Sprint(i))
	}
	if diff := cmp.Diff(sortedByPacking, got); diff != "" {
		t.Errorf("subspace range order mismatch (-want +got):\n%s", diff)
	}
	for _, kv := range kvs {
		if _, err := ss.Unpack(kv.Key); err != nil {
			t.Errorf("Unpack(%s): %v", fdb.Printable(kv.Key), err)
		}
		if !ss.Contains(kv.Key) {
			t.Errorf("subspace does not contain its key %s", fdb.Printable(kv.Key))
		}
	}
	// A tuple as a range: its prefix children.
	mustTransact(t, func(tr fdb.Transaction) {
		tr.Set(ss.Pack(tuple.Tuple{"p", 1}), []byte("p1"))
		tr.Set(ss.Pack(tuple.Tuple{"p", 2}), []byte("p2"))
		tr.Set(ss.Pack(tuple.Tuple{"q", 1}), []byte("q1"))
	})
	sub := ss.Sub("p")
	kvs = rangeCommitted(t, sub, fdb.RangeOptions{})
	if diff := cmp.Diff([]string{"(1)", "(2)"}, tupleKeys(sub, kvs)); diff != "" {
		t.Errorf("Sub(p) range mismatch (-want +got):\n%s", diff)
	}
}
