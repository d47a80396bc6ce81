package fdyno

import (
	"errors"
	"strings"
	"testing"
)

// The expected results in these tables come from the DynamoDB developer
// guide ("Condition and filter expressions, operators, and functions",
// "Comparison operator and function reference"), never from fdyno's
// output.

// exprTestItem is the item the condition tables evaluate against.
func exprTestItem() Item {
	return Item{
		"n":        N("5"),
		"s":        S("hello"),
		"es":       S(""),
		"b":        B([]byte{1, 2, 3}),
		"ss":       SS("apple", "banana"),
		"ns":       NS("1", "2.5"),
		"bs":       BS([]byte{1}, []byte{2}),
		"l":        L(S("x"), N("1"), M(Item{"k": S("v")})),
		"m":        M(Item{"k": S("v"), "nested": M(Item{"deep": N("10")}), "lst": L(N("0"), N("1"))}),
		"t":        Bool(true),
		"z":        Null(),
		"Name":     S("x"),
		"dot.name": S("dotted"),
		"u":        S("é𝄞"),
		"e":        S("é"),
	}
}

var exprTestNames = map[string]string{"#N": "Name", "#d": "dot.name", "#m": "m", "#k": "k", "#undefinedNot": "x"}

var exprTestValues = map[string]Value{
	":n0": N("0"), ":n1": N("1"), ":n2": N("2"), ":n3": N("3"), ":n4": N("4"), ":n5": N("5"),
	":n5e0": N("5.0"), ":n6": N("6"), ":n10": N("10"),
	":s_hello": S("hello"), ":s_he": S("he"), ":s_ell": S("ell"), ":s_x": S("x"), ":s_v": S("v"),
	":s_apple": S("apple"), ":s_dotted": S("dotted"), ":s_empty": S(""),
	":b1": B([]byte{1}), ":b12": B([]byte{1, 2}), ":b23": B([]byte{2, 3}),
	":tS": S("S"), ":tN": S("N"), ":tB": S("B"), ":tSS": S("SS"), ":tNS": S("NS"), ":tBS": S("BS"),
	":tM": S("M"), ":tL": S("L"), ":tBOOL": S("BOOL"), ":tNULL": S("NULL"),
	":true": Bool(true), ":null": Null(),
	":ssab": SS("apple", "banana"), ":ssba": SS("banana", "apple"),
	":l": L(S("x"), N("1"), M(Item{"k": S("v")})), ":m_k": M(Item{"k": S("v")}),
}

