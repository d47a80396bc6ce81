package fdyno

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"pgregory.net/rapid"
)

// raceTransactor runs before once, between a request's validation (done
// before the transaction) and its transaction: an UpdateTable by another
// handle, as another server would make it, lands in between.
type raceTransactor struct {
	db     fdb.Database
	before func() error
	done   bool
}

func (r *raceTransactor) Transact(f func(fdb.Transaction) (any, error)) (any, error) {
	if !r.done {
		r.done = true
		if err := r.before(); err != nil {
			return nil, err
		}
	}
	return r.db.Transact(f)
}

func (r *raceTransactor) ReadTransact(f func(fdb.ReadTransaction) (any, error)) (any, error) {
	return r.db.ReadTransact(f)
}

// TestWriteValidationRacesUpdateTable: a write is validated before its
// transaction against the schema its handle has cached, and again inside
// the transaction by the same function (writeAction.validate) when the
// schema changed in between. So a write that an UpdateTable overtakes
// (a GSI on g created, of a random type, after validation and before the
// transaction) ends exactly as the same write on a table that had the
// index before it was validated: the same error or none, the same stored
// item, index entries consistent. Every write path is drawn: Put, Update,
// Delete alone, in a TransactWrite and in a BatchWrite.
func TestWriteValidationRacesUpdateTable(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		gType := rapid.SampledFrom([]ScalarAttributeType{ScalarAttributeTypeS, ScalarAttributeTypeN}).Draw(rt, "gType")
		addIndex := UpdateTableInput{
			AttributeDefinitions: []AttributeDefinition{{"g", gType}},
			GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{
				IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}}},
		}
		open := func(name string) *Table {
			tbl, err := Open(db, name+strconv.Itoa(n), root, WithSchema(hashRange))
			if err != nil {
				rt.Fatal(err)
			}
			return tbl
		}
		race, ref := open("Race"), open("Ref")
		key := Item{"pk": S("p"), "sk": N("1")}
		drawG := func(label string) (Value, bool) {
			switch rapid.IntRange(0, 3).Draw(rt, label) {
			case 0:
				return S("s"), true
			case 1:
				return N("7"), true
			case 2:
				return S(""), true
			}
			return Value{}, false
		}
		if rapid.Bool().Draw(rt, "exists") {
			it := Item{"pk": S("p"), "sk": N("1")}
			if g, ok := drawG("initialG"); ok && g.s != "" {
				it["g"] = g // an item the index may have to skip
			}
			for _, tbl := range []*Table{race, ref} {
				if _, err := tbl.Put(db, PutInput{Item: it}); err != nil {
					rt.Fatal(err)
				}
			}
		}
		// The schema change: the index created, and built (ACTIVE) or
		// not yet (CREATING).
		built := rapid.Bool().Draw(rt, "built")
		change := func(h *Table) error {
			if _, err := h.UpdateTable(db, addIndex); err != nil || !built {
				return err
			}
			_, err := h.Backfill(context.Background(), db, BackfillInput{IndexName: "byG"})
			return err
		}
		// The reference table gets it before the write is validated.
		if err := change(ref); err != nil {
			rt.Fatal(err)
		}
		other, err := Open(db, race.name, root) // another server's handle
		if err != nil {
			rt.Fatal(err)
		}

		kind := rapid.SampledFrom([]string{"put", "update", "delete"}).Draw(rt, "kind")
		path := rapid.SampledFrom([]string{"alone", "transact", "batch"}).Draw(rt, "path")
		if kind == "update" && path == "batch" {
			path = "alone"
		}
		g, hasG := drawG("g")
		item := Item{"pk": S("p"), "sk": N("1"), "v": N("1")}
		if hasG {
			item["g"] = g
		}
		update := "SET v = :v"
		values := map[string]Value{":v": N("2")}
		if hasG {
			update += ", g = :g"
			values[":g"] = g
		}
		write := func(tbl *Table, tx fdb.Transactor) error {
			var err error
			switch path + "/" + kind {
			case "alone/put":
				_, err = tbl.Put(tx, PutInput{Item: item})
			case "alone/update":
				_, err = tbl.Update(tx, UpdateInput{Key: key, UpdateExpression: update, ExpressionAttributeValues: values})
			case "alone/delete":
				_, err = tbl.Delete(tx, DeleteInput{Key: key})
			case "transact/put":
				_, err = TransactWrite(tx, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: tbl, Item: item}}}})
			case "transact/update":
				_, err = TransactWrite(tx, TransactWriteInput{TransactItems: []TransactWriteItem{{Update: &TransactUpdate{Table: tbl, Key: key,
					UpdateExpression: update, ExpressionAttributeValues: values}}}})
			case "transact/delete":
				_, err = TransactWrite(tx, TransactWriteInput{TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Table: tbl, Key: key}}}})
			case "batch/put":
				_, err = BatchWrite(tx, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {{PutRequest: &PutRequest{Item: item}}}}})
			case "batch/delete":
				_, err = BatchWrite(tx, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {{DeleteRequest: &DeleteRequest{Key: key}}}}})
			}
			return err
		}
		refErr := write(ref, db)
		raced := false
		raceErr := write(race, &raceTransactor{db: db, before: func() error {
			raced = true
			return change(other)
		}})
		if !raced {
			// Validation refused the write before any transaction: the
			// reference, with the index, must refuse it the same way.
			if raceErr == nil {
				rt.Fatal("the write ran no transaction and returned no error")
			}
			if err := change(other); err != nil {
				rt.Fatal(err)
			}
		}
		if raced {
			expectSameOutcome(rt, refErr, raceErr)
		}
		for _, tbl := range []*Table{race, ref} {
			h, err := Open(db, tbl.name, root)
			if err != nil {
				rt.Fatal(err)
			}
			if !built {
				if _, err := h.Backfill(context.Background(), db, BackfillInput{IndexName: "byG"}); err != nil {
					rt.Fatal(err)
				}
			}
			if p := tableProblems(db, h); len(p) > 0 {
				rt.Fatalf("%s: table invariants: %q", tbl.name, p)
			}
		}
		gr, err := race.Get(db, GetInput{Key: key})
		if err != nil {
			rt.Fatal(err)
		}
		gf, err := ref.Get(db, GetInput{Key: key})
		if err != nil {
			rt.Fatal(err)
		}
		if raced {
			expectItem(rt, "raced item", gf.Item, gr.Item)
		}
		for _, tbl := range []*Table{race, ref} {
			if err := DeleteTable(db, tbl.name, root); err != nil {
				rt.Fatal(err)
			}
		}
	})
}

// expectSameOutcome fails t unless two runs of one write ended the same
// way: both without error, with ValidationExceptions of the same reason,
// or cancellations with the same reasons.
func expectSameOutcome(t *rapid.T, want, got error) {
	t.Helper()
	var wt, gt *TransactionCanceledError
	if errors.As(want, &wt) || errors.As(got, &gt) {
		if !errors.As(want, &wt) || !errors.As(got, &gt) || len(wt.CancellationReasons) != len(gt.CancellationReasons) {
			t.Fatalf("with the index: %v; raced by its creation: %v", want, got)
		}
		for i := range wt.CancellationReasons {
			if w, g := wt.CancellationReasons[i], gt.CancellationReasons[i]; w.Code != g.Code || w.Message != g.Message {
				t.Fatalf("reason %d: with the index %+v; raced by its creation %+v", i, w, g)
			}
		}
		return
	}
	expectSameError(t, "raced by the index's creation", want, got)
}
