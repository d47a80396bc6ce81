package server

import (
	"hash/crc32"
	"slices"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno"
)

// validate.go: DynamoDB's constraint checks on request members, which run
// before anything looks at a table. DynamoDB's service framework checks
// every member of a request against its model (lengths, patterns, enum
// sets, ranges) and reports all the violations of one request in one
// ValidationException:
//
//	2 validation errors detected: Value 'X' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [...]; Value 'Y' at 'returnConsumedCapacity' failed to satisfy constraint: ...
//
// Member names are the model's, lower camel case ('tableName',
// 'returnConsumedCapacity', 'keySchema.1.member.keyType' with 1-based
// list positions). The table name is checked first and alone: a request
// whose table name is invalid reports only that.

// Table name constraints (DynamoDB's API reference: 3 to 255 characters
// of [a-zA-Z0-9_.-] for a new table; a data-plane TableName may also be
// a table ARN of at most 1024 characters).
const (
	minTableNameLength = 3
	maxTableNameLength = 255
	maxTableARNLength  = 1024
	tableNamePattern   = "[a-zA-Z0-9_.-]+"
)

// constraints collects the constraint violations of one request.
type constraints struct {
	errs []string
}

// add records that the member at field, of value value (nil: absent),
// violates constraint.
func (v *constraints) add(field string, value *string, constraint string) {
	var b strings.Builder
	b.WriteString("Value ")
	if value == nil {
		b.WriteString("null")
	} else {
		b.WriteString("'" + *value + "'")
	}
	b.WriteString(" at '" + field + "' failed to satisfy constraint: " + constraint)
	v.errs = append(v.errs, b.String())
}

// enum checks that value, when present (non-empty), is one of allowed.
func (v *constraints) enum(field, value string, allowed ...string) {
	if value == "" || slices.Contains(allowed, value) {
		return
	}
	v.add(field, &value, "Member must satisfy enum value set: ["+strings.Join(allowed, ", ")+"]")
}

// min checks that the number n at field is at least lo.
func (v *constraints) min(field string, n *int, lo int) {
	if n == nil || *n >= lo {
		return
	}
	s := strconv.Itoa(*n)
	v.add(field, &s, "Member must have value greater than or equal to "+strconv.Itoa(lo))
}

// err returns the ValidationException for the violations, or nil.
func (v *constraints) err() error {
	switch len(v.errs) {
	case 0:
		return nil
	case 1:
		return validation("1 validation error detected: " + v.errs[0])
	}
	return validation(strconv.Itoa(len(v.errs)) + " validation errors detected: " + strings.Join(v.errs, "; "))
}

// checkTableNameMember applies DynamoDB's constraints to a TableName
// member; arnOK admits a table ARN, as every TableName but CreateTable's
// does. The model of such a member allows 1 to 1024 characters, so an
// empty one is reported against the minimum of 1; a name of one or two
// characters, which no table can have, is still refused as too short,
// before any table lookup (DynamoDB answers a PutItem to table "xx" with
// a ValidationException, not ResourceNotFoundException).
func checkTableNameMember(field, name string, arnOK bool) error {
	var v constraints
	switch {
	case arnOK && strings.HasPrefix(name, "arn:"):
		if len(name) > maxTableARNLength {
			v.add(field, &name, "Member must have length less than or equal to "+strconv.Itoa(maxTableARNLength))
		}
		return v.err()
	case arnOK && name == "":
		v.add(field, &name, "Member must have length greater than or equal to 1")
	default:
		checkNameMember(&v, field, name)
	}
	return v.err()
}

// validTableName reports whether name matches [a-zA-Z0-9_.-]+.
func validTableName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// The enum sets of the members the server checks (DynamoDB's API
// reference, in its order).
var (
	returnValuesEnum                        = []string{"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"}
	returnValuesOnConditionCheckFailureEnum = []string{"ALL_OLD", "NONE"}
	returnConsumedCapacityEnum              = []string{"INDEXES", "TOTAL", "NONE"}
	returnItemCollectionMetricsEnum         = []string{"SIZE", "NONE"}
)

