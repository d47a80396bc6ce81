package fdyno

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// uniqueSchema has a unique GSI on email, a unique GSI with a
// multi-attribute key (org and name: only the pair is unique) and a
// plain GSI on email, which never refuses anything.
var uniqueSchema = TableSchema{
	KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"email", ScalarAttributeTypeS},
		{"org", ScalarAttributeTypeS}, {"name", ScalarAttributeTypeS}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{
		{IndexName: "byEmail", KeySchema: []KeySchemaElement{{"email", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}, Unique: true},
		{IndexName: "byOrgName", KeySchema: []KeySchemaElement{{"org", KeyTypeHash}, {"name", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}, Unique: true},
		{IndexName: "anyEmail", KeySchema: []KeySchemaElement{{"email", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}},
	},
}

// wantViolation checks that err is a refusal by unique index index.
func wantViolation(t *testing.T, what string, err error, index string) {
	t.Helper()
	var uv *UniqueViolationError
	if !errors.Is(err, ErrUniqueViolation) || !errors.As(err, &uv) || uv.Index != index {
		t.Errorf("%s = %v, want a unique violation of %s", what, err, index)
	}
}

func TestUniqueIndex(t *testing.T) {
	db, tbl := openTestTable(t, uniqueSchema)
	user := func(pk, email string) Item {
		it := Item{"pk": S(pk)}
		if email != "" {
			it["email"] = S(email)
		}
		return it
	}
	put := func(it Item) error { _, err := tbl.Put(db, PutInput{Item: it}); return err }
	setEmail := func(pk, email string) error {
		_, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S(pk)}, UpdateExpression: "SET email = :e", ExpressionAttributeValues: map[string]Value{":e": S(email)}})
		return err
	}
	check := func(pk string, want Item) {
		t.Helper()
		if d := cmp.Diff(want, mustGet(t, db, tbl, Item{"pk": S(pk)})); d != "" {
			t.Errorf("item %s (-want +got):\n%s", pk, d)
		}
	}
	if err := put(user("a", "x@example.com")); err != nil {
		t.Fatal(err)
	}
	// A second item with the same email is refused and writes nothing.
	err := put(user("b", "x@example.com"))
	wantViolation(t, "Put(b, x)", err, "byEmail")
	if !errors.Is(err, ErrConditionalCheckFailed) {
		t.Errorf("Put(b, x) = %v, want it to match ErrConditionalCheckFailed too", err)
	}
	check("b", nil)
	// The item that holds the value may rewrite itself.
	if err := put(Item{"pk": S("a"), "email": S("x@example.com"), "n": N("1")}); err != nil {
		t.Errorf("Put(a, x) again: %v", err)
	}
	// Items without the key attribute never collide (sparse).
	for _, pk := range []string{"b", "c"} {
		if err := put(user(pk, "")); err != nil {
			t.Errorf("Put(%s) without email: %v", pk, err)
		}
	}
	// An update that moves a to y frees x.
	if err := setEmail("a", "y@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := setEmail("b", "x@example.com"); err != nil {
		t.Errorf("b takes the freed x: %v", err)
	}
	wantViolation(t, "Update(c, y)", setEmail("c", "y@example.com"), "byEmail")
	check("c", Item{"pk": S("c")})
	// A delete frees the value too.
	if _, err := tbl.Delete(db, DeleteInput{Key: Item{"pk": S("a")}}); err != nil {
		t.Fatal(err)
	}
	if err := setEmail("c", "y@example.com"); err != nil {
		t.Errorf("c takes the freed y: %v", err)
	}
	// A multi-attribute key is unique as a whole: the same org with
	// another name is fine, the same pair is not, and an item with only
	// one of the two has no entry.
	mustPut(t, db, tbl, Item{"pk": S("m1"), "org": S("acme"), "name": S("ann")})
	mustPut(t, db, tbl, Item{"pk": S("m2"), "org": S("acme"), "name": S("bob")})
	mustPut(t, db, tbl, Item{"pk": S("m3"), "org": S("acme")})
	wantViolation(t, "Put(m4, acme, ann)", put(Item{"pk": S("m4"), "org": S("acme"), "name": S("ann")}), "byOrgName")
	check("m4", nil)
	// A condition is judged first; a write that passes it is still refused.
	_, err = tbl.Put(db, PutInput{Item: user("d", "x@example.com"), ConditionExpression: "attribute_not_exists(pk)"})
	wantViolation(t, "Put(d, x) with a condition", err, "byEmail")

	// TransactWrite: two actions claiming one value cancel the
	// transaction, the second's reason naming the index; nothing is
	// written.
	_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
		{Put: &TransactPut{Table: tbl, Item: user("t1", "z@example.com")}},
		{Put: &TransactPut{Table: tbl, Item: user("t2", "z@example.com")}},
	}})
	var tce *TransactionCanceledError
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || tce.CancellationReasons[0].Code != CancellationCodeNone ||
		tce.CancellationReasons[1].Code != CancellationCodeConditionalCheckFailed {
		t.Errorf("TransactWrite of two claims of z = %v, want the second cancelled as ConditionalCheckFailed", err)
	}
	check("t1", nil)
	check("t2", nil)
	// One action may take the value another leaves in the same request.
	if _, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
		{Update: &TransactUpdate{Table: tbl, Key: Item{"pk": S("b")}, UpdateExpression: "SET email = :e", ExpressionAttributeValues: map[string]Value{":e": S("w@example.com")}}},
		{Put: &TransactPut{Table: tbl, Item: user("t3", "x@example.com")}},
	}}); err != nil {
		t.Errorf("TransactWrite moving b off x and t3 onto it: %v", err)
	}
	check("t3", user("t3", "x@example.com"))
	// BatchWrite: a refused request fails the batch, which writes nothing.
	_, err = BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {
		{PutRequest: &PutRequest{Item: user("u1", "new@example.com")}},
		{PutRequest: &PutRequest{Item: user("u2", "x@example.com")}},
	}}})
	wantViolation(t, "BatchWrite with a claim of x", err, "byEmail")
	check("u1", nil)
	checkTable(t, db, tbl)
}

