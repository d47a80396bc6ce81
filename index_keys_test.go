package fdyno

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Multi-attribute GSI keys: the key schema rules (index_keys.go, rule 1).
// Expected texts are DynamoDB's as observed from the service; the shapes
// follow the developer guide's "Multi-attribute key schema".

// multiKeySchema is a table keyed by pk with GSI gsi of key schema ks,
// every attribute of ks defined as S unless types says otherwise.
func multiKeySchema(ks []KeySchemaElement, types map[string]ScalarAttributeType) TableSchema {
	s := TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}},
		AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}}}
	seen := map[string]bool{"pk": true}
	for _, k := range ks {
		if seen[k.AttributeName] {
			continue
		}
		seen[k.AttributeName] = true
		t := types[k.AttributeName]
		if t == "" {
			t = ScalarAttributeTypeS
		}
		s.AttributeDefinitions = append(s.AttributeDefinitions, AttributeDefinition{k.AttributeName, t})
	}
	s.GlobalSecondaryIndexes = []GlobalSecondaryIndex{{IndexName: "gsi", KeySchema: ks, Projection: Projection{ProjectionType: ProjectionTypeAll}}}
	return s
}

func hashes(names ...string) []KeySchemaElement {
	var ks []KeySchemaElement
	for _, n := range names {
		ks = append(ks, KeySchemaElement{n, KeyTypeHash})
	}
	return ks
}

func ranges(names ...string) []KeySchemaElement {
	var ks []KeySchemaElement
	for _, n := range names {
		ks = append(ks, KeySchemaElement{n, KeyTypeRange})
	}
	return ks
}

func cat(kss ...[]KeySchemaElement) []KeySchemaElement {
	var out []KeySchemaElement
	for _, ks := range kss {
		out = append(out, ks...)
	}
	return out
}

// TestMultiKeySchema creates tables (CreateTable) and adds GSIs
// (UpdateTable's Create) with multi-attribute keys: the shapes the guide
// allows are accepted and described as given, the others refused with
// DynamoDB's ValidationException text, and nothing is written.
func TestMultiKeySchema(t *testing.T) {
	const (
		tooManyHash = "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of HASH key attributes"
		tooManyRng  = "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of RANGE key attributes"
		rangeFirst  = "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
		interleaved = "One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes in the KeySchema"
		repeated    = "The KeySchema contains multiple key attributes with the same name"
		oneOrTwo    = "One or more parameter values were invalid: LocalSecondaryIndex lsi: KeySchema must be one HASH key optionally followed by one RANGE key"
	)
	tests := []struct {
		name string
		ks   []KeySchemaElement
		want string // "" if accepted
	}{
		{"2 HASH", hashes("a", "b"), ""},
		{"1 HASH 2 RANGE", cat(hashes("a"), ranges("b", "c")), ""},
		{"2 HASH 3 RANGE", cat(hashes("tournamentId", "region"), ranges("round", "bracket", "matchId")), ""},
		{"4 HASH 4 RANGE", cat(hashes("a", "b", "c", "d"), ranges("e", "f", "g", "h")), ""},
		{"table key in the index key", cat(hashes("a", "pk"), ranges("b")), ""},
		{"5 HASH", hashes("a", "b", "c", "d", "e"), tooManyHash},
		{"1 HASH 5 RANGE", cat(hashes("a"), ranges("b", "c", "d", "e", "f")), tooManyRng},
		{"5 HASH 5 RANGE", cat(hashes("a", "b", "c", "d", "e"), ranges("f", "g", "h", "i", "j")), tooManyHash},
		{"RANGE first", cat(ranges("a"), hashes("b")), rangeFirst},
		{"only RANGE", ranges("a", "b"), rangeFirst},
		{"HASH RANGE HASH", cat(hashes("a"), ranges("b"), hashes("c")), interleaved},
		{"order before count", cat(hashes("a", "b", "c", "d", "e"), ranges("f"), hashes("g")), interleaved},
		{"HASH twice", hashes("a", "a"), repeated},
		{"HASH and RANGE, 3 elements", cat(hashes("a", "b"), ranges("a")), repeated},
		{"RANGE twice", cat(hashes("a"), ranges("b", "b")), repeated},
		{"HASH and RANGE, 2 elements", cat(hashes("a"), ranges("a")), "Both the Hash Key and the Range Key element in the KeySchema have the same name"},
		{"bad KeyType", []KeySchemaElement{{"a", KeyTypeHash}, {"b", "SORT"}},
			"1 validation error detected: Value 'SORT' at 'keySchema.2.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
	}
	db := fdblitetest.Open(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := multiKeySchema(tc.ks, nil)
			tbl, err := Open(db, "Multi", testRoot(t, db), WithSchema(s))
			checkRefusal(t, "CreateTable", err, tc.want)
			if err == nil {
				d, err := tbl.Describe(db)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.ks, d.GlobalSecondaryIndexes[0].KeySchema); diff != "" {
					t.Errorf("described KeySchema (-want +got):\n%s", diff)
				}
			}
			// The same index added by UpdateTable.
			base := TableSchema{KeySchema: s.KeySchema, AttributeDefinitions: s.AttributeDefinitions[:1]}
			tbl = newTestTable(t, db, base)
			// The request defines every key attribute of the new index.
			var defs []AttributeDefinition
			for _, d := range s.AttributeDefinitions {
				if slices.ContainsFunc(tc.ks, func(k KeySchemaElement) bool { return k.AttributeName == d.AttributeName }) {
					defs = append(defs, d)
				}
			}
			_, err = tbl.UpdateTable(db, UpdateTableInput{AttributeDefinitions: defs,
				GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Create: &CreateGlobalSecondaryIndexAction{
					IndexName: "gsi", KeySchema: tc.ks, Projection: Projection{ProjectionType: ProjectionTypeAll}}}}})
			checkRefusal(t, "UpdateTable", err, tc.want)
			d, derr := tbl.Describe(db)
			if derr != nil {
				t.Fatal(derr)
			}
			if got := len(d.GlobalSecondaryIndexes); (err == nil) != (got == 1) {
				t.Errorf("UpdateTable error %v, and the table has %d GSIs", err, got)
			}
		})
	}
	t.Run("undefined attribute", func(t *testing.T) {
		s := multiKeySchema(hashes("a", "b"), nil)
		s.AttributeDefinitions = s.AttributeDefinitions[:2]
		_, err := Open(db, "Multi", testRoot(t, db), WithSchema(s))
		checkRefusal(t, "CreateTable", err, "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a, b], AttributeDefinitions: [pk, a]")
	})
	t.Run("LSI keeps one RANGE", func(t *testing.T) {
		s := TableSchema{KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
			AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeS}, {"l", ScalarAttributeTypeS}},
			LocalSecondaryIndexes: []LocalSecondaryIndex{{IndexName: "lsi", KeySchema: cat(hashes("pk"), ranges("sk", "l")),
				Projection: Projection{ProjectionType: ProjectionTypeAll}}}}
		_, err := Open(db, "Multi", testRoot(t, db), WithSchema(s))
		checkRefusal(t, "CreateTable", err, oneOrTwo)
	})
	t.Run("table key keeps one HASH", func(t *testing.T) {
		s := TableSchema{KeySchema: hashes("pk", "pk2"),
			AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"pk2", ScalarAttributeTypeS}}}
		_, err := Open(db, "Multi", testRoot(t, db), WithSchema(s))
		checkRefusal(t, "CreateTable", err, "One or more parameter values were invalid: KeySchema: KeySchema must be one HASH key optionally followed by one RANGE key")
	})
}

