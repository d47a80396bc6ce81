package partiql

import (
	"errors"
	"strings"
	"testing"

	"github.com/fdyno/fdyno"
)

// The statements are the examples of the developer guide's PartiQL
// reference (ql-reference.select, .insert, .update, .delete,
// ql-functions) and the dialect's corner cases; want is the canonical
// form, in which every name is quoted and every operation parenthesized.
func TestParsePartiQL(t *testing.T) {
	tests := []struct {
		name, stmt, want string
		params           int
	}{
		{"select star", `SELECT * FROM "Orders" WHERE OrderID = 100`,
			`SELECT * FROM "Orders" WHERE ("OrderID" = 100)`, 0},
		{"projection", `SELECT OrderID, Total FROM "Orders" WHERE OrderID = 1`,
			`SELECT "OrderID", "Total" FROM "Orders" WHERE ("OrderID" = 1)`, 0},
		{"or of keys", `SELECT * FROM "Orders" WHERE OrderID = 100 OR OrderID = 200`,
			`SELECT * FROM "Orders" WHERE (("OrderID" = 100) OR ("OrderID" = 200))`, 0},
		{"in list", `SELECT * FROM "Orders" WHERE OrderID IN [100, 300, 234]`,
			`SELECT * FROM "Orders" WHERE ("OrderID" IN [100, 300, 234])`, 0},
		{"in parens", `select * from Orders where OrderID in (1, 2)`,
			`SELECT * FROM "Orders" WHERE ("OrderID" IN [1, 2])`, 0},
		{"index", `SELECT * FROM "TableName"."IndexName" WHERE a = 'x'`,
			`SELECT * FROM "TableName"."IndexName" WHERE ("a" = 'x')`, 0},
		{"nested paths", `SELECT a.b[2].c, "d e"['f'] FROM t`,
			`SELECT "a"."b"[2]."c", "d e"."f" FROM "t"`, 0},
		{"between and order", `SELECT * FROM Music WHERE Artist = ? AND SongTitle BETWEEN 'A' AND 'M' ORDER BY SongTitle DESC`,
			`SELECT * FROM "Music" WHERE (("Artist" = ?) AND ("SongTitle" BETWEEN 'A' AND 'M')) ORDER BY "SongTitle" DESC`, 1},
		{"missing", `SELECT * FROM Music WHERE "Awards" is MISSING`,
			`SELECT * FROM "Music" WHERE ("Awards" IS MISSING)`, 0},
		{"not missing", `SELECT * FROM Music WHERE Awards IS NOT MISSING AND NOT a <> 1`,
			`SELECT * FROM "Music" WHERE ((NOT ("Awards" IS MISSING)) AND (NOT ("a" <> 1)))`, 0},
		{"functions", `SELECT * FROM "Orders" WHERE "OrderID"=1 AND size("Image") >300 AND begins_with("Address", '7834') AND contains("Tags", 'x') AND attribute_type("Total", 'N')`,
			`SELECT * FROM "Orders" WHERE ((((("OrderID" = 1) AND (size("Image") > 300)) AND begins_with("Address", '7834')) AND contains("Tags", 'x')) AND attribute_type("Total", 'N'))`, 0},
		{"not in and not between", `SELECT * FROM t WHERE a NOT IN [1] AND b NOT BETWEEN 1 AND 2`,
			`SELECT * FROM "t" WHERE ((NOT ("a" IN [1])) AND (NOT ("b" BETWEEN 1 AND 2)))`, 0},
		{"insert", `INSERT INTO "Music" value {'Artist' : 'Acme Band','SongTitle' : 'PartiQL Rocks', 'Awards': <<1, 2>>, 'L': [TRUE, NULL, -1.50], 'M': {'it''s': ?}}`,
			`INSERT INTO "Music" VALUE {'Artist': 'Acme Band', 'SongTitle': 'PartiQL Rocks', 'Awards': <<1, 2>>, 'L': [TRUE, NULL, -1.5], 'M': {'it''s': ?}}`, 1},
		{"update", `UPDATE "Music" SET AwardsWon=1 SET AwardDetail={'Grammys':[2020, 2018]} WHERE Artist='Acme Band' AND SongTitle='PartiQL Rocks' RETURNING ALL NEW *`,
			`UPDATE "Music" SET "AwardsWon" = 1 SET "AwardDetail" = {'Grammys': [2020, 2018]} WHERE (("Artist" = 'Acme Band') AND ("SongTitle" = 'PartiQL Rocks')) RETURNING ALL NEW *`, 0},
		{"update functions", `UPDATE "Music" SET AwardDetail.Grammys =list_append(AwardDetail.Grammys,[2016]), n = n + 1, s = set_add(s, <<'x'>>) REMOVE a, b[1] WHERE Artist='Acme Band' RETURNING MODIFIED OLD *`,
			`UPDATE "Music" SET "AwardDetail"."Grammys" = list_append("AwardDetail"."Grammys", [2016]) SET "n" = ("n" + 1) SET "s" = set_add("s", <<'x'>>) REMOVE "a" REMOVE "b"[1] WHERE ("Artist" = 'Acme Band') RETURNING MODIFIED OLD *`, 0},
		{"delete", `DELETE FROM "Music" WHERE "Artist" = 'Acme Band' AND "SongTitle" = 'PartiQL Rocks' RETURNING ALL OLD *`,
			`DELETE FROM "Music" WHERE (("Artist" = 'Acme Band') AND ("SongTitle" = 'PartiQL Rocks')) RETURNING ALL OLD *`, 0},
		{"exists", `EXISTS(SELECT * FROM "Music" WHERE "Artist" = 'Acme Band' AND "SongTitle" = 'PartiQL Rocks')`,
			`EXISTS(SELECT * FROM "Music" WHERE (("Artist" = 'Acme Band') AND ("SongTitle" = 'PartiQL Rocks')))`, 0},
		{"quoted quote and comment", "SELECT \"a\"\"b\" FROM t -- trailing comment\n WHERE x = 'o''k'",
			`SELECT "a""b" FROM "t" WHERE ("x" = 'o''k')`, 0},
		{"precedence", `SELECT * FROM t WHERE a = 1 OR b = 2 AND c = 3`,
			`SELECT * FROM "t" WHERE (("a" = 1) OR (("b" = 2) AND ("c" = 3)))`, 0},
		{"number forms", `SELECT * FROM t WHERE a = 1e3 AND b = .5 AND c = -0`,
			`SELECT * FROM "t" WHERE ((("a" = 1000) AND ("b" = 0.5)) AND ("c" = 0))`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parsePartiQL(tc.stmt)
			if err != nil {
				t.Fatalf("parsePartiQL(%q): %v", tc.stmt, err)
			}
			if got := s.String(); got != tc.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tc.want)
			}
			if s.params != tc.params {
				t.Errorf("params = %d, want %d", s.params, tc.params)
			}
			again, err := parsePartiQL(s.String())
			if err != nil || again.String() != s.String() {
				t.Errorf("canonical form does not parse back: %v, %v", err, again)
			}
		})
	}
}

