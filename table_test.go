package fdyno

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

func TestOpenCreatesAndReopens(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	if _, err := Open(db, "Music", root); !errors.Is(err, ErrResourceNotFound) {
		t.Fatalf("Open(missing, no schema) = %v, want ErrResourceNotFound", err)
	}
	tbl := mustOpen(t, db, "Music", root, WithSchema(hashRange))
	// Same schema, listed in another order: compatible.
	reordered := hashRange
	reordered.AttributeDefinitions = []AttributeDefinition{{"sk", ScalarAttributeTypeN}, {"pk", ScalarAttributeTypeS}}
	if _, err := Open(db, "Music", root, WithSchema(reordered)); err != nil {
		t.Fatalf("reopen with the same schema: %v", err)
	}
	if _, err := Open(db, "Music", root); err != nil {
		t.Fatalf("reopen without schema: %v", err)
	}
	if _, err := Open(db, "Music", root, WithSchema(hashOnly)); !errors.Is(err, ErrResourceInUse) {
		t.Fatalf("reopen with another schema = %v, want ErrResourceInUse", err)
	}
	d, err := tbl.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hashRange.canonical(), d.TableSchema); diff != "" || d.TableName != "Music" {
		t.Errorf("Describe() mismatch (-want +got):\n%s", diff)
	}
}

func TestListAndDeleteTable(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	for _, name := range []string{"b-table", "a.table", "c_table"} {
		if _, err := Open(db, name, root, WithSchema(hashOnly)); err != nil {
			t.Fatal(err)
		}
	}
	names, err := ListTables(db, root)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.table", "b-table", "c_table"}, names); diff != "" {
		t.Errorf("ListTables() mismatch (-want +got):\n%s", diff)
	}
	if err := DeleteTable(db, "b-table", root); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTable(db, "b-table", root); !errors.Is(err, ErrResourceNotFound) {
		t.Errorf("DeleteTable(again) = %v, want ErrResourceNotFound", err)
	}
	names, _ = ListTables(db, root)
	if slices.Contains(names, "b-table") {
		t.Errorf("ListTables() after delete = %q", names)
	}
	empty, err := ListTables(db, WithRoot("fdyno-test-no-such-root"))
	if err != nil || len(empty) != 0 {
		t.Errorf("ListTables(missing root) = %q, %v; want empty", empty, err)
	}
}

// A handle never acts on a stale schema: deleting a table through one
// handle is seen by the next operation of another, and a
// table recreated with another key schema is picked up.
func TestStaleHandleSeesDeleteAndRecreate(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	h1 := mustOpen(t, db, "T01", root, WithSchema(hashOnly))
	h2 := mustOpen(t, db, "T01", root)
	key := Item{"pk": S("a")}
	if _, err := h1.Put(db, PutInput{Item: Item{"pk": S("a"), "v": N("1")}}); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTable(db, "T01", root); err != nil {
		t.Fatal(err)
	}
	if _, err := h2.Get(db, GetInput{Key: key}); !errors.Is(err, ErrResourceNotFound) {
		t.Fatalf("Get through a handle of a deleted table = %v, want ErrResourceNotFound", err)
	}
	if _, err := h1.Put(db, PutInput{Item: key}); !errors.Is(err, ErrResourceNotFound) {
		t.Fatalf("Put through a handle of a deleted table = %v, want ErrResourceNotFound", err)
	}
	// Recreated with a numeric hash key: the old handle validates against
	// the new schema inside its transaction.
	numeric := TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}}, AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeN}}}
	if _, err := Open(db, "T01", root, WithSchema(numeric)); err != nil {
		t.Fatal(err)
	}
	if _, err := h2.Put(db, PutInput{Item: key}); !errors.Is(err, ErrValidation) {
		t.Fatalf("Put with an S key into a recreated N-keyed table = %v, want ErrValidation", err)
	}
	// That transaction also refreshed h2's cache, so requests with N keys
	// now pass validation before their transactions.
	if out, err := h2.Get(db, GetInput{Key: Item{"pk": N("1")}}); err != nil || out.Item != nil {
		t.Fatalf("Get(N key) after reload = %v, %v; want no item", out, err)
	}
	if _, err := h2.Put(db, PutInput{Item: Item{"pk": N("7")}}); err != nil {
		t.Fatalf("Put(N) after reload: %v", err)
	}
}

