// Command demo opens the default FoundationDB database through the official Go
// bindings and exercises it, printing a short report. `make demo` runs it on
// fdblite, the in-process FoundationDB in this repository; linked against the
// real libfdb_c it runs unchanged on a FoundationDB cluster.
//
// It checks every result it prints and exits with status 1 on the first
// surprise, so a clean run is a (small) end-to-end test.
//
// The demo works inside the directory ("fdyno-demo"), which it removes and
// recreates at the start, so it can run again on a persistent cluster. Its
// first steps use fdyno's DynamoDB API (a table at fdyno-demo/Music); the
// rest show the FoundationDB features fdyno rests on.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno"
)

// apiVersion is the FoundationDB API version fdyno speaks.
const apiVersion = 730

// demoPath is the directory the demo owns.
var demoPath = []string{"fdyno-demo"}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

// step is one part of the report: a title and a function returning the lines
// to print under it.
type step struct {
	title string
	run   func(db fdb.Database, dir directory.DirectorySubspace) ([]string, error)
}

func run(w io.Writer) error {
	if err := fdb.APIVersion(apiVersion); err != nil {
		return err
	}
	db, err := fdb.OpenDefault()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "fdyno demo: FoundationDB API %d, default database\n\n", apiVersion)

	start := time.Now()
	dir, lines, err := directories(db)
	if err != nil {
		return fmt.Errorf("directory layer: %w", err)
	}
	report(w, 1, "directory layer", lines)

	steps := append(append(fdynoSteps(), step{"fdyno: change stream and an exactly-once consumer", streamConsumer}), []step{
		{"tuple-keyed sets and gets", tupleKeys},
		{"range reads", rangeReads},
		{"atomic add counter", atomicCounter},
		{"conflict and retry", conflict},
		{"versionstamped keys", versionstamps},
		{"watch", watch},
	}...)
	for i, s := range steps {
		lines, err := s.run(db, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
		report(w, i+2, s.title, lines)
	}
	fmt.Fprintf(w, "all %d checks passed in %v\n", len(steps)+1, time.Since(start).Round(time.Millisecond))
	return nil
}

func report(w io.Writer, n int, title string, lines []string) {
	fmt.Fprintf(w, "%d. %s\n", n, title)
	for _, l := range lines {
		fmt.Fprintf(w, "   %s\n", l)
	}
	fmt.Fprintln(w)
}

// directories creates the demo directory (after removing any earlier one),
// opens it again by path, and checks that both name the same prefix.
func directories(db fdb.Database) (directory.DirectorySubspace, []string, error) {
	removed, err := directory.Root().Remove(db, demoPath)
	if err != nil {
		return nil, nil, err
	}
	created, err := directory.Create(db, demoPath, nil)
	if err != nil {
		return nil, nil, err
	}
	opened, err := directory.Open(db, demoPath, nil)
	if err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(created.Bytes(), opened.Bytes()) {
		return nil, nil, fmt.Errorf("created prefix %s, opened prefix %s", fdb.Printable(created.Bytes()), fdb.Printable(opened.Bytes()))
	}
	list, err := directory.List(db, nil)
	if err != nil {
		return nil, nil, err
	}
	lines := []string{
		fmt.Sprintf("created %q (earlier copy removed: %t) with prefix %s", demoPath, removed, fdb.Printable(created.Bytes())),
		fmt.Sprintf("opened  %q again: same prefix %s", demoPath, fdb.Printable(opened.Bytes())),
		fmt.Sprintf("root directory lists %q", list),
	}
	return created, lines, nil
}

var users = []string{"ada", "bob", "carol", "dave", "eve"}

// tupleKeys stores users under ("user", id) and reads one back.
func tupleKeys(db fdb.Database, dir directory.DirectorySubspace) ([]string, error) {
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		for i, name := range users {
			tr.Set(dir.Pack(tuple.Tuple{"user", int64(i + 1)}), []byte(name))
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	key := dir.Pack(tuple.Tuple{"user", int64(3)})
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(key).Get()
	})
	if err != nil {
		return nil, err
	}
	if got := string(v.([]byte)); got != "carol" {
		return nil, fmt.Errorf("get (\"user\", 3) = %q, want \"carol\"", got)
	}
	t, err := dir.Unpack(key)
	if err != nil {
		return nil, err
	}
	return []string{
		fmt.Sprintf("set %d users in one transaction", len(users)),
		fmt.Sprintf("get %s = %q  (key bytes %s)", t, v, fdb.Printable(key)),
	}, nil
}

