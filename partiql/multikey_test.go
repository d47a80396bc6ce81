package partiql

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// attrDef and keyElem spell the schemas of the tests' multi-attribute
// indexes shortly.
func attrDef(name string, t fdyno.ScalarAttributeType) fdyno.AttributeDefinition {
	return fdyno.AttributeDefinition{AttributeName: name, AttributeType: t}
}

func keyElem(name string, kt fdyno.KeyType) fdyno.KeySchemaElement {
	return fdyno.KeySchemaElement{AttributeName: name, KeyType: kt}
}

// A SELECT on a global secondary index with a multi-attribute key: a
// WHERE that pins every partition attribute (by = or IN) is a Query of
// each combination, whose key condition takes the sort attributes' equal
// prefix and one range condition (the developer guide's rules for such
// keys, "Multi-attribute key schema"); results come in index order, the
// sort attributes left to right. A WHERE that leaves a partition
// attribute free is a Scan.
func TestPartiQLMultiAttributeIndex(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	const s, n, h, r = fdyno.ScalarAttributeTypeS, fdyno.ScalarAttributeTypeN, fdyno.KeyTypeHash, fdyno.KeyTypeRange
	tbl, err := fdyno.Open(db, "Matches", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{keyElem("matchId", h)},
		AttributeDefinitions: []fdyno.AttributeDefinition{attrDef("matchId", s), attrDef("tournamentId", s), attrDef("region", s), attrDef("round", n), attrDef("bracket", s)},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "ByRegion",
			KeySchema:  []fdyno.KeySchemaElement{keyElem("tournamentId", h), keyElem("region", h), keyElem("round", r), keyElem("bracket", r)},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeAll}}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	match := func(id, tour, region string, round int, bracket string) fdyno.Item {
		return fdyno.Item{"matchId": fdyno.S(id), "tournamentId": fdyno.S(tour), "region": fdyno.S(region), "round": fdyno.NInt(int64(round)), "bracket": fdyno.S(bracket)}
	}
	for _, it := range []fdyno.Item{
		match("a", "W24", "NA", 2, "UPPER"), match("b", "W24", "NA", 1, "UPPER"), match("c", "W24", "NA", 2, "LOWER"),
		match("d", "W24", "EU", 1, "LOWER"), match("e", "S25", "NA", 1, "UPPER"), match("f", "W24", "NA", 3, "UPPER"),
		{"matchId": fdyno.S("g"), "tournamentId": fdyno.S("W24"), "region": fdyno.S("NA"), "round": fdyno.NInt(1)}, // not indexed
	} {
		if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	ex := New(root)
	const from = `SELECT matchId FROM "Matches"."ByRegion" WHERE `
	tests := []struct {
		where    string
		query    bool
		sortCond string // the key condition's sort part, with the plan's placeholders
		want     []string
	}{
		{`tournamentId = 'W24' AND region = 'NA'`, true, "", []string{"b", "c", "a", "f"}},
		{`region = 'NA' AND tournamentId = 'W24' AND round = 2`, true, "#n2 = :v0", []string{"c", "a"}},
		{`tournamentId = 'W24' AND region = 'NA' AND round = 2 AND bracket > 'M'`, true, "#n2 = :v0 AND #n3 > :v1", []string{"a"}},
		{`tournamentId = 'W24' AND region = 'NA' AND round >= 2`, true, "#n2 >= :v0", []string{"c", "a", "f"}},
		// A condition on the second sort attribute without the first is
		// a filter: the key condition cannot skip round.
		{`tournamentId = 'W24' AND region = 'NA' AND bracket = 'UPPER'`, true, "", []string{"b", "a", "f"}},
		// Two range conditions: the first one the key condition can take,
		// the other filters.
		{`tournamentId = 'W24' AND region = 'NA' AND round > 1 AND bracket < 'V'`, true, "#n2 > :v0", []string{"c", "a", "f"}},
		{`tournamentId = 'W24' AND region IN ['EU', 'NA'] AND round = 1`, true, "#n2 = :v0", []string{"d", "b"}},
		{`tournamentId IN ['S25', 'W24'] AND region = 'NA' AND round = 1`, true, "#n2 = :v0", []string{"e", "b"}},
		{`tournamentId = 'W24' AND region = 'NA' ORDER BY round DESC`, true, "", []string{"f", "a", "c", "b"}},
		// ORDER BY a later sort attribute: the earlier ones pinned by
		// equality, or ordered first in the same direction.
		{`tournamentId = 'W24' AND region = 'NA' AND round = 2 ORDER BY bracket DESC`, true, "#n2 = :v0", []string{"a", "c"}},
		{`tournamentId = 'W24' AND region = 'NA' AND round = 2 ORDER BY round ASC, bracket DESC`, true, "#n2 = :v0", []string{"a", "c"}},
		{`tournamentId = 'W24' AND region = 'NA' ORDER BY round DESC, bracket DESC`, true, "", []string{"f", "a", "c", "b"}},
		// A partition attribute left free: a Scan.
		{`tournamentId = 'W24' AND round = 1`, false, "", []string{"b", "d"}},
	}
	for _, tc := range tests {
		t.Run(tc.where, func(t *testing.T) {
			st, err := parsePartiQL(from + tc.where)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := planSelect(st, tbl, nil)
			if err != nil {
				t.Fatal(err)
			}
			if pl.query != tc.query || pl.sortCond != tc.sortCond {
				t.Errorf("plan: query %v, sort condition %q; want %v, %q", pl.query, pl.sortCond, tc.query, tc.sortCond)
			}
			// All at once, and a page of one item at a time.
			for _, limit := range []int{0, 1} {
				var ids []string
				in := ExecuteStatementInput{Statement: from + tc.where, Limit: limit}
				for page := 0; ; page++ {
					out, err := ex.ExecuteStatement(db, in)
					if err != nil {
						t.Fatal(err)
					}
					for _, it := range out.Items {
						ids = append(ids, it["matchId"].S())
					}
					if out.NextToken == "" || page > 20 {
						break
					}
					in.NextToken = out.NextToken
				}
				want := tc.want
				if !tc.query {
					// A Scan's order is the index's partition hash order.
					ids, want = slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(want))
				}
				if diff := cmp.Diff(want, ids); diff != "" {
					t.Errorf("limit %d (-want +got):\n%s", limit, diff)
				}
			}
		})
	}
}

