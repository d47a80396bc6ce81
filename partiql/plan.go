package partiql

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno"
)

// plan.go turns a parsed PartiQL statement, with its parameters
// bound, into the DynamoDB requests that run it: a SELECT becomes Query
// requests (one per partition the WHERE pins) or a Scan; an INSERT a Put
// with attribute_not_exists on the partition key; an UPDATE an Update
// whose ConditionExpression requires the item; a DELETE a Delete; an
// EXISTS a ConditionCheck. WHERE conditions and SET/REMOVE actions are
// written as DynamoDB expressions, with every name and value behind a
// placeholder, so that they are parsed and evaluated by the one
// expression evaluator (package fdyno's) that every other operation uses,
// and writes go through the one write path.

// pqBuilder writes expression text for one request, collecting its
// ExpressionAttributeNames and ExpressionAttributeValues.
type pqBuilder struct {
	params []fdyno.Value
	names  map[string]string // #placeholder -> name
	nameOf map[string]string // name -> #placeholder
	values map[string]fdyno.Value
}

func newPQBuilder(params []fdyno.Value) *pqBuilder {
	return &pqBuilder{params: params}
}

func (b *pqBuilder) name(n string) string {
	if ph, ok := b.nameOf[n]; ok {
		return ph
	}
	if b.names == nil {
		b.names, b.nameOf = map[string]string{}, map[string]string{}
	}
	ph := "#n" + strconv.Itoa(len(b.names))
	b.names[ph], b.nameOf[n] = n, ph
	return ph
}

func (b *pqBuilder) value(v fdyno.Value) string {
	if b.values == nil {
		b.values = map[string]fdyno.Value{}
	}
	ph := ":v" + strconv.Itoa(len(b.values))
	b.values[ph] = v
	return ph
}

func (b *pqBuilder) path(p docPath) string { return p.format(b.name) }

// pqUnsupported is the error of a construct DynamoDB's PartiQL accepts
// in the grammar but not where it was written.
func pqUnsupported(what string) error {
	return &fdyno.ValidationError{Reason: "Unsupported operation: " + what}
}

// constant returns the value of e if it is a constant (a literal, a
// parameter, or a tuple, list or set of constants); ok is false if it is
// not.
func (b *pqBuilder) constant(e *pqExpr) (v fdyno.Value, ok bool, err error) {
	switch e.kind {
	case pqeLit:
		return e.val, true, nil
	case pqeParam:
		if e.param >= len(b.params) {
			return fdyno.Value{}, false, pqParamCountError()
		}
		return b.params[e.param], true, nil
	case pqeTuple:
		vs, err := b.members(e, "tuple")
		if err != nil {
			return fdyno.Value{}, false, err
		}
		m := make(fdyno.Item, len(vs))
		for i, v := range vs {
			m[e.keys[i]] = v
		}
		return fdyno.M(m), true, nil
	case pqeList:
		vs, err := b.members(e, "list")
		if err != nil {
			return fdyno.Value{}, false, err
		}
		return fdyno.L(vs...), true, nil
	case pqeBag:
		return b.set(e)
	}
	return fdyno.Value{}, false, nil
}

// members returns the values of the members of e, a tuple or a list
// (what), each of which must be a constant.
func (b *pqBuilder) members(e *pqExpr, what string) ([]fdyno.Value, error) {
	vs := make([]fdyno.Value, len(e.args))
	for i, a := range e.args {
		v, ok, err := b.constant(a)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, pqUnsupported("a " + what + " may hold only literals and parameters")
		}
		vs[i] = v
	}
	return vs, nil
}

// set returns the set value of a <<...>> of strings, numbers or binaries.
func (b *pqBuilder) set(e *pqExpr) (fdyno.Value, bool, error) {
	if len(e.args) == 0 {
		return fdyno.Value{}, false, &fdyno.ValidationError{Reason: "One or more parameter values were invalid: An empty set is not allowed"}
	}
	var typ fdyno.Type
	members := make([]string, 0, len(e.args))
	var bins [][]byte
	for _, a := range e.args {
		v, ok, err := b.constant(a)
		if err != nil {
			return fdyno.Value{}, false, err
		}
		if !ok || typ != 0 && v.Type() != typ || v.Type() != fdyno.TypeS && v.Type() != fdyno.TypeN && v.Type() != fdyno.TypeB {
			return fdyno.Value{}, false, pqUnsupported("a set holds strings, numbers or binaries of one type")
		}
		typ = v.Type()
		switch typ {
		case fdyno.TypeS:
			members = append(members, v.S())
		case fdyno.TypeN:
			members = append(members, v.N())
		case fdyno.TypeB:
			bins = append(bins, v.B())
		}
	}
	switch typ {
	case fdyno.TypeS:
		return fdyno.SS(members...), true, nil
	case fdyno.TypeN:
		return fdyno.NS(members...), true, nil
	}
	return fdyno.BS(bins...), true, nil
}

