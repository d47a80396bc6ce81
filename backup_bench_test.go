package fdyno

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// While a backup takes the log (or, later, point-in-time recovery is on),
// a Put costs the same round trips as without: the log record is one more
// versionstamped Set in the Put's own commit, and nothing is read for it.
func TestBackupLogRoundTrips(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	plain := mustOpen(t, db, "Plain", root, WithSchema(hashOnly))
	logged := mustOpen(t, db, "Logged", root, WithSchema(hashOnly))
	if _, err := logged.startBackup(db, "open", BackupTypeUser, backupBatch); err != nil {
		t.Fatal(err)
	}
	put := func(tbl *Table, i int) func() error {
		return func() error {
			_, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k" + strconv.Itoa(i)), "a": S("v")}})
			return err
		}
	}
	// Warm both handles' caches.
	if err := put(plain, 0)(); err != nil {
		t.Fatal(err)
	}
	if err := put(logged, 0)(); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 4; i++ {
		a, err := fdblitetest.CountRoundTrips(db, put(plain, i))
		if err != nil {
			t.Fatal(err)
		}
		b, err := fdblitetest.CountRoundTrips(db, put(logged, i))
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("Put round trips: %v without the log, %v with it", a, b)
		}
	}
	if n := backupLogLen(t, db, logged); n != 4 {
		t.Errorf("%d log records, want 4 (one per Put)", n)
	}
}

// BenchmarkBackupPut compares a 1 KB Put on a table whose log is taken
// (a backup in progress, or point-in-time recovery) with the same Put
// without it, and with the raw Set.
func BenchmarkBackupPut(b *testing.B) {
	db := fdblitetest.Open(b)
	root := testRoot(b, db)
	pad := strings.Repeat("p", 1000)
	for _, logged := range []bool{false, true} {
		name := "plain"
		if logged {
			name = "logged"
		}
		tbl := mustOpen(b, db, "Bench"+name, root, WithSchema(hashOnly))
		if logged {
			if _, err := tbl.startBackup(db, "open", BackupTypeUser, backupBatch); err != nil {
				b.Fatal(err)
			}
		}
		i := 0
		benchRunPerKey(b, name, 1, func() error {
			i++
			_, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k" + strconv.Itoa(i%100)), "pad": S(pad)}})
			return err
		})
	}
	raw := fdb.Key("bench-backup-raw")
	logKey := tblLogKey(b, db, root)
	benchRunPerKey(b, "raw-set-and-log", 1, func() error {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.Set(raw, []byte(pad))
			tr.SetVersionstampedKey(logKey, append([]byte{partLastFlag, 0, 0, 0, 0, 0, 0, 0, 0}, pad...))
			return nil, nil
		})
		return err
	})
	benchRunPerKey(b, "raw-set", 1, func() error {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			tr.Set(raw, []byte(pad))
			return nil, nil
		})
		return err
	})
}

// loadKB puts items k0 … k<n-1> of 1 KB (pk and a 1,000-byte pad) into
// tbl, 200 per transaction.
func loadKB(b *testing.B, db fdb.Database, tbl *Table, n int) {
	pad := strings.Repeat("p", 1000)
	for i := 0; i < n; i += 200 {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			for j := i; j < min(i+200, n); j++ {
				if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("k" + strconv.Itoa(j)), "pad": S(pad)}}); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBackupRestore measures a backup and a restore of a table of
// 5,000 items of 1 KB, per item, beside a raw copy of the same rows.
func BenchmarkBackupRestore(b *testing.B) {
	db := fdblitetest.Open(b)
	root := testRoot(b, db)
	const n = 5000
	src := mustOpen(b, db, "BenchSrc", root, WithSchema(hashOnly))
	loadKB(b, db, src, n)
	var last *BackupDescription
	benchRunPerKey(b, "backup", n, func() error {
		var err error
		last, err = src.CreateBackup(db, "bench")
		return err
	})
	r := 0
	benchRunPerKey(b, "restore", n, func() error {
		r++
		name := "BenchDst" + strconv.Itoa(r)
		if _, err := RestoreTableFromBackup(db, RestoreTableFromBackupInput{BackupID: last.BackupID, TargetTableName: name}, root); err != nil {
			return err
		}
		return DeleteTable(db, name, root)
	})
	st := src.state.Load()
	dst := fdb.Key("bench-backup-raw-copy/")
	benchRunPerKey(b, "raw-copy", n, func() error {
		begin, end := st.keys.items.FDBRangeKeys()
		for {
			next, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				rows, err := tr.Snapshot().GetRange(fdb.KeyRange{Begin: begin, End: end}, fdb.RangeOptions{Limit: backupBatch}).GetSliceWithError()
				if err != nil {
					return nil, err
				}
				for _, kv := range rows {
					tr.Set(append(dst[:len(dst):len(dst)], kv.Key...), kv.Value)
				}
				if len(rows) < backupBatch {
					return nil, nil
				}
				return fdb.Key(append(rows[len(rows)-1].Key, 0x00)), nil
			})
			if err != nil {
				return err
			}
			if next == nil {
				return nil
			}
			begin = next.(fdb.Key)
		}
	})
}

// tblLogKey returns a log key of a scratch table, for the raw baseline.
func tblLogKey(b *testing.B, db fdb.Database, root Option) fdb.Key {
	tbl := mustOpen(b, db, "BenchRawLog", root, WithSchema(hashOnly))
	kv, err := packKeyValues(S("k"))
	if err != nil {
		b.Fatal(err)
	}
	return tbl.state.Load().keys.backupLogKey(kv, 0)
}
