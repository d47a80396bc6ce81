package fdyno

import (
	"errors"
	"strings"
	"testing"
)

// An item over the size limit is refused with DynamoDB's text, which names
// no sizes: "Item size has exceeded the maximum allowed size" for a put
// (PutItem, BatchWriteItem, a transaction's Put; captured from DynamoDB in
// the public conformance suite and moto's aws_verified tests) and "Item
// size to update has exceeded the maximum allowed size" for the result of
// an update (the UpdateItem API reference's list of ValidationException
// causes), inside a transaction too. Nothing is written.
func TestItemSizeTexts(t *testing.T) {
	db, tbl := openTestTable(t, hashOnly)
	big := S(strings.Repeat("x", DefaultMaxItemSize))
	half := S(strings.Repeat("y", DefaultMaxItemSize/2+8))
	if _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("grow"), "a": half}}); err != nil {
		t.Fatal(err)
	}
	const put, update = "Item size has exceeded the maximum allowed size", "Item size to update has exceeded the maximum allowed size"
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"PutItem", func() error { _, err := tbl.Put(db, PutInput{Item: Item{"pk": S("big"), "v": big}}); return err }, put},
		{"BatchWriteItem", func() error {
			_, err := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{tbl: {{PutRequest: &PutRequest{Item: Item{"pk": S("big"), "v": big}}}}}})
			return err
		}, put},
		{"UpdateItem", func() error {
			_, err := tbl.Update(db, UpdateInput{Key: Item{"pk": S("grow")}, UpdateExpression: "SET b = :h", ExpressionAttributeValues: map[string]Value{":h": half}})
			return err
		}, update},
		{"TransactWriteItems Put", func() error {
			_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Put: &TransactPut{Table: tbl, Item: Item{"pk": S("big"), "v": big}}}}})
			return err
		}, put},
		{"TransactWriteItems Update", func() error {
			_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{{Update: &TransactUpdate{Table: tbl, Key: Item{"pk": S("grow")},
				UpdateExpression: "SET b = :h", ExpressionAttributeValues: map[string]Value{":h": half}}}}})
			return err
		}, update},
	} {
		err := tc.run()
		var ve *ValidationError
		var tce *TransactionCanceledError
		switch {
		case errors.As(err, &tce):
			found := false
			for _, r := range tce.CancellationReasons {
				if r.Code == CancellationCodeValidationError {
					found = true
					if r.Message != tc.want {
						t.Errorf("%s: cancellation reason %q, want %q", tc.name, r.Message, tc.want)
					}
				}
			}
			if !found {
				t.Errorf("%s: %v, want a ValidationError reason", tc.name, err)
			}
		case errors.As(err, &ve):
			if ve.Reason != tc.want {
				t.Errorf("%s: %q, want %q", tc.name, ve.Reason, tc.want)
			}
		default:
			t.Errorf("%s: %v, want a ValidationError", tc.name, err)
		}
	}
	out, err := tbl.Scan(db, ScanInput{ConsistentRead: true})
	if err != nil || len(out.Items) != 1 || len(out.Items[0]) != 2 {
		t.Errorf("after the refused writes: %v items (%v), want only grow's, unchanged", len(out.Items), err)
	}
}

// A cancellation reason of an invalid item is DynamoDB's text alone, as
// the same error outside a transaction is, with no attribute path before
// it: "One or more parameter values were invalid: Type mismatch for
// Index Key g Expected: S Actual: N IndexName: byG", not "g: One or more
// ...".
func TestCancellationReasonText(t *testing.T) {
	db, tbl := openTestTable(t, crashSchema)
	_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
		{Put: &TransactPut{Table: tbl, Item: Item{"pk": S("a"), "sk": N("1")}}},
		{Put: &TransactPut{Table: tbl, Item: Item{"pk": S("b"), "sk": N("1"), "g": N("7")}}},
	}})
	var tce *TransactionCanceledError
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 {
		t.Fatalf("TransactWrite: %v, want a cancellation with two reasons", err)
	}
	want := CancellationReason{Code: CancellationCodeValidationError, Message: "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: byG"}
	if got := tce.CancellationReasons[1]; got.Code != want.Code || got.Message != want.Message {
		t.Errorf("reason %+v, want %+v", got, want)
	}
}