func pqParamCountError() error {
	return &fdyno.ValidationError{Reason: "Number of parameters in request and statement don't match."}
}

// term writes a path or a constant, what both a condition operand and a
// SET value may be; where says, in the error of anything else, where e
// was written.
func (b *pqBuilder) term(e *pqExpr, where string) (string, error) {
	if e.kind == pqePath {
		return b.path(e.path), nil
	}
	v, ok, err := b.constant(e)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", pqUnsupported("expression " + e.String() + " " + where)
	}
	return b.value(v), nil
}

// operand writes a condition operand: a path, a constant or size(path).
func (b *pqBuilder) operand(e *pqExpr) (string, error) {
	if e.kind == pqeCall && e.op == "size" {
		if e.args[0].kind != pqePath {
			return "", pqUnsupported("size takes a document path")
		}
		return "size(" + b.path(e.args[0].path) + ")", nil
	}
	return b.term(e, "as an operand")
}

// cond writes a WHERE condition as a ConditionExpression. Each compound
// operand is parenthesized once, so the text never has the redundant
// parentheses DynamoDB's parser refuses.
func (b *pqBuilder) cond(e *pqExpr) (string, error) {
	switch e.kind {
	case pqeAnd, pqeOr:
		l, err := b.wrappedCond(e.args[0])
		if err != nil {
			return "", err
		}
		r, err := b.wrappedCond(e.args[1])
		if err != nil {
			return "", err
		}
		op := " AND "
		if e.kind == pqeOr {
			op = " OR "
		}
		return l + op + r, nil
	case pqeNot:
		s, err := b.wrappedCond(e.args[0])
		if err != nil {
			return "", err
		}
		return "NOT " + s, nil
	case pqeCmp, pqeBetween, pqeIn:
		ops := make([]string, len(e.args))
		for i, a := range e.args {
			s, err := b.operand(a)
			if err != nil {
				return "", err
			}
			ops[i] = s
		}
		switch e.kind {
		case pqeCmp:
			return ops[0] + " " + e.op + " " + ops[1], nil
		case pqeBetween:
			return ops[0] + " BETWEEN " + ops[1] + " AND " + ops[2], nil
		}
		if len(ops)-1 > maxInOperands {
			return "", &fdyno.ValidationError{Reason: reasonTooManyIn + strconv.Itoa(len(ops)-1)}
		}
		return ops[0] + " IN (" + strings.Join(ops[1:], ", ") + ")", nil
	case pqeMissing, pqeNull:
		if e.args[0].kind != pqePath {
			return "", pqUnsupported("IS MISSING and IS NULL take a document path")
		}
		p := b.path(e.args[0].path)
		if e.kind == pqeMissing {
			return "attribute_not_exists(" + p + ")", nil
		}
		// In PartiQL, MISSING IS NULL too.
		return "(attribute_type(" + p + ", " + b.value(fdyno.S("NULL")) + ") OR attribute_not_exists(" + p + "))", nil
	case pqeCall:
		switch e.op {
		case "begins_with", "contains", "attribute_type":
			if e.args[0].kind != pqePath {
				return "", pqUnsupported(e.op + " takes a document path first")
			}
			p := b.path(e.args[0].path)
			o, err := b.operand(e.args[1])
			if err != nil {
				return "", err
			}
			return e.op + "(" + p + ", " + o + ")", nil
		}
	}
	return "", pqUnsupported("expression " + e.String() + " as a condition")
}

// wrappedCond writes e as an operand of AND, OR or NOT: parenthesized
// if it is itself one of them.
func (b *pqBuilder) wrappedCond(e *pqExpr) (string, error) {
	s, err := b.cond(e)
	if err != nil {
		return "", err
	}
	if e.kind == pqeAnd || e.kind == pqeOr || e.kind == pqeNot {
		return "(" + s + ")", nil
	}
	return s, nil
}

