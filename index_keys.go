package fdyno

import "strconv"

// index_keys.go: multi-attribute keys of global secondary indexes. A GSI's
// partition key may be made of up to four attributes and its sort key of
// up to four more; a table's own key and an LSI's keep one HASH attribute
// and at most one RANGE attribute (DynamoDB developer guide, "Using Global
// Secondary Indexes in DynamoDB" → "Multi-attribute key schema", and the
// "Multi-attribute keys pattern" page).
//
// The rules, and where each comes from:
//
//  1. KeySchema lists the HASH elements first, then the RANGE elements,
//     1–4 and 0–4 of them (the guide's "Multi-attribute key schema"); each
//     attribute once, each in AttributeDefinitions as S, N or B (the API
//     reference's KeySchemaElement and AttributeDefinition). The error
//     texts are DynamoDB's as observed from the service; the guide does
//     not give them. Their order is ours (the docs are silent): the first
//     element's type, HASH before RANGE, the counts, then per element its
//     name and definition, then repeated names.
//  2. An item is in the index exactly when it holds every key attribute
//     with its declared type (the guide: an item missing any of them is
//     not indexed, as a sparse index). A write giving one of them another
//     type, or an empty S or B, is refused with the same
//     ValidationException as for a one-attribute index key (item_ops.go:
//     checkIndexKeys); only items written before the index existed can
//     hold such values, and the backfill skips them.
//  3. The entry key is x/<index>/<partition values…>/<sort values…>/<base
//     key>, one tuple (keys.go), so the entries of one partition are
//     ordered by the sort attributes left to right, each by its type's
//     order, as the guide orders them.
//  4. Each key attribute's value obeys the limits of a key value of its
//     kind, 2048 bytes for a partition attribute and 1024 for a sort
//     attribute (the docs are silent on multi-attribute limits; fdyno
//     applies the one-attribute limits to each attribute).
//  5. A Query must give every partition attribute with =, and sort
//     attributes as a left-to-right prefix of equalities, with at most
//     one range condition (<, <=, >, >=, BETWEEN, begins_with) on the last
//     one given (the guide's "Querying multi-attribute keys"; the order
//     of the terms in the expression does not matter). The error texts
//     are DynamoDB's as observed from the service (internal/expr:
//     keycond.go).
//  6. LastEvaluatedKey holds every index key attribute and the table key
//     (the guide's pagination example), and so must ExclusiveStartKey.

// Limits of a GSI's multi-attribute key schema.
const (
	MaxIndexHashKeyAttributes  = 4
	MaxIndexRangeKeyAttributes = 4
)

// checkGSIKeyShape applies rule 1's shape checks (types, order, counts)
// to a GSI's key schema ks, before its names are checked.
func checkGSIKeyShape(ks []KeySchemaElement) error {
	fail := func(reason string) error {
		return &ValidationError{Op: "CreateTable", Reason: "One or more parameter values were invalid: " + reason}
	}
	if len(ks) == 0 {
		return fail("GlobalSecondaryIndex KeySchema must list 1 to 4 HASH keys followed by 0 to 4 RANGE keys")
	}
	for i, k := range ks {
		if k.KeyType != KeyTypeHash && k.KeyType != KeyTypeRange {
			return &ValidationError{Op: "CreateTable", Reason: "1 validation error detected: Value '" + string(k.KeyType) +
				"' at 'keySchema." + strconv.Itoa(i+1) + ".member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"}
		}
	}
	if ks[0].KeyType != KeyTypeHash {
		// DynamoDB's words, without the usual prefix.
		return &ValidationError{Op: "CreateTable", Reason: "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"}
	}
	hashes, ranges := 0, 0
	for _, k := range ks {
		if k.KeyType == KeyTypeHash {
			if ranges > 0 {
				return fail("All HASH key attributes must precede RANGE key attributes in the KeySchema")
			}
			hashes++
		} else {
			ranges++
		}
	}
	if hashes > MaxIndexHashKeyAttributes {
		return fail("The KeySchema exceeds the maximum allowed number of HASH key attributes")
	}
	if ranges > MaxIndexRangeKeyAttributes {
		return fail("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
	}
	return nil
}

// repeatedKeyName is DynamoDB's error for a key schema ks naming an
// attribute twice, or nil.
func repeatedKeyName(ks []KeySchemaElement) error {
	for i, k := range ks {
		for _, l := range ks[:i] {
			if l.AttributeName != k.AttributeName {
				continue
			}
			// DynamoDB's words, without the usual prefix.
			if len(ks) == 2 && ks[0].KeyType == KeyTypeHash && ks[1].KeyType == KeyTypeRange {
				return &ValidationError{Op: "CreateTable", Reason: "Both the Hash Key and the Range Key element in the KeySchema have the same name"}
			}
			return &ValidationError{Op: "CreateTable", Reason: "The KeySchema contains multiple key attributes with the same name"}
		}
	}
	return nil
}

// isMultiAttributeKey reports whether key schema ks has more than one
// HASH or more than one RANGE element.
func isMultiAttributeKey(ks []KeySchemaElement) bool {
	h, r := 0, 0
	for _, k := range ks {
		if k.KeyType == KeyTypeHash {
			h++
		} else {
			r++
		}
	}
	return h > 1 || r > 1
}

// hasMultiAttributeKeys reports whether a GSI of s has a multi-attribute
// key, which only versions that know rule 3 can read or write
// (table_meta.go).
func (s TableSchema) hasMultiAttributeKeys() bool {
	for _, ix := range s.GlobalSecondaryIndexes {
		if isMultiAttributeKey(ix.KeySchema) {
			return true
		}
	}
	return false
}

// splitKeySchema returns the attributes of key schema ks with their types
// from types, the HASH ones then the RANGE ones, each in key schema order,
// and how many are HASH.
func splitKeySchema(ks []KeySchemaElement, types map[string]Type) (attrs []keyAttr, nHash int) {
	attrs = make([]keyAttr, 0, len(ks))
	for _, t := range []KeyType{KeyTypeHash, KeyTypeRange} {
		for _, k := range ks {
			if k.KeyType == t {
				attrs = append(attrs, keyAttr{Name: k.AttributeName, Type: types[k.AttributeName]})
			}
		}
		if t == KeyTypeHash {
			nHash = len(attrs)
		}
	}
	return attrs, nHash
}
