package fdyno

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

var oneValue = map[string]Value{":one": N("1")}

func TestTransactWrite(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db, WithChunkThreshold(300))
	mustPut(t, db, a, Item{"pk": S("checked"), "state": S("open")})
	mustPut(t, db, a, Item{"pk": S("gone"), "big": S(strings.Repeat("g", 1000))})
	mustPut(t, db, b, Item{"pk": S("c"), "sk": N("1"), "n": N("5")})
	_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
		{ConditionCheck: &ConditionCheck{Table: a, Key: Item{"pk": S("checked")}, ConditionExpression: "#s = :open",
			ExpressionAttributeNames: map[string]string{"#s": "state"}, ExpressionAttributeValues: map[string]Value{":open": S("open")}}},
		{Put: &TransactPut{Table: a, Item: Item{"pk": S("new"), "v": N("1")}, ConditionExpression: "attribute_not_exists(pk)"}},
		{Update: &TransactUpdate{Table: b, Key: Item{"pk": S("c"), "sk": N("1")}, UpdateExpression: "ADD n :one", ExpressionAttributeValues: oneValue}},
		{Update: &TransactUpdate{Table: b, Key: Item{"pk": S("c"), "sk": N("2")}, UpdateExpression: "SET n = :one", ExpressionAttributeValues: oneValue}},
		{Delete: &TransactDelete{Table: a, Key: Item{"pk": S("gone")}, ConditionExpression: "attribute_exists(big)"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tbl  *Table
		key  Item
		want Item
	}{
		{a, Item{"pk": S("checked")}, Item{"pk": S("checked"), "state": S("open")}},
		{a, Item{"pk": S("new")}, Item{"pk": S("new"), "v": N("1")}},
		{a, Item{"pk": S("gone")}, nil},
		{b, Item{"pk": S("c"), "sk": N("1")}, Item{"pk": S("c"), "sk": N("1"), "n": N("6")}},
		{b, Item{"pk": S("c"), "sk": N("2")}, Item{"pk": S("c"), "sk": N("2"), "n": N("1")}},
	} {
		if diff := cmp.Diff(c.want, mustGet(t, db, c.tbl, c.key), itemCmp); diff != "" {
			t.Errorf("%v mismatch (-want +got):\n%s", c.key, diff)
		}
	}
}

