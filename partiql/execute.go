package partiql

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strconv"
	"sync"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// execute.go holds the Executor and ExecuteStatement; batch.go holds
// BatchExecuteStatement and ExecuteTransaction.

// Executor runs PartiQL statements against the tables of one root
// directory, resolving the table names statements give to handles, which
// it keeps. An Executor is safe for concurrent use by multiple goroutines.
type Executor struct {
	opts    []fdyno.Option
	resolve func(name string) (*fdyno.Table, error)
	*cache
}

// cache is what the Executors made by [Executor.WithTables] share.
type cache struct {
	mu     sync.Mutex
	tables map[string]*fdyno.Table // handles opened by fdyno.Open, by name
	parsed map[string]*pqStmt      // parsed statements, by text; immutable
}

// maxParsedStatements bounds the statements an Executor keeps parsed; the
// cache is emptied when it is full.
const maxParsedStatements = 1024

// parse parses stmt, or returns it parsed before.
func (q *Executor) parse(stmt string) (*pqStmt, error) {
	q.mu.Lock()
	s, ok := q.parsed[stmt]
	q.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := parsePartiQL(stmt)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	if q.parsed == nil || len(q.parsed) >= maxParsedStatements {
		q.parsed = map[string]*pqStmt{}
	}
	q.parsed[stmt] = s
	q.mu.Unlock()
	return s, nil
}

// New returns an Executor that opens the tables statements name with
// [fdyno.Open] and opts (such as [fdyno.WithRoot]), the first time each is named.
func New(opts ...fdyno.Option) *Executor {
	return &Executor{opts: opts, cache: &cache{tables: map[string]*fdyno.Table{}}}
}

// NewWithTables returns an Executor that resolves table names with
// tables, which returns an [fdyno.ErrResourceNotFound] error for a table that
// does not exist; for a caller that keeps its own table handles.
func NewWithTables(tables func(name string) (*fdyno.Table, error)) *Executor {
	return &Executor{resolve: tables, cache: &cache{}}
}

// WithTables returns an Executor that resolves table names with tables
// and shares q's parsed statements: for a caller that hands each request
// its own handles (fdyno-server's guarded handles, fdyno.Table.Guarded)
// and parses a statement once across requests.
func (q *Executor) WithTables(tables func(name string) (*fdyno.Table, error)) *Executor {
	return &Executor{resolve: tables, cache: q.cache}
}

// table returns the handle of the named table.
func (q *Executor) table(tx fdb.Transactor, name string) (*fdyno.Table, error) {
	if q.resolve != nil {
		return q.resolve(name)
	}
	q.mu.Lock()
	t, ok := q.tables[name]
	q.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := fdyno.Open(tx, name, q.opts...)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if prev, ok := q.tables[name]; ok {
		return prev, nil
	}
	q.tables[name] = t
	return t, nil
}

// StatementInfo describes what a PartiQL statement does, for a caller
// that checks access or accounts for capacity before running it.
type StatementInfo struct {
	// Action is the IAM action DynamoDB authorizes the statement with:
	// PartiQLSelect (also for EXISTS), PartiQLInsert, PartiQLUpdate or
	// PartiQLDelete.
	Action    string
	TableName string
	// IndexName is the index a SELECT reads, or "".
	IndexName string
	// Parameters is the number of ? placeholders.
	Parameters int
}

// ParseStatement parses a PartiQL statement without running it. Errors
// are *[fdyno.ValidationError].
func ParseStatement(stmt string) (StatementInfo, error) {
	return statementInfo(parsePartiQL(stmt))
}

// Statement is [ParseStatement] through q's cache of parsed statements, so
// a caller that inspects a statement before running it with q (to
// authorize it, say) parses it once.
func (q *Executor) Statement(stmt string) (StatementInfo, error) {
	return statementInfo(q.parse(stmt))
}

func statementInfo(s *pqStmt, err error) (StatementInfo, error) {
	if err != nil {
		return StatementInfo{}, err
	}
	return StatementInfo{Action: pqActions[s.kind], TableName: s.table, IndexName: s.index, Parameters: s.params}, nil
}

// pqActions are the IAM actions of the statement kinds (StatementInfo).
var pqActions = map[pqStmtKind]string{pqSelect: "PartiQLSelect", pqExists: "PartiQLSelect", pqInsert: "PartiQLInsert",
	pqUpdate: "PartiQLUpdate", pqDelete: "PartiQLDelete"}

