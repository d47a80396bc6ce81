package server

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno"
)

// legacy.go: DynamoDB's legacy (pre-expression) request parameters:
// Expected and ConditionalOperator (PutItem, UpdateItem, DeleteItem),
// AttributeUpdates (UpdateItem), KeyConditions and QueryFilter (Query),
// ScanFilter (Scan) and AttributesToGet (GetItem, BatchGetItem, Query,
// Scan).
//
// They live at the wire, not in the library: the library's Go API speaks
// expressions only, and Go code porting from the SDK's legacy fields is
// better served by writing the expression once than by a second API.
// The server translates each legacy parameter into the expression it
// stands for (legacy_condition.go, legacy_update.go) and hands that to
// the library, so a legacy condition and its expression twin are parsed
// and evaluated by the same code and can never drift apart. Attribute
// names and values travel as ExpressionAttributeNames and
// ExpressionAttributeValues entries, never as expression text; their
// keys begin with a prefix that begins none of the request's own keys
// (placeholders), which matters only where DynamoDB lets the two meet:
// KeyConditions beside a FilterExpression or ProjectionExpression.
//
// DynamoDB validates the legacy forms with messages of their own, which
// the server reproduces before translating; a failure that only the
// translated update can meet (an ADD to an attribute of another type) is
// reworded as DynamoDB words it for the legacy form.

// legacyParam is one legacy member of a request: present unless absent or
// JSON null.
type legacyParam json.RawMessage

// UnmarshalJSON keeps the raw value.
func (p *legacyParam) UnmarshalJSON(data []byte) error {
	if string(data) != "null" {
		*p = append((*p)[:0], data...)
	}
	return nil
}

func (p legacyParam) present() bool { return len(p) > 0 }

// legacyConditional are the legacy members of PutItem, UpdateItem and
// DeleteItem.
type legacyConditional struct {
	Expected            legacyParam
	ConditionalOperator legacyParam
}

// member is a request member's name and whether the request has it.
type member struct {
	name string
	has  bool
}

// mixed returns DynamoDB's ValidationException for a request holding both
// legacy and expression parameters, listing each kind in DynamoDB's
// order, or nil.
func mixed(legacy, expr []member) error {
	names := func(ms []member) []string {
		var out []string
		for _, m := range ms {
			if m.has {
				out = append(out, m.name)
			}
		}
		return out
	}
	l, e := names(legacy), names(expr)
	if len(l) == 0 || len(e) == 0 {
		return nil
	}
	return validation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {" +
		strings.Join(l, ", ") + "} Expression parameters: {" + strings.Join(e, ", ") + "}")
}

// conditionalOperator decodes ConditionalOperator: "AND" when absent.
// hasConds says whether the request has Expected (or the filter) at all,
// conds how many conditions it holds.
func conditionalOperator(raw legacyParam, hasConds bool, conds int) (string, error) {
	if !raw.present() {
		return "AND", nil
	}
	var op string
	if err := json.Unmarshal(raw, &op); err != nil {
		return "", serializationOf(err)
	}
	if op != "AND" && op != "OR" {
		return "", validation("1 validation error detected: Value '" + op + "' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]")
	}
	if !hasConds {
		return "", validation("ConditionalOperator cannot be used without Filter or Expected")
	}
	if conds < 2 {
		return "", validation("ConditionalOperator can only be used when Filter or Expected has two or more elements")
	}
	return op, nil
}

// placeholders allocates the ExpressionAttributeNames and
// ExpressionAttributeValues keys of a translation: #<prefix><n> and
// :<prefix><n>.
//
// Invariants:
//
//  1. No key the request itself supplied begins with "#"+prefix or
//     ":"+prefix, so the translation's keys never collide with them.
//  2. Each attribute name has one key; each value its own.
type placeholders struct {
	prefix string
	names  map[string]string // key → attribute name
	byName map[string]string // attribute name → key
	values map[string]fdyno.Value
}

// newPlaceholders returns placeholders whose keys avoid those of the
// request's own names and values maps (either may be nil).
func newPlaceholders(names map[string]string, values map[string]fdyno.Value) *placeholders {
	prefix := "l"
	taken := func() bool {
		for k := range names {
			if strings.HasPrefix(k, "#"+prefix) {
				return true
			}
		}
		for k := range values {
			if strings.HasPrefix(k, ":"+prefix) {
				return true
			}
		}
		return false
	}
	for taken() {
		prefix += "_"
	}
	return &placeholders{prefix: prefix}
}

