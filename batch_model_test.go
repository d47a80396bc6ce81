package fdyno

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"pgregory.net/rapid"
)

// TestBatchModel runs random BatchWrite, BatchGet, TransactWrite,
// TransactGet and TTL sweeps over two tables against an in-memory model
// of DynamoDB's semantics: which items exist with which attributes,
// duplicate-key and same-item rejections, all-or-nothing transactions
// with one cancellation reason per action, and TTL deletions of exactly
// the expired items. After every step every key is read back and the
// chunk invariants are checked.
func TestBatchModel(t *testing.T) {
	db := fdblitetest.Open(t)
	root := testRoot(t, db)
	var n int
	rapid.Check(t, func(rt *rapid.T) {
		n++
		clock := newBatchClock()
		opts := []Option{root, WithClock(clock.Now), WithChunkThreshold(300)}
		a, err := Open(db, "ModelA"+strconv.Itoa(n), append(opts, WithSchema(ttlSchema))...)
		if err != nil {
			rt.Fatal(err)
		}
		b, err := Open(db, "ModelB"+strconv.Itoa(n), append(opts, WithSchema(hashOnly))...)
		if err != nil {
			rt.Fatal(err)
		}
		m := &batchModel{db: db, a: a, b: b, clock: clock, items: map[string]Item{}, tokens: map[string]modelToken{}}
		rt.Repeat(map[string]func(*rapid.T){
			"batchWrite":    m.batchWrite,
			"batchGet":      m.batchGet,
			"transactWrite": m.transactWrite,
			"retryLast":     m.retryLast,
			"transactGet":   m.transactGet,
			"sweep":         m.sweep,
			"":              m.check,
		})
	})
}

type batchModel struct {
	db     fdb.Database
	a, b   *Table // a: pk S, sk N, TTL attribute exp; b: pk S
	clock  *batchClock
	items  map[string]Item // by mkey
	tokens map[string]modelToken
	last   *txSpec // the last TransactWrite drawn
}

// mkey names an item of the model: its table and key.
type mkey struct {
	a  bool
	pk string
	sk int64
}

func (k mkey) String() string {
	if k.a {
		return "A:" + k.pk + "/" + strconv.FormatInt(k.sk, 10)
	}
	return "B:" + k.pk
}

func (m *batchModel) table(k mkey) *Table {
	if k.a {
		return m.a
	}
	return m.b
}

func (k mkey) key() Item {
	if k.a {
		return Item{"pk": S(k.pk), "sk": NInt(k.sk)}
	}
	return Item{"pk": S(k.pk)}
}

// allKeys is the model's whole key space.
func allKeys() []mkey {
	var ks []mkey
	for _, pk := range []string{"a", "b"} {
		for sk := range int64(2) {
			ks = append(ks, mkey{a: true, pk: pk, sk: sk})
		}
	}
	for _, pk := range []string{"x", "y", "z"} {
		ks = append(ks, mkey{pk: pk})
	}
	return ks
}

// drawKeys draws n keys, distinct unless dup, which repeats one.
func drawKeys(t *rapid.T, label string) (keys []mkey, dup bool) {
	all := allKeys()
	idx := rapid.SliceOfNDistinct(rapid.IntRange(0, len(all)-1), 1, 4, rapid.ID[int]).Draw(t, label)
	for _, i := range idx {
		keys = append(keys, all[i])
	}
	if rapid.IntRange(0, 9).Draw(t, label+"Dup") == 0 {
		keys = append(keys, keys[rapid.IntRange(0, len(keys)-1).Draw(t, label+"DupOf")])
		return keys, true
	}
	return keys, false
}

// drawItem draws a new item for k: maybe a number n, a string that may
// be chunked, and (in table A) a TTL a few seconds either side of now.
func (m *batchModel) drawItem(t *rapid.T, k mkey) Item {
	it := k.key()
	if rapid.Bool().Draw(t, "hasN") {
		it["n"] = NInt(rapid.Int64Range(0, 2).Draw(t, "n"))
	}
	if size := rapid.SampledFrom([]int{0, 10, 400, 5_000}).Draw(t, "size"); size > 0 {
		it["s"] = S(strings.Repeat("s", size))
	}
	if k.a && rapid.Bool().Draw(t, "hasExp") {
		it["exp"] = NInt(m.clock.Now().Unix() + rapid.Int64Range(-3, 3).Draw(t, "exp"))
	}
	return it
}