// A failed condition or an update that cannot apply cancels the whole
// transaction: nothing is written, and the error lists one reason per
// action in request order (TransactWriteItems API reference:
// CancellationReasons, "None" for the others), with the old item for
// ConditionalCheckFailed when ReturnValuesOnConditionCheckFailure is
// ALL_OLD.
func TestTransactWriteCanceled(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db)
	acct := Item{"pk": S("acct"), "bal": N("10"), "name": S("x")}
	mustPut(t, db, a, acct)
	mustPut(t, db, b, Item{"pk": S("p"), "sk": N("1"), "s": S("str")})
	low := map[string]Value{":amt": N("50")}
	tests := []struct {
		name  string
		items []TransactWriteItem
		want  []CancellationReason
	}{
		{"condition fails, with ALL_OLD", []TransactWriteItem{
			{Put: &TransactPut{Table: a, Item: Item{"pk": S("other")}}},
			{Update: &TransactUpdate{Table: a, Key: Item{"pk": S("acct")}, UpdateExpression: "SET bal = bal - :amt", ConditionExpression: "bal >= :amt",
				ExpressionAttributeValues: low, ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailureAllOld}},
		}, []CancellationReason{{Code: "None"}, {Code: "ConditionalCheckFailed", Message: "The conditional request failed", Item: acct}}},
		{"condition fails without ALL_OLD, on a missing item", []TransactWriteItem{
			{ConditionCheck: &ConditionCheck{Table: a, Key: Item{"pk": S("missing")}, ConditionExpression: "attribute_exists(pk)",
				ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailureAllOld}},
			{Delete: &TransactDelete{Table: a, Key: Item{"pk": S("acct")}, ConditionExpression: "attribute_not_exists(pk)"}},
			{Put: &TransactPut{Table: a, Item: Item{"pk": S("other")}}},
		}, []CancellationReason{{Code: "ConditionalCheckFailed", Message: "The conditional request failed"},
			{Code: "ConditionalCheckFailed", Message: "The conditional request failed"}, {Code: "None"}}},
		{"update of the wrong type", []TransactWriteItem{
			{Put: &TransactPut{Table: a, Item: Item{"pk": S("other")}}},
			{Update: &TransactUpdate{Table: b, Key: Item{"pk": S("p"), "sk": N("1")}, UpdateExpression: "ADD s :one", ExpressionAttributeValues: oneValue}},
		}, nil},
		{"update makes the item too large", []TransactWriteItem{
			{Update: &TransactUpdate{Table: b, Key: Item{"pk": S("p"), "sk": N("1")}, UpdateExpression: "SET padding = :pad",
				ExpressionAttributeValues: map[string]Value{":pad": S(strings.Repeat("p", DefaultMaxItemSize))}}},
			{Put: &TransactPut{Table: a, Item: Item{"pk": S("other")}}},
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TransactWrite(db, TransactWriteInput{TransactItems: tc.items})
			var tce *TransactionCanceledError
			if !errors.As(err, &tce) || !errors.Is(err, ErrTransactionCanceled) {
				t.Fatalf("TransactWrite = %v, want a TransactionCanceledError", err)
			}
			if errors.Is(err, ErrConditionalCheckFailed) || errors.Is(err, ErrValidation) {
				t.Errorf("%v unwraps to a reason's error; DynamoDB reports TransactionCanceledException only", err)
			}
			got := tce.CancellationReasons
			if tc.want == nil {
				// A ValidationError reason: the message is ours, the code
				// and positions are DynamoDB's.
				if len(got) != len(tc.items) {
					t.Fatalf("%d reasons, want %d", len(got), len(tc.items))
				}
				var codes []string
				for _, r := range got {
					codes = append(codes, r.Code)
					if r.Code == "ValidationError" && r.Message == "" {
						t.Errorf("ValidationError reason without a message")
					}
				}
				if !strings.Contains(strings.Join(codes, ","), "ValidationError") || strings.Count(strings.Join(codes, ","), "None") != len(codes)-1 {
					t.Errorf("codes = %v, want one ValidationError and None for the others", codes)
				}
			} else if diff := cmp.Diff(tc.want, got, itemCmp); diff != "" {
				t.Errorf("CancellationReasons mismatch (-want +got):\n%s", diff)
			}
			wantMsg := "Transaction cancelled, please refer cancellation reasons for specific reasons ["
			if !strings.Contains(err.Error(), wantMsg) {
				t.Errorf("message %q, want DynamoDB's %q…", err, wantMsg)
			}
			if got := mustGet(t, db, a, Item{"pk": S("other")}); got != nil {
				t.Errorf("canceled transaction wrote %v", got)
			}
			if diff := cmp.Diff(acct, mustGet(t, db, a, Item{"pk": S("acct")}), itemCmp); diff != "" {
				t.Errorf("canceled transaction changed acct (-want +got):\n%s", diff)
			}
		})
	}
}