// conjuncts returns the operands of the top-level ANDs of e.
func conjuncts(e *pqExpr) []*pqExpr {
	if e == nil {
		return nil
	}
	if e.kind == pqeAnd {
		return append(conjuncts(e.args[0]), conjuncts(e.args[1])...)
	}
	return []*pqExpr{e}
}

// isAttr reports whether e is the top-level attribute name.
func isAttr(e *pqExpr, name string) bool {
	return e.kind == pqePath && e.path.isAttr(name)
}

// keyEquality returns the constant that e, a conjunct, equates attribute
// name to ("name = c" or "c = name").
func (b *pqBuilder) keyEquality(e *pqExpr, name string) (fdyno.Value, bool, error) {
	if e.kind != pqeCmp || e.op != "=" {
		return fdyno.Value{}, false, nil
	}
	for i := range 2 {
		if isAttr(e.args[i], name) {
			v, ok, err := b.constant(e.args[1-i])
			if err != nil || ok {
				return v, ok, err
			}
		}
	}
	return fdyno.Value{}, false, nil
}

// keyEqualityAmong returns the first conjunct of cs not yet used that
// equates attribute name to a constant of type typ (of any type if typ is
// 0), and that constant; i is -1 if there is none.
func (b *pqBuilder) keyEqualityAmong(cs []*pqExpr, used []bool, name string, typ fdyno.Type) (i int, v fdyno.Value, err error) {
	for i, c := range cs {
		if used[i] {
			continue
		}
		v, ok, err := b.keyEquality(c, name)
		if err != nil {
			return -1, fdyno.Value{}, err
		}
		if ok && (typ == 0 || v.Type() == typ) {
			return i, v, nil
		}
	}
	return -1, fdyno.Value{}, nil
}

// partitionValues returns the partition key values a conjunct pins: one
// for "pk = c", several for "pk IN [c, ...]" or "pk = c OR pk = d ...".
func (b *pqBuilder) partitionValues(e *pqExpr, name string) ([]fdyno.Value, bool, error) {
	switch e.kind {
	case pqeCmp:
		v, ok, err := b.keyEquality(e, name)
		if !ok || err != nil {
			return nil, false, err
		}
		return []fdyno.Value{v}, true, nil
	case pqeIn:
		if !isAttr(e.args[0], name) {
			return nil, false, nil
		}
		vs := make([]fdyno.Value, 0, len(e.args)-1)
		for _, a := range e.args[1:] {
			v, ok, err := b.constant(a)
			if !ok || err != nil {
				return nil, false, err
			}
			vs = append(vs, v)
		}
		return vs, true, nil
	case pqeOr:
		l, ok, err := b.partitionValues(e.args[0], name)
		if !ok || err != nil {
			return nil, false, err
		}
		r, ok, err := b.partitionValues(e.args[1], name)
		if !ok || err != nil {
			return nil, false, err
		}
		return append(l, r...), true, nil
	}
	return nil, false, nil
}

// sortKeyCondition returns the key condition text of a conjunct that
// conditions sort key rng in a way a Query's range read can apply: a
// comparison other than <> with a constant of the key's type, BETWEEN
// two such constants, or begins_with on an S or B key.
func (b *pqBuilder) sortKeyCondition(e *pqExpr, rng keyAttr) (string, bool, error) {
	konst := func(a *pqExpr) (fdyno.Value, bool, error) {
		v, ok, err := b.constant(a)
		if !ok || err != nil || v.Type() != rng.Type {
			return fdyno.Value{}, false, err
		}
		return v, true, nil
	}
	switch e.kind {
	case pqeCmp:
		if e.op == "<>" {
			return "", false, nil
		}
		for i := range 2 {
			if !isAttr(e.args[i], rng.Name) {
				continue
			}
			c, ok, err := konst(e.args[1-i])
			if !ok || err != nil {
				return "", false, err
			}
			op := e.op
			if i == 1 {
				op = flipped[op]
			}
			return b.name(rng.Name) + " " + op + " " + b.value(c), true, nil
		}
	case pqeBetween:
		if !isAttr(e.args[0], rng.Name) {
			return "", false, nil
		}
		lo, ok, err := konst(e.args[1])
		if !ok || err != nil {
			return "", false, err
		}
		hi, ok, err := konst(e.args[2])
		if !ok || err != nil {
			return "", false, err
		}
		return b.name(rng.Name) + " BETWEEN " + b.value(lo) + " AND " + b.value(hi), true, nil
	case pqeCall:
		if e.op != "begins_with" || !isAttr(e.args[0], rng.Name) || rng.Type == fdyno.TypeN {
			return "", false, nil
		}
		c, ok, err := konst(e.args[1])
		if !ok || err != nil {
			return "", false, err
		}
		return "begins_with(" + b.name(rng.Name) + ", " + b.value(c) + ")", true, nil
	}
	return "", false, nil
}