// ExecuteStatementInput is the request of [Executor.ExecuteStatement],
// DynamoDB's ExecuteStatement. Zero values are the defaults.
type ExecuteStatementInput struct {
	// Statement is one PartiQL statement: SELECT, INSERT, UPDATE or
	// DELETE, at most MaxStatementLength bytes.
	Statement string
	// Parameters are the values of the statement's ? placeholders, in
	// order.
	Parameters []fdyno.Value
	// ConsistentRead is accepted for compatibility, as for Query: every
	// read is strongly consistent; it is refused on a GSI.
	ConsistentRead bool
	// Limit is the most items a SELECT reads (evaluates) before its
	// WHERE clause filters them; 0 means no limit.
	Limit int
	// NextToken is the NextToken of the previous page of the same
	// statement and parameters.
	NextToken string
	// ReturnValuesOnConditionCheckFailure ALL_OLD puts the item as it was
	// into the *ConditionalCheckFailedError of an UPDATE or DELETE whose
	// WHERE clause is false.
	ReturnValuesOnConditionCheckFailure fdyno.ReturnValuesOnConditionCheckFailure
}

// ExecuteStatementOutput is the result of [Executor.ExecuteStatement].
type ExecuteStatementOutput struct {
	// Items are the items a SELECT returns, projected; or the one item an
	// UPDATE or DELETE returns with RETURNING.
	Items []fdyno.Item
	// NextToken, when not empty, resumes the SELECT after this page.
	NextToken string
	// LastEvaluatedKey holds the key of the last item read when the page
	// stopped early; nil otherwise.
	LastEvaluatedKey fdyno.Item
}

// ExecuteStatement runs one PartiQL statement with an Executor made by
// New(opts...): see [Executor.ExecuteStatement].
func ExecuteStatement(tx fdb.Transactor, in ExecuteStatementInput, opts ...fdyno.Option) (*ExecuteStatementOutput, error) {
	return New(opts...).ExecuteStatement(tx, in)
}