func TestParsePartiQLErrors(t *testing.T) {
	tests := []struct{ name, stmt, reason string }{
		{"misspelled", `SELECTT * FROMM "t"`, "Statement wasn't well formed"},
		{"empty", `  `, "Member must have length greater than or equal to 1"},
		{"too long", "SELECT * FROM t WHERE a = '" + strings.Repeat("x", MaxStatementLength) + "'", "less than or equal to 8192"},
		{"no from", `SELECT *`, "expected FROM"},
		{"unterminated string", `SELECT * FROM t WHERE a = 'x`, "unterminated"},
		{"unterminated name", `SELECT * FROM "t`, "unterminated"},
		{"bad character", `SELECT * FROM t WHERE a = #x`, "unexpected character"},
		{"keyword as name", `SELECT value FROM t`, "expected an attribute name"},
		{"update without action", `UPDATE t WHERE a = 1`, "expected SET or REMOVE"},
		{"update without where", `UPDATE t SET a = 1`, "expected WHERE"},
		{"delete without where", `DELETE FROM t`, "expected WHERE"},
		{"delete returning new", `DELETE FROM t WHERE a = 1 RETURNING ALL NEW *`, "expected OLD"},
		{"unknown function", `SELECT * FROM t WHERE upper(a) = 'X'`, "Unsupported function: upper"},
		{"arity", `SELECT * FROM t WHERE begins_with(a) `, "Incorrect number of arguments"},
		{"trailing", `SELECT * FROM t WHERE a = 1 1`, "unexpected '1'"},
		{"duplicate tuple key", `INSERT INTO t VALUE {'a': 1, 'a': 2}`, "Duplicate attribute name"},
		{"number out of range", `SELECT * FROM t WHERE a = 1e200`, "Number overflow"},
		{"deep nesting", "SELECT * FROM t WHERE " + strings.Repeat("(", 100) + "a = 1" + strings.Repeat(")", 100), "nested too deeply"},
		{"empty in", `SELECT * FROM t WHERE a IN []`, "IN needs at least one value"},
		{"negative index", `SELECT a[-1] FROM t`, "unexpected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parsePartiQL(tc.stmt)
			var ve *fdyno.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("parsePartiQL(%.60q) = %v, want a *ValidationError", tc.stmt, err)
			}
			if !strings.Contains(ve.Reason, tc.reason) {
				t.Errorf("reason %q does not contain %q", ve.Reason, tc.reason)
			}
		})
	}
}