func TestSchemaValidation(t *testing.T) {
	gsi := func(name string, p Projection) GlobalSecondaryIndex {
		return GlobalSecondaryIndex{IndexName: name, KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: p}
	}
	withG := func(s TableSchema, ix ...GlobalSecondaryIndex) TableSchema {
		s = s.clone()
		s.AttributeDefinitions = append(s.AttributeDefinitions, AttributeDefinition{"g", ScalarAttributeTypeS})
		s.GlobalSecondaryIndexes = ix
		return s
	}
	tests := []struct {
		name   string
		schema TableSchema
		ok     bool
	}{
		{"hash only", hashOnly, true},
		{"hash and range", hashRange, true},
		{"no key schema", TableSchema{AttributeDefinitions: hashOnly.AttributeDefinitions}, false},
		{"range first", TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeRange}}, AttributeDefinitions: hashOnly.AttributeDefinitions}, false},
		{"undefined key attribute", TableSchema{KeySchema: []KeySchemaElement{{"x", KeyTypeHash}}, AttributeDefinitions: hashOnly.AttributeDefinitions}, false},
		{"unused definition", TableSchema{KeySchema: hashOnly.KeySchema, AttributeDefinitions: hashRange.AttributeDefinitions}, false},
		{"bad attribute type", TableSchema{KeySchema: hashOnly.KeySchema, AttributeDefinitions: []AttributeDefinition{{"pk", "BOOL"}}}, false},
		{"gsi all", withG(hashOnly, gsi("byG", Projection{ProjectionType: ProjectionTypeAll})), true},
		{"gsi include", withG(hashOnly, gsi("byG", Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"a"}})), true},
		{"gsi include without attributes", withG(hashOnly, gsi("byG", Projection{ProjectionType: ProjectionTypeInclude})), false},
		{"gsi keys only with attributes", withG(hashOnly, gsi("byG", Projection{ProjectionType: ProjectionTypeKeysOnly, NonKeyAttributes: []string{"a"}})), false},
		{"gsi short name", withG(hashOnly, gsi("ab", Projection{ProjectionType: ProjectionTypeAll})), false},
		{"gsi no projection", withG(hashOnly, gsi("byG", Projection{})), false},
		{"gsi include twice the same attribute", withG(hashOnly, gsi("byG", Projection{ProjectionType: ProjectionTypeInclude, NonKeyAttributes: []string{"a", "a"}})), false},
		{"duplicate definition", TableSchema{KeySchema: hashOnly.KeySchema, AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"pk", ScalarAttributeTypeS}}}, false},
		{"duplicate index names", withG(hashOnly, gsi("byG", Projection{ProjectionType: ProjectionTypeAll}), gsi("byG", Projection{ProjectionType: ProjectionTypeAll})), false},
		{"lsi without table range key", TableSchema{
			KeySchema: hashOnly.KeySchema, AttributeDefinitions: append(slices.Clone(hashOnly.AttributeDefinitions), AttributeDefinition{"l", ScalarAttributeTypeS}),
			LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "byL", KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"l", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}},
		}, false},
		{"lsi", TableSchema{
			KeySchema: hashRange.KeySchema, AttributeDefinitions: append(slices.Clone(hashRange.AttributeDefinitions), AttributeDefinition{"l", ScalarAttributeTypeS}),
			LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "byL", KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"l", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}},
		}, true},
		{"lsi with another hash key", TableSchema{
			KeySchema: hashRange.KeySchema, AttributeDefinitions: append(slices.Clone(hashRange.AttributeDefinitions), AttributeDefinition{"l", ScalarAttributeTypeS}),
			LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "byL", KeySchema: []KeySchemaElement{{"l", KeyTypeHash}, {"sk", KeyTypeRange}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}},
		}, false},
		{"stream view type", TableSchema{KeySchema: hashOnly.KeySchema, AttributeDefinitions: hashOnly.AttributeDefinitions, StreamViewType: StreamViewTypeNewAndOldImages}, true},
		{"bad stream view type", TableSchema{KeySchema: hashOnly.KeySchema, AttributeDefinitions: hashOnly.AttributeDefinitions, StreamViewType: "ALL"}, false},
		{"ttl", TableSchema{KeySchema: hashOnly.KeySchema, AttributeDefinitions: hashOnly.AttributeDefinitions, TimeToLiveAttribute: "expires"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.schema.validate()
			if tc.ok && err != nil {
				t.Errorf("validate() = %v, want nil", err)
			}
			if !tc.ok && !errors.Is(err, ErrValidation) {
				t.Errorf("validate() = %v, want ErrValidation", err)
			}
		})
	}
}