// checkWriteMembers checks the enum members of PutItem, UpdateItem and
// DeleteItem together.
func checkWriteMembers(w *writeCommon) error {
	var v constraints
	v.enum("returnConsumedCapacity", w.ReturnConsumedCapacity, returnConsumedCapacityEnum...)
	v.enum("returnItemCollectionMetrics", w.ReturnItemCollectionMetrics, returnItemCollectionMetricsEnum...)
	v.enum("returnValues", string(w.ReturnValues), returnValuesEnum...)
	v.enum("returnValuesOnConditionCheckFailure", string(w.ReturnValuesOnConditionCheckFailure), returnValuesOnConditionCheckFailureEnum...)
	return v.err()
}

// checkReadMembers checks the members of Query and Scan together. Query's
// Limit violation is worded as DynamoDB words it, without the value and
// with the member capitalised ("Value at 'Limit'"); Scan's is the usual
// form.
func checkReadMembers(op string, r *readCommon) error {
	var v constraints
	if r.Limit != nil && *r.Limit < 1 {
		if op == "Query" {
			v.errs = append(v.errs, "Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
		} else {
			v.min("limit", r.Limit, 1)
		}
	}
	v.enum("returnConsumedCapacity", r.ReturnConsumedCapacity, returnConsumedCapacityEnum...)
	v.enum("select", string(r.Select), "SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES")
	return v.err()
}

// checkCreateTableMembers checks CreateTable's members against DynamoDB's
// model, all violations together, then the key schema rule DynamoDB
// checks before the others (one attribute named twice).
func checkCreateTableMembers(in *createTableInput) error {
	if in.TableName == nil {
		return validation("The parameter 'TableName' is required but was not present in the request")
	}
	if err := checkTableNameMember("tableName", *in.TableName, false); err != nil {
		return err
	}
	var v constraints
	checkKeySchemaMember(&v, "keySchema", in.KeySchema, false, 2)
	for i, d := range in.AttributeDefinitions {
		at := "attributeDefinitions." + strconv.Itoa(i+1) + ".member."
		checkAttributeName(&v, at+"attributeName", d.AttributeName)
		v.enum(at+"attributeType", string(d.AttributeType), "B", "N", "S")
	}
	for i, l := range in.LocalSecondaryIndexes {
		at := "localSecondaryIndexes." + strconv.Itoa(i+1) + ".member."
		checkNameMember(&v, at+"indexName", l.IndexName)
		checkKeySchemaMember(&v, at+"keySchema", l.KeySchema, true, 2)
	}
	for i, g := range in.GlobalSecondaryIndexes {
		at := "globalSecondaryIndexes." + strconv.Itoa(i+1) + ".member."
		checkNameMember(&v, at+"indexName", g.IndexName)
		checkKeySchemaMember(&v, at+"keySchema", g.KeySchema, true, 0)
	}
	v.enum("billingMode", in.BillingMode, "PROVISIONED", "PAY_PER_REQUEST")
	if err := v.err(); err != nil {
		return err
	}
	if len(in.KeySchema) == 2 && in.KeySchema[0].AttributeName == in.KeySchema[1].AttributeName {
		return validation("Invalid KeySchema: Some index key attribute have no definition")
	}
	// The table's key: a HASH element, then at most one RANGE element, in
	// DynamoDB's words as observed ("Invalid KeySchema: The first
	// KeySchemaElement is not a HASH key type", "... The second
	// KeySchemaElement is not a RANGE key type").
	switch ks := in.KeySchema; {
	case len(ks) > 0 && ks[0].KeyType != fdyno.KeyTypeHash:
		return validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	case len(ks) == 2 && ks[1].KeyType != fdyno.KeyTypeRange:
		return validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}
	return nil
}

// checkKeySchemaMember applies DynamoDB's model constraints to a
// KeySchema at field: present (an index's is required: "Member must not
// be null"; the table's, when absent, is reported after these checks);
// at least one element and, when max > 0, at most max; each element's
// attribute name length and key type. The table's KeySchema and a local secondary
// index's take at most two elements; a global secondary index's has no
// maximum in the model (the API reference's GlobalSecondaryIndex:
// "Minimum number of 1 item"), its up to four HASH and four RANGE
// elements being a rule of the schema checked later, with DynamoDB's own
// words.
func checkKeySchemaMember(v *constraints, field string, ks []fdyno.KeySchemaElement, required bool, max int) {
	if ks == nil {
		if required {
			v.add(field, nil, "Member must not be null")
		}
		return
	}
	if n := len(ks); n < 1 || max > 0 && n > max {
		parts := make([]string, n)
		for i, k := range ks {
			parts[i] = "KeySchemaElement(attributeName=" + k.AttributeName + ", keyType=" + string(k.KeyType) + ")"
		}
		list := "[" + strings.Join(parts, ", ") + "]"
		if n < 1 {
			v.add(field, &list, "Member must have length greater than or equal to 1")
		} else {
			v.add(field, &list, "Member must have length less than or equal to "+strconv.Itoa(max))
		}
	}
	for i, k := range ks {
		at := field + "." + strconv.Itoa(i+1) + ".member."
		checkAttributeName(v, at+"attributeName", k.AttributeName)
		v.enum(at+"keyType", string(k.KeyType), "HASH", "RANGE")
	}
}

// checkNameMember applies DynamoDB's constraints on a TableName or an
// IndexName: 3 to 255 characters of [a-zA-Z0-9_.-].
func checkNameMember(v *constraints, field, name string) {
	switch {
	case len(name) < minTableNameLength:
		v.add(field, &name, "Member must have length greater than or equal to "+strconv.Itoa(minTableNameLength))
	case len(name) > maxTableNameLength:
		v.add(field, &name, "Member must have length less than or equal to "+strconv.Itoa(maxTableNameLength))
	}
	if name != "" && !validTableName(name) {
		v.add(field, &name, "Member must satisfy regular expression pattern: "+tableNamePattern)
	}
}

// checkAttributeName checks a key attribute name's length, 1 to 255.
func checkAttributeName(v *constraints, field, name string) {
	switch {
	case name == "":
		v.add(field, &name, "Member must have length greater than or equal to 1")
	case len(name) > 255:
		v.add(field, &name, "Member must have length less than or equal to 255")
	}
}

// javaRef is how DynamoDB's messages render a structure of the list a
// constraint refers to: Java's default toString, the class name and a
// hash, here the CRC-32 of the element's position and class (the hash
// means nothing to a client; it only keeps the form).
func javaRef(class string, i int) string {
	return "com.amazonaws.dynamodb.v20120810." + class + "@" + strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(class+strconv.Itoa(i)))), 16)
}