// Requests that are malformed fail with a ValidationException before the
// transaction, as DynamoDB's request validation does.
func TestTransactWriteValidation(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db, WithMaxItemSize(MaxItemSizeLimit))
	other := mustOpen(t, db, "Test", testRootOf(a))
	key := Item{"pk": S("k")}
	huge := func(pk string) TransactWriteItem {
		return TransactWriteItem{Put: &TransactPut{Table: a, Item: Item{"pk": S(pk), "pad": S(strings.Repeat("h", 3_000_000))}}}
	}
	tests := []struct {
		name string
		in   TransactWriteInput
		want string
	}{
		{"empty", TransactWriteInput{}, "at 'transactItems' failed to satisfy constraint"},
		{"two actions on one item", TransactWriteInput{TransactItems: []TransactWriteItem{
			{Put: &TransactPut{Table: a, Item: Item{"pk": S("k"), "v": N("1")}}},
			{ConditionCheck: &ConditionCheck{Table: other, Key: key, ConditionExpression: "attribute_exists(pk)"}},
		}}, "Transaction request cannot include multiple operations on one item"},
		{"no action", TransactWriteInput{TransactItems: []TransactWriteItem{{}}}, "one of Check, Put, Update or Delete"},
		{"two kinds in one action", TransactWriteInput{TransactItems: []TransactWriteItem{{
			Put: &TransactPut{Table: a, Item: key}, Delete: &TransactDelete{Table: a, Key: key}}}}, "one of Check, Put, Update or Delete"},
		{"check without condition", TransactWriteInput{TransactItems: []TransactWriteItem{{ConditionCheck: &ConditionCheck{Table: a, Key: key}}}},
			"conditionExpression' failed to satisfy constraint: Member must not be null"},
		{"update without expression", TransactWriteInput{TransactItems: []TransactWriteItem{{Update: &TransactUpdate{Table: a, Key: key}}}},
			"updateExpression' failed to satisfy constraint: Member must not be null"},
		{"update of a key attribute", TransactWriteInput{TransactItems: []TransactWriteItem{{Update: &TransactUpdate{Table: b, Key: Item{"pk": S("p"), "sk": N("1")},
			UpdateExpression: "SET sk = :one", ExpressionAttributeValues: oneValue}}}}, "Cannot update attribute sk. This attribute is part of the key"},
		{"no table", TransactWriteInput{TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Key: key}}}}, "no Table"},
		{"bad condition", TransactWriteInput{TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Table: a, Key: key, ConditionExpression: "pk = "}}}}, "TransactItems[0]"},
		{"unused value", TransactWriteInput{TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Table: a, Key: key, ConditionExpression: "attribute_exists(pk)", ExpressionAttributeValues: oneValue}}}},
			"unused in expressions"},
		{"bad return option", TransactWriteInput{TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Table: a, Key: key, ReturnValuesOnConditionCheckFailure: "ALL_NEW"}}}},
			"ReturnValuesOnConditionCheckFailure set to invalid value"},
		{"token too long", TransactWriteInput{ClientRequestToken: strings.Repeat("t", 37), TransactItems: []TransactWriteItem{{Delete: &TransactDelete{Table: a, Key: key}}}},
			"Member must have length less than or equal to 36"},
		{"writes above the size limit", TransactWriteInput{TransactItems: []TransactWriteItem{huge("h1"), huge("h2"), huge("h3")}},
			"Transaction size has exceeded the maximum allowed size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TransactWrite(db, tc.in)
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("TransactWrite = %v, want a ValidationError with %q", err, tc.want)
			}
			if got := mustGet(t, db, a, key); got != nil {
				t.Errorf("invalid request wrote %v", got)
			}
			if got := mustGet(t, db, a, Item{"pk": S("h1")}); got != nil {
				t.Errorf("invalid request wrote h1")
			}
		})
	}
}

