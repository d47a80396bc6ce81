package conformance

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/google/go-cmp/cmp"
)

type atomicFn func(tr fdb.Transaction, k fdb.Key, p []byte)

var (
	opAdd      atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.Add(k, p) }
	opAnd      atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.BitAnd(k, p) }
	opOr       atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.BitOr(k, p) }
	opXor      atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.BitXor(k, p) }
	opAppend   atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.AppendIfFits(k, p) }
	opMax      atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.Max(k, p) }
	opMin      atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.Min(k, p) }
	opByteMin  atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.ByteMin(k, p) }
	opByteMax  atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.ByteMax(k, p) }
	opCmpClear atomicFn = func(tr fdb.Transaction, k fdb.Key, p []byte) { tr.CompareAndClear(k, p) }
)

func b(s ...byte) []byte { return append([]byte{}, s...) }

// Atomic operation semantics for absent keys and length mismatches, from
// FoundationDB's API reference ("Atomic operations") and fdbclient/Atomic.h
// (facts §6); AND and MIN run as their v2 forms at API >= 510.
func TestAtomicOps_Semantics(t *testing.T) {
	big := bytes.Repeat([]byte{'x'}, 99999)
	cases := []struct {
		name     string
		op       atomicFn
		existing []byte // nil = absent
		param    []byte
		want     []byte // nil = absent
	}{
		{"Add absent", opAdd, nil, b(1, 0), b(1, 0)},
		{"Add carries", opAdd, b(0xff, 0), b(2, 0), b(1, 1)},
		{"Add drops top carry", opAdd, b(0xff, 0xff), b(1, 0), b(0, 0)},
		{"Add truncates longer existing", opAdd, b(0xff, 0xff, 0xff), b(1, 0), b(0, 0)},
		{"Add zero-extends shorter existing", opAdd, b(5), b(1, 0, 0), b(6, 0, 0)},
		{"Add empty existing", opAdd, b(), b(7), b(7)},
		{"Add empty param", opAdd, b(5), b(), b()},
		{"Add 64-bit wraps", opAdd, le64(-1), le64(2), le64(1)},
		{"BitAnd absent", opAnd, nil, b(0x0f), b(0x0f)},
		{"BitAnd", opAnd, b(0xff, 0x0f), b(0x0f, 0xff), b(0x0f, 0x0f)},
		{"BitAnd zero-extends shorter existing", opAnd, b(0xff), b(0xff, 0xff), b(0xff, 0)},
		{"BitAnd truncates longer existing", opAnd, b(0xff, 0xff, 0xff), b(0x0f), b(0x0f)},
		{"BitAnd empty existing", opAnd, b(), b(0xff), b(0)},
		{"BitAnd empty param", opAnd, b(0xff), b(), b()},
		{"BitOr absent", opOr, nil, b(0x0f), b(0x0f)},
		{"BitOr copies param past existing", opOr, b(0xf0), b(0x0f, 0x01), b(0xff, 0x01)},
		{"BitOr truncates longer existing", opOr, b(0xf0, 0xf0, 0xf0), b(0x0f), b(0xff)},
		{"BitOr empty existing", opOr, b(), b(0x0f), b(0x0f)},
		{"BitOr empty param", opOr, b(0xf0), b(), b()},
		{"BitXor absent", opXor, nil, b(0x0f), b(0x0f)},
		{"BitXor copies param past existing", opXor, b(0xff, 0x00), b(0x0f, 0x0f, 0x0f), b(0xf0, 0x0f, 0x0f)},
		{"BitXor truncates longer existing", opXor, b(0xff, 0xff), b(0x0f), b(0xf0)},
		{"BitXor empty param", opXor, b(0xf0), b(), b()},
		{"AppendIfFits absent", opAppend, nil, []byte("cd"), []byte("cd")},
		{"AppendIfFits appends", opAppend, []byte("ab"), []byte("cd"), []byte("abcd")},
		{"AppendIfFits empty param", opAppend, []byte("ab"), b(), []byte("ab")},
		{"AppendIfFits empty existing", opAppend, b(), []byte("cd"), []byte("cd")},
		{"AppendIfFits too big leaves existing", opAppend, big, []byte("cd"), big},
		{"AppendIfFits exactly fits", opAppend, big, []byte("c"), append(append([]byte{}, big...), 'c')},
		{"Max absent", opMax, nil, b(1, 0), b(1, 0)},
		{"Max keeps larger existing", opMax, b(2, 0), b(1, 0), b(2, 0)},
		{"Max takes larger param", opMax, b(1, 0), b(0, 1), b(0, 1)},
		{"Max truncates longer existing", opMax, b(1, 0, 0, 1), b(2, 0), b(2, 0)},
		{"Max zero-extends shorter existing", opMax, b(9), b(1, 0), b(9, 0)},
		{"Max empty existing", opMax, b(), b(1), b(1)},
		{"Max empty param", opMax, b(5), b(), b()},
		{"Min absent", opMin, nil, b(5, 0), b(5, 0)},
		{"Min keeps smaller existing", opMin, b(1, 0), b(2, 0), b(1, 0)},
		{"Min takes smaller param", opMin, b(2, 0), b(0, 0), b(0, 0)},
		{"Min truncates longer existing", opMin, b(1, 0, 9), b(2, 0), b(1, 0)},
		{"Min zero-extends shorter existing", opMin, b(1), b(0, 1), b(1, 0)},
		{"Min empty existing is zero", opMin, b(), b(5), b(0)},
		{"Min empty param", opMin, b(5), b(), b()},
		{"ByteMin absent", opByteMin, nil, []byte("abc"), []byte("abc")},
		{"ByteMin keeps smaller existing", opByteMin, []byte("abc"), []byte("abd"), []byte("abc")},
		{"ByteMin lexicographic not numeric", opByteMin, []byte("b"), []byte("abc"), []byte("abc")},
		{"ByteMin empty existing", opByteMin, b(), []byte("a"), b()},
		{"ByteMax absent", opByteMax, nil, []byte("abc"), []byte("abc")},
		{"ByteMax takes larger param", opByteMax, []byte("abc"), []byte("abd"), []byte("abd")},
		{"ByteMax lexicographic not numeric", opByteMax, []byte("b"), []byte("abc"), []byte("b")},
		{"CompareAndClear equal clears", opCmpClear, []byte("v"), []byte("v"), nil},
		{"CompareAndClear different keeps", opCmpClear, []byte("v"), []byte("w"), []byte("v")},
		{"CompareAndClear absent stays absent", opCmpClear, nil, []byte("v"), nil},
	}
	s := newSpace(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// committed: the existing value was committed before the op's
			// transaction; ryw: the same transaction set it first.
			for _, mode := range []string{"committed", "ryw"} {
				k := s.k(mode + "/" + numbered(i))
				var got []byte
				if mode == "committed" {
					if tc.existing != nil {
						put(t, k, tc.existing)
					}
					mustTransact(t, func(tr fdb.Transaction) { tc.op(tr, k, tc.param) })
					got = getCommitted(t, k)
				} else {
					mustTransact(t, func(tr fdb.Transaction) {
						if tc.existing != nil {
							tr.Set(k, tc.existing)
						} else {
							tr.Clear(k)
						}
						tc.op(tr, k, tc.param)
						got = tr.Get(k).MustGet()
					})
					if ryw := got; true {
						committed := getCommitted(t, k)
						if !bytes.Equal(ryw, committed) || (ryw == nil) != (committed == nil) {
							t.Errorf("%s: RYW read %s differs from committed %s", mode, printable(ryw), printable(committed))
						}
					}
				}
				if !bytes.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
					t.Errorf("%s: existing %s, param %s: got %s, want %s", mode,
						printable(short(tc.existing)), printable(tc.param), printable(short(got)), printable(short(tc.want)))
				}
			}
		})
	}
}