// residual writes the conjuncts not consumed as one condition, or "".
func (b *pqBuilder) residual(cs []*pqExpr, used []bool) (string, error) {
	var parts []string
	for i, c := range cs {
		if used != nil && used[i] {
			continue
		}
		s, err := b.wrappedCond(c)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " AND "), nil
}

// maxINPartitions is the most partition key values an IN (or an OR of
// equalities) may list (the developer guide's PartiQL operators page: 50
// hash attribute values).
const maxINPartitions = 50

// checkINPartitions refuses n partition key values over maxINPartitions.
func checkINPartitions(n int) error {
	if n > maxINPartitions {
		return &fdyno.ValidationError{Reason: "The IN operator on a partition key takes at most " + strconv.Itoa(maxINPartitions) + " values; number of values: " + strconv.Itoa(n)}
	}
	return nil
}

// pqSelectPlan is how a SELECT reads: Queries of the listed partitions
// (in the order written, duplicates dropped), or a Scan.
type pqSelectPlan struct {
	index string
	// query: one Query per partition, with KeyConditionExpression
	// "#h1 = :p0 AND #h2 = :p1 ..." (hashPHs, one per partition
	// attribute) plus sortCond (if any).
	query bool
	// hashPHs are the placeholders in keyNames of the partition
	// attributes of the table or index, in key schema order: one, or up
	// to four for a global secondary index with a multi-attribute key.
	hashPHs []string
	// partitions are the partitions read, each the values of the
	// partition attributes in order.
	partitions [][]fdyno.Value
	keyNames   map[string]string
	keyValues  map[string]fdyno.Value
	sortCond   string
	forward    bool
	// getKey, when the WHERE pins the table's full primary key, is the
	// key of the one item the Query can return: it is read with a point
	// read, as GetItem does.
	getKey fdyno.Item
	// filter is the rest of the WHERE clause, applied to every item read
	// by the evaluator, after Limit (as a FilterExpression is).
	filter       string
	filterNames  map[string]string
	filterValues map[string]fdyno.Value
	proj         []docPath
}

// keyCondition is the KeyConditionExpression of the plan's Queries, its
// partition values named ":p0", ":p1", ... (partitionValues).
func (pl *pqSelectPlan) keyCondition() string {
	parts := make([]string, 0, len(pl.hashPHs)+1)
	for i, ph := range pl.hashPHs {
		parts = append(parts, ph+" = :p"+strconv.Itoa(i))
	}
	if pl.sortCond != "" {
		parts = append(parts, pl.sortCond)
	}
	return strings.Join(parts, " AND ")
}

// partitionValues are the placeholder values of partition i's Query.
func (pl *pqSelectPlan) partitionValues(i int) map[string]fdyno.Value {
	values := make(map[string]fdyno.Value, len(pl.keyValues)+len(pl.hashPHs))
	for k, v := range pl.keyValues {
		values[k] = v
	}
	for j, v := range pl.partitions[i] {
		values[":p"+strconv.Itoa(j)] = v
	}
	return values
}