// checkRefusal checks that err is nil when want is "", and otherwise a
// *ValidationError whose reason is want.
func checkRefusal(t *testing.T, op string, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%s: %v, want success", op, err)
		}
		return
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("%s error = %v, want ValidationException %q", op, err, want)
		return
	}
	if ve.Reason != want {
		t.Errorf("%s error reason\n got %q\nwant %q", op, ve.Reason, want)
	}
}

// FuzzGSIKeySchema: CreateTable's validation of a GSI key schema (bytes
// decoded as up to 10 elements over 6 attribute names and 3 key types)
// never panics, and accepts exactly the schemas of rule 1, checked by a
// plain restatement of it.
func FuzzGSIKeySchema(f *testing.F) {
	for _, seed := range [][]byte{{0x00}, {0x00, 0x01, 0x12, 0x13}, {0x10, 0x01}, {0x00, 0x11, 0x02}, {0x00, 0x00},
		{0x00, 0x01, 0x02, 0x03, 0x04}, {0x00, 0x11, 0x12, 0x13, 0x14, 0x15}, {0x20}, {}} {
		f.Add(seed)
	}
	names := []string{"a", "b", "c", "d", "e", "pk"}
	types := []KeyType{KeyTypeHash, KeyTypeRange, "NONE"}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 10 {
			b = b[:10]
		}
		var ks []KeySchemaElement
		for _, x := range b {
			ks = append(ks, KeySchemaElement{names[int(x&0x0f)%len(names)], types[int(x>>4)%len(types)]})
		}
		s := multiKeySchema(ks, nil)
		err := s.validate()
		// The restatement: 1-4 HASH, then 0-4 RANGE, no other type, no
		// name twice.
		h, r, ok := 0, 0, len(ks) > 0
		seen := map[string]bool{}
		for _, k := range ks {
			switch {
			case k.KeyType == KeyTypeHash && r == 0:
				h++
			case k.KeyType == KeyTypeRange && h > 0:
				r++
			default:
				ok = false
			}
			if seen[k.AttributeName] {
				ok = false
			}
			seen[k.AttributeName] = true
		}
		ok = ok && h <= 4 && r <= 4
		if ok != (err == nil) {
			t.Fatalf("validate(%v) = %v, want accepted %v", ks, err, ok)
		}
		var ve *ValidationError
		if err != nil && !errors.As(err, &ve) {
			t.Fatalf("validate(%v) error %T, want *ValidationError", ks, err)
		}
	})
}