func short(v []byte) []byte {
	if len(v) > 16 {
		return append(append([]byte{}, v[:8]...), []byte("...")...)
	}
	return v
}

// Several atomic ops on one key in one transaction compose in order.
func TestAtomicOps_ComposeWithinTransaction(t *testing.T) {
	s := newSpace(t)
	k := s.k("counter")
	put(t, k, le64(100))
	mustTransact(t, func(tr fdb.Transaction) {
		tr.Add(k, le64(5))
		tr.Add(k, le64(-10))
		tr.Max(k, le64(96))
		if got := fromLE64(tr.Get(k).MustGet()); got != 96 {
			t.Errorf("RYW value = %d, want 96", got)
		}
	})
	if got := fromLE64(getCommitted(t, k)); got != 96 {
		t.Errorf("committed value = %d, want 96", got)
	}
}

// Versionstamped keys and values through the tuple layer: the 10-byte stamp
// is the commit version (8 bytes big-endian) + batch order (2 bytes); the
// user version survives the round trip (facts §7).
func TestVersionstamp_TupleRoundTripThroughCommit(t *testing.T) {
	s := newSpace(t)
	ss := s.ss.Sub("vs")
	key, err := ss.PackWithVersionstamp(tuple.Tuple{"event", tuple.IncompleteVersionstamp(7)})
	if err != nil {
		t.Fatalf("PackWithVersionstamp: %v", err)
	}
	value, err := tuple.Tuple{"at", tuple.IncompleteVersionstamp(3)}.PackWithVersionstamp(nil)
	if err != nil {
		t.Fatalf("PackWithVersionstamp(value): %v", err)
	}
	tr := newTr(t)
	tr.SetVersionstampedKey(key, []byte("payload"))
	tr.SetVersionstampedValue(s.k("value"), value)
	vsf := tr.GetVersionstamp()
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	stamp, err := vsf.Get()
	if err != nil {
		t.Fatalf("GetVersionstamp: %v", err)
	}
	if len(stamp) != 10 {
		t.Fatalf("versionstamp has %d bytes, want 10", len(stamp))
	}
	cv, err := tr.GetCommittedVersion()
	if err != nil {
		t.Fatalf("GetCommittedVersion: %v", err)
	}
	if got := int64(binary.BigEndian.Uint64(stamp[:8])); got != cv {
		t.Errorf("versionstamp version %d != committed version %d", got, cv)
	}
	var tv [10]byte
	copy(tv[:], stamp)

	kvs := rangeCommitted(t, ss, fdb.RangeOptions{})
	if len(kvs) != 1 {
		t.Fatalf("stamped keys = %v, want 1", tupleKeys(ss, kvs))
	}
	tup, err := ss.Unpack(kvs[0].Key)
	if err != nil {
		t.Fatalf("Unpack: %v", err)
	}
	want := tuple.Tuple{"event", tuple.Versionstamp{TransactionVersion: tv, UserVersion: 7}}
	if diff := cmp.Diff(want, tup); diff != "" {
		t.Errorf("stamped key tuple mismatch (-want +got):\n%s", diff)
	}
	if string(kvs[0].Value) != "payload" {
		t.Errorf("stamped key value = %s, want payload", printable(kvs[0].Value))
	}
	vtup, err := tuple.Unpack(getCommitted(t, s.k("value")))
	if err != nil {
		t.Fatalf("Unpack(value): %v", err)
	}
	wantV := tuple.Tuple{"at", tuple.Versionstamp{TransactionVersion: tv, UserVersion: 3}}
	if diff := cmp.Diff(wantV, vtup); diff != "" {
		t.Errorf("stamped value tuple mismatch (-want +got):\n%s", diff)
	}
}

