// Package fdyno maps DynamoDB's data model onto FoundationDB.
//
// # Quick start
//
// Items are maps of attribute names to values of DynamoDB's ten types. Build
// them from Go structs with [Marshal] and read them back with [Unmarshal]:
//
//	type Song struct {
//		Artist string `fdyno:"pk"`
//		Title  string `fdyno:"sk"`
//		Year   int    `dynamodbav:"year"`
//	}
//	item, err := fdyno.Marshal(Song{"Nina Simone", "Feeling Good", 1965})
//	var s Song
//	err = fdyno.Unmarshal(item, &s)
//
// or directly from values:
//
//	item := fdyno.Item{"pk": fdyno.S("user#1"), "score": fdyno.N("1.5"), "tags": fdyno.SS("a", "b")}
//
// # Tables and items
//
// [Open] opens a table, creating it from a [TableSchema] given with
// [WithSchema] if it does not exist. Its handle, a *[Table], runs
// DynamoDB's item operations with DynamoDB's request and response shapes:
//
//	fdb.MustAPIVersion(730)
//	db := fdb.MustOpenDefault()
//	music, err := fdyno.Open(db, "Music", fdyno.WithSchema(fdyno.TableSchema{
//		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "Artist", KeyType: fdyno.KeyTypeHash}},
//		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Artist", AttributeType: fdyno.ScalarAttributeTypeS}},
//	}))
//	_, err = music.Put(db, fdyno.PutInput{Item: item, ConditionExpression: "attribute_not_exists(Artist)"})
//	out, err := music.Get(db, fdyno.GetInput{Key: key, ProjectionExpression: "Info.Genre"})
//	_, err = music.Update(db, fdyno.UpdateInput{Key: key, UpdateExpression: "ADD Plays :one",
//		ExpressionAttributeValues: map[string]fdyno.Value{":one": fdyno.NInt(1)}})
//	_, err = music.Delete(db, fdyno.DeleteInput{Key: key})
//
// [Table.Put], [Table.Update] and [Table.Delete] take ConditionExpression,
// ExpressionAttributeNames/Values, ReturnValues and
// ReturnValuesOnConditionCheckFailure; [Table.Get] takes a
// ProjectionExpression. [Table.Describe], [ListTables] and [DeleteTable]
// complete the table API. Tables live in the directory layer at
// dynodb/<table> (see [WithRoot]); keys.go documents the keyspace.
//
// # Transactions and retries
//
// Writes take an fdb.Transactor and reads an fdb.ReadTransactor. Given an
// fdb.Database, or any Transactor that runs functions in transactions of
// its own (a tracing or metrics wrapper of a database, a [RetryLoop]), an
// operation runs its own transaction and retries it on FoundationDB's
// retryable errors. Given an fdb.Transaction, it joins the caller's
// transaction and commits (or rolls back) with the caller's other writes:
//
//	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
//		if _, err := music.Delete(tr, del); err != nil {
//			return nil, err
//		}
//		return music.Put(tr, put)
//	})
//
// Every request is validated before its transaction is touched, and the
// checks that need the stored item (conditions, update results, the item
// size after an update) run before the first write: an operation that
// returns an error has written nothing in the transaction. FoundationDB
// errors are returned wrapped so that errors.As finds the fdb.Error (and
// Database.Transact retries it); fdyno's DynamoDB-named errors never wrap
// one. A retried transaction runs its operations again. Every transaction
// fdyno runs for an operation sets FoundationDB's automatic_idempotency
// option, so a commit that applied but reported commit_unknown_result is
// never applied again; a caller's own transaction keeps the options the
// caller gave it, and should set that one too, or an ADD or a conditional
// create may apply twice ([Transact] does it for a function of yours; a
// TransactWrite can carry a ClientRequestToken instead). The round trips
// of an operation are the same whoever owns its transaction.
//
// # Batches, transactions and TTL
//
// [BatchGet] and [TransactGet] read items of several tables at one read
// version with every read in flight at once, and [QueryBatch] reads a
// page of each of several Queries so, in one wave of range reads;
// [BatchWrite] and [BatchWriteAll] put and delete whole items in as few
// transactions as FoundationDB's limits allow; [TransactWrite] applies ConditionCheck,
// Put, Update and Delete actions across tables all or nothing, reporting
// a reason per action in a *[TransactionCanceledError]. A table's
// TimeToLiveAttribute marks items for expiry, and [Table.SweepExpired]
// deletes them through the write path.
//
// # Change streams
//
// A table whose schema sets StreamViewType records every change (Put,
// Update, Delete) as a [StreamRecord], written in the change's own
// transaction, keyed by FoundationDB's commit versionstamp: the stream is
// totally ordered, never misses a change and never invents one.
// [Table.GetRecords] and [Table.Records] read it after a sequence number;
// [Table.Tail] delivers records as they commit, waiting on FoundationDB
// watches; a named [Consumer] processes records exactly once by advancing
// its checkpoint in the transaction of its own writes; [Table.TrimStream]
// removes old records, never before a registered consumer has them; a
// [Feed] merges several tables' streams into one order. TableSchema's
// StreamShards spreads a busy stream over several key ranges.
//
// # Guarantees
//
//  1. Every operation is strictly serializable: it is one FoundationDB
//     transaction, or part of the caller's.
//  2. A table handle never acts on a stale schema: each operation reads
//     FoundationDB's `\xff/metadataVersion` in its transaction and reloads
//     the schema when it changed (a Get that finds its item needs no check:
//     the item proves its table exists); every schema change bumps it, and
//     writes conflict with a concurrent DeleteTable or index change.
//  3. All writes of an item go through one write path (write.go), which
//     writes the item's secondary index entries and its change record in
//     the same transaction: an index, local or global, is never stale
//     (index.go), and the stream never misses or invents a change
//     (stream.go).
//  4. A large item is stored as a manifest plus chunks (chunk.go); its
//     chunks are read in parallel, checked by length and CRC-32C, and
//     never orphaned by an overwrite, update or delete.
//  5. A BatchGet, TransactGet or QueryBatch reads at one read version; a
//     TransactWrite is one FoundationDB transaction (or part of yours) and
//     writes nothing unless every action succeeds; a BatchWrite
//     transaction writes whole items only.
//  6. A TransactWrite with a ClientRequestToken applies at most once
//     within [ClientRequestTokenWindow], however often it is retried.
//  7. The TTL sweeper deletes an item only if it has expired in the
//     deleting transaction.
//
// # Items and values
//
// [Value] covers S, N, B, BOOL, NULL, M, L, SS, NS and BS, with a
// constructor and an accessor of the same name for each ([S] and
// [Value.S], [NS] and [Value.NS], …). [Item.Validate] applies DynamoDB's
// rules (attribute names of 1 to 65535 bytes, nesting at most 32 levels,
// non-empty sets without duplicates, legal numbers) and reports a
// *[ValidationError] naming the attribute path; [Item.Size] computes the
// size DynamoDB charges against its 400 KB item limit.
//
// # Numbers
//
// N values are exact decimals under DynamoDB's rules: up to 38 significant
// digits and magnitudes from 1E-130 to 9.9999999999999999999999999999999999999E+125,
// normalised the way DynamoDB returns them ("1e3" is "1000", "-0" is "0").
// Decimal arithmetic uses github.com/cockroachdb/apd/v3 with a 38-digit
// context, and, like DynamoDB, fails rather than round.
//
// # Storage formats
//
// Items are stored in a compact, deterministic binary encoding
// ([EncodeItem], [DecodeItem]) that starts with a format version byte;
// testdata/codec_golden.txt freezes it. Key attribute values are
// FoundationDB tuple elements whose byte order is DynamoDB's order: S and B
// by bytes, N by numeric value. keys.go documents the keyspace.
//
// # Differences from DynamoDB
//
// fdyno follows DynamoDB's API: its operations, parameters, limits, error
// names and answers. Where it differs, it is mostly because FoundationDB
// gives more (strongly consistent reads on every index, transactions
// bounded by FoundationDB's 10 MB and 5 seconds rather than DynamoDB's
// counts, a change stream ordered across the whole table and kept until
// trimmed) or because a DynamoDB behaviour only manages DynamoDB's own
// servers (table states, capacity, shard lineage). The repository's
// docs/differences.md is the one list of every difference, and why.
package fdyno
