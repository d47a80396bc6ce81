package partiql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// Round-trip budgets of PartiQL statements, counted by fdblite
// (fdblitetest.CountRoundTrips) as package fdyno's budget tests count
// the operations beneath (its roundtrips_test.go gives the rules): a
// statement costs exactly what the operation it plans into costs, so a
// SELECT by key is a GetItem (read version + one wave), a SELECT of a
// partition one Query page, an INSERT or UPDATE a conditional write (read
// version + one wave + commit), and a DELETE by key with no other
// condition a blind delete (read version + commit).

// ignore drops an operation's result.
func ignore[T any](_ T, err error) error { return err }

func TestRoundTripBudgets(t *testing.T) {
	db := fdblitetest.OpenIsolated(t)
	tbl, err := fdyno.Open(db, "Test", testRoot(t, db), fdyno.WithSchema(hashRange))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range []fdyno.Item{
		{"pk": fdyno.S("p"), "sk": fdyno.N("1"), "a": fdyno.S("small")},
		{"pk": fdyno.S("p"), "sk": fdyno.N("2"), "a": fdyno.S(strings.Repeat("x", 50_000))},
	} {
		if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	// A partition of 300 items of about 130 bytes: one page, under the
	// 80 KB FoundationDB sends in one batch.
	var many []fdyno.WriteRequest
	for i := range 300 {
		many = append(many, fdyno.WriteRequest{PutRequest: &fdyno.PutRequest{Item: fdyno.Item{"pk": fdyno.S("many"), "sk": fdyno.N(fmt.Sprint(i)), "a": fdyno.S(strings.Repeat("m", 100))}}})
	}
	if err := fdyno.BatchWriteAll(context.Background(), db, fdyno.BatchWriteInput{RequestItems: map[*fdyno.Table][]fdyno.WriteRequest{tbl: many}}); err != nil {
		t.Fatal(err)
	}
	q := NewWithTables(func(string) (*fdyno.Table, error) { return tbl, nil })
	exec := func(stmt string) func() error {
		return func() error { return ignore(q.ExecuteStatement(db, ExecuteStatementInput{Statement: stmt})) }
	}
	tests := []struct {
		name string
		fn   func() error
		want fdblitetest.RoundTrips
	}{
		{"SELECT by key", exec(`SELECT * FROM "Test" WHERE pk = 'p' AND sk = 1`), rt(1, 1, 0)},
		{"SELECT of a partition", exec(`SELECT * FROM "Test" WHERE pk = 'many'`), rt(1, 1, 0)},
		{"INSERT", exec(`INSERT INTO "Test" VALUE {'pk': 'p', 'sk': 40}`), rt(1, 1, 1)},
		{"UPDATE", exec(`UPDATE "Test" SET a = 'x' WHERE pk = 'p' AND sk = 40`), rt(1, 1, 1)},
		{"DELETE", exec(`DELETE FROM "Test" WHERE pk = 'p' AND sk = 40`), rt(1, 1, 1)}, // counts.go reads the old item
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fdblitetest.CountRoundTrips(db, tc.fn)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-40s %v", tc.name, got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: round trips over budget (-budget +got):\n%s", tc.name, diff)
			}
		})
	}
}

// rt is a budget: read versions, read waves, commits.
func rt(rv, waves, commits int64) fdblitetest.RoundTrips {
	return fdblitetest.RoundTrips{ReadVersions: rv, ReadWaves: waves, Commits: commits}
}
