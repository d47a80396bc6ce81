package fdyno

import (
	"errors"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// Item operations compose with the caller's other writes in one
// transaction, and commit or roll back with it.
func TestComposeWithCallerTransaction(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	other := fdblitetest.UniquePrefix(t, db).Pack(nil)
	mustPut(t, db, tbl, Item{"pk": S("gone")})
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(fdb.Key(other), []byte("raw"))
		if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("a"), "v": N("1")}}); err != nil {
			return nil, err
		}
		if _, err := tbl.Update(tr, UpdateInput{Key: Item{"pk": S("a")}, UpdateExpression: "ADD v :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}}); err != nil {
			return nil, err
		}
		return tbl.Delete(tr, DeleteInput{Key: Item{"pk": S("gone")}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Item{"pk": S("a"), "v": N("2")}, mustGet(t, db, tbl, Item{"pk": S("a")}), itemCmp); diff != "" {
		t.Errorf("item mismatch (-want +got):\n%s", diff)
	}
	if got := mustGet(t, db, tbl, Item{"pk": S("gone")}); got != nil {
		t.Errorf("deleted item = %v", got)
	}

	// A failing operation rolls back the whole Database.Transact.
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("b")}}); err != nil {
			return nil, err
		}
		return tbl.Put(tr, PutInput{Item: Item{"pk": S("a")}, ConditionExpression: "attribute_not_exists(pk)"})
	})
	if !errors.Is(err, ErrConditionalCheckFailed) {
		t.Fatalf("Transact = %v, want ErrConditionalCheckFailed", err)
	}
	if got := mustGet(t, db, tbl, Item{"pk": S("b")}); got != nil {
		t.Errorf("rolled-back put is visible: %v", got)
	}
}

// An error returned by an operation inside the caller's own Transaction
// leaves nothing of that operation written in it: the caller may go on
// and commit the rest: every check comes before the first write.
func TestErrorInCallerTransactionWritesNothing(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly, WithMaxItemSize(1000))
	mustPut(t, db, tbl, Item{"pk": S("k"), "v": N("1"), "big": S("")})
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	// Each fails after reading, inside the transaction.
	failures := []func() error{
		func() error {
			_, err := tbl.Update(tr, UpdateInput{Key: Item{"pk": S("k")}, UpdateExpression: "SET big = :b", ExpressionAttributeValues: map[string]Value{":b": S(strings.Repeat("x", 2000))}})
			return err
		},
		func() error {
			_, err := tbl.Update(tr, UpdateInput{Key: Item{"pk": S("k")}, UpdateExpression: "SET v = :v", ConditionExpression: "v = :v", ExpressionAttributeValues: map[string]Value{":v": N("9")}})
			return err
		},
		func() error {
			_, err := tbl.Update(tr, UpdateInput{Key: Item{"pk": S("k")}, UpdateExpression: "SET missing.x = :v", ExpressionAttributeValues: map[string]Value{":v": N("9")}})
			return err
		},
		func() error {
			_, err := tbl.Delete(tr, DeleteInput{Key: Item{"pk": S("k")}, ConditionExpression: "attribute_not_exists(v)"})
			return err
		},
	}
	for i, f := range failures {
		if err := f(); err == nil {
			t.Fatalf("failure %d succeeded", i)
		}
	}
	if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("other")}}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Commit().Get(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Item{"pk": S("k"), "v": N("1"), "big": S("")}, mustGet(t, db, tbl, Item{"pk": S("k")}), itemCmp); diff != "" {
		t.Errorf("item changed by failed operations (-want +got):\n%s", diff)
	}
	if mustGet(t, db, tbl, Item{"pk": S("other")}) == nil {
		t.Error("the transaction's successful put was lost")
	}
}

// FoundationDB errors stay reachable with errors.As, so Database.Transact
// retries them; DynamoDB-named errors never wrap one.
func TestFDBErrorsPassThrough(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	tr.Cancel()
	_, err = tbl.Get(tr, GetInput{Key: Item{"pk": S("x")}})
	var fe fdb.Error
	if !errors.As(err, &fe) {
		t.Fatalf("Get on a cancelled transaction = %v, want an fdb.Error", err)
	}
	for _, e := range []error{&ConditionalCheckFailedError{}, &ValidationError{}, tableNotFound("x")} {
		if errors.As(e, &fe) {
			t.Errorf("%T wraps an fdb.Error", e)
		}
	}
}
