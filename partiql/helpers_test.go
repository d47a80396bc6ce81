package partiql

import (
	"strings"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// testRoot returns a root directory of t's own.
func testRoot(t testing.TB, db fdb.Database) fdyno.Option {
	t.Helper()
	dir := fdblitetest.UniqueDirectory(t, db)
	return fdyno.WithRoot(dir.GetPath()...)
}

var hashRange = fdyno.TableSchema{
	KeySchema: []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}, {AttributeName: "sk", KeyType: fdyno.KeyTypeRange}},
	AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS},
		{AttributeName: "sk", AttributeType: fdyno.ScalarAttributeTypeN}},
}

var hashOnly = fdyno.TableSchema{
	KeySchema:            []fdyno.KeySchemaElement{{AttributeName: "pk", KeyType: fdyno.KeyTypeHash}},
	AttributeDefinitions: []fdyno.AttributeDefinition{{AttributeName: "pk", AttributeType: fdyno.ScalarAttributeTypeS}},
}

func benchItem(pk string, size int) fdyno.Item {
	return fdyno.Item{"pk": fdyno.S(pk), "n": fdyno.N("1"), "name": fdyno.S("benchmark item"), "pad": fdyno.S(strings.Repeat("p", size-40))}
}

func benchTable(b *testing.B) (fdb.Database, *fdyno.Table) {
	db := fdblitetest.Open(b)
	tbl, err := fdyno.Open(db, "Bench", testRoot(b, db), fdyno.WithSchema(hashOnly))
	if err != nil {
		b.Fatal(err)
	}
	return db, tbl
}

// rawKey returns the FoundationDB key that holds it, a stored item of
// tbl: the key in tbl's directory whose value decodes to it. It reads
// only through FoundationDB, for benchmarks that compare with raw reads.
func rawKey(b *testing.B, db fdb.Database, tbl *fdyno.Table, it fdyno.Item) fdb.Key {
	b.Helper()
	desc, err := tbl.Describe(db)
	if err != nil {
		b.Fatal(err)
	}
	k, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		dir, err := directory.Open(rt, desc.Directory, nil)
		if err != nil {
			return nil, err
		}
		kvs, err := rt.GetRange(dir, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		for _, kv := range kvs {
			if got, err := fdyno.DecodeItem(kv.Value); err == nil && got.Equal(it) {
				return kv.Key, nil
			}
		}
		return nil, nil
	})
	if err != nil || k == nil {
		b.Fatalf("raw key of %v: %v", it, err)
	}
	return k.(fdb.Key)
}