// TransactWrite joins the caller's transaction: its writes commit with
// the caller's, and a canceled one leaves the caller's transaction free
// to commit its other writes.
func TestTransactWriteInCallerTransaction(t *testing.T) {
	db := fdblitetest.Open(t)
	a, _ := twoTables(t, db)
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		mustPut(t, tr, a, Item{"pk": S("mine")})
		_, err := TransactWrite(tr, TransactWriteInput{TransactItems: []TransactWriteItem{
			{Put: &TransactPut{Table: a, Item: Item{"pk": S("x")}}},
			{ConditionCheck: &ConditionCheck{Table: a, Key: Item{"pk": S("mine")}, ConditionExpression: "attribute_not_exists(pk)"}},
		}})
		if !errors.Is(err, ErrTransactionCanceled) {
			t.Errorf("TransactWrite = %v, want canceled (it sees the caller's put)", err)
		}
		return TransactWrite(tr, TransactWriteInput{TransactItems: []TransactWriteItem{
			{Update: &TransactUpdate{Table: a, Key: Item{"pk": S("mine")}, UpdateExpression: "SET v = :one", ExpressionAttributeValues: oneValue}},
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, db, a, Item{"pk": S("x")}); got != nil {
		t.Errorf("canceled TransactWrite wrote %v in the caller's transaction", got)
	}
	if diff := cmp.Diff(Item{"pk": S("mine"), "v": N("1")}, mustGet(t, db, a, Item{"pk": S("mine")}), itemCmp); diff != "" {
		t.Errorf("mine mismatch (-want +got):\n%s", diff)
	}
}

// batchClock is the tests' fake clock for WithClock.
type batchClock = testtime.Clock

func newBatchClock() *batchClock { return testtime.NewClock(time.Unix(1_800_000_000, 0)) }

// tokenRecords counts the ClientRequestToken records and expiry entries
// under tbl's root.
func tokenRecords(t *testing.T, db fdb.Database, tbl *Table) (records, entries int) {
	t.Helper()
	_, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		root, err := directory.Open(rt, tbl.path[:len(tbl.path)-1], nil)
		if err != nil {
			return nil, err
		}
		k := newTokenKeys(root)
		r, err := rt.GetRange(k.tokens, fdb.RangeOptions{}).GetSliceWithError()
		if err != nil {
			return nil, err
		}
		e, err := rt.GetRange(k.byExpiry, fdb.RangeOptions{}).GetSliceWithError()
		records, entries = len(r), len(e)
		return nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return records, entries
}

// ClientRequestToken (TransactWriteItems API reference): a retry with the
// same token and request within 10 minutes succeeds without writing; the
// same token with another request is an IdempotentParameterMismatch; after
// the window the token is free again. Records never show as tables and do
// not accumulate.
func TestTransactWriteClientRequestToken(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := newBatchClock()
	a, _ := twoTables(t, db, WithClock(clock.Now))
	add := func(token string, amount string) error {
		_, err := TransactWrite(db, TransactWriteInput{ClientRequestToken: token, TransactItems: []TransactWriteItem{
			{Update: &TransactUpdate{Table: a, Key: Item{"pk": S("c")}, UpdateExpression: "ADD n :a", ExpressionAttributeValues: map[string]Value{":a": N(amount)}}},
		}})
		return err
	}
	counter := func() string { return mustGet(t, db, a, Item{"pk": S("c")})["n"].N() }
	if err := add("tok-1", "1"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(9 * time.Minute)
	if err := add("tok-1", "1"); err != nil {
		t.Fatalf("retry with the same token: %v, want success", err)
	}
	if got := counter(); got != "1" {
		t.Errorf("counter = %s after a retried request, want 1 (applied once)", got)
	}
	if err := add("tok-1", "2"); !errors.Is(err, ErrIdempotentParameterMismatch) {
		t.Errorf("same token, other request = %v, want ErrIdempotentParameterMismatch", err)
	}
	clock.Advance(2 * time.Minute) // 11 minutes after the first commit
	if err := add("tok-1", "2"); err != nil {
		t.Fatalf("token after its window: %v", err)
	}
	if got := counter(); got != "3" {
		t.Errorf("counter = %s, want 3 (the token was free again)", got)
	}
	// A canceled request does not take its token.
	_, err := TransactWrite(db, TransactWriteInput{ClientRequestToken: "tok-2", TransactItems: []TransactWriteItem{
		{ConditionCheck: &ConditionCheck{Table: a, Key: Item{"pk": S("c")}, ConditionExpression: "attribute_not_exists(pk)"}},
	}})
	if !errors.Is(err, ErrTransactionCanceled) {
		t.Fatalf("TransactWrite = %v, want canceled", err)
	}
	if err := add("tok-2", "1"); err != nil {
		t.Errorf("token of a canceled request: %v, want it unused", err)
	}
	names, err := ListTables(db, testRootOf(a))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Other", "Test"}, names); diff != "" {
		t.Errorf("ListTables mismatch (-want +got):\n%s", diff)
	}

	// Bounded growth: 20 tokens, then their window passes; each later
	// request with a token removes up to tokenCleanupPerWrite expired
	// records besides adding its own.
	for i := range 20 {
		if err := add("bulk-"+strconv.Itoa(i), "0"); err != nil {
			t.Fatal(err)
		}
	}
	r, e := tokenRecords(t, db, a)
	if r != 22 || e != 22 { // tok-1, tok-2 and 20
		t.Fatalf("%d records, %d expiry entries; want 22 each", r, e)
	}
	clock.Advance(ClientRequestTokenWindow + time.Second)
	for i := range 3 {
		if err := add("late-"+strconv.Itoa(i), "0"); err != nil {
			t.Fatal(err)
		}
		r, e = tokenRecords(t, db, a)
		want := 22 - (i+1)*tokenCleanupPerWrite + (i + 1)
		if r != want || e != want {
			t.Errorf("after %d late requests: %d records, %d entries; want %d", i+1, r, e, want)
		}
	}
}

// A stored token record that fdyno cannot have written is reported as
// ErrCorrupt, and the request writes nothing.
func TestTransactWriteCorruptTokenRecord(t *testing.T) {
	db := fdblitetest.Open(t)
	a, _ := twoTables(t, db)
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		root, err := directory.Open(tr, a.path[:len(a.path)-1], nil)
		if err != nil {
			return nil, err
		}
		tr.Set(newTokenKeys(root).tokenKey("tok"), []byte{0x09, 1, 2})
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = TransactWrite(db, TransactWriteInput{ClientRequestToken: "tok", TransactItems: []TransactWriteItem{
		{Put: &TransactPut{Table: a, Item: Item{"pk": S("x")}}},
	}})
	var ce *CorruptError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) || ce.What != "ClientRequestToken record" {
		t.Fatalf("TransactWrite over a corrupt token record = %v, want a *CorruptError", err)
	}
	if it, err := a.Get(db, GetInput{Key: Item{"pk": S("x")}}); err != nil || it.Item != nil {
		t.Errorf("Get after the failed write = %v, %v; want nothing written", it, err)
	}
}

// An action whose item does not fit its table (a key of the wrong type, a
// missing key attribute, a Put item over the size limit) cancels the
// transaction, as DynamoDB's TransactWriteItems reports it: a
// TransactionCanceledException whose reason for that action is
// ValidationError and None for the others (API_TransactWriteItems,
// "CancellationReasons"). Nothing is written.
func TestTransactWriteItemValidationCancels(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db)
	put := TransactWriteItem{Put: &TransactPut{Table: a, Item: Item{"pk": S("written")}}}
	tests := []struct {
		name   string
		action TransactWriteItem
		want   string // in the reason's message
	}{
		{"key of the wrong type", TransactWriteItem{Update: &TransactUpdate{Table: a, Key: Item{"pk": N("1")}, UpdateExpression: "SET v = :one", ExpressionAttributeValues: oneValue}},
			"does not match the schema"},
		{"missing range key", TransactWriteItem{Delete: &TransactDelete{Table: b, Key: Item{"pk": S("p")}}}, "does not match the schema"},
		{"put without its key", TransactWriteItem{Put: &TransactPut{Table: a, Item: Item{"other": S("x")}}}, "Missing the key pk"},
		{"check with an extra key attribute", TransactWriteItem{ConditionCheck: &ConditionCheck{Table: a, Key: Item{"pk": S("k"), "sk": N("1")},
			ConditionExpression: "attribute_exists(pk)"}}, "does not match the schema"},
		{"put item too large", TransactWriteItem{Put: &TransactPut{Table: a, Item: Item{"pk": S("big"), "pad": S(strings.Repeat("x", DefaultMaxItemSize))}}},
			"Item size has exceeded the maximum allowed size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{put, tc.action}})
			var tce *TransactionCanceledError
			if !errors.As(err, &tce) {
				t.Fatalf("TransactWrite = %v, want a *TransactionCanceledError", err)
			}
			if errors.Is(err, ErrValidation) {
				t.Errorf("%v is also ErrValidation; DynamoDB reports TransactionCanceledException only", err)
			}
			got := tce.CancellationReasons
			if len(got) != 2 || got[0].Code != "None" || got[1].Code != "ValidationError" || !strings.Contains(got[1].Message, tc.want) {
				t.Errorf("reasons = %+v, want [None, ValidationError with %q]", got, tc.want)
			}
			if got := mustGet(t, db, a, Item{"pk": S("written")}); got != nil {
				t.Errorf("canceled transaction wrote %v", got)
			}
		})
	}
	// Problems of the request itself stay request errors, even beside an
	// invalid action.
	_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
		put, put, {Delete: &TransactDelete{Table: b, Key: Item{"pk": S("p")}}},
	}})
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Reason, "multiple operations on one item") {
		t.Errorf("two actions on one item beside an invalid key = %v, want the request's ValidationException", err)
	}
}