// A Put on a table with a unique index takes the same round trips as
// without: the slot is read in the wave that reads the old item.
func TestUniqueRoundTrips(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	plain := uniqueSchema
	plain.GlobalSecondaryIndexes = []GlobalSecondaryIndex{uniqueSchema.GlobalSecondaryIndexes[2]}
	plain.AttributeDefinitions = plain.AttributeDefinitions[:2]
	tbls := map[string]*Table{"unique": newTestTable(t, db, uniqueSchema), "plain": newTestTable(t, db, plain)}
	for name, tbl := range tbls {
		mustPut(t, db, tbl, Item{"pk": S("warm"), "email": S("warm")})
		got, err := fdblitetest.CountRoundTrips(db, func() error {
			_, err := tbl.Put(db, PutInput{Item: Item{"pk": S("a"), "email": S("a@example.com"), "org": S("o"), "name": S("n")}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := rt(1, 1, 1); got != want {
			t.Errorf("%s: Put round trips = %v, want %v", name, got, want)
		}
	}
}

// Two transactions claiming one email for two items, both with read
// versions taken before either commits: exactly one commits, and the
// other fails with a conflict (fdblite counts it), because the check is
// a read of the slot, not a blind write.
func TestUniqueConcurrentClaims(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tbl := newTestTable(t, db, uniqueSchema)
	before, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	var txs [2]fdb.Transaction
	for i := range txs {
		if txs[i], err = db.CreateTransaction(); err != nil {
			t.Fatal(err)
		}
		txs[i].GetReadVersion().MustGet()
	}
	for i, tx := range txs {
		if _, err := tbl.Put(tx, PutInput{Item: Item{"pk": S("p" + strconv.Itoa(i)), "email": S("same@example.com")}}); err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
	}
	committed := 0
	for _, tx := range txs {
		err := tx.Commit().Get()
		var fe fdb.Error
		switch {
		case err == nil:
			committed++
		case errors.As(err, &fe) && fe.Code == 1020:
		default:
			t.Fatal(err)
		}
	}
	after, err := fdblitetest.ReadStats(db)
	if err != nil {
		t.Fatal(err)
	}
	if committed != 1 || after.Conflicts-before.Conflicts != 1 {
		t.Errorf("committed %d, conflicts %d; want 1 and 1", committed, after.Conflicts-before.Conflicts)
	}
	// The retry of the loser sees the winner's claim.
	wantViolation(t, "the loser's retry", func() error {
		_, err := tbl.Put(db, PutInput{Item: Item{"pk": S("p1"), "email": S("same@example.com")}})
		return err
	}(), "byEmail")
	checkTable(t, db, tbl)
}

// uniqueModel is the model of TestUniqueModel: items by pk.
type uniqueModel map[string]Item

// slotHolder returns the pk of the item other than pk that holds it's
// key in unique index ix ("email" or "org"+"name"), or "".
func (m uniqueModel) slotHolder(pk string, it Item, attrs ...string) string {
	for _, a := range attrs {
		if _, ok := it[a]; !ok {
			return ""
		}
	}
	for other, o := range m {
		if other == pk {
			continue
		}
		same := true
		for _, a := range attrs {
			if v, ok := o[a]; !ok || !v.Equal(it[a]) {
				same = false
			}
		}
		if same {
			return other
		}
	}
	return ""
}

// violates reports whether putting it (at pk) breaks a unique index.
func (m uniqueModel) violates(pk string, it Item) bool {
	return m.slotHolder(pk, it, "email") != "" || m.slotHolder(pk, it, "org", "name") != ""
}

// Puts, updates, deletes, batch writes and transactions against a model:
// a write is refused exactly when the model says it gives a second item a
// unique key, and a refused write changes nothing; counts and index
// entries always match (checkTable).
func TestUniqueModel(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	rapid.Check(t, func(rt *rapid.T) {
		tbl := newTestTable(t, db, uniqueSchema)
		model := uniqueModel{}
		pks := []string{"a", "b", "c", "d"}
		mk := func(pk string) Item {
			it := Item{"pk": S(pk)}
			if rapid.Bool().Draw(rt, "hasEmail") {
				it["email"] = S(rapid.SampledFrom([]string{"x", "y"}).Draw(rt, "email"))
			}
			if rapid.Bool().Draw(rt, "hasOrg") {
				it["org"] = S(rapid.SampledFrom([]string{"o1", "o2"}).Draw(rt, "org"))
			}
			if rapid.Bool().Draw(rt, "hasName") {
				it["name"] = S(rapid.SampledFrom([]string{"n1", "n2"}).Draw(rt, "name"))
			}
			return it
		}
		for range rapid.IntRange(1, 15).Draw(rt, "steps") {
			var err error
			refused := false
			next := uniqueModel{}
			for k, v := range model {
				next[k] = v
			}
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0:
				pk := rapid.SampledFrom(pks).Draw(rt, "pk")
				it := mk(pk)
				_, err = tbl.Put(db, PutInput{Item: it})
				refused = model.violates(pk, it)
				next[pk] = it
			case 1:
				pk := rapid.SampledFrom(pks).Draw(rt, "pk")
				e := rapid.SampledFrom([]string{"x", "y"}).Draw(rt, "email")
				_, err = tbl.Update(db, UpdateInput{Key: Item{"pk": S(pk)}, UpdateExpression: "SET email = :e", ExpressionAttributeValues: map[string]Value{":e": S(e)}})
				it := Item{}
				for k, v := range model[pk] {
					it[k] = v
				}
				it["pk"], it["email"] = S(pk), S(e)
				refused = model.violates(pk, it)
				next[pk] = it
			case 2:
				pk := rapid.SampledFrom(pks).Draw(rt, "pk")
				_, err = tbl.Delete(db, DeleteInput{Key: Item{"pk": S(pk)}})
				delete(next, pk)
			case 3:
				// Two puts in one transaction: refused if the state they
				// leave together breaks it (one may take a key the other
				// gives up; two may not take one).
				p1 := rapid.SampledFrom(pks).Draw(rt, "p1")
				p2 := rapid.SampledFrom(pks).Draw(rt, "p2")
				if p1 == p2 {
					continue
				}
				i1, i2 := mk(p1), mk(p2)
				_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
					{Put: &TransactPut{Table: tbl, Item: i1}}, {Put: &TransactPut{Table: tbl, Item: i2}}}})
				next[p1], next[p2] = i1, i2
				refused = next.violates(p1, i1) || next.violates(p2, i2)
			}
			switch {
			case refused && err == nil:
				rt.Fatalf("write succeeded, want a unique violation")
			case refused && !errors.Is(err, ErrUniqueViolation) && !errors.Is(err, ErrTransactionCanceled):
				rt.Fatalf("write = %v, want a unique violation", err)
			case !refused && err != nil:
				rt.Fatalf("write = %v, want success", err)
			}
			if !refused {
				model = next
			}
			for _, pk := range pks {
				out, err := tbl.Get(db, GetInput{Key: Item{"pk": S(pk)}})
				if err != nil {
					rt.Fatal(err)
				}
				if d := cmp.Diff(model[pk], out.Item); d != "" {
					rt.Fatalf("item %s (-model +got):\n%s", pk, d)
				}
			}
		}
		if p := tableProblems(db, tbl); len(p) > 0 {
			rt.Fatalf("table invariants: %q", p)
		}
	})
}

