package fdyno_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// musicStream is the Music table with a NEW_AND_OLD_IMAGES stream.
func musicStream(shards int) fdyno.TableSchema {
	s := musicSchema
	s.StreamViewType = fdyno.StreamViewTypeNewAndOldImages
	s.StreamShards = shards
	return s
}

// Every change to a table with a stream writes a change record in the
// same transaction; GetRecords reads them in commit order.
func ExampleTable_GetRecords() {
	db, root := exampleDB("GetRecords")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicStream(1)))
	if err != nil {
		panic(err)
	}
	key := fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Today")}
	song := fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Today"), "Plays": fdyno.NInt(1)}
	_, _ = music.Put(db, fdyno.PutInput{Item: song})
	_, _ = music.Update(db, fdyno.UpdateInput{Key: key, UpdateExpression: "ADD Plays :one",
		ExpressionAttributeValues: map[string]fdyno.Value{":one": fdyno.NInt(1)}})
	_, _ = music.Delete(db, fdyno.DeleteInput{Key: key})

	out, err := music.GetRecords(db, fdyno.GetRecordsInput{Limit: 10})
	if err != nil {
		panic(err)
	}
	plays := func(image fdyno.Item) string {
		if image == nil {
			return "-"
		}
		return image["Plays"].N()
	}
	for _, r := range out.Records {
		fmt.Println(r.EventName, plays(r.OldImage), plays(r.NewImage))
	}
	// Resume after the last record: nothing new yet.
	next, _ := music.GetRecords(db, fdyno.GetRecordsInput{ExclusiveStartSequenceNumber: out.LastEvaluatedSequenceNumber})
	fmt.Println(len(next.Records))
	// Output:
	// INSERT - 1
	// MODIFY 1 2
	// REMOVE 2 -
	// 0
}

// A tail delivers records as they commit, waiting on FoundationDB watches
// in between; cancel its context to stop it.
func ExampleTable_Tail() {
	db, root := exampleDB("Tail")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicStream(4)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for _, title := range []string{"One", "Two", "Three"} {
			_, _ = music.Put(db, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("Band " + title), "SongTitle": fdyno.S(title)}})
		}
	}()
	n := 0
	for r, err := range music.Tail(ctx, db, "") {
		if err != nil {
			panic(err)
		}
		fmt.Println(r.EventName, r.Keys["SongTitle"].S())
		if n++; n == 3 {
			break
		}
	}
	// Output:
	// INSERT One
	// INSERT Two
	// INSERT Three
}

// A named consumer's handler writes its own effects in the transaction
// that advances the consumer's checkpoint, so each record takes effect
// exactly once, even across crashes and retries.
func ExampleConsumer_ProcessBatch() {
	db, root := exampleDB("Consumer")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicStream(1)))
	counts, _ := fdyno.Open(db, "PlayCounts", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "Artist", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Artist", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))
	for _, title := range []string{"A", "B", "C"} {
		_, _ = music.Put(db, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S(title)}})
	}
	songs, _ := music.Consumer("song-counter")
	count := func(tr fdb.Transaction, recs []fdyno.StreamRecord) error {
		for _, r := range recs {
			if r.EventName != fdyno.EventNameInsert {
				continue
			}
			_, err := counts.Update(tr, fdyno.UpdateInput{Key: fdyno.Item{"Artist": r.Keys["Artist"]},
				UpdateExpression: "ADD Songs :one", ExpressionAttributeValues: map[string]fdyno.Value{":one": fdyno.NInt(1)}})
			if err != nil {
				return err
			}
		}
		return nil
	}
	for {
		n, err := songs.ProcessBatch(db, 2, count)
		if err != nil {
			panic(err)
		}
		fmt.Println("processed", n)
		if n == 0 {
			break
		}
	}
	out, _ := counts.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S("Acme Band")}})
	fmt.Println(out.Item["Songs"].N())
	// Output:
	// processed 2
	// processed 1
	// processed 0
	// 3
}

// A feed merges several tables' streams into one commit order.
func ExampleNewFeed() {
	db, root := exampleDB("Feed")
	a, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicStream(1)))
	b, _ := fdyno.Open(db, "Archive", root, fdyno.WithSchema(musicStream(2)))
	feed, _ := fdyno.NewFeed(a, b)
	put := func(t *fdyno.Table, title string) {
		_, _ = t.Put(db, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("X"), "SongTitle": fdyno.S(title)}})
	}
	put(a, "first")
	put(b, "second")
	put(a, "third")
	for r, err := range feed.Records(context.Background(), db, nil) {
		if err != nil {
			panic(err)
		}
		fmt.Println(r.TableName, r.Keys["SongTitle"].S())
	}
	// Output:
	// Music first
	// Archive second
	// Music third
}

// TrimStream removes old records in bounded batches, but never records a
// registered consumer has not processed yet, unless forced.
func ExampleTable_TrimStream() {
	db, root := exampleDB("Trim")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicStream(1)))
	for _, title := range []string{"A", "B", "C", "D", "E"} {
		_, _ = music.Put(db, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("X"), "SongTitle": fdyno.S(title)}})
	}
	reader, _ := music.Consumer("reader")
	_ = reader.Register(db, "")
	_, _ = reader.ProcessBatch(db, 2, func(fdb.Transaction, []fdyno.StreamRecord) error { return nil })

	out, _ := music.TrimStream(context.Background(), db, fdyno.TrimStreamInput{KeepLast: 1})
	fmt.Println("trimmed behind the consumer:", out.Trimmed)
	out, _ = music.TrimStream(context.Background(), db, fdyno.TrimStreamInput{KeepLast: 1, Force: true})
	fmt.Println("forced:", out.Trimmed)
	_, err := reader.ProcessBatch(db, 0, func(fdb.Transaction, []fdyno.StreamRecord) error { return nil })
	fmt.Println(errors.Is(err, fdyno.ErrTrimmedDataAccess))
	// Output:
	// trimmed behind the consumer: 2
	// forced: 2
	// true
}