// When several actions are invalid, DynamoDB stops at the first: only it
// has its ValidationError code, every other action None, whether the
// problem is found before the transaction reads (a key that does not fit
// the schema) or while it evaluates (an update that cannot apply). Failed
// conditions are all reported, invalid actions or not.
func TestTransactWriteFirstInvalidOnly(t *testing.T) {
	db := fdblitetest.Open(t)
	a, b := twoTables(t, db)
	mustPut(t, db, a, Item{"pk": S("s1"), "s": S("str")})
	mustPut(t, db, a, Item{"pk": S("s2"), "s": S("str")})
	mustPut(t, db, a, Item{"pk": S("held")})
	put := func(pk string) TransactWriteItem {
		return TransactWriteItem{Put: &TransactPut{Table: a, Item: Item{"pk": S(pk)}}}
	}
	badKey := func(n string) TransactWriteItem { // a number key on a string key
		return TransactWriteItem{Delete: &TransactDelete{Table: a, Key: Item{"pk": N(n)}}}
	}
	noRange := func(pk string) TransactWriteItem { // b's key lacks sk
		return TransactWriteItem{Delete: &TransactDelete{Table: b, Key: Item{"pk": S(pk)}}}
	}
	addToString := func(pk string) TransactWriteItem { // ADD to an S attribute
		return TransactWriteItem{Update: &TransactUpdate{Table: a, Key: Item{"pk": S(pk)}, UpdateExpression: "ADD s :one", ExpressionAttributeValues: oneValue}}
	}
	failing := TransactWriteItem{ConditionCheck: &ConditionCheck{Table: a, Key: Item{"pk": S("held")}, ConditionExpression: "attribute_not_exists(pk)"}}
	const (
		none = "None"
		ve   = "ValidationError"
		ccf  = "ConditionalCheckFailed"
	)
	for _, tc := range []struct {
		name  string
		items []TransactWriteItem
		want  []string
	}{
		{"two bad keys", []TransactWriteItem{badKey("1"), badKey("2")}, []string{ve, none}},
		{"a valid action, then three bad keys", []TransactWriteItem{put("w"), noRange("x"), badKey("3"), noRange("y")}, []string{none, ve, none, none}},
		{"a bad key beside a failing condition", []TransactWriteItem{failing, badKey("4")}, []string{none, ve}},
		{"two updates that cannot apply", []TransactWriteItem{addToString("s1"), put("w"), addToString("s2")}, []string{ve, none, none}},
		{"failing conditions are all reported", []TransactWriteItem{failing, addToString("s1"), addToString("s2")}, []string{ccf, ve, none}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TransactWrite(db, TransactWriteInput{TransactItems: tc.items})
			var tce *TransactionCanceledError
			if !errors.As(err, &tce) {
				t.Fatalf("TransactWrite = %v, want a *TransactionCanceledError", err)
			}
			var got []string
			for _, r := range tce.CancellationReasons {
				got = append(got, r.Code)
				if r.Code == none && r.Message != "" {
					t.Errorf("a None reason with a message: %+v", r)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CancellationReasons codes mismatch (-want +got):\n%s", diff)
			}
			if got := mustGet(t, db, a, Item{"pk": S("w")}); got != nil {
				t.Errorf("canceled transaction wrote %v", got)
			}
		})
	}
}
