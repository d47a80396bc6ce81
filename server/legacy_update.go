package server

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/fdyno/fdyno"
)

// legacy_update.go: UpdateItem's AttributeUpdates (an AttributeValueUpdate
// per attribute), validated with DynamoDB's messages and translated into
// the UpdateExpression that does the same, as the API reference's
// AttributeValueUpdate page defines the actions:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValueUpdate.html
//
//	PUT (the default) with a Value     SET #a = :v
//	DELETE without a Value             REMOVE #a
//	DELETE with a set Value            DELETE #a :v   (an emptied set is removed)
//	ADD with a number or a set         ADD #a :v      (a missing attribute is created)
//	ADD with a list                    SET #a = list_append(if_not_exists(#a, :empty), :v)
//
// An ADD or DELETE whose Value does not fit the attribute's type fails
// as the expression does; the server words it as DynamoDB words the
// legacy form ("Type mismatch for attribute to update").

// updateActions are AttributeValueUpdate's Action values, in the order
// DynamoDB's enum message lists them.
var updateActions = []string{"ADD", "PUT", "DELETE"}

// legacyUpdate is one decoded AttributeUpdates entry.
type legacyUpdate struct {
	attr   string
	action string
	value  fdyno.Value // zero when absent
}

type rawUpdate struct {
	Action *string
	Value  json.RawMessage
}

// decodeUpdates decodes and validates AttributeUpdates, sorted by
// attribute name.
func decodeUpdates(raw legacyParam) ([]legacyUpdate, error) {
	names, m, err := decodeLegacyMap[rawUpdate](raw)
	if err != nil {
		return nil, err
	}
	ups := make([]legacyUpdate, 0, len(m))
	for _, name := range names {
		if err := checkLegacyName(name); err != nil {
			return nil, err
		}
		ru := m[name]
		u := legacyUpdate{attr: name, action: "PUT"}
		if ru.Action != nil {
			u.action = *ru.Action
			if !strings.Contains(" ADD PUT DELETE ", " "+u.action+" ") {
				return nil, validation("1 validation error detected: Value '" + u.action + "' at 'attributeUpdates." + name +
					".member.action' failed to satisfy constraint: Member must satisfy enum value set: [" + strings.Join(updateActions, ", ") + "]")
			}
		}
		if len(ru.Value) > 0 && !bytes.Equal(bytes.TrimSpace(ru.Value), []byte("null")) {
			v, err := decodeLegacyValue(ru.Value)
			if err != nil {
				return nil, err
			}
			u.value = v
		}
		if err := checkUpdate(u); err != nil {
			return nil, err
		}
		ups = append(ups, u)
	}
	return ups, nil
}

// checkUpdate applies DynamoDB's rules for an action and its Value.
func checkUpdate(u legacyUpdate) error {
	t := u.value.Type()
	switch {
	case u.value.IsZero() && u.action != "DELETE":
		return invalid("Only DELETE action is allowed when no attribute value is specified")
	case u.value.IsZero():
		return nil
	case u.action == "DELETE" && t != fdyno.TypeSS && t != fdyno.TypeNS && t != fdyno.TypeBS:
		return invalid("DELETE action with value is not supported for the type " + t.String())
	case u.action == "ADD" && t != fdyno.TypeN && t != fdyno.TypeL && t != fdyno.TypeSS && t != fdyno.TypeNS && t != fdyno.TypeBS:
		return invalid("ADD action is not supported for the type " + t.String())
	}
	return nil
}

// updateExpr returns the UpdateExpression that applies ups, with names
// and values as placeholders of ph, or "" for no updates.
func updateExpr(ph *placeholders, ups []legacyUpdate) string {
	var set, remove, add, del []string
	for _, u := range ups {
		n := ph.name(u.attr)
		switch {
		case u.action == "PUT":
			set = append(set, n+" = "+ph.value(u.value))
		case u.action == "DELETE" && u.value.IsZero():
			remove = append(remove, n)
		case u.action == "DELETE":
			del = append(del, n+" "+ph.value(u.value))
		case u.value.Type() == fdyno.TypeL:
			set = append(set, n+" = list_append(if_not_exists("+n+", "+ph.value(fdyno.L())+"), "+ph.value(u.value)+")")
		default:
			add = append(add, n+" "+ph.value(u.value))
		}
	}
	var b strings.Builder
	for _, clause := range []struct {
		word  string
		parts []string
	}{{"SET", set}, {"REMOVE", remove}, {"ADD", add}, {"DELETE", del}} {
		if len(clause.parts) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(clause.word + " " + strings.Join(clause.parts, ", "))
	}
	return b.String()
}
