package server

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// apiMessage returns the message of a DynamoDB error from the SDK.
func apiMessage(err error) string {
	var ae interface{ ErrorMessage() string }
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return ""
}

// TestConstraintMessages checks DynamoDB's constraint validation at the
// wire: it comes before any table lookup (these tables do not exist, yet
// the answer is a ValidationException), reports every violated member of
// a request in one message ("N validation errors detected: …; …") with
// the model's member names, and reports an invalid table name alone. The
// expected texts are DynamoDB's (its API reference's constraints, worded
// as the service words them).
func TestConstraintMessages(t *testing.T) {
	ts := newTestServer(t, Config{})
	long := strings.Repeat("a", 256)
	for _, tc := range []struct {
		name, op, body string
		errName, msg   string
	}{
		{"empty table name", "PutItem", `{"TableName":"","Item":{}}`, "ValidationException",
			"1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"table name too long", "PutItem", `{"TableName":"` + long + `","Item":{}}`, "ValidationException",
			"1 validation error detected: Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"table name pattern", "PutItem", `{"TableName":"bad table!@#","Item":{}}`, "ValidationException",
			"1 validation error detected: Value 'bad table!@#' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"table name reported alone", "PutItem", `{"TableName":"","ReturnValues":"INVALID","Item":{}}`, "ValidationException",
			"1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"enums together", "PutItem", `{"TableName":"Nope","Item":{"pk":{"S":"a"}},"ReturnConsumedCapacity":"A","ReturnItemCollectionMetrics":"B","ReturnValues":"C"}`, "ValidationException",
			"3 validation errors detected: Value 'A' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value 'B' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]; " +
				"Value 'C' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW]"},
		{"update enums", "UpdateItem", `{"TableName":"Nope","Key":{"pk":{"S":"a"}},"ReturnValues":"X","ReturnConsumedCapacity":"Y"}`, "ValidationException",
			"2 validation errors detected: Value 'Y' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value 'X' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW]"},
		{"delete on-failure enum", "DeleteItem", `{"TableName":"Nope","Key":{"pk":{"S":"a"}},"ReturnValuesOnConditionCheckFailure":"Z"}`, "ValidationException",
			"1 validation error detected: Value 'Z' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"},
		{"query limit", "Query", `{"TableName":"Nope","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"a"}},"Limit":0}`, "ValidationException",
			"1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"scan limit", "Scan", `{"TableName":"Nope","Limit":0}`, "ValidationException",
			"1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"scan limit and select", "Scan", `{"TableName":"Nope","Limit":-1,"Select":"SOME"}`, "ValidationException",
			"2 validation errors detected: Value '-1' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1; " +
				"Value 'SOME' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"},
		{"query table pattern", "Query", `{"TableName":"abc!","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"a"}}}`, "ValidationException",
			"1 validation error detected: Value 'abc!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},

		// A name of one or two characters is too short for every
		// operation, before any table lookup (DynamoDB answers PutItem to
		// table "xx" with a ValidationException).
		{"get short name", "GetItem", `{"TableName":"ab","Key":{"pk":{"S":"a"}}}`, "ValidationException",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"put one-character name", "PutItem", `{"TableName":"x","Item":{"pk":{"S":"a"}}}`, "ValidationException",
			"1 validation error detected: Value 'x' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"short name reported alone", "PutItem", `{"TableName":"xx","ReturnValues":"INVALID","Item":{}}`, "ValidationException",
			"1 validation error detected: Value 'xx' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"short name and pattern", "Query", `{"TableName":"a!","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"a"}}}`, "ValidationException",
			"2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
				"Value 'a!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"describe short name", "DescribeTable", `{"TableName":"ab"}`, "ValidationException",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"delete short name", "DeleteTable", `{"TableName":"ab"}`, "ValidationException",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"update short name", "UpdateTable", `{"TableName":"ab","BillingMode":"PAY_PER_REQUEST"}`, "ValidationException",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"ttl short name", "DescribeTimeToLive", `{"TableName":"ab"}`, "ValidationException",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"batch get short name", "BatchGetItem", `{"RequestItems":{"ab":{"Keys":[{"pk":{"S":"a"}}]}}}`, "ValidationException",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"transact write short name", "TransactWriteItems", `{"TransactItems":[{"Delete":{"TableName":"ab","Key":{"pk":{"S":"a"}}}}]}`, "ValidationException",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},

		// Data-plane ResourceNotFoundException names nothing; the control
		// plane's names the table.
		{"get missing table", "GetItem", `{"TableName":"Nope","Key":{"pk":{"S":"a"}}}`, "ResourceNotFoundException", "Requested resource not found"},
		{"scan missing table", "Scan", `{"TableName":"Nope"}`, "ResourceNotFoundException", "Requested resource not found"},
		{"batch get missing table", "BatchGetItem", `{"RequestItems":{"Nope":{"Keys":[{"pk":{"S":"a"}}]}}}`, "ResourceNotFoundException", "Requested resource not found"},
		{"transact get missing table", "TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"Nope","Key":{"pk":{"S":"a"}}}}]}`, "ResourceNotFoundException", "Requested resource not found"},
		{"describe missing table", "DescribeTable", `{"TableName":"Nope"}`, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found"},

		// CreateTable's members.
		{"create without name", "CreateTable", `{"KeySchema":[],"AttributeDefinitions":[]}`, "ValidationException",
			"The parameter 'TableName' is required but was not present in the request"},
		{"create short name", "CreateTable", `{"TableName":"ab","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`, "ValidationException",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"create name length and pattern", "CreateTable", `{"TableName":"a!","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`, "ValidationException",
			"2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
				"Value 'a!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"create three keys", "CreateTable", `{"TableName":"Tbl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"},{"AttributeName":"x","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`, "ValidationException",
			"1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), KeySchemaElement(attributeName=x, keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"},
		{"create key type", "CreateTable", `{"TableName":"Tbl","KeySchema":[{"AttributeName":"pk","KeyType":"INVALID"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`, "ValidationException",
			"1 validation error detected: Value 'INVALID' at 'keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
		{"create attribute type and billing", "CreateTable", `{"TableName":"Tbl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"X"}],"BillingMode":"FREE"}`, "ValidationException",
			"2 validation errors detected: Value 'X' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]; " +
				"Value 'FREE' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"},
		{"create key attribute twice", "CreateTable", `{"TableName":"Tbl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"pk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`, "ValidationException",
			"Invalid KeySchema: Some index key attribute have no definition"},
		// The table's key: HASH first, then RANGE (DynamoDB's words as
		// observed on the service).
		{"create table key RANGE first", "CreateTable", `{"TableName":"Tbl","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"sk","KeyType":"RANGE"},{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}]}`, "ValidationException",
			"Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"create table key two HASH", "CreateTable", `{"TableName":"Tbl","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}]}`, "ValidationException",
			"Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"},
		// An index's KeySchema in the model: a local secondary index's
		// takes at most two elements, as the table's (observed: "The
		// table KeySchema and an LSI KeySchema with 3 elements are
		// rejected with 'Member must have length less than or equal to
		// 2'"); a global secondary index's has no maximum in the model
		// (multi-attribute keys), but its elements' key types are an
		// enum there too, here and in UpdateTable's Create.
		{"create lsi three keys", "CreateTable", `{"TableName":"Tbl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
			`"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"a","KeyType":"RANGE"},{"AttributeName":"b","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}`, "ValidationException",
			"1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=a, keyType=RANGE), KeySchemaElement(attributeName=b, keyType=RANGE)]' at 'localSecondaryIndexes.1.member.keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"},
		{"create gsi key type", "CreateTable", `{"TableName":"Tbl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
			`"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"a","KeyType":"HASH"},{"AttributeName":"b","KeyType":"HASH"},{"AttributeName":"c","KeyType":"SORT"}],"Projection":{"ProjectionType":"ALL"}}]}`, "ValidationException",
			"1 validation error detected: Value 'SORT' at 'globalSecondaryIndexes.1.member.keySchema.3.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
		{"create gsi no keys", "CreateTable", `{"TableName":"Tbl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
			`"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[],"Projection":{"ProjectionType":"ALL"}}]}`, "ValidationException",
			"1 validation error detected: Value '[]' at 'globalSecondaryIndexes.1.member.keySchema' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"create gsi without keys", "CreateTable", `{"TableName":"Tbl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
			`"GlobalSecondaryIndexes":[{"IndexName":"gsi","Projection":{"ProjectionType":"ALL"}}]}`, "ValidationException",
			"1 validation error detected: Value null at 'globalSecondaryIndexes.1.member.keySchema' failed to satisfy constraint: Member must not be null"},
		{"update gsi key type", "UpdateTable", `{"TableName":"Nope","AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"}],` +
			`"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"gsi","KeySchema":[{"AttributeName":"a","KeyType":"PARTITION"}],"Projection":{"ProjectionType":"ALL"}}}]}`, "ValidationException",
			"1 validation error detected: Value 'PARTITION' at 'globalSecondaryIndexUpdates.1.member.create.keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, name, msg := ts.post(t, targetPrefix+tc.op, contentType, strings.NewReader(tc.body))
			if status != 400 || name != tc.errName || msg != tc.msg {
				t.Errorf("got %d %s %q\nwant 400 %s %q", status, name, msg, tc.errName, tc.msg)
			}
		})
	}
}

// TestTooManyTransactItems checks the form of DynamoDB's message for a
// transaction of more than 100 actions: the list rendered as the
// service's Java model renders it, then the length constraint.
func TestTooManyTransactItems(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, op := range []string{"TransactGetItems", "TransactWriteItems"} {
		action := `{"Get":{"TableName":"Nope","Key":{"pk":{"S":"a"}}}}`
		class := "TransactGetItem"
		if op == "TransactWriteItems" {
			action = `{"Delete":{"TableName":"Nope","Key":{"pk":{"S":"a"}}}}`
			class = "TransactWriteItem"
		}
		body := `{"TransactItems":[` + strings.Repeat(action+",", 100) + action + `]}`
		status, name, msg := ts.post(t, targetPrefix+op, contentType, strings.NewReader(body))
		re := regexp.MustCompile(`^1 validation error detected: Value '\[(com\.amazonaws\.dynamodb\.v20120810\.` + class + `@[0-9a-f]+(, )?){101}\]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100$`)
		if status != 400 || name != "ValidationException" || !re.MatchString(msg) {
			t.Errorf("%s of 101 actions: got %d %s %q", op, status, name, msg)
		}
	}
}

// TestSchemaMessages checks CreateTable's and UpdateTable's key schema
// and projection rules at the wire, in DynamoDB's words: an attribute
// defined twice ("Attribute Name is duplicated: x", as DynamoDB answers
// it); an index key attribute that AttributeDefinitions lacks (the key
// schema's and the definitions' names listed, as DynamoDB lists them); an
// attribute projected twice; and, in UpdateTable, a new index's key
// attribute that the request does not define even though the table
// already does (an LSI's key, the table's sort key: DynamoDB requires the
// request to define it), or defines with another type ("Attributes cannot
// be redefined").
func TestSchemaMessages(t *testing.T) {
	ts := newTestServer(t, Config{})
	const lsiTable = `{"TableName":"WithLSI","BillingMode":"PAY_PER_REQUEST",` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],` +
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"l","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],` +
		`"LocalSecondaryIndexes":[{"IndexName":"byL","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],` +
		`"GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}`
	ts.mustCall(t, "CreateTable", lsiTable)
	create := func(defs, gsis string) string {
		return `{"TableName":"Schema","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],` +
			`"AttributeDefinitions":[` + defs + `]` + gsis + `}`
	}
	gsi := func(keys, projection string) string {
		return `,"GlobalSecondaryIndexes":[{"IndexName":"idx","KeySchema":[` + keys + `],"Projection":` + projection + `}]`
	}
	newGSI := func(defs, keys string) string {
		return `{"TableName":"WithLSI","AttributeDefinitions":[` + defs + `],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"idx2","KeySchema":[` + keys + `],"Projection":{"ProjectionType":"ALL"}}}]}`
	}
	const (
		pkS = `{"AttributeName":"pk","AttributeType":"S"}`
		gS  = `{"AttributeName":"g","AttributeType":"S"}`
		gN  = `{"AttributeName":"g","AttributeType":"N"}`
		lS  = `{"AttributeName":"l","AttributeType":"S"}`
		xS  = `{"AttributeName":"x","AttributeType":"S"}`
		hg  = `{"AttributeName":"g","KeyType":"HASH"}`
		hl  = `{"AttributeName":"l","KeyType":"HASH"}`
		hx  = `{"AttributeName":"x","KeyType":"HASH"}`
		rsk = `{"AttributeName":"sk","KeyType":"RANGE"}`
		all = `{"ProjectionType":"ALL"}`
	)
	for _, tc := range []struct {
		name, op, body, msg string
	}{
		{"duplicate definition", "CreateTable", create(pkS+","+pkS, ""), "Attribute Name is duplicated: pk"},
		{"duplicate definition, another type", "CreateTable", create(pkS+","+gS+","+gN, gsi(hg, all)), "Attribute Name is duplicated: g"},
		{"gsi key not defined", "CreateTable", create(pkS, gsi(hg, all)),
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [g], AttributeDefinitions: [pk]"},
		{"nonkey attribute twice", "CreateTable", create(pkS+","+gS, gsi(hg, `{"ProjectionType":"INCLUDE","NonKeyAttributes":["a","b","a"]}`)),
			"Cannot have two attributes with the same name"},
		{"update: LSI key not in the request", "UpdateTable", newGSI(xS, hl),
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [l], AttributeDefinitions: [x]"},
		{"update: table sort key not in the request", "UpdateTable", newGSI(xS, hx+","+rsk),
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [x, sk], AttributeDefinitions: [x]"},
		{"update: key type redefined", "UpdateTable", newGSI(gN, hg),
			"One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. " +
				"Existing schema: Schema:[SchemaElement: key{g:S:HASH}] New schema: Schema:[SchemaElement: key{g:N:HASH}]"},
		{"update: duplicate definition", "UpdateTable", newGSI(xS+","+xS, hx), "Attribute Name is duplicated: x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, name, msg := ts.post(t, targetPrefix+tc.op, contentType, strings.NewReader(tc.body))
			if status != 400 || name != "ValidationException" || msg != tc.msg {
				t.Errorf("got %d %s %q\nwant 400 ValidationException %q", status, name, msg, tc.msg)
			}
		})
	}
	// The LSI's key, defined in the request, makes a valid new index.
	if status, name, msg := ts.post(t, targetPrefix+"UpdateTable", contentType, strings.NewReader(newGSI(lS, hl))); status != 200 {
		t.Errorf("UpdateTable with the LSI key defined: %d %s %s", status, name, msg)
	}
}

// TestNumberMessages checks the words of a number DynamoDB refuses, at
// the wire: text that is not a number ("The parameter cannot be
// converted to a numeric value: b", without the text when it is empty),
// more than 38 significant digits, and magnitudes out of range, in an
// item, a set and an expression value (dynalite's tests, written against
// DynamoDB, and other implementations' captures pin these words).
func TestNumberMessages(t *testing.T) {
	ts := newTestServer(t, Config{})
	createTable(t, ts.client(testCredentials), "Num", "", "")
	put := func(v string) string { return `{"TableName":"Num","Item":{"pk":{"S":"a"},"n":` + v + `}}` }
	update := func(v string) string {
		return `{"TableName":"Num","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET n = :b","ExpressionAttributeValues":{":b":` + v + `}}`
	}
	const syntax = "The parameter cannot be converted to a numeric value"
	for _, tc := range []struct {
		name, op, body, msg string
	}{
		{"not a number", "PutItem", put(`{"N":"b"}`), syntax + ": b"},
		{"two points", "PutItem", put(`{"N":"1.2.3"}`), syntax + ": 1.2.3"},
		{"empty", "PutItem", put(`{"N":""}`), syntax},
		{"set member", "PutItem", put(`{"NS":["1","b"]}`), syntax + ": b"},
		{"empty set member", "PutItem", put(`{"NS":["1",""]}`), syntax},
		{"39 digits", "PutItem", put(`{"N":"123456789012345678901234567890123456789"}`), "Attempting to store more than 38 significant digits in a Number"},
		{"39 digits negative fraction", "PutItem", put(`{"N":"-1.23456789012345678901234567890123456789"}`), "Attempting to store more than 38 significant digits in a Number"},
		{"overflow", "PutItem", put(`{"N":"1e126"}`), "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"underflow", "PutItem", put(`{"N":"1e-131"}`), "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{"expression value", "UpdateItem", update(`{"N":"b"}`), "ExpressionAttributeValues contains invalid value: " + syntax + ": b for key :b"},
		{"empty expression value", "UpdateItem", update(`{"NS":["1",""]}`), "ExpressionAttributeValues contains invalid value: " + syntax + " for key :b"},
		// Arithmetic past the largest number is DynamoDB's overflow text,
		// with no attribute path (issue 37; dynamodb-facts.md: arithmetic
		// overflow is a ValidationException with the stored-number words).
		{"arithmetic overflow", "UpdateItem", `{"TableName":"Num","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET n = :big + :one","ExpressionAttributeValues":{":big":{"N":"9.9999999999999999999999999999999999999E+125"},":one":{"N":"1E+125"}}}`,
			"Number overflow. Attempting to store a number with magnitude larger than supported range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, name, msg := ts.post(t, targetPrefix+tc.op, contentType, strings.NewReader(tc.body))
			if status != 400 || name != "ValidationException" || msg != tc.msg {
				t.Errorf("got %d %s %q\nwant 400 ValidationException %q", status, name, msg, tc.msg)
			}
		})
	}
}

// TestTimeToLiveMessages checks UpdateTimeToLive's refusals in DynamoDB's
// words: the attribute name's length constraint (1 to 255, the API
// reference), checked before the table is looked up; enabling or
// disabling another attribute than the enabled one ("TimeToLive is
// active on a different AttributeName", the error DynamoDB is reported
// to give); enabling twice and disabling a disabled TTL.
func TestTimeToLiveMessages(t *testing.T) {
	ts := newTestServer(t, Config{})
	createTable(t, ts.client(testCredentials), "Ttl", "", "")
	spec := func(table, attr string, enabled bool) string {
		return `{"TableName":"` + table + `","TimeToLiveSpecification":{"AttributeName":"` + attr + `","Enabled":` + strconv.FormatBool(enabled) + `}}`
	}
	long := strings.Repeat("t", 256)
	steps := []struct {
		name, body string
		errName    string // "" for success
		msg        string
	}{
		{"name too long, before the lookup", spec("Nope", long, true), "ValidationException",
			"1 validation error detected: Value '" + long + "' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"empty name", spec("Ttl", "", true), "ValidationException",
			"1 validation error detected: Value '' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"disable while disabled", spec("Ttl", "exp", false), "ValidationException", "TimeToLive is already disabled"},
		{"enable", spec("Ttl", "exp", true), "", ""},
		{"enable again", spec("Ttl", "exp", true), "ValidationException", "TimeToLive is already enabled"},
		{"enable another attribute", spec("Ttl", "other", true), "ValidationException", "TimeToLive is active on a different AttributeName"},
		{"disable another attribute", spec("Ttl", "other", false), "ValidationException", "TimeToLive is active on a different AttributeName"},
		{"disable", spec("Ttl", "exp", false), "", ""},
	}
	for _, tc := range steps {
		status, name, msg := ts.post(t, targetPrefix+"UpdateTimeToLive", contentType, strings.NewReader(tc.body))
		switch {
		case tc.errName == "" && status != 200:
			t.Errorf("%s: got %d %s %q, want success", tc.name, status, name, msg)
		case tc.errName != "" && (status != 400 || name != tc.errName || msg != tc.msg):
			t.Errorf("%s: got %d %s %q\nwant 400 %s %q", tc.name, status, name, msg, tc.errName, tc.msg)
		}
	}
}