// Raw versionstamped value: the last 4 bytes are the little-endian offset of
// the 10-byte placeholder and are stripped (API >= 520).
func TestVersionstamp_RawOffsets(t *testing.T) {
	s := newSpace(t)
	param := append([]byte("ab"), make([]byte, 10)...)
	param = append(param, "cd"...)
	param = binary.LittleEndian.AppendUint32(param, 2)
	keyParam := append(append([]byte{}, s.k("k/")...), make([]byte, 10)...)
	keyParam = append(keyParam, "/end"...)
	keyParam = binary.LittleEndian.AppendUint32(keyParam, uint32(len(s.k("k/"))))

	tr := newTr(t)
	tr.SetVersionstampedValue(s.k("v"), param)
	tr.SetVersionstampedKey(fdb.Key(keyParam), []byte("x"))
	vsf := tr.GetVersionstamp()
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	stamp := vsf.MustGet()
	wantValue := append(append([]byte("ab"), stamp...), "cd"...)
	if got := getCommitted(t, s.k("v")); !bytes.Equal(got, wantValue) {
		t.Errorf("stamped value = %s, want %s", printable(got), printable(wantValue))
	}
	wantKey := append(append(append([]byte{}, s.k("k/")...), stamp...), "/end"...)
	if got := getCommitted(t, fdb.Key(wantKey)); string(got) != "x" {
		t.Errorf("Get(stamped key %s) = %s, want x", fdb.Printable(wantKey), printable(got))
	}
}

// An offset that does not leave room for 10 bytes, or a param shorter than
// 4 bytes, is client_invalid_operation (2000), deferred to the commit.
func TestVersionstamp_BadOffsetFails(t *testing.T) {
	s := newSpace(t)
	cases := []struct {
		name string
		op   func(tr fdb.Transaction)
	}{
		{"value offset past end", func(tr fdb.Transaction) {
			tr.SetVersionstampedValue(s.k("v"), binary.LittleEndian.AppendUint32(make([]byte, 10), 1))
		}},
		{"value shorter than 4 bytes", func(tr fdb.Transaction) { tr.SetVersionstampedValue(s.k("v"), []byte{0, 0}) }},
		{"key offset past end", func(tr fdb.Transaction) {
			tr.SetVersionstampedKey(fdb.Key(binary.LittleEndian.AppendUint32(append(s.k("k"), make([]byte, 10)...), uint32(len(s.k("k"))+1))), []byte("x"))
		}},
		{"key negative offset", func(tr fdb.Transaction) {
			tr.SetVersionstampedKey(fdb.Key(binary.LittleEndian.AppendUint32(append(s.k("k"), make([]byte, 10)...), 0xffffffff)), []byte("x"))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			tc.op(tr)
			wantCode(t, "Commit", tr.Commit().Get(), 2000)
		})
	}
}