func (p *placeholders) name(attr string) string {
	if k, ok := p.byName[attr]; ok {
		return k
	}
	if p.names == nil {
		p.names, p.byName = map[string]string{}, map[string]string{}
	}
	k := "#" + p.prefix + strconv.Itoa(len(p.names))
	p.names[k], p.byName[attr] = attr, k
	return k
}

func (p *placeholders) value(v fdyno.Value) string {
	if p.values == nil {
		p.values = map[string]fdyno.Value{}
	}
	k := ":" + p.prefix + strconv.Itoa(len(p.values))
	p.values[k] = v
	return k
}

// merge returns the request's names and values maps with the
// translation's keys added; a map stays nil if both are empty.
func (p *placeholders) merge(names map[string]string, values wireValues) (map[string]string, wireValues) {
	if len(p.names) > 0 {
		m := make(map[string]string, len(names)+len(p.names))
		for k, v := range names {
			m[k] = v
		}
		for k, v := range p.names {
			m[k] = v
		}
		names = m
	}
	if len(p.values) > 0 {
		m := make(wireValues, len(values)+len(p.values))
		for k, v := range values {
			m[k] = v
		}
		for k, v := range p.values {
			m[k] = v
		}
		values = m
	}
	return names, values
}

// noSubstitutions rejects ExpressionAttributeNames or
// ExpressionAttributeValues in a request with no expression to use them,
// legacy or not, in DynamoDB's words; valueExprs names the expressions
// that could have used values.
func noSubstitutions(names map[string]string, values wireValues, valueExprs string) error {
	if names != nil {
		return validation("ExpressionAttributeNames can only be specified when using expressions")
	}
	if values != nil {
		verb := "is"
		if strings.Contains(valueExprs, " and ") {
			verb = "are"
		}
		return validation("ExpressionAttributeValues can only be specified when using expressions: " + valueExprs + " " + verb + " null")
	}
	return nil
}

// translateWrite rewrites the legacy members of a PutItem, DeleteItem or
// (with updates and updateExpression) UpdateItem request into w's
// expression members. It reports whether the request used AttributeUpdates.
func translateWrite(w *writeCommon, updates legacyParam, updateExpression *string) (bool, error) {
	isUpdate := updateExpression != nil
	legacy := []member{{"Expected", w.Expected.present()}, {"ConditionalOperator", w.ConditionalOperator.present()}}
	expr := []member{{"ConditionExpression", w.ConditionExpression != ""}}
	valueExprs := "ConditionExpression"
	if isUpdate {
		legacy = append([]member{{"AttributeUpdates", updates.present()}}, legacy...)
		expr = append([]member{{"UpdateExpression", *updateExpression != ""}}, expr...)
		valueExprs = "UpdateExpression and ConditionExpression"
	}
	if err := mixed(legacy, expr); err != nil {
		return false, err
	}
	if w.ConditionExpression == "" && (!isUpdate || *updateExpression == "") {
		if err := noSubstitutions(w.ExpressionAttributeNames, w.ExpressionAttributeValues, valueExprs); err != nil {
			return false, err
		}
	}
	if !w.Expected.present() && !w.ConditionalOperator.present() && !updates.present() {
		return false, nil
	}
	var ups []legacyUpdate
	if updates.present() {
		var err error
		if ups, err = decodeUpdates(updates); err != nil {
			return false, err
		}
	}
	var conds []legacyCond
	if w.Expected.present() {
		var err error
		if conds, err = decodeConds("Expected", w.Expected); err != nil {
			return false, err
		}
		for i := range conds {
			if err := checkExpected(&conds[i]); err != nil {
				return false, err
			}
		}
	}
	op, err := conditionalOperator(w.ConditionalOperator, w.Expected.present(), len(conds))
	if err != nil {
		return false, err
	}
	ph := newPlaceholders(w.ExpressionAttributeNames, w.ExpressionAttributeValues)
	if len(conds) > 0 {
		w.ConditionExpression = joinConds(ph, conds, op)
	}
	if isUpdate && updates.present() {
		*updateExpression = updateExpr(ph, ups)
	}
	w.ExpressionAttributeNames, w.ExpressionAttributeValues = ph.merge(w.ExpressionAttributeNames, w.ExpressionAttributeValues)
	return updates.present(), nil
}

