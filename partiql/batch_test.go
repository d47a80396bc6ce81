package partiql

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// errorCodes returns the Code of each response's Error, "" for none.
func errorCodes(out *BatchExecuteStatementOutput) []string {
	codes := make([]string, len(out.Responses))
	for i, r := range out.Responses {
		if r.Error != nil {
			codes[i] = r.Error.Code
		}
	}
	return codes
}

func TestBatchExecuteStatement(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl, q := newPartiQLTable(t, db)
	for _, it := range []fdyno.Item{song("A", "1", "n", fdyno.N("1")), song("A", "2", "n", fdyno.N("2"))} {
		if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("reads", func(t *testing.T) {
		out, err := q.BatchExecuteStatement(db, BatchExecuteStatementInput{Statements: []BatchStatementRequest{
			{Statement: `SELECT n FROM "Music" WHERE Artist = 'A' AND SongTitle = '1'`},
			{Statement: `SELECT * FROM "Music" WHERE Artist = ? AND SongTitle = ?`, Parameters: []fdyno.Value{fdyno.S("A"), fdyno.S("9")}},
			{Statement: `SELECT * FROM "Nope" WHERE pk = 'x'`},
			{Statement: `SELECT * FROM "Music" WHERE Artist = 'A'`},
			{Statement: `SELECT * FROM "Music" WHERE Artist = 'A' AND SongTitle = '2' AND n = 5`},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"", "", "ResourceNotFound", "ValidationError", ""}, errorCodes(out)); diff != "" {
			t.Errorf("error codes mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(fdyno.Item{"n": fdyno.N("1")}, out.Responses[0].Item, valueCmp); diff != "" {
			t.Errorf("first item mismatch (-want +got):\n%s", diff)
		}
		if out.Responses[1].Item != nil || out.Responses[4].Item != nil || out.Responses[0].TableName != "Music" {
			t.Errorf("responses: %+v", out.Responses)
		}
	})
	t.Run("writes", func(t *testing.T) {
		out, err := q.BatchExecuteStatement(db, BatchExecuteStatementInput{Statements: []BatchStatementRequest{
			{Statement: `INSERT INTO "Music" VALUE {'Artist': 'B', 'SongTitle': '1'}`},
			{Statement: `INSERT INTO "Music" VALUE {'Artist': 'A', 'SongTitle': '1'}`},
			{Statement: `UPDATE "Music" SET n = n + 1 WHERE Artist = 'A' AND SongTitle = '2'`},
			{Statement: `UPDATE "Music" SET n = 0 WHERE Artist = 'A' AND SongTitle = '1' AND n = 7`, ReturnValuesOnConditionCheckFailure: fdyno.ReturnValuesOnConditionCheckFailureAllOld},
			{Statement: `DELETE FROM "Music" WHERE Artist = 'B'`},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"", "DuplicateItem", "", "ConditionalCheckFailed", "ValidationError"}, errorCodes(out)); diff != "" {
			t.Errorf("error codes mismatch (-want +got):\n%s", diff)
		}
		if it := out.Responses[3].Error.Item; it["n"].N() != "1" {
			t.Errorf("ConditionalCheckFailed item = %v, want the old item", it)
		}
		g, _ := tbl.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S("A"), "SongTitle": fdyno.S("2")}})
		b, _ := tbl.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S("B"), "SongTitle": fdyno.S("1")}})
		if g.Item["n"].N() != "3" || b.Item == nil {
			t.Errorf("after the batch: A/2 = %v, B/1 = %v", g.Item, b.Item)
		}
	})
	for name, stmts := range map[string][]BatchStatementRequest{
		"empty": nil,
		"mixed": {{Statement: `SELECT * FROM "Music" WHERE Artist = 'A' AND SongTitle = '1'`}, {Statement: `DELETE FROM "Music" WHERE Artist = 'A' AND SongTitle = '1'`}},
		"26":    make([]BatchStatementRequest, 26),
	} {
		if _, err := q.BatchExecuteStatement(db, BatchExecuteStatementInput{Statements: stmts}); !errors.Is(err, fdyno.ErrValidation) {
			t.Errorf("%s: got %v, want ErrValidation", name, err)
		}
	}
}

