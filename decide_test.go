package fdyno

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"pgregory.net/rapid"
)

// TestWriteDecisionPaths: a write is decided in one place, so a random
// action run alone (Put, Update, Delete), as the one action of a
// TransactWrite and, when BatchWrite can express it (a put or a delete
// without condition), in a BatchWrite, leaves the same stored item, index
// entries and change record, and fails the same way. TransactWrite reports
// an item's failure as its cancellation reason, as DynamoDB documents for
// TransactWriteItems: ConditionalCheckFailed with the item when
// ReturnValuesOnConditionCheckFailure is ALL_OLD, ValidationError with the
// validation's message. The tables have a GSI, a stream with both images,
// a small item size limit and a small chunk threshold, so that index key
// types, the size limit and chunked items all come up. A condition check
// has no single-item API; its outcome is checked against the condition's
// verdict instead.
func TestWriteDecisionPaths(t *testing.T) {
	schema := hashRange.clone()
	schema.AttributeDefinitions = append(schema.AttributeDefinitions, AttributeDefinition{"g", ScalarAttributeTypeS})
	schema.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "byG", KeySchema: []KeySchemaElement{{"g", KeyTypeHash}},
		Projection: Projection{ProjectionType: ProjectionTypeAll}}}
	schema.StreamViewType = StreamViewTypeNewAndOldImages
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		open := func(name string) *Table {
			tbl, err := Open(db, name+strconv.Itoa(n), root, WithSchema(schema), WithMaxItemSize(300), WithChunkThreshold(120))
			if err != nil {
				rt.Fatal(err)
			}
			return tbl
		}
		alone, tx, batch := open("Alone"), open("Tx"), open("Batch")
		key := Item{"pk": S("p"), "sk": N("1")}
		var initial Item
		if rapid.Bool().Draw(rt, "exists") {
			initial = drawDecisionItem(rt, "initial", true)
			for _, tbl := range []*Table{alone, tx, batch} {
				if _, err := tbl.Put(db, PutInput{Item: initial}); err != nil {
					rt.Fatalf("initial Put: %v", err)
				}
			}
		}
		act := drawDecisionAction(rt, key)

		// The action alone.
		var aloneErr error
		var attrs Item
		switch {
		case act.put != nil:
			var out *PutOutput
			if out, aloneErr = alone.Put(db, PutInput{Item: act.put, ConditionExpression: act.cond, ExpressionAttributeValues: act.values,
				ReturnValues: act.rv, ReturnValuesOnConditionCheckFailure: act.rvFail}); aloneErr == nil {
				attrs = out.Attributes
			}
		case act.update != "":
			var out *UpdateOutput
			if out, aloneErr = alone.Update(db, UpdateInput{Key: key, UpdateExpression: act.update, ConditionExpression: act.cond,
				ExpressionAttributeValues: act.values, ReturnValues: act.rv, ReturnValuesOnConditionCheckFailure: act.rvFail}); aloneErr == nil {
				attrs = out.Attributes
			}
		case act.delete:
			var out *DeleteOutput
			if out, aloneErr = alone.Delete(db, DeleteInput{Key: key, ConditionExpression: act.cond, ExpressionAttributeValues: act.values,
				ReturnValues: act.rv, ReturnValuesOnConditionCheckFailure: act.rvFail}); aloneErr == nil {
				attrs = out.Attributes
			}
		default: // a condition check: its verdict
			if !act.holds(initial) {
				ccf := &ConditionalCheckFailedError{}
				if act.rvFail == ReturnValuesOnConditionCheckFailureAllOld {
					ccf.Item = initial
				}
				aloneErr = ccf
			}
		}

		// The same action in a TransactWrite.
		var ti TransactWriteItem
		switch {
		case act.put != nil:
			ti.Put = &TransactPut{Table: tx, Item: act.put, ConditionExpression: act.cond, ExpressionAttributeValues: act.values, ReturnValuesOnConditionCheckFailure: act.rvFail}
		case act.update != "":
			ti.Update = &TransactUpdate{Table: tx, Key: key, UpdateExpression: act.update, ConditionExpression: act.cond, ExpressionAttributeValues: act.values, ReturnValuesOnConditionCheckFailure: act.rvFail}
		case act.delete:
			ti.Delete = &TransactDelete{Table: tx, Key: key, ConditionExpression: act.cond, ExpressionAttributeValues: act.values, ReturnValuesOnConditionCheckFailure: act.rvFail}
		default:
			ti.ConditionCheck = &ConditionCheck{Table: tx, Key: key, ConditionExpression: act.cond, ExpressionAttributeValues: act.values, ReturnValuesOnConditionCheckFailure: act.rvFail}
		}
		_, txErr := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{ti}})
		expectTxOutcome(rt, aloneErr, txErr)

		// And in a BatchWrite, if it can say it.
		tables := []*Table{alone, tx}
		if act.cond == "" && (act.put != nil || act.delete) {
			wr := WriteRequest{DeleteRequest: &DeleteRequest{Key: key}}
			if act.put != nil {
				wr = WriteRequest{PutRequest: &PutRequest{Item: act.put}}
			}
			_, batchErr := BatchWrite(db, BatchWriteInput{RequestItems: map[*Table][]WriteRequest{batch: {wr}}})
			expectSameError(rt, "BatchWrite", aloneErr, batchErr)
			tables = append(tables, batch)
		}

		// Stored items, index entries and change records agree.
		var after Item
		for i, tbl := range tables {
			g, err := tbl.Get(db, GetInput{Key: key})
			if err != nil {
				rt.Fatal(err)
			}
			if i == 0 {
				after = g.Item
			}
			expectItem(rt, tbl.name+" item", after, g.Item)
			if p := tableProblems(db, tbl); len(p) > 0 {
				rt.Fatalf("%s: table invariants: %q", tbl.name, p)
			}
		}
		recs := make([][]StreamRecord, len(tables))
		for i, tbl := range tables {
			recs[i] = readStream(rt, db, tbl)
			if i > 0 {
				expectSameRecords(rt, tbl.name, recs[0], recs[i])
			}
		}

		// The return values are those of the stored items (UPDATED_OLD
		// and UPDATED_NEW are TestItemModel's).
		if aloneErr == nil && act.rv != ReturnValueUpdatedOld && act.rv != ReturnValueUpdatedNew {
			var want Item
			switch act.rv {
			case ReturnValueAllOld:
				want = initial
			case ReturnValueAllNew:
				want = after
			}
			expectItem(rt, "Attributes", want, attrs)
		}
		for _, tbl := range []*Table{alone, tx, batch} {
			if err := DeleteTable(db, tbl.name, root); err != nil {
				rt.Fatal(err)
			}
		}
	})
}

