package partiql_test

import (
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/partiql"
)

// ExecuteStatement runs DynamoDB's PartiQL: an INSERT that must not
// exist, a SELECT whose WHERE clause pins the partition key (a Query,
// with the begins_with pushed into the range read), and an UPDATE that
// returns the new item.
func ExampleExecutor_ExecuteStatement() {
	db, root := exampleDB("PartiQL")
	if _, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema)); err != nil {
		panic(err)
	}
	q := partiql.New(root)
	exec := func(stmt string, params ...fdyno.Value) []fdyno.Item {
		out, err := q.ExecuteStatement(db, partiql.ExecuteStatementInput{Statement: stmt, Parameters: params})
		if err != nil {
			panic(err)
		}
		return out.Items
	}
	for _, title := range []string{"Call Me Today", "Call It Off", "Somewhere Down The Road"} {
		exec(`INSERT INTO "Music" VALUE {'Artist': 'No One You Know', 'SongTitle': ?, 'Plays': 0}`, fdyno.S(title))
	}
	_, err := q.ExecuteStatement(db, partiql.ExecuteStatementInput{
		Statement: `INSERT INTO "Music" VALUE {'Artist': 'No One You Know', 'SongTitle': 'Call It Off'}`,
	})
	fmt.Println(errors.Is(err, fdyno.ErrDuplicateItem))

	for _, it := range exec(`SELECT SongTitle FROM "Music" WHERE Artist = ? AND begins_with(SongTitle, 'Call') ORDER BY SongTitle DESC`,
		fdyno.S("No One You Know")) {
		fmt.Println(it)
	}
	fmt.Println(exec(`UPDATE "Music" SET Plays = Plays + 1, Tags = <<'pop'>> WHERE Artist = 'No One You Know' AND SongTitle = 'Call It Off' RETURNING MODIFIED NEW *`))
	// Output:
	// true
	// {"SongTitle":{"S":"Call Me Today"}}
	// {"SongTitle":{"S":"Call It Off"}}
	// [{"Plays":{"N":"1"},"Tags":{"SS":["pop"]}}]
}

// ExecuteTransaction runs write statements all or nothing: an INSERT of
// an existing item cancels the whole transaction with a DuplicateItem
// reason, and the other statement is not applied. Inside the caller's
// FoundationDB transaction, it commits with it.
func ExampleExecutor_ExecuteTransaction() {
	db, root := exampleDB("PartiQLTransaction")
	if _, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema)); err != nil {
		panic(err)
	}
	q := partiql.New(root)
	insert := func(title string) partiql.ParameterizedStatement {
		return partiql.ParameterizedStatement{Statement: `INSERT INTO "Music" VALUE {'Artist': 'Acme', 'SongTitle': ?}`, Parameters: []fdyno.Value{fdyno.S(title)}}
	}
	if _, err := q.ExecuteTransaction(db, partiql.ExecuteTransactionInput{TransactStatements: []partiql.ParameterizedStatement{insert("One")}}); err != nil {
		panic(err)
	}
	_, err := q.ExecuteTransaction(db, partiql.ExecuteTransactionInput{TransactStatements: []partiql.ParameterizedStatement{insert("Two"), insert("One")}})
	var tce *fdyno.TransactionCanceledError
	if errors.As(err, &tce) {
		fmt.Println(tce.CancellationReasons[0].Code, tce.CancellationReasons[1].Code)
	}
	// In the caller's transaction: the SELECT sees the INSERT before it.
	_, err = db.Transact(func(tr fdb.Transaction) (any, error) {
		if _, err := q.ExecuteTransaction(tr, partiql.ExecuteTransactionInput{TransactStatements: []partiql.ParameterizedStatement{insert("Three")}}); err != nil {
			return nil, err
		}
		out, err := q.ExecuteStatement(tr, partiql.ExecuteStatementInput{Statement: `SELECT SongTitle FROM "Music" WHERE Artist = 'Acme'`})
		if err != nil {
			return nil, err
		}
		fmt.Println(out.Items)
		return nil, nil
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// None DuplicateItem
	// [{"SongTitle":{"S":"One"}} {"SongTitle":{"S":"Three"}}]
}

// BatchExecuteStatement runs statements one by one, each with its own
// outcome: a failed statement does not stop the others.
func ExampleExecutor_BatchExecuteStatement() {
	db, root := exampleDB("PartiQLBatch")
	if _, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema)); err != nil {
		panic(err)
	}
	q := partiql.New(root)
	out, err := q.BatchExecuteStatement(db, partiql.BatchExecuteStatementInput{Statements: []partiql.BatchStatementRequest{
		{Statement: `INSERT INTO "Music" VALUE {'Artist': 'Acme', 'SongTitle': 'One'}`},
		{Statement: `INSERT INTO "Music" VALUE {'Artist': 'Acme', 'SongTitle': 'One'}`},
		{Statement: `INSERT INTO "Nowhere" VALUE {'Artist': 'Acme', 'SongTitle': 'Two'}`},
	}})
	if err != nil {
		panic(err)
	}
	for _, r := range out.Responses {
		if r.Error != nil {
			fmt.Println(r.TableName, r.Error.Code)
		} else {
			fmt.Println(r.TableName, "ok")
		}
	}
	// Output:
	// Music ok
	// Music DuplicateItem
	// Nowhere ResourceNotFound
}

