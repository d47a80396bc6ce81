package partiql

import (
	"slices"
	"testing"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

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
	def := func(name string, t fdyno.ScalarAttributeType) fdyno.AttributeDefinition {
		return fdyno.AttributeDefinition{AttributeName: name, AttributeType: t}
	}
	key := func(name string, kt fdyno.KeyType) fdyno.KeySchemaElement {
		return fdyno.KeySchemaElement{AttributeName: name, KeyType: kt}
	}
	const s, n, h, r = fdyno.ScalarAttributeTypeS, fdyno.ScalarAttributeTypeN, fdyno.KeyTypeHash, fdyno.KeyTypeRange
	tbl, err := fdyno.Open(db, "Matches", root, fdyno.WithSchema(fdyno.TableSchema{
		KeySchema:            []fdyno.KeySchemaElement{key("matchId", h)},
		AttributeDefinitions: []fdyno.AttributeDefinition{def("matchId", s), def("tournamentId", s), def("region", s), def("round", n), def("bracket", s)},
		GlobalSecondaryIndexes: []fdyno.GlobalSecondaryIndex{{IndexName: "ByRegion",
			KeySchema:  []fdyno.KeySchemaElement{key("tournamentId", h), key("region", h), key("round", r), key("bracket", r)},
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