// TestPartiQLMultiAttributeOrderBy: the items of a partition come in
// index order, the sort attributes left to right, so ORDER BY a sort
// attribute can be served only when every earlier one is pinned by an
// equality of the key condition or ordered before it, in one direction;
// any other ORDER BY is refused rather than answered in another order.
func TestPartiQLMultiAttributeOrderBy(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	const s, n, h, r = fdyno.ScalarAttributeTypeS, fdyno.ScalarAttributeTypeN, fdyno.KeyTypeHash, fdyno.KeyTypeRange
	tbl, err := fdyno.Open(db, "Matches", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{keyElem("matchId", h)},
		AttributeDefinitions: []fdyno.AttributeDefinition{attrDef("matchId", s), attrDef("tournamentId", s), attrDef("round", n), attrDef("bracket", s), attrDef("seat", n)},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "ByRound",
			KeySchema:  []fdyno.KeySchemaElement{keyElem("tournamentId", h), keyElem("round", r), keyElem("bracket", r), keyElem("seat", r)},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeAll}}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	const from = `SELECT matchId FROM "Matches"."ByRound" WHERE tournamentId = 'W24' `
	for _, where := range []string{
		`ORDER BY bracket`,
		`AND round > 1 ORDER BY bracket`,
		`ORDER BY round, seat`,
		`AND round = 1 ORDER BY seat`,
		`ORDER BY bracket, round`,
		`ORDER BY round ASC, bracket DESC`,
		`AND round = 1 ORDER BY bracket ASC, seat DESC`,
	} {
		st, err := parsePartiQL(from + where)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := planSelect(st, tbl, nil); !errors.Is(err, fdyno.ErrValidation) {
			t.Errorf("%s: %v, want a ValidationException", where, err)
		}
	}
	for _, where := range []string{
		`ORDER BY round`,
		`ORDER BY round DESC, bracket DESC, seat DESC`,
		`AND round = 1 ORDER BY bracket DESC`,
		`AND round = 1 AND bracket = 'U' ORDER BY seat DESC`,
		`AND round = 1 AND bracket = 'U' ORDER BY bracket ASC, seat DESC`,
		`ORDER BY tournamentId, round`,
	} {
		st, err := parsePartiQL(from + where)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := planSelect(st, tbl, nil); err != nil {
			t.Errorf("%s: %v", where, err)
		}
	}
}

