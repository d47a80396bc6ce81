package fdyno

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/fdyno/fdyno/internal/reqtoken"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// transact_write.go holds TransactWrite: condition checks, puts, updates
// and deletes across tables, all or nothing in one FoundationDB
// transaction, and the ClientRequestToken records that make a retried
// request a no-op.

// TransactWrite limits.
const (
	// MaxTransactWriteBytes bounds the estimated size of a TransactWrite's
	// writes (as [BatchWrite] estimates them), under FoundationDB's
	// 10,000,000-byte transaction limit with room for conflict ranges and
	// the token record. DynamoDB's own limits (100 actions, 4 MB) do not
	// apply.
	MaxTransactWriteBytes = 8 << 20
	// MaxClientRequestTokenLength is the longest ClientRequestToken, in
	// bytes (DynamoDB: 1 to 36 characters).
	MaxClientRequestTokenLength = 36
	// ClientRequestTokenWindow is how long a ClientRequestToken is
	// remembered after its TransactWrite committed, DynamoDB's 10 minutes.
	ClientRequestTokenWindow = 10 * time.Minute
	// tokenCleanupPerWrite is how many expired token records each
	// TransactWrite with a token removes: more than the one it adds, so
	// expired records never accumulate.
	tokenCleanupPerWrite = 4
)

// TransactWriteItem is one action of a [TransactWrite]: exactly one of
// its fields is set. DynamoDB's TransactWriteItem.
type TransactWriteItem struct {
	ConditionCheck *ConditionCheck
	Put            *TransactPut
	Update         *TransactUpdate
	Delete         *TransactDelete
}

// ConditionCheck is a condition on an item that must hold for the
// transaction to commit; it writes nothing.
type ConditionCheck struct {
	Table *Table
	// Key holds exactly the table's key attributes.
	Key Item
	// ConditionExpression is required.
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]Value
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure
}

// TransactPut puts a whole item, as [Table.Put] does.
type TransactPut struct {
	Table *Table
	// Item is the whole new item, key attributes included.
	Item                                Item
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]Value
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure
}

// TransactUpdate updates an item, as [Table.Update] does.
type TransactUpdate struct {
	Table *Table
	// Key holds exactly the table's key attributes.
	Key Item
	// UpdateExpression is required.
	UpdateExpression                    string
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]Value
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure
}

// TransactDelete deletes an item, as [Table.Delete] does.
type TransactDelete struct {
	Table *Table
	// Key holds exactly the table's key attributes.
	Key                                 Item
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]Value
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure
}

// TransactWriteInput is the request of [TransactWrite], DynamoDB's
// TransactWriteItems.
type TransactWriteInput struct {
	// TransactItems are the actions; at least one, at most one per item.
	TransactItems []TransactWriteItem
	// ClientRequestToken, if set (1 to 36 bytes), makes the request
	// idempotent for ClientRequestTokenWindow after it committed: the same
	// token with the same request succeeds again without writing, and the
	// same token with another request fails with
	// [ErrIdempotentParameterMismatch]. The token's record lives under the
	// root directory ([WithRoot]) of the first action's table, so tokens
	// are scoped to a root.
	ClientRequestToken string
}

// TransactWriteOutput is the result of [TransactWrite].
type TransactWriteOutput struct {
	// ItemSizes holds, per action in request order, the item size
	// ([Item.Size]) DynamoDB charges the action's write capacity for: the
	// larger of the item before and after a Put or an Update, the deleted
	// item of a Delete, the item a ConditionCheck read (0 for none). An
	// item before the write that the transaction did not need to read (a
	// Put or Delete without condition on a table without indexes or
	// stream) is not counted; a Delete then counts its key. Nil when
	// Replayed.
	ItemSizes []int
	// Replayed reports that the request's ClientRequestToken matched a
	// transaction already committed: nothing was written this time.
	// DynamoDB charges such a replay read capacity, not write capacity.
	Replayed     bool
	transactCost // IndexCapacity (index_capacity.go)
}

// txAction is one validated action of a TransactWrite.
type txAction struct {
	w writeAction
	// invalid is why the action's item fails validation against its
	// table, or nil.
	invalid error
}

