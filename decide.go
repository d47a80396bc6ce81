package fdyno

import (
	"maps"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// decide.go holds the write decision: the one function that, given a write
// action and its item as the transaction read it, says what to write, what
// to return and which typed error stops the write. Put, Update and Delete,
// TransactWrite, BatchWrite and the Time to Live sweeper all call it, and
// PartiQL writes through those; so a condition, an update rule, the item
// size limit or a delete of an absent item is judged in one place only.
// What it decides goes to the single write path, writeItem (write.go).

// Kinds of write actions.
const (
	actionCheck = iota + 1
	actionPut
	actionUpdate
	actionDelete
)

// writeAction is one validated write of one item: a put, an update, a
// delete or a condition check.
type writeAction struct {
	t    *Table
	st0  *tableState // the cached state the action was validated with
	kv   []byte      // packed key values under st0
	op   string      // DynamoDB's operation name, for errors
	kind int
	// key is the Key, or a Put's whole Item.
	key Item
	// put is a Put's item, checked and encoded before the transaction.
	put  encodedItem
	cond *condition
	upd  *update
	// paths are the update's paths, checked not to touch a key attribute.
	paths []docPath
	// rv is ReturnValues; rvFail ReturnValuesOnConditionCheckFailure.
	rv     ReturnValue
	rvFail ReturnValuesOnConditionCheckFailure
	// expiredAt, if not zero, makes a delete a Time to Live deletion
	// (ttl.go): it deletes the item only if it has expired at that time
	// under the table's current TimeToLiveAttribute, and its change
	// record says so.
	expiredAt time.Time
}

// encodedItem is a write's new item with its encoding, made once per
// write by encodeNew: the head or chunks, the index entries of an ALL
// projection and the change record's new image all use this encoding.
type encodedItem struct {
	item Item
	enc  []byte
	size int // item.Size()
}

// encodeNew checks it against the item size limit maxSize (with an
// update's text if update) and encodes it.
func encodeNew(it Item, maxSize int, update bool) (encodedItem, error) {
	size := it.Size()
	if err := checkItemSize(size, maxSize, update); err != nil {
		return encodedItem{}, err
	}
	enc, err := EncodeItem(it)
	if err != nil {
		return encodedItem{}, err
	}
	return encodedItem{item: it, enc: enc, size: size}, nil
}

// validate checks action a against table state st, the one place the
// rules of a write's request against its table's schema live: a Key
// holds exactly the table's key attributes, of their declared types; a
// Put's item holds the key attributes, and its index key attributes have
// their declared types; an update's paths touch no key attribute. It
// returns the packed key values under st.
//
// Every request builder calls it before its transaction, through
// prepare; the fetch of a's item calls it again inside the transaction
// when the table's schema changed since (pendingFetch.resolveState), so a
// rule added here holds on both paths. What depends on the stored item
// (an update's result) is decide's.
func (a *writeAction) validate(st *tableState) ([]byte, error) {
	if a.kind == actionPut && a.op == "BatchWriteItem" && !keyTypesMatch(a.key, st.hash, st.rng) {
		// BatchWriteItem words a Put item's missing or mistyped key
		// attribute as a Key's (captured answers: docs/differences.md).
		return nil, &ValidationError{Op: a.op, Reason: reasonKeyMismatch}
	}
	kv, err := keyOf(a.op, a.key, st.hash, st.rng, a.kind != actionPut)
	if err != nil {
		return nil, err
	}
	switch a.kind {
	case actionPut:
		err = checkIndexKeys(a.op, a.key, st, false)
	case actionUpdate:
		err = checkKeyNotUpdated(a.op, a.paths, st)
	}
	return kv, err
}

// prepare validates a against its table's cached state a.st0 before its
// transaction, and checks a Put's item against the size limit and
// encodes it (encoding checks the rest of Item.Validate's rules).
func (a *writeAction) prepare() error {
	kv, err := a.validate(a.st0)
	if err != nil {
		return err
	}
	a.kv = kv
	if a.kind == actionPut {
		size := a.key.Size()
		if err := checkItemSize(size, a.t.maxItemSize, false); err != nil {
			return withOp(a.op, err)
		}
		enc, err := EncodeItem(a.key)
		if err != nil {
			// A value DynamoDB would not parse: the request's error.
			return markEarly(withOp(a.op, err))
		}
		a.put = encodedItem{item: a.key, enc: enc, size: size}
	}
	return nil
}

// needsOld reports whether a must read its item before it is decided.
func (a *writeAction) needsOld() bool {
	return a.kind == actionCheck || a.kind == actionUpdate || a.cond != nil || !a.expiredAt.IsZero() ||
		a.rv == ReturnValueAllOld || a.rv == ReturnValueUpdatedOld || a.st0.needsOld()
}

// start starts the read of a's item (if it needs it) in l's transaction,
// whose metadata version read is mvf.
func (a *writeAction) start(l itemLoader, mvf fdb.FutureByteSlice) pendingFetch {
	if a.kind != actionCheck {
		// A guarded handle's guard is asked for the write before anything
		// is read (access.go), whether or not the write turns out to
		// change the item; writeItem asks again for the key it writes.
		if err := a.t.allowItem(true, a.kv); err != nil {
			return pendingFetch{t: a.t, op: a.op, st0: a.st0, denied: err}
		}
	}
	f := a.t.startFetch(l, mvf, a.op, a.st0, a.key, a.kv, a, a.needsOld())
	if a.kind == actionPut && f.denied == nil && a.st0.schema.hasUniqueIndexes() {
		f.tg.probes = startPutProbes(l.rt, a.st0, a.put.item) // unique.go, invariant 2
	}
	return f
}

// decision is what a write action does.
type decision struct {
	// write says whether to write change; if not, nothing is written.
	write  bool
	change itemChange
	// attrs are the attributes ReturnValues asks for, or nil.
	attrs Item
}

// decide judges action a against its item as the transaction read it
// (tg.old, meaningful only if tg.oldKnown, which a.needsOld guarantees
// when the decision depends on it). In order:
//
//  0. a write the table's schema, changed since it was validated, no
//     longer admits (tg.invalid) fails with validate's error;
//  1. the ConditionExpression, failing with a
//     *[ConditionalCheckFailedError] (with the item if rvFail is ALL_OLD);
//  2. a condition check writes nothing;
//  3. a put writes its item, encoded before the transaction;
//  4. a delete of an absent item, or a Time to Live deletion of an item
//     that has not expired (any more), writes nothing;
//  5. an update applies its rules to the item (or to its key, when
//     absent), unless it only REMOVEs or DELETEs from an absent item,
//     which writes nothing; checks the index key types and encodes the
//     result under the size limit.
//
// Other errors are *[ValidationError]s. decide reads and writes nothing.
func decide(a *writeAction, tg target) (decision, error) {
	if tg.invalid != nil {
		return decision{}, tg.invalid
	}
	old := tg.old
	if a.cond != nil {
		ok, err := evalCondition(a.cond, old)
		if err != nil {
			return decision{}, withOp(a.op, err)
		}
		if !ok {
			return decision{}, conditionFailed(old, a.rvFail)
		}
	}
	c := itemChange{st: tg.st, kv: tg.kv, old: old, oldEnc: tg.oldEnc, oldKnown: tg.oldKnown, probes: tg.probes, passed: tg.passed}
	switch a.kind {
	case actionCheck:
		return decision{}, nil
	case actionPut:
		c.new, c.enc, c.size = a.put.item, a.put.enc, a.put.size
		return decision{write: true, change: c, attrs: returned(a.rv, old, c.new, nil)}, nil
	case actionDelete:
		if !a.expiredAt.IsZero() {
			if old == nil || !newTTLCutoff(tg.st.schema.TimeToLiveAttribute, a.expiredAt).expired(old) {
				return decision{}, nil // deleted or rewritten since the sweeper saw it
			}
			c.byTTL = true
		}
		if tg.oldKnown && old == nil {
			return decision{}, nil // nothing to delete
		}
		return decision{write: true, change: c, attrs: returned(a.rv, old, nil, nil)}, nil
	}
	if old == nil && a.upd != nil && !a.upd.CreatesItem() {
		// Only REMOVE and DELETE actions on a missing item: DynamoDB
		// creates nothing, so there is nothing to write, index or record
		// in the stream.
		return decision{}, nil
	}
	updated := old
	if updated == nil {
		updated = maps.Clone(a.key)
	}
	if a.upd != nil {
		var err error
		if updated, err = applyUpdate(a.upd, updated, old != nil); err != nil {
			return decision{}, withOp(a.op, err)
		}
	}
	if err := checkIndexKeys(a.op, updated, tg.st, a.upd != nil); err != nil {
		return decision{}, err
	}
	n, err := encodeNew(updated, a.t.maxItemSize, a.upd != nil)
	if err != nil {
		return decision{}, withOp(a.op, err)
	}
	c.new, c.enc, c.size = n.item, n.enc, n.size
	return decision{write: true, change: c, attrs: returned(a.rv, old, updated, a.paths)}, nil
}

// cost returns the indexCost of d, for its output (index_capacity.go).
func (d *decision) cost() indexCost {
	if !d.write {
		return indexCost{}
	}
	return indexCost{change: &d.change}
}

// returned returns the attributes ReturnValues rv asks for, of the item
// before (old) and after (new) a write; paths are an update's.
func returned(rv ReturnValue, old, new Item, paths []docPath) Item {
	switch rv {
	case ReturnValueAllOld:
		return old
	case ReturnValueAllNew:
		return new
	case ReturnValueUpdatedOld:
		return nonEmpty(projectPaths(old, paths))
	case ReturnValueUpdatedNew:
		return nonEmpty(projectPaths(new, paths))
	}
	return nil
}

// run is the transaction of a single write (Put, Update, Delete): it
// reads a's item in tr, decides and writes what decide says, and returns
// the decision (its attrs are the ReturnValues).
func (a *writeAction) run(tr fdb.Transaction) (decision, error) {
	// A snapshot read: the metadata version is cluster-wide, and a
	// conflict on it would abort this transaction for any schema change
	// of any table. Changes to this table's schema are caught instead by
	// the read conflict writeItem adds on the table's metadata key.
	l := loaderOf(tr)
	f := a.start(l, tr.Snapshot().Get(metadataVersionKey))
	// The stream's order key is read with the item, so ordering the
	// change record costs no wave of its own (stream.go).
	orders, err := startOrderPrefetches(tr, []*tableState{a.st0})
	if err != nil {
		return decision{}, err
	}
	if err := f.resolve(l); err != nil {
		return decision{}, err
	}
	tg, err := f.finish(l)
	if err != nil {
		return decision{}, err
	}
	d, err := decide(a, tg)
	if err != nil || !d.write {
		return decision{}, err
	}
	refused, ok, err := checkUnique(tr, []*itemChange{&d.change}) // unique.go
	if err != nil {
		return decision{}, err
	}
	if !ok {
		return decision{}, firstRefusal(refused)
	}
	d.change.orders = orders
	if err := writeItem(tr, a.t, d.change); err != nil {
		return decision{}, withOp(a.op, err)
	}
	return d, nil
}

func nonEmpty(it Item) Item {
	if len(it) == 0 {
		return nil
	}
	return it
}