// Concurrent writers of every kind claim a few emails: whatever commits,
// no two items ever share one, and every index entry and counter matches
// the items (checkTable).
func TestUniqueConcurrentWriters(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		db := fdblitetest.OpenIsolated(t)
		tbl := newTestTable(t, db, uniqueSchema)
		seed := rapid.Int64().Draw(rt, "seed")
		err := runWorkers(4, func(w int) error {
			for i := range 25 {
				h := uint64(seed) + uint64(w*1000+i)*0x9e3779b97f4a7c15
				pk := S(fmt.Sprint("p", h%6))
				email := S(fmt.Sprint("e", (h>>8)%3))
				var err error
				switch (h >> 16) % 3 {
				case 0:
					_, err = tbl.Put(db, PutInput{Item: Item{"pk": pk, "email": email}})
				case 1:
					_, err = tbl.Update(db, UpdateInput{Key: Item{"pk": pk}, UpdateExpression: "SET email = :e", ExpressionAttributeValues: map[string]Value{":e": email}})
				case 2:
					_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
						{Delete: &TransactDelete{Table: tbl, Key: Item{"pk": pk}}},
						{Put: &TransactPut{Table: tbl, Item: Item{"pk": S(fmt.Sprint("q", h%6)), "email": email}}}}})
				}
				if err != nil && !errors.Is(err, ErrUniqueViolation) && !errors.Is(err, ErrTransactionCanceled) {
					return err
				}
			}
			return nil
		})
		if err != nil {
			rt.Fatal(err)
		}
		out, err := tbl.Scan(db, ScanInput{})
		if err != nil {
			rt.Fatal(err)
		}
		holders := map[string]string{}
		for _, it := range out.Items {
			e, ok := it["email"]
			if !ok {
				continue
			}
			if h, dup := holders[e.S()]; dup {
				rt.Fatalf("email %s held by %s and %s", e.S(), h, it["pk"].S())
			}
			holders[e.S()] = it["pk"].S()
		}
		if p := tableProblems(db, tbl); len(p) > 0 {
			rt.Fatalf("table invariants: %q", p)
		}
	})
}