// TransactWrite applies condition checks, puts, updates and deletes to
// items of one or more tables, all or nothing, in one FoundationDB
// transaction. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html.
//
// Every action is validated before tx is touched. In the transaction,
// every item an action needs is read at once, and every condition and
// update is evaluated before the first write: if any fails, TransactWrite
// returns a *[TransactionCanceledError] with one reason per action
// (ConditionalCheckFailed, with the old item when the action asked for
// ALL_OLD; ValidationError for an item that does not fit its table's key
// schema or index key types, a Put item or an updated item over the size
// limit, or an update that cannot apply to the stored item, for the first
// such action only, as DynamoDB stops at the first; None for the others) and has written nothing. An action whose key or item fails
// validation against its table cancels the transaction before it reads. Writes go through the single write path, so indexes and
// change records follow.
//
// With an fdb.Database, TransactWrite runs its own transaction and may
// retry it; give a ClientRequestToken to make a retry after an ambiguous
// commit (commit_unknown_result) a no-op. With an fdb.Transaction, the
// actions commit with the caller's transaction.
//
// Errors: *[TransactionCanceledError] ([ErrTransactionCanceled]);
// [ErrValidation] for a bad request, such as two actions on one item
// ("Transaction request cannot include multiple operations on one item")
// or writes estimated above [MaxTransactWriteBytes];
// [ErrIdempotentParameterMismatch]; [ErrResourceNotFound] when a table was
// deleted; FoundationDB errors, wrapped so that errors.As finds the
// fdb.Error. TransactWrite is safe for concurrent use.
func TransactWrite(tx fdb.Transactor, in TransactWriteInput) (*TransactWriteOutput, error) {
	actions, err := prepareTransactWrite(in)
	if err != nil {
		return nil, err
	}
	var digest [sha256.Size]byte
	if in.ClientRequestToken != "" {
		if digest, err = requestDigest(in, actions); err != nil {
			return nil, err
		}
	}
	return Transact(tx, func(tr fdb.Transaction) (*TransactWriteOutput, error) {
		return transactWrite(tr, actions, in.ClientRequestToken, digest)
	})
}

