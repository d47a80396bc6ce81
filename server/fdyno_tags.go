package server

import (
	"slices"
	"strings"

	"github.com/fdyno/fdyno"
)

// fdyno_tags.go: the fdyno tags, table settings of fdyno's that
// DynamoDB's API has no member for, carried by the one place of the API
// every SDK and tool can fill in with any text: a table's tags
// (CreateTable's Tags, TagResource, UntagResource). Keys starting with
// "fdyno:" are fdyno's:
//
//	fdyno:unique-indexes  the names of the table's unique global secondary
//	                      indexes (the library's GlobalSecondaryIndex.Unique),
//	                      separated by spaces (DynamoDB allows no comma in
//	                      a tag): an index of that name, created with the
//	                      table or later by UpdateTable, is unique
//	fdyno:counts          "off" creates the table without exact counts (the
//	                      library's TableSchema.WithoutCounts); "on", the
//	                      default, with
//
// Invariants:
//
//  1. The tags a table keeps say the truth about it: a TagResource or
//     UntagResource that would make fdyno:unique-indexes list an
//     existing GSI that is not unique, or leave out one that is, or make
//     fdyno:counts say other than the table keeps, is a
//     ValidationException and changes nothing. Both settings are fixed
//     when the index or table is created; the tag may name indexes not
//     created yet. (A table made through the library, which may have a
//     unique GSI and no tag, keeps the tags it has.)
//  2. A key starting with "fdyno:" (in any case) that is not one of the
//     above, or a value these rules refuse, is a ValidationException: a
//     misspelt setting must not be a silent plain tag.
//  3. A GSI is unique only through the tag: a request member "Unique"
//     (the library's field, which DynamoDB's model does not have) is
//     ignored like any member the model does not have.

// The fdyno tag keys.
const (
	fdynoTagPrefix            = "fdyno:"
	tagUniqueIndexes          = "fdyno:unique-indexes"
	tagCounts                 = "fdyno:counts"
	tagCountsOn, tagCountsOff = "on", "off"
)

// fdynoSettings are what a table's tags say of fdyno's settings.
type fdynoSettings struct {
	// unique holds the names fdyno:unique-indexes lists; nil without it.
	unique map[string]bool
	// counts is fdyno:counts: "" without it, else on or off.
	counts string
}

// parseFdynoTags returns the fdyno settings of tags, refusing unknown
// fdyno keys and bad values (invariant 2).
func parseFdynoTags(tags []tag) (fdynoSettings, error) {
	var fs fdynoSettings
	for _, t := range tags {
		if !strings.HasPrefix(strings.ToLower(t.Key), fdynoTagPrefix) {
			continue
		}
		switch t.Key {
		case tagUniqueIndexes:
			fs.unique = map[string]bool{}
			for _, name := range strings.Fields(t.Value) {
				if !validTableName(name) || len(name) < minTableNameLength || len(name) > maxTableNameLength {
					return fs, validation("One or more parameter values were invalid: tag " + tagUniqueIndexes + " must list index names separated by spaces: " + name)
				}
				fs.unique[name] = true
			}
		case tagCounts:
			if t.Value != tagCountsOn && t.Value != tagCountsOff {
				return fs, validation("One or more parameter values were invalid: tag " + tagCounts + " must be on or off")
			}
			fs.counts = t.Value
		default:
			return fs, validation("One or more parameter values were invalid: unknown fdyno tag " + t.Key + " (fdyno's are " + tagUniqueIndexes + " and " + tagCounts + ")")
		}
	}
	return fs, nil
}

// applyToSchema makes schema s, of a table CreateTable creates, what the
// settings say: its GSIs unique as listed, its counts on or off. A name
// of one of its LSIs is refused (only GSIs are unique).
func (fs fdynoSettings) applyToSchema(s *fdyno.TableSchema) error {
	for _, l := range s.LocalSecondaryIndexes {
		if fs.unique[l.IndexName] {
			return validation("One or more parameter values were invalid: tag " + tagUniqueIndexes + " names " + l.IndexName + ", a local secondary index: only global secondary indexes are unique")
		}
	}
	for i := range s.GlobalSecondaryIndexes {
		s.GlobalSecondaryIndexes[i].Unique = fs.unique[s.GlobalSecondaryIndexes[i].IndexName]
	}
	s.WithoutCounts = fs.counts == tagCountsOff
	return nil
}

// checkTableTags refuses tags, the tags table d would keep after a
// TagResource or UntagResource, if they contradict the table (invariant
// 1). old are its tags before: only a setting whose tag the request
// changes is checked.
func checkTableTags(d *fdyno.TableDescription, old, tags []tag) error {
	before, err := parseFdynoTags(old)
	if err != nil {
		return err
	}
	after, err := parseFdynoTags(tags)
	if err != nil {
		return err
	}
	if tagValue(old, tagUniqueIndexes) != tagValue(tags, tagUniqueIndexes) {
		for _, l := range d.LocalSecondaryIndexes {
			if after.unique[l.IndexName] {
				return validation("One or more parameter values were invalid: tag " + tagUniqueIndexes + " names " + l.IndexName + ", a local secondary index: only global secondary indexes are unique")
			}
		}
		for _, g := range d.GlobalSecondaryIndexes {
			if after.unique[g.IndexName] != g.Unique {
				what := "not unique"
				if g.Unique {
					what = "unique"
				}
				return validation("One or more parameter values were invalid: tag " + tagUniqueIndexes + " cannot change index " + g.IndexName +
					", which is " + what + ": an index's uniqueness is fixed when it is created (delete the index and create it again)")
			}
		}
	}
	if before.counts != after.counts {
		keeps := tagCountsOn
		if d.WithoutCounts {
			keeps = tagCountsOff
		}
		if countsSetting(after.counts) != keeps {
			return validation("One or more parameter values were invalid: tag " + tagCounts + " cannot change: the table keeps exact counts " + keeps + ", as fixed when it was created")
		}
	}
	return nil
}

// countsSetting is what fdyno:counts of value v says: on when absent.
func countsSetting(v string) string {
	if v == "" {
		return tagCountsOn
	}
	return v
}

// tagValue returns the value of tag key in tags, and "\x00" (no tag
// value: DynamoDB allows no control character) when it is absent.
func tagValue(tags []tag, key string) string {
	if i := slices.IndexFunc(tags, func(t tag) bool { return t.Key == key }); i >= 0 {
		return tags[i].Value
	}
	return "\x00"
}
