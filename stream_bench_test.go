package fdyno

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Stream benchmarks, each beside the raw FoundationDB
// operations it rests on, on the same fdblite database.

func benchStreamTable(b *testing.B, db fdb.Database, name string, view StreamViewType, shards int) *Table {
	s := hashOnly.clone()
	s.StreamViewType, s.StreamShards = view, shards
	tbl, err := Open(db, name, testRoot(b, db), WithSchema(s))
	if err != nil {
		b.Fatal(err)
	}
	return tbl
}

// BenchmarkStreamPut: a Put (replacing one of 100 items of 1 KB, so a
// MODIFY record) on a table without a stream (blind, and reading the old
// item as a stream's Put must), with KEYS_ONLY and
// NEW_AND_OLD_IMAGES streams, and with 4 shards; beside raw transactions
// making the same writes: one Set, and a Set plus a versionstamped
// record, an order key and a marker ADD.
func BenchmarkStreamPut(b *testing.B) {
	db := fdblitetest.Open(b)
	const keys = 100
	items := make([]Item, keys)
	for i := range items {
		items[i] = benchItem("k"+strconv.Itoa(i), 1024)
	}
	enc, _ := EncodeItem(items[0])
	for _, tc := range []struct {
		name   string
		view   StreamViewType
		shards int
		rv     ReturnValue
	}{
		{"stream=none", "", 0, ""},
		// Reads the old item as a stream's Put must: the record's own cost
		// is the difference to this line.
		{"stream=none/ReturnValues=ALL_OLD", "", 0, ReturnValueAllOld},
		{"stream=KEYS_ONLY", StreamViewTypeKeysOnly, 0, ""},
		{"stream=NEW_AND_OLD_IMAGES", StreamViewTypeNewAndOldImages, 0, ""},
		{"stream=NEW_AND_OLD_IMAGES/shards=4", StreamViewTypeNewAndOldImages, 4, ""},
	} {
		tbl := benchStreamTable(b, db, "Put", tc.view, tc.shards)
		b.Run(tc.name+"/fdyno", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(enc)))
			i := 0
			for b.Loop() {
				it := items[i%keys]
				it["n"] = NInt(int64(i)) // a change, so a record
				if _, err := tbl.Put(db, PutInput{Item: it, ReturnValues: tc.rv}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	tbl := benchStreamTable(b, db, "Raw", StreamViewTypeNewAndOldImages, 0)
	st := tbl.state.Load()
	rawKeys := make([]fdb.Key, keys)
	for i := range rawKeys {
		rawKeys[i] = rawKey(tbl, items[i])
	}
	b.Run("raw-set", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(enc)))
		i := 0
		for b.Loop() {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				tr.Set(rawKeys[i%keys], enc)
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	// What a NEW_AND_OLD_IMAGES Put writes, without fdyno: read the old
	// value, set the new one, and a versionstamped record of both.
	b.Run("raw-get-set-versionstamped", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(enc)))
		rec := append(append([]byte{partLast}, enc...), enc...)
		i := 0
		for b.Loop() {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				if _, err := tr.Get(rawKeys[i%keys]).Get(); err != nil {
					return nil, err
				}
				tr.Set(rawKeys[i%keys], enc)
				k, err := st.keys.streamRecordKey(0, 0, 0)
				if err != nil {
					return nil, err
				}
				tr.SetVersionstampedKey(k, rec)
				tr.Add(st.keys.streamMarkerKey(0), one64)
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkStreamRead: reading a stream of 5,000 KEYS_ONLY records from
// the start with Records (pages of 1,000, decoded, merged over the
// shards), reported in records/s, beside a raw range read of the same
// keys and values.
func BenchmarkStreamRead(b *testing.B) {
	db := fdblitetest.Open(b)
	const n = 5000
	for _, shards := range []int{1, 4} {
		tbl := benchStreamTable(b, db, "Read"+strconv.Itoa(shards), StreamViewTypeKeysOnly, shards)
		for i := 0; i < n; i += 100 {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				for j := i; j < i+100; j++ {
					if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("k" + strconv.Itoa(j))}}); err != nil {
						return nil, err
					}
				}
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("shards="+strconv.Itoa(shards)+"/fdyno", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got := 0
				for _, err := range tbl.Records(context.Background(), db, "") {
					if err != nil {
						b.Fatal(err)
					}
					got++
				}
				if got != n {
					b.Fatalf("read %d records, want %d", got, n)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
		})
		if shards == 1 {
			r := tbl.state.Load().keys.streamShardRange(0)
			b.Run("shards=1/raw-range", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					kvs, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
						return rt.GetRange(r, fdb.RangeOptions{}).GetSliceWithError()
					})
					if err != nil || len(kvs.([]fdb.KeyValue)) != n {
						b.Fatalf("raw range: %v", err)
					}
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}

// BenchmarkTailLatency: the time from a Put's commit (its return) to the
// record's delivery by a waiting Tail, per record; beside the same for a
// raw watch on a key that a transaction changes. A watch can fire before
// the committing call returns, so single latencies may be negative.
func BenchmarkTailLatency(b *testing.B) {
	db := fdblitetest.Open(b)
	tbl := benchStreamTable(b, db, "Tail", StreamViewTypeNewImage, 0)
	b.Run("fdyno", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Tail from the current end: earlier runs of this function left
		// records behind.
		out, err := tbl.GetRecords(db, GetRecordsInput{})
		if err != nil {
			b.Fatal(err)
		}
		for out.More {
			if out, err = tbl.GetRecords(db, GetRecordsInput{ExclusiveStartSequenceNumber: out.LastEvaluatedSequenceNumber}); err != nil {
				b.Fatal(err)
			}
		}
		got := make(chan time.Time, 1)
		go func() {
			for _, err := range tbl.Tail(ctx, db, out.LastEvaluatedSequenceNumber) {
				if err != nil {
					return
				}
				got <- time.Now()
			}
		}()
		var total time.Duration
		i := 0
		for b.Loop() {
			if _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k"), "n": NInt(int64(i))}}); err != nil {
				b.Fatal(err)
			}
			committed := time.Now()
			total += (<-got).Sub(committed)
			i++
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/delivery")
	})
	key := tbl.state.Load().keys.streamMarkerKey(99)
	b.Run("raw-watch", func(b *testing.B) {
		var total time.Duration
		for b.Loop() {
			w, err := db.Transact(func(tr fdb.Transaction) (any, error) { return tr.Watch(key), nil })
			if err != nil {
				b.Fatal(err)
			}
			fired := make(chan time.Time, 1)
			go func() { _ = w.(fdb.FutureNil).Get(); fired <- time.Now() }()
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) { tr.Add(key, one64); return nil, nil }); err != nil {
				b.Fatal(err)
			}
			committed := time.Now()
			total += (<-fired).Sub(committed)
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/delivery")
	})
}