// rangeReads reads a slice of the users forward, then the last two in reverse.
func rangeReads(db fdb.Database, dir directory.DirectorySubspace) ([]string, error) {
	us := dir.Sub("user")
	between := fdb.KeyRange{Begin: us.Pack(tuple.Tuple{int64(2)}), End: us.Pack(tuple.Tuple{int64(5)})}
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		fwd, err := rt.GetRange(between, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		rev, err := rt.GetRange(us, fdb.RangeOptions{Limit: 2, Reverse: true}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		return [2][]fdb.KeyValue{fwd, rev}, nil
	})
	if err != nil {
		return nil, err
	}
	res := v.([2][]fdb.KeyValue)
	fwd, err := describe(us, res[0])
	if err != nil {
		return nil, err
	}
	rev, err := describe(us, res[1])
	if err != nil {
		return nil, err
	}
	if want := "2=bob 3=carol 4=dave"; fwd != want {
		return nil, fmt.Errorf("range [2, 5) = %s, want %s", fwd, want)
	}
	if want := "5=eve 4=dave"; rev != want {
		return nil, fmt.Errorf("reverse range, limit 2 = %s, want %s", rev, want)
	}
	return []string{
		fmt.Sprintf("ids [2, 5):               %s", fwd),
		fmt.Sprintf("all ids, reverse, limit 2: %s", rev),
	}, nil
}

func describe(ss subspace.Subspace, kvs []fdb.KeyValue) (string, error) {
	parts := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		t, err := ss.Unpack(kv.Key)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%v=%s", t[0], kv.Value))
	}
	return strings.Join(parts, " "), nil
}

// atomicCounter has several goroutines add to one counter with atomic ADD.
// Atomic operations take no read conflict, so these blind writers never
// conflict with each other.
func atomicCounter(db fdb.Database, dir directory.DirectorySubspace) ([]string, error) {
	const workers, adds = 8, 25
	key := dir.Pack(tuple.Tuple{"counter", "visits"})
	one := make([]byte, 8)
	binary.LittleEndian.PutUint64(one, 1)

	var attempts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range adds {
				if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
					attempts.Add(1) // counts attempts, for the report only
					tr.Add(key, one)
					return nil, nil
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(key).Get()
	})
	if err != nil {
		return nil, err
	}
	got := binary.LittleEndian.Uint64(v.([]byte))
	if got != workers*adds {
		return nil, fmt.Errorf("counter = %d, want %d", got, workers*adds)
	}
	return []string{
		fmt.Sprintf("%d goroutines x %d transactions, each ADD 1 (8-byte little-endian)", workers, adds),
		fmt.Sprintf("counter = %d after %d attempts (no conflicts between blind atomic writes)", got, attempts.Load()),
	}, nil
}