func TestExecuteTransaction(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl, q := newPartiQLTable(t, db)
	if _, err := tbl.Put(db, fdyno.PutInput{Item: song("A", "1", "n", fdyno.N("1"))}); err != nil {
		t.Fatal(err)
	}
	get := func(a, s string) fdyno.Item {
		out, err := tbl.Get(db, fdyno.GetInput{Key: fdyno.Item{"Artist": fdyno.S(a), "SongTitle": fdyno.S(s)}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	stmts := func(ss ...string) []ParameterizedStatement {
		out := make([]ParameterizedStatement, len(ss))
		for i, s := range ss {
			out[i].Statement = s
		}
		return out
	}
	t.Run("all or nothing", func(t *testing.T) {
		_, err := q.ExecuteTransaction(db, ExecuteTransactionInput{TransactStatements: stmts(
			`INSERT INTO "Music" VALUE {'Artist': 'T', 'SongTitle': '1'}`,
			`INSERT INTO "Music" VALUE {'Artist': 'A', 'SongTitle': '1'}`,
			`UPDATE "Music" SET n = 5 WHERE Artist = 'A' AND SongTitle = '2'`,
		)})
		var tce *fdyno.TransactionCanceledError
		if !errors.As(err, &tce) {
			t.Fatalf("got %v, want a TransactionCanceledError", err)
		}
		var codes []string
		for _, r := range tce.CancellationReasons {
			codes = append(codes, r.Code)
		}
		if diff := cmp.Diff([]string{"None", "DuplicateItem", "ConditionalCheckFailed"}, codes); diff != "" {
			t.Errorf("reasons mismatch (-want +got):\n%s", diff)
		}
		if get("T", "1") != nil {
			t.Error("a canceled transaction wrote its first INSERT")
		}
	})
	t.Run("commit", func(t *testing.T) {
		_, err := q.ExecuteTransaction(db, ExecuteTransactionInput{ClientRequestToken: "tok-1", TransactStatements: []ParameterizedStatement{
			{Statement: `EXISTS(SELECT * FROM "Music" WHERE Artist = 'A' AND SongTitle = '1' AND n = 1)`},
			{Statement: `INSERT INTO "Music" VALUE {'Artist': 'T', 'SongTitle': ?, 'n': 1}`, Parameters: []fdyno.Value{fdyno.S("2")}},
			{Statement: `UPDATE "Music" SET n = n + 1 WHERE Artist = 'T' AND SongTitle = '9'`},
		}})
		var tce *fdyno.TransactionCanceledError
		if !errors.As(err, &tce) || tce.CancellationReasons[2].Code != "ConditionalCheckFailed" {
			t.Fatalf("UPDATE of a missing item: got %v", err)
		}
		in := ExecuteTransactionInput{ClientRequestToken: "tok-2", TransactStatements: stmts(
			`EXISTS(SELECT * FROM "Music" WHERE Artist = 'A' AND SongTitle = '1' AND n = 1)`,
			`INSERT INTO "Music" VALUE {'Artist': 'T', 'SongTitle': '2', 'n': 1}`,
			`DELETE FROM "Music" WHERE Artist = 'T' AND SongTitle = '3'`,
		)}
		if _, err := q.ExecuteTransaction(db, in); err != nil {
			t.Fatal(err)
		}
		// The same token and request again: a no-op, not a DuplicateItem.
		if _, err := q.ExecuteTransaction(db, in); err != nil {
			t.Fatalf("retry with the same ClientRequestToken: %v", err)
		}
		in.TransactStatements = in.TransactStatements[:2]
		if _, err := q.ExecuteTransaction(db, in); !errors.Is(err, fdyno.ErrIdempotentParameterMismatch) {
			t.Fatalf("same token, other request: got %v", err)
		}
		if get("T", "2") == nil {
			t.Error("the INSERT was not written")
		}
	})
	t.Run("reads", func(t *testing.T) {
		out, err := q.ExecuteTransaction(db, ExecuteTransactionInput{TransactStatements: stmts(
			`SELECT n FROM "Music" WHERE Artist = 'A' AND SongTitle = '1'`,
			`SELECT * FROM "Music" WHERE Artist = 'A' AND SongTitle = 'none'`,
			`SELECT * FROM "Music" WHERE Artist = 'T' AND SongTitle = '2' AND n = 2`,
		)})
		if err != nil {
			t.Fatal(err)
		}
		want := []fdyno.ItemResponse{{Item: fdyno.Item{"n": fdyno.N("1")}}, {}, {}}
		if diff := cmp.Diff(want, out.Responses, valueCmp); diff != "" {
			t.Errorf("responses mismatch (-want +got):\n%s", diff)
		}
	})
	for name, in := range map[string]ExecuteTransactionInput{
		"empty":     {},
		"mixed":     {TransactStatements: stmts(`SELECT * FROM "Music" WHERE Artist = 'A' AND SongTitle = '1'`, `DELETE FROM "Music" WHERE Artist = 'A' AND SongTitle = '1'`)},
		"partial":   {TransactStatements: stmts(`SELECT * FROM "Music" WHERE Artist = 'A'`)},
		"returning": {TransactStatements: stmts(`DELETE FROM "Music" WHERE Artist = 'A' AND SongTitle = '1' RETURNING ALL OLD *`)},
		"same item": {TransactStatements: stmts(`DELETE FROM "Music" WHERE Artist = 'A' AND SongTitle = '1'`, `UPDATE "Music" SET n = 1 WHERE Artist = 'A' AND SongTitle = '1'`)},
	} {
		if _, err := q.ExecuteTransaction(db, in); !errors.Is(err, fdyno.ErrValidation) {
			t.Errorf("%s: got %v, want ErrValidation", name, err)
		}
	}
	if get("A", "1") == nil {
		t.Error("a refused transaction deleted A/1")
	}
}

// Under injected faults, PartiQL transactions are all or nothing and
// INSERTs happen exactly once: concurrent transfers between two items
// keep their sum, every acknowledged transfer is counted once, and of
// concurrent INSERTs of one key exactly one succeeds.
func TestPartiQLUnderFaults(t *testing.T) {
	db := fdblitetest.OpenFaulty(t, fdblitetest.RetryableFaults(11))
	tx := fdblitetest.Idempotent{DB: db}
	if _, err := fdyno.Open(tx, "Music", fdyno.WithSchema(musicSchema)); err != nil {
		t.Fatal(err)
	}
	q := New()
	for _, a := range []string{"x", "y"} {
		if _, err := q.ExecuteStatement(tx, ExecuteStatementInput{Statement: `INSERT INTO "Music" VALUE {'Artist': ?, 'SongTitle': 'acct', 'bal': 100, 'moves': 0}`, Parameters: []fdyno.Value{fdyno.S(a)}}); err != nil {
			t.Fatal(err)
		}
	}
	const workers, rounds = 4, 15
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked, inserted := 0, map[string]int{}
	errs := make(chan error, workers*rounds*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				from, to := "x", "y"
				if (w+i)%2 == 1 {
					from, to = to, from
				}
				_, err := q.ExecuteTransaction(tx, ExecuteTransactionInput{TransactStatements: []ParameterizedStatement{
					{Statement: `UPDATE "Music" SET bal = bal - 1, moves = moves + 1 WHERE Artist = ? AND SongTitle = 'acct' AND bal >= 1`, Parameters: []fdyno.Value{fdyno.S(from)}},
					{Statement: `UPDATE "Music" SET bal = bal + 1 WHERE Artist = ? AND SongTitle = 'acct'`, Parameters: []fdyno.Value{fdyno.S(to)}},
				}})
				if err != nil {
					errs <- err
					continue
				}
				key := "k" + strconv.Itoa(i%5)
				_, err = q.ExecuteStatement(tx, ExecuteStatementInput{Statement: `INSERT INTO "Music" VALUE {'Artist': 'ins', 'SongTitle': ?}`, Parameters: []fdyno.Value{fdyno.S(key)}})
				mu.Lock()
				acked++
				if err == nil {
					inserted[key]++
				}
				mu.Unlock()
				if err != nil && !errors.Is(err, fdyno.ErrDuplicateItem) {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("unexpected error: %v", err)
	}
	out, err := q.ExecuteStatement(db, ExecuteStatementInput{Statement: `SELECT bal, moves FROM "Music" WHERE Artist IN ['x', 'y'] AND SongTitle = 'acct'`})
	if err != nil {
		t.Fatal(err)
	}
	sum, moves := 0, 0
	for _, it := range out.Items {
		b, _ := it["bal"].Int64()
		m, _ := it["moves"].Int64()
		sum, moves = sum+int(b), moves+int(m)
	}
	if sum != 200 || moves != acked {
		t.Errorf("sum of balances = %d (want 200), moves = %d (want %d acknowledged)", sum, moves, acked)
	}
	for k, n := range inserted {
		if n != 1 {
			t.Errorf("key %s inserted %d times, want exactly once", k, n)
		}
	}
	if len(inserted) != 5 {
		t.Errorf("inserted keys %v, want 5", inserted)
	}
}
