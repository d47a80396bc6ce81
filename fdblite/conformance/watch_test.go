package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

const watchTimeout = 3 * time.Second

// armWatch creates a watch on k in a transaction and commits it.
func armWatch(t *testing.T, k fdb.Key) fdb.FutureNil {
	t.Helper()
	tr := newTr(t)
	w := tr.Watch(k)
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("commit of watching transaction: %v", err)
	}
	t.Cleanup(w.Cancel)
	return w
}

// A committed watch fires after another transaction changes the value
// (developer guide, "Watches").
func TestWatch_FiresAfterOtherTransactionChangesValue(t *testing.T) {
	s := newSpace(t)
	cases := []struct {
		name   string
		before []byte // nil = absent
		change func(tr fdb.Transaction, k fdb.Key)
	}{
		{"set new value", []byte("a"), func(tr fdb.Transaction, k fdb.Key) { tr.Set(k, []byte("b")) }},
		{"clear", []byte("a"), func(tr fdb.Transaction, k fdb.Key) { tr.Clear(k) }},
		{"insert absent key", nil, func(tr fdb.Transaction, k fdb.Key) { tr.Set(k, []byte("new")) }},
		{"atomic add", le64(1), func(tr fdb.Transaction, k fdb.Key) { tr.Add(k, le64(1)) }},
		{"clear range", []byte("a"), func(tr fdb.Transaction, k fdb.Key) { tr.ClearRange(fdb.KeyRange{Begin: k, End: append(k, 0xff)}) }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := s.k(numbered(i))
			if tc.before != nil {
				put(t, k, tc.before)
			}
			w := armWatch(t, k)
			if _, ready := wait(w, 50*time.Millisecond); ready {
				t.Fatalf("watch fired before any change")
			}
			mustTransact(t, func(tr fdb.Transaction) { tc.change(tr, k) })
			err, ready := wait(w, watchTimeout)
			if !ready {
				t.Fatalf("watch did not fire within %v after the change", watchTimeout)
			}
			wantCode(t, "watch", err, 0)
		})
	}
}

// Writing the value the watch already recorded is not a change (facts §5.8);
// a later real change still fires it.
func TestWatch_DoesNotFireForSameValueWrite(t *testing.T) {
	s := newSpace(t)
	k := s.k("k")
	put(t, k, "same")
	w := armWatch(t, k)
	put(t, k, "same")
	if _, ready := wait(w, 300*time.Millisecond); ready {
		t.Errorf("watch fired after a write of the same value")
	}
	put(t, k, "different")
	err, ready := wait(w, watchTimeout)
	if !ready {
		t.Fatalf("watch did not fire after a real change")
	}
	wantCode(t, "watch", err, 0)
}

// Until its transaction commits, a watch reports only the transaction's own
// changes, and those immediately (Go docs of Transaction.Watch).
func TestWatch_OwnWriteFiresImmediately(t *testing.T) {
	s := newSpace(t)
	k := s.k("k")
	put(t, k, "a")
	tr := newTr(t)
	defer tr.Cancel()
	w := tr.Watch(k)
	t.Cleanup(w.Cancel)
	tr.Set(k, []byte("b"))
	err, ready := wait(w, watchTimeout)
	if !ready {
		t.Fatalf("watch did not fire after its own transaction changed the value")
	}
	wantCode(t, "watch", err, 0)
}

func TestWatch_OtherChangeBeforeCommitIsNotReported(t *testing.T) {
	s := newSpace(t)
	k := s.k("k")
	put(t, k, "a")
	tr := newTr(t)
	defer tr.Cancel()
	w := tr.Watch(k)
	t.Cleanup(w.Cancel)
	put(t, k, "b")
	if _, ready := wait(w, 200*time.Millisecond); ready {
		t.Errorf("uncommitted watch reported another transaction's change")
	}
}

// Watch errors (facts §5.8; Go docs of Transaction.Watch).
func TestWatch_Errors(t *testing.T) {
	s := newSpace(t)
	cases := []struct {
		name string
		run  func(t *testing.T) fdb.FutureNil
		want int
	}{
		{"cancelled watch", func(t *testing.T) fdb.FutureNil {
			w := armWatch(t, s.k("c"))
			w.Cancel()
			return w
		}, 1101},
		{"transaction reset before commit", func(t *testing.T) fdb.FutureNil {
			tr := newTr(t)
			w := tr.Watch(s.k("r"))
			tr.Reset()
			return w
		}, 1025},
		{"transaction cancelled before commit", func(t *testing.T) fdb.FutureNil {
			tr := newTr(t)
			w := tr.Watch(s.k("x"))
			tr.Cancel()
			return w
		}, 1025},
		{"commit fails with conflict", func(t *testing.T) fdb.FutureNil {
			tr := newTr(t)
			tr.Get(s.k("read")).MustGet()
			w := tr.Watch(s.k("w"))
			tr.Set(s.k("out"), []byte("x"))
			put(t, s.k("read"), "changed")
			wantCode(t, "commit", tr.Commit().Get(), 1020)
			return w
		}, 1020},
		{"key in system space", func(t *testing.T) fdb.FutureNil {
			return newTr(t).Watch(fdb.Key("\xff\x02/x"))
		}, 2004},
		{"key too large", func(t *testing.T) fdb.FutureNil {
			return newTr(t).Watch(fdb.Key(strings.Repeat("k", 10001)))
		}, 2102},
		{"read your writes disabled", func(t *testing.T) fdb.FutureNil {
			tr := newTr(t)
			must(tr.Options().SetReadYourWritesDisable())
			return tr.Watch(s.k("d"))
		}, 1034},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.run(t)
			err, ready := wait(w, watchTimeout)
			if !ready {
				w.Cancel()
				t.Fatalf("watch did not complete; want error %d", tc.want)
			}
			wantCode(t, "watch", err, tc.want)
		})
	}
}

// The metadata version key can be watched without system-key options.
func TestWatch_MetadataVersionKey(t *testing.T) {
	w := armWatch(t, metadataVersionKey)
	bumpMetadataVersion(t)
	err, ready := wait(w, watchTimeout)
	if !ready {
		t.Fatalf("watch on \\xff/metadataVersion did not fire after a bump")
	}
	wantCode(t, "watch", err, 0)
}

// More outstanding watches than the database's max_watches (option 20) fail
// with too_many_watches (1032); cancelling one frees its slot.
func TestWatch_TooManyWatches(t *testing.T) {
	s := newSpace(t)
	if err := db.Options().SetMaxWatches(2); err != nil {
		t.Fatalf("SetMaxWatches(2): %v", err)
	}
	t.Cleanup(func() {
		if err := db.Options().SetMaxWatches(10000); err != nil {
			t.Errorf("restoring max watches: %v", err)
		}
	})
	w1 := armWatch(t, s.k("1"))
	armWatch(t, s.k("2"))
	tr := newTr(t)
	w3 := tr.Watch(s.k("3"))
	t.Cleanup(w3.Cancel)
	tr.Commit().Get() // the limit may be reported at creation or at commit
	err, ready := wait(w3, watchTimeout)
	if !ready {
		t.Fatalf("third watch with max_watches=2 did not fail")
	}
	wantCode(t, "third watch", err, 1032)

	w1.Cancel()
	w1.BlockUntilReady()
	tr = newTr(t)
	w4 := tr.Watch(s.k("4"))
	t.Cleanup(w4.Cancel)
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if err, ready := wait(w4, 200*time.Millisecond); ready {
		t.Errorf("watch after cancelling one completed early with %v; want it pending", err)
	}
}
