package fdyno_test

import (
	"fmt"
	"sync/atomic"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// A RetryLoop runs FoundationDB's retry loop with hooks: here every
// attempt gets a timeout and every transaction and failed attempt is
// counted, as a metrics layer would. Operations given it run in
// transactions of their own, as with an fdb.Database: idempotent, in the
// same round trips.
func ExampleRetryLoop() {
	db, root := exampleDB("RetryLoop")
	var transactions, failures atomic.Int64
	loop := fdyno.RetryLoop{
		DB:    db,
		Begin: func(write bool) { transactions.Add(1) },
		Attempt: func(tr fdb.Transaction, write bool) error {
			return tr.Options().SetTimeout(5000) // milliseconds, retries included
		},
		Failed: func(err error, write, retried bool) { failures.Add(1) },
	}
	music, err := fdyno.Open(loop, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	song := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day")}
	_, _ = music.Put(loop, fdyno.PutInput{Item: song})
	out, _ := music.Get(loop, fdyno.GetInput{Key: song})
	fmt.Println(out.Item["SongTitle"].S(), transactions.Load(), failures.Load())
	// Output:
	// Happy Day 3 0
}

// Transact runs a function of several operations as fdyno runs one:
// through the Transactor's retry loop, each attempt with FoundationDB's
// automatic_idempotency, so a commit reported as commit_unknown_result is
// not applied twice.
func ExampleTransact() {
	db, root := exampleDB("Transact")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	song := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Counted")}
	for range 2 {
		_, err := fdyno.Transact(db, func(tr fdb.Transaction) (any, error) {
			if _, err := music.Update(tr, fdyno.UpdateInput{Key: song, UpdateExpression: "ADD Plays :one",
				ExpressionAttributeValues: map[string]fdyno.Value{":one": fdyno.N("1")}}); err != nil {
				return nil, err
			}
			return music.Update(tr, fdyno.UpdateInput{Key: song, UpdateExpression: "SET Played = :yes",
				ExpressionAttributeValues: map[string]fdyno.Value{":yes": fdyno.Bool(true)}})
		})
		if err != nil {
			panic(err)
		}
	}
	out, _ := music.Get(db, fdyno.GetInput{Key: song})
	fmt.Println(out.Item["Plays"].N(), out.Item["Played"])
	// Output:
	// 2 {"BOOL":true}
}

// ReadTransact reads several tables at one read version: a Get and a
// count that agree, whatever commits meanwhile.
func ExampleReadTransact() {
	db, root := exampleDB("ReadTransact")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	for _, title := range []string{"One", "Two"} {
		if _, err := music.Put(db, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S(title)}}); err != nil {
			panic(err)
		}
	}
	type view struct {
		found bool
		songs int64
	}
	v, err := fdyno.ReadTransact(db, func(tr fdb.ReadTransaction) (view, error) {
		got, err := music.Get(tr, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Two")}})
		if err != nil {
			return view{}, err
		}
		c, err := music.Count(tr)
		return view{found: got.Item != nil, songs: c.ItemCount}, err
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(v.found, v.songs)
	// Output:
	// true 2
}