func newTestExprContext(t testing.TB) *exprContext {
	t.Helper()
	c, err := newExprContext(exprTestNames, exprTestValues)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConditionEval(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want bool
	}{
		// Comparators: numbers by value, strings and binaries bytewise.
		{"eq number", "n = :n5", true},
		{"eq number by value", "n = :n5e0", true},
		{"ne number", "n <> :n5", false},
		{"lt", "n < :n6", true},
		{"le equal", "n <= :n5", true},
		{"gt", "n > :n4", true},
		{"ge false", "n >= :n6", false},
		{"string eq", "s = :s_hello", true},
		{"string gt prefix", "s > :s_he", true},
		{"string lt", "s < :s_x", true},
		{"binary gt prefix", "b > :b12", true},
		{"binary lt", "b < :b23", true},
		{"value on the left", ":n4 < n", true},
		// Different types never compare: = is false, <> is true, orderings false.
		{"eq across types", "n = :s_hello", false},
		{"ne across types", "n <> :s_hello", true},
		{"lt across types", "n < :s_hello", false},
		{"gt across types", "s > :n4", false},
		{"absent eq", "absent = :n5", false},
		{"absent ne", "absent <> :n5", true},
		{"absent lt", "absent < :n5", false},
		// Sets, lists and maps: = and <> only; sets ignore order.
		{"set eq", "ss = :ssab", true},
		{"set eq other order", "ss = :ssba", true},
		{"set lt a path", "ss < s", false},
		{"list eq", "l = :l", true},
		{"bool eq", "t = :true", true},
		{"null eq", "z = :null", true},
		// Document paths.
		{"map key", "m.k = :s_v", true},
		{"map key placeholders", "#m.#k = :s_v", true},
		{"nested map", "m.nested.deep = :n10", true},
		{"list in map", "m.lst[1] = :n1", true},
		{"map in list", "l[2].k = :s_v", true},
		{"index past end", "l[5] = :n1", false},
		{"index into map", "m[0] = :n1", false},
		{"key into list", "l.k = :s_v", false},
		{"placeholder for a reserved word", "#N = :s_x", true},
		{"placeholder with a dot is one name", "#d = :s_dotted", true},
		// BETWEEN and IN.
		{"between", "n BETWEEN :n4 AND :n6", true},
		{"between inclusive", "n BETWEEN :n5 AND :n5", true},
		{"between outside", "n BETWEEN :n6 AND :n10", false},
		{"between other type", "s BETWEEN :n4 AND :n6", false},
		{"in", "n IN (:n4, :n5)", true},
		{"in none", "n IN (:n4, :n6)", false},
		{"in mixed types", "n IN (:s_hello, :n5e0)", true},
		{"in absent", "absent IN (:n5)", false},
		{"in one", "s IN (:s_hello)", true},
		// Functions.
		{"attribute_exists", "attribute_exists(n)", true},
		{"attribute_exists absent", "attribute_exists(absent)", false},
		{"attribute_exists null", "attribute_exists(z)", true},
		{"attribute_exists nested", "attribute_exists(m.nested.deep)", true},
		{"attribute_exists nested absent", "attribute_exists(m.nope)", false},
		{"attribute_not_exists", "attribute_not_exists(absent)", true},
		{"attribute_not_exists present", "attribute_not_exists(n)", false},
		{"attribute_type S", "attribute_type(s, :tS)", true},
		{"attribute_type N", "attribute_type(n, :tN)", true},
		{"attribute_type B", "attribute_type(b, :tB)", true},
		{"attribute_type SS", "attribute_type(ss, :tSS)", true},
		{"attribute_type NS", "attribute_type(ns, :tNS)", true},
		{"attribute_type BS", "attribute_type(bs, :tBS)", true},
		{"attribute_type M", "attribute_type(m, :tM)", true},
		{"attribute_type L", "attribute_type(l, :tL)", true},
		{"attribute_type BOOL", "attribute_type(t, :tBOOL)", true},
		{"attribute_type NULL", "attribute_type(z, :tNULL)", true},
		{"attribute_type wrong", "attribute_type(n, :tS)", false},
		{"attribute_type absent", "attribute_type(absent, :tS)", false},
		{"begins_with", "begins_with(s, :s_he)", true},
		{"begins_with not prefix", "begins_with(s, :s_ell)", false},
		{"begins_with binary", "begins_with(b, :b12)", true},
		{"begins_with number", "begins_with(n, :s_he)", false},
		{"begins_with type mismatch", "begins_with(s, :b12)", false},
		{"begins_with absent", "begins_with(absent, :s_he)", false},
		{"contains substring", "contains(s, :s_ell)", true},
		{"contains no substring", "contains(s, :s_x)", false},
		{"contains string set", "contains(ss, :s_apple)", true},
		{"contains string set no", "contains(ss, :s_x)", false},
		{"contains number set", "contains(ns, :n1)", true},
		{"contains number set no", "contains(ns, :n5)", false},
		{"contains number set type", "contains(ss, :n1)", false},
		{"contains binary set", "contains(bs, :b1)", true},
		{"contains list element", "contains(l, :s_x)", true},
		{"contains list map element", "contains(l, :m_k)", true},
		{"contains list no", "contains(l, :n5)", false},
		{"contains number", "contains(n, :n5)", false},
		{"size string", "size(s) = :n5", true},
		{"size empty string", "size(es) = :n0", true},
		{"size binary", "size(b) = :n3", true},
		{"size set", "size(ss) = :n2", true},
		{"size list", "size(l) = :n3", true},
		{"size map", "size(m) = :n3", true},
		{"size number", "size(n) = :n1", false},
		{"size bool", "size(t) > :n0", false},
		{"size absent", "size(absent) = :n0", false},
		{"size both sides", "size(s) > size(ss)", true},
		// size() of an S counts UTF-16 code units: "é" is one, "𝄞"
		// (U+1D11E) two.
		{"size utf-16", "size(u) = :n3", true},
		{"size utf-16 not bytes", "size(u) = :n6", false},
		{"size utf-16 bmp", "size(e) = :n1", true},
		{"size of a constant", "size(:s_hello) = :n5", true},
		{"size of a constant list", "size(:l) = :n3", true},
		// One pair of parentheses around an operand.
		{"parenthesized size", "(size(b)) = :n3", true},
		{"parenthesized path", "(n) = :n5", true},
		{"parenthesized value", "n = (:n5)", true},
		{"parenthesized between", "(n) BETWEEN :n4 AND :n6", true},
		{"parenthesized in", "(s) IN (:s_x, (:s_hello))", true},
		{"parenthesized operand in a parenthesized condition", "((n) = :n5)", true},
		{"parenthesized operand and condition", "((n) = :n5 AND (s) = :s_hello) OR n = :n0", true},
		{"parenthesized condition pairs", "((n <> :n4) AND n <> :n4)", true},
		// Functions with a constant first operand.
		{"attribute_type of a constant", "attribute_type(:n5, :tN)", true},
		{"attribute_type of a constant wrong", "attribute_type(:n5, :tS)", false},
		{"begins_with a constant", "begins_with(:s_hello, :s_he)", true},
		{"begins_with a constant no", "begins_with(:s_he, :s_hello)", false},
		{"begins_with of a path prefix", "begins_with(:s_hello, s)", true},
		{"size between", "size(s) BETWEEN :n4 AND :n6", true},
		// Logic and precedence: NOT, then AND, then OR.
		{"and", "n = :n5 AND s = :s_hello", true},
		{"or", "n = :n4 OR s = :s_hello", true},
		{"not", "NOT n = :n4", true},
		{"not true", "NOT n = :n5", false},
		{"and binds tighter than or", "n = :n5 OR n = :n4 AND s = :s_x", true},
		{"not binds tighter than and", "NOT n = :n4 AND n = :n4", false},
		{"parentheses", "(n = :n5 OR n = :n4) AND s = :s_x", false},
		{"parentheses whole", "(n = :n5)", true},
		{"not parentheses", "NOT (n = :n5 AND s = :s_x)", true},
		{"not not", "NOT NOT n = :n5", true},
		{"between binds before and", "n BETWEEN :n4 AND :n6 AND s = :s_hello", true},
		{"keywords any case", "n between :n4 and :n6 aNd NoT s in (:s_x) or n = :n0", true},
		{"whitespace", "\tn\n=\r:n5 ", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cd, err := parseCondition(newTestExprContext(t), tc.expr)
			if err != nil {
				t.Fatalf("parseCondition(%q): %v", tc.expr, err)
			}
			got, err := evalCondition(cd, exprTestItem())
			if err != nil {
				t.Fatalf("eval(%q): %v", tc.expr, err)
			}
			if got != tc.want {
				t.Errorf("eval(%q) = %v, want %v", tc.expr, got, tc.want)
			}
		})
	}
}