// FuzzParsePartiQL checks that the parser never panics and that every
// statement it accepts prints to a canonical form that parses back to
// the same tree.
func FuzzParsePartiQL(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM "Music" WHERE Artist = ? AND SongTitle BETWEEN 'A' AND 'M' ORDER BY SongTitle DESC`,
		`INSERT INTO "Music" VALUE {'Artist': 'a', 'n': 1, 'ss': <<'x'>>, 'l': [1, {'m': NULL}]}`,
		`UPDATE "Music" SET a = list_append(a, [1]), b = b + ?, c = set_add(c, <<1>>) REMOVE d[0] WHERE pk = 'x' RETURNING ALL OLD *`,
		`DELETE FROM "Music" WHERE pk = 'x' AND (a > 1 OR b IS NOT MISSING)`,
		`EXISTS(SELECT * FROM "t" WHERE pk = 1)`,
		`SELECT a.b[1]."c d" FROM "t"."i" WHERE pk IN [1, 2] AND NOT begins_with(sk, 'x')`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stmt string) {
		s, err := parsePartiQL(stmt)
		if err != nil {
			var ve *fdyno.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			return
		}
		printed := s.String()
		again, err := parsePartiQL(printed)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", printed, stmt, err)
		}
		if again.String() != printed || again.params != s.params {
			t.Fatalf("canonical form changed: %q -> %q", printed, again.String())
		}
	})
}

func TestParseStatement(t *testing.T) {
	tests := []struct {
		stmt string
		want StatementInfo
	}{
		{`SELECT * FROM "Music"."ByGenre" WHERE Genre = ?`, StatementInfo{Action: "PartiQLSelect", TableName: "Music", IndexName: "ByGenre", Parameters: 1}},
		{`INSERT INTO Music VALUE {'a': ?, 'b': ?}`, StatementInfo{Action: "PartiQLInsert", TableName: "Music", Parameters: 2}},
		{`UPDATE "Music" SET a = 1 WHERE pk = 'x'`, StatementInfo{Action: "PartiQLUpdate", TableName: "Music"}},
		{`DELETE FROM "Mu""sic" WHERE pk = 'x'`, StatementInfo{Action: "PartiQLDelete", TableName: `Mu"sic`}},
		{`EXISTS(SELECT * FROM "Music" WHERE pk = 'x')`, StatementInfo{Action: "PartiQLSelect", TableName: "Music"}},
	}
	// Executor.Statement answers the same through its cache: twice, so
	// the second answer comes from the cache.
	q := New()
	parsers := map[string]func(string) (StatementInfo, error){"ParseStatement": ParseStatement,
		"Executor.Statement": q.Statement, "Executor.Statement (cached)": q.Statement}
	for _, name := range []string{"ParseStatement", "Executor.Statement", "Executor.Statement (cached)"} {
		parse := parsers[name]
		for _, tc := range tests {
			got, err := parse(tc.stmt)
			if err != nil {
				t.Fatalf("%s(%q): %v", name, tc.stmt, err)
			}
			if got != tc.want {
				t.Errorf("%s(%q) = %+v, want %+v", name, tc.stmt, got, tc.want)
			}
		}
		if _, err := parse(`SELECT`); !errors.Is(err, fdyno.ErrValidation) {
			t.Errorf("%s of a bad statement: %v", name, err)
		}
	}
}
