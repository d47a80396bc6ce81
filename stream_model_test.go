package fdyno

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// replay applies a NEW_AND_OLD_IMAGES stream to an empty table model and
// checks that the records link up: each record's event and OldImage match
// the model's item before it (INSERT iff absent), so a missing, repeated
// or reordered record is caught where it happens.
func replay(recs []StreamRecord) (map[string]Item, error) {
	m := map[string]Item{}
	for i, r := range recs {
		k := modelKey(r.Keys)
		old, ok := m[k]
		switch {
		case r.EventName == EventNameInsert && ok,
			r.EventName != EventNameInsert && !ok:
			return nil, errors.New("record " + strconv.Itoa(i) + " " + string(r.EventName) + " of " + k + ", which exists=" + strconv.FormatBool(ok))
		case ok && !old.Equal(r.OldImage):
			return nil, errors.New("record " + strconv.Itoa(i) + ": OldImage of " + k + " is " + trim(r.OldImage) + ", the item was " + trim(old))
		case r.EventName == EventNameModify && old.Equal(r.NewImage):
			return nil, errors.New("record " + strconv.Itoa(i) + ": MODIFY of " + k + " changes nothing")
		}
		if i > 0 && r.SequenceNumber <= recs[i-1].SequenceNumber {
			return nil, errors.New("record " + strconv.Itoa(i) + ": sequence number not increasing")
		}
		if r.EventName == EventNameRemove {
			delete(m, k)
		} else {
			m[k] = r.NewImage
		}
	}
	return m, nil
}

// fataler is what the stream test helpers need of a *testing.T or a
// *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// tableContents returns every item of tbl by modelKey.
func tableContents(t fataler, db fdb.Database, tbl *Table) map[string]Item {
	t.Helper()
	m := map[string]Item{}
	for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{}) {
		if err != nil {
			t.Fatal(err)
		}
		m[modelKey(it)] = it
	}
	return m
}

// checkReplay: replaying tbl's stream onto an empty model reproduces the
// table exactly.
func checkReplay(t fataler, db fdb.Database, tbl *Table) []StreamRecord {
	t.Helper()
	recs := readStream(t, db, tbl)
	got, err := replay(recs)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if diff := cmp.Diff(tableContents(t, db, tbl), got, itemCmp); diff != "" {
		t.Fatalf("replayed stream differs from the table (-table +replay):\n%s", diff)
	}
	return recs
}

// TestStreamReplayModel: after random sequences of Puts, Updates and
// Deletes (with conditions, some failing; some several to a transaction;
// some items large), in tables of 1 or 3 stream shards, replaying the
// stream from the start reproduces the table, and there is exactly one
// record per change of the model.
func TestStreamReplayModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		shards := rapid.SampledFrom([]int{1, 3}).Draw(rt, "shards")
		tbl, err := Open(db, "Replay"+strconv.Itoa(n), root, WithSchema(streamSchema(StreamViewTypeNewAndOldImages, shards)), WithChunkThreshold(300))
		if err != nil {
			rt.Fatal(err)
		}
		m := &itemModel{db: db, tbl: tbl, items: map[string]Item{}}
		changes := 0
		changed := func(before map[string]Item) {
			for k, it := range m.items {
				if old, ok := before[k]; !ok || !old.Equal(it) {
					changes++
				}
			}
			for k := range before {
				if _, ok := m.items[k]; !ok {
					changes++
				}
			}
		}
		steps := rapid.IntRange(1, 25).Draw(rt, "steps")
		for range steps {
			before := maps.Clone(m.items)
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0:
				m.put(rt)
			case 1:
				m.update(rt)
			case 2:
				m.delete(rt)
			case 3:
				// Two puts and a delete in one transaction of the caller.
				k1, k2 := m.drawKey(rt), m.drawKey(rt)
				v := NInt(rapid.Int64Range(0, 2).Draw(rt, "v"))
				_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					it1, it2 := maps.Clone(k1), maps.Clone(k2)
					it1["n"], it2["n"] = v, v
					if _, err := tbl.Put(tr, PutInput{Item: it1}); err != nil {
						return nil, err
					}
					if _, err := tbl.Put(tr, PutInput{Item: it2}); err != nil {
						return nil, err
					}
					return tbl.Delete(tr, DeleteInput{Key: k1})
				})
				if err != nil {
					rt.Fatal(err)
				}
				it2 := maps.Clone(k2)
				it2["n"] = v
				// Per change, as the stream sees them: put k1, put k2, delete k1.
				mid := maps.Clone(m.items)
				mid[modelKey(k1)] = maps.Clone(k1)
				mid[modelKey(k1)]["n"] = v
				m.items = mid
				changed(before)
				before = maps.Clone(m.items)
				m.items[modelKey(k2)] = it2
				changed(before)
				before = maps.Clone(m.items)
				delete(m.items, modelKey(k1))
			}
			changed(before)
		}
		recs := checkReplay(rt, db, tbl)
		if len(recs) != changes {
			rt.Fatalf("%d records for %d changes", len(recs), changes)
		}
	})
}

