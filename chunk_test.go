package fdyno

import (
	"errors"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/google/go-cmp/cmp"
)

// countChunks returns the number of chunk keys of the table.
func countChunks(t *testing.T, db fdb.Database, tbl *Table) int {
	t.Helper()
	n, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		kvs, err := rt.GetRange(tbl.state.Load().keys.chunks, fdb.RangeOptions{}).GetSliceWithError()
		return len(kvs), err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n.(int)
}

func TestChunkedItemLifecycle(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	key := Item{"pk": S("big")}
	big := Item{"pk": S("big"), "blob": B([]byte(strings.Repeat("0123456789", 30_000))), "n": N("1")} // 300 KB
	mustPut(t, db, tbl, big)
	if diff := cmp.Diff(big, mustGet(t, db, tbl, key), itemCmp); diff != "" {
		t.Fatalf("Get(chunked) mismatch (-want +got):\n%s", diff)
	}
	if n := countChunks(t, db, tbl); n != 5 { // 300,0xx bytes / 64 KiB
		t.Errorf("%d chunks, want 5", n)
	}
	// Update of a chunked item rewrites it whole, with no orphans.
	out, err := tbl.Update(db, UpdateInput{Key: key, UpdateExpression: "ADD n :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}, ReturnValues: ReturnValueUpdatedNew})
	if err != nil || !out.Attributes["n"].Equal(N("2")) {
		t.Fatalf("Update(chunked) = %v, %v", out, err)
	}
	// Overwrite with a small item: chunks go.
	mustPut(t, db, tbl, Item{"pk": S("big"), "small": Bool(true)})
	if n := countChunks(t, db, tbl); n != 0 {
		t.Errorf("%d chunks after a small overwrite, want 0", n)
	}
	mustPut(t, db, tbl, big)
	if _, err := tbl.Delete(db, DeleteInput{Key: key}); err != nil {
		t.Fatal(err)
	}
	if n := countChunks(t, db, tbl); n != 0 {
		t.Errorf("%d chunks after delete, want 0", n)
	}
}

// The maximum item size is configurable beyond DynamoDB's 400 KB, and the
// chunk threshold is the table handle's.
func TestLargeItemLimits(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly, WithMaxItemSize(3<<20), WithChunkThreshold(100))
	huge := Item{"pk": S("h"), "s": S(strings.Repeat("x", 2<<20))}
	mustPut(t, db, tbl, huge)
	if diff := cmp.Diff(huge, mustGet(t, db, tbl, Item{"pk": S("h")}), itemCmp); diff != "" {
		t.Errorf("2 MB item mismatch (-want +got):\n%s", diff)
	}
	small := Item{"pk": S("s"), "s": S(strings.Repeat("y", 200))} // above the 100-byte threshold
	mustPut(t, db, tbl, small)
	if n := countChunks(t, db, tbl); n != 33+1 { // 2 MiB plus a few bytes of encoding: 33 chunks; the small item: 1
		t.Errorf("%d chunks, want 34", n)
	}
	// DynamoDB's default: 400 KB, measured as DynamoDB measures items.
	def := newTestTable(t, db, hashOnly)
	atLimit := Item{"pk": S("a"), "s": S(strings.Repeat("x", DefaultMaxItemSize-len("pk")-1-len("s")))}
	mustPut(t, db, def, atLimit)
	over := Item{"pk": S("a"), "s": S(strings.Repeat("x", DefaultMaxItemSize-len("pk")-1-len("s")+1))}
	if _, err := def.Put(db, PutInput{Item: over}); !errors.Is(err, ErrValidation) {
		t.Errorf("Put(400 KB + 1) = %v, want ErrValidation", err)
	}
}

func TestManifestDecoding(t *testing.T) {
	m := newManifest(make([]byte, 3*ChunkSize+1))
	got, err := decodeManifest(m.encode())
	if err != nil || got != m || got.count != 4 {
		t.Fatalf("decodeManifest(encode(%+v)) = %+v, %v", m, got, err)
	}
	for _, bad := range [][]byte{nil, {0x01}, {manifestVersion}, {manifestVersion, 0}, {manifestVersion, 10, 2, 0, 0, 0, 0}, append(m.encode(), 0)} {
		if _, err := decodeManifest(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decodeManifest(%x) = %v, want ErrCorrupt", bad, err)
		}
	}
}

// A torn chunk is reported as corrupt, never decoded.
func TestChunkCorruption(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	mustPut(t, db, tbl, Item{"pk": S("c"), "s": S(strings.Repeat("z", 100_000))})
	st := tbl.state.Load()
	kv, _ := packKeyValues(S("c"))
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(st.keys.chunkKey(kv, 1), []byte("torn"))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Get(db, GetInput{Key: Item{"pk": S("c")}}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Get(torn) = %v, want ErrCorrupt", err)
	}
	// A counted table's Delete reads the old item to subtract it from
	// the counters (counts.go): a torn item is reported, not guessed at.
	if _, err := tbl.Delete(db, DeleteInput{Key: Item{"pk": S("c")}}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Delete(torn) = %v, want ErrCorrupt", err)
	}
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.ClearRange(st.keys.all) // leave checkTable a table it can read
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecodeManifest: decoding never panics, and whatever decodes
// re-encodes to exactly its input (one encoding per manifest).
func FuzzDecodeManifest(f *testing.F) {
	f.Add(newManifest(make([]byte, 100_000)).encode())
	f.Add([]byte{manifestVersion, 0x80, 0x01, 0x01, 1, 2, 3, 4})
	f.Add([]byte{manifestVersion, 0x81, 0x80, 0x00, 0x03, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, head []byte) {
		m, err := decodeManifest(head)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decodeManifest(%x) = %v, want ErrCorrupt", head, err)
			}
			return
		}
		if got := m.encode(); string(got) != string(head) {
			t.Fatalf("decodeManifest(%x) = %+v, which encodes to %x", head, m, got)
		}
	})
}

// FuzzSplitChunkKey: a chunk key splits back into its item key values and
// chunk number; arbitrary bytes under the chunk prefix never panic.
func FuzzSplitChunkKey(f *testing.F) {
	f.Add("a", []byte{0}, uint32(0), []byte{})
	f.Add("\x00\xff", []byte{0x14, 0x00}, uint32(70000), []byte{0x15})
	keys := newTableKeys(subspace.Sub("t"))
	f.Fuzz(func(t *testing.T, s string, b []byte, n uint32, junk []byte) {
		kv, err := packKeyValues(S(s+"x"), B(append(b, 1)))
		if err != nil {
			t.Skip()
		}
		gotKV, gotN, err := keys.splitChunkKey(keys.chunkKey(kv, int(n)))
		if err != nil || string(gotKV) != string(kv) || gotN != int(n) {
			t.Fatalf("splitChunkKey(chunkKey(%x, %d)) = %x, %d, %v", kv, n, gotKV, gotN, err)
		}
		_, _, _ = keys.splitChunkKey(concatKey(keys.chunks.Bytes(), junk))
	})
}
