package dcb_test

import (
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/dcb"
)

// A read model in an fdyno table that cannot drift from the events.
//
// Inline: the append and the table update commit in one transaction, so
// the table counts each event exactly once.
//
// Asynchronous: a consumer reads events after its checkpoint and writes
// its table updates and its new checkpoint in one transaction. A crash
// before the commit loses both, so the next run applies the same events,
// once.
func Example_projection() {
	db, store := exampleStore("projection")
	root := []string{"dcb-examples", "projection-tables"}
	if _, err := directory.Root().Remove(db, root); err != nil {
		panic(err)
	}
	courses, err := fdyno.Open(db, "Courses", fdyno.WithRoot(root...), fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))
	if err != nil {
		panic(err)
	}
	add := func(tr fdb.Transaction, pk, attr string) error {
		_, err := courses.Update(tr, fdyno.UpdateInput{
			Key:                       fdyno.Item{"pk": fdyno.S(pk)},
			UpdateExpression:          "ADD " + attr + " :one",
			ExpressionAttributeValues: map[string]fdyno.Value{":one": fdyno.NInt(1)},
		})
		return err
	}

	// Inline: event and read model in one transaction.
	for _, student := range []string{"s1", "s2"} {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			ev := dcb.Event{Type: "StudentSubscribed", Tags: []string{"course:c1", "student:" + student}}
			if _, err := store.Append(tr, []dcb.Event{ev}, nil); err != nil {
				return nil, err
			}
			return nil, add(tr, "course:c1", "subscribed")
		})
		if err != nil {
			panic(err)
		}
	}

	// Asynchronous: a consumer with its checkpoint in the same table.
	errCrash := errors.New("crash before commit")
	consume := func(crash bool) error {
		_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			cp, err := courses.Get(tr, fdyno.GetInput{Key: fdyno.Item{"pk": fdyno.S("checkpoint")}})
			if err != nil {
				return nil, err
			}
			var after dcb.Position
			if cp.Item != nil {
				if after, err = dcb.ParsePosition(cp.Item["pos"].S()); err != nil {
					return nil, err
				}
			}
			q := dcb.Items(dcb.QueryItem{Types: []string{"StudentSubscribed"}})
			for e, err := range store.Read(tr, q, dcb.ReadOptions{After: after, Limit: 100}) {
				if err != nil {
					return nil, err
				}
				if err := add(tr, e.Tags[0], "seen"); err != nil {
					return nil, err
				}
				after = e.Position
			}
			if _, err := courses.Put(tr, fdyno.PutInput{Item: fdyno.Item{"pk": fdyno.S("checkpoint"), "pos": fdyno.S(after.String())}}); err != nil {
				return nil, err
			}
			if crash {
				return nil, errCrash // nothing of this transaction commits
			}
			return nil, nil
		})
		return err
	}
	fmt.Println(consume(true))
	fmt.Println(consume(false))
	fmt.Println(consume(false)) // nothing new: applies nothing

	out, _ := courses.Get(db, fdyno.GetInput{Key: fdyno.Item{"pk": fdyno.S("course:c1")}})
	fmt.Println("subscribed", out.Item["subscribed"].N(), "seen", out.Item["seen"].N())
	// Output:
	// crash before commit
	// <nil>
	// <nil>
	// subscribed 2 seen 2
}