// TestPartiQLMultiAttributeModel runs random SELECTs on an index with a
// two-attribute partition key and a two-attribute sort key, their WHERE
// clauses random conjunctions of comparisons, BETWEEN, begins_with and IN
// on the key attributes, and compares the items, page by page with a
// random Limit, with a model that filters the items holding every key
// attribute: whatever the plan pushes into the key condition and whatever
// it leaves to the filter, the answer is the same. A SELECT of one
// partition returns its items in index order, the sort attributes left to
// right, then the table key.
func TestPartiQLMultiAttributeModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	ex := New(root)
	const s, n, h, r = fdyno.ScalarAttributeTypeS, fdyno.ScalarAttributeTypeN, fdyno.KeyTypeHash, fdyno.KeyTypeRange
	schema := fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{keyElem("id", h)},
		AttributeDefinitions: []fdyno.AttributeDefinition{attrDef("id", n), attrDef("t", s), attrDef("g", s), attrDef("round", n), attrDef("b", s)},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "byTGRB",
			KeySchema:  []fdyno.KeySchemaElement{keyElem("t", h), keyElem("g", h), keyElem("round", r), keyElem("b", r)},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeAll}}},
	}
	domain := map[string][]string{"t": {"'A'", "'B'"}, "g": {"'N'", "'E'"}, "round": {"1", "2", "3"}, "b": {"'L'", "'LU'", "'U'"}}
	tables, queries, pushed := 0, 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		tables++
		name := "Multi" + strconv.Itoa(tables)
		tbl, err := fdyno.Open(db, name, root, fdyno.WithSchema(schema))
		if err != nil {
			rt.Fatal(err)
		}
		var items []fdyno.Item
		for i := range rapid.IntRange(0, 25).Draw(rt, "items") {
			it := fdyno.Item{"id": fdyno.NInt(int64(i))}
			for _, a := range []string{"t", "g", "round", "b"} {
				if rapid.IntRange(0, 9).Draw(rt, "has "+a) == 0 {
					continue // an item without a key attribute is not in the index
				}
				v := rapid.SampledFrom(domain[a]).Draw(rt, a)
				if a == "round" {
					k, _ := strconv.Atoi(v)
					it[a] = fdyno.NInt(int64(k))
				} else {
					it[a] = fdyno.S(strings.Trim(v, "'"))
				}
			}
			if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
				rt.Fatal(err)
			}
			items = append(items, it)
		}
		// The WHERE clause, and the model's test of an item for each part.
		var where []string
		var tests []func(fdyno.Item) bool
		value := func(lit string) fdyno.Value {
			if strings.HasPrefix(lit, "'") {
				return fdyno.S(strings.Trim(lit, "'"))
			}
			k, _ := strconv.Atoi(lit)
			return fdyno.NInt(int64(k))
		}
		cmpItem := func(it fdyno.Item, a, lit string) (int, bool) {
			v, ok := it[a]
			if !ok {
				return 0, false
			}
			return compareKeys(v, value(lit)), true
		}
		// Half the statements begin by pinning both partition attributes,
		// so that Queries are common, and go on with a condition on the
		// first sort attribute, so that many Queries take one.
		pin := rapid.Bool().Draw(rt, "pin")
		for i := range rapid.IntRange(0, 5).Draw(rt, "atoms") {
			a := rapid.SampledFrom([]string{"t", "g", "round", "b"}).Draw(rt, "attr")
			if pin && i == 2 {
				a = "round"
			}
			ops := []string{"=", "=", "<", "<=", ">", ">=", "BETWEEN", "IN"}
			if a != "round" {
				ops = append(ops, "begins_with")
			}
			if pin && i < 2 {
				a, ops = []string{"t", "g"}[i], []string{"=", "=", "IN"}
			}
			op := rapid.SampledFrom(ops).Draw(rt, "op")
			x := rapid.SampledFrom(domain[a]).Draw(rt, "x")
			y := rapid.SampledFrom(domain[a]).Draw(rt, "y")
			switch op {
			case "BETWEEN":
				if compareKeys(value(x), value(y)) > 0 {
					x, y = y, x // DynamoDB refuses bounds out of order
				}
				where = append(where, a+" BETWEEN "+x+" AND "+y)
				tests = append(tests, func(it fdyno.Item) bool {
					lo, ok := cmpItem(it, a, x)
					hi, _ := cmpItem(it, a, y)
					return ok && lo >= 0 && hi <= 0
				})
			case "IN":
				where = append(where, a+" IN ["+x+", "+y+"]")
				tests = append(tests, func(it fdyno.Item) bool {
					c1, ok := cmpItem(it, a, x)
					c2, _ := cmpItem(it, a, y)
					return ok && (c1 == 0 || c2 == 0)
				})
			case "begins_with":
				where = append(where, "begins_with("+a+", "+x+")")
				tests = append(tests, func(it fdyno.Item) bool {
					v, ok := it[a]
					return ok && strings.HasPrefix(v.S(), strings.Trim(x, "'"))
				})
			default:
				where = append(where, a+" "+op+" "+x)
				tests = append(tests, func(it fdyno.Item) bool {
					c, ok := cmpItem(it, a, x)
					switch op {
					case "=":
						return ok && c == 0
					case "<":
						return ok && c < 0
					case "<=":
						return ok && c <= 0
					case ">":
						return ok && c > 0
					}
					return ok && c >= 0
				})
			}
		}
		stmt := `SELECT id FROM "` + name + `"."byTGRB"`
		if len(where) > 0 {
			stmt += " WHERE " + strings.Join(where, " AND ")
		}
		var want []fdyno.Item
		for _, it := range items {
			ok := len(it) == 5 // every key attribute
			for _, test := range tests {
				ok = ok && test(it)
			}
			if ok {
				want = append(want, it)
			}
		}
		slices.SortFunc(want, func(x, y fdyno.Item) int {
			for _, a := range []string{"t", "g", "round", "b", "id"} {
				if c := compareKeys(x[a], y[a]); c != 0 {
					return c
				}
			}
			return 0
		})
		st, err := parsePartiQL(stmt)
		if err != nil {
			rt.Fatal(err)
		}
		pl, err := planSelect(st, tbl, nil)
		if err != nil {
			rt.Fatal(err)
		}
		if pl.query {
			queries++
			if pl.sortCond != "" {
				pushed++
			}
		}
		limit := rapid.IntRange(0, 6).Draw(rt, "limit")
		var got []string
		in := ExecuteStatementInput{Statement: stmt, Limit: limit}
		for page := 0; ; page++ {
			out, err := ex.ExecuteStatement(db, in)
			if err != nil {
				rt.Fatalf("%s: %v", stmt, err)
			}
			for _, it := range out.Items {
				got = append(got, it["id"].N())
			}
			if out.NextToken == "" {
				break
			}
			if page > 100 {
				rt.Fatalf("%s: no end of pages", stmt)
			}
			in.NextToken = out.NextToken
		}
		var wantIDs []string
		for _, it := range want {
			wantIDs = append(wantIDs, it["id"].N())
		}
		if !pl.query || len(pl.partitions) > 1 {
			// Several partitions, or a Scan: the order is not the model's.
			slices.Sort(got)
			slices.Sort(wantIDs)
		}
		if diff := cmp.Diff(wantIDs, got, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("%s (query %v, key condition %q; -want +got):\n%s", stmt, pl.query, pl.keyCondition(), diff)
		}
	})
	// Queries, with sort conditions in their key condition, are drawn
	// often enough to test something.
	if queries*10 < tables || pushed*20 < tables {
		t.Errorf("%d statements: %d Queries, %d with a sort condition: the generator rarely plans Queries", tables, queries, pushed)
	}
}