// decisionAction is a random write of the item at key.
type decisionAction struct {
	put    Item   // a put's item
	update string // an update's expression
	delete bool
	// none of the three: a condition check
	cond   string
	values map[string]Value
	holds  func(old Item) bool // the condition's verdict
	rv     ReturnValue
	rvFail ReturnValuesOnConditionCheckFailure
}

// drawDecisionItem returns an item at the test's key, chunked or not;
// unless valid, its attributes may break its table's rules: g (the GSI's
// S key) may be a number or empty, big may be over the item size limit.
func drawDecisionItem(t *rapid.T, label string, valid bool) Item {
	bad := 0
	if !valid {
		bad = 2
	}
	it := Item{"pk": S("p"), "sk": N("1")}
	switch rapid.IntRange(0, 2).Draw(t, label+".a") {
	case 1:
		it["a"] = NInt(rapid.Int64Range(0, 2).Draw(t, label+".aN"))
	case 2:
		it["a"] = S("x")
	}
	switch rapid.IntRange(0, 2+bad).Draw(t, label+".g") {
	case 1, 2:
		it["g"] = S(rapid.SampledFrom([]string{"g1", "g2"}).Draw(t, label+".gS"))
	case 3:
		it["g"] = N("7") // not the GSI key's type
	case 4:
		it["g"] = S("") // an empty index key
	}
	if rapid.Bool().Draw(t, label+".hasSet") {
		it["s"] = SS("m", "n")
	}
	if rapid.Bool().Draw(t, label+".hasBig") {
		it["big"] = S(strings.Repeat("b", rapid.SampledFrom([]int{0, 10, 150, 400}[:3+bad/2]).Draw(t, label+".bigLen")))
	}
	return it
}

