package fdyno

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// item_ops.go holds what Put, Get, Update and Delete share: ReturnValues,
// expression preparation and reading the target item.

// ReturnValue is the ReturnValues parameter of a write: which attributes,
// as they were before or after the write, to return. The zero value is
// NONE.
type ReturnValue string

// The ReturnValues of DynamoDB's writes. Put and Delete accept NONE and
// ALL_OLD; Update accepts all five.
const (
	ReturnValueNone       ReturnValue = "NONE"
	ReturnValueAllOld     ReturnValue = "ALL_OLD"
	ReturnValueUpdatedOld ReturnValue = "UPDATED_OLD"
	ReturnValueAllNew     ReturnValue = "ALL_NEW"
	ReturnValueUpdatedNew ReturnValue = "UPDATED_NEW"
)

// ReturnValuesOnConditionCheckFailure says whether a failed condition
// returns the item as it was (ALL_OLD) in the
// *[ConditionalCheckFailedError]. The zero value is NONE.
type ReturnValuesOnConditionCheckFailure string

// The ReturnValuesOnConditionCheckFailure values.
const (
	ReturnValuesOnConditionCheckFailureNone   ReturnValuesOnConditionCheckFailure = "NONE"
	ReturnValuesOnConditionCheckFailureAllOld ReturnValuesOnConditionCheckFailure = "ALL_OLD"
)

func checkReturnValues(op string, rv ReturnValue, allowed ...ReturnValue) error {
	if rv == "" || rv == ReturnValueNone {
		return nil
	}
	for _, a := range allowed {
		if rv == a {
			return nil
		}
	}
	return &ValidationError{Op: op, Reason: "Return values set to invalid value: " + string(rv)}
}

func checkReturnOnFailure(op string, r ReturnValuesOnConditionCheckFailure) error {
	switch r {
	case "", ReturnValuesOnConditionCheckFailureNone, ReturnValuesOnConditionCheckFailureAllOld:
		return nil
	}
	return &ValidationError{Op: op, Reason: "ReturnValuesOnConditionCheckFailure set to invalid value: " + string(r)}
}

// exprs are a request's parsed expressions; absent ones are nil.
type exprs struct {
	cond *condition
	upd  *update
	proj *projection
}

// prepareExprs parses a request's expressions with its placeholders and
// checks that every placeholder is used.
func prepareExprs(op string, names map[string]string, values map[string]Value, cond, upd, proj string) (exprs, error) {
	var e exprs
	if cond == "" && upd == "" && proj == "" {
		switch {
		case names != nil:
			return e, &ValidationError{Op: op, Reason: "ExpressionAttributeNames can only be specified when using expressions"}
		case values != nil:
			reason := "ExpressionAttributeValues can only be specified when using expressions"
			if op == "PutItem" || op == "DeleteItem" {
				// DynamoDB names the expression that could have used them.
				reason += ": ConditionExpression is null"
			}
			return e, &ValidationError{Op: op, Reason: reason}
		}
		return e, nil
	}
	c, err := newExprContext(names, values)
	if err == nil && proj != "" {
		e.proj, err = parseProjection(c, proj)
	}
	if err == nil && upd != "" {
		e.upd, err = parseUpdate(c, upd)
	}
	if err == nil && cond != "" {
		e.cond, err = parseCondition(c, cond)
	}
	if err == nil {
		err = checkAllUsed(c)
	}
	return e, withOp(op, err)
}