// planSelect plans a SELECT against table t: a Query when the WHERE pins
// the partition key of the table (or of the index) by equality or IN,
// every partition attribute of a multi-attribute key, else a Scan, as
// DynamoDB decides. The sort attributes a Query's key condition takes
// follow the developer guide's rules for a multi-attribute key: left to
// right in key schema order, equalities, then at most one range
// condition; the rest of the WHERE filters.
func planSelect(s *pqStmt, t *fdyno.Table, params []fdyno.Value) (*pqSelectPlan, error) {
	hashes, sorts, ok := keyAttrLists(t, s.index)
	if !ok {
		return nil, &fdyno.ValidationError{Reason: "The table does not have the specified index: " + s.index}
	}
	pl := &pqSelectPlan{index: s.index, proj: s.proj, forward: true}
	kb, fb := newPQBuilder(params), newPQBuilder(params)
	cs := conjuncts(s.where)
	used := make([]bool, len(cs))
	// Each partition attribute's values, from the first conjunct that
	// pins it; a Query needs them all.
	lists := make([][]fdyno.Value, 0, len(hashes))
	for _, h := range hashes {
		var vals []fdyno.Value
		found := false
		for i, c := range cs {
			if used[i] {
				continue
			}
			vs, ok, err := kb.partitionValues(c, h.Name)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if err := checkINPartitions(len(vs)); err != nil {
				return nil, err
			}
			used[i], found = true, true
			for _, v := range vs {
				if v.Type() == h.Type && !slices.ContainsFunc(vals, v.Equal) {
					vals = append(vals, v)
				}
			}
			break
		}
		if !found {
			lists = nil
			break
		}
		lists = append(lists, vals)
	}
	pl.query = lists != nil
	for _, h := range hashes {
		// The partition attributes are named first: #n0, #n1, ...
		pl.hashPHs = append(pl.hashPHs, kb.name(h.Name))
	}
	if pl.query {
		// The partitions: every combination of the attributes' values,
		// the first attribute's varying slowest. A multi-attribute key's
		// combinations count against the IN limit as one list would.
		pl.partitions = [][]fdyno.Value{{}}
		for _, vals := range lists {
			next := make([][]fdyno.Value, 0, len(pl.partitions)*len(vals))
			for _, p := range pl.partitions {
				for _, v := range vals {
					next = append(next, append(slices.Clip(p), v))
				}
			}
			pl.partitions = next
		}
		if err := checkINPartitions(len(pl.partitions)); err != nil {
			return nil, err
		}
	}
	if pl.query && len(pl.partitions) == 1 && s.index == "" {
		// The full primary key: one point read, as GetItem.
		key := fdyno.Item{hashes[0].Name: pl.partitions[0][0]}
		if len(sorts) == 0 {
			pl.getKey = key
		} else {
			i, v, err := kb.keyEqualityAmong(cs, used, sorts[0].Name, sorts[0].Type)
			if err != nil {
				return nil, err
			}
			if i >= 0 {
				key[sorts[0].Name] = v
				pl.getKey, used[i] = key, true
			}
		}
	}
	// pinned counts the leading sort attributes the key condition pins
	// by equality: the order of the items read is that of the others.
	pinned := 0
	if pl.query && len(sorts) > 0 && pl.getKey == nil {
		var conds []string
		for j, rng := range sorts {
			// An equality on this attribute lets the next one be
			// conditioned too; another comparison ends the prefix. The
			// last attribute takes any comparison at once.
			if j < len(sorts)-1 {
				i, v, err := kb.keyEqualityAmong(cs, used, rng.Name, rng.Type)
				if err != nil {
					return nil, err
				}
				if i >= 0 {
					conds = append(conds, kb.name(rng.Name)+" = "+kb.value(v))
					used[i] = true
					pinned++
					continue
				}
			}
			for i, c := range cs {
				if used[i] {
					continue
				}
				sc, ok, err := kb.sortKeyCondition(c, rng)
				if err != nil {
					return nil, err
				}
				if ok {
					conds, used[i] = append(conds, sc), true
					break
				}
			}
			break
		}
		pl.sortCond = strings.Join(conds, " AND ")
	}
	if !pl.query {
		used = nil
	}
	filter, err := fb.residual(cs, used)
	if err != nil {
		return nil, err
	}
	pl.filter, pl.filterNames, pl.filterValues = filter, fb.names, fb.values
	pl.keyNames, pl.keyValues = kb.names, kb.values
	isKey := func(o pqOrder, attrs []keyAttr) int {
		return slices.IndexFunc(attrs, func(a keyAttr) bool { return o.path.isAttr(a.Name) })
	}
	// The sort attributes ORDER BY names past the pinned ones must be the
	// next ones in key schema order, in one direction: a partition's
	// items come in index order, the sort attributes left to right, and
	// any other order would be answered in that one instead.
	next, dir := pinned, ""
	for i, o := range s.order {
		switch j := isKey(o, sorts); {
		case !pl.query:
			return nil, &fdyno.ValidationError{Reason: "Must have WHERE clause in the statement when using ORDER BY clause."}
		case isKey(o, hashes) >= 0:
			if o.desc {
				slices.Reverse(pl.partitions)
			}
		case j >= 0 && j < pinned:
			// One value in every partition read: no order to follow.
		case j >= 0:
			d := map[bool]string{false: "ASC", true: "DESC"}[o.desc]
			switch {
			case j > next:
				return nil, &fdyno.ValidationError{Reason: "Variable reference " + strconv.Quote(o.path.String()) + " in ORDER BY clause follows the index's sort key order only after " +
					strconv.Quote(sorts[next].Name) + ", which the WHERE clause does not pin by equality and ORDER BY does not name before it (ORDER BY position " + strconv.Itoa(i+1) + ")"}
			case dir != "" && d != dir:
				return nil, &fdyno.ValidationError{Reason: "ORDER BY clause orders the index's sort key attributes in one direction only: " + strconv.Quote(o.path.String()) +
					" " + d + " after " + dir + " (ORDER BY position " + strconv.Itoa(i+1) + ")"}
			}
			if j == next {
				next++
			}
			dir, pl.forward = d, !o.desc
		default:
			return nil, &fdyno.ValidationError{Reason: "Variable reference " + strconv.Quote(o.path.String()) + " in ORDER BY clause must be a key attribute (ORDER BY position " + strconv.Itoa(i+1) + ")"}
		}
	}
	if len(s.order) > 0 && len(pl.partitions) > 1 {
		if j := isKey(s.order[0], hashes); j >= 0 {
			// ORDER BY a partition attribute: read the partitions in the
			// order of that attribute, then of the others in key order.
			slices.SortStableFunc(pl.partitions, func(a, b []fdyno.Value) int {
				c := compareKeys(a[j], b[j])
				for k := 0; c == 0 && k < len(a); k++ {
					c = compareKeys(a[k], b[k])
				}
				if s.order[0].desc {
					return -c
				}
				return c
			})
		}
	}
	return pl, nil
}

