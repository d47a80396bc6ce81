package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// A small reference model of FoundationDB's serializable read-your-writes
// transactions (developer guide "Transactions", "Conflict ranges"; facts §5.3,
// §5.6, §6), driven against fdblite by rapid with several interleaved
// transactions.
//
// The key space of one check is modelKeys keys k0..k{N-1} under a private
// prefix. Conflict ranges are continuous, so the model tracks "atoms": atom
// 2i is the key ki and atom 2i+1 the open gap between ki and the next key (the
// last gap runs to the range end boundary). Every range boundary the test uses
// is a key ki or the end boundary, so every conflict range is a union of atoms.
//
// Rules modelled:
//   - a transaction reads the committed state at its read version (fixed when
//     it starts) overlaid with its own earlier writes;
//   - a serializable read adds read-conflict atoms, except atoms already fully
//     decided by the transaction's own earlier set/clear/clear-range (atomic ops
//     do not decide a key unless it was set or cleared first);
//   - a range read stopped by its limit conflicts only up to (and including)
//     its last row (reverse: from its last row to the end);
//   - set, clear, clear-range and atomic add add write-conflict atoms;
//   - commit of a transaction with no writes always succeeds; otherwise it
//     fails with 1020 iff a transaction that committed after it started wrote
//     an atom it read; on success its mutations apply in order to the latest
//     committed state.
const (
	modelKeys = 6
	modelTxns = 3
	atoms     = 2 * modelKeys
)

type atomSet [atoms]bool

func (a *atomSet) intersects(b *atomSet) bool {
	for i := range a {
		if a[i] && b[i] {
			return true
		}
	}
	return false
}

type modelMutation struct {
	kind  string // set, clear, clearRange, add
	i, j  int
	value []byte
}

type modelTxn struct {
	tr       fdb.Transaction
	startSeq int
	view     map[int][]byte
	decided  atomSet
	reads    atomSet
	writes   atomSet
	muts     []modelMutation
}

type modelDB struct {
	t         *rapid.T
	prefix    []byte
	committed map[int][]byte
	commits   []atomSet // write atoms of each successful read-write commit, in order
	txns      [modelTxns]*modelTxn
}

func (m *modelDB) key(i int) fdb.Key {
	if i == modelKeys {
		return fdb.Key(append(append([]byte{}, m.prefix...), 'l')) // end boundary, after every kI
	}
	return fdb.Key(append(append([]byte{}, m.prefix...), fmt.Sprintf("k%d", i)...))
}

func (m *modelDB) start(slot int, tr fdb.Transaction) {
	if _, err := tr.GetReadVersion().Get(); err != nil { // fix the read version now
		m.t.Fatalf("GetReadVersion: %v", err)
	}
	view := map[int][]byte{}
	for k, v := range m.committed {
		view[k] = v
	}
	m.txns[slot] = &modelTxn{tr: tr, startSeq: len(m.commits), view: view}
}

// modelAdd is FoundationDB's ADD (facts §6).
func modelAdd(existing []byte, param []byte) []byte {
	if len(existing) == 0 {
		return append([]byte{}, param...)
	}
	if len(param) == 0 {
		return []byte{}
	}
	out := make([]byte, len(param))
	carry := 0
	for i := range param {
		e := 0
		if i < len(existing) {
			e = int(existing[i])
		}
		s := e + int(param[i]) + carry
		out[i] = byte(s)
		carry = s >> 8
	}
	return out
}

func applyMutations(state map[int][]byte, muts []modelMutation) {
	for _, mu := range muts {
		switch mu.kind {
		case "set":
			state[mu.i] = mu.value
		case "clear":
			delete(state, mu.i)
		case "clearRange":
			for k := mu.i; k < mu.j; k++ {
				delete(state, k)
			}
		case "add":
			old, ok := state[mu.i]
			if !ok {
				old = nil
			}
			state[mu.i] = modelAdd(old, mu.value)
		}
	}
}

func (x *modelTxn) read(lo, hi int) { // atoms lo..hi inclusive
	for a := lo; a <= hi; a++ {
		if !x.decided[a] {
			x.reads[a] = true
		}
	}
}