// conflict runs two transactions that read and update the same balance. The
// first commit wins; the second fails with not_committed (1020), OnError
// resets it for a retry, and the retry sees the first one's write.
func conflict(db fdb.Database, dir directory.DirectorySubspace) ([]string, error) {
	key := dir.Pack(tuple.Tuple{"account", "alice"})
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(key, encode(100))
		return nil, nil
	}); err != nil {
		return nil, err
	}

	t1, err := db.CreateTransaction()
	if err != nil {
		return nil, err
	}
	t2, err := db.CreateTransaction()
	if err != nil {
		return nil, err
	}
	deposit := func(tr fdb.Transaction, amount int64) (before int64, err error) {
		v, err := tr.Get(key).Get()
		if err != nil {
			return 0, err
		}
		before = decode(v)
		tr.Set(key, encode(before+amount))
		return before, nil
	}
	b1, err := deposit(t1, 10)
	if err != nil {
		return nil, err
	}
	b2, err := deposit(t2, 20)
	if err != nil {
		return nil, err
	}
	if err := t1.Commit().Get(); err != nil {
		return nil, fmt.Errorf("T1 commit: %w", err)
	}
	lines := []string{
		fmt.Sprintf("T1 and T2 both read balance = %d and write balance+10 / balance+20", b1),
		"T1 commit: ok",
	}
	if b1 != 100 || b2 != 100 {
		return nil, fmt.Errorf("T1 read %d, T2 read %d, want 100 and 100", b1, b2)
	}

	err = t2.Commit().Get()
	var fe fdb.Error
	if !errors.As(err, &fe) || fe.Code != 1020 {
		return nil, fmt.Errorf("T2 commit = %v, want not_committed (1020)", err)
	}
	lines = append(lines, fmt.Sprintf("T2 commit: %v", fe))
	// This is the loop Database.Transact runs for you.
	for attempt := 2; ; attempt++ {
		if err := t2.OnError(fe).Get(); err != nil {
			return nil, fmt.Errorf("T2 OnError: %w", err)
		}
		b2, err = deposit(t2, 20)
		if err == nil {
			err = t2.Commit().Get()
		}
		if err == nil {
			lines = append(lines, fmt.Sprintf("T2 OnError -> retry (attempt %d) read balance = %d, commit: ok", attempt, b2))
			break
		}
		if !errors.As(err, &fe) {
			return nil, err
		}
	}

	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(key).Get()
	})
	if err != nil {
		return nil, err
	}
	if got := decode(v.([]byte)); got != 130 {
		return nil, fmt.Errorf("final balance = %d, want 130", got)
	}
	return append(lines, "final balance = 130: no lost update"), nil
}

func encode(n int64) []byte { return tuple.Tuple{n}.Pack() }

func decode(b []byte) int64 {
	t, err := tuple.Unpack(b)
	if err != nil || len(t) != 1 {
		return -1
	}
	n, _ := t[0].(int64)
	return n
}

// versionstamps appends to a log whose keys carry the commit's versionstamp,
// so entries sort in commit order without any coordination.
func versionstamps(db fdb.Database, dir directory.DirectorySubspace) ([]string, error) {
	logSS := dir.Sub("log")
	var stamps [][]byte
	for _, msg := range []string{"first", "second", "third"} {
		f, err := db.Transact(func(tr fdb.Transaction) (any, error) {
			key, err := logSS.PackWithVersionstamp(tuple.Tuple{tuple.IncompleteVersionstamp(0)})
			if err != nil {
				return nil, err
			}
			tr.SetVersionstampedKey(key, []byte(msg))
			// Ready once the commit succeeds; the future outlives the closure.
			return tr.GetVersionstamp(), nil
		})
		if err != nil {
			return nil, err
		}
		vs, err := f.(fdb.FutureKey).Get()
		if err != nil {
			return nil, fmt.Errorf("GetVersionstamp: %w", err)
		}
		stamps = append(stamps, vs)
	}

	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.GetRange(logSS, fdb.RangeOptions{}).GetSliceWithError()
	})
	if err != nil {
		return nil, err
	}
	kvs := v.([]fdb.KeyValue)
	if len(kvs) != len(stamps) {
		return nil, fmt.Errorf("log has %d entries, want %d", len(kvs), len(stamps))
	}
	lines := []string{fmt.Sprintf("%d commits, each SetVersionstampedKey(log + (incomplete versionstamp,))", len(stamps))}
	for i, kv := range kvs {
		t, err := logSS.Unpack(kv.Key)
		if err != nil {
			return nil, err
		}
		vs, ok := t[0].(tuple.Versionstamp)
		if !ok {
			return nil, fmt.Errorf("log key %s does not hold a versionstamp", fdb.Printable(kv.Key))
		}
		if !bytes.Equal(vs.TransactionVersion[:], stamps[i]) {
			return nil, fmt.Errorf("log entry %d has stamp %x, GetVersionstamp said %x", i, vs.TransactionVersion, stamps[i])
		}
		if i > 0 && bytes.Compare(stamps[i-1], stamps[i]) >= 0 {
			return nil, fmt.Errorf("versionstamps not increasing: %x then %x", stamps[i-1], stamps[i])
		}
		lines = append(lines, fmt.Sprintf("%x  %-6s  (commit version %d, batch %d)",
			vs.TransactionVersion, kv.Value,
			binary.BigEndian.Uint64(vs.TransactionVersion[:8]), binary.BigEndian.Uint16(vs.TransactionVersion[8:])))
	}
	return append(lines, "stamps match GetVersionstamp and increase in commit order"), nil
}

