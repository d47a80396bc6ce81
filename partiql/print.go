package partiql

import (
	"strings"

	"github.com/fdyno/fdyno"
)

// print.go prints a parsed statement back as PartiQL (parse.go): the
// canonical form the fuzz target parses again to the same tree.

// String returns the statement in canonical form: keywords in upper
// case, every name quoted, every operation parenthesized. It parses back
// to the same tree.
func (s *pqStmt) String() string {
	var b strings.Builder
	switch s.kind {
	case pqSelect:
		b.WriteString("SELECT ")
		if s.proj == nil {
			b.WriteString("*")
		}
		for i, p := range s.proj {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pqPathString(p))
		}
		b.WriteString(" FROM " + pqQuote(s.table, '"'))
		if s.index != "" {
			b.WriteString("." + pqQuote(s.index, '"'))
		}
		if s.where != nil {
			b.WriteString(" WHERE " + s.where.String())
		}
		for i, o := range s.order {
			if i == 0 {
				b.WriteString(" ORDER BY ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(pqPathString(o.path))
			if o.desc {
				b.WriteString(" DESC")
			}
		}
	case pqInsert:
		b.WriteString("INSERT INTO " + pqQuote(s.table, '"') + " VALUE " + s.value.String())
	case pqUpdate:
		b.WriteString("UPDATE " + pqQuote(s.table, '"'))
		for _, st := range s.sets {
			b.WriteString(" SET " + pqPathString(st.path) + " = " + st.val.String())
		}
		for _, r := range s.removes {
			b.WriteString(" REMOVE " + pqPathString(r))
		}
		b.WriteString(" WHERE " + s.where.String())
	case pqDelete:
		b.WriteString("DELETE FROM " + pqQuote(s.table, '"') + " WHERE " + s.where.String())
	case pqExists:
		b.WriteString("EXISTS(" + s.sub.String() + ")")
	}
	if s.returning != "" {
		b.WriteString(" RETURNING " + s.returning + " *")
	}
	return b.String()
}

// pqQuote quotes s with q, doubling q inside.
func pqQuote(s string, q byte) string {
	qs := string(q)
	return qs + strings.ReplaceAll(s, qs, qs+qs) + qs
}

// pqPathString writes a path with every name quoted.
func pqPathString(p docPath) string {
	return p.format(func(name string) string { return pqQuote(name, '"') })
}

// String returns e in canonical form (see pqStmt.String).
func (e *pqExpr) String() string {
	join := func(args []*pqExpr) string {
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = a.String()
		}
		return strings.Join(s, ", ")
	}
	switch e.kind {
	case pqePath:
		return pqPathString(e.path)
	case pqeLit:
		return pqLiteral(e.val)
	case pqeParam:
		return "?"
	case pqeTuple:
		s := make([]string, len(e.args))
		for i, a := range e.args {
			s[i] = pqQuote(e.keys[i], '\'') + ": " + a.String()
		}
		return "{" + strings.Join(s, ", ") + "}"
	case pqeList:
		return "[" + join(e.args) + "]"
	case pqeBag:
		return "<<" + join(e.args) + ">>"
	case pqeCmp:
		return "(" + e.args[0].String() + " " + e.op + " " + e.args[1].String() + ")"
	case pqeAnd:
		return "(" + e.args[0].String() + " AND " + e.args[1].String() + ")"
	case pqeOr:
		return "(" + e.args[0].String() + " OR " + e.args[1].String() + ")"
	case pqeNot:
		return "(NOT " + e.args[0].String() + ")"
	case pqeBetween:
		return "(" + e.args[0].String() + " BETWEEN " + e.args[1].String() + " AND " + e.args[2].String() + ")"
	case pqeIn:
		return "(" + e.args[0].String() + " IN [" + join(e.args[1:]) + "])"
	case pqeMissing:
		return "(" + e.args[0].String() + " IS MISSING)"
	case pqeNull:
		return "(" + e.args[0].String() + " IS NULL)"
	case pqeCall:
		return e.op + "(" + join(e.args) + ")"
	case pqeAdd:
		return "(" + e.args[0].String() + " + " + e.args[1].String() + ")"
	case pqeSub:
		return "(" + e.args[0].String() + " - " + e.args[1].String() + ")"
	}
	return "?"
}

// pqLiteral writes a literal value: strings quoted, numbers as their
// canonical text, TRUE, FALSE and NULL.
func pqLiteral(v fdyno.Value) string {
	switch v.Type() {
	case fdyno.TypeS:
		return pqQuote(v.S(), '\'')
	case fdyno.TypeN:
		return v.N()
	case fdyno.TypeBOOL:
		if v.Bool() {
			return "TRUE"
		}
		return "FALSE"
	case fdyno.TypeNULL:
		return "NULL"
	}
	return "?"
}