func drawDecisionAction(t *rapid.T, key Item) decisionAction {
	a := decisionAction{values: map[string]Value{}, holds: func(Item) bool { return true }}
	kind := rapid.SampledFrom([]string{"put", "update", "delete", "check"}).Draw(t, "kind")
	condition := func(required bool) {
		c := max(rapid.IntRange(-3, 4).Draw(t, "cond"), 0) // none about half the time
		if required && c == 0 {
			c = 1
		}
		switch c {
		case 1:
			a.cond, a.holds = "attribute_not_exists(pk)", func(old Item) bool { return old == nil }
		case 2:
			a.cond, a.holds = "attribute_exists(a)", func(old Item) bool { _, ok := old["a"]; return ok }
		case 3:
			v := NInt(rapid.Int64Range(0, 2).Draw(t, "condV"))
			a.cond, a.values[":c"] = "a = :c", v
			a.holds = func(old Item) bool { return old["a"].Equal(v) }
		case 4:
			a.cond, a.values[":n"] = "size(big) < :n", N("100")
			a.holds = func(old Item) bool { b, ok := old["big"]; return ok && len(b.S()) < 100 }
		}
	}
	a.rvFail = rapid.SampledFrom([]ReturnValuesOnConditionCheckFailure{"", ReturnValuesOnConditionCheckFailureAllOld}).Draw(t, "rvFail")
	switch kind {
	case "put":
		a.put = drawDecisionItem(t, "put", false)
		condition(false)
		a.rv = rapid.SampledFrom([]ReturnValue{"", ReturnValueAllOld}).Draw(t, "rv")
	case "delete":
		a.delete = true
		condition(false)
		a.rv = rapid.SampledFrom([]ReturnValue{"", ReturnValueAllOld}).Draw(t, "rv")
	case "check":
		condition(true)
	default:
		clauses := rapid.SliceOfNDistinct(rapid.IntRange(0, 8), 1, 2, rapid.ID[int]).Draw(t, "clauses")
		sections := map[string][]string{} // by clause keyword
		for _, c := range clauses {
			switch c {
			case 0:
				sections["SET"], a.values[":v"] = append(sections["SET"], "a = :v"), NInt(rapid.Int64Range(0, 2).Draw(t, "setV"))
			case 1:
				// Fails if a is absent or not a number.
				sections["SET"], a.values[":one"] = append(sections["SET"], "a = a + :one"), N("1")
			case 2:
				sections["REMOVE"] = append(sections["REMOVE"], "a")
			case 3:
				sections["REMOVE"] = append(sections["REMOVE"], "big")
			case 4:
				sections["SET"], a.values[":big"] = append(sections["SET"], "big = :big"), S(strings.Repeat("u", rapid.SampledFrom([]int{5, 150, 400}).Draw(t, "setBig")))
			case 5:
				sections["SET"], a.values[":g"] = append(sections["SET"], "g = :g"), rapid.SampledFrom([]Value{S("g1"), N("7"), S("")}).Draw(t, "setG")
			case 6:
				sections["ADD"], a.values[":set"] = append(sections["ADD"], "s :set"), SS("n", "o")
			case 7:
				sections["DELETE"], a.values[":set"] = append(sections["DELETE"], "s :set"), SS("n", "o")
			case 8:
				sections["ADD"], a.values[":one"] = append(sections["ADD"], "a :one"), N("1")
			}
		}
		var expr []string
		for _, k := range []string{"SET", "REMOVE", "ADD", "DELETE"} {
			if len(sections[k]) > 0 {
				expr = append(expr, k+" "+strings.Join(sections[k], ", "))
			}
		}
		a.update = strings.Join(expr, " ")
		condition(false)
		a.rv = rapid.SampledFrom([]ReturnValue{"", ReturnValueAllOld, ReturnValueUpdatedOld, ReturnValueAllNew, ReturnValueUpdatedNew}).Draw(t, "rv")
	}
	if len(a.values) == 0 {
		a.values = nil
	}
	return a
}

// expectTxOutcome fails t unless txErr, the error of an action run as the
// one action of a TransactWrite, is what err, the error of the action
// alone, becomes in a TransactWrite.
func expectTxOutcome(t *rapid.T, err, txErr error) {
	t.Helper()
	var ccf *ConditionalCheckFailedError
	var ve *ValidationError
	var tce *TransactionCanceledError
	switch {
	case err == nil:
		if txErr != nil {
			t.Fatalf("alone: success; TransactWrite: %v", txErr)
		}
	case errors.As(err, &ccf):
		if !errors.As(txErr, &tce) || len(tce.CancellationReasons) != 1 || tce.CancellationReasons[0].Code != CancellationCodeConditionalCheckFailed {
			t.Fatalf("alone: %v; TransactWrite: %v, want a ConditionalCheckFailed cancellation", err, txErr)
		}
		expectItem(t, "cancellation reason's Item", ccf.Item, tce.CancellationReasons[0].Item)
	case errors.As(err, &ve):
		if errors.As(txErr, &tce) {
			r := tce.CancellationReasons[0]
			if len(tce.CancellationReasons) != 1 || r.Code != CancellationCodeValidationError || !strings.HasSuffix(r.Message, ve.Reason) {
				t.Fatalf("alone: %v; TransactWrite: %v, want a ValidationError cancellation saying %q", err, txErr, ve.Reason)
			}
			return
		}
		expectSameError(t, "TransactWrite", err, txErr)
	default:
		t.Fatalf("alone: unexpected error %v", err)
	}
}

// expectSameError fails t unless err and other are both nil or both
// validation errors with the same reason (their Op names their request).
func expectSameError(t *rapid.T, what string, err, other error) {
	t.Helper()
	var ve, ove *ValidationError
	switch {
	case err == nil && other == nil:
	case errors.As(err, &ve) && errors.As(other, &ove) && ve.Reason == ove.Reason:
	default:
		t.Fatalf("alone: %v; %s: %v", err, what, other)
	}
}

// expectSameRecords fails t unless two tables' change records say the
// same: events, keys, images and sizes.
func expectSameRecords(t *rapid.T, name string, want, got []StreamRecord) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d change records, want %d", name, len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.EventName != g.EventName || w.SizeBytes != g.SizeBytes {
			t.Fatalf("%s: record %d is %s of %d bytes, want %s of %d", name, i, g.EventName, g.SizeBytes, w.EventName, w.SizeBytes)
		}
		expectItem(t, name+" record keys", w.Keys, g.Keys)
		expectItem(t, name+" record new image", w.NewImage, g.NewImage)
		expectItem(t, name+" record old image", w.OldImage, g.OldImage)
	}
}