func (m *batchModel) batchWrite(t *rapid.T) {
	keys, dup := drawKeys(t, "keys")
	in := BatchWriteInput{RequestItems: map[*Table][]WriteRequest{}}
	next := maps.Clone(m.items)
	for _, k := range keys {
		var wr WriteRequest
		if rapid.Bool().Draw(t, "put") {
			it := m.drawItem(t, k)
			wr = putReq(it)
			next[k.String()] = it
		} else {
			wr = delReq(k.key())
			delete(next, k.String())
		}
		in.RequestItems[m.table(k)] = append(in.RequestItems[m.table(k)], wr)
	}
	out, err := BatchWrite(m.db, in)
	if dup {
		if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "Provided list of item keys contains duplicates") {
			t.Fatalf("BatchWrite with a duplicate = %v", err)
		}
		return
	}
	if err != nil || out.UnprocessedItems != nil {
		t.Fatalf("BatchWrite = %v, %v", out, err)
	}
	m.items = next
}

// drawProjection draws an optional projection and applies it in the model.
func drawProjection(t *rapid.T) (string, func(Item) Item) {
	if rapid.Bool().Draw(t, "project") {
		return "pk, n", func(it Item) Item {
			out := Item{}
			for _, a := range []string{"pk", "n"} {
				if v, ok := it[a]; ok {
					out[a] = v
				}
			}
			return out
		}
	}
	return "", func(it Item) Item { return it }
}

