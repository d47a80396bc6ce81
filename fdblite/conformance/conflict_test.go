package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// conflictCase: "reader" runs its reads (and a write to s.k("out") so it is
// not read-only), then "writer" commits, then the reader commits. Expected
// outcomes from the developer guide ("Conflict ranges", "Snapshot reads")
// and facts §5.6.
type conflictCase struct {
	name    string
	setup   []any // committed before the reader starts
	reader  func(tr fdb.Transaction, s space)
	writer  func(tr fdb.Transaction, s space)
	wantErr int // reader's commit: 0 or 1020
}

func runConflictCases(t *testing.T, cases []conflictCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSpace(t)
			if len(tc.setup) > 0 {
				args := make([]any, len(tc.setup))
				for i, a := range tc.setup {
					if str, ok := a.(string); ok && i%2 == 0 {
						args[i] = s.k(str)
					} else {
						args[i] = a
					}
				}
				put(t, args...)
			}
			r := newTr(t)
			defer r.Cancel()
			r.GetReadVersion().MustGet() // fix the read version before the writer commits
			tc.reader(r, s)
			r.Set(s.k("out"), []byte("reader"))

			w := newTr(t)
			tc.writer(w, s)
			if err := w.Commit().Get(); err != nil {
				t.Fatalf("writer commit: %v", err)
			}
			wantCode(t, "reader commit", r.Commit().Get(), tc.wantErr)
		})
	}
}

func set(k, v string) func(tr fdb.Transaction, s space) {
	return func(tr fdb.Transaction, s space) { tr.Set(s.k(k), []byte(v)) }
}