// legacyUpdateError rewords the library's error for a translated
// AttributeUpdates that met an attribute of another type.
func legacyUpdateError(err error) error {
	var ve *fdyno.ValidationError
	if asValidation(err, &ve) && strings.HasSuffix(ve.Reason, "An operand in the update expression has an incorrect data type") {
		return validation("Type mismatch for attribute to update")
	}
	return err
}

// legacyRead are the legacy members of a Query or Scan beside
// readCommon's, and what checkRead decoded of them for applyRead.
type legacyRead struct {
	query       bool
	keyConds    legacyParam
	filter      legacyParam // QueryFilter or ScanFilter
	keyCondExpr *string

	active bool         // the request has legacy members other than AttributesToGet
	conds  []legacyCond // the filter's conditions
	op     string       // ConditionalOperator
	keys   []legacyCond // KeyConditions
}

// checkRead validates the legacy members of a Query or Scan as far as
// no key schema is needed: mixing with expression parameters, each
// condition's arguments, ConditionalOperator, the number of
// KeyConditions.
func checkRead(r *readCommon, l *legacyRead) error {
	filterName := "ScanFilter"
	legacy := []member{{"AttributesToGet", r.AttributesToGet != nil}, {filterName, l.filter.present()}, {"ConditionalOperator", r.ConditionalOperator.present()}}
	expr := []member{{"ProjectionExpression", r.ProjectionExpression != ""}, {"FilterExpression", r.FilterExpression != ""}}
	valueExprs := "FilterExpression"
	if l.query {
		filterName = "QueryFilter"
		legacy[1].name = filterName
		// DynamoDB lets KeyConditions stand beside the other expressions;
		// only KeyConditionExpression excludes it.
		legacy = append(legacy, member{"KeyConditions", l.keyConds.present() && *l.keyCondExpr != ""})
		expr = append(expr, member{"KeyConditionExpression", *l.keyCondExpr != ""})
		valueExprs = "FilterExpression and KeyConditionExpression"
	}
	if err := mixed(legacy, expr); err != nil {
		return err
	}
	// Names need some expression to use them, values one that is not a
	// projection.
	if r.ProjectionExpression == "" && r.FilterExpression == "" && (!l.query || *l.keyCondExpr == "") {
		if err := noSubstitutions(r.ExpressionAttributeNames, nil, valueExprs); err != nil {
			return err
		}
	}
	if r.FilterExpression == "" && (!l.query || *l.keyCondExpr == "") {
		if err := noSubstitutions(nil, r.ExpressionAttributeValues, valueExprs); err != nil {
			return err
		}
	}
	if r.AttributesToGet != nil {
		if err := checkSelectAttributesToGet(r.Select, l.query); err != nil {
			return err
		}
	}
	if !l.filter.present() && !r.ConditionalOperator.present() && !l.keyConds.present() {
		return nil
	}
	l.active = true
	if l.filter.present() {
		var err error
		if l.conds, err = decodeConds(filterName, l.filter); err != nil {
			return err
		}
		for i := range l.conds {
			if err := checkArgs(&l.conds[i]); err != nil {
				return err
			}
		}
	}
	var err error
	if l.op, err = conditionalOperator(r.ConditionalOperator, l.filter.present(), len(l.conds)); err != nil {
		return err
	}
	if l.query && l.keyConds.present() {
		if l.keys, err = decodeConds("KeyConditions", l.keyConds); err != nil {
			return err
		}
		for i := range l.keys {
			if err := checkArgs(&l.keys[i]); err != nil {
				return err
			}
		}
		// A multi-attribute global secondary index key has up to four
		// partition and four sort attributes, and KeyConditions may name
		// all of them (DynamoDB accepts KeyConditions on such an index);
		// more than two on a one-attribute key are refused once the key
		// schema is known (keyConditions).
		if len(l.keys) < 1 || len(l.keys) > maxKeyConditions {
			return validation(conditionsLength)
		}
	}
	return nil
}

// checkSelectAttributesToGet refuses AttributesToGet beside a Select
// other than SPECIFIC_ATTRIBUTES, in DynamoDB's words (a Query's with the
// "1 validation error detected: " prefix, a Scan's without).
func checkSelectAttributesToGet(sel fdyno.Select, query bool) error {
	what := string(sel)
	switch sel {
	case fdyno.SelectAllAttributes, fdyno.SelectAllProjectedAttributes:
	case fdyno.SelectCount:
		what = "only the Count"
	default:
		return nil
	}
	msg := "Cannot specify the AttributesToGet when choosing to get " + what
	if query {
		msg = "1 validation error detected: " + msg
	}
	return validation(msg)
}