func (m *batchModel) batchGet(t *rapid.T) {
	keys, dup := drawKeys(t, "keys")
	in := BatchGetInput{RequestItems: map[*Table]KeysAndAttributes{}}
	want := map[*Table][]Item{}
	projA, applyA := drawProjection(t)
	for _, k := range keys {
		tbl := m.table(k)
		ka := in.RequestItems[tbl]
		if k.a {
			ka.ProjectionExpression = projA
		}
		ka.Keys = append(ka.Keys, k.key())
		in.RequestItems[tbl] = ka
		if _, ok := want[tbl]; !ok {
			want[tbl] = []Item{}
		}
		if it, ok := m.items[k.String()]; ok {
			if k.a {
				it = applyA(it)
			}
			want[tbl] = append(want[tbl], it)
		}
	}
	out, err := BatchGet(m.db, in)
	if dup {
		if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "Provided list of item keys contains duplicates") {
			t.Fatalf("BatchGet with a duplicate = %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != len(want) || out.UnprocessedKeys != nil {
		t.Fatalf("BatchGet answered %d tables, %v unprocessed; want %d", len(out.Responses), out.UnprocessedKeys, len(want))
	}
	for tbl, items := range want {
		got := out.Responses[tbl]
		if len(got) != len(items) {
			t.Fatalf("BatchGet %s: %d items, want %d", tbl.Name(), len(got), len(items))
		}
		for i := range items {
			expectItem(t, "BatchGet "+tbl.Name()+"["+strconv.Itoa(i)+"]", items[i], got[i])
		}
	}
}

func (m *batchModel) transactGet(t *rapid.T) {
	keys, dup := drawKeys(t, "keys")
	proj, apply := drawProjection(t)
	var in TransactGetInput
	var want []Item
	for _, k := range keys {
		in.TransactItems = append(in.TransactItems, TransactGetItem{Table: m.table(k), Key: k.key(), ProjectionExpression: proj})
		if it, ok := m.items[k.String()]; ok {
			want = append(want, apply(it))
		} else {
			want = append(want, nil)
		}
	}
	out, err := TransactGet(m.db, in)
	if dup {
		if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "multiple operations on one item") {
			t.Fatalf("TransactGet with a duplicate = %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		expectItem(t, "TransactGet["+strconv.Itoa(i)+"]", want[i], out.Responses[i].Item)
	}
}

// txSpec is a drawn TransactWrite, kept so that it can be sent again
// (retryLast) and judged against the model as it is then.
type txSpec struct {
	keys  []mkey
	dup   bool
	acts  []txSpecAction
	token string
	desc  string // the request, for the model's ClientRequestToken records
}

type txSpecAction struct {
	kind  int // 0 check, 1 put, 2 update, 3 delete
	cond  string
	vals  map[string]Value
	holds func(Item) bool
	rv    ReturnValuesOnConditionCheckFailure
	item  Item // a put's item
}

// modelToken is the model of a ClientRequestToken record.
type modelToken struct {
	desc   string
	expiry time.Time
}

func (m *batchModel) transactWrite(t *rapid.T) {
	keys, dup := drawKeys(t, "keys")
	spec := &txSpec{keys: keys, dup: dup, token: rapid.SampledFrom([]string{"", "", "tA", "tB"}).Draw(t, "token")}
	if spec.token != "" {
		// Tokens are scoped to the root, which every run shares.
		spec.token += "-" + m.b.Name()
	}
	var desc strings.Builder
	for _, k := range keys {
		var a txSpecAction
		a.cond, a.vals, a.holds = drawCondition(t)
		a.rv = rapid.SampledFrom([]ReturnValuesOnConditionCheckFailure{"", ReturnValuesOnConditionCheckFailureAllOld}).Draw(t, "rv")
		a.kind = rapid.IntRange(0, 3).Draw(t, "kind")
		if a.kind == 0 && a.cond == "" {
			a.kind = 3 // a ConditionCheck needs a condition
		}
		if a.kind == 1 {
			a.item = m.drawItem(t, k)
		}
		fmt.Fprintf(&desc, "%d %s %q %v %s %v;", a.kind, k, a.cond, a.vals, a.rv, a.item)
		spec.acts = append(spec.acts, a)
	}
	spec.desc = desc.String()
	m.last = spec
	m.sendTransactWrite(t, spec)
}

// retryLast sends the last TransactWrite again, its token included,
// sometimes after the token's window has passed.
func (m *batchModel) retryLast(t *rapid.T) {
	if m.last == nil {
		t.Skip("no TransactWrite yet")
	}
	if rapid.IntRange(0, 4).Draw(t, "late") == 0 {
		m.clock.Advance(ClientRequestTokenWindow + time.Second)
	}
	m.sendTransactWrite(t, m.last)
}

func (m *batchModel) sendTransactWrite(t *rapid.T, spec *txSpec) {
	var in TransactWriteInput
	in.ClientRequestToken = spec.token
	next := maps.Clone(m.items)
	var want []CancellationReason
	canceled, invalidSeen := false, false
	for i, k := range spec.keys {
		a := spec.acts[i]
		tbl, old := m.table(k), m.items[k.String()]
		reason := CancellationReason{Code: CancellationCodeNone}
		if !a.holds(old) {
			reason = CancellationReason{Code: CancellationCodeConditionalCheckFailed, Message: "The conditional request failed"}
			if a.rv == ReturnValuesOnConditionCheckFailureAllOld {
				reason.Item = old
			}
		}
		var ti TransactWriteItem
		switch a.kind {
		case 0:
			ti.ConditionCheck = &ConditionCheck{Table: tbl, Key: k.key(), ConditionExpression: a.cond, ExpressionAttributeValues: a.vals, ReturnValuesOnConditionCheckFailure: a.rv}
		case 1:
			ti.Put = &TransactPut{Table: tbl, Item: a.item, ConditionExpression: a.cond, ExpressionAttributeValues: a.vals, ReturnValuesOnConditionCheckFailure: a.rv}
			next[k.String()] = a.item
		case 2:
			// SET n = n + :one needs n: an item without it makes the
			// update invalid, a ValidationError reason.
			uvals := map[string]Value{":one": N("1")}
			maps.Copy(uvals, a.vals)
			ti.Update = &TransactUpdate{Table: tbl, Key: k.key(), UpdateExpression: "SET n = n + :one", ConditionExpression: a.cond,
				ExpressionAttributeValues: uvals, ReturnValuesOnConditionCheckFailure: a.rv}
			if reason.Code == CancellationCodeNone {
				if cur, ok := old["n"]; ok {
					up := maps.Clone(old)
					v, _ := cur.Int64()
					up["n"] = NInt(v + 1)
					next[k.String()] = up
				} else if !invalidSeen {
					// Only the first invalid action has its code;
					// later ones are None, as in DynamoDB.
					reason = CancellationReason{Code: CancellationCodeValidationError}
					invalidSeen = true
				}
			}
		case 3:
			ti.Delete = &TransactDelete{Table: tbl, Key: k.key(), ConditionExpression: a.cond, ExpressionAttributeValues: a.vals, ReturnValuesOnConditionCheckFailure: a.rv}
			delete(next, k.String())
		}
		canceled = canceled || reason.Code != CancellationCodeNone
		want = append(want, reason)
		in.TransactItems = append(in.TransactItems, ti)
	}
	_, err := TransactWrite(m.db, in)
	rec, recorded := m.tokens[spec.token]
	live := spec.token != "" && recorded && rec.expiry.After(m.clock.Now())
	switch {
	case spec.dup:
		if !errors.Is(err, ErrValidation) || !strings.Contains(err.Error(), "Transaction request cannot include multiple operations on one item") {
			t.Fatalf("TransactWrite with two actions on one item = %v", err)
		}
	case live && rec.desc == spec.desc:
		if err != nil {
			t.Fatalf("TransactWrite retried with its token = %v, want success without writing", err)
		}
	case live:
		if !errors.Is(err, ErrIdempotentParameterMismatch) {
			t.Fatalf("TransactWrite reusing token %s for another request = %v, want IdempotentParameterMismatch", spec.token, err)
		}
	case canceled:
		var tce *TransactionCanceledError
		if !errors.As(err, &tce) || len(tce.CancellationReasons) != len(want) {
			t.Fatalf("TransactWrite = %v, want canceled with %d reasons", err, len(want))
		}
		for i, r := range tce.CancellationReasons {
			w := want[i]
			if r.Code != w.Code || (w.Code == CancellationCodeConditionalCheckFailed && r.Message != w.Message) {
				t.Fatalf("reason %d = %+v, want %+v", i, r, w)
			}
			expectItem(t, "reason "+strconv.Itoa(i)+" Item", w.Item, r.Item)
		}
	default:
		if err != nil {
			t.Fatalf("TransactWrite = %v, want success", err)
		}
		m.items = next
		if spec.token != "" {
			m.tokens[spec.token] = modelToken{desc: spec.desc, expiry: m.clock.Now().Add(ClientRequestTokenWindow)}
		}
	}
}

func (m *batchModel) sweep(t *rapid.T) {
	m.clock.Advance(time.Duration(rapid.IntRange(0, 3).Draw(t, "advance")) * time.Second)
	cut := newTTLCutoff("exp", m.clock.Now())
	deleted := 0
	for k, it := range m.items {
		if strings.HasPrefix(k, "A:") && cut.expired(it) {
			delete(m.items, k)
			deleted++
		}
	}
	stats, err := m.a.SweepExpiredOnce(t.Context(), m.db, SweepOptions{BatchSize: rapid.IntRange(1, 3).Draw(t, "batch")})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Deleted != deleted {
		t.Fatalf("sweep deleted %d, model %d", stats.Deleted, deleted)
	}
}

func (m *batchModel) check(t *rapid.T) {
	keys := allKeys()
	in := TransactGetInput{}
	for _, k := range keys {
		in.TransactItems = append(in.TransactItems, TransactGetItem{Table: m.table(k), Key: k.key()})
	}
	out, err := TransactGet(m.db, in)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		want := m.items[k.String()]
		expectItem(t, "item "+k.String(), want, out.Responses[i].Item)
		// Plain Get agrees with the batched read.
		got, err := m.table(k).Get(m.db, GetInput{Key: k.key()})
		if err != nil {
			t.Fatal(err)
		}
		expectItem(t, "Get "+k.String(), want, got.Item)
	}
	for _, tbl := range []*Table{m.a, m.b} {
		if p := tableProblems(m.db, tbl); len(p) > 0 {
			t.Fatalf("table invariants of %s: %q", tbl.Name(), p)
		}
	}
}