func TestConditionEvalMissingItem(t *testing.T) {
	tests := []struct {
		expr string
		want bool
	}{
		{"attribute_not_exists(n)", true},
		{"attribute_exists(n)", false},
		{"NOT attribute_exists(n)", true},
		{"n = :n5", false},
		{"n <> :n5", true},
		{"size(s) > :n0", false},
		{"contains(s, :s_x)", false},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			cd, err := parseCondition(newTestExprContext(t), tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := evalCondition(cd, nil); got != tc.want {
				t.Errorf("eval(nil) of %q = %v, want %v", tc.expr, got, tc.want)
			}
		})
	}
}

// exprErrorTest is a case whose parse fails with the given reason, which is
// the whole DynamoDB message after "Invalid <kind>: ".
type exprErrorTest struct {
	name   string
	expr   string
	reason string
}

func checkExprError(t *testing.T, kind string, tc exprErrorTest, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("parse(%q) succeeded, want %q", tc.expr, tc.reason)
	}
	if !errors.Is(err, ErrValidation) {
		t.Errorf("parse(%q) = %v, not an ErrValidation", tc.expr, err)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("parse(%q) = %T, want *ValidationError", tc.expr, err)
	}
	if want := "Invalid " + kind + ": " + tc.reason; ve.Reason != want {
		t.Errorf("parse(%q) reason\n got: %s\nwant: %s", tc.expr, ve.Reason, want)
	}
}