// Versionstamps strictly increase across commits, and each equals the
// committed version plus batch order.
func TestVersionstamp_StrictlyIncreasingAcrossCommits(t *testing.T) {
	s := newSpace(t)
	var prev []byte
	for i := 0; i < 20; i++ {
		tr := newTr(t)
		tr.Set(s.k("k"), []byte{byte(i)})
		vsf := tr.GetVersionstamp()
		if err := tr.Commit().Get(); err != nil {
			t.Fatalf("Commit %d: %v", i, err)
		}
		vs := vsf.MustGet()
		if len(vs) != 10 {
			t.Fatalf("versionstamp %d has %d bytes", i, len(vs))
		}
		if prev != nil && bytes.Compare(vs, prev) <= 0 {
			t.Errorf("versionstamp %d = %x not greater than previous %x", i, vs, prev)
		}
		prev = vs
	}
}

// GetVersionstamp: read-only commit → no_commit_version (2021); requested
// after commit → used_during_commit (2017); failed commit → the stamp future
// fails (facts §7: 2020).
func TestVersionstamp_FutureErrors(t *testing.T) {
	s := newSpace(t)
	t.Run("read-only commit", func(t *testing.T) {
		tr := newTr(t)
		tr.Get(s.k("k")).MustGet()
		vsf := tr.GetVersionstamp()
		wantCode(t, "Commit", tr.Commit().Get(), 0)
		_, err := vsf.Get()
		wantCode(t, "GetVersionstamp after read-only commit", err, 2021)
	})
	t.Run("requested after commit", func(t *testing.T) {
		tr := newTr(t)
		tr.Set(s.k("k"), []byte("v"))
		wantCode(t, "Commit", tr.Commit().Get(), 0)
		_, err := tr.GetVersionstamp().Get()
		wantCode(t, "GetVersionstamp after commit", err, 2017)
	})
	t.Run("failed commit", func(t *testing.T) {
		tr := newTr(t)
		tr.Get(s.k("c")).MustGet()
		tr.Set(s.k("k"), []byte("v"))
		vsf := tr.GetVersionstamp()
		put(t, s.k("c"), "conflict")
		wantCode(t, "Commit", tr.Commit().Get(), 1020)
		_, err := vsf.Get()
		wantCode(t, "GetVersionstamp after failed commit", err, 2020)
	})
	t.Run("reset before commit", func(t *testing.T) {
		tr := newTr(t)
		tr.Set(s.k("k"), []byte("v"))
		vsf := tr.GetVersionstamp()
		tr.Reset()
		_, err := vsf.Get()
		wantCode(t, "GetVersionstamp after Reset", err, 1025)
	})
}

// Reading a versionstamped value or a key in the range a versionstamped key
// may land in, in the same transaction, is accessed_unreadable (1036).
func TestVersionstamp_ReadInSameTransactionIsUnreadable(t *testing.T) {
	s := newSpace(t)
	ss := s.ss.Sub("vs")
	put(t, s.k("plain"), "p")
	stampedKey, err := ss.PackWithVersionstamp(tuple.Tuple{tuple.IncompleteVersionstamp(0)})
	if err != nil {
		t.Fatal(err)
	}
	stampedValue := binary.LittleEndian.AppendUint32(make([]byte, 10), 0)
	cases := []struct {
		name string
		read func(tr fdb.Transaction) error
		want int
	}{
		{"Get stamped value", func(tr fdb.Transaction) error { _, err := tr.Get(s.k("sv")).Get(); return err }, 1036},
		{"GetRange over stamped value", func(tr fdb.Transaction) error {
			_, err := tr.GetRange(s.kr("s", "t"), fdb.RangeOptions{}).GetSliceWithError()
			return err
		}, 1036},
		{"GetRange over stamped key range", func(tr fdb.Transaction) error {
			_, err := tr.GetRange(ss, fdb.RangeOptions{}).GetSliceWithError()
			return err
		}, 1036},
		{"Get unrelated key", func(tr fdb.Transaction) error { _, err := tr.Get(s.k("plain")).Get(); return err }, 0},
		{"snapshot Get stamped value", func(tr fdb.Transaction) error { _, err := tr.Snapshot().Get(s.k("sv")).Get(); return err }, 1036},
		{"Get after overwrite still unreadable", func(tr fdb.Transaction) error {
			tr.Set(s.k("sv"), []byte("over"))
			_, err := tr.Get(s.k("sv")).Get()
			return err
		}, 1036},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			defer tr.Cancel()
			tr.SetVersionstampedValue(s.k("sv"), stampedValue)
			tr.SetVersionstampedKey(stampedKey, []byte("x"))
			wantCode(t, tc.name, tc.read(tr), tc.want)
		})
	}
}