// ParseStatement tells what a statement does without running it: the
// IAM action DynamoDB would authorize and the table it names.
func ExampleParseStatement() {
	info, err := partiql.ParseStatement(`UPDATE "Music" SET Plays = Plays + 1 WHERE Artist = ? AND SongTitle = ?`)
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Action, info.TableName, info.Parameters)
	// Output: PartiQLUpdate Music 2
}

// NewWithTables resolves table names with handles the caller
// keeps, here one table under a private name.
func ExampleNewWithTables() {
	db, root := exampleDB("PartiQLTables")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	q := partiql.NewWithTables(func(name string) (*fdyno.Table, error) {
		if name != "Songs" {
			return nil, fdyno.ErrResourceNotFound
		}
		return music, nil
	})
	if _, err := q.ExecuteStatement(db, partiql.ExecuteStatementInput{Statement: `INSERT INTO Songs VALUE {'Artist': 'Acme', 'SongTitle': 'One'}`}); err != nil {
		panic(err)
	}
	_, err = q.ExecuteStatement(db, partiql.ExecuteStatementInput{Statement: `SELECT * FROM Music`})
	fmt.Println(errors.Is(err, fdyno.ErrResourceNotFound))
	// Output: true
}

// The package-level ExecuteStatement opens the tables it names with the
// options given, as Open does.
func ExampleExecuteStatement() {
	db, root := exampleDB("PartiQLFunc")
	if _, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema)); err != nil {
		panic(err)
	}
	if _, err := partiql.ExecuteTransaction(db, partiql.ExecuteTransactionInput{TransactStatements: []partiql.ParameterizedStatement{
		{Statement: `INSERT INTO "Music" VALUE {'Artist': 'Acme', 'SongTitle': 'One', 'Year': 2001}`},
		{Statement: `INSERT INTO "Music" VALUE {'Artist': 'Acme', 'SongTitle': 'Two', 'Year': 2003}`},
	}}, root); err != nil {
		panic(err)
	}
	out, err := partiql.ExecuteStatement(db, partiql.ExecuteStatementInput{Statement: `SELECT SongTitle FROM "Music" WHERE "Year" > 2002`}, root)
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Items)
	b, err := partiql.BatchExecuteStatement(db, partiql.BatchExecuteStatementInput{Statements: []partiql.BatchStatementRequest{
		{Statement: `SELECT "Year" FROM "Music" WHERE Artist = 'Acme' AND SongTitle = 'One'`},
	}}, root)
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Responses[0].Item)
	// Output:
	// [{"SongTitle":{"S":"Two"}}]
	// {"Year":{"N":"2001"}}
}

// exampleDB opens the default database and returns an empty root of the
// example's own.
func exampleDB(name string) (fdb.Database, fdyno.Option) {
	fdb.MustAPIVersion(730)
	db := fdb.MustOpenDefault()
	root := []string{"fdyno-examples", "partiql", name}
	if _, err := directory.Root().Remove(db, root); err != nil {
		panic(err)
	}
	return db, fdyno.WithRoot(root...)
}

// musicSchema is the developer guide's Music table: Artist and SongTitle.
var musicSchema = fdyno.TableSchema{
	KeySchema: []fdyno.KeySchemaElement{
		{AttributeName: "Artist", KeyType: fdyno.KeyTypeHash},
		{AttributeName: "SongTitle", KeyType: fdyno.KeyTypeRange},
	},
	AttributeDefinitions: []fdyno.AttributeDefinition{
		{AttributeName: "Artist", AttributeType: fdyno.ScalarAttributeTypeS},
		{AttributeName: "SongTitle", AttributeType: fdyno.ScalarAttributeTypeS},
	},
}