// applyRead checks a Query's KeyConditions and QueryFilter against the
// key schema of table t (or of the index queried) and rewrites the legacy
// members checkRead accepted into r's (and *l.keyCondExpr's) expression
// members.
func (s *Server) applyRead(t *fdyno.Table, r *readCommon, l *legacyRead) error {
	if !l.active {
		return nil
	}
	ph := newPlaceholders(r.ExpressionAttributeNames, r.ExpressionAttributeValues)
	if l.keys != nil {
		keyExpr, err := s.keyConditions(t, r.IndexName, l.keys, l.conds, ph)
		if err != nil {
			return err
		}
		*l.keyCondExpr = keyExpr
	}
	if len(l.conds) > 0 {
		r.FilterExpression = joinConds(ph, l.conds, l.op)
	}
	r.ExpressionAttributeNames, r.ExpressionAttributeValues = ph.merge(r.ExpressionAttributeNames, r.ExpressionAttributeValues)
	if r.AttributesToGet != nil {
		// The request has no expression of its own (that would be mixed),
		// so its names are only the translation's, whose keys begin with
		// ph.prefix and never with attributesToGet's "#a".
		proj, names, err := attributesToGet(r.AttributesToGet, nil)
		if err != nil {
			return err
		}
		r.ProjectionExpression, r.AttributesToGet = proj, nil
		for k, v := range names {
			if r.ExpressionAttributeNames == nil {
				r.ExpressionAttributeNames = map[string]string{}
			}
			r.ExpressionAttributeNames[k] = v
		}
	}
	return nil
}

// maxKeyConditions is the most KeyConditions a Query may have: one per
// key attribute of a multi-attribute global secondary index, four
// partition and four sort attributes (the developer guide's
// "Multi-attribute key schema").
const maxKeyConditions = 8

// conditionsLength is DynamoDB's refusal of KeyConditions of a length its
// key schema cannot take.
const conditionsLength = "Conditions can be of length 1 or 2 only"

// keyConditions validates a Query's KeyConditions (and that its
// QueryFilter, filter, names no key attribute) against the key schema of
// the table or index queried, and returns the KeyConditionExpression.
//
// The rules are the developer guide's for every key, one attribute or
// several ("Multi-attribute key schema"): every partition attribute with
// EQ ("Query condition missed key schema element" names the first one
// missing, "Query key condition not supported" refuses another
// comparison); sort attributes left to right in key schema order, none
// skipped, a range comparison only on the last one given ("RANGE key
// attributes ... must have equality conditions ...", DynamoDB's words as
// observed), as for a KeyConditionExpression.
func (s *Server) keyConditions(t *fdyno.Table, index string, conds, filter []legacyCond, ph *placeholders) (string, error) {
	desc, err := t.Describe(s.db)
	if err != nil {
		return "", err
	}
	hash, sort, types := keySchemaOf(desc, index)
	if hash == nil {
		// An unknown index: the library reports it.
		return joinConds(ph, conds, "AND"), nil
	}
	if len(conds) > 2 && len(hash)+len(sort) <= 2 {
		return "", validation(conditionsLength)
	}
	if len(hash) == 1 && len(sort) == 0 && len(conds) > 1 {
		return "", validation("Query key condition not supported")
	}
	byName := make(map[string]legacyCond, len(conds))
	for _, c := range conds {
		byName[c.attr] = c
	}
	ordered := make([]legacyCond, 0, len(conds))
	check := func(k string, c legacyCond) error {
		switch c.op {
		case "NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN":
			return validation("Attempted conditional constraint is not an indexable operation")
		}
		for _, v := range c.list {
			if v.Type().String() != types[k] {
				return invalid("Condition parameter type does not match schema type")
			}
		}
		return nil
	}
	// Each condition on a key attribute first, in key schema order (an
	// operation the position does not allow, a value of another type),
	// then the partition attributes without one, as the library checks a
	// KeyConditionExpression written in that order.
	for _, k := range hash {
		c, ok := byName[k]
		if !ok {
			continue
		}
		if err := check(k, c); err != nil {
			return "", err
		}
		if c.op != "EQ" {
			return "", validation("Query key condition not supported")
		}
	}
	var given []bool // whether each sort attribute has a condition
	for _, k := range sort {
		c, ok := byName[k]
		given = append(given, ok)
		if !ok {
			continue
		}
		if err := check(k, c); err != nil {
			return "", err
		}
	}
	for _, k := range hash {
		c, ok := byName[k]
		if !ok {
			return "", validation("Query condition missed key schema element: " + k)
		}
		ordered = append(ordered, c)
	}
	for i, k := range sort {
		if given[i] {
			ordered = append(ordered, byName[k])
		}
	}
	if len(ordered) < len(conds) {
		// A condition on no key attribute. With one sort attribute
		// DynamoDB names the sort key when it has no condition.
		if len(sort) == 1 && !given[0] {
			return "", validation("Query condition missed key schema element: " + sort[0])
		}
		return "", validation("Query key condition not supported")
	}
	// Sort attributes left to right, none skipped, a range comparison
	// only on the last one given, in DynamoDB's words (observed on a
	// multi-attribute key): the first attribute lacking its equality, and
	// the later one that has a condition.
	for later := 1; later < len(sort); later++ {
		if !given[later] {
			continue
		}
		for prior := range later {
			if !given[prior] || byName[sort[prior]].op != "EQ" {
				return "", validation("RANGE key attributes " + sort[prior] + " must have equality conditions specified in the query because a condition is present on key attribute " + sort[later])
			}
		}
	}
	for _, k := range append(slices.Clone(hash), sort...) {
		for _, c := range filter {
			if c.attr == k {
				return "", validation("QueryFilter can only contain non-primary key attributes: Primary key attribute: " + k)
			}
		}
	}
	return joinConds(ph, ordered, "AND"), nil
}