func TestCommit_ReadWriteConflicts(t *testing.T) {
	runConflictCases(t, []conflictCase{
		{
			name:    "Get of key written later conflicts",
			setup:   []any{"k", "0"},
			reader:  func(tr fdb.Transaction, s space) { tr.Get(s.k("k")).MustGet() },
			writer:  set("k", "1"),
			wantErr: 1020,
		},
		{
			name:   "Get of other key does not conflict",
			setup:  []any{"k", "0"},
			reader: func(tr fdb.Transaction, s space) { tr.Get(s.k("j")).MustGet() },
			writer: set("k", "1"),
		},
		{
			name:    "Get of absent key conflicts with its insert",
			reader:  func(tr fdb.Transaction, s space) { tr.Get(s.k("k")).MustGet() },
			writer:  set("k", "1"),
			wantErr: 1020,
		},
		{
			name:    "Get conflicts with Clear",
			setup:   []any{"k", "0"},
			reader:  func(tr fdb.Transaction, s space) { tr.Get(s.k("k")).MustGet() },
			writer:  func(tr fdb.Transaction, s space) { tr.Clear(s.k("k")) },
			wantErr: 1020,
		},
		{
			name:    "Get conflicts with atomic Add",
			setup:   []any{"k", le64(1)},
			reader:  func(tr fdb.Transaction, s space) { tr.Get(s.k("k")).MustGet() },
			writer:  func(tr fdb.Transaction, s space) { tr.Add(s.k("k"), le64(1)) },
			wantErr: 1020,
		},
		{
			name:    "Get conflicts with ClearRange covering it",
			setup:   []any{"k", "0"},
			reader:  func(tr fdb.Transaction, s space) { tr.Get(s.k("k")).MustGet() },
			writer:  func(tr fdb.Transaction, s space) { tr.ClearRange(s.kr("j", "l")) },
			wantErr: 1020,
		},
		{
			name:   "snapshot Get adds no conflict",
			setup:  []any{"k", "0"},
			reader: func(tr fdb.Transaction, s space) { tr.Snapshot().Get(s.k("k")).MustGet() },
			writer: set("k", "1"),
		},
		{
			name:  "snapshot GetRange adds no conflict",
			setup: []any{"k", "0"},
			reader: func(tr fdb.Transaction, s space) {
				tr.Snapshot().GetRange(s.kr("a", "z"), fdb.RangeOptions{}).GetSliceOrPanic()
			},
			writer: set("m", "1"),
		},
		{
			name:   "snapshot GetKey adds no conflict",
			setup:  []any{"k", "0"},
			reader: func(tr fdb.Transaction, s space) { tr.Snapshot().GetKey(fdb.FirstGreaterOrEqual(s.k("a"))).MustGet() },
			writer: set("b", "1"),
		},
		{
			name:    "GetRange conflicts with a phantom insert",
			setup:   []any{"a", "0", "z", "0"},
			reader:  func(tr fdb.Transaction, s space) { tr.GetRange(s.kr("a", "z"), fdb.RangeOptions{}).GetSliceOrPanic() },
			writer:  set("m", "1"),
			wantErr: 1020,
		},
		{
			// [begin, end) is read even when it holds no rows.
			name:    "empty GetRange conflicts with an insert into it",
			reader:  func(tr fdb.Transaction, s space) { tr.GetRange(s.kr("a", "z"), fdb.RangeOptions{}).GetSliceOrPanic() },
			writer:  set("m", "1"),
			wantErr: 1020,
		},
		{
			name:   "GetRange does not conflict with a write past its end",
			setup:  []any{"a", "0"},
			reader: func(tr fdb.Transaction, s space) { tr.GetRange(s.kr("a", "m"), fdb.RangeOptions{}).GetSliceOrPanic() },
			writer: set("m", "1"),
		},
		{
			// The read conflict range stops just past the last row when the
			// limit stopped the read (facts §5.6).
			name:  "GetRange with reached limit does not conflict past its last row",
			setup: []any{"a", "0", "c", "0"},
			reader: func(tr fdb.Transaction, s space) {
				tr.GetRange(s.kr("a", "z"), fdb.RangeOptions{Limit: 1}).GetSliceOrPanic()
			},
			writer: set("m", "1"),
		},
		{
			name:  "GetRange with reached limit conflicts up to its last row",
			setup: []any{"a", "0", "c", "0"},
			reader: func(tr fdb.Transaction, s space) {
				tr.GetRange(s.kr("a", "z"), fdb.RangeOptions{Limit: 1}).GetSliceOrPanic()
			},
			writer:  set("a", "1"),
			wantErr: 1020,
		},
		{
			name:  "reverse GetRange with reached limit does not conflict before its last row",
			setup: []any{"a", "0", "y", "0"},
			reader: func(tr fdb.Transaction, s space) {
				tr.GetRange(s.kr("a", "z"), fdb.RangeOptions{Limit: 1, Reverse: true}).GetSliceOrPanic()
			},
			writer: set("m", "1"),
		},
		{
			name:  "reverse GetRange with reached limit conflicts between last row and end",
			setup: []any{"a", "0", "y", "0"},
			reader: func(tr fdb.Transaction, s space) {
				tr.GetRange(s.kr("a", "z"), fdb.RangeOptions{Limit: 1, Reverse: true}).GetSliceOrPanic()
			},
			writer:  set("yy", "1"),
			wantErr: 1020,
		},
		{
			// GetKey(FirstGreaterOrEqual(b)) = c reads [b, c+\x00).
			name:    "GetKey conflicts with an insert between selector key and result",
			setup:   []any{"a", "0", "c", "0", "e", "0"},
			reader:  func(tr fdb.Transaction, s space) { tr.GetKey(fdb.FirstGreaterOrEqual(s.k("b"))).MustGet() },
			writer:  set("bb", "1"),
			wantErr: 1020,
		},
		{
			name:   "GetKey does not conflict with an insert past its result",
			setup:  []any{"a", "0", "c", "0", "e", "0"},
			reader: func(tr fdb.Transaction, s space) { tr.GetKey(fdb.FirstGreaterOrEqual(s.k("b"))).MustGet() },
			writer: set("d", "1"),
		},
		{
			name:    "AddReadConflictKey conflicts",
			reader:  func(tr fdb.Transaction, s space) { must(tr.AddReadConflictKey(s.k("k"))) },
			writer:  set("k", "1"),
			wantErr: 1020,
		},
		{
			name:   "AddReadConflictKey covers only that key",
			reader: func(tr fdb.Transaction, s space) { must(tr.AddReadConflictKey(s.k("k"))) },
			writer: set("k\x00", "1"),
		},
		{
			name:    "AddReadConflictRange conflicts inside",
			reader:  func(tr fdb.Transaction, s space) { must(tr.AddReadConflictRange(s.kr("b", "d"))) },
			writer:  set("c", "1"),
			wantErr: 1020,
		},
		{
			name:   "AddReadConflictRange end is exclusive",
			reader: func(tr fdb.Transaction, s space) { must(tr.AddReadConflictRange(s.kr("b", "d"))) },
			writer: set("d", "1"),
		},
		{
			name:    "writer AddWriteConflictKey without mutation conflicts",
			reader:  func(tr fdb.Transaction, s space) { tr.Get(s.k("k")).MustGet() },
			writer:  func(tr fdb.Transaction, s space) { must(tr.AddWriteConflictKey(s.k("k"))) },
			wantErr: 1020,
		},
		{
			name:    "writer AddWriteConflictRange conflicts",
			reader:  func(tr fdb.Transaction, s space) { tr.Get(s.k("k")).MustGet() },
			writer:  func(tr fdb.Transaction, s space) { must(tr.AddWriteConflictRange(s.kr("j", "l"))) },
			wantErr: 1020,
		},
		{
			name:   "blind writes never conflict",
			setup:  []any{"k", "0"},
			reader: func(tr fdb.Transaction, s space) { tr.Set(s.k("k"), []byte("reader")) },
			writer: set("k", "writer"),
		},
		{
			name:   "blind atomic ops never conflict",
			reader: func(tr fdb.Transaction, s space) { tr.Add(s.k("k"), le64(1)) },
			writer: func(tr fdb.Transaction, s space) { tr.Add(s.k("k"), le64(1)) },
		},
		{
			name:  "reading a key the transaction set first does not conflict",
			setup: []any{"k", "0"},
			reader: func(tr fdb.Transaction, s space) {
				tr.Set(s.k("k"), []byte("mine"))
				tr.Get(s.k("k")).MustGet()
			},
			writer: set("k", "1"),
		},
		{
			name:  "reading a key the transaction cleared first does not conflict",
			setup: []any{"k", "0"},
			reader: func(tr fdb.Transaction, s space) {
				tr.Clear(s.k("k"))
				tr.Get(s.k("k")).MustGet()
			},
			writer: set("k", "1"),
		},
		{
			name: "range read over own clear range does not conflict",
			reader: func(tr fdb.Transaction, s space) {
				tr.ClearRange(s.kr("b", "f"))
				tr.GetRange(s.kr("b", "f"), fdb.RangeOptions{}).GetSliceOrPanic()
			},
			writer: set("c", "1"),
		},
		{
			// Only the parts of the range not decided by own writes are read:
			// [j, k) and [k+\x00, l), so a write of k itself does not conflict.
			name: "range read excludes keys the transaction set first",
			reader: func(tr fdb.Transaction, s space) {
				tr.Set(s.k("k"), []byte("mine"))
				tr.GetRange(s.kr("j", "l"), fdb.RangeOptions{}).GetSliceOrPanic()
			},
			writer: set("k", "1"),
		},
		{
			name: "range read still conflicts outside keys the transaction set",
			reader: func(tr fdb.Transaction, s space) {
				tr.Set(s.k("k"), []byte("mine"))
				tr.GetRange(s.kr("j", "l"), fdb.RangeOptions{}).GetSliceOrPanic()
			},
			writer:  set("kk", "1"),
			wantErr: 1020,
		},
		{
			name:  "reading a key with only a pending atomic op conflicts",
			setup: []any{"k", le64(1)},
			reader: func(tr fdb.Transaction, s space) {
				tr.Add(s.k("k"), le64(1))
				tr.Get(s.k("k")).MustGet()
			},
			writer:  func(tr fdb.Transaction, s space) { tr.Add(s.k("k"), le64(1)) },
			wantErr: 1020,
		},
	})
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// A transaction with only reads commits successfully even if what it read
// changed (read-only commit: no conflict check; facts §5.6).
func TestCommit_ReadOnlyTransactionNeverConflicts(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("k"), "0")
	r := newTr(t)
	r.Get(s.k("k")).MustGet()
	put(t, s.k("k"), "1")
	wantCode(t, "read-only commit", r.Commit().Get(), 0)
	v, err := r.GetCommittedVersion()
	wantCode(t, "GetCommittedVersion", err, 0)
	if v != -1 {
		t.Errorf("read-only GetCommittedVersion = %d, want -1", v)
	}
}

