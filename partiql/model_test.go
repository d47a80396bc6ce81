package partiql

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPartiQLSelectModel checks that a random SELECT returns the same
// items, in the same order, as the Query or Scan requests a DynamoDB user
// would write for it, walking both page by page with a random Limit.
func TestPartiQLSelectModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	q := New(root)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		name := "Sel" + strconv.Itoa(n)
		tbl, err := fdyno.Open(db, name, root, fdyno.WithSchema(hashRange))
		if err != nil {
			rt.Fatal(err)
		}
		pks := []string{"a", "b", "c"}
		items := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) fdyno.Item {
			it := fdyno.Item{
				"pk": fdyno.S(rapid.SampledFrom(pks).Draw(t, "pk")),
				"sk": fdyno.NInt(int64(rapid.IntRange(0, 9).Draw(t, "sk"))),
			}
			if rapid.Bool().Draw(t, "hasF") {
				it["f"] = fdyno.NInt(int64(rapid.IntRange(0, 3).Draw(t, "f")))
			}
			it["g"] = fdyno.S(rapid.SampledFrom([]string{"x", "xy", "y"}).Draw(t, "g"))
			return it
		}), 0, 30).Draw(rt, "items")
		for _, it := range items {
			if _, err := tbl.Put(db, fdyno.PutInput{Item: it}); err != nil {
				rt.Fatal(err)
			}
		}
		// The statement's parts, and the same conditions in DynamoDB's
		// expression language.
		parts := rapid.SliceOfNDistinct(rapid.SampledFrom(pks), 0, 3, func(s string) string { return s }).Draw(rt, "partitions")
		skOp := rapid.SampledFrom([]string{"", "=", "<", "<=", ">", ">=", "BETWEEN", "begins"}).Draw(rt, "skOp")
		if skOp == "begins" {
			skOp = "" // begins_with needs an S or B sort key
		}
		sk1, sk2 := rapid.IntRange(0, 9).Draw(rt, "sk1"), rapid.IntRange(0, 9).Draw(rt, "sk2")
		if sk2 < sk1 {
			sk1, sk2 = sk2, sk1
		}
		filt := rapid.SampledFrom([]string{"", "f = 1", "f > 1", "f IS MISSING", "begins_with(g, 'x')", "NOT f <> 2"}).Draw(rt, "filter")
		desc := len(parts) > 0 && rapid.Bool().Draw(rt, "desc")
		limit := rapid.IntRange(0, 7).Draw(rt, "limit")

		var where []string
		var params []fdyno.Value
		switch len(parts) {
		case 0:
		case 1:
			where, params = append(where, "pk = ?"), append(params, fdyno.S(parts[0]))
		default:
			in := "pk IN ["
			for i, p := range parts {
				if i > 0 {
					in += ", "
				}
				in += "'" + p + "'"
			}
			where = append(where, in+"]")
		}
		skText := map[string]string{"=": "sk = " + strconv.Itoa(sk1), "<": "sk < " + strconv.Itoa(sk1), "<=": "sk <= " + strconv.Itoa(sk1),
			">": "sk > " + strconv.Itoa(sk1), ">=": "sk >= " + strconv.Itoa(sk1), "BETWEEN": "sk BETWEEN " + strconv.Itoa(sk1) + " AND " + strconv.Itoa(sk2)}[skOp]
		if skText != "" {
			where = append(where, skText)
		}
		if filt != "" {
			where = append(where, filt)
		}
		stmt := `SELECT * FROM "` + name + `"`
		for i, w := range where {
			if i == 0 {
				stmt += " WHERE " + w
			} else {
				stmt += " AND " + w
			}
		}
		if desc {
			stmt += " ORDER BY sk DESC"
		}

		var got []fdyno.Item
		in := ExecuteStatementInput{Statement: stmt, Parameters: params, Limit: limit}
		for pages := 0; ; pages++ {
			if pages > 100 {
				rt.Fatalf("%s: too many pages", stmt)
			}
			out, err := q.ExecuteStatement(db, in)
			if err != nil {
				rt.Fatalf("%s: %v", stmt, err)
			}
			got = append(got, out.Items...)
			if out.NextToken == "" {
				break
			}
			in.NextToken = out.NextToken
		}

		// The equivalent requests: a Query per partition (the key
		// condition, the filter as FilterExpression), or a Scan.
		exprFilter := map[string]string{"": "", "f = 1": "f = :one", "f > 1": "f > :one", "f IS MISSING": "attribute_not_exists(f)",
			"begins_with(g, 'x')": "begins_with(g, :x)", "NOT f <> 2": "NOT f <> :two"}[filt]
		vals := map[string]fdyno.Value{}
		for ph, v := range map[string]fdyno.Value{":one": fdyno.N("1"), ":two": fdyno.N("2"), ":x": fdyno.S("x")} {
			if len(exprFilter) > 0 && containsWord(exprFilter, ph) {
				vals[ph] = v
			}
		}
		var want []fdyno.Item
		if len(parts) == 0 {
			sf := exprFilter
			if skText != "" {
				sf = joinAnd(map[string]string{"=": "sk = :s1", "<": "sk < :s1", "<=": "sk <= :s1", ">": "sk > :s1", ">=": "sk >= :s1", "BETWEEN": "sk BETWEEN :s1 AND :s2"}[skOp], sf)
				vals[":s1"] = fdyno.NInt(int64(sk1))
				if skOp == "BETWEEN" {
					vals[":s2"] = fdyno.NInt(int64(sk2))
				}
			}
			si := fdyno.ScanInput{FilterExpression: sf}
			if len(vals) > 0 {
				si.ExpressionAttributeValues = vals
			}
			for it, err := range tbl.ScanAll(context.Background(), db, si) {
				if err != nil {
					rt.Fatal(err)
				}
				want = append(want, it)
			}
		} else {
			for _, p := range parts {
				kv := map[string]fdyno.Value{":p": fdyno.S(p)}
				for k, v := range vals {
					kv[k] = v
				}
				kce := "pk = :p"
				if skText != "" {
					kce += " AND " + map[string]string{"=": "sk = :s1", "<": "sk < :s1", "<=": "sk <= :s1", ">": "sk > :s1", ">=": "sk >= :s1", "BETWEEN": "sk BETWEEN :s1 AND :s2"}[skOp]
					kv[":s1"] = fdyno.NInt(int64(sk1))
					if skOp == "BETWEEN" {
						kv[":s2"] = fdyno.NInt(int64(sk2))
					}
				}
				qi := fdyno.QueryInput{KeyConditionExpression: kce, FilterExpression: exprFilter, ExpressionAttributeValues: kv, ScanIndexForward: fdyno.Forward(!desc)}
				for it, err := range tbl.QueryAll(context.Background(), db, qi) {
					if err != nil {
						rt.Fatal(err)
					}
					want = append(want, it)
				}
			}
		}
		if diff := cmp.Diff(want, got, valueCmp); diff != "" {
			rt.Fatalf("%s (Limit %d) mismatch (-query/scan +partiql):\n%s", stmt, limit, diff)
		}
		if err := fdyno.DeleteTable(fdb.Transactor(db), name, root); err != nil {
			rt.Fatal(err)
		}
	})
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w && (i+len(w) == len(s) || !isNameByte(s[i+len(w)])) {
			return true
		}
	}
	return false
}

