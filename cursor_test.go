package fdyno

import (
	"bytes"
	"errors"
	"github.com/fdyno/fdyno/internal/expr"
	"testing"
)

// TestCursorTampered checks the cursor rules (cursor.go): a cursor from another
// table, query, segment or direction is refused with a validation error,
// and a cursor changed byte by byte is either refused or resumes inside
// the query's own key range.
func TestCursorTampered(t *testing.T) {
	db, tbl := openTestTable(t, hashRange)
	other, err := Open(db, "Other", testRoot(t, db), WithSchema(hashRange))
	if err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"o", "p", "q"} {
		for i := range 6 {
			it := Item{"pk": S(pk), "sk": NInt(int64(i))}
			mustPut(t, db, tbl, it)
			mustPut(t, db, other, it)
		}
	}
	in := QueryInput{KeyConditionExpression: "pk = :p AND sk < :s", Limit: 2, ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("4")}}
	out, err := tbl.Query(db, in)
	if err != nil {
		t.Fatal(err)
	}
	cursor := out.Cursor
	oout, err := other.Query(db, in)
	if err != nil {
		t.Fatal(err)
	}
	otherCursor := oout.Cursor
	rejects := map[string]struct {
		tbl *Table
		in  QueryInput
	}{
		"other table":     {other, in},
		"other condition": {tbl, QueryInput{KeyConditionExpression: "pk = :p AND sk < :s", ExpressionAttributeValues: map[string]Value{":p": S("p"), ":s": N("5")}}},
		"other partition": {tbl, QueryInput{KeyConditionExpression: "pk = :p AND sk < :s", ExpressionAttributeValues: map[string]Value{":p": S("q"), ":s": N("4")}}},
		"other direction": {tbl, QueryInput{KeyConditionExpression: in.KeyConditionExpression, ScanIndexForward: Forward(false), ExpressionAttributeValues: in.ExpressionAttributeValues}},
	}
	for name, r := range rejects {
		t.Run(name, func(t *testing.T) {
			q := r.in
			q.Cursor = cursor
			if _, err := r.tbl.Query(db, q); !errors.Is(err, ErrValidation) {
				t.Errorf("Query() error = %v, want ErrValidation", err)
			}
		})
	}
	t.Run("scan cursor", func(t *testing.T) {
		sout, err := tbl.Scan(db, ScanInput{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		q := in
		q.Cursor = sout.Cursor
		if _, err := tbl.Query(db, q); !errors.Is(err, ErrValidation) {
			t.Errorf("Query() with a Scan cursor: error = %v, want ErrValidation", err)
		}
	})
	t.Run("each byte", func(t *testing.T) {
		for i := range cursor {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				bad := bytes.Clone(cursor)
				bad[i] ^= x
				q := in
				q.Cursor = bad
				// The tag covers every byte: any change is refused.
				if _, err := tbl.Query(db, q); !errors.Is(err, ErrValidation) {
					t.Errorf("byte %d ^ %#x: error = %v, want ErrValidation", i, x, err)
				}
			}
		}
		for _, bad := range [][]byte{{}, cursor[:1], cursor[:len(cursor)-1], append(bytes.Clone(cursor), 0)} {
			q := in
			q.Cursor = bad
			if _, err := tbl.Query(db, q); !errors.Is(err, ErrValidation) {
				t.Errorf("cursor %x: error = %v, want ErrValidation", bad, err)
			}
		}
	})
	t.Run("forged", func(t *testing.T) {
		// A cursor for another key in range, built as fdyno builds one but
		// without the table's secret key, is refused.
		st := tbl.state.Load()
		kc := &keyCondition{Hash: []Value{S("p")}, Op: expr.SortLt, Lo: N("4")}
		lo, hi, err := kvRange(kc, true)
		if err != nil {
			t.Fatal(err)
		}
		kv, _ := packKeyValues(S("p"), N("0"))
		for _, key := range [][]byte{nil, make([]byte, cursorKeySize)} {
			fp := newCursorFingerprint(key, tbl.name, st.keys.items.Bytes(), "Query", "", lo, hi, true)
			q := in
			q.Cursor = encodeCursor(fp, kv)
			if _, err := tbl.Query(db, q); !errors.Is(err, ErrValidation) {
				t.Errorf("cursor forged with key %x: error = %v, want ErrValidation", key, err)
			}
		}
		// The same construction with the table's key is accepted: the
		// forgery above failed for the key alone.
		fp := newCursorFingerprint(st.cursorKey, tbl.name, st.keys.items.Bytes(), "Query", "", lo, hi, true)
		q := in
		q.Cursor = encodeCursor(fp, kv)
		if _, err := tbl.Query(db, q); err != nil {
			t.Errorf("cursor made with the table's key: %v", err)
		}
	})
	t.Run("recreated table", func(t *testing.T) {
		if err := DeleteTable(db, "Other", testRootOf(other)); err != nil {
			t.Fatal(err)
		}
		again, err := Open(db, "Other", testRootOf(other), WithSchema(hashRange))
		if err != nil {
			t.Fatal(err)
		}
		mustPut(t, db, again, Item{"pk": S("p"), "sk": N("3")})
		q := in
		q.Cursor = otherCursor
		for _, h := range []*Table{other, again} {
			if _, err := h.Query(db, q); !errors.Is(err, ErrValidation) {
				t.Errorf("cursor of the deleted table: error = %v, want ErrValidation", err)
			}
		}
	})
}

// FuzzCursor checks that decoding untrusted cursor bytes never panics,
// accepts only cursors of the request's fingerprint whose key lies in the
// request's range, and round-trips what it accepts.
func FuzzCursor(f *testing.F) {
	st := newTableState(nil, tableKeys{}, hashRange)
	kc := &keyCondition{Hash: []Value{S("p")}, Op: expr.SortLt, Lo: N("10")}
	lo, hi, err := kvRange(kc, true)
	if err != nil {
		f.Fatal(err)
	}
	fp := newCursorFingerprint([]byte("key"), "Test", []byte("prefix"), "Query", "", lo, hi, true)
	for _, sk := range []string{"1", "-3.5", "9.99", "10", "11"} {
		kv, _ := packKeyValues(S("p"), N(sk))
		f.Add(encodeCursor(fp, kv))
	}
	kv, _ := packKeyValues(S("q"), N("1"))
	f.Add(encodeCursor(fp, kv))
	f.Add([]byte{})
	f.Add([]byte{cursorVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		kv, err := decodeCursor(b, fp, st, lo, hi)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("decodeCursor(%x) error %T, want *ValidationError", b, err)
			}
			return
		}
		if !inRange(kv, lo, hi) {
			t.Fatalf("decodeCursor(%x) = %x, outside [%x, %x)", b, kv, lo, hi)
		}
		if _, err := keyItem(st, kv); err != nil {
			t.Fatalf("decodeCursor(%x) = %x, not a key: %v", b, kv, err)
		}
		if got := encodeCursor(fp, kv); !bytes.Equal(got, b) {
			t.Fatalf("decodeCursor(%x) = %x, which encodes to %x", b, kv, got)
		}
	})
}