// next_write_no_write_conflict_range (option 30) suppresses the write conflict
// of the next write only.
func TestOption_NextWriteNoWriteConflictRangeAppliesToNextWriteOnly(t *testing.T) {
	s := newSpace(t)
	readers := make([]fdb.Transaction, 2)
	for i, k := range []string{"k1", "k2"} {
		readers[i] = newTr(t)
		defer readers[i].Cancel()
		readers[i].Get(s.k(k)).MustGet()
		readers[i].Set(s.k("out"+k), []byte("x"))
	}
	w := newTr(t)
	if err := w.Options().SetNextWriteNoWriteConflictRange(); err != nil {
		t.Fatal(err)
	}
	w.Set(s.k("k1"), []byte("no conflict range"))
	w.Set(s.k("k2"), []byte("normal"))
	if err := w.Commit().Get(); err != nil {
		t.Fatalf("writer commit: %v", err)
	}
	wantCode(t, "reader of k1 (written without write conflict range)", readers[0].Commit().Get(), 0)
	wantCode(t, "reader of k2 (normal write)", readers[1].Commit().Get(), 1020)
	// The write itself was applied.
	if got := getCommitted(t, s.k("k1")); string(got) != "no conflict range" {
		t.Errorf("k1 = %s, want the value written without conflict range", printable(got))
	}
}

