package server

import (
	"slices"
	"strings"

	"github.com/fdyno/fdyno"
)

// authz.go decides who may do what, on the request that runs. A request
// is decoded once (decode, server.go) into its operation's input; the
// checks the policies evaluate are computed from that input (each input's
// authz method, policy_request.go), before it is validated, so that a
// refused caller learns nothing from validation, and never from another
// reading of the body. The decision is then enforced twice:
//
//  1. up front: every check must be allowed, or the request fails with
//     AccessDeniedException before anything is read or written;
//  2. at the point of access: every table handle the request gets is a
//     guarded handle (fdyno.Table.Guarded) whose guard knows what the
//     allowed checks granted, per table: the partitions it may read and
//     write (or any, when the policies allow the check whatever its
//     dynamodb:LeadingKeys), the indexes it may read, its stream. The
//     library asks the guard before it reads or writes each item, reads
//     a Query's partition, an index or a stream. Anything the checks did
//     not grant is refused: a request the up-front checks misread fails
//     closed instead of running.
//
// Without policies (Config.Policies nil) every authenticated request may
// do anything in its own namespace, and handles are not guarded; the
// namespace itself (namespace.go) is chosen by the verified identity.

// kinds of access a check grants on its table.
type accessKind uint8

const (
	readItems  accessKind = 1 << iota // items of the granted partitions
	writeItems                        // puts and deletes of them
	readIndex                         // an index's entries, any partition
	readStream                        // the table's change records
)

// accessCheck is one authzCheck with what it grants when allowed: kinds
// of access to table (an index's for readIndex), on the partitions parts
// (typed, as the operation reads them), or on every partition when parts
// is unknown.
type accessCheck struct {
	authzCheck
	table, index string
	kinds        accessKind
	parts        []fdyno.Value
	partsUnknown bool // no partition list: the check is about the whole table
}

// grant is what a request may touch of one table.
type grant struct {
	kinds       accessKind
	anyRead     bool     // items of every partition may be read
	anyWrite    bool     // and written
	read, write [][]byte // else these partitions, packed (fdyno.PackPartition)
	indexes     []string // readable indexes
}

// requestGuard is the fdyno.AccessGuard of one request: the grants of its
// allowed checks, by table name.
type requestGuard struct {
	who     principal
	action  string
	arn     func(table string) string
	grants  map[string]*grant
	observe func(a fdyno.Access, err error) // tests: every access asked about
}

// Allow implements fdyno.AccessGuard.
func (g *requestGuard) Allow(a fdyno.Access) error {
	err := g.allow(a)
	if g.observe != nil {
		g.observe(a, err)
	}
	return err
}

func (g *requestGuard) allow(a fdyno.Access) error {
	gr := g.grants[a.Table]
	ok := false
	switch {
	case gr == nil:
	case a.Stream:
		ok = gr.kinds&readStream != 0
	case a.Index != "":
		ok = gr.kinds&readIndex != 0 && slices.Contains(gr.indexes, a.Index)
	case a.Whole() && a.Write:
		// A restore's target: every item written.
		ok = gr.anyWrite
	case a.Whole():
		// A Scan of the table: every partition.
		ok = gr.anyRead
	case a.Write:
		ok = gr.anyWrite || inAny(a, gr.write)
	default:
		ok = gr.anyRead || inAny(a, gr.read) || inAny(a, gr.write)
	}
	if ok {
		return nil
	}
	res := g.arn(a.Table)
	if a.Index != "" {
		res += "/index/" + a.Index
	}
	return &apiError{typ: errAccessDenied, msg: "User: " + g.who.arn() + " is not authorized to perform: " + g.action +
		" on resource: " + res + " because no identity-based policy allows the " + g.action + " action", refusedAtAccess: true}
}

func inAny(a fdyno.Access, parts [][]byte) bool {
	for _, p := range parts {
		if a.InPartition(p) {
			return true
		}
	}
	return false
}