// watch sets a watch on a key, has another transaction change the key, and
// waits for the watch to fire.
func watch(db fdb.Database, dir directory.DirectorySubspace) ([]string, error) {
	key := dir.Pack(tuple.Tuple{"config", "mode"})
	f, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(key, []byte("read-only"))
		// A committed watch outlives its transaction.
		return tr.Watch(key), nil
	})
	if err != nil {
		return nil, err
	}
	w := f.(fdb.FutureNil)
	fired := make(chan error, 1)
	go func() { fired <- w.Get() }()

	select {
	case err := <-fired:
		return nil, fmt.Errorf("watch fired before the key changed (err %v)", err)
	case <-time.After(50 * time.Millisecond):
	}

	changed := time.Now()
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tr.Set(key, []byte("read-write"))
		return nil, nil
	}); err != nil {
		return nil, err
	}
	select {
	case err := <-fired:
		if err != nil {
			return nil, fmt.Errorf("watch: %w", err)
		}
	case <-time.After(10 * time.Second):
		w.Cancel()
		return nil, errors.New("watch did not fire within 10s of the change")
	}
	return []string{
		`watch on ("config", "mode") stayed quiet for 50ms while the value was unchanged`,
		fmt.Sprintf(`another transaction set it to "read-write"; the watch fired %v later`, time.Since(changed).Round(time.Microsecond)),
	}, nil
}

