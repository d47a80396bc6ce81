package dcb

import (
	"bytes"
	"errors"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
)

// A store of format 1 (one head key) is refused by Open until Upgrade
// has run: its appenders and subscribers would not see this version's
// heads, nor this version theirs. Upgrade keeps the events and clears
// format 1's head and order keys; it is idempotent, leaves an empty
// namespace empty, and refuses an unknown format.
func TestUpgradeFromFormat1(t *testing.T) {
	db, s := newTestStore(t)
	ns := subspace.FromBytes(s.k.ns)
	p := mustAppend(t, db, s, Event{Type: "CourseDefined", Tags: []string{"course:c1"}})[0]
	// What format 1 wrote besides the events: its meta, its one head key
	// and its one order key.
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(s.k.meta, []byte{1})
		tr.Set(fdb.Key(s.k.heads), make([]byte, 10))
		tr.Set(fdb.Key(s.k.order), make([]byte, 10))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db, ns); !errors.Is(err, ErrOldFormat) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open over format 1: %v, want ErrOldFormat", err)
	}
	for range 2 {
		if err := Upgrade(db, ns); err != nil {
			t.Fatalf("Upgrade: %v", err)
		}
	}
	s2, err := Open(db, ns)
	if err != nil {
		t.Fatalf("Open after Upgrade: %v", err)
	}
	if got := readAll(t, db, s2, All(), ReadOptions{}); len(got) != 1 || got[0].Position != p {
		t.Errorf("after Upgrade: read %v, want the event at %s", got, p)
	}
	_, err = db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		for _, k := range []fdb.Key{s.k.meta, fdb.Key(s.k.heads), fdb.Key(s.k.order)} {
			v, err := rt.Get(k).Get()
			if err != nil {
				return nil, err
			}
			var want []byte // cleared
			if bytes.Equal(k, s.k.meta) {
				want = []byte{formatVersion}
			}
			if !bytes.Equal(v, want) {
				t.Errorf("after Upgrade, %s = %x, want %x", fdb.Printable(k), v, want)
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// An empty namespace: nothing written.
	empty := subspace.Sub("dcb", "empty")
	if err := Upgrade(db, empty); err != nil {
		t.Fatal(err)
	}
	kvs, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.GetRange(empty, fdb.RangeOptions{}).GetSliceWithError()
	})
	if err != nil || len(kvs.([]fdb.KeyValue)) != 0 {
		t.Errorf("Upgrade of an empty namespace wrote %v (%v)", kvs, err)
	}

	// An unknown format.
	bad := newKeys(subspace.Sub("dcb", "bad").Bytes())
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(bad.meta, []byte{99})
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := Upgrade(db, subspace.FromBytes(bad.ns)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Upgrade over format 99: %v, want ErrCorrupt", err)
	}
}