// ExecuteStatement runs one statement of DynamoDB's PartiQL dialect. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html
// and https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html.
//
//   - SELECT reads one page. When its WHERE clause pins the partition key
//     (of the table, or of the index in FROM "table"."index") by equality
//     or IN, it is a Query per partition, with a condition on the sort key
//     pushed into the range read; otherwise it is a Scan. The rest of the
//     WHERE clause filters the items read, after Limit, as a
//     FilterExpression does. NextToken resumes the next page.
//   - INSERT puts an item that must not exist: [fdyno.ErrDuplicateItem] if it
//     does.
//   - UPDATE applies SET and REMOVE to the item its WHERE clause names by
//     its full key; the rest of the WHERE clause is a condition, and the
//     item must exist ([fdyno.ErrConditionalCheckFailed] otherwise).
//   - DELETE deletes the item its WHERE clause names by its full key; an
//     absent item is no error, an existing one for which the rest of the
//     clause is false is [fdyno.ErrConditionalCheckFailed].
//
// With an fdb.Database, a statement runs in its own transaction (a SELECT
// page in one read transaction), which may be retried; with an
// fdb.Transaction, it runs in the caller's transaction.
//
// Errors: [fdyno.ErrValidation] for a statement that does not parse or plan, a
// parameter count that does not match, a bad NextToken, or what the
// underlying operation refuses; [fdyno.ErrResourceNotFound] for an unknown
// table; [fdyno.ErrDuplicateItem]; [fdyno.ErrConditionalCheckFailed]; FoundationDB
// errors, wrapped so that errors.As finds the fdb.Error. On any error of
// a write, nothing is written.
func (q *Executor) ExecuteStatement(tx fdb.Transactor, in ExecuteStatementInput) (*ExecuteStatementOutput, error) {
	const op = "ExecuteStatement"
	s, err := q.parse(in.Statement)
	if err != nil {
		return nil, withOp(op, err)
	}
	if s.params != len(in.Parameters) {
		return nil, withOp(op, pqParamCountError())
	}
	if in.Limit < 0 {
		return nil, &fdyno.ValidationError{Op: op, Reason: "1 validation error detected: Value '" + strconv.Itoa(in.Limit) + "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"}
	}
	if err := checkReturnOnFailure(op, in.ReturnValuesOnConditionCheckFailure); err != nil {
		return nil, err
	}
	t, err := q.table(tx, s.table)
	if err != nil {
		return nil, err
	}
	switch s.kind {
	case pqSelect:
		return runSelect(t, tx, s, in)
	case pqExists:
		return nil, &fdyno.ValidationError{Op: op, Reason: "EXISTS is only supported in ExecuteTransaction"}
	}
	w, err := planWrite(t, op, s, in.Parameters, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	items, err := w.run(tx)
	if err != nil {
		return nil, err
	}
	return &ExecuteStatementOutput{Items: items}, nil
}

// pqWriteReq is a planned INSERT, UPDATE or DELETE: exactly one of put,
// update, del is set.
type pqWriteReq struct {
	t      *fdyno.Table
	put    *fdyno.PutInput
	update *fdyno.UpdateInput
	del    *fdyno.DeleteInput
	// check is the EXISTS of a transaction: a ConditionCheck.
	check *fdyno.ConditionCheck
}

// planWrite plans a write statement against t.
func planWrite(t *fdyno.Table, op string, s *pqStmt, params []fdyno.Value, rv fdyno.ReturnValuesOnConditionCheckFailure) (*pqWriteReq, error) {
	hash, _, _ := keyAttrs(t, "")
	switch s.kind {
	case pqInsert:
		b := newPQBuilder(params)
		v, ok, err := b.constant(s.value)
		if err != nil {
			return nil, withOp(op, err)
		}
		if !ok || v.Type() != fdyno.TypeM {
			return nil, &fdyno.ValidationError{Op: op, Reason: "Unsupported operation: INSERT takes a tuple {'name': value, ...} as its VALUE"}
		}
		return &pqWriteReq{t: t, put: &fdyno.PutInput{Item: v.M(), ConditionExpression: "attribute_not_exists(#k)",
			ExpressionAttributeNames: map[string]string{"#k": hash.Name}}}, nil
	case pqSelect:
		return nil, &fdyno.ValidationError{Op: op, Reason: "A SELECT cannot be mixed with writes"}
	case pqExists:
		kp, err := planKey(s.sub.where, t, params)
		if err != nil {
			return nil, withOp(op, err)
		}
		return &pqWriteReq{t: t, check: &fdyno.ConditionCheck{Table: t, Key: kp.key, ConditionExpression: kp.existsCond(hash.Name),
			ExpressionAttributeNames: kp.b.names, ExpressionAttributeValues: kp.b.values, ReturnValuesOnConditionCheckFailure: rv}}, nil
	}
	kp, err := planKey(s.where, t, params)
	if err != nil {
		return nil, withOp(op, err)
	}
	if s.kind == pqDelete {
		in := &fdyno.DeleteInput{Key: kp.key, ReturnValuesOnConditionCheckFailure: rv}
		if kp.cond != "" {
			// An absent item is deleted without error; an existing one
			// must satisfy the rest of the WHERE clause.
			in.ConditionExpression = "attribute_not_exists(" + kp.b.name(hash.Name) + ") OR (" + kp.cond + ")"
			in.ExpressionAttributeNames, in.ExpressionAttributeValues = kp.b.names, kp.b.values
		}
		if s.returning != "" {
			in.ReturnValues = fdyno.ReturnValueAllOld
		}
		return &pqWriteReq{t: t, del: in}, nil
	}
	upd, err := kp.b.updateText(s)
	if err != nil {
		return nil, withOp(op, err)
	}
	in := &fdyno.UpdateInput{Key: kp.key, UpdateExpression: upd, ConditionExpression: kp.existsCond(hash.Name),
		ExpressionAttributeNames: kp.b.names, ExpressionAttributeValues: kp.b.values, ReturnValuesOnConditionCheckFailure: rv}
	switch s.returning {
	case "ALL OLD":
		in.ReturnValues = fdyno.ReturnValueAllOld
	case "MODIFIED OLD":
		in.ReturnValues = fdyno.ReturnValueUpdatedOld
	case "ALL NEW":
		in.ReturnValues = fdyno.ReturnValueAllNew
	case "MODIFIED NEW":
		in.ReturnValues = fdyno.ReturnValueUpdatedNew
	}
	return &pqWriteReq{t: t, update: in}, nil
}

// run performs the write in tx and returns the items it returns.
func (w *pqWriteReq) run(tx fdb.Transactor) ([]fdyno.Item, error) {
	var attrs fdyno.Item
	switch {
	case w.put != nil:
		if _, err := w.t.Put(tx, *w.put); err != nil {
			if errors.Is(err, fdyno.ErrConditionalCheckFailed) {
				return nil, fdyno.ErrDuplicateItem
			}
			return nil, err
		}
	case w.update != nil:
		out, err := w.t.Update(tx, *w.update)
		if err != nil {
			return nil, err
		}
		attrs = out.Attributes
	case w.del != nil:
		out, err := w.t.Delete(tx, *w.del)
		if err != nil {
			return nil, err
		}
		attrs = out.Attributes
	default:
		return nil, &fdyno.ValidationError{Reason: "EXISTS is only supported in ExecuteTransaction"}
	}
	if attrs == nil {
		return nil, nil
	}
	return []fdyno.Item{attrs}, nil
}

// runSelect reads one page of a SELECT in one read transaction.
func runSelect(t *fdyno.Table, tx fdb.ReadTransactor, s *pqStmt, in ExecuteStatementInput) (*ExecuteStatementOutput, error) {
	const op = "ExecuteStatement"
	pl, err := planSelect(s, t, in.Parameters)
	if err != nil {
		return nil, withOp(op, err)
	}
	var filter *fdyno.Filter
	if pl.filter != "" {
		if filter, err = fdyno.ParseFilter(pl.filter, pl.filterNames, pl.filterValues); err != nil {
			return nil, withOp(op, err)
		}
	}
	// The digest is computed only when a token is read or made.
	var digest [sha256.Size]byte
	digested := false
	token := func(part int, cursor []byte) string {
		if !digested {
			digest, digested = pqDigest(in.Statement, in.Parameters), true
		}
		return encodePQToken(t.TokenKey(tokenPurpose), digest, part, cursor)
	}
	part, cursor := 0, []byte(nil)
	if in.NextToken != "" {
		digest, digested = pqDigest(in.Statement, in.Parameters), true
		if part, cursor, err = decodePQToken(in.NextToken, t.TokenKey(tokenPurpose), digest); err != nil {
			return nil, err
		}
	}
	return fdyno.ReadTransact(tx, func(rtr fdb.ReadTransaction) (*ExecuteStatementOutput, error) {
		out := &ExecuteStatementOutput{Items: []fdyno.Item{}}
		keep := func(items []fdyno.Item) {
			for _, it := range items {
				if filter != nil && !filter.Match(it) {
					continue
				}
				out.Items = append(out.Items, pqProject(it, pl.proj))
			}
		}
		if pl.getKey != nil && cursor == nil {
			g, err := t.Get(rtr, fdyno.GetInput{Key: pl.getKey, ConsistentRead: in.ConsistentRead})
			if err != nil {
				return nil, err
			}
			if g.Item != nil {
				keep([]fdyno.Item{g.Item})
			}
			return out, nil
		}
		if !pl.query {
			o, err := t.Scan(rtr, fdyno.ScanInput{IndexName: pl.index, Limit: in.Limit, ConsistentRead: in.ConsistentRead, Cursor: cursor})
			if err != nil {
				return nil, err
			}
			keep(o.Items)
			if o.Cursor != nil {
				out.NextToken = token(0, o.Cursor)
				out.LastEvaluatedKey = o.LastEvaluatedKey
			}
			return out, nil
		}
		kce := pl.keyCondition()
		left := in.Limit
		for i := part; i < len(pl.partitions); i++ {
			qi := fdyno.QueryInput{IndexName: pl.index, KeyConditionExpression: kce, ExpressionAttributeNames: pl.keyNames,
				ExpressionAttributeValues: pl.partitionValues(i), ScanIndexForward: fdyno.Forward(pl.forward), Limit: left, ConsistentRead: in.ConsistentRead}
			if i == part {
				qi.Cursor = cursor
			}
			o, err := t.Query(rtr, qi)
			if err != nil {
				return nil, err
			}
			keep(o.Items)
			if o.Cursor != nil {
				out.NextToken = token(i, o.Cursor)
				out.LastEvaluatedKey = o.LastEvaluatedKey
				return out, nil
			}
			if in.Limit > 0 {
				if left -= o.ScannedCount; left <= 0 && i+1 < len(pl.partitions) {
					out.NextToken = token(i+1, nil)
					return out, nil
				}
			}
		}
		return out, nil
	})
}

// NextToken: the position where a SELECT's next page starts, bound to the
// statement, its parameters and the table:
//
//	0x01 | partition index: uvarint | tag: 16 bytes | the Query's or Scan's cursor
//
// base64url-encoded. The tag is an HMAC-SHA-256, truncated, keyed with the
// table's cursor key, of a digest of the statement and parameters and of
// the rest of the token; the inner cursor carries its own tag (cursor.go),
// which binds it to the partition's key range.
const pqTokenVersion = 0x01

// pqDigest identifies a statement and its parameters.
func pqDigest(stmt string, params []fdyno.Value) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte("fdyno partiql token v1\x00"))
	h.Write(binary.AppendUvarint(nil, uint64(len(stmt))))
	h.Write([]byte(stmt))
	for _, p := range params {
		enc, err := fdyno.EncodeItem(fdyno.Item{"p": p})
		if err != nil {
			enc = []byte(p.String())
		}
		h.Write(binary.AppendUvarint(nil, uint64(len(enc))))
		h.Write(enc)
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

func pqTag(key []byte, digest [sha256.Size]byte, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(digest[:])
	m.Write(body)
	return m.Sum(nil)[:tagSize]
}

func encodePQToken(key []byte, digest [sha256.Size]byte, part int, cursor []byte) string {
	body := binary.AppendUvarint([]byte{pqTokenVersion}, uint64(part))
	body = append(body, cursor...)
	tok := make([]byte, 0, len(body)+tagSize)
	tok = append(tok, body[:len(body)-len(cursor)]...)
	tok = append(tok, pqTag(key, digest, body)...)
	tok = append(tok, cursor...)
	return base64.RawURLEncoding.EncodeToString(tok)
}

// decodePQToken returns the partition index and inner cursor of token s,
// checking that it was made for the statement with digest by this table.
// Errors are *[fdyno.ValidationError].
func decodePQToken(s string, key []byte, digest [sha256.Size]byte) (int, []byte, error) {
	fail := func() (int, []byte, error) {
		return 0, nil, &fdyno.ValidationError{Op: "ExecuteStatement", Path: "NextToken", Reason: "Invalid NextToken"}
	}
	if len(s) > 4096 {
		return fail()
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 2 || b[0] != pqTokenVersion {
		return fail()
	}
	part, n := binary.Uvarint(b[1:])
	if n <= 0 || part > 1<<20 || len(b) < 1+n+tagSize {
		return fail()
	}
	head, tag, cursor := b[:1+n], b[1+n:1+n+tagSize], b[1+n+tagSize:]
	body := append(append([]byte{}, head...), cursor...)
	if !hmac.Equal(tag, pqTag(key, digest, body)) {
		return fail()
	}
	if len(cursor) == 0 {
		cursor = nil
	}
	return int(part), cursor, nil
}

// tokenPurpose names the secret of a table (fdyno.Table.TokenKey) that
// authenticates the NextTokens of SELECTs on it.
const tokenPurpose = "partiql NextToken"

// tagSize is the length of a NextToken's authentication tag.
const tagSize = 16

// withOp names op in a *ValidationError that names no operation.
func withOp(op string, err error) error {
	var ve *fdyno.ValidationError
	if errors.As(err, &ve) && ve.Op == "" {
		ve.Op = op
	}
	return err
}

// checkReturnOnFailure refuses a ReturnValuesOnConditionCheckFailure
// other than NONE and ALL_OLD, before anything is read.
func checkReturnOnFailure(op string, r fdyno.ReturnValuesOnConditionCheckFailure) error {
	switch r {
	case "", fdyno.ReturnValuesOnConditionCheckFailureNone, fdyno.ReturnValuesOnConditionCheckFailureAllOld:
		return nil
	}
	return &fdyno.ValidationError{Op: op, Reason: "ReturnValuesOnConditionCheckFailure set to invalid value: " + string(r)}
}
