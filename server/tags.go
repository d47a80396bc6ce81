package server

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// tags.go: TagResource, UntagResource and ListTagsOfResource; the tags
// live in the table's settings record (table_settings.go) and go with
// the table. The resource is named by its
// table ARN, which DynamoDB checks part by part:
//
//   - not an ARN (no "arn:" prefix): ValidationException;
//   - another service's ARN, or another account's: AccessDeniedException
//     (the caller may not act on it);
//   - a DynamoDB ARN of something other than a table (an index's, a
//     stream's) or of a name no table can have: ValidationException
//     "Invalid TableArn: Invalid ResourceArn provided as input <arn>",
//     the words DynamoDB uses for a malformed ARN; of another region:
//     ValidationException;
//   - a table that does not exist: ResourceNotFoundException, "Requested
//     resource not found: ResourcArn: <arn> not found" (DynamoDB's
//     spelling).
//
// ListTagsOfResource returns at most tagsPageSize tags per call, in key
// order, and a NextToken to continue.

// accountID is the AWS account of the shared namespace (namespace.go).
const accountID = "000000000000"

// tagsPageSize is the most tags one ListTagsOfResource returns.
const tagsPageSize = 10

var errAccessDenied = errType{nsCoral + "AccessDeniedException", 400}

// resourceTable returns the table named by a tagging request's
// ResourceArn, checked as DynamoDB checks it.
func (s *Server) resourceTable(c *call, arn *string, op string) (*fdyno.Table, error) {
	if arn == nil {
		return nil, missing("resourceArn")
	}
	a := *arn
	var v constraints
	if len(a) < 1 || len(a) > maxTableARNLength {
		v.add("resourceArn", &a, "Member must have length between 1 and 1024")
		return nil, v.err()
	}
	parts := strings.SplitN(a, ":", 6)
	if len(parts) < 6 || parts[0] != "arn" {
		return nil, validation("Invalid TableArn: Invalid ResourceArn provided as input " + a)
	}
	service, region, account, resource := parts[2], parts[3], parts[4], parts[5]
	denied := &apiError{typ: errAccessDenied, msg: "User is not authorized to perform: dynamodb:" + op + " on resource: " + a}
	if service != "dynamodb" || account != s.account {
		return nil, denied
	}
	name, ok := strings.CutPrefix(resource, "table/")
	if !ok || strings.Contains(name, "/") || !validTableName(name) || len(name) < minTableNameLength || len(name) > maxTableNameLength {
		// An index's or a stream's ARN, or a name no table can have.
		return nil, validation("Invalid TableArn: Invalid ResourceArn provided as input " + a)
	}
	if region != s.region {
		return nil, validation("Invalid TableArn: " + a + " names the region " + strconv.Quote(region) + ", this endpoint serves " + strconv.Quote(s.region))
	}
	c.table = name
	notFound := &apiError{typ: errResourceNotFound, msg: "Requested resource not found: ResourcArn: " + a + " not found"}
	t, err := s.tableFor(c, name)
	if err != nil {
		if ae := toAPIError(err); ae.typ == errResourceNotFound {
			return nil, notFound
		}
		return nil, err
	}
	return t, nil
}

// tag is a key-value pair attached to a table (DynamoDB's Tag).
type tag struct {
	Key   string
	Value string
}

// Tag limits (DynamoDB's tagging restrictions).
const (
	// maxTags is the most tags a table may have.
	maxTags = 50
	// maxTagKeyLength and maxTagValueLength bound a tag's key (at least
	// one character) and value, in Unicode characters.
	maxTagKeyLength   = 128
	maxTagValueLength = 256
	// reservedTagPrefix starts the keys AWS assigns, which users cannot.
	reservedTagPrefix = "aws:"
)

