package fdyno

import (
	"errors"
	"github.com/fdyno/fdyno/internal/expr"
	"github.com/fdyno/fdyno/internal/number"
	"github.com/fdyno/fdyno/internal/validate"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExprContextErrors(t *testing.T) {
	tests := []struct {
		name   string
		names  map[string]string
		values map[string]Value
		reason string
	}{
		{"empty names", map[string]string{}, nil, "ExpressionAttributeNames must not be empty"},
		{"empty values", nil, map[string]Value{}, "ExpressionAttributeValues must not be empty"},
		{"name key without sigil", map[string]string{"n": "x"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: "n"`},
		{"name key with dash", map[string]string{"#a-b": "x"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-b"`},
		{"name key sigil only", map[string]string{"#": "x"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: "#"`},
		{"name key too long", map[string]string{"#" + strings.Repeat("a", 255): "x"}, nil, `ExpressionAttributeNames contains invalid key: Syntax error; key: "#` + strings.Repeat("a", 255) + `"`},
		{"value key with name sigil", nil, map[string]Value{"#v": N("1")}, `ExpressionAttributeValues contains invalid key: Syntax error; key: "#v"`},
		{"empty name", map[string]string{"#a": ""}, nil, "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"},
		{"empty set value", nil, map[string]Value{":v": SS()}, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v"},
		{"zero value", nil, map[string]Value{":v": {}}, "ExpressionAttributeValues contains invalid value: " + validate.ReasonEmptyValue + " for key :v"},
		{"bad number", nil, map[string]Value{":v": N("NaN")}, "ExpressionAttributeValues contains invalid value: " + number.ReasonSyntax + ": NaN for key :v"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newExprContext(tc.names, tc.values)
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrValidation) {
				t.Fatalf("newExprContext() = %v, want a *ValidationError", err)
			}
			if ve.Reason != tc.reason {
				t.Errorf("reason\n got: %s\nwant: %s", ve.Reason, tc.reason)
			}
		})
	}
	// The longest allowed key is 255 bytes with the sigil.
	if _, err := newExprContext(map[string]string{"#" + strings.Repeat("a", 254): "x"}, nil); err != nil {
		t.Errorf("255-byte key: %v", err)
	}
	if _, err := newExprContext(nil, nil); err != nil {
		t.Errorf("no maps: %v", err)
	}
}

func TestExprContextCheckAllUsed(t *testing.T) {
	c, err := newExprContext(
		map[string]string{"#a": "a", "#y": "y", "#x": "x"},
		map[string]Value{":a": N("1"), ":b": N("2"), ":c": N("3")})
	if err != nil {
		t.Fatal(err)
	}
	check := func(want string) {
		t.Helper()
		err := checkAllUsed(c)
		switch {
		case want == "" && err != nil:
			t.Errorf("checkAllUsed() = %v, want nil", err)
		case want != "" && err == nil:
			t.Errorf("checkAllUsed() = nil, want %q", want)
		case want != "":
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Reason != want {
				t.Errorf("checkAllUsed() = %v, want %q", err, want)
			}
		}
	}
	if _, err := parseCondition(c, "#a = :a"); err != nil {
		t.Fatal(err)
	}
	check("Value provided in ExpressionAttributeNames unused in expressions: keys: {#x, #y}")
	// Placeholders used by any expression of the request count.
	if _, err := parseUpdate(c, "SET #x = :b, #y = :b"); err != nil {
		t.Fatal(err)
	}
	check("Value provided in ExpressionAttributeValues unused in expressions: keys: {:c}")
	if _, err := parseProjection(c, "#a, c"); err != nil {
		t.Fatal(err)
	}
	if _, err := parseCondition(c, "attribute_exists(b) OR b = :c"); err != nil {
		t.Fatal(err)
	}
	check("")
}

func TestProjection(t *testing.T) {
	it := Item{
		"s": S("x"),
		"n": N("1"),
		"l": L(N("1"), N("2"), N("3"), M(Item{"a": N("4"), "b": N("5")})),
		"m": M(Item{"a": N("1"), "b": M(Item{"c": S("d"), "e": S("f")})}),
	}
	tests := []struct {
		expr string
		want Item
	}{
		{"s", Item{"s": S("x")}},
		{"s, n", Item{"s": S("x"), "n": N("1")}},
		{"absent", Item{}},
		{"s, absent", Item{"s": S("x")}},
		{"m.a", Item{"m": M(Item{"a": N("1")})}},
		{"m.b.c, m.a", Item{"m": M(Item{"a": N("1"), "b": M(Item{"c": S("d")})})}},
		{"m.b", Item{"m": M(Item{"b": M(Item{"c": S("d"), "e": S("f")})})}},
		{"m.absent", Item{}},
		{"l[0]", Item{"l": L(N("1"))}},
		{"l[2], l[0]", Item{"l": L(N("1"), N("3"))}},
		{"l[3].b", Item{"l": L(M(Item{"b": N("5")}))}},
		{"l[3].b, l[1]", Item{"l": L(N("2"), M(Item{"b": N("5")}))}},
		{"l[9]", Item{}},
		{"s[0]", Item{}},
		{"#m.#b", Item{"m": M(Item{"b": M(Item{"c": S("d"), "e": S("f")})})}},
		{"#dot", Item{}},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			c, err := newExprContext(map[string]string{"#m": "m", "#b": "b", "#dot": "m.a"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := parseProjection(c, tc.expr)
			if err != nil {
				t.Fatalf("parseProjection(%q): %v", tc.expr, err)
			}
			if diff := cmp.Diff(tc.want, applyProjection(p, it)); diff != "" {
				t.Errorf("apply(%q) mismatch (-want +got):\n%s", tc.expr, diff)
			}
		})
	}
	p, err := parseProjection(nil, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got := applyProjection(p, nil); got != nil {
		t.Errorf("apply(nil) = %v, want nil", got)
	}
}

func TestProjectionErrors(t *testing.T) {
	tests := []exprErrorTest{
		{"empty", "", "The expression can not be empty;"},
		{"same path", "s, s", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [s], path two: [s]"},
		{"ancestor", "m, m.a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, a]"},
		{"same index", "l[1].a, l[1]", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [l, [1], a], path two: [l, [1]]"},
		{"conflict", "m.a, m[0]", "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [m, a], path two: [m, [0]]"},
		{"trailing comma", "s,", `Syntax error; token: "<EOF>", near: ","`},
		{"leading comma", ", s", `Syntax error; token: ",", near: ", s"`},
		{"value", ":v", `Syntax error; token: ":v", near: ":v"`},
		{"function", "size(s)", `Syntax error; token: "(", near: "size(s"`},
		{"reserved", "s, Comment", "Attribute name is a reserved keyword; reserved keyword: Comment"},
		{"undefined", "#x", "An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"unclosed index", "l[1", `Syntax error; token: "<EOF>", near: "1"`},
		{"name index", "l[a]", `Syntax error; token: "a", near: "[a]"`},
		// DynamoDB's grammar has a '!' token: '!!!' is a syntax error at
		// the first '!', near it and the next token.
		{"bang", "!!! INVALID !!!", `Syntax error; token: "!", near: "!!"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseProjection(nil, tc.expr)
			checkExprError(t, "ProjectionExpression", tc, err)
		})
	}
}

func TestProjectPaths(t *testing.T) {
	it := Item{"a": N("1"), "m": M(Item{"x": N("2"), "y": N("3")})}
	got := projectPaths(it, []docPath{{{Name: "m"}, {Name: "y"}}, {{Name: "zz"}}})
	want := Item{"m": M(Item{"y": N("3")})}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("projectPaths() mismatch (-want +got):\n%s", diff)
	}
}

// TestExprTypesPinned checks that package internal/expr numbers and names
// the attribute types as the root package does, and that its path depth
// limit is the item nesting limit: values cross between the two with a
// plain conversion.
func TestExprTypesPinned(t *testing.T) {
	for typ := TypeS; typ <= TypeBS; typ++ {
		if got := expr.Type(typ).String(); got != typ.String() {
			t.Errorf("expr.Type(%d).String() = %q, want %q", typ, got, typ.String())
		}
		if got := expr.TypeByName(typ.String()); got != expr.Type(typ) {
			t.Errorf("expr.TypeByName(%q) = %d, want %d", typ.String(), got, typ)
		}
	}
	if got := expr.Type(TypeBS + 1).String(); got != "" {
		t.Errorf("expr.Type past TypeBS named %q", got)
	}
	if expr.MaxPathDepth != MaxNestingDepth {
		t.Errorf("expr.MaxPathDepth = %d, want MaxNestingDepth %d", expr.MaxPathDepth, MaxNestingDepth)
	}
}
