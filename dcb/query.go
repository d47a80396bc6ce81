package dcb

import (
	"bytes"
	"fmt"
	"slices"
)

// QueryItem selects events by type and tags: an event matches when its
// type is one of Types (any type if Types is empty) and its tags include
// every one of Tags. An item must name at least one type or one tag; the
// query that matches every event is [All].
type QueryItem struct {
	Types []string
	Tags  []string
}

// Query selects events: those matching any of its items, or every event
// for [All]. The zero Query is invalid (the specification: a query MUST
// contain at least one item or match all events).
type Query struct {
	Items []QueryItem
	all   bool
}

// All returns the query that matches every event.
func All() Query { return Query{all: true} }

// Items returns the query matching events that match any of items.
func Items(items ...QueryItem) Query { return Query{Items: items} }

// IsAll reports whether q is [All].
func (q Query) IsAll() bool { return q.all }

// Matches reports whether an event of type typ with tags matches q.
func (q Query) Matches(typ string, tags []string) bool {
	if q.all {
		return true
	}
	for _, it := range q.Items {
		if it.matches(typ, tags) {
			return true
		}
	}
	return false
}

func (it QueryItem) matches(typ string, tags []string) bool {
	if len(it.Types) > 0 && !slices.Contains(it.Types, typ) {
		return false
	}
	for _, t := range it.Tags {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	return true
}

// plan is a validated query as the index ranges it reads: each prefix's
// entries end in a position (keys.go). The prefixes are distinct and
// sorted; values says whether they are event values (All) or empty
// index entries.
type plan struct {
	prefixes [][]byte
	values   bool
}

// plan validates q and lists its ranges.
func (k *keys) plan(q Query) (plan, error) {
	if q.all {
		if len(q.Items) > 0 {
			return plan{}, fmt.Errorf("%w: All() takes no items", ErrInvalidQuery)
		}
		return plan{prefixes: [][]byte{k.events}, values: true}, nil
	}
	if len(q.Items) == 0 {
		return plan{}, fmt.Errorf("%w: a query needs at least one item, or use All()", ErrInvalidQuery)
	}
	var ps [][]byte
	for i, it := range q.Items {
		if len(it.Types) == 0 && len(it.Tags) == 0 {
			return plan{}, fmt.Errorf("%w: item %d has neither types nor tags (use All() to match every event)", ErrInvalidQuery, i)
		}
		for _, t := range it.Types {
			if t == "" || len(t) > MaxTypeBytes {
				return plan{}, fmt.Errorf("%w: item %d: type of %d bytes (want 1 to %d)", ErrInvalidQuery, i, len(t), MaxTypeBytes)
			}
		}
		tags := normalTags(it.Tags)
		if len(tags) > MaxTags || slices.ContainsFunc(tags, func(t string) bool { return len(t) > MaxTagBytes }) {
			// No event carries more than MaxTags tags or a longer tag, so
			// the item matches nothing: it reads no range.
			continue
		}
		switch {
		case len(tags) == 0:
			for _, t := range it.Types {
				ps = append(ps, k.typePrefix(t))
			}
		case len(it.Types) == 0:
			ps = append(ps, k.tagsPrefix(tags, "", false))
		default:
			for _, t := range it.Types {
				ps = append(ps, k.tagsPrefix(tags, t, true))
			}
		}
	}
	slices.SortFunc(ps, bytes.Compare)
	ps = slices.CompactFunc(ps, bytes.Equal)
	return plan{prefixes: ps}, nil
}