// checkIndexKeys checks that the attributes of it that are index keys
// have their declared types and are not empty; DynamoDB rejects the write
// otherwise, with its update's own text for an empty value when updated
// says it is an update's result.
func checkIndexKeys(op string, it Item, st *tableState, updated bool) error {
	for _, ik := range st.indexKeys {
		name := ik.name
		v, ok := it[name]
		if !ok {
			continue
		}
		if v.typ != ik.typ {
			return &ValidationError{Op: op, Path: name, Reason: "One or more parameter values were invalid: Type mismatch for Index Key " +
				name + " Expected: " + ik.typ.String() + " Actual: " + v.typ.String() + " IndexName: " + ik.index}
		}
		if (v.typ == TypeS || v.typ == TypeB) && v.s == "" {
			empty := map[Type]string{TypeS: "string", TypeB: "binary"}[v.typ]
			reason := "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty " +
				empty + " value. IndexName: " + ik.index + ", IndexKey: " + name
			if updated {
				reason = "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty " +
					empty + " value."
			}
			return &ValidationError{Op: op, Path: name, Reason: reason, early: true}
		}
	}
	return checkIndexKeySizes(op, it, st)
}

// target is the item an operation works on, as of its transaction.
type target struct {
	st  *tableState
	kv  []byte
	old Item // nil if absent, or if not read
	// oldKnown says old was read; oldEnc is then its encoding.
	oldKnown bool
	oldEnc   []byte
	// invalid is why the write fails validation against st, a schema
	// that changed after the write was validated; decide returns it.
	invalid error
	// probes are a Put's reads of the slots of unique indexes its item
	// takes (unique.go), started with the item's read.
	probes []uniqueProbe
	// passed is a write's read of the counting pass's cursor, started
	// with the item's read while the pass runs (counts_build.go).
	passed fdb.FutureByteSlice
}

// pendingFetch is the read of the item a request works on, started in a
// transaction and not yet waited on, so that many of them (a batch, a
// transaction's actions) have all their reads in flight at once. It
// resolves the table's current state too: the item read is started
// together with the metadata version read and redone only if the schema
// changed, after the request was validated again against it (a write's
// writeAction.validate, a read's Key).
//
// startFetch starts the head read, resolve waits for the schema and the
// head, readChunks starts a chunked item's chunk reads, finish waits for
// those and decodes; the item loader (loader.go) does the reading. A
// pendingFetch belongs to the transaction it was started in and never
// outlives it.
type pendingFetch struct {
	t       *Table
	op      string
	st0     *tableState
	key     Item         // a read's Key
	w       *writeAction // a write's action, or nil for a read
	needOld bool
	mvf     fdb.FutureByteSlice // may be shared by every fetch of a transaction
	r       itemRead            // the item's read, if needOld
	tg      target
	denied  error // the handle's guard refused the item (access.go)
}

// startFetch starts a fetch whose metadata version read mvf was started
// in l's transaction, for write action w (nil for a read of Key key); the
// item is read if needOld.
func (t *Table) startFetch(l itemLoader, mvf fdb.FutureByteSlice, op string, st0 *tableState, key Item, kv []byte, w *writeAction, needOld bool) pendingFetch {
	f := pendingFetch{t: t, op: op, st0: st0, key: key, w: w, needOld: needOld, mvf: mvf, tg: target{st: st0, kv: kv}}
	if f.denied = t.allowItem(false, kv); f.denied != nil {
		f.needOld = false // nothing is read
		return f
	}
	if needOld {
		f.r = l.get(&st0.keys, kv)
	}
	if w != nil {
		f.tg.passed = startPassed(l.rt, st0)
	}
	return f
}

// resolve waits for the table's state and the item head.
func (f *pendingFetch) resolve(l itemLoader) error {
	if err := f.resolveState(l); err != nil {
		return err
	}
	return f.resolveHead()
}