func TestConditionErrors(t *testing.T) {
	manyOrs := func(n int) string { return strings.Repeat("n = :n5 OR ", n-1) + "n = :n5" }
	inList := func(n int) string { return "n IN (" + strings.Repeat(":n1, ", n-1) + ":n1)" }
	deepPath := func(n int) string { return strings.Repeat("a.", n-1) + "a = :n1" }
	tests := []exprErrorTest{
		{"empty", "", "The expression can not be empty;"},
		{"blank", "  ", "The expression can not be empty;"},
		{"too long", "n = :n5" + strings.Repeat(" ", 4090), "Expression size has exceeded the maximum allowed size; expression size: 4097"},
		{"double comparator", "n < < :n5", `Syntax error; token: "<", near: "< < :n5"`},
		{"absent operand", "n = ", `Syntax error; token: "<EOF>", near: "="`},
		{"dangling and", "n = :n5 AND", `Syntax error; token: "<EOF>", near: "AND"`},
		{"unbalanced close", "n = :n5)", `Syntax error; token: ")", near: ":n5)"`},
		{"unbalanced open", "(n = :n5", `Syntax error; token: "<EOF>", near: ":n5"`},
		{"bare colon", "n = :", `Syntax error; token: ":", near: "= :"`},
		{"bare hash", "# = :n5", `Syntax error; token: "#", near: "# ="`},
		{"negative index", "l[-1] = :n5", `Syntax error; token: "-", near: "[-1"`},
		{"literal", "n = 5", `Syntax error; token: "5", near: "= 5"`},
		{"name starts with digit", "1n = :n5", `Syntax error; token: "1", near: "1n"`},
		{"empty in list", "n IN ()", `Syntax error; token: ")", near: "()"`},
		{"operand alone", "n", `Syntax error; token: "<EOF>", near: "n"`},
		{"keyword as name", "n = AND", `Syntax error; token: "AND", near: "= AND"`},
		{"lexical", "n = @", `Lexical error at line 1, column 5.  Encountered: "@" (64), after : ""`},
		{"lexical second line", "n = :n5 AND\n s @ :s_x", `Lexical error at line 2, column 4.  Encountered: "@" (64), after : ""`},
		// '!' is a token of DynamoDB's grammar that no rule accepts: a
		// syntax error, not a lexical one.
		{"bang", "n ! :n5", `Syntax error; token: "!", near: "n ! :n5"`},
		{"undefined value", "n = :nope", "An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"undefined name", "#nope = :n5", "An expression attribute name used in the document path is not defined; attribute name: #nope"},
		{"reserved word", "name = :n5", "Attribute name is a reserved keyword; reserved keyword: name"},
		{"reserved word any case", "Status = :n5", "Attribute name is a reserved keyword; reserved keyword: Status"},
		{"reserved word nested", "m.count = :n5", "Attribute name is a reserved keyword; reserved keyword: count"},
		{"size as a name", "size = :n5", "Attribute name is a reserved keyword; reserved keyword: size"},
		{"syntax before semantics", "name = :n5 AND", `Syntax error; token: "<EOF>", near: "AND"`},
		{"redundant parentheses", "((n = :n5))", "The expression has redundant parentheses;"},
		{"redundant parentheses inside", "s = :s_x AND ((n = :n5))", "The expression has redundant parentheses;"},
		{"between order", "n BETWEEN :n6 AND :n4", "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:6}, upper bound operand: AttributeValue: {N:4}"},
		{"between types", "n BETWEEN :n4 AND :s_x", "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:4}, upper bound operand: AttributeValue: {S:x}"},
		{"in too many", inList(101), "The IN operator is provided with too many operands; number of operands: 101"},
		{"too many operators", manyOrs(151), "The expression contains too many operators; operator count: 301"},
		{"path too deep", deepPath(33), "The document path has too many nesting levels; nesting levels: 33"},
		{"function name case", "SIZE(s) = :n5", "Invalid function name; function: SIZE"},
		{"unknown function", "foo(n)", "Invalid function name; function: foo"},
		{"function name case 2", "Begins_with(s, :s_he)", "Invalid function name; function: Begins_with"},
		{"size as condition", "size(s)", "The function is not allowed to be used this way in an expression; function: size"},
		{"function as operand", "attribute_exists(n) = :n5", "The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"update function", "if_not_exists(n, :n5) = :n5", "The function is not allowed in a condition expression; function: if_not_exists"},
		{"update function as condition", "list_append(l, :l)", "The function is not allowed in a condition expression; function: list_append"},
		{"contains same operands", "contains(s, s)", "The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [s]"},
		{"compare same operands", "m.k = m.k", "The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [m, k]"},
		{"attribute_type not a string", "attribute_type(n, :n5)", "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"attribute_type bad name", "attribute_type(n, :s_x)", "Invalid attribute type name found; type: x, valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }"},
		// A value where a path is needed (dynalite's tests, written
		// against DynamoDB, pin these words).
		{"attribute_exists of a value", "attribute_exists(:n5) AND n = n", "Operator or function requires a document path; operator or function: attribute_exists"},
		{"attribute_not_exists of a value", "attribute_not_exists(:s_x)", "Operator or function requires a document path; operator or function: attribute_not_exists"},
		{"attribute_not_exists of a size", "attribute_not_exists(size(:s_x))", "Operator or function requires a document path; operator or function: attribute_not_exists"},
		{"operand count", "attribute_exists(n, s)", "Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"},
		{"begins_with number", "begins_with(s, :n5)", "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		// Two pairs of parentheses around one operand are redundant.
		{"redundant operand parentheses", "((n)) = :n5", "The expression has redundant parentheses;"},
		{"redundant condition parentheses", "((n <> :n5))", "The expression has redundant parentheses;"},
		// Constants that cannot be ordered are refused at parse time.
		{"lt a set", "ss < :ssab", "Incorrect operand type for operator or function; operator or function: <, operand type: SS"},
		{"ge a list", "l >= :l", "Incorrect operand type for operator or function; operator or function: >=, operand type: L"},
		{"gt a map", ":m_k > n", "Incorrect operand type for operator or function; operator or function: >, operand type: M"},
		{"le a bool", "t <= :true", "Incorrect operand type for operator or function; operator or function: <=, operand type: BOOL"},
		{"lt null", "z < :null", "Incorrect operand type for operator or function; operator or function: <, operand type: NULL"},
		{"between bools", "t BETWEEN :true AND :true", "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL"},
		{"size of a number constant", "size(:n5) = :n1", "Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"size of a bool constant", "size(:true) > :n0", "Incorrect operand type for operator or function; operator or function: size, operand type: BOOL"},
		{"begins_with a number constant", "begins_with(:n5, :s_he)", "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"contains of a constant", "contains(:s_hello, :s_he)", "Incorrect operand type for operator or function; operator or function: contains, operand type: S"},
		// The grammar: a bare name starts with a letter.
		{"leading underscore", "_n = :n5", `Syntax error; token: "_", near: "_n"`},
		{"leading underscore after a token", "n = :n5 AND _v = :n1", `Syntax error; token: "_", near: "AND _v"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseCondition(newTestExprContext(t), tc.expr)
			checkExprError(t, kindCondition, tc, err)
		})
	}
}

func TestConditionLimitsAccepted(t *testing.T) {
	for _, expr := range []string{
		"n = :n5" + strings.Repeat(" ", 4089),                          // 4096 bytes
		strings.Repeat("n = :n5 OR ", 148) + "n = :n5 AND NOT n = :n4", // 300 operators
		"n IN (" + strings.Repeat(":n1, ", 99) + ":n1)",
		strings.Repeat("a.", 31) + "a = :n1", // 32 levels
		"((n = :n5) AND s = :s_x)",
		"(n = :n5) AND (s = :s_x)",
	} {
		if _, err := parseCondition(newTestExprContext(t), expr); err != nil {
			t.Errorf("parseCondition(%.40q...): %v", expr, err)
		}
	}
}

func TestConditionFilterKind(t *testing.T) {
	_, err := parseConditionKind(newTestExprContext(t), kindFilter, "n <")
	checkExprError(t, kindFilter, exprErrorTest{expr: "n <", reason: `Syntax error; token: "<EOF>", near: "<"`}, err)
}

func BenchmarkConditionExpression(b *testing.B) {
	c := newTestExprContext(b)
	it := exprTestItem()
	const expr = "attribute_exists(n) AND n BETWEEN :n4 AND :n6 AND begins_with(s, :s_he) AND size(l) < :n10"
	b.Run("parse+eval", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cd, err := parseCondition(c, expr)
			if err != nil {
				b.Fatal(err)
			}
			if ok, _ := evalCondition(cd, it); !ok {
				b.Fatal("false")
			}
		}
	})
	b.Run("eval", func(b *testing.B) {
		cd, err := parseCondition(c, expr)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if ok, _ := evalCondition(cd, it); !ok {
				b.Fatal("false")
			}
		}
	})
}