// checkTag applies DynamoDB's tagging restrictions to one tag: a key of 1
// to 128 characters not starting with "aws:", a value of at most 256, both
// of letters, digits, white space and + - = . _ : / @.
func checkTag(t tag) error {
	n := utf8.RuneCountInString(t.Key)
	switch {
	case n < 1 || n > maxTagKeyLength:
		return validation("One or more parameter values were invalid: tag key must be 1 to 128 characters: " + strconv.Quote(t.Key))
	case utf8.RuneCountInString(t.Value) > maxTagValueLength:
		return validation("One or more parameter values were invalid: tag value of key " + strconv.Quote(t.Key) + " is longer than 256 characters")
	case strings.HasPrefix(strings.ToLower(t.Key), reservedTagPrefix):
		return validation("One or more parameter values were invalid: tag keys starting with 'aws:' are reserved for system use: " + strconv.Quote(t.Key))
	case !tagText(t.Key) || !tagText(t.Value):
		return validation("One or more parameter values were invalid: tags may use only letters, digits, white space and + - = . _ : / @: " + strconv.Quote(t.Key))
	}
	return nil
}

func tagText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) && !strings.ContainsRune("+-=._:/@", r) {
			return false
		}
	}
	return true
}

// mergeTags returns have with add applied (a key already present takes
// the new value), in key order, refusing invalid tags and more than
// maxTags in all.
func mergeTags(have, add []tag) ([]tag, error) {
	out := slices.Clone(have)
	for _, t := range add {
		if err := checkTag(t); err != nil {
			return nil, err
		}
		i, found := slices.BinarySearchFunc(out, t.Key, func(a tag, k string) int { return strings.Compare(a.Key, k) })
		if found {
			out[i].Value = t.Value
		} else {
			out = slices.Insert(out, i, t)
		}
	}
	if len(out) > maxTags {
		return nil, validation("One or more parameter values were invalid: a table can have at most 50 tags, this request would make " + strconv.Itoa(len(out)))
	}
	return out, nil
}

// wireTag is a Tag as a request carries it: DynamoDB's Tag shape
// requires both members, so an absent one (null) is told from an empty
// one. An empty Value is a valid tag; an absent Value is not.
type wireTag struct {
	Key   *string
	Value *string
}