// pqKeyPlan is the item an UPDATE, DELETE or EXISTS names: the full key
// its WHERE equates, and the rest of the WHERE as a condition.
type pqKeyPlan struct {
	key  fdyno.Item
	cond string // the rest, "" if none
	b    *pqBuilder
}

// planKey finds equalities on every key attribute among the WHERE's
// conjuncts.
func planKey(where *pqExpr, t *fdyno.Table, params []fdyno.Value) (*pqKeyPlan, error) {
	hash, rng, _ := keyAttrs(t, "")
	b := newPQBuilder(params)
	cs := conjuncts(where)
	used := make([]bool, len(cs))
	key := fdyno.Item{}
	for _, a := range []keyAttr{hash, rng} {
		if a.Name == "" {
			continue
		}
		// A constant of another type is refused by the request, as
		// DynamoDB refuses a mistyped key.
		i, v, err := b.keyEqualityAmong(cs, used, a.Name, 0)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			return nil, &fdyno.ValidationError{Reason: "Where clause does not contain a mandatory equality on all key attributes"}
		}
		key[a.Name], used[i] = v, true
	}
	cond, err := b.residual(cs, used)
	if err != nil {
		return nil, err
	}
	return &pqKeyPlan{key: key, cond: cond, b: b}, nil
}

// existsCond is the condition of an UPDATE or EXISTS: the item, whose
// partition key is hash, exists and the rest of the WHERE holds.
func (kp *pqKeyPlan) existsCond(hash string) string {
	cond := "attribute_exists(" + kp.b.name(hash) + ")"
	if kp.cond != "" {
		cond += " AND (" + kp.cond + ")"
	}
	return cond
}

// updateText writes an UPDATE's SET and REMOVE actions as an
// UpdateExpression: SET path = value, where value is a constant, a path,
// a sum or difference of them, or list_append; SET path =
// set_add(path, set) and set_delete(path, set) become ADD and DELETE
// actions.
func (b *pqBuilder) updateText(s *pqStmt) (string, error) {
	var set, add, del, rem []string
	for _, a := range s.sets {
		p := b.path(a.path)
		v := a.val
		switch {
		case v.kind == pqeCall && (v.op == "set_add" || v.op == "set_delete"):
			if v.args[0].kind != pqePath || !v.args[0].path.equal(a.path) {
				return "", pqUnsupported(v.op + " must name the attribute it sets")
			}
			c, ok, err := b.constant(v.args[1])
			if err != nil {
				return "", err
			}
			if !ok {
				return "", pqUnsupported(v.op + " takes a set")
			}
			if v.op == "set_add" {
				add = append(add, p+" "+b.value(c))
			} else {
				del = append(del, p+" "+b.value(c))
			}
		default:
			t, err := b.setValue(v)
			if err != nil {
				return "", err
			}
			set = append(set, p+" = "+t)
		}
	}
	for _, r := range s.removes {
		rem = append(rem, b.path(r))
	}
	var out []string
	for _, c := range []struct {
		kw   string
		acts []string
	}{{"SET", set}, {"REMOVE", rem}, {"ADD", add}, {"DELETE", del}} {
		if len(c.acts) > 0 {
			out = append(out, c.kw+" "+strings.Join(c.acts, ", "))
		}
	}
	return strings.Join(out, " "), nil
}