// bypass_unreadable (option 1100) lets Get see the unstamped value.
func TestVersionstamp_BypassUnreadable(t *testing.T) {
	s := newSpace(t)
	tr := newTr(t)
	defer tr.Cancel()
	must(tr.Options().SetBypassUnreadable())
	tr.SetVersionstampedValue(s.k("sv"), binary.LittleEndian.AppendUint32(append([]byte("ab"), make([]byte, 10)...), 2))
	if _, err := tr.Get(s.k("sv")).Get(); err != nil {
		t.Errorf("Get with bypass_unreadable: %v, want no error", err)
	}
}

// metadataVersionKey is \xff/metadataVersion (developer guide).
var metadataVersionKey = fdb.Key("\xff/metadataVersion")

// bumpMetadataVersion sets \xff/metadataVersion the only allowed way and
// returns the commit's versionstamp.
func bumpMetadataVersion(t testing.TB) []byte {
	t.Helper()
	tr := newTr(t)
	tr.SetVersionstampedValue(metadataVersionKey, make([]byte, 14))
	vsf := tr.GetVersionstamp()
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("bump metadata version: %v", err)
	}
	vs, err := vsf.Get()
	if err != nil {
		t.Fatalf("bump metadata version: GetVersionstamp: %v", err)
	}
	return vs
}

// The metadata version key is readable without system-key options, settable
// only by SetVersionstampedValue with 14 zero bytes, changes with each such
// commit, and is unreadable after being set in the same transaction.
func TestMetadataVersion(t *testing.T) {
	read := func(t *testing.T) []byte {
		t.Helper()
		tr := newTr(t)
		defer tr.Cancel()
		v, err := tr.Get(metadataVersionKey).Get()
		if err != nil {
			t.Fatalf("Get(\\xff/metadataVersion) without system options: %v", err)
		}
		return v
	}
	read(t)
	vs1 := bumpMetadataVersion(t)
	if got := read(t); !bytes.Equal(got, vs1) {
		t.Errorf("metadata version = %s, want the commit's versionstamp %s", printable(got), printable(vs1))
	}
	vs2 := bumpMetadataVersion(t)
	got2 := read(t)
	if !bytes.Equal(got2, vs2) || bytes.Compare(vs2, vs1) <= 0 {
		t.Errorf("after second bump metadata version = %s (stamp %s), want a value greater than %s", printable(got2), printable(vs2), printable(vs1))
	}

	bad := []struct {
		name   string
		system bool
		op     func(tr fdb.Transaction)
	}{
		{"plain Set", false, func(tr fdb.Transaction) { tr.Set(metadataVersionKey, make([]byte, 10)) }},
		{"plain Set with system access", true, func(tr fdb.Transaction) { tr.Set(metadataVersionKey, make([]byte, 10)) }},
		{"Add", false, func(tr fdb.Transaction) { tr.Add(metadataVersionKey, le64(1)) }},
		{"versionstamped value with non-zero param", false, func(tr fdb.Transaction) {
			tr.SetVersionstampedValue(metadataVersionKey, append([]byte(strings.Repeat("x", 10)), 0, 0, 0, 0))
		}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTr(t)
			if tc.system {
				must(tr.Options().SetAccessSystemKeys())
			}
			tc.op(tr)
			wantCode(t, "Commit", tr.Commit().Get(), 2000)
		})
	}
	if got := read(t); !bytes.Equal(got, got2) {
		t.Errorf("failed writes changed the metadata version to %s", printable(got))
	}

	t.Run("unreadable after set in same transaction", func(t *testing.T) {
		tr := newTr(t)
		defer tr.Cancel()
		tr.SetVersionstampedValue(metadataVersionKey, make([]byte, 14))
		_, err := tr.Get(metadataVersionKey).Get()
		wantCode(t, "Get after set", err, 1036)
	})
}