func prepareTransactWrite(in TransactWriteInput) ([]txAction, error) {
	const op = "TransactWriteItems"
	fail := func(reason string) ([]txAction, error) {
		return nil, &ValidationError{Op: op, Reason: reason}
	}
	if len(in.TransactItems) == 0 {
		return fail("1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	if len(in.ClientRequestToken) > MaxClientRequestTokenLength {
		return fail("1 validation error detected: Value '" + in.ClientRequestToken + "' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36")
	}
	actions := make([]txAction, len(in.TransactItems))
	seen := map[string]bool{}
	invalid := false
	for i, ti := range in.TransactItems {
		a, err := prepareAction(op, ti)
		if err != nil {
			if ve, ok := err.(*ValidationError); ok && ve.Path == "" {
				ve.Path = "TransactItems[" + strconv.Itoa(i) + "]"
			}
			return nil, err
		}
		actions[i] = a
		if a.invalid != nil {
			invalid = true
			continue
		}
		id := itemID(a.w.t, a.w.kv)
		if seen[id] {
			return fail("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
	}
	if invalid {
		// DynamoDB checks an action's item against its table's schema
		// when it runs the transaction, so a mismatch is a cancellation
		// reason, not a request error; the request is otherwise valid.
		// It stops at the first invalid action: that one has its code,
		// every other action None, invalid or not.
		reasons := make([]CancellationReason, len(actions))
		first := true
		for i, a := range actions {
			reasons[i] = CancellationReason{Code: CancellationCodeNone}
			if a.invalid != nil && first {
				reasons[i] = validationReason(a.invalid)
				first = false
			}
		}
		return nil, &TransactionCanceledError{CancellationReasons: reasons}
	}
	return actions, nil
}

// validationReason is the cancellation reason of an action whose item
// fails validation: code ValidationError and the validation's reason,
// as DynamoDB words it, without the attribute's path before it (the
// reasons DynamoDB returns name the attribute inside the text, if at
// all: "One or more parameter values were invalid: Type mismatch for
// Index Key ..."), as the wire's ValidationException has it.
func validationReason(err error) CancellationReason {
	msg := err.Error()
	var ve *ValidationError
	if errors.As(err, &ve) {
		msg = ve.Reason
	}
	return CancellationReason{Code: CancellationCodeValidationError, Message: msg}
}

func prepareAction(op string, ti TransactWriteItem) (txAction, error) {
	fail := func(reason string) (txAction, error) {
		return txAction{}, &ValidationError{Op: op, Reason: reason}
	}
	n := 0
	for _, set := range []bool{ti.ConditionCheck != nil, ti.Put != nil, ti.Update != nil, ti.Delete != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fail("TransactItems can only contain one of Check, Put, Update or Delete")
	}
	var (
		a         writeAction
		names     map[string]string
		values    map[string]Value
		cond, upd string
		needCond  bool
	)
	switch {
	case ti.ConditionCheck != nil:
		c := ti.ConditionCheck
		a = writeAction{kind: actionCheck, t: c.Table, key: c.Key, rvFail: c.ReturnValuesOnConditionCheckFailure}
		cond, names, values, needCond = c.ConditionExpression, c.ExpressionAttributeNames, c.ExpressionAttributeValues, true
	case ti.Put != nil:
		p := ti.Put
		a = writeAction{kind: actionPut, t: p.Table, key: p.Item, rvFail: p.ReturnValuesOnConditionCheckFailure}
		cond, names, values = p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues
		if a.key == nil {
			return fail("Item is required")
		}
	case ti.Update != nil:
		u := ti.Update
		a = writeAction{kind: actionUpdate, t: u.Table, key: u.Key, rvFail: u.ReturnValuesOnConditionCheckFailure}
		cond, upd, names, values = u.ConditionExpression, u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues
		if upd == "" {
			return fail("1 validation error detected: Value null at 'transactItems.update.updateExpression' failed to satisfy constraint: Member must not be null")
		}
	default:
		d := ti.Delete
		a = writeAction{kind: actionDelete, t: d.Table, key: d.Key, rvFail: d.ReturnValuesOnConditionCheckFailure}
		cond, names, values = d.ConditionExpression, d.ExpressionAttributeNames, d.ExpressionAttributeValues
	}
	if a.t == nil {
		return fail("the action has no Table")
	}
	if needCond && cond == "" {
		return fail("1 validation error detected: Value null at 'transactItems.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null")
	}
	if err := checkReturnOnFailure(op, a.rvFail); err != nil {
		return txAction{}, err
	}
	a.op, a.st0 = op, a.t.state.Load()
	e, err := prepareExprs(op, names, values, cond, upd, "")
	if err != nil {
		return txAction{}, err
	}
	a.cond, a.upd = e.cond, e.upd
	if a.kind == actionUpdate {
		a.paths = a.upd.Paths()
	}
	if err := a.prepare(); err != nil {
		if txInvalid(err) {
			return txAction{w: a, invalid: err}, nil
		}
		return txAction{}, err
	}
	return txAction{w: a}, nil
}

// txInvalid says whether err, an action's validation error, is one that
// DynamoDB finds while the transaction runs, a cancellation reason (a key
// or index key of the wrong type, a key that does not match the schema,
// an item over the size limit, an update that cannot apply), rather than
// one its input validation finds first, the request's error
// (ValidationError.early: an empty key value, an update of a key
// attribute, a value that does not encode). DynamoDB's answers, captured
// in four regions: docs/differences.md, "Malformed key values", and
// key_errors_test.go.
func txInvalid(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve) && !isEarly(err)
}

// transactWrite runs the prepared actions in tr.
func transactWrite(tr fdb.Transaction, actions []txAction, token string, digest [sha256.Size]byte) (*TransactWriteOutput, error) {
	const op = "TransactWriteItems"
	var tk *reqtoken.Check
	if token != "" {
		var err error
		if tk, err = startTokenCheck(tr, actions[0].w.t, actions[0].w.st0, token); err != nil {
			return nil, err
		}
	}
	l := loaderOf(tr)
	mvf := tr.Snapshot().Get(metadataVersionKey)
	states := make([]*tableState, len(actions))
	for i := range actions {
		states[i] = actions[i].w.st0
	}
	orders, err := startOrderPrefetches(tr, states)
	if err != nil {
		return nil, err
	}
	fetches := make([]pendingFetch, len(actions))
	for i := range actions {
		fetches[i] = actions[i].w.start(l, mvf)
	}
	if tk != nil {
		done, err := tk.Wait(digest)
		if err != nil {
			return nil, tokenError(err, token)
		}
		if done {
			return &TransactWriteOutput{Replayed: true}, nil // a retry of a committed request
		}
	}
	tgs, err := fetchAll(l, fetches)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, tg := range tgs {
		// Keys were checked distinct when prepared; a table recreated
		// with another key schema in between could make two equal.
		if tg.invalid != nil {
			continue // no key under the new schema: decide refuses it
		}
		id := itemID(actions[i].w.t, tg.kv)
		if seen[id] {
			return nil, &ValidationError{Op: op, Reason: "Transaction request cannot include multiple operations on one item"}
		}
		seen[id] = true
	}
	// Decide every action before the first write.
	reasons := make([]CancellationReason, len(actions))
	changes := make([]*itemChange, len(actions))
	sizes := make([]int, len(actions))
	invalidSeen := false
	canceled := false
	total := 0
	for i := range actions {
		a := &actions[i].w
		d, err := decide(a, tgs[i])
		if isEarly(err) {
			return nil, err // found by DynamoDB's input validation
		}
		if err != nil {
			reason := cancellationReason(err)
			if reason.Code == CancellationCodeValidationError && invalidSeen {
				// Only the first invalid action has its code (as above);
				// conditions that fail are all reported.
				reason = CancellationReason{Code: CancellationCodeNone}
			}
			invalidSeen = invalidSeen || reason.Code == CancellationCodeValidationError
			reasons[i], canceled = reason, true
			continue
		}
		reasons[i] = CancellationReason{Code: CancellationCodeNone}
		var c *itemChange
		if d.write {
			c = &d.change
		}
		sizes[i] = chargedSize(actions[i], tgs[i], c)
		if c != nil {
			changes[i] = c
			total += writeCost(len(c.st.keys.itemKey(c.kv)), len(c.enc), a.t.chunkThreshold)
		}
	}
	if !canceled {
		refused, ok, err := checkUnique(tr, changes) // unique.go
		if err != nil {
			return nil, err
		}
		for i, err := range refused {
			if err != nil {
				reasons[i] = cancellationReason(err)
			}
		}
		canceled = !ok
	}
	if canceled {
		return nil, &TransactionCanceledError{CancellationReasons: reasons}
	}
	if total > MaxTransactWriteBytes {
		return nil, &ValidationError{Op: op, Reason: "Transaction size has exceeded the maximum allowed size (about " + strconv.Itoa(total) + " > " + strconv.Itoa(MaxTransactWriteBytes) + " bytes of writes)"}
	}
	// Checks are done; from here on, only writes.
	for i, c := range changes {
		if c == nil {
			continue
		}
		c.orders = orders
		if err := writeItem(tr, actions[i].w.t, *c); err != nil {
			return nil, withOp(op, err)
		}
	}
	if tk != nil {
		tk.Record(digest, ClientRequestTokenWindow)
	}
	return &TransactWriteOutput{ItemSizes: sizes, transactCost: transactCost{changes}}, nil
}

// chargedSize is the item size DynamoDB charges action a for (see
// TransactWriteOutput.ItemSizes), given its target tg and the change c it
// makes (nil for none).
func chargedSize(a txAction, tg target, c *itemChange) int {
	switch {
	case c == nil:
		return tg.old.Size() // a ConditionCheck, or a write with nothing to do
	case c.oldKnown:
		return max(c.old.Size(), c.size)
	case c.new == nil:
		return a.w.key.Size() // a Delete of an item it did not read
	}
	return c.size
}

// cancellationReason is the reason an action that decide refused with
// err cancels a TransactWrite: ConditionalCheckFailed, with the item if
// the action asked for it, or ValidationError.
func cancellationReason(err error) CancellationReason {
	var ccf *ConditionalCheckFailedError
	if errors.As(err, &ccf) {
		return CancellationReason{Code: CancellationCodeConditionalCheckFailed, Message: "The conditional request failed", Item: ccf.Item}
	}
	var uv *UniqueViolationError
	if errors.As(err, &uv) {
		return CancellationReason{Code: CancellationCodeConditionalCheckFailed, Message: "The conditional request failed: another item has this key in unique index " + uv.Index}
	}
	return validationReason(err)
}

// tokenKeysFor returns the token keys of t's root directory, opening it in
// tr unless it was opened under the cached state st0.
func (t *Table) tokenKeysFor(tr fdb.ReadTransaction, st0 *tableState) (tokenKeys, error) {
	if c := t.tokenRoot.Load(); c != nil && c.st == st0 {
		return c.keys, nil
	}
	root, err := directory.Open(tr, t.path[:len(t.path)-1], nil)
	if err != nil {
		if errors.Is(err, directory.ErrDirNotExists) {
			return tokenKeys{}, tableNotFound(t.name)
		}
		return tokenKeys{}, err
	}
	k := newTokenKeys(root)
	if st0.mv != nil { // a state whose metadata version is known
		t.tokenRoot.Store(&tokenRootCache{st: st0, keys: k})
	}
	return k, nil
}

// startTokenCheck starts the read of token's record under the root
// directory of table t (cached state st0); see [reqtoken.Start].
func startTokenCheck(tr fdb.Transaction, t *Table, st0 *tableState, token string) (*reqtoken.Check, error) {
	k, err := t.tokenKeysFor(tr, st0)
	if err != nil {
		return nil, err
	}
	keys := reqtoken.Keys{Token: k.tokenKey, Expiry: k.expiryKey, Expired: k.expiredRange}
	return reqtoken.Start(tr, keys, token, t.now(), tokenCleanupPerWrite), nil
}

// tokenError returns an error of package internal/reqtoken for token as
// the root package's.
func tokenError(err error, token string) error {
	switch {
	case errors.Is(err, reqtoken.ErrMismatch):
		return fmt.Errorf("%w: ClientRequestToken %q was used for a different request within the last %v",
			ErrIdempotentParameterMismatch, token, ClientRequestTokenWindow)
	case errors.Is(err, reqtoken.ErrCorrupt):
		return &CorruptError{What: "ClientRequestToken record", Reason: err.Error()}
	}
	return err
}

// requestDigest returns the SHA-256 of a canonical encoding of the
// request: each action's kind, table directory, key or item and
// expressions, with maps in key order. Two requests have the same digest
// exactly when they ask for the same writes. actions are the request's,
// prepared: a Put's item is hashed in the encoding it was written with.
func requestDigest(in TransactWriteInput, actions []txAction) ([sha256.Size]byte, error) {
	h := sha256.New()
	var buf []byte
	str := func(s string) {
		buf = binary.AppendUvarint(buf[:0], uint64(len(s)))
		h.Write(buf)
		h.Write([]byte(s))
	}
	item := func(it Item, enc []byte) error {
		if enc == nil {
			var err error
			if enc, err = EncodeItem(it); err != nil {
				return withOp("TransactWriteItems", err)
			}
		}
		str(string(enc))
		return nil
	}
	var keyEnc []byte // the encoding of the current action's key, if made
	common := func(t *Table, key Item, cond, upd string, names map[string]string, values map[string]Value, rv ReturnValuesOnConditionCheckFailure) error {
		str(strconv.Itoa(len(t.path)))
		for _, p := range t.path {
			str(p)
		}
		if err := item(key, keyEnc); err != nil {
			return err
		}
		str(cond)
		str(upd)
		str(string(rv))
		str(strconv.Itoa(len(names)))
		for _, k := range slices.Sorted(maps.Keys(names)) {
			str(k)
			str(names[k])
		}
		return item(Item(values), nil)
	}
	for i, ti := range in.TransactItems {
		var err error
		keyEnc = actions[i].w.put.enc
		switch {
		case ti.ConditionCheck != nil:
			c := ti.ConditionCheck
			str("check")
			err = common(c.Table, c.Key, c.ConditionExpression, "", c.ExpressionAttributeNames, c.ExpressionAttributeValues, c.ReturnValuesOnConditionCheckFailure)
		case ti.Put != nil:
			p := ti.Put
			str("put")
			err = common(p.Table, p.Item, p.ConditionExpression, "", p.ExpressionAttributeNames, p.ExpressionAttributeValues, p.ReturnValuesOnConditionCheckFailure)
		case ti.Update != nil:
			u := ti.Update
			str("update")
			err = common(u.Table, u.Key, u.ConditionExpression, u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues, u.ReturnValuesOnConditionCheckFailure)
		case ti.Delete != nil:
			d := ti.Delete
			str("delete")
			err = common(d.Table, d.Key, d.ConditionExpression, "", d.ExpressionAttributeNames, d.ExpressionAttributeValues, d.ReturnValuesOnConditionCheckFailure)
		}
		if err != nil {
			return [sha256.Size]byte{}, err
		}
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d, nil
}