// db.Transact retries not_committed until the function succeeds.
func TestTransact_RetriesNotCommittedUntilSuccess(t *testing.T) {
	s := newSpace(t)
	put(t, s.k("k"), "0")
	attempts := 0
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		attempts++
		v := tr.Get(s.k("k")).MustGet()
		if attempts == 1 {
			put(t, s.k("k"), "interloper")
		}
		tr.Set(s.k("copy"), v)
		return nil, nil
	})
	if err != nil {
		t.Fatalf("Transact: %v", err)
	}
	if attempts != 2 {
		t.Errorf("attempts = %d, want 2 (one 1020, one success)", attempts)
	}
	if got := getCommitted(t, s.k("copy")); string(got) != "interloper" {
		t.Errorf("copy = %s, want interloper", printable(got))
	}
}

// The directory layer's high-contention allocator relies on snapshot reads,
// option 30 and write conflict keys (facts §10): concurrent creations must get
// distinct, prefix-free prefixes.
func TestDirectory_ConcurrentCreatesGetDistinctPrefixes(t *testing.T) {
	base := []string{"fdblite-conformance", t.Name(), fmt.Sprint(spaceSeq.Add(1))}
	t.Cleanup(func() { directory.Root().Remove(db, base) })
	if _, err := directory.CreateOrOpen(db, base, nil); err != nil {
		t.Fatalf("CreateOrOpen(base): %v", err)
	}
	const n = 24
	prefixes := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			d, err := directory.Create(db, append(append([]string{}, base...), fmt.Sprint("d", i)), nil)
			if err != nil {
				errs[i] = err
				return
			}
			prefixes[i] = d.Bytes()
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Create(d%d): %v", i, err)
		}
	}
	sort.Slice(prefixes, func(i, j int) bool { return bytes.Compare(prefixes[i], prefixes[j]) < 0 })
	for i := 1; i < n; i++ {
		if bytes.HasPrefix(prefixes[i], prefixes[i-1]) {
			t.Errorf("prefix %s is a prefix of (or equal to) %s", fdb.Printable(prefixes[i-1]), fdb.Printable(prefixes[i]))
		}
	}
	names, err := directory.List(db, base)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(names) != n {
		t.Errorf("List returned %d directories, want %d", len(names), n)
	}
}
