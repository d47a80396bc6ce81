package fdyno

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

func scalarType(t ScalarAttributeType) Type {
	switch t {
	case ScalarAttributeTypeS:
		return TypeS
	case ScalarAttributeTypeN:
		return TypeN
	case ScalarAttributeTypeB:
		return TypeB
	}
	return 0
}

// checkTableName applies DynamoDB's rules for table and index names.
func checkTableName(field, name string) error {
	if len(name) < MinTableNameLength || len(name) > MaxTableNameLength {
		return &ValidationError{Path: field, Reason: field + " must be at least 3 characters long and at most 255 characters long"}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return &ValidationError{Path: field, Reason: "Value '" + name + "' at '" + field + "' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"}
		}
	}
	return nil
}

func checkKeyAttrName(field, name string) error {
	if name == "" || len(name) > MaxKeyAttributeNameLength || !utf8.ValidString(name) {
		return &ValidationError{Path: field, Reason: "key attribute names must be 1 to 255 bytes of UTF-8: " + strconv.Quote(name)}
	}
	return nil
}

// MaxStreamShards is the most stream shards a table may have
// (TableSchema.StreamShards; stream.go).
const MaxStreamShards = 256

// validate applies CreateTable's rules to s.
func (s *TableSchema) validate() error {
	fail := func(reason string) error {
		return &ValidationError{Op: "CreateTable", Reason: "One or more parameter values were invalid: " + reason}
	}
	defined := map[string]ScalarAttributeType{}
	for _, d := range s.AttributeDefinitions {
		if err := checkKeyAttrName("AttributeDefinitions", d.AttributeName); err != nil {
			return err
		}
		if scalarType(d.AttributeType) == 0 {
			return fail("Invalid AttributeType " + strconv.Quote(string(d.AttributeType)) + " for " + d.AttributeName + "; must be S, N or B")
		}
		if _, dup := defined[d.AttributeName]; dup {
			// DynamoDB's words, without the usual prefix.
			return &ValidationError{Op: "CreateTable", Reason: "Attribute Name is duplicated: " + d.AttributeName}
		}
		defined[d.AttributeName] = d.AttributeType
	}
	used := map[string]bool{}
	var usedOrder []string // the key attributes in order of first use
	// checkKeys checks a key schema: a GSI's may have multi-attribute
	// keys (index_keys.go), the table's and an LSI's may not.
	checkKeys := func(where string, ks []KeySchemaElement, gsi bool) error {
		if gsi {
			if err := checkGSIKeyShape(ks); err != nil {
				return err
			}
		} else if len(ks) < 1 || len(ks) > 2 || ks[0].KeyType != KeyTypeHash || len(ks) == 2 && ks[1].KeyType != KeyTypeRange {
			return fail(where + ": KeySchema must be one HASH key optionally followed by one RANGE key")
		}
		for _, k := range ks {
			if err := checkKeyAttrName(where, k.AttributeName); err != nil {
				return err
			}
			if _, ok := defined[k.AttributeName]; !ok {
				return undefinedKeys(ks, s.AttributeDefinitions)
			}
			if !used[k.AttributeName] {
				used[k.AttributeName] = true
				usedOrder = append(usedOrder, k.AttributeName)
			}
		}
		return repeatedKeyName(ks)
	}
	if err := checkKeys("KeySchema", s.KeySchema, false); err != nil {
		return err
	}
	names := map[string]bool{}
	total := 0
	checkIndex := func(kind, name string, ks []KeySchemaElement, p Projection) error {
		if err := checkTableName("IndexName", name); err != nil {
			return err
		}
		if names[name] {
			return fail("Duplicate index name: " + name)
		}
		names[name] = true
		if err := checkKeys(kind+" "+name, ks, kind == "GlobalSecondaryIndex"); err != nil {
			return err
		}
		switch p.ProjectionType {
		case ProjectionTypeAll, ProjectionTypeKeysOnly:
			if len(p.NonKeyAttributes) > 0 {
				return fail("ProjectionType is " + string(p.ProjectionType) + ", but NonKeyAttributes is specified")
			}
		case ProjectionTypeInclude:
			if len(p.NonKeyAttributes) == 0 || len(p.NonKeyAttributes) > MaxIndexNonKeyAttributes {
				return fail("INCLUDE projection of " + name + " needs 1 to 20 NonKeyAttributes")
			}
			for i, a := range p.NonKeyAttributes {
				if err := checkKeyAttrName("NonKeyAttributes", a); err != nil {
					return err
				}
				if slices.Contains(p.NonKeyAttributes[:i], a) {
					// DynamoDB's words for an attribute projected twice.
					return &ValidationError{Op: "CreateTable", Reason: "Cannot have two attributes with the same name"}
				}
			}
			total += len(p.NonKeyAttributes)
		default:
			return fail("Unknown ProjectionType " + strconv.Quote(string(p.ProjectionType)) + " for index " + name)
		}
		return nil
	}
	if len(s.LocalSecondaryIndexes) > MaxLocalSecondaryIndexes {
		return fail("a table may have at most 5 local secondary indexes")
	}
	for _, ix := range s.LocalSecondaryIndexes {
		if err := checkIndex("LocalSecondaryIndex", ix.IndexName, ix.KeySchema, ix.Projection); err != nil {
			return err
		}
		if len(s.KeySchema) != 2 {
			return fail("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		if len(ix.KeySchema) != 2 || ix.KeySchema[0].AttributeName != s.KeySchema[0].AttributeName {
			return fail("Index KeySchema of " + ix.IndexName + " must have the table's hash key and a range key")
		}
	}
	if len(s.GlobalSecondaryIndexes) > MaxGlobalSecondaryIndexes {
		return fail("a table may have at most 20 global secondary indexes")
	}
	for _, ix := range s.GlobalSecondaryIndexes {
		if err := checkIndex("GlobalSecondaryIndex", ix.IndexName, ix.KeySchema, ix.Projection); err != nil {
			return err
		}
	}
	if total > MaxTotalNonKeyAttributes {
		return fail("the indexes project more than 100 NonKeyAttributes in total")
	}
	if len(used) != len(defined) {
		// DynamoDB's two texts for a definition no key uses: without
		// indexes, and with them (where it lists both sets; the
		// definitions here in request order, the keys in order of first
		// use, table key first).
		if len(s.LocalSecondaryIndexes)+len(s.GlobalSecondaryIndexes) == 0 {
			return fail("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
		defs := make([]string, len(s.AttributeDefinitions))
		for i, d := range s.AttributeDefinitions {
			defs[i] = d.AttributeName
		}
		return fail("Some AttributeDefinitions are not used. AttributeDefinitions: [" + strings.Join(defs, ", ") +
			"], keys used: [" + strings.Join(usedOrder, ", ") + "]")
	}
	switch s.StreamViewType {
	case "", StreamViewTypeKeysOnly, StreamViewTypeNewImage, StreamViewTypeOldImage, StreamViewTypeNewAndOldImages:
	default:
		return fail("Unknown StreamViewType " + strconv.Quote(string(s.StreamViewType)))
	}
	if s.StreamShards < 0 || s.StreamShards > MaxStreamShards || s.StreamShards > 0 && s.StreamViewType == "" {
		return fail("StreamShards must be 0 to " + strconv.Itoa(MaxStreamShards) + ", and needs a StreamViewType")
	}
	if s.TimeToLiveAttribute != "" {
		if err := checkKeyAttrName("TimeToLiveAttribute", s.TimeToLiveAttribute); err != nil {
			return err
		}
	}
	return nil
}

// undefinedKeys is DynamoDB's error for a key schema ks naming an
// attribute that defs does not define: the key schema's and the
// definitions' attribute names, in request order.
func undefinedKeys(ks []KeySchemaElement, defs []AttributeDefinition) error {
	keys := make([]string, len(ks))
	for i, k := range ks {
		keys[i] = k.AttributeName
	}
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.AttributeName
	}
	return &ValidationError{Op: "CreateTable", Reason: "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [" +
		strings.Join(keys, ", ") + "], AttributeDefinitions: [" + strings.Join(names, ", ") + "]"}
}
