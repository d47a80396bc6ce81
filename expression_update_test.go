package fdyno

import (
	"errors"
	"github.com/fdyno/fdyno/internal/expr"
	"github.com/fdyno/fdyno/internal/number"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected items come from the DynamoDB developer guide's "Update
// expressions" page (SET, REMOVE, ADD, DELETE, arithmetic, list_append,
// if_not_exists, list indexes past the end) and dynamodb-facts.md.

func updateTestItem() Item {
	return Item{
		"pk": S("k"),
		"n":  N("5"),
		"s":  S("x"),
		"l":  L(N("1"), N("2"), N("3")),
		"m":  M(Item{"a": N("1"), "b": M(Item{"c": S("d")})}),
		"ss": SS("a", "b"),
		"ns": NS("1", "2"),
		"bs": BS([]byte{1}, []byte{2}),
	}
}

var updateTestValues = map[string]Value{
	":n0": N("0"), ":n1": N("1"), ":n5": N("5"), ":n10": N("10"), ":s_v": S("v"), ":s_x": S("x"),
	":l45": L(N("4"), N("5")), ":lempty": L(),
	":ss_a": SS("a"), ":ss_ab": SS("a", "b"), ":ss_bc": SS("b", "c"), ":ss_cd": SS("c", "d"),
	":ns_1": NS("1"), ":ns_23": NS("2", "3.0"), ":bs_1": BS([]byte{1}), ":bs_3": BS([]byte{3}),
	":big": N("9.9999999999999999999999999999999999999E+125"), ":e50": N("1e50"),
}

func newUpdateContext(t testing.TB) *exprContext {
	t.Helper()
	c, err := newExprContext(map[string]string{"#m": "m", "#a": "a", "#dot": "x.y"}, updateTestValues)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// exprWith returns a copy of it with the given attributes set, or removed
// where the value is the zero Value.
func exprWith(it Item, kv ...any) Item {
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		k, v := kv[i].(string), kv[i+1].(Value)
		if v.IsZero() {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

func TestUpdateApply(t *testing.T) {
	old := updateTestItem()
	none := Value{}
	tests := []struct {
		name string
		expr string
		old  Item
		want Item
	}{
		{"set value", "SET n = :n1", old, exprWith(old, "n", N("1"))},
		{"set new attribute", "SET x = :s_v", old, exprWith(old, "x", S("v"))},
		{"set from path", "SET x = s", old, exprWith(old, "x", S("x"))},
		{"set placeholder with dot", "SET #dot = :n1", old, exprWith(old, "x.y", N("1"))},
		{"increment", "SET n = n + :n1", old, exprWith(old, "n", N("6"))},
		{"decrement", "SET n = n - :n10", old, exprWith(old, "n", N("-5"))},
		{"value minus path", "SET n = :n10 - n", old, exprWith(old, "n", N("5"))},
		{"parenthesized arithmetic", "SET n = (n + :n1)", old, exprWith(old, "n", N("6"))},
		{"if_not_exists absent", "SET x = if_not_exists(x, :n0)", old, exprWith(old, "x", N("0"))},
		{"if_not_exists present", "SET n = if_not_exists(n, :n0)", old, old},
		{"if_not_exists plus", "SET x = if_not_exists(x, :n0) + :n1", old, exprWith(old, "x", N("1"))},
		{"list_append end", "SET l = list_append(l, :l45)", old, exprWith(old, "l", L(N("1"), N("2"), N("3"), N("4"), N("5")))},
		{"list_append start", "SET l = list_append(:l45, l)", old, exprWith(old, "l", L(N("4"), N("5"), N("1"), N("2"), N("3")))},
		{"list_append if_not_exists", "SET x = list_append(if_not_exists(x, :lempty), :l45)", old, exprWith(old, "x", L(N("4"), N("5")))},
		{"nested map key", "SET m.a = :n10", old, exprWith(old, "m", M(Item{"a": N("10"), "b": M(Item{"c": S("d")})}))},
		{"nested placeholders", "SET #m.#a = :n10", old, exprWith(old, "m", M(Item{"a": N("10"), "b": M(Item{"c": S("d")})}))},
		{"deep map key", "SET m.b.c = :s_v", old, exprWith(old, "m", M(Item{"a": N("1"), "b": M(Item{"c": S("v")})}))},
		{"new map key", "SET m.z = :n1", old, exprWith(old, "m", M(Item{"a": N("1"), "z": N("1"), "b": M(Item{"c": S("d")})}))},
		{"list element", "SET l[1] = :n10", old, exprWith(old, "l", L(N("1"), N("10"), N("3")))},
		{"list index past end appends", "SET l[10] = :n10", old, exprWith(old, "l", L(N("1"), N("2"), N("3"), N("10")))},
		{"two appends", "SET l[10] = :n10, l[11] = :n5", old, exprWith(old, "l", L(N("1"), N("2"), N("3"), N("10"), N("5")))},
		{"values from the old item", "SET n = s, s = n", old, exprWith(old, "n", S("x"), "s", N("5"))},
		{"remove", "REMOVE s", old, exprWith(old, "s", none)},
		{"remove absent", "REMOVE x", old, old},
		{"remove several", "REMOVE s, n", old, exprWith(old, "s", none, "n", none)},
		{"remove list element shifts", "REMOVE l[0]", old, exprWith(old, "l", L(N("2"), N("3")))},
		{"remove list elements by old index", "REMOVE l[0], l[2]", old, exprWith(old, "l", L(N("2")))},
		{"remove list elements any order", "REMOVE l[2], l[0], l[1]", old, exprWith(old, "l", L())},
		{"remove past end", "REMOVE l[5]", old, old},
		{"remove absent key of a map", "REMOVE m.absent", old, old},
		{"remove nested", "REMOVE m.b.c", old, exprWith(old, "m", M(Item{"a": N("1"), "b": M(Item{})}))},
		{"add number", "ADD n :n1", old, exprWith(old, "n", N("6"))},
		{"add to absent number", "ADD x :n5", old, exprWith(old, "x", N("5"))},
		{"add nested number", "ADD m.a :n1", old, exprWith(old, "m", M(Item{"a": N("2"), "b": M(Item{"c": S("d")})}))},
		{"add set disjoint", "ADD ss :ss_cd", old, exprWith(old, "ss", SS("a", "b", "c", "d"))},
		{"add set overlapping", "ADD ss :ss_bc", old, exprWith(old, "ss", SS("a", "b", "c"))},
		{"add set to absent", "ADD x :ss_cd", old, exprWith(old, "x", SS("c", "d"))},
		{"add number set by value", "ADD ns :ns_23", old, exprWith(old, "ns", NS("1", "2", "3"))},
		{"add binary set", "ADD bs :bs_3", old, exprWith(old, "bs", BS([]byte{1}, []byte{2}, []byte{3}))},
		{"delete from set", "DELETE ss :ss_a", old, exprWith(old, "ss", SS("b"))},
		{"delete not a member", "DELETE ss :ss_cd", old, old},
		{"delete last members removes", "DELETE ss :ss_ab", old, exprWith(old, "ss", none)},
		{"delete from absent", "DELETE x :ss_a", old, old},
		{"delete number set", "DELETE ns :ns_1", old, exprWith(old, "ns", NS("2"))},
		{"delete binary set", "DELETE bs :bs_1", old, exprWith(old, "bs", BS([]byte{2}))},
		{"all clauses", "SET n = n + :n1 REMOVE s ADD x :n1 DELETE ss :ss_a", old,
			exprWith(old, "n", N("6"), "s", none, "x", N("1"), "ss", SS("b"))},
		{"clauses any order and case", "delete ss :ss_a add x :n1 remove s set n = :n0", old,
			exprWith(old, "n", N("0"), "s", none, "x", N("1"), "ss", SS("b"))},
		{"new item set", "SET a = :n1", nil, Item{"a": N("1")}},
		{"new item add", "ADD c :n1", nil, Item{"c": N("1")}},
		{"new item remove", "REMOVE a", nil, Item{}},
		{"new item if_not_exists", "SET c = if_not_exists(c, :n0) + :n1", nil, Item{"c": N("1")}},

		// Every path refers to the item before the update (the developer
		// guide's "Adding elements to a list": an index past the end
		// appends; REMOVE of several elements names the original ones).
		{"two appends written high first", "SET l[4] = :n10, l[3] = :n5", old, exprWith(old, "l", L(N("1"), N("2"), N("3"), N("5"), N("10")))},
		{"three appends written high first", "SET l[84] = :n1, l[37] = :n5, l[17] = :n10", old,
			exprWith(old, "l", L(N("1"), N("2"), N("3"), N("10"), N("5"), N("1")))},
		{"in range and past end mixed", "SET l[9] = :n10, l[0] = :n0, l[5] = :n5", old,
			exprWith(old, "l", L(N("0"), N("2"), N("3"), N("5"), N("10")))},
		{"set and remove in one list", "SET l[2] = :n10 REMOVE l[0]", old, exprWith(old, "l", L(N("2"), N("10")))},
		{"remove before a set element", "REMOVE l[1] SET l[2] = :n10, l[7] = :n5", old, exprWith(old, "l", L(N("1"), N("10"), N("5")))},
		{"remove every element and append", "REMOVE l[0], l[1], l[2] SET l[3] = :n5", old, exprWith(old, "l", L(N("5")))},
		{"nested element of a removed neighbour", "REMOVE m.b SET m.a = :n5", old, exprWith(old, "m", M(Item{"a": N("5")}))},
		{"add to element", "ADD l[1] :n10 REMOVE l[0]", old, exprWith(old, "l", L(N("12"), N("3")))},
		{"add past end appends", "ADD l[7] :n10", old, exprWith(old, "l", L(N("1"), N("2"), N("3"), N("10")))},
		{"delete past end does nothing", "DELETE l[7] :ss_a", old, old},

		// REMOVE of a missing element of an existing map or list removes
		// nothing; on an item that does not exist, REMOVE of any path is
		// ignored (a missing parent is an error only on an existing item,
		// TestUpdateApplyErrors).
		{"remove absent nested key", "REMOVE m.b.z", old, old},
		{"new item remove nested", "REMOVE a.b, c[0]", nil, Item{}},
		{"new item set and remove nested", "SET a = :n1 REMOVE x.y, l[2].z", nil, Item{"a": N("1")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := parseUpdate(newUpdateContext(t), tc.expr)
			if err != nil {
				t.Fatalf("parseUpdate(%q): %v", tc.expr, err)
			}
			got, err := applyUpdate(u, tc.old, tc.old != nil)
			if err != nil {
				t.Fatalf("apply(%q): %v", tc.expr, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("apply(%q) mismatch (-want +got):\n%s", tc.expr, diff)
			}
			if tc.old != nil {
				if diff := cmp.Diff(updateTestItem(), tc.old); diff != "" {
					t.Errorf("apply(%q) modified its input (-want +got):\n%s", tc.expr, diff)
				}
			}
		})
	}
}

func TestUpdateApplyErrors(t *testing.T) {
	tests := []struct {
		name   string
		expr   string
		reason string
	}{
		{"set under absent", "SET x.a = :n1", expr.ReasonUpdatePathInvalid},
		{"set under scalar", "SET s.a = :n1", expr.ReasonUpdatePathInvalid},
		{"index into string", "SET s[0] = :n1", expr.ReasonUpdatePathInvalid},
		{"index into map", "SET m[0] = :n1", expr.ReasonUpdatePathInvalid},
		{"key into list", "SET l.a = :n1", expr.ReasonUpdatePathInvalid},
		{"under index past end", "SET l[5].a = :n1", expr.ReasonUpdatePathInvalid},
		{"deep under absent", "SET m.b.e.f = :n1", expr.ReasonUpdatePathInvalid},
		{"add under absent", "ADD x.a :n1", expr.ReasonUpdatePathInvalid},
		// A REMOVE under a missing or non-document parent of an existing
		// item is invalid, as a SET of the path is (DynamoDB's "The
		// document path provided in the update expression is invalid for
		// update").
		{"remove under scalar", "REMOVE s.a", expr.ReasonUpdatePathInvalid},
		{"remove under absent", "REMOVE x.a", expr.ReasonUpdatePathInvalid},
		{"remove index under absent", "REMOVE x[0]", expr.ReasonUpdatePathInvalid},
		{"remove index under string", "REMOVE s[0]", expr.ReasonUpdatePathInvalid},
		{"remove index under map", "REMOVE m[0]", expr.ReasonUpdatePathInvalid},
		{"remove key under list", "REMOVE l.a", expr.ReasonUpdatePathInvalid},
		{"remove deep under absent", "REMOVE m.z.y", expr.ReasonUpdatePathInvalid},
		{"remove under index past end", "REMOVE l[7].a", expr.ReasonUpdatePathInvalid},
		{"remove under absent beside a valid remove", "REMOVE s, x[1].a", expr.ReasonUpdatePathInvalid},
		{"delete under absent", "DELETE x.a :ss_a", expr.ReasonUpdatePathInvalid},
		{"absent operand", "SET n = x", expr.ReasonUpdateMissingAttr},
		{"absent arithmetic operand", "SET n = x + :n1", expr.ReasonUpdateMissingAttr},
		{"arithmetic on string", "SET n = s + :n1", expr.ReasonUpdateOperandType},
		{"list_append of number", "SET l = list_append(n, :l45)", expr.ReasonUpdateOperandType},
		{"add number to string", "ADD s :n1", expr.ReasonUpdateOperandType},
		{"add number to list", "ADD l :n1", expr.ReasonUpdateOperandType},
		{"add set of other type", "ADD ss :ns_1", expr.ReasonUpdateOperandType},
		{"add set to number", "ADD n :ss_a", expr.ReasonUpdateOperandType},
		{"delete from string", "DELETE s :ss_a", expr.ReasonUpdateOperandType},
		{"delete other set type", "DELETE ss :ns_1", expr.ReasonUpdateOperandType},
		{"overflow", "SET n = :big + :big", number.ReasonOverflow},
		{"precision", "SET n = :e50 + :n1", number.ReasonDigits},
		{"add precision", "ADD n :e50", number.ReasonDigits},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := parseUpdate(newUpdateContext(t), tc.expr)
			if err != nil {
				t.Fatalf("parseUpdate(%q): %v", tc.expr, err)
			}
			old := updateTestItem()
			_, err = applyUpdate(u, old, true)
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrValidation) {
				t.Fatalf("apply(%q) = %v, want a *ValidationError", tc.expr, err)
			}
			if ve.Reason != tc.reason {
				t.Errorf("apply(%q) reason\n got: %s\nwant: %s", tc.expr, ve.Reason, tc.reason)
			}
			if diff := cmp.Diff(updateTestItem(), old); diff != "" {
				t.Errorf("failed apply(%q) modified its input (-want +got):\n%s", tc.expr, diff)
			}
		})
	}
}

func TestUpdateErrors(t *testing.T) {
	tests := []exprErrorTest{
		{"empty", "", "The expression can not be empty;"},
		{"clause twice", "SET n = :n1 SET s = :s_x", `The "SET" section can only be used once in an update expression;`},
		{"clause twice any case", "REMOVE n remove s", `The "REMOVE" section can only be used once in an update expression;`},
		{"same path twice", "SET n = :n1, n = :n5", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [n], path two: [n]"},
		{"ancestor", "SET m = :n1 REMOVE m.a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, a]"},
		{"descendant", "ADD m.b.c :n1 DELETE m :ss_a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m, b, c], path two: [m]"},
		{"conflict", "SET m.a = :n1 REMOVE m[0]", "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [m, a], path two: [m, [0]]"},
		{"add string", "ADD s :s_x", "Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"add list", "ADD l :l45", "Incorrect operand type for operator or function; operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"delete number", "DELETE ss :n1", "Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"plus string", "SET n = :s_x + :n1", "Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"minus list", "SET n = n - :l45", "Incorrect operand type for operator or function; operator or function: -, operand type: L"},
		{"list_append number", "SET l = list_append(:n1, l)", "Incorrect operand type for operator or function; operator or function: list_append, operand type: N"},
		{"list_append nested", "SET l = list_append(list_append(l, :l45), :l45)", "The function is not allowed to be used this way in an expression; function: list_append"},
		{"if_not_exists of value", "SET n = if_not_exists(:n1, :n1)", "Incorrect operand type for operator or function; operator or function: if_not_exists, operand type: N"},
		{"if_not_exists one operand", "SET n = if_not_exists(n)", "Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{"size in update", "SET n = size(s)", "The function is not allowed in a update expression; function: size"},
		{"condition function in update", "SET n = attribute_exists(s)", "The function is not allowed in a update expression; function: attribute_exists"},
		{"unknown function", "SET n = foo(s)", "Invalid function name; function: foo"},
		// + and - only at the top of a SET value; a bare name starts with
		// a letter.
		{"sum in if_not_exists", "SET n = if_not_exists(n, :n1 + :n5)", `Syntax error; token: "+", near: ":n1 + :n5"`},
		{"sum in list_append", "SET l = list_append(l, :l45 - :l45)", `Syntax error; token: "-", near: ":l45 - :l45"`},
		{"three terms", "SET n = n + :n1 + :n5", `Syntax error; token: "+", near: ":n1 + :n5"`},
		{"leading underscore", "SET _123 = :n1", `Syntax error; token: "_", near: "SET _123"`},
		{"leading underscore in a value", "SET n = _a", `Syntax error; token: "_", near: "= _a"`},
		{"function name case", "SET n = IF_NOT_EXISTS(n, :n1)", "Invalid function name; function: IF_NOT_EXISTS"},
		{"reserved word", "SET name = :n1", "Attribute name is a reserved keyword; reserved keyword: name"},
		{"undefined name", "SET #nope = :n1", "An expression attribute name used in the document path is not defined; attribute name: #nope"},
		{"undefined value", "SET n = :nope", "An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"set without value", "SET n", `Syntax error; token: "<EOF>", near: "n"`},
		{"trailing comma", "SET n = :n1,", `Syntax error; token: "<EOF>", near: ","`},
		{"unknown clause", "UPDATE n = :n1", `Syntax error; token: "UPDATE", near: "UPDATE n"`},
		{"bare colon", "ADD n : n1", `Syntax error; token: ":", near: "n : n1"`},
		{"two additions", "SET n = :n1 + :n1 + :n1", `Syntax error; token: "+", near: ":n1 + :n1"`},
		{"remove with value", "REMOVE n :n1", `Syntax error; token: ":n1", near: "n :n1"`},
		{"add path value", "ADD n s", `Syntax error; token: "s", near: "n s"`},
		{"empty clause", "SET  REMOVE n", `Syntax error; token: "REMOVE", near: "SET  REMOVE n"`},
		{"comma between clauses", "SET n = :n1, REMOVE s", `Syntax error; token: "REMOVE", near: ", REMOVE s"`},
		{"equals in remove", "REMOVE n = :n1", `Syntax error; token: "=", near: "n = :n1"`},
		{"too long", "REMOVE n" + strings.Repeat(" ", 4089), "Expression size has exceeded the maximum allowed size; expression size: 4097"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseUpdate(newUpdateContext(t), tc.expr)
			checkExprError(t, kindUpdate, tc, err)
		})
	}
}

func TestUpdatePaths(t *testing.T) {
	u, err := parseUpdate(newUpdateContext(t), "REMOVE s SET m.b.c = :n1, l[2] = :n1 ADD x :n1 DELETE ss :ss_a")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range u.Paths() {
		got = append(got, p.String())
	}
	want := []string{"s", "m.b.c", "l[2]", "x", "ss"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths() mismatch (-want +got):\n%s", diff)
	}
}

func BenchmarkUpdateExpression(b *testing.B) {
	c := newUpdateContext(b)
	old := updateTestItem()
	const expr = "SET n = n + :n1, m.a = :n10, l = list_append(l, :l45) REMOVE s ADD ss :ss_cd"
	b.Run("parse+apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			u, err := parseUpdate(c, expr)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := applyUpdate(u, old, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apply", func(b *testing.B) {
		u, err := parseUpdate(c, expr)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := applyUpdate(u, old, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