// resolveState waits for the table's state and, if it is not the one the
// request was validated with, validates the request again and restarts
// the head read under the new keys. A batch resolves the state of every
// fetch before it waits on any head, so that restarted reads are in
// flight together too.
func (f *pendingFetch) resolveState(l itemLoader) error {
	if f.denied != nil {
		return f.denied
	}
	st, err := f.t.current(l.rt, f.mvf)
	if err != nil {
		return err
	}
	if st != f.st0 {
		// Another schema: validate again before anything is written.
		if f.w == nil {
			if f.tg.kv, err = keyOf(f.op, f.key, st.hash, st.rng, true); err != nil {
				return err
			}
		} else if f.tg.kv, err = f.w.validate(st); err != nil {
			if isEarly(err) {
				return err
			}
			// The write is refused as if validated under st from the
			// start: decide returns it, as it would its other errors (a
			// cancellation reason in a TransactWrite). Nothing is read.
			f.tg.st, f.tg.invalid, f.needOld = st, err, false
			return nil
		}
		if err := f.t.allowItem(false, f.tg.kv); err != nil {
			return err
		}
		// An index added since st0 needs the old item too.
		if f.needOld = f.needOld || st.needsOld(); f.needOld {
			f.r = l.get(&st.keys, f.tg.kv)
		}
		if f.w != nil {
			f.tg.passed = startPassed(l.rt, st)
		}
	}
	f.tg.st = st
	return nil
}

// resolveHead waits for the item head (after resolveState).
func (f *pendingFetch) resolveHead() error {
	if !f.needOld {
		return nil
	}
	return f.r.wait()
}

// size returns the encoded size of the resolved item, 0 if absent.
func (f *pendingFetch) size() int { return f.r.size() }

// readChunks starts the chunk reads of a resolved chunked item.
func (f *pendingFetch) readChunks(l itemLoader) { l.follow(&f.r) }

// finish waits for the chunk reads readChunks started and decodes the
// item.
func (f *pendingFetch) finish(l itemLoader) (target, error) {
	if !f.needOld {
		return f.tg, nil
	}
	var err error
	if f.tg.old, f.tg.oldEnc, err = l.load(&f.r); err != nil {
		return target{}, err
	}
	f.tg.oldKnown = true
	return f.tg, nil
}

// conditionFailed returns the error of a failed ConditionExpression.
func conditionFailed(old Item, r ReturnValuesOnConditionCheckFailure) error {
	e := &ConditionalCheckFailedError{}
	if r == ReturnValuesOnConditionCheckFailureAllOld {
		e.Item = old
	}
	return e
}

// fetchAll waits for fetches started together: the table states of all,
// then the heads of all, then the chunks of all, and returns their
// targets in order.
func fetchAll(l itemLoader, fetches []pendingFetch) ([]target, error) {
	if err := resolveAll(l, fetches); err != nil {
		return nil, err
	}
	return finishAll(l, fetches)
}

// resolveAll waits for the table states of fetches started together, then
// for their heads.
func resolveAll(l itemLoader, fetches []pendingFetch) error {
	for i := range fetches {
		if err := fetches[i].resolveState(l); err != nil {
			return err
		}
	}
	for i := range fetches {
		// resolveState restarted the head read if the schema changed
		// under the request and now needs the old item.
		if err := fetches[i].resolveHead(); err != nil {
			return err
		}
	}
	return nil
}

// finishAll starts the chunk reads of resolved fetches, all of them, then
// waits for them and returns the targets in order.
func finishAll(l itemLoader, fetches []pendingFetch) ([]target, error) {
	for i := range fetches {
		fetches[i].readChunks(l)
	}
	tgs := make([]target, len(fetches))
	for i := range fetches {
		var err error
		if tgs[i], err = fetches[i].finish(l); err != nil {
			return nil, err
		}
	}
	return tgs, nil
}

// checkKeyNotUpdated rejects an update expression that touches a key
// attribute, as DynamoDB does even when the value would not change.
func checkKeyNotUpdated(op string, paths []docPath, st *tableState) error {
	for _, p := range paths {
		if name := p[0].Name; name == st.hash.Name || name == st.rng.Name && st.rng.Name != "" {
			return &ValidationError{Op: op, Path: name, Reason: "One or more parameter values were invalid: Cannot update attribute " + name + ". This attribute is part of the key", early: true}
		}
	}
	return nil
}
