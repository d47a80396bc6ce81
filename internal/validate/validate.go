// Package validate holds DynamoDB's rules for the contents of an item:
// attribute names (map keys included) of 1 to 65535 bytes of valid UTF-8,
// S values and SS members of valid UTF-8, legal numbers, non-empty sets
// without duplicates, and nesting at most 32 levels deep. It is generic
// over the value type V, like package internal/expr; errors are [*Error],
// the path of the offending value and DynamoDB's reason, which the root
// package turns into its *ValidationError.
package validate

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fdyno/fdyno/internal/expr"
	"github.com/fdyno/fdyno/internal/number"
)

// DynamoDB's item limits (the service quotas page).
const (
	// MaxNameLength is the longest attribute name, in UTF-8 bytes; 64 KB
	// itself is rejected.
	MaxNameLength = 65535
	// MaxNestingDepth is the deepest level a value may sit at: a
	// top-level attribute's value is at level 1 and each enclosing M or L
	// adds a level.
	MaxNestingDepth = 32
)

// Reasons for rejecting a value, in DynamoDB's words where it has them.
const (
	ReasonEmptyValue     = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	ReasonDuplicates     = "One or more parameter values were invalid: Input collection contains duplicates"
	ReasonNesting        = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	ReasonEmptyName      = "Empty attribute name"
	ReasonNameTooLong    = "Attribute name is too large, must be less than 65536 bytes"
	ReasonEmptySetFormat = "One or more parameter values were invalid: An %s set  may not be empty"
	ReasonEmptyBS        = "One or more parameter values were invalid: Binary sets should not be empty"
	// DynamoDB's strings are UTF-8: its wire refuses other bytes with a
	// SerializationException, so fdyno refuses them too rather than
	// store what the wire could not return unchanged.
	ReasonInvalidUTF8     = "One or more parameter values were invalid: String value is not valid UTF-8"
	ReasonInvalidUTF8Name = "Attribute name is not valid UTF-8"
)

// Error is a value that breaks a rule.
type Error struct {
	// Path is the document path of the value, "" for a top-level value
	// checked on its own or a name that is empty.
	Path string
	// Reason is DynamoDB's wording of the rule.
	Reason string
}

func (e *Error) Error() string { return e.Reason }

// Item checks every attribute of it, in name order.
func Item[V any](ops expr.Ops[V], it map[string]V) error {
	for _, name := range sortedKeys(it) {
		if name == "" {
			return &Error{Reason: ReasonEmptyName}
		}
		p := expr.PathNode{PathElem: expr.PathElem{Name: name}}
		if err := value(ops, it[name], &p, 1); err != nil {
			return err
		}
	}
	return nil
}

// Value checks v on its own, as a top-level attribute value.
func Value[V any](ops expr.Ops[V], v V) error {
	return value(ops, v, nil, 1)
}

// Name returns DynamoDB's reason the non-empty attribute name n is
// illegal (too long, or not UTF-8), or "".
func Name(n string) string {
	switch {
	case len(n) > MaxNameLength:
		return ReasonNameTooLong
	case !utf8.ValidString(n):
		return ReasonInvalidUTF8Name
	}
	return ""
}

func value[V any](ops expr.Ops[V], v V, p *expr.PathNode, depth int) error {
	sc := ops.Scalar(v)
	fail := func(reason string) error {
		return &Error{Path: p.String(), Reason: reason}
	}
	if depth > MaxNestingDepth {
		return fail(ReasonNesting)
	}
	if p != nil && !p.IsIndex {
		if reason := Name(p.Name); reason != "" {
			return fail(reason)
		}
	}
	switch sc.Type {
	case 0:
		return fail(ReasonEmptyValue)
	case expr.TypeS:
		if !utf8.ValidString(sc.Text) {
			return fail(ReasonInvalidUTF8)
		}
	case expr.TypeN:
		if sc.Malformed {
			_, err := number.Canonical(sc.Text)
			return fail(err.Error())
		}
	case expr.TypeSS, expr.TypeNS, expr.TypeBS:
		members := ops.Members(v)
		if len(members) == 0 {
			if sc.Type == expr.TypeBS {
				// DynamoDB words the empty binary set differently.
				return fail(ReasonEmptyBS)
			}
			kind := map[expr.Type]string{expr.TypeSS: "string", expr.TypeNS: "number"}[sc.Type]
			return fail(strings.Replace(ReasonEmptySetFormat, "%s", kind, 1))
		}
		if sc.Malformed {
			for _, m := range members {
				if _, err := number.Canonical(m); err != nil {
					return fail(err.Error())
				}
			}
		}
		for i := 1; i < len(members); i++ {
			if members[i] == members[i-1] {
				return fail(ReasonDuplicates)
			}
		}
		if sc.Type == expr.TypeSS {
			for _, m := range members {
				if !utf8.ValidString(m) {
					return fail(ReasonInvalidUTF8)
				}
			}
		}
	case expr.TypeM:
		m := ops.Map(v)
		for _, k := range sortedKeys(m) {
			c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Name: k}}
			if err := value(ops, m[k], &c, depth+1); err != nil {
				return err
			}
		}
	case expr.TypeL:
		for i, e := range ops.List(v) {
			c := expr.PathNode{Parent: p, PathElem: expr.PathElem{Index: i, IsIndex: true}}
			if err := value(ops, e, &c, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// sortedKeys returns the keys of m in byte order, in a slice of the
// right size.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