// A definition no key uses: DynamoDB words it one way for a table without
// indexes and another, listing both sets, for a table with them (the
// texts as AWS answered them, quoted in CloudFormation's and moto's
// reports; moto's responses pick between them by whether indexes exist).
func TestUnusedDefinitionText(t *testing.T) {
	defs := []AttributeDefinition{{"created_at", ScalarAttributeTypeN}, {"id", ScalarAttributeTypeS}, {"user", ScalarAttributeTypeS}}
	noIndex := TableSchema{KeySchema: []KeySchemaElement{{"id", KeyTypeHash}}, AttributeDefinitions: defs[:2]}
	withIndex := TableSchema{KeySchema: []KeySchemaElement{{"id", KeyTypeHash}}, AttributeDefinitions: defs,
		GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "gsi_user-items", KeySchema: []KeySchemaElement{{"user", KeyTypeHash}},
			Projection: Projection{ProjectionType: ProjectionTypeAll}}}}
	for _, tc := range []struct {
		schema TableSchema
		want   string
	}{
		{noIndex, "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{withIndex, "One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [created_at, id, user], keys used: [id, user]"},
	} {
		var ve *ValidationError
		if err := tc.schema.validate(); !errors.As(err, &ve) || ve.Reason != tc.want {
			t.Errorf("validate() = %v, want %q", err, tc.want)
		}
	}
}

// DynamoDB table names: 3 to 255 of [a-zA-Z0-9_.-] (API reference).
func TestTableNames(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"abc", true}, {"My_Table-1.x", true}, {strings.Repeat("a", 255), true},
		{"ab", false}, {strings.Repeat("a", 256), false}, {"has space", false}, {"slash/x", false}, {"ünï", false},
	}
	for _, tc := range tests {
		err := checkTableName("TableName", tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("checkTableName(%q) = %v, want ok=%t", tc.name, err, tc.ok)
		}
	}
	db := fdblitetest.Open(t)
	if _, err := Open(db, "ab", WithSchema(hashOnly)); !errors.Is(err, ErrValidation) {
		t.Errorf("Open(%q) = %v, want ErrValidation", "ab", err)
	}
}

func TestOpenOptions(t *testing.T) {
	db := fdblitetest.Open(t)
	for _, opt := range []Option{WithMaxItemSize(0), WithMaxItemSize(MaxItemSizeLimit + 1), WithChunkThreshold(0), WithChunkThreshold(100_001), WithRoot()} {
		if _, err := Open(db, "Opts", opt, WithSchema(hashOnly)); !errors.Is(err, ErrValidation) {
			t.Errorf("Open with a bad option = %v, want ErrValidation", err)
		}
	}
}

// Creating a table inside the caller's transaction composes with it, and
// an error later in that transaction leaves no table behind.
func TestOpenInCallerTransaction(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	boom := errors.New("boom")
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		tbl, err := Open(tr, "Txn", root, WithSchema(hashOnly))
		if err != nil {
			return nil, err
		}
		// The same transaction changed the metadata version, so it cannot
		// read it; the handle reloads the schema instead.
		if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("x")}}); err != nil {
			return nil, err
		}
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Transact = %v, want boom", err)
	}
	if _, err := Open(db, "Txn", root); !errors.Is(err, ErrResourceNotFound) {
		t.Fatalf("Open after a rolled-back create = %v, want ErrResourceNotFound", err)
	}
}

// A schema change made through one handle (here: adding a GSI, as
// UpdateTable will) is seen by the next operation of every other handle:
// the new index key's type is enforced at once.
func TestStaleHandleSeesIndexChange(t *testing.T) {
	db := fdblitetest.Open(t)
	h1 := newTestTable(t, db, hashOnly)
	h2 := reopen(t, db, h1)
	mustPut(t, db, h2, Item{"pk": S("a"), "g": S("text")})
	indexed := hashOnly.clone()
	indexed.AttributeDefinitions = append(indexed.AttributeDefinitions, AttributeDefinition{"g", ScalarAttributeTypeN})
	indexed.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}}, Projection: Projection{ProjectionType: ProjectionTypeAll}}}
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) { return nil, h1.replaceSchema(tr, indexed) }); err != nil {
		t.Fatal(err)
	}
	// h2 validated the request against its cached schema, then reloaded
	// the schema inside the transaction and rejected the write there.
	if _, err := h2.Put(db, PutInput{Item: Item{"pk": S("b"), "g": S("text")}}); !errors.Is(err, ErrValidation) {
		t.Fatalf("Put(g: S) through a stale handle after adding an N index on g = %v, want ErrValidation", err)
	}
	d, err := h2.Describe(db)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.GlobalSecondaryIndexes) != 1 {
		t.Errorf("Describe() after the index change = %+v", d.TableSchema)
	}
	if _, err := db.Transact(func(tr fdb.Transaction) (any, error) { return nil, h1.replaceSchema(tr, hashRange) }); !errors.Is(err, ErrValidation) {
		t.Errorf("changing the key schema = %v, want ErrValidation", err)
	}
}

