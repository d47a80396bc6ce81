package fdyno

import (
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Each fdyno benchmark runs next to the raw FoundationDB operations it
// rests on, on the same fdblite database: the raw
// siblings use the same keys and bytes, without fdyno's metadata-version
// check, validation and expression handling.

// benchItem returns an item whose encoding is about size bytes.
func benchItem(pk string, size int) Item {
	return Item{"pk": S(pk), "n": N("1"), "name": S("benchmark item"), "pad": S(strings.Repeat("p", size-40))}
}

// benchTable opens table Bench of schema hashOnly under a root of b's own
// on the shared database.
func benchTable(b *testing.B) (fdb.Database, *Table) {
	return benchTableOf(b, hashOnly)
}

// benchTableOf opens table Bench of schema s under a root of b's own on
// the shared database.
func benchTableOf(b *testing.B, s TableSchema) (fdb.Database, *Table) {
	db := fdblitetest.Open(b)
	tbl, err := Open(db, "Bench", testRoot(b, db), WithSchema(s))
	if err != nil {
		b.Fatal(err)
	}
	return db, tbl
}

// benchRun runs op as the sub-benchmark name, reporting allocations and,
// if bytes is not 0, bytes per op. The first error op returns fails it.
func benchRun(b *testing.B, name string, bytes int, op func() error) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		if bytes != 0 {
			b.SetBytes(int64(bytes))
		}
		benchLoop(b, op)
	})
}

// benchLoop runs op until b.Loop ends, failing b on op's first error.
func benchLoop(b *testing.B, op func() error) {
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
}

// txOp is an op that runs f in a transaction of db.
func txOp(db fdb.Database, f func(fdb.Transaction) (any, error)) func() error {
	return func() error {
		_, err := db.Transact(f)
		return err
	}
}

// readOp is an op that runs f in a read transaction of db.
func readOp(db fdb.Database, f func(fdb.ReadTransaction) (any, error)) func() error {
	return func() error {
		_, err := db.ReadTransact(f)
		return err
	}
}

// rawGetDecode is a read that gets the value of k and decodes it as an
// item.
func rawGetDecode(k fdb.Key) func(fdb.ReadTransaction) (any, error) {
	return func(rt fdb.ReadTransaction) (any, error) {
		v, err := rt.Get(k).Get()
		if err != nil {
			return nil, err
		}
		return DecodeItem(v)
	}
}

func rawKey(tbl *Table, it Item) fdb.Key {
	st := tbl.state.Load()
	kv, err := keyOf("bench", it, st.hash, st.rng, false)
	if err != nil {
		panic(err)
	}
	return st.keys.itemKey(kv)
}

func BenchmarkGetItem(b *testing.B) {
	db, tbl := benchTable(b)
	it := benchItem("get", 1024)
	enc, _ := EncodeItem(it)
	if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
		b.Fatal(err)
	}
	key := Item{"pk": S("get")}
	benchRun(b, "size=1KB/fdyno", len(enc), func() error {
		_, err := tbl.Get(db, GetInput{Key: key})
		return err
	})
	k := rawKey(tbl, it)
	benchRun(b, "size=1KB/raw-get-decode", len(enc), readOp(db, rawGetDecode(k)))
	// The same two reads fdyno makes (the item and FoundationDB's metadata
	// version, both futures started before either is awaited): what is
	// left between this and fdyno is fdyno's own work.
	benchRun(b, "size=1KB/raw-get-metadataversion-decode", len(enc), readOp(db, func(rt fdb.ReadTransaction) (any, error) {
		mv := rt.Get(metadataVersionKey)
		f := rt.Get(k)
		if _, err := mv.Get(); err != nil {
			return nil, err
		}
		v, err := f.Get()
		if err != nil {
			return nil, err
		}
		return DecodeItem(v)
	}))
}