// Adding a unique index to a table whose items share a key fails the
// backfill with their keys and leaves the table as it was; over distinct
// keys it builds, and then refuses duplicates.
func TestUniqueBackfill(t *testing.T) {
	s := hashOnly
	db, tbl := openTestTable(t, s)
	for i, e := range []string{"x", "y", "x", "z"} {
		mustPut(t, db, tbl, Item{"pk": S("p" + strconv.Itoa(i)), "email": S(e)})
	}
	mustPut(t, db, tbl, Item{"pk": S("none")})
	before, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	create := func(name string) {
		t.Helper()
		if _, err := tbl.UpdateTable(db, UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{"email", ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{IndexName: name,
				KeySchema: []KeySchemaElement{{"email", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeKeysOnly}, Unique: true}}}}); err != nil {
			t.Fatal(err)
		}
	}
	create("byEmail")
	// Batches of 2: the duplicate is found across batches.
	_, err = tbl.Backfill(context.Background(), db, BackfillInput{IndexName: "byEmail", BatchSize: 2})
	var dk *DuplicateKeysError
	if !errors.Is(err, ErrUniqueViolation) || !errors.As(err, &dk) || dk.Index != "byEmail" {
		t.Fatalf("Backfill over duplicates = %v, want a *DuplicateKeysError", err)
	}
	if d := cmp.Diff([]Item{{"pk": S("p2")}, {"pk": S("p0")}}, dk.Keys); d != "" {
		t.Errorf("duplicate keys (-want +got):\n%s", d)
	}
	after, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before.TableSchema, after.TableSchema); d != "" || len(after.GlobalSecondaryIndexDescriptions) != 0 {
		t.Errorf("table after the failed backfill (-before +after):\n%s", d)
	}
	checkTable(t, db, tbl)
	// Without the duplicate it builds and then holds.
	if _, err := tbl.Delete(db, DeleteInput{Key: Item{"pk": S("p2")}}); err != nil {
		t.Fatal(err)
	}
	create("byEmail")
	if _, err := tbl.Backfill(context.Background(), db, BackfillInput{IndexName: "byEmail", BatchSize: 2}); err != nil {
		t.Fatal(err)
	}
	_, err = tbl.Put(db, PutInput{Item: Item{"pk": S("p9"), "email": S("z")}})
	wantViolation(t, "Put(p9, z) after the backfill", err, "byEmail")
	checkTable(t, db, tbl)
}
