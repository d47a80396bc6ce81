package partiql

import (
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// valueCmp compares Values with [fdyno.Value.Equal].
var valueCmp = cmp.Comparer(func(a, b fdyno.Value) bool { return a.Equal(b) })

// musicSchema is the developer guide's "Music" table: Artist and
// SongTitle, with a GSI on Genre.
var musicSchema = fdyno.TableSchema{
	KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "Artist", KeyType: fdyno.KeyTypeHash}, {AttributeName: "SongTitle", KeyType: fdyno.KeyTypeRange}},
	AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "Artist", AttributeType: fdyno.ScalarAttributeTypeS}, {AttributeName: "SongTitle", AttributeType: fdyno.ScalarAttributeTypeS}, {AttributeName: "Genre", AttributeType: fdyno.ScalarAttributeTypeS}},
	GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "ByGenre",
		KeySchema: []fdyno.KeySchemaElement{{AttributeName: "Genre", KeyType: fdyno.KeyTypeHash}}, Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeAll}}},
}

// newPartiQLTable creates the Music table under a root of t's own and
// returns it with an Executor for that root.
func newPartiQLTable(t testing.TB, db fdb.Database) (*fdyno.Table, *Executor) {
	t.Helper()
	root := testRoot(t, db)
	tbl, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tbl, New(root)
}

func song(artist, title string, kv ...any) fdyno.Item {
	it := fdyno.Item{"Artist": fdyno.S(artist), "SongTitle": fdyno.S(title)}
	for i := 0; i < len(kv); i += 2 {
		it[kv[i].(string)] = kv[i+1].(fdyno.Value)
	}
	return it
}