func joinAnd(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " AND " + b
}

// TestPartiQLWriteModel runs random INSERT, UPDATE and DELETE statements
// against a model of DynamoDB's documented semantics: INSERT fails with
// DuplicateItem when the item exists; UPDATE fails with
// ConditionalCheckFailed unless the item exists and the rest of its WHERE
// clause holds; DELETE of an absent item succeeds, of an item for which
// the rest of the clause is false fails. After every step, a SELECT of
// the whole table equals the model.
func TestPartiQLWriteModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	q := New(root)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		name := "Write" + strconv.Itoa(n)
		if _, err := fdyno.Open(db, name, root, fdyno.WithSchema(hashOnly)); err != nil {
			rt.Fatal(err)
		}
		model := map[string]int{} // pk -> n
		key := rapid.SampledFrom([]string{"a", "b", "c"})
		num := rapid.IntRange(0, 3)
		exec := func(stmt string, params ...fdyno.Value) error {
			_, err := q.ExecuteStatement(db, ExecuteStatementInput{Statement: stmt, Parameters: params})
			return err
		}
		rt.Repeat(map[string]func(*rapid.T){
			"insert": func(t *rapid.T) {
				k, v := key.Draw(t, "k"), num.Draw(t, "v")
				err := exec(`INSERT INTO "`+name+`" VALUE {'pk': ?, 'n': ?}`, fdyno.S(k), fdyno.NInt(int64(v)))
				if _, ok := model[k]; ok {
					if !errors.Is(err, fdyno.ErrDuplicateItem) {
						t.Fatalf("INSERT of existing %s: %v", k, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("INSERT %s: %v", k, err)
				}
				model[k] = v
			},
			"update": func(t *rapid.T) {
				k, min := key.Draw(t, "k"), num.Draw(t, "min")
				err := exec(`UPDATE "`+name+`" SET n = n + 1 WHERE pk = ? AND n >= ?`, fdyno.S(k), fdyno.NInt(int64(min)))
				v, ok := model[k]
				if !ok || v < min {
					if !errors.Is(err, fdyno.ErrConditionalCheckFailed) {
						t.Fatalf("UPDATE %s (n >= %d, model %v %v): %v", k, min, v, ok, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("UPDATE %s: %v", k, err)
				}
				model[k] = v + 1
			},
			"delete": func(t *rapid.T) {
				k, eq := key.Draw(t, "k"), num.Draw(t, "eq")
				err := exec(`DELETE FROM "`+name+`" WHERE pk = ? AND n = ?`, fdyno.S(k), fdyno.NInt(int64(eq)))
				v, ok := model[k]
				switch {
				case !ok:
					if err != nil {
						t.Fatalf("DELETE of absent %s: %v", k, err)
					}
				case v != eq:
					if !errors.Is(err, fdyno.ErrConditionalCheckFailed) {
						t.Fatalf("DELETE %s (n = %d, model %d): %v", k, eq, v, err)
					}
				default:
					if err != nil {
						t.Fatalf("DELETE %s: %v", k, err)
					}
					delete(model, k)
				}
			},
			"": func(t *rapid.T) {
				out, err := q.ExecuteStatement(db, ExecuteStatementInput{Statement: `SELECT pk, n FROM "` + name + `"`})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]int{}
				for _, it := range out.Items {
					v, _ := it["n"].Int64()
					got[it["pk"].S()] = int(v)
				}
				if diff := cmp.Diff(model, got); diff != "" {
					t.Fatalf("table mismatch (-model +table):\n%s", diff)
				}
			},
		})
		if err := fdyno.DeleteTable(db, name, root); err != nil {
			rt.Fatal(err)
		}
	})
}

// isNameByte reports whether c may continue a bare attribute name.
func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
