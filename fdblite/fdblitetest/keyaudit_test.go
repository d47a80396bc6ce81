package fdblitetest_test

import (
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// The key audit counts each committed transaction once per conflict range:
// 10 transactions read and write a shared key and write a key of their
// own; 5 more only read the shared key and commit nothing (a read-only
// transaction is not counted).
func TestKeyAudit(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	if err := fdblitetest.StartKeyAudit(db); err != nil {
		t.Fatal(err)
	}
	shared := fdb.Key("audit/shared")
	for i := range 10 {
		if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			if _, err := tr.Get(shared).Get(); err != nil {
				return nil, err
			}
			tr.Set(shared, []byte{byte(i)})
			tr.Set(shared, []byte{byte(i)}) // twice: counted once
			tr.Set(fdb.Key("audit/own/"+string(rune('a'+i))), nil)
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		if _, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) { return rt.Get(shared).Get() }); err != nil {
			t.Fatal(err)
		}
	}
	a, err := fdblitetest.ReadKeyAudit(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := fdblitetest.StopKeyAudit(db); err != nil {
		t.Fatal(err)
	}
	if a.Transactions != 10 {
		t.Errorf("Transactions = %d, want 10", a.Transactions)
	}
	if len(a.Writes) != 11 || string(a.Writes[0].Begin) != string(shared) || a.Writes[0].Count != 10 || a.Writes[1].Count != 1 {
		t.Errorf("Writes = %+v, want the shared key 10 times first, then 10 own keys once", a.Writes)
	}
	if len(a.Reads) != 1 || string(a.Reads[0].Begin) != string(shared) || a.Reads[0].Count != 10 {
		t.Errorf("Reads = %+v, want the shared key 10 times", a.Reads)
	}
	after, err := fdblitetest.ReadKeyAudit(db)
	if err != nil {
		t.Fatal(err)
	}
	if after.Transactions != 0 {
		t.Errorf("after StopKeyAudit: %d transactions, want 0", after.Transactions)
	}
}
