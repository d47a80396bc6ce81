package fdyno

import (
	"errors"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// errDenied is the refusal of the test guards.
var errDenied = errors.New("access denied by the test guard")

// setGuard allows reads of read's and write's partitions, writes of
// write's, and reads of the whole table when whole.
type setGuard struct {
	read, write map[string]bool
	whole       bool
}

func (g setGuard) in(a Access, set map[string]bool) bool {
	for p, ok := range set {
		if !ok {
			continue
		}
		k, _ := PackPartition(S(p))
		if a.InPartition(k) {
			return true
		}
	}
	return false
}

func (g setGuard) Allow(a Access) error {
	switch {
	case a.Stream || a.Index != "":
	case a.Whole():
		if g.whole {
			return nil
		}
	case a.Write:
		if g.in(a, g.write) {
			return nil
		}
	case g.in(a, g.read) || g.in(a, g.write):
		return nil
	}
	return errDenied
}

// TestGuardedHandle checks a guarded handle against a model: an
// operation that touches only what the guard allows runs as on the
// unguarded handle; any other fails with the guard's error and writes
// nothing.
func TestGuardedHandle(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	parts := []string{"a", "b", "c"}
	rapid.Check(t, func(rt *rapid.T) {
		// A fresh table state per run: clear what the last run left.
		for _, p := range parts {
			if _, err := tbl.Delete(db, DeleteInput{Key: Item{"pk": S(p)}}); err != nil {
				rt.Fatal(err)
			}
		}
		g := setGuard{read: map[string]bool{}, write: map[string]bool{}, whole: rapid.Bool().Draw(rt, "whole")}
		for _, p := range parts {
			g.read[p] = rapid.Bool().Draw(rt, "read "+p)
			g.write[p] = rapid.Bool().Draw(rt, "write "+p)
		}
		guarded := tbl.Guarded(g)
		model := map[string]string{}
		canRead := func(p string) bool { return g.read[p] || g.write[p] }
		for i := range rapid.IntRange(1, 12).Draw(rt, "ops") {
			p := rapid.SampledFrom(parts).Draw(rt, "p")
			q := rapid.SampledFrom(parts).Draw(rt, "q")
			v := string(rune('0' + i))
			var allowed bool
			var err error
			apply := func() {}
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); op {
			case 0:
				allowed = g.write[p]
				_, err = guarded.Put(db, PutInput{Item: Item{"pk": S(p), "v": S(v)}})
				apply = func() { model[p] = v }
			case 1:
				allowed = g.write[p]
				_, err = guarded.Delete(db, DeleteInput{Key: Item{"pk": S(p)}})
				apply = func() { delete(model, p) }
			case 2:
				allowed = g.write[p]
				_, err = guarded.Update(db, UpdateInput{Key: Item{"pk": S(p)}, UpdateExpression: "SET v = :v",
					ExpressionAttributeValues: map[string]Value{":v": S(v)}})
				apply = func() { model[p] = v }
			case 3:
				allowed = canRead(p)
				var out *GetOutput
				if out, err = guarded.Get(db, GetInput{Key: Item{"pk": S(p)}}); err == nil {
					if got, want := out.Item["v"].S(), model[p]; got != want {
						rt.Fatalf("Get %s: %q, model %q", p, got, want)
					}
				}
			case 4:
				allowed = canRead(p)
				var out *QueryOutput
				if out, err = guarded.Query(db, QueryInput{KeyConditionExpression: "pk = :p", ExpressionAttributeValues: map[string]Value{":p": S(p)}}); err == nil {
					if _, ok := model[p]; len(out.Items) != map[bool]int{true: 1}[ok] {
						rt.Fatalf("Query %s: %d items", p, len(out.Items))
					}
				}
			case 5:
				allowed = g.whole
				var out *ScanOutput
				if out, err = guarded.Scan(db, ScanInput{}); err == nil && len(out.Items) != len(model) {
					rt.Fatalf("Scan: %d items, model %d", len(out.Items), len(model))
				}
			case 6:
				if p == q {
					q = p + "x" // a partition no guard allows
				}
				allowed = g.write[p] && g.write[q]
				_, err = TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
					{Put: &TransactPut{Table: guarded, Item: Item{"pk": S(p), "v": S(v)}}},
					{Put: &TransactPut{Table: guarded, Item: Item{"pk": S(q), "v": S(v)}}},
				}})
				apply = func() { model[p], model[q] = v, v }
			case 7:
				if p == q {
					q = p + "x"
				}
				allowed = g.write[p] && g.write[q]
				_, err = BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{guarded: {
					{PutRequest: &PutRequest{Item: Item{"pk": S(p), "v": S(v)}}}, {DeleteRequest: &DeleteRequest{Key: Item{"pk": S(q)}}}}}})
				apply = func() { model[p] = v; delete(model, q) }
			case 8:
				// Answered from the partition's counters: the guard
				// still sees a read of the partition.
				allowed = canRead(p)
				var out *QueryOutput
				if out, err = guarded.Query(db, QueryInput{KeyConditionExpression: "pk = :p", Select: SelectCount,
					ExpressionAttributeValues: map[string]Value{":p": S(p)}}); err == nil {
					if _, ok := model[p]; out.Count != map[bool]int{true: 1}[ok] {
						rt.Fatalf("Query COUNT %s: %d", p, out.Count)
					}
				}
			case 9:
				// Answered from the table's counters: a read of the
				// whole table.
				allowed = g.whole
				var out *ScanOutput
				if out, err = guarded.Scan(db, ScanInput{Select: SelectCount}); err == nil && out.Count != len(model) {
					rt.Fatalf("Scan COUNT: %d, model %d", out.Count, len(model))
				}
			}
			switch {
			case allowed && err != nil:
				rt.Fatalf("an allowed operation failed: %v", err)
			case !allowed && !errors.Is(err, errDenied):
				rt.Fatalf("a refused operation: %v, want the guard's error", err)
			case allowed:
				apply()
			}
			if diff := cmp.Diff(model, storedValues(rt, db, tbl)); diff != "" {
				rt.Fatalf("stored items differ from the model (-model +stored):\n%s", diff)
			}
		}
	})
}

// storedValues reads every item of tbl through the unguarded handle.
func storedValues(rt *rapid.T, db fdb.Database, tbl *Table) map[string]string {
	out, err := tbl.Scan(db, ScanInput{ConsistentRead: true})
	if err != nil {
		rt.Fatal(err)
	}
	m := map[string]string{}
	for _, it := range out.Items {
		m[it["pk"].S()] = it["v"].S()
	}
	return m
}
