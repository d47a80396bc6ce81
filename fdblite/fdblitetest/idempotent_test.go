package fdblitetest_test

import (
	"encoding/binary"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Every commit of a database from OpenFaulty with CommitUnknownResult 1
// applies and then reports commit_unknown_result; through Idempotent the
// transaction has automatic_idempotency, so it is told the commit
// succeeded and its body runs once.
func TestIdempotentRunsOnceUnderUnknownResults(t *testing.T) {
	f := fdblitetest.Faults{Seed: 3, CommitUnknownResult: 1}
	db := fdblitetest.OpenFaulty(t, f)
	if got, err := fdblitetest.ReadFaults(db); err != nil || got != f {
		t.Fatalf("ReadFaults = %+v, %v; want %+v", got, err, f)
	}
	key := fdb.Key("counter")
	one := make([]byte, 8)
	binary.LittleEndian.PutUint64(one, 1)
	runs := 0
	if _, err := (fdblitetest.Idempotent{DB: db}).Transact(func(tr fdb.Transaction) (any, error) {
		runs++
		tr.Add(key, one)
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	v, err := (fdblitetest.Idempotent{DB: db}).ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(key).Get()
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 1 || binary.LittleEndian.Uint64(v.([]byte)) != 1 {
		t.Errorf("body ran %d times, counter %d; want 1 and 1", runs, binary.LittleEndian.Uint64(v.([]byte)))
	}
}