// keySchemaOf returns the partition and sort key attribute names, in key
// schema order, of the table or of its index, and every key attribute's
// type name; hash is nil if there is no such index. A multi-attribute
// global secondary index has up to four of each; the table and its local
// secondary indexes one partition and at most one sort attribute.
func keySchemaOf(desc *fdyno.TableDescription, index string) (hash, sort []string, types map[string]string) {
	types = make(map[string]string, len(desc.AttributeDefinitions))
	for _, d := range desc.AttributeDefinitions {
		types[d.AttributeName] = string(d.AttributeType)
	}
	schema := desc.KeySchema
	if index != "" {
		schema = nil
		for _, x := range desc.GlobalSecondaryIndexes {
			if x.IndexName == index {
				schema = x.KeySchema
			}
		}
		for _, x := range desc.LocalSecondaryIndexes {
			if x.IndexName == index {
				schema = x.KeySchema
			}
		}
	}
	for _, ks := range schema {
		if ks.KeyType == fdyno.KeyTypeHash {
			hash = append(hash, ks.AttributeName)
		} else {
			sort = append(sort, ks.AttributeName)
		}
	}
	return hash, sort, types
}

// readProjection returns the projection a read asks for and its
// ExpressionAttributeNames: AttributesToGet's (attributesToGet), or else
// ProjectionExpression (expr) with the request's names.
func readProjection(attrs []string, expr string, names map[string]string, exprParams ...string) (string, map[string]string, error) {
	proj, names, err := attributesToGet(attrs, names, exprParams...)
	if err == nil && attrs == nil {
		proj = expr
	}
	return proj, names, err
}

// attributesToGet maps an AttributesToGet list to a ProjectionExpression
// and its ExpressionAttributeNames. exprParams lists the expression
// parameters the request has, which cannot be mixed with it.
func attributesToGet(names []string, names0 map[string]string, exprParams ...string) (string, map[string]string, error) {
	if names == nil {
		return "", names0, nil
	}
	if len(exprParams) > 0 {
		return "", nil, validation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {" +
			strings.Join(exprParams, ", ") + "}")
	}
	if names0 != nil {
		return "", nil, validation("ExpressionAttributeNames can only be specified when using expressions")
	}
	if len(names) == 0 {
		return "", nil, validation("1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	seen := make(map[string]bool, len(names))
	ean := make(map[string]string, len(names))
	var b strings.Builder
	for i, n := range names {
		if seen[n] {
			return "", nil, validation("One or more parameter values were invalid: Duplicate value in attribute name: " + n)
		}
		seen[n] = true
		if i > 0 {
			b.WriteString(", ")
		}
		ph := "#a" + strconv.Itoa(i)
		b.WriteString(ph)
		ean[ph] = n
	}
	return b.String(), ean, nil
}

// present lists the names of the non-empty expression parameters among
// pairs of (name, value).
func present(pairs ...string) []string {
	var out []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			out = append(out, pairs[i])
		}
	}
	return out
}