// fdynoSteps returns the steps that use fdyno's table API. They share one
// table handle, opened by the first step.
func fdynoSteps() []step {
	var music *fdyno.Table
	key := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day")}
	return []step{
		{"fdyno: open a table", func(db fdb.Database, _ directory.DirectorySubspace) ([]string, error) {
			var err error
			music, err = fdyno.Open(db, "Music", fdyno.WithRoot(demoPath...), fdyno.WithMaxItemSize(2<<20), fdyno.WithSchema(fdyno.TableSchema{
				KeySchema: []fdyno.KeySchemaElement{
					{AttributeName: "Artist", KeyType: fdyno.KeyTypeHash},
					{AttributeName: "SongTitle", KeyType: fdyno.KeyTypeRange},
				},
				AttributeDefinitions: []fdyno.AttributeDefinition{
					{AttributeName: "Artist", AttributeType: fdyno.ScalarAttributeTypeS},
					{AttributeName: "SongTitle", AttributeType: fdyno.ScalarAttributeTypeS},
				},
			}))
			if err != nil {
				return nil, err
			}
			d, err := music.Describe(db)
			if err != nil {
				return nil, err
			}
			return []string{fmt.Sprintf("table %s at %q, key schema %v", d.TableName, d.Directory, d.KeySchema)}, nil
		}},
		{"fdyno: conditional puts", func(db fdb.Database, _ directory.DirectorySubspace) ([]string, error) {
			in := fdyno.PutInput{
				Item:                fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day"), "Year": fdyno.NInt(2024), "Plays": fdyno.NInt(0)},
				ConditionExpression: "attribute_not_exists(Artist)",
			}
			if _, err := music.Put(db, in); err != nil {
				return nil, err
			}
			in.ReturnValuesOnConditionCheckFailure = fdyno.ReturnValuesOnConditionCheckFailureAllOld
			_, err := music.Put(db, in)
			var ccf *fdyno.ConditionalCheckFailedError
			if !errors.As(err, &ccf) || ccf.Item == nil {
				return nil, fmt.Errorf("second create = %v, want ConditionalCheckFailedError with the item", err)
			}
			return []string{
				`put if attribute_not_exists(Artist): created`,
				fmt.Sprintf("the same put again: %v; the item is %v", err, ccf.Item),
			}, nil
		}},
		{"fdyno: update expression", func(db fdb.Database, _ directory.DirectorySubspace) ([]string, error) {
			out, err := music.Update(db, fdyno.UpdateInput{
				Key:                       key,
				UpdateExpression:          "SET Info = :info ADD Plays :one, Tags :t",
				ConditionExpression:       "Plays < :max",
				ExpressionAttributeValues: map[string]fdyno.Value{":info": fdyno.M(fdyno.Item{"Genre": fdyno.S("Rock"), "Length": fdyno.NInt(219)}), ":one": fdyno.NInt(1), ":t": fdyno.SS("pop", "summer"), ":max": fdyno.NInt(10)},
				ReturnValues:              fdyno.ReturnValueUpdatedNew,
			})
			if err != nil {
				return nil, err
			}
			if !out.Attributes["Plays"].Equal(fdyno.NInt(1)) {
				return nil, fmt.Errorf("Plays = %v, want 1", out.Attributes["Plays"])
			}
			return []string{"SET Info = :info ADD Plays :one, Tags :t (if Plays < :max), UPDATED_NEW:", out.Attributes.String()}, nil
		}},
		{"fdyno: projection", func(db fdb.Database, _ directory.DirectorySubspace) ([]string, error) {
			out, err := music.Get(db, fdyno.GetInput{Key: key, ProjectionExpression: "Info.Genre, Plays"})
			if err != nil {
				return nil, err
			}
			if len(out.Item) != 2 || out.Item["Info"].M()["Genre"].S() != "Rock" {
				return nil, fmt.Errorf("projection = %v", out.Item)
			}
			return []string{"get with ProjectionExpression \"Info.Genre, Plays\": " + out.Item.String()}, nil
		}},
		{"fdyno: large item", func(db fdb.Database, _ directory.DirectorySubspace) ([]string, error) {
			big := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Live Album"), "Audio": fdyno.B(bytes.Repeat([]byte{0xAB, 0xCD}, 512<<10))}
			start := time.Now()
			if _, err := music.Put(db, fdyno.PutInput{Item: big}); err != nil {
				return nil, err
			}
			put := time.Since(start)
			start = time.Now()
			out, err := music.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Live Album")}})
			if err != nil {
				return nil, err
			}
			if !out.Item.Equal(big) {
				return nil, errors.New("large item read back differently")
			}
			return []string{
				fmt.Sprintf("%d KB item (over DynamoDB's 400 KB; this table allows 2 MB) stored as a manifest plus %d KB chunks", big.Size()>>10, fdyno.ChunkSize>>10),
				fmt.Sprintf("put %v, get (all chunks read in parallel) %v: identical", put.Round(time.Microsecond), time.Since(start).Round(time.Microsecond)),
			}, nil
		}},
		{"fdyno: global secondary index", func(db fdb.Database, _ directory.DirectorySubspace) ([]string, error) {
			// Added to a table holding data: CREATING, then backfilled.
			if _, err := music.UpdateTable(db, fdyno.UpdateTableInput{
				AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Year", AttributeType: fdyno.ScalarAttributeTypeN}},
				GlobalSecondaryIndexUpdates: []fdyno.GlobalSecondaryIndexUpdate{{Create: &fdyno.CreateGlobalSecondaryIndexAction{
					IndexName: "ByYear", KeySchema: []fdyno.KeySchemaElement{{AttributeName: "Year", KeyType: fdyno.KeyTypeHash}},
					Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly}}}},
			}); err != nil {
				return nil, err
			}
			p, err := music.Backfill(context.Background(), db, fdyno.BackfillInput{IndexName: "ByYear"})
			if err != nil {
				return nil, err
			}
			q := fdyno.QueryInput{IndexName: "ByYear", KeyConditionExpression: "#y = :y",
				ExpressionAttributeNames: map[string]string{"#y": "Year"}, ExpressionAttributeValues: map[string]fdyno.Value{":y": fdyno.NInt(2024)}}
			before, err := music.Query(db, q)
			if err != nil {
				return nil, err
			}
			// A write is in the index as soon as it commits.
			if _, err := music.Put(db, fdyno.PutInput{Item: fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("New Single"), "Year": fdyno.NInt(2024)}}); err != nil {
				return nil, err
			}
			after, err := music.Query(db, q)
			if err != nil {
				return nil, err
			}
			if before.Count != 1 || after.Count != 2 {
				return nil, fmt.Errorf("ByYear 2024: %d then %d items, want 1 then 2", before.Count, after.Count)
			}
			return []string{
				fmt.Sprintf("UpdateTable added GSI ByYear; Backfill indexed %d existing items and made it ACTIVE", p.ItemsScanned),
				fmt.Sprintf("Query ByYear Year = 2024: %v", before.Items),
				fmt.Sprintf("after one more put, the same query at once: %v", after.Items),
			}, nil
		}},
	}
}