func BenchmarkPutItem(b *testing.B) {
	db, tbl := benchTable(b)
	it := benchItem("put", 1024)
	enc, _ := EncodeItem(it)
	benchRun(b, "size=1KB/fdyno", len(enc), func() error {
		_, err := tbl.Put(db, PutInput{Item: it})
		return err
	})
	k := rawKey(tbl, it)
	benchRun(b, "size=1KB/raw-encode-set-commit", len(enc), txOp(db, func(tr fdb.Transaction) (any, error) {
		v, err := EncodeItem(it)
		tr.Set(k, v)
		return nil, err
	}))
	// The same FoundationDB operations fdyno's blind put makes: a
	// metadata-version read, a read conflict on the table's metadata key,
	// a clear of the item's chunk range (no orphans), the set, the commit.
	st := tbl.state.Load()
	kv, _ := keyOf("bench", it, st.hash, st.rng, false)
	benchRun(b, "size=1KB/raw-metadataversion-conflict-clear-set-commit", len(enc), txOp(db, func(tr fdb.Transaction) (any, error) {
		if _, err := tr.Snapshot().Get(metadataVersionKey).Get(); err != nil {
			return nil, err
		}
		if err := tr.AddReadConflictKey(st.keys.meta); err != nil {
			return nil, err
		}
		v, err := EncodeItem(it)
		tr.ClearRange(st.keys.chunkRange(kv))
		tr.Set(k, v)
		return nil, err
	}))
}

func BenchmarkUpdateItem(b *testing.B) {
	db, tbl := benchTable(b)
	it := benchItem("upd", 1024)
	if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
		b.Fatal(err)
	}
	in := UpdateInput{Key: Item{"pk": S("upd")}, UpdateExpression: "SET #n = :v", ExpressionAttributeNames: map[string]string{"#n": "name"}, ExpressionAttributeValues: map[string]Value{":v": S("renamed")}}
	benchRun(b, "attrs=1/fdyno", 0, func() error {
		_, err := tbl.Update(db, in)
		return err
	})
	k := rawKey(tbl, it)
	benchRun(b, "attrs=1/raw-get-decode-encode-set-commit", 0, txOp(db, func(tr fdb.Transaction) (any, error) {
		v, err := tr.Get(k).Get()
		if err != nil {
			return nil, err
		}
		old, err := DecodeItem(v)
		if err != nil {
			return nil, err
		}
		old["name"] = S("renamed")
		enc, err := EncodeItem(old)
		tr.Set(k, enc)
		return nil, err
	}))
}

// BenchmarkChunkedItem reads and writes a 100 KB item stored in chunks. The
// raw siblings read and write the same chunk keys and bytes: all chunk
// gets started at once, then concatenated and decoded; or the chunk range
// cleared and the chunks and manifest set.
func BenchmarkChunkedItem(b *testing.B) {
	db, tbl := benchTable(b)
	it := benchItem("big", 100*1024)
	enc, _ := EncodeItem(it)
	if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
		b.Fatal(err)
	}
	st := tbl.state.Load()
	kv, _ := keyOf("bench", it, st.hash, st.rng, false)
	m := newManifest(enc)
	key := Item{"pk": S("big")}
	benchRun(b, "op=get/size=100KB/fdyno", len(enc), func() error {
		_, err := tbl.Get(db, GetInput{Key: key})
		return err
	})
	benchRun(b, "op=get/size=100KB/raw-gets-decode", len(enc), readOp(db, func(rt fdb.ReadTransaction) (any, error) {
		fs := make([]fdb.FutureByteSlice, m.count)
		for n := range fs {
			fs[n] = rt.Get(st.keys.chunkKey(kv, n))
		}
		buf := make([]byte, 0, m.length)
		for _, f := range fs {
			c, err := f.Get()
			if err != nil {
				return nil, err
			}
			buf = append(buf, c...)
		}
		return DecodeItem(buf)
	}))
	benchRun(b, "op=put/size=100KB/fdyno", len(enc), func() error {
		_, err := tbl.Put(db, PutInput{Item: it})
		return err
	})
	benchRun(b, "op=put/size=100KB/raw-encode-sets-commit", len(enc), txOp(db, func(tr fdb.Transaction) (any, error) {
		v, err := EncodeItem(it)
		if err != nil {
			return nil, err
		}
		tr.ClearRange(st.keys.chunkRange(kv))
		writeChunked(tr, st.keys, kv, v)
		return nil, nil
	}))
}