// authorize evaluates the policies for checks, the checks of the request
// in s's namespace, refusing it with AccessDeniedException, AWS's message
// naming who, the action and the resource, at the first check they do
// not allow. When they allow every check, c gets the guard of its
// handles.
func (s *Server) authorize(c *call, checks []accessCheck) error {
	if s.policies == nil {
		return nil
	}
	policies := slices.Concat(s.policies[c.who.keyID], s.policies[c.who.account])
	g := &requestGuard{who: c.who, action: "dynamodb:" + c.op, arn: s.tableARN, grants: map[string]*grant{}, observe: s.observeAccess}
	for _, check := range checks {
		d := evaluate(policies, c.who, check.authzCheck)
		s.audit(c, check.authzCheck, d)
		switch d {
		case allowed:
		case explicitDeny:
			return accessDenied(c.who, check.authzCheck, "with an explicit deny in an identity-based policy")
		default:
			return accessDenied(c.who, check.authzCheck, "because no identity-based policy allows the "+check.action+" action")
		}
		if check.table == "" || check.kinds == 0 {
			continue
		}
		gr := g.grants[check.table]
		if gr == nil {
			gr = &grant{}
			g.grants[check.table] = gr
		}
		gr.kinds |= check.kinds
		if check.index != "" {
			gr.indexes = append(gr.indexes, check.index)
		}
		// Every partition, when the policies allow the check whatever its
		// partitions: evaluated again with dynamodb:LeadingKeys unknown,
		// which fails every condition on it closed.
		anyPart := check.partsUnknown
		if !anyPart {
			unknown := check.authzCheck
			unknown.ctx = map[string]ctxValue{}
			for k, v := range check.ctx {
				unknown.ctx[k] = v
			}
			unknown.ctx["dynamodb:leadingkeys"] = ctxValue{unknown: true}
			anyPart = evaluate(policies, c.who, unknown) == allowed
		}
		if anyPart {
			gr.anyRead = gr.anyRead || check.kinds&readItems != 0
			gr.anyWrite = gr.anyWrite || check.kinds&writeItems != 0
			continue
		}
		for _, v := range check.parts {
			p, err := fdyno.PackPartition(v)
			if err != nil {
				continue // no item has it: granting nothing fails closed
			}
			if check.kinds&readItems != 0 {
				gr.read = append(gr.read, p)
			}
			if check.kinds&writeItems != 0 {
				gr.write = append(gr.write, p)
			}
		}
	}
	c.guard = g
	return nil
}

func accessDenied(who principal, check authzCheck, why string) error {
	return &apiError{typ: errAccessDenied, msg: "User: " + who.arn() + " is not authorized to perform: " + check.action +
		" on resource: " + check.resource + " " + why}
}

// tableFor returns the handle on table name for request c: guarded by the
// request's guard when policies apply. Every handle an operation touches
// data through comes from here (a lint test checks the operation files).
func (s *Server) tableFor(c *call, name string) (*fdyno.Table, error) {
	t, err := s.openTable(name)
	if err != nil || c == nil || c.guard == nil {
		return t, err
	}
	return t.Guarded(c.guard), nil
}

// checkARNOwner refuses a table ARN given as TableName whose account or
// region is not the caller's: there are no resource-based policies here,
// so no request reaches another account's (or region's) tables, and the
// caller's own table of the same name is never served in its place.
// DynamoDB's wording for a cross-account request that no resource-based
// policy allows.
func checkARNOwner(c *call, arn, region, account string) error {
	if account == c.owner && region == c.region {
		return nil
	}
	action := "dynamodb:" + c.op
	return &apiError{typ: errAccessDenied, msg: "User: " + c.who.arn() + " is not authorized to perform: " + action +
		" on resource: " + arn + " because no resource-based policy allows the " + action + " action"}
}

// splitTableARN splits a table ARN, arn:<partition>:dynamodb:<region>:
// <account>:table/<name>, into its parts; ok is false for anything else.
func splitTableARN(arn string) (region, account, name string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || !strings.HasPrefix(parts[1], "aws") || parts[2] != "dynamodb" {
		return "", "", "", false
	}
	name, ok = strings.CutPrefix(parts[5], "table/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", "", "", false
	}
	return parts[3], parts[4], name, true
}
