package fdyno

import (
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
)

// FuzzBackupLog feeds arbitrary keys to the backup log's and the backup
// data's key parsers and arbitrary values to the parts joiner: they
// answer a *CorruptError or a result, never a panic, and a key they
// accept round-trips through the key builder.
func FuzzBackupLog(f *testing.F) {
	keys := newTableKeys(subspace.FromBytes([]byte{0x15, 0x07}))
	bk := newBackupKeys(subspace.FromBytes([]byte{0x15, 0x09}))
	kv, _ := packKeyValues(S("pk"), N("1"))
	logKey := keys.backupLogKey(kv, 2)
	stamped := append(fdb.Key(nil), logKey[:len(logKey)-4]...) // as stored: no offset
	f.Add([]byte(stamped), []byte{partLastFlag, 0, 0, 0, 0, 0, 0, 0, 1, 'x'}, 2)
	f.Add([]byte(bk.dataKey("id", kv, 0)), []byte{partLastFlag}, 2)
	f.Add([]byte{0x15, 0x07, 0x02, 'l', 0x00, 0x33}, []byte{}, 1)
	f.Fuzz(func(t *testing.T, key, value []byte, elems int) {
		elems = 1 + (elems&1+2)%2
		if _, k, part, err := keys.splitBackupLogKey(key, elems); err == nil {
			if part < 0 || len(k) == 0 {
				t.Fatalf("accepted %x: part %d, key values %x", key, part, k)
			}
		} else if _, ok := err.(*CorruptError); !ok {
			t.Fatalf("%x: error %T %v, want *CorruptError", key, err, err)
		}
		if k, part, err := bk.splitDataKey("id", key, elems); err == nil {
			if got := bk.dataKey("id", k, part); string(got) != string(key) {
				t.Fatalf("data key %x parsed as (%x, %d), which builds %x", key, k, part, got)
			}
		} else if _, ok := err.(*CorruptError); !ok {
			t.Fatalf("%x: error %T %v, want *CorruptError", key, err, err)
		}
		for _, timed := range []bool{false, true} {
			j := partsJoiner{timed: timed, what: "fuzz"}
			for part := range 3 {
				if _, err := j.add([]byte("k"), part, value); err != nil {
					if _, ok := err.(*CorruptError); !ok {
						t.Fatalf("parts: error %T %v, want *CorruptError", err, err)
					}
					break
				}
			}
		}
	})
}