// javaList renders n structures of class as DynamoDB renders a list.
func javaList(class string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = javaRef(class, i)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// checkBatchGetCounts applies BatchGetItem's limits on keys: at most 100
// per table (a constraint violation naming the table), and at most 100
// over all tables.
func checkBatchGetCounts(items map[string]keysAndAttributes) error {
	if len(items) == 0 {
		return validation("The requestItems parameter is required for BatchGetItem")
	}
	names := make([]string, 0, len(items))
	total := 0
	for n, ka := range items {
		names = append(names, n)
		total += len(ka.Keys)
	}
	slices.Sort(names)
	var v constraints
	for _, n := range names {
		if len(items[n].Keys) > maxBatchGetKeys {
			v.errs = append(v.errs, "Value at 'RequestItems."+n+".member.Keys' failed to satisfy constraint: Member must have length less than or equal to "+strconv.Itoa(maxBatchGetKeys))
		}
	}
	if err := v.err(); err != nil {
		return err
	}
	if total > maxBatchGetKeys {
		return validation("Too many items requested for the BatchGetItem call")
	}
	return nil
}

// checkBatchWriteCounts applies BatchWriteItem's limits on requests: 1 to
// 25 per table (a constraint violation on the whole map), and at most 25
// over all tables.
func checkBatchWriteCounts(items map[string][]writeRequestInput) error {
	if len(items) == 0 {
		return validation("The requestItems parameter is required for BatchWriteItem")
	}
	names := make([]string, 0, len(items))
	total, bad := 0, false
	for n, reqs := range items {
		names = append(names, n)
		total += len(reqs)
		bad = bad || len(reqs) < 1 || len(reqs) > maxBatchWriteRequests
	}
	if bad {
		slices.Sort(names)
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + "=" + javaList("WriteRequest", len(items[n]))
		}
		m := "{" + strings.Join(parts, ", ") + "}"
		var v constraints
		v.add("requestItems", &m, "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
		return v.err()
	}
	if total > maxBatchWriteRequests {
		return validation("Too many items requested for the BatchWriteItem call")
	}
	return nil
}