// setValue writes the value of a SET action.
func (b *pqBuilder) setValue(e *pqExpr) (string, error) {
	if e.kind != pqeAdd && e.kind != pqeSub && (e.kind != pqeCall || e.op != "list_append") {
		return b.term(e, "in SET")
	}
	l, err := b.term(e.args[0], "in SET")
	if err != nil {
		return "", err
	}
	r, err := b.term(e.args[1], "in SET")
	if err != nil {
		return "", err
	}
	switch e.kind {
	case pqeAdd:
		return l + " + " + r, nil
	case pqeSub:
		return l + " - " + r, nil
	}
	return "list_append(" + l + ", " + r + ")", nil
}

// pqProject returns the attributes of it that a SELECT's projection
// names, each under the last name of its path, as DynamoDB returns them
// ("SELECT a.b" gives {"b": ...}).
func pqProject(it fdyno.Item, proj []docPath) fdyno.Item {
	if proj == nil {
		return it
	}
	out := make(fdyno.Item, len(proj))
	for _, p := range proj {
		v := lookupPath(it, p)
		if v.IsZero() {
			continue
		}
		name := p[0].name
		for _, e := range p {
			if !e.isIndex {
				name = e.name
			}
		}
		out[name] = v
	}
	return out
}

// keyAttr is a key attribute: its name and type.
type keyAttr struct {
	Name string
	Type fdyno.Type
}

// keyAttrs returns the partition and sort key of t (index "") or of its
// index; rng.Name is "" when there is no sort key, and ok is false when
// there is no such index.
func keyAttrs(t *fdyno.Table, index string) (hash, rng keyAttr, ok bool) {
	h, r, ok := t.KeyAttributes(index)
	return keyAttrOf(h), keyAttrOf(r), ok
}

// keyAttrLists returns the partition attributes and the sort attributes
// of t (index "") or of its index, each in key schema order: one and at
// most one, or up to four each for a global secondary index with a
// multi-attribute key; ok is false when there is no such index.
func keyAttrLists(t *fdyno.Table, index string) (hashes, sorts []keyAttr, ok bool) {
	h, r, ok := t.KeySchemaAttributes(index)
	for _, d := range h {
		hashes = append(hashes, keyAttrOf(d))
	}
	for _, d := range r {
		sorts = append(sorts, keyAttrOf(d))
	}
	return hashes, sorts, ok
}

func keyAttrOf(d fdyno.AttributeDefinition) keyAttr {
	return keyAttr{Name: d.AttributeName, Type: scalarTypes[d.AttributeType]}
}

var scalarTypes = map[fdyno.ScalarAttributeType]fdyno.Type{fdyno.ScalarAttributeTypeS: fdyno.TypeS,
	fdyno.ScalarAttributeTypeN: fdyno.TypeN, fdyno.ScalarAttributeTypeB: fdyno.TypeB}

// flipped is the comparison of "c op name" written as "name op c".
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// compareKeys orders two key values of one type (S, N or B) as DynamoDB
// orders keys: strings and binaries by their bytes, numbers by value.
func compareKeys(a, b fdyno.Value) int {
	if a.Type() == fdyno.TypeN && b.Type() == fdyno.TypeN {
		x, errA := a.Decimal()
		y, errB := b.Decimal()
		if errA != nil || errB != nil {
			return 0
		}
		return x.Cmp(y)
	}
	return bytes.Compare(keyBytes(a), keyBytes(b))
}

func keyBytes(v fdyno.Value) []byte {
	if v.Type() == fdyno.TypeS {
		return []byte(v.S())
	}
	return v.B()
}