// checkTagMembers applies the Tag shape's constraints, every violation
// of the list in one message: both members required, keys of 1 to 128
// characters, values of at most 256. It returns the tags.
func checkTagMembers(field string, tags []wireTag) ([]tag, error) {
	if tags == nil {
		return nil, nil
	}
	var v constraints
	out := make([]tag, len(tags))
	for i, t := range tags {
		at := field + "." + strconv.Itoa(i+1) + ".member."
		switch {
		case t.Key == nil:
			v.add(at+"key", nil, "Member must not be null")
		case len([]rune(*t.Key)) < 1:
			v.add(at+"key", t.Key, "Member must have length greater than or equal to 1")
		case len([]rune(*t.Key)) > maxTagKeyLength:
			v.add(at+"key", t.Key, "Member must have length less than or equal to 128")
		default:
			out[i].Key = *t.Key
		}
		switch {
		case t.Value == nil:
			v.add(at+"value", nil, "Member must not be null")
		case len([]rune(*t.Value)) > maxTagValueLength:
			v.add(at+"value", t.Value, "Member must have length less than or equal to 256")
		default:
			out[i].Value = *t.Value
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	return out, nil
}

type tagResourceInput struct {
	ResourceArn *string
	Tags        []wireTag

	tags []tag // Tags, checked
}

// emptyOutput is the answer of an operation whose output has no members:
// as DynamoDB's TagResource and UntagResource, an HTTP 200 with an empty
// body (not "{}").
type emptyOutput struct{}

// appendJSON appends nothing: the body is empty.
func (emptyOutput) appendJSON(dst []byte) []byte { return dst }

// prepare checks the tags; the table, named by ResourceArn, is looked up
// by resourceTable, which answers for it as DynamoDB does.
func (in *tagResourceInput) prepare(*call) (string, error) {
	if in.Tags == nil {
		return "", missing("tags")
	}
	tags, err := checkTagMembers("tags", in.Tags)
	in.tags = tags
	return "", err
}

func (s *Server) tagResource(c *call, in *tagResourceInput, _ *fdyno.Table) (any, error) {
	t, err := s.resourceTable(c, in.ResourceArn, "TagResource")
	if err != nil {
		return nil, err
	}
	for _, tg := range in.tags {
		if err := checkTag(tg); err != nil {
			return nil, err
		}
	}
	err = s.retag(t, func(have []tag) ([]tag, error) { return mergeTags(have, in.tags) })
	return emptyOutput{}, err
}

// retag replaces table t's tags with f's change of them, in one
// transaction that refuses tags contradicting the table (fdyno_tags.go).
func (s *Server) retag(t *fdyno.Table, f func(have []tag) ([]tag, error)) error {
	_, err := fdyno.Transact(s.db, func(tr fdb.Transaction) (*fdyno.TableDescription, error) {
		d, err := t.Describe(tr)
		if err != nil {
			return nil, err
		}
		return updateSettings(tr, t, func(ts *tableSettings) error {
			tags, err := f(ts.Tags)
			if err != nil {
				return err
			}
			if err := checkTableTags(d, ts.Tags, tags); err != nil {
				return err
			}
			ts.Tags = tags
			return nil
		})
	})
	return err
}

type untagResourceInput struct {
	ResourceArn *string
	TagKeys     []string
}

// prepare checks the tag keys (see tagResourceInput.prepare).
func (in *untagResourceInput) prepare(*call) (string, error) {
	if in.TagKeys == nil {
		return "", missing("tagKeys")
	}
	var v constraints
	for i, k := range in.TagKeys {
		if n := len([]rune(k)); n < 1 || n > maxTagKeyLength {
			v.add("tagKeys."+strconv.Itoa(i+1)+".member", &k, "Member must have length between 1 and 128")
		}
	}
	return "", v.err()
}

func (s *Server) untagResource(c *call, in *untagResourceInput, _ *fdyno.Table) (any, error) {
	t, err := s.resourceTable(c, in.ResourceArn, "UntagResource")
	if err != nil {
		return nil, err
	}
	err = s.retag(t, func(have []tag) ([]tag, error) {
		return slices.DeleteFunc(slices.Clone(have), func(tg tag) bool { return slices.Contains(in.TagKeys, tg.Key) }), nil
	})
	return emptyOutput{}, err
}

type listTagsInput struct {
	ResourceArn *string
	NextToken   *string
}

type listTagsOutput struct {
	Tags      []tag
	NextToken string `json:",omitempty"`
}

// prepare has nothing to check before resourceTable.
func (in *listTagsInput) prepare(*call) (string, error) { return "", nil }

func (s *Server) listTagsOfResource(c *call, in *listTagsInput, _ *fdyno.Table) (any, error) {
	t, err := s.resourceTable(c, in.ResourceArn, "ListTagsOfResource")
	if err != nil {
		return nil, err
	}
	d, err := t.Describe(s.db)
	if err != nil {
		return nil, err
	}
	ts, err := settingsOf(d)
	if err != nil {
		return nil, err
	}
	tags := ts.Tags
	// The NextToken is the base64url encoding of the last key returned;
	// the next page starts after it, so tags added or removed between
	// pages are seen or not as they sort, never twice.
	if in.NextToken != nil {
		after, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || len(after) == 0 || len(after) > 4*maxTagKeyLength {
			return nil, validation("Invalid NextToken")
		}
		i, found := slices.BinarySearchFunc(tags, string(after), func(a tag, k string) int { return strings.Compare(a.Key, k) })
		if found {
			i++
		}
		tags = tags[i:]
	}
	out := listTagsOutput{Tags: tags}
	if out.Tags == nil {
		out.Tags = []tag{}
	}
	if len(tags) > tagsPageSize {
		out.Tags = tags[:tagsPageSize]
		out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(tags[tagsPageSize-1].Key))
	}
	return out, nil
}
