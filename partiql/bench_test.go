package partiql

import (
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// BenchmarkPartiQL compares a PartiQL SELECT by key and UPDATE with the
// GetItem and UpdateItem they plan into and with the raw FoundationDB
// operations beneath them, on the same table: the difference to the
// native operation is parsing, planning and writing the expressions.
func BenchmarkPartiQL(b *testing.B) {
	db, tbl := benchTable(b)
	it := benchItem("k", 1024)
	if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
		b.Fatal(err)
	}
	q := NewWithTables(func(string) (*fdyno.Table, error) { return tbl, nil })
	k := rawKey(b, db, tbl, it)
	b.Run("select-by-key/partiql", func(b *testing.B) {
		b.ReportAllocs()
		in := ExecuteStatementInput{Statement: `SELECT * FROM "Bench" WHERE pk = ?`, Parameters: []fdyno.Value{fdyno.S("k")}}
		for b.Loop() {
			out, err := q.ExecuteStatement(db, in)
			if err != nil || len(out.Items) != 1 {
				b.Fatal(out, err)
			}
		}
	})
	b.Run("select-by-key/getitem", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tbl.Get(db, fdyno.GetInput{Key: fdyno.Item{"pk": fdyno.S("k")}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("select-by-key/raw-get-decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
				v, err := rt.Get(k).Get()
				if err != nil {
					return nil, err
				}
				return fdyno.DecodeItem(v)
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update/partiql", func(b *testing.B) {
		b.ReportAllocs()
		in := ExecuteStatementInput{Statement: `UPDATE "Bench" SET n = n + 1 WHERE pk = ?`, Parameters: []fdyno.Value{fdyno.S("k")}}
		for b.Loop() {
			if _, err := q.ExecuteStatement(db, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update/updateitem", func(b *testing.B) {
		b.ReportAllocs()
		in := fdyno.UpdateInput{Key: fdyno.Item{"pk": fdyno.S("k")}, UpdateExpression: "SET n = n + :one", ConditionExpression: "attribute_exists(pk)",
			ExpressionAttributeValues: map[string]fdyno.Value{":one": fdyno.N("1")}}
		for b.Loop() {
			if _, err := tbl.Update(db, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update/raw-get-decode-encode-set", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				v, err := tr.Get(k).Get()
				if err != nil {
					return nil, err
				}
				old, err := fdyno.DecodeItem(v)
				if err != nil {
					return nil, err
				}
				old["n"] = fdyno.N("2")
				enc, err := fdyno.EncodeItem(old)
				if err != nil {
					return nil, err
				}
				tr.Set(k, enc)
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