func (x *modelTxn) write(lo, hi int, decides bool) {
	for a := lo; a <= hi; a++ {
		x.writes[a] = true
		if decides {
			x.decided[a] = true
		}
	}
}

type modelRow struct {
	Key   int
	Value string
}

func TestModel_SerializableRYW(t *testing.T) {
	var seq int
	root := subspace.Sub("fdblite-conformance", t.Name())
	clearAll := func() {
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.ClearRange(root)
			return nil, nil
		}); err != nil {
			t.Errorf("clearing: %v", err)
		}
	}
	clearAll()
	t.Cleanup(clearAll)

	rapid.Check(t, func(rt *rapid.T) {
		seq++
		m := &modelDB{t: rt, prefix: root.Sub(seq).Bytes(), committed: map[int][]byte{}}
		for i := range m.txns {
			tr, err := db.CreateTransaction()
			if err != nil {
				rt.Fatalf("CreateTransaction: %v", err)
			}
			m.start(i, tr)
		}
		defer func() {
			for _, x := range m.txns {
				x.tr.Cancel()
			}
		}()
		keyGen := rapid.IntRange(0, modelKeys-1)
		valueGen := rapid.SliceOfN(rapid.Byte(), 0, 3)
		pick := func(rt *rapid.T) (int, *modelTxn) {
			slot := rapid.IntRange(0, modelTxns-1).Draw(rt, "txn")
			return slot, m.txns[slot]
		}
		rt.Repeat(map[string]func(*rapid.T){
			"get": func(rt *rapid.T) {
				_, x := pick(rt)
				i := keyGen.Draw(rt, "key")
				snapshot := rapid.Bool().Draw(rt, "snapshot")
				var got []byte
				var err error
				if snapshot {
					got, err = x.tr.Snapshot().Get(m.key(i)).Get()
				} else {
					got, err = x.tr.Get(m.key(i)).Get()
					x.read(2*i, 2*i)
				}
				if err != nil {
					rt.Fatalf("Get(k%d): %v", i, err)
				}
				want, ok := x.view[i]
				if ok != (got != nil) || !bytes.Equal(want, got) {
					rt.Fatalf("Get(k%d, snapshot=%v) = %s, model %s", i, snapshot, printable(got), printable(map[bool][]byte{true: want}[ok]))
				}
			},
			"getRange": func(rt *rapid.T) {
				_, x := pick(rt)
				i := rapid.IntRange(0, modelKeys-1).Draw(rt, "begin")
				j := rapid.IntRange(i+1, modelKeys).Draw(rt, "end")
				limit := rapid.IntRange(0, 3).Draw(rt, "limit")
				reverse := rapid.Bool().Draw(rt, "reverse")
				snapshot := rapid.Bool().Draw(rt, "snapshot")
				opt := fdb.RangeOptions{Limit: limit, Reverse: reverse}
				r := fdb.KeyRange{Begin: m.key(i), End: m.key(j)}
				var kvs []fdb.KeyValue
				var err error
				if snapshot {
					kvs, err = x.tr.Snapshot().GetRange(r, opt).GetSliceWithError()
				} else {
					kvs, err = x.tr.GetRange(r, opt).GetSliceWithError()
				}
				if err != nil {
					rt.Fatalf("GetRange: %v", err)
				}
				want := []modelRow{}
				keys := []int{}
				for k := range x.view {
					if k >= i && k < j {
						keys = append(keys, k)
					}
				}
				sort.Ints(keys)
				if reverse {
					sort.Sort(sort.Reverse(sort.IntSlice(keys)))
				}
				if limit > 0 && len(keys) > limit {
					keys = keys[:limit]
				}
				for _, k := range keys {
					want = append(want, modelRow{k, string(x.view[k])})
				}
				got := []modelRow{}
				for _, kv := range kvs {
					k := -1
					for c := 0; c < modelKeys; c++ {
						if bytes.Equal(kv.Key, m.key(c)) {
							k = c
						}
					}
					got = append(got, modelRow{k, string(kv.Value)})
				}
				if diff := cmp.Diff(want, got); diff != "" {
					rt.Fatalf("GetRange(k%d, k%d, limit %d, reverse %v) mismatch (-model +fdb):\n%s", i, j, limit, reverse, diff)
				}
				if !snapshot {
					lo, hi := 2*i, 2*j-1
					if limit > 0 && len(keys) == limit {
						last := keys[len(keys)-1]
						if reverse {
							lo = 2 * last
						} else {
							hi = 2 * last
						}
					}
					x.read(lo, hi)
				}
			},
			"set": func(rt *rapid.T) {
				_, x := pick(rt)
				i := keyGen.Draw(rt, "key")
				v := valueGen.Draw(rt, "value")
				x.tr.Set(m.key(i), v)
				x.view[i] = v
				x.write(2*i, 2*i, true)
				x.muts = append(x.muts, modelMutation{kind: "set", i: i, value: v})
			},
			"clear": func(rt *rapid.T) {
				_, x := pick(rt)
				i := keyGen.Draw(rt, "key")
				x.tr.Clear(m.key(i))
				delete(x.view, i)
				x.write(2*i, 2*i, true)
				x.muts = append(x.muts, modelMutation{kind: "clear", i: i})
			},
			"clearRange": func(rt *rapid.T) {
				_, x := pick(rt)
				i := rapid.IntRange(0, modelKeys-1).Draw(rt, "begin")
				j := rapid.IntRange(i+1, modelKeys).Draw(rt, "end")
				x.tr.ClearRange(fdb.KeyRange{Begin: m.key(i), End: m.key(j)})
				for k := i; k < j; k++ {
					delete(x.view, k)
				}
				x.write(2*i, 2*j-1, true)
				x.muts = append(x.muts, modelMutation{kind: "clearRange", i: i, j: j})
			},
			"add": func(rt *rapid.T) {
				_, x := pick(rt)
				i := keyGen.Draw(rt, "key")
				p := rapid.SliceOfN(rapid.Byte(), 1, 2).Draw(rt, "param")
				x.tr.Add(m.key(i), p)
				old, ok := x.view[i]
				if !ok {
					old = nil
				}
				x.view[i] = modelAdd(old, p)
				x.write(2*i, 2*i, false)
				x.muts = append(x.muts, modelMutation{kind: "add", i: i, value: p})
			},
			"commit": func(rt *rapid.T) {
				slot, x := pick(rt)
				wantCode := 0
				readWrite := len(x.muts) > 0
				if readWrite {
					for _, c := range m.commits[x.startSeq:] {
						if c.intersects(&x.reads) {
							wantCode = 1020
						}
					}
				}
				err := x.tr.Commit().Get()
				if got := codeOf(err); got != wantCode {
					rt.Fatalf("Commit of txn %d = %v (code %d), model expects code %d", slot, err, got, wantCode)
				}
				if wantCode == 0 && readWrite {
					applyMutations(m.committed, x.muts)
					m.commits = append(m.commits, x.writes)
				}
				x.tr.Reset()
				m.start(slot, x.tr)
			},
			"reset": func(rt *rapid.T) {
				slot, x := pick(rt)
				x.tr.Reset()
				m.start(slot, x.tr)
			},
			"": func(rt *rapid.T) {
				// The committed state equals the model's.
				v, err := db.ReadTransact(func(r fdb.ReadTransaction) (any, error) {
					return r.GetRange(fdb.KeyRange{Begin: m.key(0), End: m.key(modelKeys)}, fdb.RangeOptions{}).GetSliceWithError()
				})
				if err != nil {
					rt.Fatalf("reading committed state: %v", err)
				}
				got := map[int]string{}
				for _, kv := range v.([]fdb.KeyValue) {
					for c := 0; c < modelKeys; c++ {
						if bytes.Equal(kv.Key, m.key(c)) {
							got[c] = string(kv.Value)
						}
					}
				}
				want := map[int]string{}
				for k, v := range m.committed {
					want[k] = string(v)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					rt.Fatalf("committed state mismatch (-model +fdb):\n%s", diff)
				}
			},
		})
	})
}