// PartiQL writes on a table with a multi-attribute index keep its entries
// exact: an INSERT or UPDATE giving a key attribute another type is
// refused and writes nothing; UPDATE moves and removes entries, DELETE
// removes them; a SELECT on the index sees each change.
func TestPartiQLMultiAttributeWrites(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	const s, n, h, r = fdyno.ScalarAttributeTypeS, fdyno.ScalarAttributeTypeN, fdyno.KeyTypeHash, fdyno.KeyTypeRange
	if _, err := fdyno.Open(db, "Matches", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{keyElem("matchId", h)},
		AttributeDefinitions: []fdyno.AttributeDefinition{attrDef("matchId", s), attrDef("tournamentId", s), attrDef("region", s), attrDef("round", n), attrDef("bracket", s)},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "ByRegion",
			KeySchema:  []fdyno.KeySchemaElement{keyElem("tournamentId", h), keyElem("region", h), keyElem("round", r), keyElem("bracket", r)},
			Projection: fdyno.Projection{ProjectionType: fdyno.ProjectionTypeKeysOnly}}},
	})); err != nil {
		t.Fatal(err)
	}
	ex := New(root)
	exec := func(stmt string) error {
		_, err := ex.ExecuteStatement(db, ExecuteStatementInput{Statement: stmt})
		return err
	}
	ids := func() []string {
		t.Helper()
		out, err := ex.ExecuteStatement(db, ExecuteStatementInput{Statement: `SELECT matchId FROM "Matches"."ByRegion" WHERE tournamentId = 'W24' AND region = 'NA'`})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, it["matchId"].S())
		}
		return got
	}
	for _, stmt := range []string{
		`INSERT INTO "Matches" VALUE {'matchId': 'a', 'tournamentId': 'W24', 'region': 'NA', 'round': 2, 'bracket': 'UPPER'}`,
		`INSERT INTO "Matches" VALUE {'matchId': 'b', 'tournamentId': 'W24', 'region': 'NA', 'round': 1, 'bracket': 'LOWER'}`,
		`INSERT INTO "Matches" VALUE {'matchId': 'c', 'tournamentId': 'W24', 'region': 'NA', 'round': 3}`,
	} {
		if err := exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if diff := cmp.Diff([]string{"b", "a"}, ids()); diff != "" {
		t.Fatalf("after the inserts (-want +got):\n%s", diff)
	}
	for _, stmt := range []string{
		`INSERT INTO "Matches" VALUE {'matchId': 'd', 'tournamentId': 'W24', 'region': 'NA', 'round': 'two', 'bracket': 'UPPER'}`,
		`UPDATE "Matches" SET bracket = 5 WHERE matchId = 'c'`,
		`UPDATE "Matches" SET region = 7 WHERE matchId = 'a'`,
	} {
		if err := exec(stmt); !errors.Is(err, fdyno.ErrValidation) {
			t.Errorf("%s: %v, want a ValidationException", stmt, err)
		}
	}
	if diff := cmp.Diff([]string{"b", "a"}, ids()); diff != "" {
		t.Fatalf("a refused write changed the index (-want +got):\n%s", diff)
	}
	for _, stmt := range []string{
		`UPDATE "Matches" SET bracket = 'UPPER' WHERE matchId = 'c'`, // joins
		`UPDATE "Matches" SET round = 4 WHERE matchId = 'b'`,         // moves
		`UPDATE "Matches" REMOVE region WHERE matchId = 'a'`,         // leaves
	} {
		if err := exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if diff := cmp.Diff([]string{"c", "b"}, ids()); diff != "" {
		t.Errorf("after the updates (-want +got):\n%s", diff)
	}
	if err := exec(`DELETE FROM "Matches" WHERE matchId = 'c'`); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b"}, ids()); diff != "" {
		t.Errorf("after the delete (-want +got):\n%s", diff)
	}
}