func TestPartiQLPlan(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl, _ := newPartiQLTable(t, db)
	tests := []struct {
		stmt       string
		params     []fdyno.Value
		query      bool
		partitions []string
		sortCond   bool
		filter     bool
		get        bool
	}{
		// The full primary key is one point read.
		{stmt: `SELECT * FROM Music WHERE Artist = 'A' AND SongTitle = 'x' AND n = 1`, query: true, partitions: []string{"A"}, filter: true, get: true},
		{stmt: `SELECT * FROM Music WHERE Artist IN ['A', 'B'] AND SongTitle = 'x'`, query: true, partitions: []string{"A", "B"}, sortCond: true},
		// The developer guide's examples: equality or IN on the partition
		// key is a Query; anything else scans.
		{stmt: `SELECT * FROM Music WHERE Artist = 'A'`, query: true, partitions: []string{"A"}},
		{stmt: `SELECT * FROM Music WHERE Artist = 'A' AND Address = 'x'`, query: true, partitions: []string{"A"}, filter: true},
		{stmt: `SELECT * FROM Music WHERE Artist = 'A' OR Artist = 'B'`, query: true, partitions: []string{"A", "B"}},
		{stmt: `SELECT * FROM Music WHERE Artist IN ['B', 'A', 'B']`, query: true, partitions: []string{"B", "A"}},
		{stmt: `SELECT * FROM Music WHERE 'A' = Artist`, query: true, partitions: []string{"A"}},
		{stmt: `SELECT * FROM Music WHERE Artist = ?`, params: []fdyno.Value{fdyno.S("P")}, query: true, partitions: []string{"P"}},
		{stmt: `SELECT * FROM Music WHERE Artist > 'A'`, query: false, filter: true},
		{stmt: `SELECT * FROM Music WHERE Address = 'x'`, query: false, filter: true},
		{stmt: `SELECT * FROM Music WHERE Artist = 'A' OR Address = 'x'`, query: false, filter: true},
		{stmt: `SELECT * FROM Music`, query: false},
		// The sort-key condition is pushed into the range read.
		{stmt: `SELECT * FROM Music WHERE Artist = 'A' AND SongTitle BETWEEN 'a' AND 'm'`, query: true, partitions: []string{"A"}, sortCond: true},
		{stmt: `SELECT * FROM Music WHERE Artist = 'A' AND begins_with(SongTitle, 'x')`, query: true, partitions: []string{"A"}, sortCond: true},
		{stmt: `SELECT * FROM Music WHERE Artist = 'A' AND 'm' > SongTitle AND SongTitle <> 'b'`, query: true, partitions: []string{"A"}, sortCond: true, filter: true},
		// A constant of another type than the key's is not a key range.
		{stmt: `SELECT * FROM Music WHERE Artist = 'A' AND SongTitle > 5`, query: true, partitions: []string{"A"}, filter: true},
		{stmt: `SELECT * FROM Music WHERE Artist = 5`, query: true},
		// The index's keys decide for FROM "table"."index".
		{stmt: `SELECT * FROM "Music"."ByGenre" WHERE Genre = 'Rock'`, query: true, partitions: []string{"Rock"}},
		{stmt: `SELECT * FROM "Music"."ByGenre" WHERE Artist = 'A'`, query: false, filter: true},
	}
	for _, tc := range tests {
		t.Run(tc.stmt, func(t *testing.T) {
			s, err := parsePartiQL(tc.stmt)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := planSelect(s, tbl, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, p := range pl.partitions {
				parts = append(parts, p[0].S())
			}
			got := []any{pl.query, parts, pl.sortCond != "", pl.filter != "", pl.getKey != nil}
			want := []any{tc.query, tc.partitions, tc.sortCond, tc.filter, tc.get}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plan [query partitions sortCond filter get] mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExecuteStatement(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl, q := newPartiQLTable(t, db)
	for _, it := range []fdyno.Item{
		song("Acme", "A1", "Genre", fdyno.S("Rock"), "n", fdyno.N("1"), "l", fdyno.L(fdyno.N("1")), "ss", fdyno.SS("x", "y"), "m", fdyno.M(fdyno.Item{"nested": fdyno.S("deep")})),
		song("Acme", "A2", "Genre", fdyno.S("Pop"), "n", fdyno.N("2"), "nul", fdyno.Null()),
		song("Acme", "B1", "n", fdyno.N("3")),
		song("Zed", "Z1", "Genre", fdyno.S("Rock"), "n", fdyno.N("4")),
	} {
		if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(stmt string, params ...fdyno.Value) ([]fdyno.Item, error) {
		out, err := q.ExecuteStatement(db, ExecuteStatementInput{Statement: stmt, Parameters: params})
		if err != nil {
			return nil, err
		}
		return out.Items, nil
	}
	titles := func(items []fdyno.Item) []string {
		var s []string
		for _, it := range items {
			s = append(s, it["SongTitle"].S())
		}
		return s
	}
	reads := []struct {
		name   string
		stmt   string
		params []fdyno.Value
		want   []string
	}{
		{"partition", `SELECT * FROM "Music" WHERE Artist = 'Acme'`, nil, []string{"A1", "A2", "B1"}},
		{"key", `SELECT * FROM "Music" WHERE Artist = ? AND SongTitle = ?`, []fdyno.Value{fdyno.S("Acme"), fdyno.S("A2")}, []string{"A2"}},
		{"begins_with", `SELECT * FROM "Music" WHERE Artist = 'Acme' AND begins_with("SongTitle", 'A')`, nil, []string{"A1", "A2"}},
		{"order desc", `SELECT * FROM "Music" WHERE Artist = 'Acme' ORDER BY SongTitle DESC`, nil, []string{"B1", "A2", "A1"}},
		{"filter", `SELECT * FROM "Music" WHERE Artist = 'Acme' AND n >= 2`, nil, []string{"A2", "B1"}},
		{"in", `SELECT * FROM "Music" WHERE Artist IN ['Zed', 'Acme'] AND SongTitle <> 'B1'`, nil, []string{"Z1", "A1", "A2"}},
		{"scan", `SELECT * FROM "Music" WHERE n > 1 AND Genre IS NOT MISSING`, nil, []string{"A2", "Z1"}},
		{"missing", `SELECT * FROM "Music" WHERE Genre IS MISSING`, nil, []string{"B1"}},
		{"functions", `SELECT * FROM "Music" WHERE contains(ss, 'y') AND size(l) = 1 AND attribute_type(m, 'M')`, nil, []string{"A1"}},
		{"index", `SELECT * FROM "Music"."ByGenre" WHERE Genre = 'Rock'`, nil, []string{"A1", "Z1"}},
		{"wrong key type", `SELECT * FROM "Music" WHERE Artist = 5`, nil, nil},
		// In PartiQL, MISSING IS NULL too.
		{"is null", `SELECT * FROM "Music" WHERE Artist = 'Acme' AND nul IS NULL`, nil, []string{"A1", "A2", "B1"}},
		{"is not null", `SELECT * FROM "Music" WHERE Artist = 'Acme' AND Genre IS NOT NULL`, nil, []string{"A1", "A2"}},
		{"not between", `SELECT * FROM "Music" WHERE Artist = 'Acme' AND NOT (n BETWEEN 2 AND 3)`, nil, []string{"A1"}},
	}
	for _, tc := range reads {
		t.Run(tc.name, func(t *testing.T) {
			items, err := exec(tc.stmt, tc.params...)
			if err != nil {
				t.Fatal(err)
			}
			got := titles(items)
			if tc.name == "index" || tc.name == "scan" {
				// An index and a scan read in hash-key order.
				slices.Sort(got)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("items mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("projection", func(t *testing.T) {
		items, err := exec(`SELECT m.nested, SongTitle, nope FROM "Music" WHERE Artist = 'Acme' AND SongTitle = 'A1'`)
		if err != nil {
			t.Fatal(err)
		}
		want := []fdyno.Item{{"nested": fdyno.S("deep"), "SongTitle": fdyno.S("A1")}}
		if diff := cmp.Diff(want, items, valueCmp); diff != "" {
			t.Errorf("projection mismatch (-want +got):\n%s", diff)
		}
	})

	get := func(artist, title string) fdyno.Item {
		out, err := tbl.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S(artist), "SongTitle": fdyno.S(title)}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	t.Run("insert", func(t *testing.T) {
		if _, err := exec(`INSERT INTO "Music" VALUE {'Artist': 'New', 'SongTitle': ?, 'tags': <<'a', 'b'>>, 'l': [1, 'x', NULL]}`, fdyno.S("N1")); err != nil {
			t.Fatal(err)
		}
		want := song("New", "N1", "tags", fdyno.SS("a", "b"), "l", fdyno.L(fdyno.N("1"), fdyno.S("x"), fdyno.Null()))
		if diff := cmp.Diff(want, get("New", "N1"), valueCmp); diff != "" {
			t.Errorf("inserted item mismatch (-want +got):\n%s", diff)
		}
		// INSERT is not an upsert.
		_, err := exec(`INSERT INTO "Music" VALUE {'Artist': 'New', 'SongTitle': 'N1', 'x': 1}`)
		if !errors.Is(err, fdyno.ErrDuplicateItem) {
			t.Fatalf("second INSERT: %v, want ErrDuplicateItem", err)
		}
		if diff := cmp.Diff(want, get("New", "N1"), valueCmp); diff != "" {
			t.Errorf("a failed INSERT changed the item (-want +got):\n%s", diff)
		}
	})
	t.Run("update", func(t *testing.T) {
		items, err := exec(`UPDATE "Music" SET n = n + 10, l = list_append(l, [2]), ss = set_add(ss, <<'z'>>) SET Genre = 'Jazz' REMOVE m WHERE Artist = 'Acme' AND SongTitle = 'A1' RETURNING ALL NEW *`)
		if err != nil {
			t.Fatal(err)
		}
		want := song("Acme", "A1", "Genre", fdyno.S("Jazz"), "n", fdyno.N("11"), "l", fdyno.L(fdyno.N("1"), fdyno.N("2")), "ss", fdyno.SS("x", "y", "z"))
		if diff := cmp.Diff([]fdyno.Item{want}, items, valueCmp); diff != "" {
			t.Errorf("RETURNING ALL NEW mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, get("Acme", "A1"), valueCmp); diff != "" {
			t.Errorf("stored item mismatch (-want +got):\n%s", diff)
		}
		items, err = exec(`UPDATE "Music" SET ss = set_delete(ss, <<'x', 'y'>>) WHERE Artist = 'Acme' AND SongTitle = 'A1' AND n = 11 RETURNING MODIFIED OLD *`)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]fdyno.Item{{"ss": fdyno.SS("x", "y", "z")}}, items, valueCmp); diff != "" {
			t.Errorf("RETURNING MODIFIED OLD mismatch (-want +got):\n%s", diff)
		}
		// The index follows: A1 left the Rock genre.
		items, err = exec(`SELECT SongTitle FROM "Music"."ByGenre" WHERE Genre = 'Jazz'`)
		if err != nil || len(items) != 1 || items[0]["SongTitle"].S() != "A1" {
			t.Errorf("index after UPDATE: %v, %v", items, err)
		}
	})
	t.Run("update missing item", func(t *testing.T) {
		_, err := exec(`UPDATE "Music" SET n = 1 WHERE Artist = 'Nobody' AND SongTitle = 'x'`)
		if !errors.Is(err, fdyno.ErrConditionalCheckFailed) {
			t.Fatalf("got %v, want ErrConditionalCheckFailed", err)
		}
		if get("Nobody", "x") != nil {
			t.Error("UPDATE of a missing item created it")
		}
	})
	t.Run("update false condition returns old", func(t *testing.T) {
		_, err := q.ExecuteStatement(db, ExecuteStatementInput{Statement: `UPDATE "Music" SET n = 1 WHERE Artist = 'Zed' AND SongTitle = 'Z1' AND n = 99`,
			ReturnValuesOnConditionCheckFailure: fdyno.ReturnValuesOnConditionCheckFailureAllOld})
		var ccf *fdyno.ConditionalCheckFailedError
		if !errors.As(err, &ccf) || ccf.Item["n"].N() != "4" {
			t.Fatalf("got %v, want a fdyno.ConditionalCheckFailedError with the old item", err)
		}
	})
	t.Run("delete", func(t *testing.T) {
		// An absent item: success, nothing deleted.
		if _, err := exec(`DELETE FROM "Music" WHERE Artist = 'Nobody' AND SongTitle = 'x' AND n = 1`); err != nil {
			t.Fatalf("DELETE of an absent item: %v", err)
		}
		// An existing item whose condition is false.
		if _, err := exec(`DELETE FROM "Music" WHERE Artist = 'Zed' AND SongTitle = 'Z1' AND n = 5`); !errors.Is(err, fdyno.ErrConditionalCheckFailed) {
			t.Fatalf("got %v, want ErrConditionalCheckFailed", err)
		}
		items, err := exec(`DELETE FROM "Music" WHERE Artist = 'Zed' AND SongTitle = 'Z1' AND n = 4 RETURNING ALL OLD *`)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 1 || items[0]["n"].N() != "4" || get("Zed", "Z1") != nil {
			t.Errorf("DELETE RETURNING ALL OLD * = %v; item after: %v", items, get("Zed", "Z1"))
		}
	})
	errs := []struct {
		name   string
		stmt   string
		params []fdyno.Value
		is     error
		reason string
	}{
		{"syntax", `SELECTT * FROMM "Music"`, nil, fdyno.ErrValidation, "Statement wasn't well formed"},
		{"no table", `SELECT * FROM "Nope" WHERE pk = 'x'`, nil, fdyno.ErrResourceNotFound, ""},
		{"param count", `SELECT * FROM "Music" WHERE Artist = ?`, nil, fdyno.ErrValidation, "Number of parameters in request and statement don't match."},
		{"too many params", `SELECT * FROM "Music"`, []fdyno.Value{fdyno.S("x")}, fdyno.ErrValidation, "Number of parameters"},
		{"update partial key", `UPDATE "Music" SET n = 1 WHERE Artist = 'Acme'`, nil, fdyno.ErrValidation, "mandatory equality on all key attributes"},
		{"delete no key", `DELETE FROM "Music" WHERE n = 1`, nil, fdyno.ErrValidation, "mandatory equality on all key attributes"},
		{"update key", `UPDATE "Music" SET SongTitle = 'x' WHERE Artist = 'Acme' AND SongTitle = 'A2'`, nil, fdyno.ErrValidation, "Cannot update attribute SongTitle"},
		{"insert not tuple", `INSERT INTO "Music" VALUE 'x'`, nil, fdyno.ErrValidation, "tuple"},
		{"insert without key", `INSERT INTO "Music" VALUE {'Artist': 'x'}`, nil, fdyno.ErrValidation, ""},
		{"exists alone", `EXISTS(SELECT * FROM "Music" WHERE Artist = 'a' AND SongTitle = 'b')`, nil, fdyno.ErrValidation, "ExecuteTransaction"},
		{"order by on scan", `SELECT * FROM "Music" ORDER BY SongTitle`, nil, fdyno.ErrValidation, "ORDER BY"},
		{"order by non-key", `SELECT * FROM "Music" WHERE Artist = 'Acme' ORDER BY n`, nil, fdyno.ErrValidation, "must be a key attribute"},
		{"set_add elsewhere", `UPDATE "Music" SET a = set_add(b, <<1>>) WHERE Artist = 'Acme' AND SongTitle = 'A2'`, nil, fdyno.ErrValidation, "set_add must name"},
		{"51 partitions", `SELECT * FROM "Music" WHERE Artist IN [` + strings.Repeat("'a', ", 50) + `'z']`, nil, fdyno.ErrValidation, "at most 50 values"},
		{"no index", `SELECT * FROM "Music"."Nope"`, nil, fdyno.ErrValidation, "does not have the specified index"},
		{"arithmetic on a string", `UPDATE "Music" SET Genre = Genre + 1 WHERE Artist = 'Acme' AND SongTitle = 'A2'`, nil, fdyno.ErrValidation, "incorrect data type"},
	}
	for _, tc := range errs {
		t.Run("error/"+tc.name, func(t *testing.T) {
			_, err := exec(tc.stmt, tc.params...)
			if !errors.Is(err, tc.is) {
				t.Fatalf("got %v, want %v", err, tc.is)
			}
			if tc.reason != "" && !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %q does not contain %q", err, tc.reason)
			}
		})
	}
}

// TestExecuteStatementPaging walks a SELECT with Limit, page by page with
// NextToken, across partitions, and checks the tokens are bound to their
// statement.
func TestExecuteStatementPaging(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl, q := newPartiQLTable(t, db)
	var want []string
	for _, a := range []string{"A", "B", "C"} {
		for _, s := range []string{"1", "2", "3", "4", "5"} {
			if _, err := tbl.Put(db, fdyno.PutInput{Item: song(a, s, "odd", fdyno.Bool(strings.Contains("135", s)))}); err != nil {
				t.Fatal(err)
			}
			if a != "B" && strings.Contains("135", s) {
				want = append(want, a+s)
			}
		}
	}
	for _, stmt := range []string{
		`SELECT * FROM "Music" WHERE Artist IN ['A', 'C'] AND odd = TRUE`,
		`SELECT * FROM "Music" WHERE Artist <> 'B' AND odd = TRUE`,
	} {
		for _, limit := range []int{1, 2, 3, 5, 7, 100} {
			var got []string
			in := ExecuteStatementInput{Statement: stmt, Limit: limit}
			for pages := 0; ; pages++ {
				if pages > 20 {
					t.Fatalf("%s limit %d: too many pages", stmt, limit)
				}
				out, err := q.ExecuteStatement(db, in)
				if err != nil {
					t.Fatalf("%s limit %d: %v", stmt, limit, err)
				}
				if len(out.Items) > limit {
					t.Fatalf("page of %d items over limit %d", len(out.Items), limit)
				}
				for _, it := range out.Items {
					got = append(got, it["Artist"].S()+it["SongTitle"].S())
				}
				if out.NextToken == "" {
					break
				}
				in.NextToken = out.NextToken
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s limit %d mismatch (-want +got):\n%s", stmt, limit, diff)
			}
		}
	}
	out, err := q.ExecuteStatement(db, ExecuteStatementInput{Statement: `SELECT * FROM "Music" WHERE Artist = 'A'`, Limit: 2})
	if err != nil || out.NextToken == "" {
		t.Fatalf("first page: %v, %v", out, err)
	}
	for name, in := range map[string]ExecuteStatementInput{
		"other statement": {Statement: `SELECT * FROM "Music" WHERE Artist = 'B'`, NextToken: out.NextToken},
		"other params":    {Statement: `SELECT * FROM "Music" WHERE Artist = 'A'`, NextToken: out.NextToken, Parameters: nil, Limit: 1, ConsistentRead: true},
		"altered":         {Statement: `SELECT * FROM "Music" WHERE Artist = 'A'`, NextToken: flipLastByte(t, out.NextToken)},
		"garbage":         {Statement: `SELECT * FROM "Music" WHERE Artist = 'A'`, NextToken: "%%%"},
	} {
		_, err := q.ExecuteStatement(db, in)
		if name == "other params" {
			// Limit and ConsistentRead may change between pages.
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, fdyno.ErrValidation) {
			t.Errorf("%s: got %v, want ErrValidation", name, err)
		}
	}
}

// flipLastByte returns token with one bit of its last byte changed: an
// altered token that, unlike one with its last characters replaced, never
// decodes to the same bytes.
func flipLastByte(t *testing.T, token string) string {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) == 0 {
		t.Fatalf("token %q: %v", token, err)
	}
	b[len(b)-1] ^= 1
	return base64.RawURLEncoding.EncodeToString(b)
}

// TestExecuteStatementComposes runs statements inside the caller's
// transaction: what the transaction does not commit is not written.
func TestExecuteStatementComposes(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl, q := newPartiQLTable(t, db)
	errStop := errors.New("stop")
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := q.ExecuteStatement(tr, ExecuteStatementInput{Statement: `INSERT INTO "Music" VALUE {'Artist': 'a', 'SongTitle': 'b'}`}); err != nil {
			return nil, err
		}
		out, err := q.ExecuteStatement(tr, ExecuteStatementInput{Statement: `SELECT * FROM "Music" WHERE Artist = 'a'`})
		if err != nil {
			return nil, err
		}
		if len(out.Items) != 1 {
			t.Errorf("the transaction does not see its own INSERT: %v", out.Items)
		}
		return nil, errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatal(err)
	}
	out, err := tbl.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S("a"), "SongTitle": fdyno.S("b")}})
	if err != nil || out.Item != nil {
		t.Errorf("an aborted transaction's INSERT was written: %v, %v", out, err)
	}
}

// PartiQL writes take the single write path: the change stream records
// them as the equivalent PutItem, UpdateItem and DeleteItem, and a
// failed statement records nothing.
func TestPartiQLStream(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	schema := musicSchema
	schema.StreamViewType = fdyno.StreamViewTypeNewAndOldImages
	tbl, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	q := New(root)
	for _, stmt := range []string{
		`INSERT INTO "Music" VALUE {'Artist': 'a', 'SongTitle': 's', 'n': 1}`,
		`INSERT INTO "Music" VALUE {'Artist': 'a', 'SongTitle': 's', 'n': 9}`, // DuplicateItem: no record
		`UPDATE "Music" SET n = n + 1 WHERE Artist = 'a' AND SongTitle = 's'`,
		`UPDATE "Music" SET n = 0 WHERE Artist = 'a' AND SongTitle = 'none'`, // missing item: no record
		`DELETE FROM "Music" WHERE Artist = 'a' AND SongTitle = 's'`,
		`DELETE FROM "Music" WHERE Artist = 'a' AND SongTitle = 's'`, // absent: no record
	} {
		_, _ = q.ExecuteStatement(db, ExecuteStatementInput{Statement: stmt})
	}
	type rec struct {
		Event    fdyno.EventName
		Old, New string
	}
	n := func(it fdyno.Item) string {
		if it == nil {
			return ""
		}
		return it["n"].N()
	}
	var got []rec
	for r, err := range tbl.Records(t.Context(), db, "") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec{r.EventName, n(r.OldImage), n(r.NewImage)})
	}
	want := []rec{{fdyno.EventNameInsert, "", "1"}, {fdyno.EventNameModify, "1", "2"}, {fdyno.EventNameRemove, "2", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream records mismatch (-want +got):\n%s", diff)
	}
}