// A write racing with DeleteTable conflicts on the table's metadata key
// and is retried, so nothing is written into a removed directory.
func TestWriteConflictsWithDeleteTable(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	tbl := mustOpen(t, db, "Racy", root, WithSchema(hashOnly))
	st := tbl.state.Load()
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Put(tr, PutInput{Item: Item{"pk": S("late")}}); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTable(db, "Racy", root); err != nil {
		t.Fatal(err)
	}
	err = tr.Commit().Get()
	var fe fdb.Error
	if !errors.As(err, &fe) || fe.Code != 1020 {
		t.Fatalf("commit of a put racing DeleteTable = %v, want not_committed (1020)", err)
	}
	left, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.GetRange(st.keys.all, fdb.RangeOptions{}).GetSliceWithError()
	})
	if err != nil || len(left.([]fdb.KeyValue)) != 0 {
		t.Errorf("keys left in the deleted table's directory: %v, %v", left, err)
	}
}

// Concurrent writers through several handles: every acknowledged ADD
// counts exactly once (FoundationDB's conflicts and retries, with no
// faults injected, make each ADD apply once).
func TestConcurrentUpdates(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	const workers, adds = 6, 30
	handles := make([]*Table, workers)
	for w := range handles {
		handles[w] = reopen(t, db, tbl)
	}
	if err := runWorkers(len(handles), func(w int) error {
		h := handles[w]
		for range adds {
			if _, err := h.Update(db, UpdateInput{Key: Item{"pk": S("c")}, UpdateExpression: "ADD n :one", ExpressionAttributeValues: map[string]Value{":one": N("1")}}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, db, tbl, Item{"pk": S("c")})["n"]; !got.Equal(NInt(workers * adds)) {
		t.Errorf("n = %v, want %d", got, workers*adds)
	}
}

// A schema change of another table does not abort a transaction that is
// writing to this one: the metadata version is read at snapshot isolation,
// and only this table's metadata key takes a read conflict.
func TestOtherTablesSchemaChangeDoesNotConflict(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	tbl := mustOpen(t, db, "Mine", root, WithSchema(hashOnly))
	if _, err := tbl.Get(db, GetInput{Key: Item{"pk": S("warm")}}); err != nil {
		t.Fatal(err) // caches the schema with a readable metadata version
	}
	tr, err := db.CreateTransaction()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Update(tr, UpdateInput{Key: Item{"pk": S("k")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db, "Theirs", root, WithSchema(hashOnly)); err != nil {
		t.Fatal(err) // bumps the metadata version
	}
	if err := tr.Commit().Get(); err != nil {
		t.Fatalf("commit after another table's creation = %v, want success", err)
	}
}

// The bindings' directory layer reports a FoundationDB error met while
// allocating a prefix as text; Open recovers the fdb.Error so that
// Transact retries it (fdb.Error codes from FoundationDB's error table).
func TestAllocationError(t *testing.T) {
	wrapped := fmt.Errorf("unable to allocate new directory prefix (%s)", fdb.Error{Code: 1007}.Error())
	var fe fdb.Error
	if err := allocationError(wrapped); !errors.As(err, &fe) || fe.Code != 1007 {
		t.Errorf("allocationError(%q) = %v, want fdb.Error 1007", wrapped, err)
	}
	for _, err := range []error{
		errors.New("unable to allocate new directory prefix (something else)"),
		errors.New("the database has keys stored at the prefix chosen by the automatic prefix allocator"),
		errors.New("unable to allocate new directory prefix (FoundationDB error code x (y))"),
	} {
		if got := allocationError(err); got != err {
			t.Errorf("allocationError(%q) = %v, want it unchanged", err, got)
		}
	}
	direct := fdb.Error{Code: 1020}
	if got := allocationError(direct); got != error(direct) {
		t.Errorf("allocationError(fdb.Error) = %v", got)
	}
}

// Open under injected faults: a fault inside the directory layer's prefix
// allocation is retried like any other (it used to surface as
// "unable to allocate new directory prefix").
func TestOpenUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(11)) // a database of its own: no cleanup needed
	for i := range 100 {
		if _, err := Open(db, "Table"+strconv.Itoa(i), WithRoot("open-under-faults"), WithSchema(hashOnly)); err != nil {
			t.Fatalf("Open #%d under faults: %v", i, err)
		}
	}
}