// streamConsumer writes to a table with a change stream while a named
// consumer, running in the background, receives the changes and keeps a
// running total in another table, in the transaction that advances its
// checkpoint.
func streamConsumer(db fdb.Database, _ directory.DirectorySubspace) ([]string, error) {
	root := fdyno.WithRoot(demoPath...)
	orders, err := fdyno.Open(db, "Orders", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "OrderID", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "OrderID", AttributeType: fdyno.ScalarAttributeTypeS}},
		StreamViewType:       fdyno.StreamViewTypeNewAndOldImages,
		StreamShards:         2,
	}))
	if err != nil {
		return nil, err
	}
	totals, err := fdyno.Open(db, "Totals", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "Name", KeyType: fdyno.KeyTypeHash}},
		AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Name", AttributeType: fdyno.ScalarAttributeTypeS}},
	}))
	if err != nil {
		return nil, err
	}
	billing, err := orders.Consumer("billing")
	if err != nil {
		return nil, err
	}
	// What the consumer saw, by sequence number: a retried batch shows
	// the same records again, and only its committed run counts.
	var mu sync.Mutex
	seen := map[string]string{}
	amount := func(it fdyno.Item) int64 {
		n, _ := it["Amount"].Int64() // absent: 0
		return n
	}
	handler := func(tr fdb.Transaction, recs []fdyno.StreamRecord) error {
		var delta int64
		mu.Lock()
		for _, r := range recs {
			delta += amount(r.NewImage) - amount(r.OldImage)
			seen[r.SequenceNumber] = fmt.Sprintf("  %-6s %s  Amount %d → %d", r.EventName, r.Keys["OrderID"].S(), amount(r.OldImage), amount(r.NewImage))
		}
		mu.Unlock()
		_, err := totals.Update(tr, fdyno.UpdateInput{Key: fdyno.Item{"Name": fdyno.S("revenue")}, UpdateExpression: "ADD Amount :d",
			ExpressionAttributeValues: map[string]fdyno.Value{":d": fdyno.NInt(delta)}})
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- billing.Run(ctx, db, 10, handler) }()

	put := func(id string, n int64) error {
		_, err := orders.Put(db, fdyno.PutInput{Item: fdyno.Item{"OrderID": fdyno.S(id), "Amount": fdyno.NInt(n)}})
		return err
	}
	for _, w := range []func() error{
		func() error { return put("o-1", 30) },
		func() error { return put("o-2", 12) },
		func() error { return put("o-1", 45) },
		func() error {
			_, err := orders.Delete(db, fdyno.DeleteInput{Key: fdyno.Item{"OrderID": fdyno.S("o-2")}})
			return err
		},
	} {
		if err := w(); err != nil {
			cancel()
			return nil, err
		}
	}
	// Wait until the consumer's checkpoint reaches the last record.
	out, err := orders.GetRecords(db, fdyno.GetRecordsInput{})
	if err != nil {
		cancel()
		return nil, err
	}
	last := out.Records[len(out.Records)-1].SequenceNumber
	for deadline := time.Now().Add(10 * time.Second); ; {
		ck, _, err := billing.Checkpoint(db)
		if err != nil || ck == last {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			return nil, errors.New("the consumer did not catch up")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("consumer: %v", err)
	}
	got, err := totals.Get(db, fdyno.GetInput{Key: fdyno.Item{"Name": fdyno.S("revenue")}})
	if err != nil {
		return nil, err
	}
	if total := amount(got.Item); total != 45 {
		return nil, fmt.Errorf("revenue total = %d, want 45", total)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(out.Records) {
		return nil, fmt.Errorf("the consumer saw %d records, want %d", len(seen), len(out.Records))
	}
	lines := []string{"consumer \"billing\" received, in commit order (2 stream shards merged):"}
	for _, r := range out.Records {
		lines = append(lines, seen[r.SequenceNumber])
	}
	return append(lines, "revenue total kept by the consumer, exactly once: 45"), nil
}