// TestStreamUnderFaults: concurrent writers over overlapping keys, under
// injected transaction_too_old, not_committed and commit_unknown_result
// (a commit that applied but is reported unknown, then retried), with 1
// and 3 shards: fdyno's own retry loop (automatic_idempotency) and
// callers' transactions that set it too never duplicate or lose a record,
// so the stream replays to the table exactly, and every acknowledged
// change is in it.
func TestStreamUnderFaults(t *testing.T) {
	for _, shards := range []int{1, 3} {
		t.Run("shards="+strconv.Itoa(shards), func(t *testing.T) {
			db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(uint64(40+shards)))
			tbl := mustOpen(t, db, "Faulty", WithSchema(streamSchema(StreamViewTypeNewAndOldImages, shards)), WithChunkThreshold(500))
			t.Cleanup(func() { checkTable(t, db, tbl) })
			const workers, ops = 4, 30
			var mu sync.Mutex
			adds := 0
			if err := runWorkers(workers, func(w int) error {
				for i := range ops {
					key := Item{"pk": S("k" + strconv.Itoa((w+i)%5)), "sk": N("1")}
					var err error
					switch i % 4 {
					case 0:
						it := maps.Clone(key)
						it["w"], it["pad"] = NInt(int64(w)), S(string(make([]byte, (i%3)*300)))
						_, err = tbl.Put(db, PutInput{Item: it})
					case 1:
						_, err = tbl.Update(db, UpdateInput{Key: key, UpdateExpression: "ADD n :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}})
						if err == nil {
							mu.Lock()
							adds++
							mu.Unlock()
						}
					case 2:
						_, err = tbl.Delete(db, DeleteInput{Key: key, ConditionExpression: "attribute_exists(n)"})
						if errors.Is(err, ErrConditionalCheckFailed) {
							err = nil
						}
					case 3:
						// A caller's transaction of two changes, idempotent.
						_, err = fdblitetest.Idempotent{DB: db}.Transact(func(tr fdb.Transaction) (any, error) {
							if _, err := tbl.Update(tr, UpdateInput{Key: key, UpdateExpression: "ADD n :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}}); err != nil {
								return nil, err
							}
							other := Item{"pk": S("k" + strconv.Itoa((w+i+1)%5)), "sk": N("1"), "by": NInt(int64(i))}
							return tbl.Put(tr, PutInput{Item: other})
						})
						if err == nil {
							mu.Lock()
							adds++
							mu.Unlock()
						}
					}
					if err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			recs := checkReplay(t, db, tbl)
			// Each acknowledged ADD is exactly one record whose n grew by one.
			grew := 0
			for _, r := range recs {
				o, _ := r.OldImage["n"].Int64()
				n, _ := r.NewImage["n"].Int64()
				if r.NewImage != nil && n == o+1 {
					grew++
				}
			}
			if grew != adds {
				t.Errorf("%d records add one to n, %d ADDs were acknowledged", grew, adds)
			}
		})
	}
}

// streamOp is one drawn operation of a concurrent writer.
type streamOp struct {
	kind int // 0 put, 1 ADD, 2 conditional delete, 3 two changes in one caller transaction
	key  int
	v    int64
}

// TestStreamConcurrentReplayModel: rapid draws, for 2 to 4 writers, random
// operation lists over a few shared keys, runs the writers concurrently
// on a database injecting transaction_too_old, not_committed and
// commit_unknown_result, in tables of 1 or 3 stream shards; the stream must
// replay to the table exactly, and hold exactly one "n grew by one" record
// per acknowledged ADD.
func TestStreamConcurrentReplayModel(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(99))
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		shards := rapid.SampledFrom([]int{1, 3}).Draw(rt, "shards")
		tbl, err := Open(db, "Concurrent"+strconv.Itoa(n), WithSchema(streamSchema(StreamViewTypeNewAndOldImages, shards)))
		if err != nil {
			rt.Fatal(err)
		}
		workers := rapid.IntRange(2, 4).Draw(rt, "workers")
		plans := make([][]streamOp, workers)
		for w := range plans {
			plans[w] = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) streamOp {
				return streamOp{kind: rapid.IntRange(0, 3).Draw(t, "kind"), key: rapid.IntRange(0, 3).Draw(t, "key"), v: rapid.Int64Range(0, 2).Draw(t, "v")}
			}), 1, 8).Draw(rt, "plan"+strconv.Itoa(w))
		}
		key := func(k int) Item { return Item{"pk": S("k" + strconv.Itoa(k)), "sk": N("1")} }
		add := UpdateInput{UpdateExpression: "ADD n :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}}
		var mu sync.Mutex
		adds := 0
		if err := runWorkers(len(plans), func(w int) error {
			plan := plans[w]
			for _, op := range plan {
				var err error
				added := 0
				switch op.kind {
				case 0:
					it := key(op.key)
					it["v"] = NInt(op.v)
					_, err = tbl.Put(db, PutInput{Item: it})
				case 1:
					in := add
					in.Key = key(op.key)
					if _, err = tbl.Update(db, in); err == nil {
						added = 1
					}
				case 2:
					_, err = tbl.Delete(db, DeleteInput{Key: key(op.key), ConditionExpression: "v = :v", ExpressionAttributeValues: map[string]Value{":v": NInt(op.v)}})
					if errors.Is(err, ErrConditionalCheckFailed) {
						err = nil
					}
				case 3:
					_, err = fdblitetest.Idempotent{DB: db}.Transact(func(tr fdb.Transaction) (any, error) {
						in := add
						in.Key = key(op.key)
						if _, err := tbl.Update(tr, in); err != nil {
							return nil, err
						}
						return tbl.Delete(tr, DeleteInput{Key: key((op.key + 1) % 4)})
					})
					if err == nil {
						added = 1
					}
				}
				if err != nil {
					return err
				}
				mu.Lock()
				adds += added
				mu.Unlock()
			}
			return nil
		}); err != nil {
			rt.Fatal(err)
		}
		recs := checkReplay(rt, db, tbl)
		grew := 0
		for _, r := range recs {
			o, _ := r.OldImage["n"].Int64()
			if v, ok := r.NewImage["n"]; ok {
				if n, _ := v.Int64(); n == o+1 {
					grew++
				}
			}
		}
		if grew != adds {
			rt.Fatalf("%d records add one to n, %d ADDs were acknowledged", grew, adds)
		}
	})
}
