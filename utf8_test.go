package fdyno

import (
	"errors"
	"testing"
)

// TestInvalidUTF8Refused writes, reads and updates with strings that are
// not UTF-8 (a raw 0xff, a sequence cut short after 0xc3) in every place a
// string reaches the library: key and non-key S values, SS members,
// attribute names at the top and inside maps, ExpressionAttributeNames and
// ExpressionAttributeValues, batch writes. DynamoDB's wire refuses such
// bytes (SerializationException), so nothing may be stored that the wire
// could not return unchanged: each is an ErrValidation and writes nothing.
// In particular the keys "\xc3" and "\xff", which a U+FFFD rewrite would
// make one, never reach storage.
func TestInvalidUTF8Refused(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"Put key 0xff", func() error { _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("\xff")}}); return err }},
		{"Put key 0xc3", func() error { _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("\xc3")}}); return err }},
		{"Put S", func() error { _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k"), "s": S("a\xffb")}}); return err }},
		{"Put SS member", func() error {
			_, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k"), "ss": SS("ok", "\xc3")}})
			return err
		}},
		{"Put name", func() error { _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k"), "\xff": N("1")}}); return err }},
		{"Put nested map key", func() error {
			_, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k"), "m": M(Item{"ok": M(Item{"\xc3": S("x")})})}})
			return err
		}},
		{"Put S in a list", func() error { _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("k"), "l": L(S("\xff"))}}); return err }},
		{"Get key", func() error { _, err := tbl.Get(db, GetInput{Key: Item{"pk": S("\xff")}}); return err }},
		{"Delete key", func() error { _, err := tbl.Delete(db, DeleteInput{Key: Item{"pk": S("\xc3")}}); return err }},
		{"Update key", func() error {
			_, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("\xff")}, UpdateExpression: "SET a = :v", ExpressionAttributeValues: map[string]Value{":v": N("1")}})
			return err
		}},
		{"Update value", func() error {
			_, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("k")}, UpdateExpression: "SET a = :v", ExpressionAttributeValues: map[string]Value{":v": S("\xff")}})
			return err
		}},
		{"Update name", func() error {
			_, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("k")}, UpdateExpression: "SET #n = :v",
				ExpressionAttributeNames: map[string]string{"#n": "\xc3"}, ExpressionAttributeValues: map[string]Value{":v": N("1")}})
			return err
		}},
		{"Update nested name", func() error {
			_, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("k")}, UpdateExpression: "SET m = :v",
				ExpressionAttributeValues: map[string]Value{":v": M(Item{"\xff": N("1")})}})
			return err
		}},
		{"BatchWrite", func() error {
			_, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {{PutRequest: &PutRequest{Item: Item{"pk": S("k"), "s": S("\xff")}}}}}})
			return err
		}},
		{"Scan filter value", func() error {
			_, err := tbl.Scan(db, ScanInput{FilterExpression: "s = :v", ExpressionAttributeValues: map[string]Value{":v": S("\xff")}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var ve *ValidationError
			if !errors.Is(err, ErrValidation) || !errors.As(err, &ve) {
				t.Fatalf("error %v, want a *ValidationError", err)
			}
			out, err := tbl.Scan(db, ScanInput{})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Items) != 0 {
				t.Fatalf("wrote %v", out.Items)
			}
		})
	}
}

// TestDecodeRefusesInvalidUTF8 checks that the codec's decoder accepts
// only what its encoder writes: a stored S, SS member or name that is not
// UTF-8 is corrupt.
func TestDecodeRefusesInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		// version, 1 attribute, name "a", then the value.
		{"S", []byte{codecVersion, 1, 1, 'a', tagS, 1, 0xff}},
		{"SS member", []byte{codecVersion, 1, 1, 'a', tagSS, 2, 1, 'a', 1, 0xc3}},
		{"name", []byte{codecVersion, 1, 1, 0xff, tagNULL}},
		{"nested name", []byte{codecVersion, 1, 1, 'm', tagM, 1, 1, 0xc3, tagNULL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if it, err := DecodeItem(tc.data); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("DecodeItem = %v, %v; want ErrCorrupt", it, err)
			}
		})
	}
	// The same layouts with valid bytes decode, so the cases above fail
	// for their UTF-8 alone.
	for _, data := range [][]byte{
		{codecVersion, 1, 1, 'a', tagS, 1, 'x'},
		{codecVersion, 1, 1, 'a', tagSS, 2, 1, 'a', 1, 'b'},
		{codecVersion, 1, 1, 'n', tagNULL},
		{codecVersion, 1, 1, 'm', tagM, 1, 1, 'k', tagNULL},
	} {
		if _, err := DecodeItem(data); err != nil {
			t.Errorf("DecodeItem(%x) = %v", data, err)
		}
	}
}
